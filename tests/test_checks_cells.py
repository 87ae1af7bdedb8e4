"""An answer cell that raises is a wrong answer, not the end of the chapter
(autograd/checks/cells.py): its check fails and says what raised, the solution stands in, and
the checkpoint fails and names the exercise. Each test runs cells in an IPython shell of its own
process, as a notebook's kernel runs them (a shell left behind would change other tests).
Whole chapters run past a raising answer in test_run_all.py (the mistakes that `raise`)."""

import subprocess
import sys
import textwrap

import pytest

from autograd.checks import cells

pytest.importorskip("IPython")

SHELL = textwrap.dedent("""\
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()

    def run(source):
        result = shell.run_cell(source)
        return result.error_in_exec or result.error_before_exec

    assert run("from autograd.checks import ch03, checkpoint\\n"
               "from autograd.stages import add_to_class, stage\\n"
               "Value = stage(3)\\ndel Value.__sub__") is None
    SUB = ("@add_to_class(Value)\\ndef __sub__(self, other):\\n    return self + (-other)\\n")
""")


def in_a_shell(script):
    done = subprocess.run(
        [sys.executable, "-c", SHELL + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_name_never_defined_fails_the_check_and_the_solution_stands_in():
    out = in_a_shell("""\
        assert isinstance(run("my_prediction = 2 * slope_of_c"), NameError)
        assert run("print(ch03.check_diamond_prediction(my_prediction))") is None
        assert run("%%solution ch03.check_diamond_prediction(my_prediction)\\n"
                   "my_prediction = 14.0") is None
        assert shell.user_ns["my_prediction"] == 14.0
        run("print('CHECKPOINT', checkpoint(3, Value))")
    """)
    check, _, said = out.partition("✗ Your prediction")
    assert "raised NameError: name 'slope_of_c' is not defined" in check
    assert "0 of 1 checks passed" in check
    assert "its cell raised NameError" in said and "the chapter goes on with it" in said
    report = said.split("CHECKPOINT", 1)[1]
    assert "✗ predict the diamond" in report and "raised NameError" in report


def test_a_syntax_error_fails_the_check_of_a_method_and_says_which_line():
    out = in_a_shell("""\
        assert isinstance(run(SUB.replace("):\\n    return", ")\\n    return")), SyntaxError)
        assert run("print(ch03.check_sub(Value))") is None
        assert run("%%solution ch03.check_sub(Value)\\n" + SUB) is None
        run("print('CHECKPOINT', checkpoint(3, Value))")
    """)
    assert "raised SyntaxError" in out and "(line 2)" in out
    assert "Python could not read the cell" in out
    assert "its cell raised SyntaxError" in out
    assert "raised SyntaxError" in out.split("CHECKPOINT", 1)[1]


def test_a_cell_that_runs_cleanly_afterwards_forgets_the_error():
    out = in_a_shell("""\
        assert isinstance(run("my_prediction = 2 * slope_of_c"), NameError)
        assert run("my_prediction = 14") is None  # fixed, and run again
        assert run("print(ch03.check_diamond_prediction(my_prediction))") is None
    """)
    assert "raised" not in out and "1 of 1 checks passed" in out


def test_the_error_belongs_to_the_first_exercise_checked_after_it():
    out = in_a_shell("""\
        assert isinstance(run("my_prediction = 2 * slope_of_c"), NameError)
        assert run("print(ch03.check_diamond_prediction(my_prediction))") is None
        assert run("print('OTHER', ch03.check_sub(Value))") is None  # an other exercise
    """)
    assert "raised NameError" in out.split("OTHER")[0]
    assert "raised" not in out.split("OTHER")[1]


def test_a_solution_whose_answer_cell_never_ran_stands_in():
    out = in_a_shell("""\
        assert run("%%solution ch03.check_diamond_prediction(my_prediction)\\n"
                   "my_prediction = 14.0") is None
        assert shell.user_ns["my_prediction"] == 14.0
    """)
    assert "Not answered yet (my_prediction is not defined" in out


def test_names_a_cell_defines_are_found_even_when_python_cannot_read_it():
    assert cells.defined_names("my_order = [a, b]\nx, (y, z) = 1, (2, 3)\ndef f(): pass") == [
        "my_order",
        "x",
        "y",
        "z",
        "f",
    ]
    assert cells.defined_names("def topological_order(root)\n    return []\nn == 3") == [
        "topological_order"
    ]


def test_a_chapter_runs_to_its_end_past_an_answer_that_raises_in_a_real_kernel():
    """Chapter 02 in a Jupyter kernel (nbclient), its `count_nodes` answered with a cell that
    raises SyntaxError, errors allowed in that cell alone (and in the line after the
    checkpoint that stops Run All on a failure): the check fails saying what raised, the
    solution stands in, every later cell runs, and the checkpoint fails naming the exercise."""
    from pathlib import Path

    from conftest import require_module

    require_module("nbclient")
    import nbformat
    from nbclient import NotebookClient

    path = Path(__file__).resolve().parent.parent / "notebooks" / "02_value_and_graph.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    answer = next(
        i
        for i, c in enumerate(cells)
        if "exercise" in c.metadata.get("tags", []) and "def count_nodes" in c.source
    )
    cells[answer].source = "def count_nodes(root)\n    return 0\n"  # no colon: SyntaxError
    stop = next(i for i, c in enumerate(cells) if "raise_if_failed" in c.source)
    for i in (answer, stop):
        cells[i].metadata.setdefault("tags", []).append("raises-exception")
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()

    def text(cell):
        parts = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            parts.append(
                output.get("text", "")
                + data.get("text/html", "")
                + data.get("text/plain", "")
                + output.get("evalue", "")
            )
        return "\n".join(parts)

    errors = {
        i: [o["ename"] for o in c.outputs if o.output_type == "error"]
        for i, c in enumerate(cells)
        if c.cell_type == "code"
    }
    assert errors[answer] == ["SyntaxError"]
    meant = {i for i, c in enumerate(cells) if "raises-exception" in c.metadata.get("tags", [])}
    assert all(not names for i, names in errors.items() if i not in meant), errors
    assert errors[stop] == ["ChecksFailed"]
    check, solution = cells[answer + 1], cells[answer + 2]
    assert "raised SyntaxError" in text(check) and "0 of 1 checks passed" in text(check)
    assert "its cell raised SyntaxError" in text(solution)
    report = text(cells[stop - 1])
    assert "count the nodes" in report and "raised SyntaxError" in report
    assert "1 of your answers failed its check" in text(cells[stop])


def test_a_cell_that_defines_nothing_is_no_answer_cell():
    # the line after a checkpoint that stops Run All raises, and so do cells meant to raise:
    # the next check, run without running its answer again, checks what is there
    out = in_a_shell("""\
        assert run("my_prediction = 14") is None
        assert isinstance(run("raise ValueError('not an answer')"), ValueError)
        assert run("print(ch03.check_diamond_prediction(my_prediction))") is None
    """)
    assert "raised" not in out and "1 of 1 checks passed" in out
