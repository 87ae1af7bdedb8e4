"""The exercise machinery: a solution never replaces a correct answer, and the checkpoint says
whose code it tested (autograd/checks/exercise.py). Chapter-level runs are in test_run_all.py."""

import linecache
import subprocess
import sys
import textwrap

import pytest

from autograd.checks import ch01, ch03, checkpoint
from autograd.checks.exercise import is_unwritten, solution
from autograd.stages import add_to_class, stage

SUB_SOLUTION = textwrap.dedent("""\
    @add_to_class(Value)
    def __sub__(self, other):
        return self + (-other)
""")


def namespace_with(sub_source=None):
    """A notebook's namespace after chapter 3's cells up to the `__sub__` exercise."""
    ns = {"Value": stage(3), "ch03": ch03, "add_to_class": add_to_class}
    del ns["Value"].__sub__  # the learner has not written it yet
    if sub_source is not None:
        answer(sub_source, ns)
    return ns


def answer(source, ns):
    """Run `source` as a notebook cell does, its source kept where `inspect` finds it."""
    filename = f"<cell {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), ns)


def run_solution(ns, check="ch03.check_sub(Value)", body=SUB_SOLUTION):
    said = []
    solution(check, body, ns, out=said.append)
    return " ".join(said)


def test_a_correct_answer_is_kept_and_the_solution_does_not_run():
    ns = namespace_with("@add_to_class(Value)\ndef __sub__(self, other):\n    return -other + self\n")
    learners = vars(ns["Value"])["__sub__"]
    said = run_solution(ns)
    assert "passed its check, so this solution did not run" in said
    assert vars(ns["Value"])["__sub__"] is learners
    report = checkpoint(3, ns["Value"])
    assert report.passed and "✓ a − b (your `__sub__`)" in str(report)


def test_a_wrong_answer_is_replaced_but_the_checkpoint_fails_and_names_the_bug():
    wrong = "@add_to_class(Value)\ndef __sub__(self, other):\n    return self + other\n"
    ns = namespace_with(wrong)
    assert not ch03.check_sub(ns["Value"]).passed
    said = run_solution(ns)
    assert "did not pass its check" in said
    assert ns["Value"](3.0) - ns["Value"](2.0) is not None  # the chapter goes on
    report = checkpoint(3, ns["Value"])
    assert not report.failures  # every check ran on the solution's __sub__, and passed
    assert not report.passed  # but the learner's own answer was wrong
    assert "b was added, not subtracted" in str(report)
    assert "`__sub__` came from the solution because yours failed" in report.summary()
    with pytest.raises(AssertionError, match="1 of your answers failed its check: see the "
                                             "report above"):
        report.raise_if_failed()


def test_a_missing_answer_is_filled_in_and_the_checkpoint_says_so_without_failing():
    ns = namespace_with("@add_to_class(Value)\ndef __sub__(self, other):\n    ...\n")
    said = run_solution(ns)
    assert "Not answered yet, so this solution ran" in said
    report = checkpoint(3, ns["Value"])
    assert report.passed
    assert "not answered yet, so the solution stood in: a − b" in report.summary()


def test_checking_again_after_the_solution_says_it_checked_the_solutions_answer():
    ns = namespace_with("@add_to_class(Value)\ndef __sub__(self, other):\n    return self\n")
    run_solution(ns)
    again = ch03.check_sub(ns["Value"])
    assert "(on the solution's answer, not yours)" in again.title
    assert "run your answer's cell again" in again.note
    assert not checkpoint(3, ns["Value"]).passed  # still the learner's wrong answer on record


def test_fixing_the_answer_after_the_solution_ran_makes_it_yours():
    ns = namespace_with("@add_to_class(Value)\ndef __sub__(self, other):\n    return self\n")
    run_solution(ns)
    answer(SUB_SOLUTION, ns)  # the learner types a correct answer and runs the cell
    assert ch03.check_sub(ns["Value"]).passed
    assert "passed its check" in run_solution(ns)
    report = checkpoint(3, ns["Value"])
    assert report.passed and "✓ a − b (your `__sub__`)" in str(report)


def test_a_solution_that_fails_its_own_check_stops_with_a_clear_error():
    ns = namespace_with(None)
    broken = "@add_to_class(Value)\ndef __sub__(self, other):\n    return self + other\n"
    with pytest.raises(AssertionError, match="fails its own check"):
        run_solution(ns, body=broken)


def test_solution_needs_an_exercise_check():
    with pytest.raises(TypeError, match="needs an exercise's check"):
        solution("1 + 1", "", {})


def test_a_prediction_gets_a_hint_first_and_the_answer_after_a_second_wrong_try():
    first = ch03.check_diamond_prediction(6)
    assert "path through b alone" in str(first) and "14" not in first.results[0].message
    second = ch03.check_diamond_prediction(7)
    assert "The answer is 14" in second.results[0].message


def test_a_solution_cells_own_check_does_not_count_as_a_wrong_try():
    ns = {"ch03": ch03, "my_prediction": 6}
    ch03.check_diamond_prediction(6)  # the learner's one wrong try
    solution("ch03.check_diamond_prediction(my_prediction)", "my_prediction = 14.0", ns,
             out=lambda text: None)
    report = checkpoint(3, stage(3))
    assert "path through b alone" in str(report) and "The answer is" not in str(report)


def test_warm_up_numbers_are_shown_as_precisely_as_asked():
    message = ch01.check_warm_up_slope(1 / 3).results[0].message
    assert message.startswith("0.333333 is not it") and "run over rise" in message


def test_is_unwritten_knows_a_stub_from_an_answer():
    def stub(self):
        ...  # your code

    def answered(self):
        return self

    def forgot_return(self):
        self + 1

    assert is_unwritten(stub) and is_unwritten(None)
    assert not is_unwritten(answered) and not is_unwritten(forgot_return)


def test_solution_magic_works_in_an_ipython_shell():
    # In a process of its own: an IPython shell left behind would change other tests.
    pytest.importorskip("IPython")
    script = textwrap.dedent("""\
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("from autograd.checks import ch01\\nslope = None")
        result = shell.run_cell("%%solution ch01.check_warm_up_slope(slope)\\nslope = 3.0\\n")
        assert result.success, result.error_in_exec or result.error_before_exec
        assert shell.user_ns["slope"] == 3.0
        shell.run_cell("slope = 9 / 3")
        kept = shell.user_ns["slope"]
        shell.run_cell("%%solution ch01.check_warm_up_slope(slope)\\nslope = -1.0\\n")
        assert shell.user_ns["slope"] is kept  # the learner's correct answer was kept
        print("magic works")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Not answered yet, so this solution ran" in done.stdout
    assert "passed its check, so this solution did not run" in done.stdout


def test_a_retyped_name_counts_as_the_learners_though_python_shares_the_string():
    from autograd.checks import check as named, fail
    from autograd.checks.exercise import Exercise

    @named("the name of the method")
    def right_name(name):
        if name != "__mul__":
            fail(f"{name!r} is not it")

    exercise = Exercise(99, "name the method", [right_name], what="your name")
    ns = {"exercise": exercise, "name": "__add__"}
    solution("exercise.check(name)", "name = '__mul__'", ns, out=lambda text: None)
    typed = "__mul__"  # the learner types it: Python hands back the solution's very object
    assert typed is ns["name"]
    report = exercise.check(typed)
    assert report.passed and not report.by_solution
    assert exercise.outcome().status == "yours"
