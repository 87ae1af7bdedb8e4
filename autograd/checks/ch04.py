"""Chapter 4 · Non-linear activations — checkpoint and exercise checks.

What the chapter asks for: methods `tanh`, `exp`, `log`, `relu` and `sigmoid` on the Value
class, each a new node whose `_backward` adds the local derivative times `out.grad`:

    tanh'(x) = 1 − tanh²(x)     exp'(x) = eˣ     log'(x) = 1/x
    relu'(x) = 1 for x > 0, 0 at and below 0     sigmoid'(x) = σ(x)(1 − σ(x))

`log` of a value ≤ 0 raises ValueError; `exp` of a value too large for a float raises
OverflowError; `tanh` of a large value is ±1, not an overflow.
The class need not have `backward()` yet: the checks run `_backward` themselves.
"""

import math

from . import (
    Report, backprop_by_hand, check, check_answer, expect, expect_close, fail, run_checks, show,
)

__all__ = ["checkpoint", "check_sigmoid", "check_tanh_slope_prediction"]


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


# name -> (the function, its derivative, the derivative in words, points to test)
ACTIVATIONS = {
    "tanh": (math.tanh, lambda x: 1.0 - math.tanh(x) ** 2, "1 − tanh²(x)",
             (-2.0, -0.5, 0.0, 0.5, 3.0)),
    "exp": (math.exp, math.exp, "eˣ", (-2.0, 0.0, 1.5)),
    "log": (math.log, lambda x: 1.0 / x, "1/x", (0.5, 1.0, 3.0)),
    "relu": (lambda x: max(0.0, x), lambda x: 1.0 if x > 0 else 0.0,
             "1 for x > 0, 0 at and below 0", (-1.5, -0.2, 0.7, 2.0)),
    "sigmoid": (_sigmoid, lambda x: _sigmoid(x) * (1.0 - _sigmoid(x)), "σ(x)(1 − σ(x))",
                (-3.0, 0.0, 2.0)),
}

H = 1e-6  # step of the central difference; its error is far below the tolerance
TOL = 1e-6


def _activation_check(name):
    f, slope, rule, points = ACTIVATIONS[name]

    @check(f"{name}: values and derivatives at {', '.join(f'{x:g}' for x in points)}")
    def values_and_derivatives(Value):
        for x in points:
            v = Value(x)
            out = getattr(v, name)()
            if not all(hasattr(out, a) for a in ("data", "grad", "_prev", "_backward")):
                fail(f"`Value({x:g}).{name}()` gave {show(out)}, not a Value: the method must "
                     "build the new node `out`, attach its `_backward`, and end with "
                     "`return out`")
            expect_close(out.data, f(x), f"`Value({x:g}).{name}().data`")
            backprop_by_hand(out)
            expect_close(v.grad, slope(x), f"the gradient of {name} at x = {x:g}",
                         hint=f"its derivative is {rule}")
            numeric = ((getattr(Value(x + H), name)().data - getattr(Value(x - H), name)().data)
                       / (2 * H))
            expect_close(v.grad, numeric, f"the gradient of {name} at x = {x:g}", tol=TOL,
                         hint="that is the central difference of your own forward values; "
                              "the backward pass and the forward pass disagree")

    return values_and_derivatives


tanh_check = _activation_check("tanh")
exp_check = _activation_check("exp")
log_check = _activation_check("log")
relu_check = _activation_check("relu")
sigmoid_check = _activation_check("sigmoid")


@check("each activation adds to its input's gradient (`+=`), so two uses give twice the slope")
def activations_accumulate(Value):
    for name, (_, slope, _, points) in ACTIVATIONS.items():
        x = points[-1]
        v = Value(x)
        for out in (getattr(v, name)(), getattr(v, name)()):  # two nodes both made from v
            backprop_by_hand(out)
        expect_close(v.grad, 2 * slope(x),
                     f"after using `v.{name}()` twice at v = {x:g}, `v.grad`",
                     hint=f"each use adds {slope(x):.6g}; did `_backward` use `=` instead of `+=`?")


@check("relu's derivative is 0 at exactly 0")
def relu_at_zero(Value):
    v = Value(0.0)
    out = v.relu()
    expect(out.data == 0.0, f"`Value(0.0).relu().data` should be 0.0, but was {out.data!r}")
    backprop_by_hand(out)
    expect(v.grad == 0.0,
           f"relu's gradient at 0 should be 0.0 (the course's convention: 1 only above 0), but "
           f"was {v.grad!r}: compare with `> 0`, not `>= 0`")


@check("log of zero or of a negative number raises ValueError")
def log_domain(Value):
    for x in (0.0, -1.0):
        try:
            result = Value(x).log()
        except ValueError:
            continue
        except Exception as error:
            fail(f"`Value({x:g}).log()` should raise ValueError (log is defined only above 0), "
                 f"but raised {type(error).__name__}: {error}")
        fail(f"`Value({x:g}).log()` should raise ValueError (log is defined only above 0), "
             f"but gave {show(result)}")


@check("exp of a number too large for a float raises OverflowError")
def exp_overflow(Value):
    try:
        result = Value(1000.0).exp()
    except OverflowError:
        return
    fail(f"`Value(1000.0).exp()` should raise OverflowError (e¹⁰⁰⁰ is far beyond the largest "
         f"float, about 1.8e308), but gave {show(result)}")


@check("tanh of ±1000 is ±1.0, with no overflow")
def tanh_large(Value):
    for x in (1000.0, -1000.0):
        try:
            got = Value(x).tanh().data
        except OverflowError:
            fail(f"`Value({x:g}).tanh()` overflowed: written with exp(2x) it needs e²⁰⁰⁰; "
                 "`math.tanh` computes the same function without overflowing")
        expect_close(got, math.copysign(1.0, x), f"`Value({x:g}).tanh().data`")


CHECKPOINT = [
    tanh_check, exp_check, log_check, relu_check, sigmoid_check, activations_accumulate,
    relu_at_zero, log_domain, exp_overflow, tanh_large,
]


def checkpoint(Value):
    """Chapter 4's specification, run on the learner's Value class (no `backward()` needed)."""
    return run_checks("Chapter 4 checkpoint: non-linear activations", CHECKPOINT, Value)


# --------------------------------------------------------------------- exercises


def check_sigmoid(Value):
    """Exercise: `sigmoid`, σ(x) = 1/(1 + e⁻ˣ), with derivative σ(x)(1 − σ(x))."""
    return run_checks("Exercise: sigmoid", [sigmoid_check], Value)


def check_tanh_slope_prediction(at_zero, at_three):
    """Exercise: predict tanh'(0) = 1 and tanh'(3) = 1 − tanh²(3) ≈ 0.0099 before running.

    A prediction still left at None is reported as missing, without giving the answer away.
    """
    results = []
    for question, answer, expected, hint in (
        ("tanh'(0)", at_zero, 1.0, "1 − tanh²(0) and tanh(0) = 0"),
        ("tanh'(3)", at_three, 1.0 - math.tanh(3.0) ** 2, "1 − tanh²(3), and tanh(3) ≈ 0.995"),
    ):
        if answer is None:
            results += run_checks("", [_not_predicted(question)]).results
        else:
            results += check_answer(question, answer, expected, tol=1e-3, hint=hint).results
    return Report("Your answer", results)


def _not_predicted(question):
    @check(question)
    def predicted():
        fail(f"no prediction yet: replace `None` with the number you expect for {question}")

    return predicted
