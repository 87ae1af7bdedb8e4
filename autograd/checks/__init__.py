"""Chapter checkpoints: run a chapter's specification on what the learner built.

Each chapter module (`ch01` to `ch13`, one a chapter; a chapter whose checks outgrow one file
keeps some in `chNN_<theme>.py` modules that its `chNN` imports) has its exercise checks and, if
the chapter ends with a checkpoint (`autograd.syllabus` says which do), lists the checks that make up its
specification, as small functions decorated with `@check("what it protects")`, in `CHECKPOINT`,
and declares `checkpoint(obj)` with `@declare_checkpoint(chapter, title, CHECKPOINT)`. Chapter
modules build on one toolbox (`toolbox.py`) and never on another chapter's. A check passes by
returning; it fails by calling `fail(...)` (or a helper such as `expect_close`) with a message
that says, in words, what was expected and what happened. An exception inside a check fails that
check only, with the exception's type and message; the other checks still run. So does running
out of time: each check has a few seconds (`TIME_LIMIT`, or what it declares with `@check(...,
seconds=)`), so that a loop that never ends in the learner's code fails one check instead of
hanging the notebook. Ctrl-C stops the run and still shows the checks that ran.

    from autograd.checks import checkpoint
    checkpoint(3, Value)        # in a notebook: a pass/fail list, ticks and crosses

A `Report` is true when every check passed, prints as plain text, and shows as HTML in Jupyter.
"""

import importlib

from .. import syllabus
from .core import (
    CheckFailed,
    CheckResult,
    ChecksFailed,
    ChecksInterrupted,
    Report,
    SolutionFailed,
    check,
    run_checks,
    TIME_LIMIT,
    time_limit,
    fail,
    expect,
    expect_close,
    check_answer,
    show,
    is_int,
    is_number,
    is_close,
)
from .toolbox import (
    describe_nodes,
    expect_children,
    reverse_topological_order,
    backprop_by_hand,
    expect_closure,
    expect_gradients,
    GradientFailed,
)
from .exercise import register_magic

__all__ = [
    "CheckFailed",
    "CheckResult",
    "ChecksFailed",
    "ChecksInterrupted",
    "Report",
    "SolutionFailed",
    "check",
    "run_checks",
    "TIME_LIMIT",
    "time_limit",
    "fail",
    "expect",
    "expect_close",
    "check_answer",
    "show",
    "is_int",
    "is_number",
    "is_close",
    "describe_nodes",
    "expect_children",
    "reverse_topological_order",
    "backprop_by_hand",
    "expect_closure",
    "expect_gradients",
    "GradientFailed",
    "checkpoint",
    "CHAPTERS",
]

# The numbers of the chapters that end with a checkpoint, from the course's list of chapters
# (`autograd.syllabus`): `checkpoint(N, ...)` runs the `checkpoint` of module `chNN`.
CHAPTERS = tuple(c.number for c in syllabus.with_checkpoint())


# --------------------------------------------------------------------- the checkpoints


def checkpoint(chapter, obj):
    """Run chapter `chapter`'s specification on `obj` (what that chapter asks the learner to
    build: a function, a Value class, a namespace of classes; see the chapter's module)."""
    if not is_int(chapter):
        raise TypeError(f"chapter must be a whole number such as 3, but was given {chapter!r}")
    if chapter not in CHAPTERS:
        have = f"chapters {_numbers(CHAPTERS)} have one"
        if not 0 <= chapter <= syllabus.LAST:
            raise ValueError(
                f"there is no chapter {chapter}: the course has chapters 0 to "
                f"{syllabus.LAST}, and {have}"
            )
        raise ValueError(f"chapter {chapter} has no checkpoint: {have}")
    module = importlib.import_module(f"{__name__}.ch{chapter:02d}")
    return module.checkpoint(obj)


def _numbers(numbers):
    """Whole numbers in words, runs shortened: (1, 2, 3, 5, 7, 8) -> '1 to 3, 5, 7 and 8'."""
    runs = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    words = []
    for a, b in runs:
        words += [f"{a} to {b}"] if b - a >= 2 else [str(n) for n in range(a, b + 1)]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


register_magic()  # `%%solution` cells work as soon as a notebook imports the checks
