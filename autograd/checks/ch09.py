"""Chapter 9 · Where next — exercise checks (the chapter has no checkpoint).

Three exercises:

- `check_neuron_node_count(answer)`: the number of nodes in the graph of `Neuron(3)` (the
  package's, with its default relu) called on three plain numbers. Each input costs three
  nodes (the number wrapped into a leaf, a product, a sum), then one relu, plus the neuron's
  own four leaves (three weights and a bias): 3·3 + 1 + 4 = 14.
- `check_dual_tanh(Dual)`: a `tanh()` method on the learner's dual-number class. The class is
  built as `Dual(value, slope)` and keeps the two numbers in attributes `value` and `slope`;
  `tanh()` returns a new `Dual` whose value is tanh(value) and whose slope is
  (1 − tanh²(value)) · slope, the chain rule carried forward.
- `check_pass_counts(...)`: how many forward-mode passes and how many `backward()` calls give
  every derivative of a function with n inputs and m outputs (n and m, respectively).
"""

import math
from numbers import Real

from . import Report, check, check_answer, expect, expect_close, fail, run_checks, show

__all__ = ["check_neuron_node_count", "check_dual_tanh", "check_pass_counts",
           "NEURON_INPUTS", "MLP_PARAMETERS", "CURVE_OUTPUTS"]

NEURON_INPUTS = 3
MLP_PARAMETERS = (2 * 16 + 16) + (16 * 16 + 16) + (16 * 1 + 1)  # MLP(2, [16, 16, 1]): 337
CURVE_OUTPUTS = 1000


def _not_answered(question, hint):
    @check(question)
    def answered():
        fail(f"no prediction yet: {hint}")

    return answered


# --------------------------------------------------------------------- counting nodes


def check_neuron_node_count(answer):
    """Exercise: the nodes in the graph of `Neuron(3)(x)` for three plain numbers x (14)."""
    question = f"nodes in the graph of `Neuron({NEURON_INPUTS})(x)`"
    if answer is None:
        return run_checks("Your answer", [_not_answered(
            question, "replace `None` with the number of nodes you expect, leaves included")])
    n = NEURON_INPUTS
    leaves = n + 1                # the weights and the bias
    constants = n                 # `w * x` wraps each plain number x into a Value of its own
    operations = 2 * n + 1        # a product and a sum for each input, then relu
    expected = leaves + constants + operations
    hints = {
        leaves + operations: "the inputs are plain numbers, and `w * x` wraps each one into a "
                             "Value: a leaf of its own",
        constants + operations: "the weights and the bias are nodes too: leaves with no `_prev`",
        operations: "count the leaves too: the weights, the bias, and the inputs (each plain "
                    "number becomes a Value)",
        expected - 1: "did you leave out the relu at the end, or the bias?",
    }
    hint = hints.get(answer, "count, for each input, what `act = act + w * x` creates; then "
                             "the relu; then the leaves: weights, bias, and the wrapped inputs")
    return check_answer(question, answer, expected, tol=0, hint=hint)


# --------------------------------------------------------------------- forward mode

POINTS = (-2.0, -0.3, 0.0, 0.5, 3.0)


def _is_near(got, expected):
    return isinstance(got, Real) and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def _is_dual(x):
    return hasattr(x, "value") and hasattr(x, "slope")


def _tanh_of(Dual, value, slope):
    """`Dual(value, slope).tanh()`, failing with a plain message if it gives no Dual."""
    d = Dual(value, slope)
    out = d.tanh()
    call = f"`Dual({value:g}, {slope:g}).tanh()`"
    if out is None:
        fail(f"{call} gave None, not a Dual: did you `return` the new Dual?")
    expect(_is_dual(out), f"{call} should give a Dual (with `value` and `slope`), but gave "
                          f"{show(out)}")
    expect(out is not d, f"{call} returned the very Dual it was called on: build and return "
                         "a new one, and leave the input unchanged (the rest of the "
                         "computation may still use it)")
    return d, out


@check("`tanh()` returns a new Dual whose value is tanh of the input's value")
def dual_tanh_value(Dual):
    for x in POINTS:
        d, out = _tanh_of(Dual, x, 1.0)
        expect_close(out.value, math.tanh(x), f"`Dual({x:g}, 1).tanh().value`",
                     hint="use `math.tanh(self.value)`")
        expect(d.value == x and d.slope == 1.0,
               f"`Dual({x:g}, 1).tanh()` changed its input to {show(d)}: build a new Dual and "
               "leave `self` as it was")


@check("with slope 1, its slope is tanh'(x) = 1 − tanh²(x)")
def dual_tanh_slope(Dual):
    for x in POINTS:
        _, out = _tanh_of(Dual, x, 1.0)
        t = math.tanh(x)
        hint = "the derivative of tanh is 1 − tanh², the square of tanh(x), not of x"
        if _is_near(out.slope, 1.0 - x * x):
            hint = "square tanh(x), not x: tanh'(x) = 1 − tanh²(x)"
        elif _is_near(out.slope, 1.0 - t):
            hint = "tanh'(x) = 1 − tanh²(x): square the tanh"
        expect_close(out.slope, 1.0 - t * t, f"`Dual({x:g}, 1).tanh().slope`", hint=hint)


@check("any other slope is multiplied by tanh'(x): the chain rule, carried forward")
def dual_tanh_chain_rule(Dual):
    for x, slope in ((0.5, 2.5), (-0.3, -4.0), (1.2, 0.0)):
        _, out = _tanh_of(Dual, x, slope)
        t = math.tanh(x)
        expect_close(out.slope, (1.0 - t * t) * slope,
                     f"`Dual({x:g}, {slope:g}).tanh().slope`",
                     hint="the input's slope says how fast it moves; tanh's output moves "
                          "(1 − tanh²) times as fast, so multiply by `self.slope`")


def check_dual_tanh(Dual):
    """Exercise: `Dual.tanh()` (see the module docstring for the class it expects).

    An unfinished stub (a `tanh` that returns None) gets one failure that says so, rather than
    the same message under every check.
    """
    title = "Exercise: tanh for dual numbers"
    try:
        unfinished = Dual(0.5, 1.0).tanh() is None
    except Exception:  # the checks below report it, each in its own words
        unfinished = False
    if unfinished:
        return run_checks(title, [dual_tanh_value], Dual)
    return run_checks(title, [dual_tanh_value, dual_tanh_slope, dual_tanh_chain_rule], Dual)


# --------------------------------------------------------------------- counting passes


def _passes(question, answer, expected, hint):
    if answer is None:
        return run_checks("", [_not_answered(question, "replace `None` with a whole number")])
    if isinstance(answer, bool) or not isinstance(answer, Real):
        @check(question)
        def a_number():
            fail(f"your answer should be a whole number, such as 5, but was {show(answer)}")

        return run_checks("", [a_number])
    return check_answer(question, answer, expected, tol=0, hint=hint)


def check_pass_counts(loss_forward, loss_backward, curve_forward, curve_backward):
    """Exercise: passes needed for every derivative, in each mode, of two functions.

    The loss of MLP(2, [16, 16, 1]): 337 inputs (its parameters), one output. Forward mode
    gives the slopes with respect to one input per pass: 337 passes; one `backward()` gives
    the whole gradient. A curve of `CURVE_OUTPUTS` points moved by one input t: one forward
    pass gives every output's slope; `backward()` gives one output's derivative per call.
    """
    forward_hint = ("a forward-mode pass seeds one input with slope 1 and gives every "
                    "output's slope with respect to that input")
    backward_hint = ("one `backward()` starts from one output and gives its derivative with "
                     "respect to every input")
    results = []
    for question, answer, expected, hint in (
        (f"forward-mode passes for the gradient of the MLP's loss ({MLP_PARAMETERS} "
         "parameters)", loss_forward, MLP_PARAMETERS, forward_hint),
        ("`backward()` calls for the gradient of the MLP's loss", loss_backward, 1,
         backward_hint),
        (f"forward-mode passes for the slopes of all {CURVE_OUTPUTS:,} outputs of the curve",
         curve_forward, 1, forward_hint),
        (f"`backward()` calls for the slopes of all {CURVE_OUTPUTS:,} outputs of the curve",
         curve_backward, CURVE_OUTPUTS, backward_hint),
    ):
        results += _passes(question, answer, expected, hint).results
    return Report("Your answers", results)
