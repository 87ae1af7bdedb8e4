"""Chapter 10 · exp without a closure: the exercise `check_flat_exp(FlatValue)`, an `exp`
method that stores e^x as its output and as its local derivative, with no closure, on the
chapter's `FlatValue` (`GIVEN_FLAT_VALUE`, which stands in when the learner's copy was edited).

`ch10` offers it, with the chapter's checkpoint.
"""

import gc
import math

from .toolbox import (
    Exercise,
    check,
    expect,
    expect_close,
    fail,
    is_close,
    is_unwritten,
    returned,
    show,
)

__all__ = ["check_flat_exp", "GIVEN_FLAT_VALUE", "given_flat_value"]


# --------------------------------------------------------------------- exp without a closure

EXP_POINTS = (-1.5, 0.0, 0.5, 2.0)


def _exp_of(cls, x, *, first=False):
    """`cls(x).exp()`, failing with a plain message if it does not give a new node. Only the
    `first` check explains a missing node in full; the others point to it."""
    v = cls(x)
    call = f"`FlatValue({x:g}).exp()`"
    out = returned(
        v.exp(),
        kind=lambda out: isinstance(out, cls),
        none=(
            f"{call} gave None: the method has no `return`; end it with `return "
            "FlatValue(...)`, the new value"
        )
        if first
        else f"{call} gave None: there is no new value to check (see the first line)",
        wrong=lambda out: (
            (
                f"{call} should give a new FlatValue, but gave {show(out)}: build "
                "it with `FlatValue(data, op, a, da)`"
            )
            if first
            else f"{call} gave {show(out)}, not a FlatValue (see the first line)"
        ),
    )
    expect(
        out is not v,
        f"{call} returned the very value it was called on: build and return "
        "a new FlatValue, and leave the input as it was",
    )
    return v, out


@check("`exp()` returns a new value whose data is e^x")
def exp_values(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x, first=True)
        e = math.exp(x)
        if out.data is v:
            fail(
                f"`FlatValue({x:g}).exp().data` is the input itself: the arguments are mixed "
                "up. `FlatValue(data, op, a, da)` takes the new data, the number e^x, first; "
                "then the op's name; then the input `self`; then its local derivative"
            )
        if is_close(out.data, x) and not is_close(x, e):
            fail(
                f"`FlatValue({x:g}).exp().data` should be e^x = {e:.6g} but was {x:g}, the "
                "input's data: the first argument is the new value, `math.exp(self.data)`"
            )
        expect_close(
            out.data, e, f"`FlatValue({x:g}).exp().data`", hint="use `math.exp(self.data)`"
        )
        expect(v.data == x, f"`FlatValue({x:g}).exp()` changed its input's data to {show(v.data)}")


def _exp_input_problem(v, out, x):
    """Why the new node's one input is not `v`, in words (or "" if it is)."""
    prev = getattr(out, "_prev", None)
    if isinstance(prev, tuple) and len(prev) == 1 and prev[0] is v:
        return ""
    order = (
        "`FlatValue(data, op, a, da)` takes the new data, the op's name, the input "
        "`self`, then its local derivative"
    )
    if getattr(out, "_da", None) is v:
        held = getattr(out, "_a", None)
        held = f"{held:.6g}" if isinstance(held, float) else show(held)
        return (
            f"the input and its local derivative are the wrong way round: `_a` holds "
            f"{held} and `_da` holds the input. {order}"
        )
    if getattr(out, "_op", None) is v:
        return (
            f"the input went where the op's name goes, and every argument after it moved "
            f"one place: {order}"
        )
    if getattr(out, "_b", None) is v:
        return (
            f"the input went into the second slot, `b`: a node with one input keeps it in "
            f"`a`. {order}"
        )
    return (
        f"`FlatValue({x:g}).exp()._prev` should be `(x,)`, its one input, but was "
        f"{show(prev)}: pass `self` as the input `a`. {order}"
    )


@check("its one input is `self`, with local derivative e^x: backward() gives d(e^x)/dx = e^x")
def exp_gradient(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x)
        problem = _exp_input_problem(v, out, x)
        if problem:
            fail(problem)
        out.backward()
        e = math.exp(x)
        wrong = [
            (
                1.0,
                "the local derivative of e^x is e^x, not 1 (1 is the derivative of x itself, "
                "not of e^x)",
            ),
            (
                x,
                "that is x, the input's data: the local derivative of e^x is e^x, the output "
                "itself",
            ),
            (
                x * math.exp(x - 1),
                "that is the power rule, x·e^(x−1), but e^x is not a power of "
                "x: its derivative is e^x itself",
            ),
            (
                math.exp(e),
                "that is e^(e^x), exp taken twice: the local derivative is e^x, "
                "the new node's data",
            ),
            (
                0.0,
                "no gradient reached x: store the local derivative e^x as `da`, the argument "
                "after the input",
            ),
        ]
        for value, meaning in wrong:
            if is_close(v.grad, value) and not is_close(value, e):
                fail(
                    f"after `out = x.exp(); out.backward()` with x = {x:g}, `x.grad` should be "
                    f"e^x = {e:.6g} but was {v.grad:.6g}: {meaning}"
                )
        expect_close(
            v.grad,
            e,
            f"after `out = x.exp(); out.backward()` with x = {x:g}, `x.grad`",
            hint="store e^x as the local derivative: the output is its own derivative",
        )


def _expect_given_backward(cls):
    """Fail, naming the given code, when `+`, `*` and `backward()` alone (the chapter's
    FlatValue, a cell above the exercise) give a wrong gradient: d(x·x + x)/dx = 2x + 1, with
    x used three times, two paths to add up at x."""
    x = 0.5
    v = cls(x)
    try:
        (v * v + v).backward()
    except Exception:  # the checks that follow say what went wrong
        return
    if isinstance(v.grad, (int, float)) and not is_close(v.grad, 2 * x + 1):
        fail(
            f"without `exp` at all, d(x·x + x)/dx at x = {x:g} should be {2 * x + 1:g} but was "
            f"{v.grad:.6g}: the given `FlatValue` (its `+`, `*` or `backward()`, a cell above "
            "this exercise) gives wrong gradients, so was that cell edited? `backward()` adds "
            "each path's part with `+=`; run that cell again as the chapter gives it"
        )


@check("through other operations: d e^(2x)/dx = 2e^(2x), d(x·e^x)/dx = (x + 1)e^x")
def exp_chain_rule(cls):
    _expect_given_backward(cls)
    for x in (-0.7, 0.3, 1.1):
        _exp_of(cls, 2 * x)  # says so plainly if exp() gives no new node
        for what, build, expected in (
            ("d e^(2x)/dx", lambda v: (v * 2).exp(), 2 * math.exp(2 * x)),
            ("d(x·e^x)/dx", lambda v: v.exp() * v, (x + 1) * math.exp(x)),
        ):
            v = cls(x)
            build(v).backward()
            if not is_close(v.grad, expected):
                got = f"{v.grad:.6g}" if isinstance(v.grad, float) else show(v.grad)
                # backward() is the chapter's, not the learner's: only what exp() stores can
                # be at fault here
                fail(
                    f"{what} at x = {x:g} should be {expected:.6g} but was {got}: `backward()` "
                    "multiplies the local derivative that `exp()` stored by the gradient that "
                    "arrives, and adds up the paths; so check what `exp()` stores as its local "
                    "derivative: e^x, the new node's data"
                )


@check("no closure: the new node holds no function, so it is in no reference cycle")
def exp_no_closure(cls):
    _, out = _exp_of(cls, 0.5)
    functions = [obj for obj in gc.get_referents(out) if type(obj).__name__ == "function"]
    expect(
        not functions,
        "the node that `exp()` returns holds a function (a closure?): store "
        "the local derivative as a number in `_da` instead",
    )


# The chapter's `FlatValue`, as its cell gives it (tests/test_checks_core.py finds it, word for
# word, in the notebook): the class the `exp` solution builds on. When the solution fails its check
# in the learner's notebook, it runs again on a fresh copy of this (`Exercise.given`), so that an
# edited `backward` (`=` for `+=`) is told apart from a fault in the course.
GIVEN_FLAT_VALUE = """class FlatValue:
    __slots__ = ("data", "grad", "_a", "_da", "_b", "_db", "_op")

    def __init__(self, data, _op="", a=None, da=0.0, b=None, db=0.0):
        self.data = data
        self.grad = 0.0
        self._a, self._da = a, da  # the first input, and d(out)/d(a)
        self._b, self._db = b, db  # the second input (or None), and d(out)/d(b)
        self._op = _op

    @property
    def _prev(self):
        if self._b is not None:
            return (self._a, self._b)
        return () if self._a is None else (self._a,)

    def __add__(self, other):
        if isinstance(other, FlatValue):
            return FlatValue(self.data + other.data, "+", self, 1.0, other, 1.0)
        return FlatValue(self.data + other, "+", self, 1.0)  # a plain number: no node

    def __mul__(self, other):
        if isinstance(other, FlatValue):
            return FlatValue(self.data * other.data, "*", self, other.data, other, self.data)
        return FlatValue(self.data * other, "*", self, other)

    def relu(self):
        x = self.data
        return FlatValue(x if x > 0 else 0.0, "relu", self, 1.0 if x > 0 else 0.0)

    __radd__, __rmul__ = __add__, __mul__

    def backward(self):
        topo = topological_order(self)
        for node in topo:
            if node._a is not None:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            if node._a is not None:
                node._a.grad += node._da * node.grad
            if node._b is not None:
                node._b.grad += node._db * node.grad"""


def given_flat_value():
    """{"FlatValue": a fresh copy of the chapter's FlatValue class, without `exp`}."""
    from ..graph import topological_order

    namespace = {"topological_order": topological_order}
    exec(GIVEN_FLAT_VALUE, namespace)
    return {"FlatValue": namespace["FlatValue"]}


EXP = Exercise(
    10,
    "exp without a closure",
    [exp_values, exp_gradient, exp_chain_rule, exp_no_closure],
    what="your `exp`",
    answer_of=lambda cls: vars(cls).get("exp"),
    unanswered=is_unwritten,
    todo="replace `...` with `return FlatValue(...)`: the new data, the op's name, "
    "the input and its local derivative; run the cell, then this check again",
    given=given_flat_value,
)


def check_flat_exp(cls):
    """Exercise: `FlatValue.exp()`, e^x stored as the output and as its local derivative."""
    return EXP.check(cls)
