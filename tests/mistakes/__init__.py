"""The wrong answers learners really write, exercise by exercise: one module per chapter.

Each `Mistake` is typed into its exercise's cell (in place of the stub) and the chapter is run
as Run All runs it (tests/test_run_all.py). The exercise's check and the chapter's checkpoint
must both fail, and both must show every phrase in `says`: the words that name the bug. A
mistake that `raises` is an answer cell that raises; the run goes on after it, as a learner's
Run Selected Cell and All Below does.
"""

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    check: str  # the exercise, as its check call starts: "ch03.check_pow"
    bug: str  # the mistake in a few words, for the test's name
    answer: str  # the whole exercise cell as the learner wrote it
    says: tuple  # phrases both the check and the checkpoint must show
    raises: bool = False  # the answer's cell raises: the chapter goes on past it (Run > Run
    # Selected Cell and All Below), its check fails saying what raised, the solution stands in


def catalogue(chapter):
    """The mistakes catalogued for chapter `chapter` (an empty list if none yet)."""
    try:
        module = importlib.import_module(f"{__name__}.ch{chapter:02d}")
    except ModuleNotFoundError:
        return []
    return list(module.MISTAKES)
