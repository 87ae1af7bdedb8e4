"""Chapter 08's checks (`autograd.checks.ch08`): the exercises on checking gradients judge an
attempt correctly and explain it in words; the checkpoint passes a correct checker and catches
each planted bug."""

import functools
import inspect
import json
import math
from pathlib import Path

import pytest

from autograd.checks import ch08, checkpoint
from autograd.gradcheck import gradcheck
from autograd.stages import stage

from checks_support import failure_message, result


def check_gradients(f, inputs, value_class, h=1e-6, tol=1e-5):
    """A plain gradient checker honouring chapter 8's contract."""
    values = [value_class(x) for x in inputs]
    f(*values).backward()
    for i, v in enumerate(values):
        up = [value_class(x + h * (j == i)) for j, x in enumerate(inputs)]
        down = [value_class(x - h * (j == i)) for j, x in enumerate(inputs)]
        slope = (f(*up).data - f(*down).data) / (2 * h)
        if not math.isclose(v.grad, slope, rel_tol=tol, abs_tol=tol):
            return False
    return True


def test_checkpoint_eight_passes_a_correct_checker():
    report = checkpoint(8, check_gradients)
    assert report.passed, str(report)


def test_checkpoint_eight_passes_a_checker_built_on_the_packages_gradcheck():
    from autograd.gradcheck import gradcheck

    report = checkpoint(
        8, lambda f, inputs, value_class: bool(gradcheck(f, inputs, value_class=value_class))
    )
    assert report.passed, str(report)


# ---------------------------------------------------------------- chapter 8 fails honestly


def test_checkpoint_eight_catches_a_checker_that_always_says_true():
    report = checkpoint(8, lambda f, inputs, value_class: True)
    assert result(report, "says True for a correct class").passed
    catches = [r for r in report.results if r.name.startswith("says False")]
    assert len(catches) >= 4
    for r in catches:
        assert not r.passed and "`check_gradients` said True on" in r.message
        assert "it never says False" in r.message


def test_checkpoint_eight_catches_a_checker_that_always_says_false():
    report = checkpoint(8, lambda f, inputs, value_class: False)
    assert "said False for a correct class" in failure_message(report, "correct class")


def test_checkpoint_eight_catches_a_checker_that_forgets_to_return():
    report = checkpoint(8, lambda f, inputs, value_class: None)
    assert "forget to `return`" in failure_message(report, "correct class")


def test_checkpoint_eight_catches_a_checker_with_a_loose_tolerance():
    report = checkpoint(8, functools.partial(check_gradients, tol=1.0))
    assert "said True on tanh(x) at x = 0.8" in failure_message(report, "tanh")


@pytest.mark.parametrize("name", sorted(ch08.BUGGY_CLASSES))
def test_each_planted_bug_breaks_its_example_and_nothing_else_breaks_the_rest(name):
    bug = ch08.BUGGY_CLASSES[name]
    assert bug.value_class.__name__ == "Value"
    assert check_gradients(bug.f, bug.inputs, stage(8))
    assert not check_gradients(bug.f, bug.inputs, bug.value_class)
    # The bug travels with the values: an operation's result is again of the buggy class.
    x = bug.value_class(0.3)
    assert type((x * 2 + 1).tanh()) is bug.value_class
    # Functions that avoid the broken method are unaffected.
    untouched = {
        "__add__": (lambda x, y: (x * y).tanh(), [0.4, -0.7]),
        "tanh": (lambda x, y: x * y + x, [0.4, -0.7]),
        "__mul__": (lambda x, y: (x + y).tanh() + y, [0.4, -0.7]),
    }
    f, inputs = untouched[bug.method]
    assert check_gradients(f, inputs, bug.value_class)


def test_chapter_eight_bug_found_exercise():
    assert ch08.check_bug_found("tanh_slope", "tanh").passed
    assert not ch08.check_bug_found("tanh_slope", "__mul__").passed


def test_planted_bug_classes_are_independent_of_the_stages():
    assert isinstance(ch08.BUGGY_CLASSES["mul_swaps"].value_class, type)
    good = stage(8)
    x, y = good(2.0), good(-3.0)
    (x * y).backward()
    assert (x.grad, y.grad) == (-3.0, 2.0)


ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- chapter 8


ONE_OPERATION = {
    "__add__": (lambda x, y: x + y, [0.7, -1.3]),
    "__mul__": (lambda x, y: x * y, [0.7, -1.3]),
    "__pow__": (lambda x: x**3, [0.7]),
    "tanh": (lambda x: x.tanh(), [0.7]),
    "exp": (lambda x: x.exp(), [0.7]),
}
EXPECTED_BROKEN = {"A": "__mul__", "B": "__pow__", "C": "__add__"}


@pytest.mark.parametrize("letter", sorted(ch08.MYSTERIES))
def test_each_mystery_breaks_exactly_its_own_primitive(letter):
    value_class = ch08.MYSTERIES[letter]
    failing = [
        name
        for name, (f, inputs) in ONE_OPERATION.items()
        if not gradcheck(f, inputs, value_class=value_class)
    ]
    assert failing == [EXPECTED_BROKEN[letter]]
    x = value_class(0.3)
    assert type(x * 2 + x**2) is value_class  # the bug travels with every result


def test_mystery_classes_do_not_name_their_bug():
    for letter, value_class in ch08.MYSTERIES.items():
        doc = value_class.__doc__
        assert f"Mystery class {letter}" in doc
        assert EXPECTED_BROKEN[letter] not in doc and "mul" not in doc and "pow" not in doc


def test_mystery_diagnosis_accepts_the_method_in_any_usual_spelling():
    assert ch08.check_mysteries("__mul__", "__pow__", "__add__").passed
    assert ch08.check_mysteries("*", "Value.__pow__", "`+`").passed
    assert ch08.check_mysteries("mul", "**", "add").passed


def test_mystery_diagnosis_explains_what_is_wrong_without_naming_the_answer():
    report = ch08.check_mysteries(None, "__truediv__", "tanh")
    assert [r.passed for r in report.results] == [False, False, False]
    none, composed, wrong = (r.message for r in report.results)
    assert none.startswith("no answer yet")
    assert "no closure of its own" in composed and "b**-1" in composed
    assert "that method of mystery C is fine" in wrong
    assert all(answer not in str(report) for answer in ("__mul__", "__pow__", "__add__"))


def correct_checker(f, inputs, value_class, h=1e-6, tol=1e-5):
    values = [value_class(x) for x in inputs]
    f(*values).backward()
    for i, v in enumerate(values):
        up, down = list(inputs), list(inputs)
        up[i] += h
        down[i] -= h
        numerical = (f(*map(value_class, up)).data - f(*map(value_class, down)).data) / (2 * h)
        if abs(v.grad - numerical) > tol * max(1.0, abs(v.grad), abs(numerical)):
            return False
    return True


def make_checker(
    *, numerical="central", tol=1e-5, h=1e-6, compare="grad", together=False, returns="both"
):
    """A gradient checker written with one of the mistakes learners make (none by default)."""

    def check_gradients(f, inputs, value_class):
        values = [value_class(x) for x in inputs]
        out = f(*values)
        out.backward()
        for i, v in enumerate(values):
            up, down = list(inputs), list(inputs)
            if together:
                up, down = [x + h for x in inputs], [x - h for x in inputs]
            else:
                up[i] += h
                down[i] -= h
            f_up = f(*[value_class(x) for x in up]).data
            if numerical == "forward":
                slope = (f_up - out.data) / h
            else:
                f_down = f(*[value_class(x) for x in down]).data
                slope = {
                    "central": (f_up - f_down) / (2 * h),
                    "no 2h": f_up - f_down,
                    "/h": (f_up - f_down) / h,
                    "/2*h": (f_up - f_down) / 2 * h,
                }[numerical]
            grad = {"grad": v.grad, "output": out.grad, "first": values[0].grad, "data": v.data}[
                compare
            ]
            agree = abs(grad - slope) <= tol * max(1.0, abs(grad), abs(slope))
            if returns == "in the loop":
                return agree
            if not agree and returns != "never False":
                return False
        if returns != "no final return":
            return True

    return check_gradients


def checker_message(checker):
    report = ch08.check_gradient_checker(checker)
    assert not report.passed
    first = report.failures[0].message
    checkpoint = ch08.checkpoint(checker)  # the checkpoint on the same checker says it too
    assert not checkpoint.passed and first in str(checkpoint)
    return first


def test_gradient_checker_exercise_passes_fair_checkers_and_explains_the_stub():
    assert ch08.check_gradient_checker(correct_checker).passed
    assert ch08.check_gradient_checker(make_checker()).passed
    assert ch08.checkpoint(make_checker()).passed

    def stub(f, inputs, value_class, h=1e-6, tol=1e-5):
        values = [value_class(x) for x in inputs]
        f(*values).backward()
        for i in range(len(inputs)):
            ...  # the central difference of f in input i
        return None  # replace with your verdict

    report = ch08.check_gradient_checker(stub)
    assert "not answered yet" in str(report)


def test_a_checker_that_nudges_every_input_at_once_is_told_so_not_about_the_tolerance():
    # A message that misled, before: it was told "is the tolerance too tight, or the step h
    # so small ...?"
    message = checker_message(make_checker(together=True))
    assert "nudges every input at once" in message
    assert "tolerance" not in message
    checkpoint = ch08.checkpoint(make_checker(together=True))
    assert "tolerance" not in str(checkpoint)


@pytest.mark.parametrize(
    "mistake,words",
    [
        (dict(numerical="forward", tol=1e-10), ("forward difference", "tighter than")),
        (dict(numerical="forward", tol=0.05), ("forward difference", "too loose")),
        (dict(tol=1e-12), ("tighter than float64 allows",)),
        (dict(tol=0.05), ("too loose", "3.00%")),
        (dict(h=1e-13), ("so small that",)),
        (dict(numerical="no 2h"), ("without the division by 2h",)),
        (dict(numerical="/h"), ("twice too large",)),
        (dict(numerical="/2*h"), ("`/ 2 * h`",)),
        (dict(compare="output"), ("the output's own `grad`",)),
        (dict(compare="first"), ("the first input's gradient",)),
        (dict(compare="data"), ("the inputs' `data`, not their `grad`",)),
        (dict(returns="never False"), ("it never says False",)),
        (dict(returns="in the loop"), ("only ever compares the first input",)),
        (dict(returns="no final return"), ("forget to `return`",)),
    ],
)
def test_gradient_checker_names_each_classic_mistake(mistake, words):
    message = checker_message(make_checker(**mistake))
    for w in words:
        assert w in message, message


def test_a_checker_that_always_says_true_compared_nothing():
    message = checker_message(lambda f, inputs, value_class: True)
    assert "compared nothing" in message


def test_an_always_true_checker_fails_the_checkpoint_even_after_the_solution_stood_in():
    # Once a trap: its own check said 1 of 2, then the checkpoint said "4 of 4 checks passed"
    from autograd.checks.exercise import solution

    always_true = "def check_gradients(f, inputs, value_class):\n    return True\n"
    ns = {"ch08": ch08}
    exec(compile(always_true, "<cell>", "exec"), ns)
    assert not ch08.check_gradient_checker(ns["check_gradients"]).passed
    body = inspect.getsource(correct_checker).replace("def correct_checker", "def check_gradients")
    said = []
    solution("ch08.check_gradient_checker(check_gradients)", body, ns, out=said.append)
    assert "did not pass its check" in said[0]
    report = ch08.checkpoint(ns["check_gradients"])
    assert not report.failures  # the solution's checker is the one the checks ran on
    assert not report.passed and "compared nothing" in str(report)
    assert "came from the solution because yours failed" in report.summary()


def test_mystery_answers_typed_after_the_solution_count_as_the_learners():
    # the names are strings, and Python shares one object for equal short names, so a
    # string cannot be told from the solution's: a correct name counts as the learner's, and
    # the checkpoint passes
    from autograd.checks.exercise import solution

    nb = json.loads((ROOT / "notebooks" / "08_checking_gradients.ipynb").read_text())
    body = next(
        "".join(c["source"])
        for c in nb["cells"]
        if "".join(c["source"]).startswith("%%solution ch08.check_mysteries")
    )
    body = body.partition("\n")[2].replace("probe(", "print(")
    check = "ch08.check_mysteries(broken_in_A, broken_in_B, broken_in_C)"
    ns = {
        "ch08": ch08,
        "broken_in_A": "__sub__",
        "broken_in_B": "__pow__",
        "broken_in_C": "__add__",
    }
    assert not eval(check, ns).passed
    solution(check, body, ns, out=lambda text: None)
    again = eval(check, ns)  # the check cell run again, on the solution's names
    assert again.passed and not again.by_solution
    ns.update(broken_in_A="__mul__", broken_in_B="__pow__", broken_in_C="__add__")
    mine = eval(check, ns)  # the learner's cell, fixed, then its check
    assert mine.passed and "solution" not in mine.title
    report = ch08.checkpoint(correct_checker)
    assert "✓ three broken classes" in str(report)


def test_mystery_diagnosis_is_an_exercise_that_says_what_each_wrong_name_is():
    report = ch08.check_mysteries("x * y", "__truediv__", "exp(x)")
    assert [r.passed for r in report.results] == [True, False, False]
    assert "no closure of its own" in str(report)
    assert "that method of mystery C is fine" in str(report)
    assert "has no method named 'foo'" in str(ch08.check_mysteries("foo", None, None))
    assert "not answered yet" in str(ch08.check_mysteries(None, None, None))


def test_the_learners_checker_catches_every_mystery_on_its_probe():
    for letter, value_class in ch08.MYSTERIES.items():
        f, inputs = ONE_OPERATION[EXPECTED_BROKEN[letter]]
        assert not correct_checker(f, inputs, value_class)
        assert correct_checker(f, inputs, stage(8))
