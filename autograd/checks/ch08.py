"""Chapter 8 · Checking and debugging gradients — checkpoint, planted bugs, exercise checks.

What the chapter asks for: a gradient checker with this contract,

    check_gradients(f, inputs, value_class) -> bool

- `f` takes one value of `value_class` per input, positionally, and returns one value;
- `inputs` is a list of numbers;
- it builds `value_class(x)` for each input, runs `f`, calls `backward()` on the result, and
  compares each input's `grad` with the central difference (f(x + h) − f(x − h)) / 2h of
  `f(...).data` in that input, the other inputs held still;
- it returns True when every input's gradient agrees within its tolerance, and False when any
  one disagrees.

The checkpoint runs the learner's checker on a correct class (it must say True on several
functions) and on classes with a planted bug (it must say False where the bug shows).

`BUGGY_CLASSES` are those classes, for the chapter's bug gallery too: each is the complete
engine (`autograd.stages.stage(8)`) with one method replaced by a broken one.
"""

import math
from collections import namedtuple

from ..stages import stage
from . import check, expect, fail, run_checks

__all__ = [
    "checkpoint",
    "BUGGY_CLASSES",
    "PlantedBug",
    "GOOD_CASES",
    "MYSTERIES",
    "check_bug_found",
    "check_mysteries",
    "check_gradient_checker",
]

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


PlantedBug = namedtuple("PlantedBug", ["value_class", "method", "description", "example", "f",
                                       "inputs"])


def _planted(method, function, description, example, f, inputs):
    value_class = stage(8, **{method: function})
    value_class.__doc__ = f"The complete engine with a planted bug: {description}."
    return PlantedBug(value_class, method, description, example, f, inputs)


BUGGY_CLASSES = {
    "add_overwrites": _planted(
        "__add__", _add_that_overwrites,
        "`__add__`'s backward assigns (`=`) instead of adding (`+=`)",
        "x + x at x = 1.5 (dy/dx is 2, the bug gives 1)", lambda x: x + x, [1.5],
    ),
    "tanh_slope": _planted(
        "tanh", _tanh_without_square,
        "tanh's derivative is written 1 − t instead of 1 − t²",
        "tanh(x) at x = 0.8", lambda x: x.tanh(), [0.8],
    ),
    "mul_swaps": _planted(
        "__mul__", _mul_that_swaps,
        "`__mul__`'s backward gives each input its own data instead of the other's",
        "x · y at x = 2, y = −3", lambda x, y: x * y, [2.0, -3.0],
    ),
}

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


# ----------------------------------------------------------------- the checkpoint


def _verdict(check_gradients, f, inputs, value_class, on):
    result = check_gradients(f, list(inputs), value_class)
    if result is None:
        fail(f"`check_gradients` returned None on {on}: did it forget to `return` its verdict?")
    return bool(result)


@check("says True for a correct class on several functions")
def passes_correct_class(check_gradients):
    Value = stage(8)
    for description, f, inputs in GOOD_CASES:
        expect(_verdict(check_gradients, f, inputs, Value, description),
               f"`check_gradients` said False for a correct class on {description}: is the "
               "tolerance too tight, or the step h so small that round-off dominates?")


def _catches(name):
    bug = BUGGY_CLASSES[name]

    @check(f"says False for a class whose {bug.description}")
    def catches_bug(check_gradients):
        expect(not _verdict(check_gradients, bug.f, bug.inputs, bug.value_class, bug.example),
               f"`check_gradients` said True on {bug.example}, for a class whose "
               f"{bug.description}: compare every input's gradient with its central "
               "difference, and return False as soon as one disagrees")

    return catches_bug


catches_add_overwrites = _catches("add_overwrites")
catches_tanh_slope = _catches("tanh_slope")
catches_mul_swaps = _catches("mul_swaps")

CHECKPOINT = [passes_correct_class, catches_add_overwrites, catches_tanh_slope, catches_mul_swaps]


def checkpoint(check_gradients):
    """Chapter 8's specification, run on the learner's `check_gradients(f, inputs, value_class)`."""
    return run_checks("Chapter 8 checkpoint: a gradient checker", CHECKPOINT, check_gradients)


# ----------------------------------------------------------------- exercises


def check_bug_found(name, method):
    """Exercise: which method of `BUGGY_CLASSES[name].value_class` is broken? (e.g. "tanh")"""
    bug = BUGGY_CLASSES[name]

    @check(f"the bug in {name!r} is in the method you named")
    def right_method():
        expect(method == bug.method,
               f"you named {method!r}; run your checker on small functions that each use one "
               "operation, and draw the graph of the one that fails")

    return run_checks("Your diagnosis", [right_method])


# Spellings a learner may use for a primitive, and the methods that are built from others and
# so have no closure of their own to be broken.
_ALIASES = {
    "+": "__add__", "add": "__add__",
    "*": "__mul__", "mul": "__mul__",
    "**": "__pow__", "pow": "__pow__",
}
_COMPOSED = {
    "__sub__": "`a - b` is built as `a + (-b)`, and `-b` as `b * -1`",
    "__rsub__": "`n - a` is built from `-` and unary minus",
    "__neg__": "`-a` is built as `a * -1`",
    "__truediv__": "`a / b` is built as `a * b**-1`",
    "__rtruediv__": "`n / a` is built from `/`",
    "__radd__": "`n + a` hands its work to `__add__`",
    "__rmul__": "`n * a` hands its work to `__mul__`",
}


def _method_name(answer):
    if not isinstance(answer, str):
        return answer
    name = answer.strip().strip("`").strip()
    name = name[:-2] if name.endswith("()") else name
    name = name.split(".")[-1]  # "Value.__mul__" names the method too
    return _ALIASES.get(name, name)


def check_mysteries(broken_in_A, broken_in_B, broken_in_C):
    """Exercise: name the broken method of each of `MYSTERIES["A"]`, `["B"]` and `["C"]`."""
    answers = {"A": broken_in_A, "B": broken_in_B, "C": broken_in_C}

    def diagnosis(letter):
        @check(f"mystery {letter}: the broken method")
        def named():
            answer = answers[letter]
            if answer is None:
                fail(f"no answer yet: put the name of the broken method in `broken_in_{letter}`, "
                     "such as \"exp\" or \"__neg__\"")
            name = _method_name(answer)
            if name in _COMPOSED:
                fail(f"you named {answer!r}, which has no closure of its own: "
                     f"{_COMPOSED[name]}. Its probe fails because a primitive it is built from "
                     "is broken: which primitive do all the failing probes share?")
            expect(name == _MYSTERY_METHODS[letter],
                   f"you named {answer!r}, but that method of mystery {letter} is fine: list "
                   f"the probes that fail for `ch08.MYSTERIES[\"{letter}\"]`, then find the one "
                   "primitive every one of them uses, and draw a failing probe to see where "
                   "the gradient first goes wrong")

        return named

    return run_checks("Your diagnosis", [diagnosis(letter) for letter in "ABC"])


def check_gradient_checker(check_gradients):
    """Exercise: the learner's `check_gradients(f, inputs, value_class)` says True for a correct
    class and False for one whose `__add__` overwrites (the checkpoint tries more bugs)."""
    return run_checks("Exercise: your gradient checker",
                      [passes_correct_class, catches_add_overwrites], check_gradients)
