"""The exercise checks of chapters 06-08 judge an attempt correctly and explain it in words."""
import math

import pytest

from autograd.checks import ch06, ch08
from autograd.gradcheck import gradcheck
from autograd.stages import stage

# ---------------------------------------------------------------- chapter 6


def test_unanswered_dx1_does_not_give_the_answer_away():
    report = ch06.check_dx1_by_hand(None)
    assert not report.passed
    assert "no answer yet" in str(report) and "1.5" not in str(report)
    assert ch06.check_dx1_by_hand(-1.5).passed


def test_reached_target_accepts_the_output_as_a_number_or_a_value():
    Value = stage(6)
    assert ch06.check_reached_target(0.505).passed
    assert ch06.check_reached_target(Value(0.495)).passed
    assert not ch06.check_reached_target(0.7071).passed


def test_descent_history_matches_one_step_worked_by_hand():
    # o = 1/√2 at the start, so dL/dn = 2·o·(1 − o²) = 1/√2 for the target 0; the step moves
    # w1 by −η·x1·dL/dn and b by −η·dL/dn, so n moves by −η·(x1² + 1)·dL/dn = −5η/√2.
    lr = 0.05
    n0 = 2.0 * -3.0 + 6.8813735870195432
    n1 = n0 - lr * 5 / math.sqrt(2)
    losses = ch06.descent_history(lr, 1, 0.0)
    assert losses[0] == pytest.approx(0.5, abs=1e-12)
    assert losses[1] == pytest.approx(math.tanh(n1) ** 2, abs=1e-12)


def train_neuron_with_the_engine(learning_rate, steps, target, zero_grads):
    """The chapter's training loop, written against the engine (not the check's floats)."""
    Value = stage(6)
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
    losses = []
    for step in range(steps + 1):
        if zero_grads:
            for p in (w1, w2, b):
                p.grad = 0.0
        loss = ((x1 * w1 + x2 * w2 + b).tanh() - target) ** 2
        losses.append(loss.data)
        if step < steps:
            loss.backward()
            for p in (w1, w2, b):
                p.data -= learning_rate * p.grad
    return losses


def test_skipped_zero_grad_passes_only_the_forgetful_run_and_the_right_prediction():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    zeroed = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=True)
    assert forgetful[1] == pytest.approx(zeroed[1])  # the first step cannot tell them apart
    assert ch06.check_skipped_zero_grad("swings", forgetful, learning_rate=0.05, target=0.0).passed
    assert ch06.check_skipped_zero_grad(" Swings", forgetful, learning_rate=0.05,
                                        target=0.0).passed

    report = ch06.check_skipped_zero_grad("swings", zeroed, learning_rate=0.05, target=0.0)
    assert not report.passed and "`zero_grads=False`" in str(report)
    report = ch06.check_skipped_zero_grad("same", forgetful, learning_rate=0.05, target=0.0)
    assert [r.passed for r in report.results] == [False, True]


def test_skipped_zero_grad_explains_unfinished_and_mismatched_attempts():
    report = ch06.check_skipped_zero_grad(None, None, learning_rate=0.05, target=0.0)
    assert "no prediction yet" in str(report) and "no losses yet" in str(report)
    report = ch06.check_skipped_zero_grad("maybe", None, learning_rate=0.05, target=0.0)
    assert "choose one of" in str(report)
    short = train_neuron_with_the_engine(0.05, 3, 0.0, zero_grads=False)
    assert "at least 10 steps" in str(
        ch06.check_skipped_zero_grad("swings", short, learning_rate=0.05, target=0.0))
    other_rate = train_neuron_with_the_engine(0.2, 30, 0.0, zero_grads=False)
    message = str(ch06.check_skipped_zero_grad("swings", other_rate, learning_rate=0.05,
                                               target=0.0))
    assert "after 1 steps without zeroing" in message and "learning rate 0.05" in message


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
    failing = [name for name, (f, inputs) in ONE_OPERATION.items()
               if not gradcheck(f, inputs, value_class=value_class)]
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


def test_gradient_checker_exercise_passes_a_fair_checker_and_explains_the_stub():
    assert ch08.check_gradient_checker(correct_checker).passed
    stub = ch08.check_gradient_checker(lambda f, inputs, value_class: None)
    assert not stub.passed and "forget to `return`" in str(stub)
    always_true = ch08.check_gradient_checker(lambda f, inputs, value_class: True)
    assert [r.passed for r in always_true.results] == [True, False]


def test_the_learners_checker_catches_every_mystery_on_its_probe():
    for letter, value_class in ch08.MYSTERIES.items():
        f, inputs = ONE_OPERATION[EXPECTED_BROKEN[letter]]
        assert not correct_checker(f, inputs, value_class)
        assert correct_checker(f, inputs, stage(8))
