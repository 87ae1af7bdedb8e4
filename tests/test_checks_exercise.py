"""The exercise machinery: a solution never replaces a correct answer, and the checkpoint says
whose code it tested (autograd/checks/exercise.py). Chapter-level runs are in test_run_all.py."""

import linecache
import subprocess
import sys
import textwrap

import pytest
from conftest import require_module

from autograd.checks import ch01, ch03, checkpoint
from autograd.checks.exercise import forget_answers, is_unwritten, solution
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
    ns = namespace_with(
        "@add_to_class(Value)\ndef __sub__(self, other):\n    return -other + self\n"
    )
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
    with pytest.raises(
        AssertionError, match="1 of your answers failed its check: see the report above"
    ):
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
    solution(
        "ch03.check_diamond_prediction(my_prediction)",
        "my_prediction = 14.0",
        ns,
        out=lambda text: None,
    )
    report = checkpoint(3, stage(3))
    assert "path through b alone" in str(report) and "The answer is" not in str(report)


def test_warm_up_numbers_are_shown_as_precisely_as_asked():
    message = ch01.check_warm_up_slope(1 / 7).results[0].message
    assert message.startswith("0.142857 is not it")


def test_is_unwritten_knows_a_stub_from_an_answer():
    def stub(self):  # a stub, as a notebook gives it
        ...  # your code

    def answered(self):
        return self

    def forgot_return(self):
        self + 1

    def folded(self): ...  # the stub as a formatter (ruff, black) folds it

    def answered_with_ellipsis_inside(self):
        return self[..., 0], "..."

    def half_written(self):
        if self:
            return self
        else:
            ...

    assert is_unwritten(stub) and is_unwritten(None)
    assert is_unwritten(folded) and is_unwritten(half_written)
    assert not is_unwritten(answered) and not is_unwritten(forgot_return)
    assert not is_unwritten(answered_with_ellipsis_inside)


def test_solution_magic_works_in_an_ipython_shell():
    # In a process of its own: an IPython shell left behind would change other tests.
    require_module("IPython")
    script = textwrap.dedent("""\
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("from autograd.checks import ch01\\nslope = None")
        result = shell.run_cell("%%solution ch01.check_warm_up_slope(slope)\\nslope = 2.0\\n")
        assert result.success, result.error_in_exec or result.error_before_exec
        assert shell.user_ns["slope"] == 2.0
        shell.run_cell("slope = 6 / 3")
        kept = shell.user_ns["slope"]
        shell.run_cell("%%solution ch01.check_warm_up_slope(slope)\\nslope = -1.0\\n")
        assert shell.user_ns["slope"] is kept  # the learner's correct answer was kept
        print("magic works")
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
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


# --------------------------------------------------------------------- a solution that fails
# The solution runs on the notebook's code, given cells included. When it fails its check, the
# learner is sent to report a fault in the course only when the solution fails on the chapter's
# own given code too; after an edit to a given cell, the message points to that cell and says
# what the check found wrong.


def test_an_edited_given_cell_in_chapter_10_is_blamed_not_the_course():
    # Once a trap: FlatValue.backward with `=` for `+=` failed a right `exp`, then sent the
    # learner to report a course bug ("fails its own check (please report this)")
    import math

    from autograd.checks import ch10
    from autograd.graph import topological_order

    forget_answers()
    ns = {
        "math": math,
        "add_to_class": add_to_class,
        "ch10": ch10,
        "topological_order": topological_order,
    }
    edited = ch10.GIVEN_FLAT_VALUE.replace("node._a.grad += node._da", "node._a.grad = node._da")
    assert edited != ch10.GIVEN_FLAT_VALUE
    answer(edited, ns)
    exp = (
        "@add_to_class(FlatValue)\ndef exp(self):\n    e = math.exp(self.data)\n"
        '    return FlatValue(e, "exp", self, e)\n'
    )
    answer(exp, ns)  # the learner's exp is right
    report = ch10.check_flat_exp(ns["FlatValue"])
    assert "the given `FlatValue`" in str(report) and "was that cell edited?" in str(report)
    with pytest.raises(AssertionError) as raised:
        run_solution(ns, "ch10.check_flat_exp(FlatValue)", exp)
    said = str(raised.value)
    assert type(raised.value).__name__ == "SolutionFailed"  # an AssertionError, named for it
    assert "the fault is in a given cell above that was edited" in said
    assert "d(x·x + x)/dx at x = 0.5 should be 2 but was 1" in said  # what the check found
    assert "report" not in said


def test_an_edited_neuron_in_chapter_7_is_named_by_the_check_and_the_solution():
    import random

    from autograd.checks import ch07

    forget_answers()
    ns = {"random": random, "add_to_class": add_to_class, "ch07": ch07, "Value": stage(5)}
    answer(ch07.GIVEN_MODULE, ns)
    answer(
        ch07.GIVEN_NEURON.replace(
            "return self.w + [self.b]", "return self.w + [self.w[0], self.b]"
        ),
        ns,
    )
    answer(ch07.GIVEN_LAYER, ns)
    answer(ch07.SOLVED_LAYER_PARAMETERS, ns)  # the learner's Layer.parameters is right
    with pytest.raises(AssertionError) as raised:
        run_solution(ns, "ch07.check_layer_parameters(Layer)", ch07.SOLVED_LAYER_PARAMETERS)
    said = str(raised.value)
    assert "the fault is in a given cell above that was edited" in said
    assert "`Neuron.parameters()` should give its 3 weights and its bias" in said
    assert "report" not in said


def test_an_edited_value_in_a_chapter_that_grows_the_engine_is_blamed_not_the_course():
    # chapters 2 to 5: the package's engine as the chapter leaves it is the given code
    ns = namespace_with(None)

    def add_that_forgets_other(self, other):  # an edit to the given `__add__`
        return type(self)(self.data, (self,), "+")

    ns["Value"].__add__ = add_that_forgets_other
    forget_answers()
    with pytest.raises(AssertionError) as raised:
        run_solution(ns)
    said = str(raised.value)
    assert "the fault is in a given cell above that was edited" in said
    assert "What the check" in said and "report" not in said


def test_a_solution_that_fails_on_the_untouched_chapter_asks_for_a_report():
    import math

    from autograd.checks import ch10

    forget_answers()  # a fresh kernel, the chapter as it is given
    ns = {"math": math, "add_to_class": add_to_class, "ch10": ch10, **ch10.given_flat_value()}
    answer("@add_to_class(FlatValue)\ndef exp(self):\n    ...\n", ns)  # the stub
    broken = (
        "@add_to_class(FlatValue)\ndef exp(self):\n    e = math.exp(self.data)\n"
        '    return FlatValue(e, "exp", self, 1.0)\n'
    )
    with pytest.raises(AssertionError) as raised:
        run_solution(ns, "ch10.check_flat_exp(FlatValue)", broken)
    said = str(raised.value)
    assert "even on the chapter's own given code" in said and "please report this" in said
    assert "edited" not in said


def test_without_the_chapters_given_code_the_message_says_both_possibilities():
    from autograd.checks import check as named, fail
    from autograd.checks.exercise import Exercise

    @named("twice the given number")
    def doubled(answer):
        if answer != 2 * 21:
            fail(f"{answer!r} is not twice 21")

    exercise = Exercise(98, "double it", [doubled], what="your double")
    ns = {"exercise": exercise, "given": 20, "answer_": 0}
    with pytest.raises(AssertionError) as raised:
        solution("exercise.check(answer_)", "answer_ = 2 * given", ns, out=lambda text: None)
    said = str(raised.value)
    assert "probably in a given cell above that was edited" in said
    assert "40 is not twice 21" in said
    assert said.endswith(
        "If you edited no cell above, the fault is in the course: please report it."
    )
