"""Chapter 1 · What is automatic differentiation? — checkpoint and exercise checks.

What the chapter asks for: `numerical_derivative(f, x, h=...)`, the central difference

    (f(x + h) - f(x - h)) / 2h,

the slope of f at x with a truncation error of about h² (and a round-off error of about ε/h,
so h should be neither large nor tiny), with a sensible default for h.

The chapter's exercises: `numerical_derivative` itself (`NUMERICAL_DERIVATIVE`), a guess of the
best step h (`BEST_STEP`) and the number of evaluations a gradient costs (`EVALUATIONS`). The two
number answers get a hint on the first wrong try and the answer after the second, rounded to
what the question asked for. (`WARM_UP`, at the bottom, is chapter 00's.)
"""

import inspect
import math
import statistics

from .toolbox import (
    Exercise,
    Prediction,
    check,
    declare_checkpoint,
    diagnoses,
    expect,
    fail,
    is_close,
    is_number,
    returned,
    show,
    untouched_stub,
)

__all__ = [
    "checkpoint",
    "check_numerical_derivative",
    "check_evaluation_count",
    "check_best_step_guess",
    "bottom_of_the_v",
    "check_warm_up_slope",
]

TOL = 1e-5  # relative or absolute; any step between 1e-8 and 1e-3 gets within it


def parabola(x):
    """The chapter's running example f(x) = 3x² − 4x + 5, so f'(x) = 6x − 4."""
    return 3 * x**2 - 4 * x + 5


def _slope(numerical_derivative, f, x, said, **step):
    """`numerical_derivative(f, x, **step)`, failing with a reason when it is not a number."""
    return returned(
        numerical_derivative(f, x, **step),
        none=f"{said} gave None: the function has no `return` (it must end with "
        "`return` and the central difference)",
        kind=is_number,
        wrong=lambda got: (
            f"{said} gave {show(got)}, a {type(got).__name__}, not a "
            "number: return the central difference itself"
        ),
    )


def _expect_slope(got, expected, said, hint):
    """Fail unless `got` is within TOL of `expected`; numbers shown to 8 significant digits,
    enough to see a miss of TOL, not the 17 digits of a float's repr."""
    if not is_close(got, expected, TOL):
        fail(f"{said} should be {expected:.8g} but was {got:.8g}: {hint}")


def _default_step(numerical_derivative):
    """The default of the parameter `h`, or None when there is none to read."""
    try:
        h = inspect.signature(numerical_derivative).parameters["h"].default
    except (TypeError, ValueError, KeyError):
        return None
    return h if is_number(h) else None


def _blame_default_step(numerical_derivative, f, x, expected, hint):
    """`hint`, unless the slope came out wrong because of the default h alone: a default
    outside 1e-8 to 1e-3, with which the same function given h=1e-5 is right. Then the hint
    names the default h, not the slope the learner already computes right."""
    h = _default_step(numerical_derivative)
    if h is None or 1e-8 <= h <= 1e-3:
        return hint
    try:  # right with a good step, and the central difference itself (3.01, see below)
        formula_right = is_close(numerical_derivative(f, x, h=1e-5), expected, TOL) and is_close(
            numerical_derivative(_cube, 1.0, h=0.1), 3.01
        )
    except Exception:  # the learner's code: then the slope is at fault
        return hint
    if not formula_right:
        return hint
    if h > 1e-3:
        why = "it is too large, and leaves a truncation error of about h²"
    elif h > 0:
        why = "it is too small, and the difference drowns in round-off (about ε/h)"
    else:
        why = "the step must be a small positive number"
    return (
        f"your formula is right (with h=1e-5 it gives {expected:.8g}), but its default "
        f"h = {show(h)} is not: {why}. Give h a default between 1e-8 and 1e-3, such as "
        "`h=1e-5`, the bottom of the V"
    )


def _expect_default_slope(numerical_derivative, f, x, expected, said, hint):
    """`numerical_derivative(f, x)`, with its default h, within TOL of `expected`."""
    got = _slope(numerical_derivative, f, x, said)
    if not is_close(got, expected, TOL):
        _expect_slope(
            got, expected, said, _blame_default_step(numerical_derivative, f, x, expected, hint)
        )


@check("f(x) = 3x² − 4x + 5: slope 14 at x = 3 and −16 at x = −2")
def parabola_slopes(numerical_derivative):
    for x, slope in ((3.0, 14.0), (-2.0, -16.0)):
        said = f"`numerical_derivative(f, {x:g})` for f(x) = 3x² − 4x + 5"
        _expect_default_slope(
            numerical_derivative, parabola, x, slope, said, hint="the slope is 6x − 4"
        )


@check("sin and exp: slopes cos x and eˣ at several points")
def other_functions(numerical_derivative):
    cases = [
        (math.sin, "sin", math.cos, "cos", 1.0),
        (math.sin, "sin", math.cos, "cos", -2.5),
        (math.exp, "exp", math.exp, "exp", 0.5),
        (math.exp, "exp", math.exp, "exp", -1.0),
    ]
    for f, name, slope, slope_name, x in cases:
        said = f"`numerical_derivative({name}, {x:g})`"
        _expect_default_slope(
            numerical_derivative,
            f,
            x,
            slope(x),
            said,
            hint=f"the slope of {name} at {x:g} is {slope_name}({x:g})",
        )


def _cube(x):
    return x**3


# For f(x) = x³ at x = 1 with h = 0.1, each recipe gives its own number, worked by hand from
# f(1.1) = 1.331, f(1) = 1 and f(0.9) = 0.729: the central difference 0.602 / 0.2 = 3.01, and
# the wrong recipes learners really write:
WRONG_RECIPES = [
    (
        3.31,
        "the forward difference (f(x + h) − f(x)) / h = 0.331 / 0.1; the central difference "
        "(f(x + h) − f(x − h)) / 2h gives 3.01, and its error shrinks like h², not h",
    ),
    (
        2.71,
        "the backward difference (f(x) − f(x − h)) / h = 0.271 / 0.1; the central "
        "difference (f(x + h) − f(x − h)) / 2h gives 3.01",
    ),
    (
        6.02,
        "twice the slope: f(x + h) − f(x − h) = 0.602 spans a step of 2h, from x − h to "
        "x + h, so divide by 2h, not h",
    ),
    (
        -3.01,
        "the slope with the sign wrong: the difference was taken the other way round, "
        "f(x − h) − f(x + h); the central difference is (f(x + h) − f(x − h)) / 2h",
    ),
    (
        0.0301,
        "(f(x + h) − f(x − h)) / 2 * h: without parentheses Python divides by 2 and then "
        "multiplies by h; write `/ (2 * h)`, with parentheses",
    ),
    (
        1.331 - 0.729 / 0.2,
        "f(x + h) − f(x − h) / (2 * h): without parentheses around the "
        "difference only f(x − h) is divided; write "
        "`(f(x + h) - f(x - h)) / (2 * h)`",
    ),
    (0.602, "the difference f(x + h) − f(x − h) alone: divide it by the step it spans, 2h"),
    (0.301, "the difference divided by 2 but not by h: divide by 2h, `/ (2 * h)`"),
    (
        1.655,
        "(f(x + h) − f(x)) / 2h: a forward difference divided by 2h; the central "
        "difference uses f(x − h), not f(x)",
    ),
    (1.0, "f(x) itself, the value of f, not its slope"),
]


@check("a central difference that uses the h it is given")
def central_difference(numerical_derivative):
    said = "`numerical_derivative(lambda x: x**3, 1.0, h=0.1)`"
    got = _slope(numerical_derivative, _cube, 1.0, said, h=0.1)
    for value, meaning in diagnoses(got, WRONG_RECIPES):
        fail(f"{said} gave {value:g}, {meaning}")
    wider = _slope(numerical_derivative, _cube, 1.0, "the same with h=0.2", h=0.2)
    if is_close(got, wider):
        fail(
            f"{said} gave {got:.6g}, and with h=0.2 the same, as if it ignored h (the central "
            "difference gives 3.01 with h = 0.1 and 3.04 with h = 0.2): use the `h` argument "
            "as it is given, without setting h or a step of your own inside the function"
        )
    if not is_close(got, 3.01):
        fail(
            f"{said} should be 3.01 but was {got:.8g}: that is (f(x + h) − f(x − h)) / 2h "
            "with h = 0.1, (1.331 − 0.729) / 0.2"
        )


@check("h has a sensible default")
def sensible_default_step(numerical_derivative):
    try:
        parameters = inspect.signature(numerical_derivative).parameters
    except (TypeError, ValueError):
        fail("could not read the parameters of `numerical_derivative`; define it with `def`")
    expect(
        "h" in parameters,
        "`numerical_derivative` should take its step as a parameter named `h`, as in "
        "`def numerical_derivative(f, x, h=1e-5)`",
    )
    h = parameters["h"].default
    expect(
        h is not inspect.Parameter.empty,
        "`h` should have a default value, so that `numerical_derivative(f, x)` works",
    )
    expect(
        is_number(h) and 1e-8 <= h <= 1e-3,
        f"the default h should be between 1e-8 and 1e-3, but was {show(h)}: a larger h leaves a "
        "truncation error of about h², a smaller one drowns in round-off (about ε/h); "
        "the bottom of the V is near 1e-5",
    )


CHECKPOINT = [parabola_slopes, other_functions, central_difference, sensible_default_step]


@declare_checkpoint(1, "Chapter 1 checkpoint: numerical_derivative", CHECKPOINT)
def checkpoint(numerical_derivative):
    """Chapter 1's specification, run on the learner's `numerical_derivative(f, x, h=...)`."""


# --------------------------------------------------------------------- exercises


# The recipe first: its failures name the bug (forward difference, a missing 2, ...), and the
# checkpoint shows the first failure of an answer that failed.
NUMERICAL_DERIVATIVE = Exercise(
    1,
    "the central difference",
    [central_difference, parabola_slopes, other_functions, sensible_default_step],
    what="your `numerical_derivative`",
    unanswered=untouched_stub(),
    todo="replace `...` with `return` and the central difference, run the cell, then this "
    "check again",
)


def check_numerical_derivative(numerical_derivative):
    """Exercise: `numerical_derivative(f, x, h=1e-5)`, the central difference."""
    return NUMERICAL_DERIVATIVE.check(numerical_derivative)


def bottom_of_the_v(f=math.exp, df=math.exp, x=1.0):
    """The step h, between 1e-12 and 1, at which the central difference of f at x is most
    accurate (by default for eˣ at x = 1, where every derivative is e).

    Read off a smoothed error curve: near the bottom, round-off makes the error jump up and
    down by a factor of ten from one h to the next, so the single smallest error is luck, not
    the bottom. Each error is replaced by the median of its neighbours a quarter of a decade
    either side, and the smallest of those wins.
    """
    hs = [10 ** (-12 + i / 40) for i in range(481)]
    slope = df(x)
    errors = [abs((f(x + h) - f(x - h)) / (2 * h) - slope) for h in hs]
    reach = 10
    smoothed = [
        statistics.median(errors[max(0, i - reach) : i + reach + 1]) for i in range(len(hs))
    ]
    return hs[min(range(len(hs)), key=smoothed.__getitem__)]


def order_of_magnitude(h):
    """`h` rounded to a power of ten and written as the question asks, such as `1e-5`."""
    return f"1e{round(math.log10(h))}"


def _written(h):
    """A guess written with one significant digit and a plain exponent: `3e-3`, `1e-12`."""
    mantissa, exponent = f"{h:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


@check("your h is within a factor of 10 of the most accurate step")
def near_the_bottom(guess):
    if not is_number(guess) or not guess > 0:
        fail(f"your guess should be a number greater than 0, such as 1e-3, but was {show(guess)}")
    best = bottom_of_the_v()
    if best / 10 <= guess <= 10 * best:
        return
    said = f"h = {_written(guess)} is too {'large' if guess > best else 'small'}"
    if guess > 10 * best:
        why = (
            "there the truncation error, about h²·e/6, is still far bigger than the "
            "round-off, about ε·e/h, so a smaller h does better."
        )
    elif guess < 1e-14:
        why = (
            "that is about the machine epsilon ε itself: x + h and x − h are then the same "
            "float or nearly, and the difference is nothing but round-off. Round-off, about "
            "ε·e/h, shrinks as h grows, so a larger h does better."
        )
    elif 3e-9 < guess < 6e-8:  # √ε ≈ 1.5e-8
        why = (
            "that is about √ε, the best step for the forward difference, whose truncation "
            "error shrinks only like h. The central difference's shrinks like h², so it can "
            "stop at a larger h before round-off (about ε·e/h) takes over."
        )
    else:
        why = (
            "there round-off, about ε·e/h, has already taken over from the truncation "
            "error, about h²·e/6, so a larger h does better."
        )
    if BEST_STEP.wrong_tries >= 1:  # at least the second wrong try: show the answer
        fail(
            f"{said}: {why} The bottom of the V is near h = {order_of_magnitude(best)}: "
            "there the two errors are about equal (h²/6 = ε/h gives h = (6ε)^(1/3))."
        )
    fail(
        f"{said}: {why} Where are the two errors about equal? Try again: after a second "
        "wrong try this check shows the answer (or expand the solution below it)."
    )


BEST_STEP = Exercise(
    1,
    "guess the best h",
    [near_the_bottom],
    what="your guess `my_best_h`",
    todo="replace `None` with your guess, such as 1e-3, then run this check again",
)


def check_best_step_guess(guess):
    """Exercise: guess the step h that makes the central difference of eˣ at x = 1 most
    accurate. Within a factor of 10 of the bottom of the V passes; the first wrong guess gets a
    hint, the second the answer, as an order of magnitude (the question asks for no more)."""
    return BEST_STEP.check(guess)


EVALUATIONS = Prediction(
    1,
    "count the evaluations",
    "evaluations of f for the gradient of 1,000 parameters by central differences",
    2000,
    tol=0,
    places=0,
    hint="a central difference gives one partial derivative from two evaluations, "
    "f(x + h) and f(x − h): how many partial derivatives has a gradient of 1,000 "
    "parameters?",
    explain="each of the 1,000 partial derivatives needs its own two evaluations, one with "
    "that parameter nudged up and one nudged down: 2 × 1,000.",
    known_wrong=[
        (
            1000,
            "that is one evaluation per parameter; a central difference nudges each "
            "parameter both ways, f(x + h) and f(x − h).",
        ),
        (
            1001,
            "that is the count for forward differences (one nudge per parameter, plus f(x) "
            "once, shared by all); a central difference nudges each parameter both ways and "
            "never needs f(x) itself.",
        ),
        (2001, "a central difference never needs the unnudged f(x): only f(x + h) and f(x − h)."),
        (2, "that is the cost of one partial derivative; the gradient has one for each parameter."),
        (
            1_000_000,
            "that is 1,000 × 1,000, as if each partial derivative needed 1,000 "
            "evaluations; it needs two, f(x + h) and f(x − h).",
        ),
    ],
    what="your count `evaluations`",
    todo="replace `None` with a whole number, then run this check again",
)


def check_evaluation_count(answer):
    """Exercise: evaluations of f for the gradient of 1,000 parameters by central differences:
    each parameter nudged both ways, 2 × 1,000 = 2,000. (Forward differences would share f(x)
    and nudge each once: 1,000 + 1 = 1,001.)"""
    return EVALUATIONS.check(answer)


WARM_UP = Prediction(
    0,
    "the warm-up: a slope",
    "the slope of the line through (1, 3) and (4, 9)",
    2.0,
    hint="rise over run: the change in y divided by the change in x.",
    explain="rise over run: (9 − 3) / (4 − 1) = 6 / 3.",
    known_wrong=[
        (0.5, "that is run over rise, (4 − 1) / (9 − 3): the change in y goes on top."),
        (6.0, "that is the rise alone, 9 − 3: divide it by the run, 4 − 1."),
        (
            -2.0,
            "the sign is off: both changes go the same way here, from the first point to "
            "the second.",
        ),
        (
            9 / 4,
            "that is y over x of one point, 9 / 4: the slope of a line from (0, 0) to "
            "(4, 9), but this line does not pass through (0, 0). Divide the change in y "
            "by the change in x between the two points.",
        ),
        (
            3.0,
            "that is y over x of one point, 3 / 1: the slope of a line from (0, 0) to "
            "(1, 3), but this line does not pass through (0, 0). Divide the change in y "
            "by the change in x between the two points.",
        ),
    ],
    todo="replace `None` with one line of Python that computes the slope, then run this "
    "check again",
    what="your slope",
)


def check_warm_up_slope(answer):
    """Chapter 00's warm-up, the first exercise of the course: the slope of the line through
    (1, 3) and (4, 9), which is (9 − 3) / (4 − 1) = 2. The line does not pass through the
    origin, so y over x of one point (9 / 4, or 3 / 1) is not it."""
    return WARM_UP.check(answer)
