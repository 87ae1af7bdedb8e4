"""Chapter 01's exercises: `numerical_derivative`, guess the best h, count the evaluations."""

from . import Mistake

_HEAD = '''def numerical_derivative(f, x, h=1e-5):
    """The slope of f at x, estimated by the central difference with step h."""
'''


def _nd(body):
    return _HEAD + body


MISTAKES = [
    # numerical_derivative: the recipes learners really write instead of the central difference
    Mistake(
        "ch01.check_numerical_derivative",
        "forward difference",
        _nd("    return (f(x + h) - f(x)) / h"),
        ("the forward difference",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "backward difference",
        _nd("    return (f(x) - f(x - h)) / h"),
        ("the backward difference",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "missing the /2",
        _nd("    return (f(x + h) - f(x - h)) / h"),
        ("divide by 2h, not h",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "ignores h",
        _nd("    h = 0.0001\n    return (f(x + h) - f(x - h)) / (2 * h)"),
        ("as if it ignored h",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "wrong sign",
        _nd("    return (f(x - h) - f(x + h)) / (2 * h)"),
        ("the sign wrong",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "missing return",
        _nd("    (f(x + h) - f(x - h)) / (2 * h)"),
        ("no `return`",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "no parentheses around 2h",
        _nd("    return (f(x + h) - f(x - h)) / 2 * h"),
        ("without parentheses Python divides by 2 and then multiplies by h",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "no parentheses around the difference",
        _nd("    return f(x + h) - f(x - h) / (2 * h)"),
        ("only f(x − h) is divided",),
    ),
    Mistake(
        "ch01.check_numerical_derivative",
        "f(x) for f(x - h)",
        _nd("    return (f(x + h) - f(x)) / (2 * h)"),
        ("uses f(x − h), not f(x)",),
    ),
    # the formula right, its default step not: the check names the default h, not the slope
    Mistake(
        "ch01.check_numerical_derivative",
        "default h too small",
        _HEAD.replace("h=1e-5", "h=1e-13") + "    return (f(x + h) - f(x - h)) / (2 * h)",
        ("your formula is right", "its default h = 1e-13 is not", "too small"),
    ),
    # the best h: the guesses people make, each with its own hint (never the answer at first)
    Mistake(
        "ch01.check_best_step_guess",
        "too large",
        "my_best_h = 1e-2",
        ("h = 1e-2 is too large", "truncation error"),
    ),
    Mistake(
        "ch01.check_best_step_guess",
        "the forward difference's sqrt(eps)",
        "my_best_h = 1e-8",
        ("best step for the forward difference",),
    ),
    Mistake(
        "ch01.check_best_step_guess", "machine epsilon", "my_best_h = 2.2e-16", ("machine epsilon",)
    ),
    Mistake(
        "ch01.check_best_step_guess",
        "too small",
        "my_best_h = 1e-11",
        ("h = 1e-11 is too small", "round-off"),
    ),
    # the count: the numbers people give
    Mistake(
        "ch01.check_evaluation_count",
        "one per parameter",
        "evaluations = 1000",
        ("one evaluation per parameter",),
    ),
    Mistake(
        "ch01.check_evaluation_count",
        "forward differences' n + 1",
        "evaluations = 1001",
        ("the count for forward differences",),
    ),
    Mistake(
        "ch01.check_evaluation_count",
        "f(x) counted too",
        "evaluations = 2001",
        ("never needs the unnudged f(x)",),
    ),
    Mistake(
        "ch01.check_evaluation_count",
        "one partial derivative",
        "evaluations = 2",
        ("the cost of one partial derivative",),
    ),
    Mistake(
        "ch01.check_evaluation_count", "n squared", "evaluations = 1000 * 1000", ("1,000 × 1,000",)
    ),
]
