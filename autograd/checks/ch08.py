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
When it misjudges, the checks probe it further (`_why_false`, `_why_true`, in
`ch08_probes.py`) so that the message names what it does wrong: inputs nudged together, a one-sided difference, a missing 2h, the
wrong gradient compared, a tolerance too tight or too loose, a verdict never False.

`BUGGY_CLASSES` are those classes, for the chapter's bug gallery too: each is the complete
engine (`autograd.stages.stage(8)`) with one method replaced by a broken one (`ch08_bugs.py`,
with the exercise's `MYSTERIES`).
"""

import re

from ..stages import stage
from .ch08_bugs import (  # offered here too: `ch08.BUGGY_CLASSES` and so on
    BUGGY_CLASSES,
    GOOD_CASES,
    MYSTERIES,
    SUBTLE_BUG,
    PlantedBug,
    _MYSTERY_METHODS,
)
from .ch08_probes import _logged, _recipe_problem, _verdict, _why_false, _why_true
from .toolbox import (
    Exercise,
    SameArguments,
    check,
    declare_checkpoint,
    expect,
    fail,
    is_unwritten,
    run_checks,
    show,
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
                notes.append(
                    f" With it, your checker said False on {description}, for a "
                    "correct class: the one-sided difference is off by about "
                    "h·|f''|/2, and your tolerance is tighter than that."
                )
                break
        except Exception:
            break
    try:
        if check_gradients(SUBTLE_BUG.f, list(SUBTLE_BUG.inputs), SUBTLE_BUG.value_class):
            notes.append(
                f" And it said True on {SUBTLE_BUG.example}: your tolerance is too "
                "loose, whichever difference you take."
            )
    except Exception:
        pass
    fail(
        f"`check_gradients` takes a {kind} difference: it nudges each input one way only, "
        f"{'(f(x + h) − f(x)) / h' if kind == 'forward' else '(f(x) − f(x − h)) / h'}. Its "
        "error shrinks only like h; the central difference (f(x + h) − f(x − h)) / 2h, which "
        "nudges each input both ways, has an error that shrinks like h², and it is the "
        "witness this chapter's checker must use." + "".join(notes)
    )


@check("says True for a correct class on several functions")
def passes_correct_class(check_gradients):
    Value = stage(8)
    for description, f, inputs in GOOD_CASES:
        log = []
        if _verdict(check_gradients, _logged(f, log), inputs, Value, description):
            continue
        kind, problem = _recipe_problem(log, inputs, False)  # a wrong recipe first, if any
        fail(
            f"`check_gradients` said False for a correct class on {description}: "
            + (
                f"it {re.split(r'[:.] ', problem)[0]} (see the first check)"
                if problem
                else _why_false(check_gradients, kind)
            )
        )


def _catches(bug, name=None):
    @check(name or f"says False for a class whose {bug.description}")
    def catches_bug(check_gradients):
        if _verdict(check_gradients, bug.f, bug.inputs, bug.value_class, bug.example):
            why = _why_true(check_gradients) or (
                "compare every input's gradient with its central difference, and return False "
                "as soon as one disagrees"
            )
            fail(
                f"`check_gradients` said True on {bug.example}, for a class whose "
                f"{bug.description}: {why}"
            )

    return catches_bug


catches_add_overwrites = _catches(BUGGY_CLASSES["add_overwrites"])
catches_tanh_slope = _catches(BUGGY_CLASSES["tanh_slope"])
catches_mul_swaps = _catches(BUGGY_CLASSES["mul_swaps"])
catches_second_input = _catches(BUGGY_CLASSES["mul_second_input"])
catches_one_percent = _catches(SUBTLE_BUG, "says False for a gradient only about 1% off")

CHECKPOINT = [
    central_recipe,
    passes_correct_class,
    catches_add_overwrites,
    catches_tanh_slope,
    catches_mul_swaps,
    catches_second_input,
    catches_one_percent,
]


@declare_checkpoint(8, "Chapter 8 checkpoint: a gradient checker", CHECKPOINT)
def checkpoint(check_gradients):
    """Chapter 8's specification, run on the learner's `check_gradients(f, inputs, value_class)`."""


# ----------------------------------------------------------------- exercises


def check_bug_found(name, method):
    """Exercise: which method of `BUGGY_CLASSES[name].value_class` is broken? (e.g. "tanh")"""
    bug = BUGGY_CLASSES[name]

    @check(f"the bug in {show(name)} is in the method you named")
    def right_method():
        expect(
            method == bug.method,
            f"you named {show(method)}; run your checker on small functions that each use one "
            "operation, and draw the graph of the one that fails",
        )

    return run_checks("Your diagnosis", [right_method])


# Spellings a learner may use for a method, and the methods that are built from others and so
# have no closure of their own to be broken.
_ALIASES = {
    "+": "__add__",
    "add": "__add__",
    "*": "__mul__",
    "mul": "__mul__",
    "**": "__pow__",
    "pow": "__pow__",
    "-": "__sub__",
    "sub": "__sub__",
    "neg": "__neg__",
    "/": "__truediv__",
    "truediv": "__truediv__",
    "div": "__truediv__",
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
            fail(
                f"no answer yet: put the name of the broken method in `broken_in_{letter}`, "
                'such as "exp" or "__neg__"'
            )
        name = _method_name(answer)
        if not isinstance(name, str):
            fail(f'write the method\'s name as a string, such as "exp", not {show(answer)}')
        if name in _COMPOSED:
            fail(
                f"you named {show(answer)}, which has no closure of its own: "
                f"{_COMPOSED[name]}. Its probe fails because a primitive it is built from "
                "is broken: which primitive do all the failing probes share?"
            )
        if not callable(getattr(MYSTERIES[letter], name, None)):
            fail(
                f"mystery {letter} has no method named {show(answer)}: name one of its methods, "
                'such as "__add__" or "tanh"'
            )
        expect(
            name == _MYSTERY_METHODS[letter],
            f"you named {show(answer)}, but that method of mystery {letter} is fine: list "
            f'the probes that fail for `ch08.MYSTERIES["{letter}"]`, then find the one '
            "primitive every one of them uses, and draw a failing probe to see where "
            "the gradient first goes wrong",
        )

    return named


MYSTERY = Exercise(
    8,
    "three broken classes",
    [_diagnosis(letter) for letter in "ABC"],
    what="your diagnosis of the three classes",
    answer_of=SameArguments(),
    unanswered=lambda answers: all(a is None for a in answers),
    todo="put the name of each class's broken method in `broken_in_A`, `broken_in_B` and "
    "`broken_in_C`, run the cell, then this check again",
)


def check_mysteries(broken_in_A, broken_in_B, broken_in_C):
    """Exercise: name the broken method of each of `MYSTERIES["A"]`, `["B"]` and `["C"]`."""
    return MYSTERY.check(broken_in_A, broken_in_B, broken_in_C)


CHECKER = Exercise(
    8,
    "your gradient checker",
    [
        central_recipe,
        passes_correct_class,
        catches_add_overwrites,
        catches_second_input,
        catches_one_percent,
    ],
    what="your `check_gradients`",
    unanswered=is_unwritten,
    todo="replace `...` with the central difference of input i and the comparison, make it "
    "return its verdict, run the cell, then this check again",
)


def check_gradient_checker(check_gradients):
    """Exercise: the learner's `check_gradients(f, inputs, value_class)` nudges one input at a
    time both ways, says True for a correct class and False for broken ones, even one whose
    gradient is only 1% off (the checkpoint tries more bugs)."""
    return CHECKER.check(check_gradients)
