"""Chapter 8 · the planted bugs and the mystery classes: the complete engine
(`autograd.stages.stage(8)`) with one method replaced by a broken one.

`BUGGY_CLASSES` are the classes the checkpoint runs the learner's checker on (and the chapter's
bug gallery shows), `SUBTLE_BUG` one whose gradient is only about 1% off, `MYSTERIES` the three
classes of the chapter's exercise, and `GOOD_CASES` the functions on which a correct class must
pass any fair checker. `ch08` offers them all.
"""

import math
from collections import namedtuple

from ..stages import stage

__all__ = ["BUGGY_CLASSES", "PlantedBug", "GOOD_CASES", "SUBTLE_BUG", "MYSTERIES"]

# ----------------------------------------------------------------- planted bugs
# Each is written as a learner might write it, differing from the engine in one line. Inside
# them `Value` means the class `stage()` builds around them (stage copies a replacement over
# globals in which `Value` is that class), so every value they create carries the bug on.


def _add_that_overwrites(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data + other.data, (self, other), "+")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad = out.grad  # the bug: `=` throws away what other uses already passed back
        b.grad = out.grad

    out._backward = _backward
    return out


def _tanh_without_square(self):
    out = Value(math.tanh(self.data), (self,), "tanh")  # noqa: F821

    def _backward():
        a = out._prev[0]
        a.grad += (1.0 - out.data) * out.grad  # the bug: tanh' is 1 − tanh², not 1 − tanh

    out._backward = _backward
    return out


def _mul_that_swaps(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data * other.data, (self, other), "*")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad += a.data * out.grad  # the bug: ∂(a·b)/∂a is b, not a
        b.grad += b.data * out.grad

    out._backward = _backward
    return out


def _mul_that_forgets_its_second_input(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data * other.data, (self, other), "*")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad += b.data * out.grad  # the bug: b gets nothing, it should get a.data * out.grad

    out._backward = _backward
    return out


PlantedBug = namedtuple(
    "PlantedBug", ["value_class", "method", "description", "example", "f", "inputs"]
)


def _planted(method, function, description, example, f, inputs):
    value_class = stage(8, **{method: function})
    value_class.__doc__ = f"The complete engine with a planted bug: {description}."
    return PlantedBug(value_class, method, description, example, f, inputs)


BUGGY_CLASSES = {
    "add_overwrites": _planted(
        "__add__",
        _add_that_overwrites,
        "`__add__`'s backward assigns (`=`) instead of adding (`+=`)",
        "x + x at x = 1.5 (dy/dx is 2, the bug gives 1)",
        lambda x: x + x,
        [1.5],
    ),
    "tanh_slope": _planted(
        "tanh",
        _tanh_without_square,
        "tanh's derivative is written 1 − t instead of 1 − t²",
        "tanh(x) at x = 0.8",
        lambda x: x.tanh(),
        [0.8],
    ),
    "mul_swaps": _planted(
        "__mul__",
        _mul_that_swaps,
        "`__mul__`'s backward gives each input its own data instead of the other's",
        "x · y at x = 2, y = −3",
        lambda x, y: x * y,
        [2.0, -3.0],
    ),
    "mul_second_input": _planted(
        "__mul__",
        _mul_that_forgets_its_second_input,
        "`__mul__`'s backward passes nothing to its second input",
        "x · y at x = 2, y = −3 (x's gradient is right, y's is 0 instead of 2)",
        lambda x, y: x * y,
        [2.0, -3.0],
    ),
}

# A bug that a loose tolerance lets through: tanh's 1 − t for 1 − t², at a point so close to 0
# that the two differ by about 1% (t = tanh(0.01) ≈ 0.01, so 1 − t ≈ 0.990 and
# 1 − t² ≈ 0.9999).
SUBTLE_BUG = BUGGY_CLASSES["tanh_slope"]._replace(
    example="tanh(x) at x = 0.01, where 1 − t is only about 1% off 1 − t²", inputs=[0.01]
)

# ----------------------------------------------------------------- mystery classes
# The chapter's exercise: three classes with one broken method each, named only by a letter,
# so that the learner has to find the method with gradient checks and drawings. A reuses the
# swapped multiplication above; B and C are bugs the bug gallery does not show.


def _pow_with_one_power_too_many(self, other):
    if isinstance(other, Value):  # noqa: F821
        return self._pow_value(other)
    n = other
    out = Value(self.data**n, (self,), f"**{n:g}")  # noqa: F821

    def _backward():
        a = out._prev[0]
        a.grad += n * a.data**n * out.grad  # the bug: d(aⁿ)/da is n·aⁿ⁻¹, not n·aⁿ

    out._backward = _backward
    return out


def _add_that_forgets_its_second_input(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data + other.data, (self, other), "+")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad += out.grad  # the bug: nothing is passed back to b

    out._backward = _backward
    return out


def _mystery(letter, method, function):
    value_class = stage(8, **{method: function})
    value_class.__doc__ = f"Mystery class {letter}: the complete engine with one method broken."
    return value_class


_MYSTERY_METHODS = {"A": "__mul__", "B": "__pow__", "C": "__add__"}
MYSTERIES = {
    "A": _mystery("A", "__mul__", _mul_that_swaps),
    "B": _mystery("B", "__pow__", _pow_with_one_power_too_many),
    "C": _mystery("C", "__add__", _add_that_forgets_its_second_input),
}


# (description, f, inputs): functions on which a correct class must pass any fair checker.
GOOD_CASES = [
    ("x + x at 1.5", lambda x: x + x, [1.5]),
    ("x·y + x at (1.5, −2)", lambda x, y: x * y + x, [1.5, -2.0]),
    ("tanh(x·w + b) at (0.8, −1.2, 0.3)", lambda x, w, b: (x * w + b).tanh(), [0.8, -1.2, 0.3]),
    ("x / y − y² at (2, 0.5)", lambda x, y: x / y - y**2, [2.0, 0.5]),
]
