"""The machinery of the checks (`autograd.checks`): running checks, reporting them, and
dispatching `checkpoint(N, ...)`; every stage of the package passes every specification up to
its chapter, and the code the checks keep is the notebooks' own, word for word."""

import importlib
import importlib.util

import pytest

from autograd import syllabus
from autograd.checks import (
    CheckFailed,
    Report,
    ch02,
    ch07,
    ch10,
    ch11,
    check,
    checkpoint,
    expect_close,
    fail,
    run_checks,
)
from autograd.stages import stage

from checks_support import LAST_CHAPTER


# ---------------------------------------------------------------- the framework


@check("passes")
def passing(x):
    pass


@check("fails with a message")
def failing(x):
    fail(f"x should be 2 but was {x}")


@check("crashes")
def crashing(x):
    raise ZeroDivisionError("the learner divided by zero")


def test_report_passes_only_when_every_check_passes():
    assert run_checks("t", [passing, passing], 1).passed
    assert bool(run_checks("t", [passing], 1)) is True
    report = run_checks("t", [passing, failing], 1)
    assert report.passed is False and bool(report) is False
    assert [r.name for r in report.failures] == ["fails with a message"]


def test_exception_in_one_check_fails_that_check_only_and_the_others_still_run():
    report = run_checks("t", [crashing, passing, failing], 1)
    assert [r.passed for r in report.results] == [False, True, False]
    assert report.results[0].message == "raised ZeroDivisionError: the learner divided by zero"
    assert report.results[2].message == "x should be 2 but was 1"


def test_text_report_lists_each_check_its_message_and_a_summary():
    text = str(run_checks("My title", [passing, failing, crashing], 1))
    assert text.splitlines()[0] == "My title"
    assert "✓ passes" in text and "✗ fails with a message" in text
    assert "x should be 2 but was 1" in text
    assert "ZeroDivisionError: the learner divided by zero" in text
    assert text.splitlines()[-1] == "1 of 3 checks passed"


def test_html_report_shows_ticks_crosses_messages_and_summary():
    page = run_checks("Title <&>", [passing, failing], 1)._repr_html_()
    assert "&#10004;" in page and "&#10008;" in page  # a tick and a cross
    assert "x should be 2 but was 1" in page
    assert "1 of 2 checks passed" in page
    assert "Title &lt;&amp;&gt;" in page  # text is escaped, never raw HTML


def test_html_report_of_all_passed_has_no_cross():
    page = run_checks("t", [passing] * 7, 1)._repr_html_()
    assert "&#10008;" not in page
    assert "7 of 7 checks passed" in page


def test_raise_if_failed_raises_a_short_error_that_points_to_the_report_only_on_failure():
    ok = run_checks("t", [passing], 1)
    assert ok.raise_if_failed() is ok
    report = run_checks("Chapter 9 checkpoint", [passing, failing, failing], 1)
    with pytest.raises(AssertionError) as raised:  # still an AssertionError, for `except`
        report.raise_if_failed()
    message = str(raised.value)
    assert message == "Chapter 9 checkpoint: 2 of 3 checks failed: see the report above"
    assert "x should be 2" not in message  # the report is above it, not repeated
    assert type(raised.value).__name__ == "ChecksFailed"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_raise_if_failed_shows_no_install_path_in_a_plain_python_traceback(tmp_path):
    # Once a trap: the traceback repeated the whole report and ended in a frame at the
    # absolute path of the installed package
    import os
    import subprocess
    import sys

    import autograd

    script = tmp_path / "checkpoint.py"
    script.write_text(
        "from autograd.checks import run_checks, check, fail\n"
        "@check('one')\n"
        "def one(x):\n"
        "    fail('x is wrong in a way the report explains at length')\n"
        "report = run_checks('Chapter 9 checkpoint', [one], 1)\n"
        "report.raise_if_failed()\n"
    )
    package = os.path.dirname(os.path.dirname(os.path.abspath(autograd.__file__)))
    env = dict(os.environ, PYTHONPATH=package)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (
        "autograd.checks.ChecksFailed: Chapter 9 checkpoint: 1 of 1 check "
        "failed: see the report above"
    )
    assert package not in done.stderr and "explains at length" not in done.stderr
    assert len(lines) <= 6, done.stderr  # the learner's line, the raising line, the error


def test_expect_close_says_what_was_expected_and_what_happened():
    with pytest.raises(CheckFailed, match=r"`x.grad` should be 2.0 but was 1.0: one per use"):
        expect_close(1.0, 2.0, "`x.grad`", hint="one per use")
    with pytest.raises(CheckFailed, match="should be 2.0 but was None"):
        expect_close(None, 2.0, "the answer")
    expect_close(2.0 + 1e-12, 2.0, "x")


@pytest.mark.parametrize("chapter", [0, 9])
def test_checkpoint_refuses_a_chapter_without_one_and_names_those_with_one(chapter):
    with pytest.raises(
        ValueError,
        match=f"^chapter {chapter} has no checkpoint: chapters 1 to 8 and 10 to 13 have one$",
    ):
        checkpoint(chapter, stage(5))


@pytest.mark.parametrize("chapter", [-1, 14])
def test_checkpoint_refuses_a_number_that_is_no_chapter(chapter):
    with pytest.raises(
        ValueError,
        match=f"^there is no chapter {chapter}: the course has "
        "chapters 0 to 13, and chapters 1 to 8 and 10 to 13 "
        "have one$",
    ):
        checkpoint(chapter, stage(5))


@pytest.mark.parametrize("chapter", [c.number for c in syllabus.with_checkpoint()])
def test_checkpoint_runs_the_checkpoint_of_each_chapter_that_has_one(chapter, monkeypatch):
    module = importlib.import_module(f"autograd.checks.ch{chapter:02d}")
    given = []
    monkeypatch.setattr(module, "checkpoint", lambda obj: given.append(obj) or "its report")
    built = object()
    assert checkpoint(chapter, built) == "its report" and given == [built]


def test_checkpoint_ten_runs_chapter_tens_specification():
    # chapter 10's checks module has a checkpoint, and `checkpoint(10, ...)` runs it (it used
    # to refuse chapter 10); on stage 5, a class with closures and no slots, it must fail
    report = checkpoint(10, stage(5))
    direct = ch10.checkpoint(stage(5))
    assert report.title.startswith("Chapter 10") and not report.passed
    assert [(r.name, r.passed) for r in report.results] == [
        (r.name, r.passed) for r in direct.results
    ]


def test_checkpoint_eleven_runs_chapter_elevens_specification():
    # `checkpoint(11, ...)` runs chapter 11's checks on a compiler; a function that is not one
    # (it compiles nothing and returns None) fails every check, and says why
    def not_a_compiler(root, inputs):
        return None

    report = checkpoint(11, not_a_compiler)
    direct = ch11.checkpoint(not_a_compiler)
    assert report.title.startswith("Chapter 11") and not report.passed
    assert [(r.name, r.passed) for r in report.results] == [
        (r.name, r.passed) for r in direct.results
    ]
    assert "should return the compiled function" in report.results[0].message


def test_checkpoint_dispatches_to_the_chapter_module():
    report = checkpoint(2, stage(2))
    assert isinstance(report, Report)
    assert report.title.startswith("Chapter 2")
    assert [r.name for r in report.results] == [f.check_name for f in ch02.CHECKPOINT]


SPEC_AND_STAGE = [
    (chapter, later) for chapter in range(2, 7) for later in range(chapter, LAST_CHAPTER + 1)
]


@pytest.mark.parametrize("chapter, stage_chapter", SPEC_AND_STAGE)
def test_every_stage_passes_every_specification_up_to_its_chapter(chapter, stage_chapter):
    report = checkpoint(chapter, stage(stage_chapter))
    assert report.passed, str(report)


@pytest.mark.parametrize("chapter", range(3, 6))
def test_the_stage_before_a_chapter_fails_its_checkpoint(chapter):
    assert not checkpoint(chapter, stage(chapter - 1)).passed


@pytest.mark.parametrize(
    "notebook, given",
    [
        (
            "07_neural_network_library",
            ("GIVEN_MODULE", "GIVEN_NEURON", "GIVEN_LAYER", "GIVEN_MLP", "SOLVED_LAYER_PARAMETERS"),
        ),
        ("10_making_it_fast", ("GIVEN_FLAT_VALUE",)),
    ],
)
def test_the_given_code_the_checks_keep_is_the_notebooks_word_for_word(notebook, given):
    # A solution that fails its check runs again on these copies, to tell an edited given cell
    # from a fault in the course: a copy that drifted from its cell would tell wrong
    import json
    from pathlib import Path

    module = {"07_neural_network_library": ch07, "10_making_it_fast": ch10}[notebook]
    path = Path(__file__).resolve().parent.parent / "notebooks" / f"{notebook}.ipynb"
    cells = [
        "".join(c["source"])
        for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    ]
    for name in given:
        source = getattr(module, name)
        assert any(cell == source or cell.endswith("\n" + source) for cell in cells), name


# ---------------------------------------------------------------- the toolbox


def test_each_chapter_module_builds_on_the_toolbox_and_on_no_other_chapter():
    import ast
    from pathlib import Path

    import autograd.checks

    folder = Path(autograd.checks.__file__).parent
    chapters = sorted(folder.glob("ch[0-9][0-9].py"))
    assert len(chapters) >= 12
    # a chapter's module may be split into parts, `chNN_*.py`, which it (and they) import
    for path in sorted(folder.glob("ch[0-9][0-9]*.py")):
        own = path.name[:4] + "_"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module == "toolbox" or (node.module or "").startswith(own), (
                    f"{path.name} imports from .{node.module or ''}"
                )
            elif isinstance(node, ast.ImportFrom) and node.level == 2:
                assert not (node.module or "").startswith("checks"), path.name
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = (
                    [node.module]
                    if isinstance(node, ast.ImportFrom)
                    else [a.name for a in node.names]
                )
                assert not any(n and n.startswith("autograd.checks") for n in names), path.name


def test_diagnose_names_the_mistake_an_answer_reproduces_but_never_a_right_one():
    from autograd.checks.toolbox import diagnose

    mistakes = [
        (6.0, "doubled"),
        (3.0, "the right answer, also given by a mistake"),
        (lambda: 1 / 0, "cannot be worked out here"),
        (lambda: -3.0, "sign"),
    ]
    assert diagnose(6.0, mistakes, right=3.0) == "doubled"
    assert diagnose(-3.0, mistakes, right=3.0) == "sign"
    assert diagnose(3.0, mistakes, right=3.0) is None
    assert diagnose(7.0, mistakes, right=3.0, otherwise="no idea") == "no idea"


def test_call_words_what_the_learners_code_did_and_lets_other_errors_through():
    from autograd.checks.toolbox import call

    def words(error):
        return "it called itself" if isinstance(error, RecursionError) else None

    def recursive():
        return recursive()

    with pytest.raises(CheckFailed, match="it called itself"):
        call(recursive, raised=words)
    with pytest.raises(ZeroDivisionError):
        call(lambda: 1 / 0, raised=words)
    with pytest.raises(CheckFailed, match="no return"):
        call(lambda: None, none="no return")
    with pytest.raises(CheckFailed, match="a str, not a number"):
        call(
            lambda: "1",
            kind=lambda x: isinstance(x, float),
            wrong=lambda x: f"a {type(x).__name__}, not a number",
        )
    assert call(lambda x: x + 1, 1.0, none="no return") == 2.0
