"""Chapter 1 · What is automatic differentiation? — checkpoint and exercise checks.

What the chapter asks for: `numerical_derivative(f, x, h=...)`, the central difference

    (f(x + h) - f(x - h)) / 2h,

the slope of f at x with a truncation error of about h² (and a round-off error of about ε/h,
so h should be neither large nor tiny), with a sensible default for h.
"""

import inspect
import math
import statistics
from numbers import Real

from . import check, check_answer, expect, expect_close, fail, is_close, run_checks

__all__ = [
    "checkpoint", "check_slope_at_minus_two", "check_evaluation_count", "check_best_step_guess",
    "bottom_of_the_v", "check_warm_up_slope",
]

TOL = 1e-5  # relative or absolute; any step between 1e-8 and 1e-3 gets within it


def parabola(x):
    """The chapter's running example f(x) = 3x² − 4x + 5, so f'(x) = 6x − 4."""
    return 3 * x**2 - 4 * x + 5


@check("f(x) = 3x² − 4x + 5: slope 14 at x = 3 and −16 at x = −2")
def parabola_slopes(numerical_derivative):
    for x, slope in ((3.0, 14.0), (-2.0, -16.0)):
        expect_close(
            numerical_derivative(parabola, x), slope,
            f"`numerical_derivative(f, {x:g})` for f(x) = 3x² − 4x + 5", tol=TOL,
            hint="the slope is 6x − 4",
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
        expect_close(
            numerical_derivative(f, x), slope(x), f"`numerical_derivative({name}, {x:g})`",
            tol=TOL, hint=f"the slope of {name} at {x:g} is {slope_name}({x:g})",
        )


@check("a central difference that uses the h it is given")
def central_difference(numerical_derivative):
    # For f(x) = x³ at x = 1 with h = 0.1, each recipe gives its own number, worked by hand:
    # central ((1.1)³ − (0.9)³) / 0.2 = 3.01, forward ((1.1)³ − 1) / 0.1 = 3.31,
    # backward (1 − (0.9)³) / 0.1 = 2.71; the exact slope 3 means h was ignored.
    got = numerical_derivative(lambda x: x**3, 1.0, h=0.1)
    said = "`numerical_derivative(lambda x: x**3, 1.0, h=0.1)`"
    if is_close(got, 3.31):
        fail(f"{said} gave 3.31, the forward difference (f(x + h) − f(x)) / h; the central "
             "difference (f(x + h) − f(x − h)) / 2h gives 3.01 and its error shrinks like h², "
             "not h")
    if is_close(got, 2.71):
        fail(f"{said} gave 2.71, the backward difference (f(x) − f(x − h)) / h; the central "
             "difference (f(x + h) − f(x − h)) / 2h gives 3.01")
    if is_close(got, 3.0, 1e-6):
        fail(f"{said} gave 3.0, as if it ignored h = 0.1 (with that step the central "
             "difference gives 3.01): use the `h` argument, not a fixed step")
    expect_close(got, 3.01, said, hint="that is (f(x + h) − f(x − h)) / 2h with h = 0.1")


@check("h has a sensible default")
def sensible_default_step(numerical_derivative):
    try:
        parameters = inspect.signature(numerical_derivative).parameters
    except (TypeError, ValueError):
        fail("could not read the parameters of `numerical_derivative`; define it with `def`")
    expect("h" in parameters,
           "`numerical_derivative` should take its step as a parameter named `h`, as in "
           "`def numerical_derivative(f, x, h=1e-5)`")
    h = parameters["h"].default
    expect(h is not inspect.Parameter.empty,
           "`h` should have a default value, so that `numerical_derivative(f, x)` works")
    expect(isinstance(h, Real) and not isinstance(h, bool) and 1e-8 <= h <= 1e-3,
           f"the default h should be between 1e-8 and 1e-3, but was {h!r}: a larger h leaves a "
           "truncation error of about h², a smaller one drowns in round-off (about ε/h); "
           "the bottom of the V is near 1e-5")


CHECKPOINT = [parabola_slopes, other_functions, central_difference, sensible_default_step]


def checkpoint(numerical_derivative):
    """Chapter 1's specification, run on the learner's `numerical_derivative(f, x, h=...)`."""
    return run_checks("Chapter 1 checkpoint: numerical_derivative", CHECKPOINT,
                      numerical_derivative)


# --------------------------------------------------------------------- exercises


def check_slope_at_minus_two(answer):
    """Exercise: the central difference of 3x² − 4x + 5 at x = −2 (exactly −16)."""
    return check_answer("the slope of f(x) = 3x² − 4x + 5 at x = −2", answer, -16.0, tol=1e-4,
                        hint="f'(x) = 6x − 4, and a central difference is close to it")


def check_evaluation_count(answer, *, central=True):
    """Exercise: evaluations of f for the gradient of 1,000 parameters by differences.

    Central differences nudge each parameter both ways: 2 × 1,000 = 2,000. Forward differences
    share f(x) and nudge each once: 1,000 + 1 = 1,001.
    """
    expected = 2000 if central else 1001
    how = "two per parameter" if central else "one per parameter, plus f(x) once"
    return check_answer("evaluations of f for 1,000 parameters", answer, expected, tol=0,
                        hint=how)


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
    smoothed = [statistics.median(errors[max(0, i - reach): i + reach + 1])
                for i in range(len(hs))]
    return hs[min(range(len(hs)), key=smoothed.__getitem__)]


def check_best_step_guess(guess):
    """Exercise: guess the step h that makes the central difference of eˣ at x = 1 most
    accurate. Within a factor of 10 of the bottom of the V passes."""
    best = bottom_of_the_v()

    @check("your h is within a factor of 10 of the most accurate step")
    def near_the_bottom():
        if isinstance(guess, bool) or not isinstance(guess, Real) or not guess > 0:
            fail(f"your guess should be a number greater than 0, such as 1e-3, but was {guess!r}")
        if guess > 10 * best:
            fail(f"h = {guess:.0e} is too large: there the truncation error, about "
                 "h²·|f'''(x)|/6, is still far bigger than the round-off, so a smaller h "
                 f"does better. The bottom of the V is near h = {best:.0e}.")
        if guess < best / 10:
            fail(f"h = {guess:.0e} is too small: there round-off, about ε·|f(x)|/h, has "
                 "already taken over, so a larger h does better. The bottom of the V is near "
                 f"h = {best:.0e}.")

    return run_checks("Your guess", [near_the_bottom])


def check_warm_up_slope(answer):
    """Chapter 00's warm-up, the first exercise of the course: the slope of the line through
    (1, 3) and (4, 12), which is (12 − 3) / (4 − 1) = 3."""
    return check_answer("the slope of the line through (1, 3) and (4, 12)", answer, 3.0,
                        hint="rise over run: the change in y divided by the change in x")
