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
functions, running `f` at points that move one input at a time, both ways) and on classes with
a planted bug (it must say False where the bug shows, even where a gradient is only 1% off).
When it misjudges, the checks probe it further (`_why_false`, `_why_true`) so that the message
names what it does wrong: inputs nudged together, a one-sided difference, a missing 2h, the
wrong gradient compared, a tolerance too tight or too loose, a verdict never False.

`BUGGY_CLASSES` are those classes, for the chapter's bug gallery too: each is the complete
engine (`autograd.stages.stage(8)`) with one method replaced by a broken one.
"""

import math
import re
from collections import namedtuple

from ..stages import stage
from .toolbox import (
    Exercise, SameArguments, call, check, declare_checkpoint, expect, fail, is_number,
    is_unwritten, run_checks, show,
)

__all__ = [
    "checkpoint",
    "BUGGY_CLASSES",
    "PlantedBug",
    "GOOD_CASES",
    "SUBTLE_BUG",
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


def _mul_that_forgets_its_second_input(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data * other.data, (self, other), "*")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad += b.data * out.grad  # the bug: b gets nothing, it should get a.data * out.grad

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
    "mul_second_input": _planted(
        "__mul__", _mul_that_forgets_its_second_input,
        "`__mul__`'s backward passes nothing to its second input",
        "x · y at x = 2, y = −3 (x's gradient is right, y's is 0 instead of 2)",
        lambda x, y: x * y, [2.0, -3.0],
    ),
}

# A bug that a loose tolerance lets through: tanh's 1 − t for 1 − t², at a point so close to 0
# that the two differ by about 1% (t = tanh(0.01) ≈ 0.01, so 1 − t ≈ 0.990 and
# 1 − t² ≈ 0.9999).
SUBTLE_BUG = BUGGY_CLASSES["tanh_slope"]._replace(
    example="tanh(x) at x = 0.01, where 1 − t is only about 1% off 1 − t²", inputs=[0.01])

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


# ----------------------------------------------------------------- watching a checker work
# The checks call the learner's checker on functions of their own, so they can see what it
# does: which points it runs `f` at (a log of every call), and how its verdict depends on the
# gradients `backward()` gives (a probe class whose `backward()` plants chosen gradients on a
# straight line, whose every difference quotient is exact up to round-off). A failure then
# names the bug the evidence shows, instead of guessing at the tolerance.


def _verdict(check_gradients, f, inputs, value_class, on):
    return bool(call(check_gradients, f, list(inputs), value_class,
                     none=f"`check_gradients` returned None on {on}: did it forget to `return` "
                          "its verdict? It must `return False` as soon as one input disagrees, "
                          "and `return True` after the loop, once every input agreed"))


def _logged(f, log):
    """`f`, writing down the data of the inputs of every call into `log`."""

    def logged(*args):
        log.append([getattr(a, "data", a) for a in args])
        return f(*args)

    return logged


def _nudges(log, inputs):
    """What the calls in `log` did to the point `inputs`: for each input the directions it was
    moved in alone (+1, −1), whether some call moved several inputs at once, and the step h."""
    signs = [set() for _ in inputs]
    together, steps = False, []
    for point in log:
        if len(point) != len(inputs) or not all(is_number(x) for x in point):
            continue
        moved = [i for i, (x, x0) in enumerate(zip(point, inputs)) if x != x0]
        steps += [abs(point[i] - inputs[i]) for i in moved]
        if len(moved) > 1:
            together = True
        elif moved:
            i = moved[0]
            signs[i].add(1 if point[i] > inputs[i] else -1)
    return signs, together, (min(steps) if steps else None)


def _recipe_problem(log, inputs, verdict):
    """What is wrong with the points the checker ran `f` at: (None, a clause that says so),
    ("forward" or "backward", None) for a one-sided difference, or (None, None) if nothing."""
    signs, together, _ = _nudges(log, inputs)
    if not together and not any(signs):
        return None, (
            "never ran `f` on nudged inputs, so it computed no numerical slope and compared "
            "nothing" + (" (does it return True whatever happens?)" if verdict else "")
            + ". For each input, run `f` once with that input nudged up by h and once nudged "
              "down by h, and compare the slope with the input's `grad`")
    if together and not all(signs):
        return None, (
            "nudges every input at once: it ran `f` with several inputs moved by h together, "
            "so its difference measures how f changes when all of them move (the sum of their "
            "slopes), not ∂f/∂x for one input. Nudge one input at a time, the others held "
            "still: copy the list of inputs and change only entry i")
    missing = [i for i, s in enumerate(signs) if not s]
    if missing and verdict:  # (a checker that said False may rightly have stopped early)
        first = ", ".join(str(i) for i in range(missing[0]))
        return None, (
            f"never nudged input {missing[0]} (inputs are numbered from 0): it only ever "
            f"compares the first input{'s' * (missing[0] > 1)} ({first}). Is a `return` inside "
            "the loop? Return True after the loop, once every input agreed")
    one_way = [i for i, s in enumerate(signs) if len(s) == 1]
    if one_way:
        return ("forward" if signs[one_way[0]] == {1} else "backward"), None
    return None, None


# A straight line for the probes: f = 2x − 3y at (0.5, 1.5).
_SLOPES, _POINT = (2.0, -3.0), (0.5, 1.5)


class _Probe:
    """A value whose `backward()` plants chosen gradients on the inputs of a probe function."""

    def __init__(self, data, *args, **kwargs):
        self.data = float(data)
        self.grad = 0.0
        self.label = kwargs.get("label", "")
        self._planted = ()

    def backward(self):
        self.grad = 1.0
        for leaf, g in self._planted:
            leaf.grad += g


def _probe(check_gradients, slopes, planted, point=_POINT):
    """The checker's verdict on f = Σ slopes·x at `point` when `backward()` says the gradients
    are `planted` (None if it crashed or returned None), and the log of its calls of f."""
    log = []

    def f(*xs):
        log.append([getattr(x, "data", x) for x in xs])
        out = _Probe(sum(s * x.data for s, x in zip(slopes, xs)))
        out._planted = list(zip(xs, planted))
        return out

    try:
        result = check_gradients(f, list(point), _Probe)
    except Exception:  # a checker that cannot handle the probe: no diagnosis
        return None, log
    return (None if result is None else bool(result)), log


def _minus(x):
    return f"{x:g}".replace("-", "−")


def _line(slopes):
    terms = [f"{s:g}{name}" for s, name in zip(slopes, "xy")]
    return " + ".join(terms).replace("+ -", "− ").replace("1x", "x").replace("1y", "y")


def _why_false(check_gradients, kind=None):
    """Why a checker says False for a correct class, as far as the probes can tell (`kind`:
    "forward" or "backward" for a checker that takes a one-sided difference)."""
    right, log = _probe(check_gradients, _SLOPES, _SLOPES)
    h = _nudges(log, _POINT)[2]
    line = f"on the straight line f = {_line(_SLOPES)}"
    if h is not None and h < 1e-9:
        return (f"its step h = {h:.0e} is so small that x + h and x − h differ in their last "
                "few bits only, and round-off swamps the difference (chapter 1's V): use h "
                "near 1e-6")
    if right:
        if h is not None and h > 1e-3:
            return (f"{line} it agrees, but with h = {h:g} the difference of a curved function "
                    "is off by about h² times its curvature: use h near 1e-6")
        return (f"{line}, whose differences are exact, it does agree with the right gradients: "
                "only the bend of a curved function sets it off, so its tolerance is tighter "
                "than a central difference can deliver (about 1e-8 with h = 1e-6). Use a "
                "tolerance near 1e-5, relative to the size of the gradient")
    if right is None:
        return ""
    h = float(f"{h:.3g}") if h else 1e-6  # the learner's h, without the round-off of x + h − x
    big = [s * 1e5 for s in _SLOPES]  # steep, so that 2h·slope and h²·slope differ by far

    def exact(i):  # the checker's own difference in input i, computed as it would
        up, down = list(_POINT), list(_POINT)
        up[i] += h
        down[i] -= h
        value = lambda xs: sum(s * x for s, x in zip(_SLOPES, xs))
        if kind == "forward":
            return (value(up) - value(_POINT)) / h
        if kind == "backward":
            return (value(_POINT) - value(down)) / h
        return (value(up) - value(down)) / (2 * h)

    difference = f"{kind} difference" if kind else "central difference"
    said = (f"{line} it said False even with the exact gradients {_minus(_SLOPES[0])} and "
            f"{_minus(_SLOPES[1])}")
    hypotheses = [
        (_SLOPES, [exact(i) for i in range(2)],
         f"{said}, and True only for gradients equal to its own {difference} to the last "
         f"digit: its tolerance is tighter than float64 allows (a {difference} is good to "
         f"about {'1e-8' if kind is None else '1e-7'}, never to 1e-16). Use a tolerance near "
         "1e-5, relative to the size of the gradient"),
        (big, [2 * h * s for s in big],
         f"{said}, and True for gradients 2h times too small: its numerical slope is "
         "f(x + h) − f(x − h) itself, without the division by 2h. Divide by `(2 * h)`"),
        (_SLOPES, [2 * s for s in _SLOPES],
         f"{said}, and True for gradients twice too large: it divides the difference by h, but "
         "x + h and x − h are 2h apart. Divide by `(2 * h)`"),
        (big, [h * h * s for s in big],
         f"{said}, and True for gradients h² times too small: `/ 2 * h` divides by 2 and then "
         "*multiplies* by h. Write `/ (2 * h)`"),
        ((1.0, 1.0), (4.0, -6.0),
         "its verdict ignores the inputs' gradients: on f = x + y it said True even when "
         "`backward()` gave them 4 and −6. It compares every slope with a gradient that is "
         "always 1: the output's own `grad`, which `backward()` sets to 1.0. Compare input i's "
         "numerical slope with input i's gradient, `values[i].grad`"),
        ((2.0, 2.0), (2.0, 9.0),
         "it compares every input's slope with the first input's gradient: on f = 2x + 2y it "
         "said True even when y's gradient was 9. Compare input i's numerical slope with "
         "`values[i].grad`"),
        (_POINT, (7.0, -9.0),
         "it compares the slopes with the inputs' `data`, not their `grad`: on f = 0.5x + 1.5y "
         "at (0.5, 1.5) it said True even with the gradients 7 and −9. Compare with "
         "`values[i].grad`"),
    ]
    for slopes, planted, why in hypotheses:
        if _probe(check_gradients, slopes, planted)[0]:
            return why
    return (f"{said}: look at how it computes each input's numerical slope, and how it "
            "compares it with that input's `grad`")


def _why_true(check_gradients):
    """Why a checker says True for a broken class, as far as the probes can tell."""
    s0, s1 = _SLOPES
    line = f"on the straight line f = {_line(_SLOPES)}"
    nonsense, log = _probe(check_gradients, _SLOPES, (s0 + 10, s1 - 10))
    if nonsense:
        return (f"{line} it said True even when both gradients were off by 10: it never says "
                "False. As soon as one input's gradient and its numerical slope disagree, "
                "`return False`")
    if _probe(check_gradients, _SLOPES, (s0, s1 + 10))[0] and \
            _probe(check_gradients, _SLOPES, (s0 + 10, s1))[0] is False:
        return (f"{line} it caught a wrong gradient in the first input but not in the second: "
                "it only ever compares the first input. Is a `return` inside the loop? Return "
                "True after the loop, once every input agreed")
    through = [d for d in (3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
               if _probe(check_gradients, _SLOPES, [s * (1 + d) for s in _SLOPES])[0]]
    if through:
        return (f"its tolerance is too loose: {line} it said True for gradients as much as "
                f"{through[-1]:.2g} ({through[-1]:.2%}) off. A correct gradient agrees with a "
                "central difference to about 1e-8, so a tolerance near 1e-5 lets every right "
                "gradient through and stops the wrong ones")
    return ""


# ----------------------------------------------------------------- the checkpoint


@check("nudges one input at a time, up and down: a central difference for each input")
def central_recipe(check_gradients):
    description, f, inputs = GOOD_CASES[1]
    log = []
    verdict = _verdict(check_gradients, _logged(f, log), inputs, stage(8), description)
    kind, problem = _recipe_problem(log, inputs, verdict)
    if problem:
        fail(f"`check_gradients` said {verdict} on {description}, but it {problem}")
    if kind is None:
        return
    notes = []
    for description, f, inputs in GOOD_CASES:
        try:
            if check_gradients(f, list(inputs), stage(8)) is False:
                notes.append(f" With it, your checker said False on {description}, for a "
                             "correct class: the one-sided difference is off by about "
                             "h·|f''|/2, and your tolerance is tighter than that.")
                break
        except Exception:
            break
    try:
        if check_gradients(SUBTLE_BUG.f, list(SUBTLE_BUG.inputs), SUBTLE_BUG.value_class):
            notes.append(f" And it said True on {SUBTLE_BUG.example}: your tolerance is too "
                         "loose, whichever difference you take.")
    except Exception:
        pass
    fail(f"`check_gradients` takes a {kind} difference: it nudges each input one way only, "
         f"{'(f(x + h) − f(x)) / h' if kind == 'forward' else '(f(x) − f(x − h)) / h'}. Its "
         "error shrinks only like h; the central difference (f(x + h) − f(x − h)) / 2h, which "
         "nudges each input both ways, has an error that shrinks like h², and it is the "
         "witness this chapter's checker must use." + "".join(notes))


@check("says True for a correct class on several functions")
def passes_correct_class(check_gradients):
    Value = stage(8)
    for description, f, inputs in GOOD_CASES:
        log = []
        if _verdict(check_gradients, _logged(f, log), inputs, Value, description):
            continue
        kind, problem = _recipe_problem(log, inputs, False)  # a wrong recipe first, if any
        fail(f"`check_gradients` said False for a correct class on {description}: "
             + (f"it {re.split(r'[:.] ', problem)[0]} (see the first check)" if problem
                else _why_false(check_gradients, kind)))


def _catches(bug, name=None):
    @check(name or f"says False for a class whose {bug.description}")
    def catches_bug(check_gradients):
        if _verdict(check_gradients, bug.f, bug.inputs, bug.value_class, bug.example):
            why = _why_true(check_gradients) or (
                "compare every input's gradient with its central difference, and return False "
                "as soon as one disagrees")
            fail(f"`check_gradients` said True on {bug.example}, for a class whose "
                 f"{bug.description}: {why}")

    return catches_bug


catches_add_overwrites = _catches(BUGGY_CLASSES["add_overwrites"])
catches_tanh_slope = _catches(BUGGY_CLASSES["tanh_slope"])
catches_mul_swaps = _catches(BUGGY_CLASSES["mul_swaps"])
catches_second_input = _catches(BUGGY_CLASSES["mul_second_input"])
catches_one_percent = _catches(SUBTLE_BUG, "says False for a gradient only about 1% off")

CHECKPOINT = [central_recipe, passes_correct_class, catches_add_overwrites, catches_tanh_slope,
              catches_mul_swaps, catches_second_input, catches_one_percent]


@declare_checkpoint(8, "Chapter 8 checkpoint: a gradient checker", CHECKPOINT)
def checkpoint(check_gradients):
    """Chapter 8's specification, run on the learner's `check_gradients(f, inputs, value_class)`."""
# ----------------------------------------------------------------- exercises


def check_bug_found(name, method):
    """Exercise: which method of `BUGGY_CLASSES[name].value_class` is broken? (e.g. "tanh")"""
    bug = BUGGY_CLASSES[name]

    @check(f"the bug in {show(name)} is in the method you named")
    def right_method():
        expect(method == bug.method,
               f"you named {show(method)}; run your checker on small functions that each use one "
               "operation, and draw the graph of the one that fails")

    return run_checks("Your diagnosis", [right_method])


# Spellings a learner may use for a method, and the methods that are built from others and so
# have no closure of their own to be broken.
_ALIASES = {
    "+": "__add__", "add": "__add__",
    "*": "__mul__", "mul": "__mul__",
    "**": "__pow__", "pow": "__pow__",
    "-": "__sub__", "sub": "__sub__", "neg": "__neg__",
    "/": "__truediv__", "truediv": "__truediv__", "div": "__truediv__",
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
_PROBE_NAME = re.compile(r"^[\sxy0-9.()]*([-+*/]|\*\*)[\sxy0-9.()]*$")


def _method_name(answer):
    if not isinstance(answer, str):
        return answer
    name = answer.strip().strip("`\"'").strip()
    probe = _PROBE_NAME.match(name)  # a probe's name, such as "x * y", names its operator
    if probe:
        return _ALIASES[probe.group(1)]
    name = name[:-2] if name.endswith("()") else name
    name = name.split(".")[-1]  # "Value.__mul__" names the method too
    if name.endswith("(x)"):  # "tanh(x)"
        name = name[:-3]
    return _ALIASES.get(name, name)


def _diagnosis(letter):
    index = "ABC".index(letter)

    @check(f"mystery {letter}: the broken method")
    def named(*answers):
        answer = answers[index]
        if answer is None:
            fail(f"no answer yet: put the name of the broken method in `broken_in_{letter}`, "
                 "such as \"exp\" or \"__neg__\"")
        name = _method_name(answer)
        if not isinstance(name, str):
            fail(f"write the method's name as a string, such as \"exp\", not {show(answer)}")
        if name in _COMPOSED:
            fail(f"you named {show(answer)}, which has no closure of its own: "
                 f"{_COMPOSED[name]}. Its probe fails because a primitive it is built from "
                 "is broken: which primitive do all the failing probes share?")
        if not callable(getattr(MYSTERIES[letter], name, None)):
            fail(f"mystery {letter} has no method named {show(answer)}: name one of its methods, "
                 "such as \"__add__\" or \"tanh\"")
        expect(name == _MYSTERY_METHODS[letter],
               f"you named {show(answer)}, but that method of mystery {letter} is fine: list "
               f"the probes that fail for `ch08.MYSTERIES[\"{letter}\"]`, then find the one "
               "primitive every one of them uses, and draw a failing probe to see where "
               "the gradient first goes wrong")

    return named


MYSTERY = Exercise(
    8, "three broken classes", [_diagnosis(letter) for letter in "ABC"],
    what="your diagnosis of the three classes", answer_of=SameArguments(),
    unanswered=lambda answers: all(a is None for a in answers),
    todo="put the name of each class's broken method in `broken_in_A`, `broken_in_B` and "
         "`broken_in_C`, run the cell, then this check again")


def check_mysteries(broken_in_A, broken_in_B, broken_in_C):
    """Exercise: name the broken method of each of `MYSTERIES["A"]`, `["B"]` and `["C"]`."""
    return MYSTERY.check(broken_in_A, broken_in_B, broken_in_C)


CHECKER = Exercise(
    8, "your gradient checker",
    [central_recipe, passes_correct_class, catches_add_overwrites, catches_second_input,
     catches_one_percent],
    what="your `check_gradients`", unanswered=is_unwritten,
    todo="replace `...` with the central difference of input i and the comparison, make it "
         "return its verdict, run the cell, then this check again")


def check_gradient_checker(check_gradients):
    """Exercise: the learner's `check_gradients(f, inputs, value_class)` nudges one input at a
    time both ways, says True for a correct class and False for broken ones, even one whose
    gradient is only 1% off (the checkpoint tries more bugs)."""
    return CHECKER.check(check_gradients)
