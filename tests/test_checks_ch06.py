"""Chapter 06's checks (`autograd.checks.ch06`): the exercises on training the article's neuron
judge an attempt correctly and explain it in words, and the checkpoint fails honestly."""

import math
from fractions import Fraction

import pytest

from autograd import Value
from autograd.checks import ch06, checkpoint
from autograd.stages import stage

from checks_support import failure_message, result, tanh_with_slope_one_minus_t


# ---------------------------------------------------------------- chapter 6 fails honestly


def test_checkpoint_six_catches_a_wrong_tanh_derivative_in_the_neuron():
    report = checkpoint(6, stage(6, tanh=tanh_with_slope_one_minus_t))
    assert result(report, "o = 0.7071067811865476").passed  # the forward pass is right
    message = failure_message(report, "the article's gradients")
    assert message.startswith("after `o.backward()`, `w1.grad` should be 1.0 but was")


def test_checkpoint_six_needs_backward():
    assert "has no attribute 'backward'" in failure_message(
        checkpoint(6, stage(4)), "the article's gradients"
    )


def test_chapter_six_exercise_checks():
    assert ch06.check_dx1_by_hand(-1.5).passed
    first = str(ch06.check_dx1_by_hand(1.5))  # a hint first, never the number
    assert "1.5 is not it: the size is right but the sign is off" in first and "-1.5" not in first
    assert "The answer is -1.5" in str(ch06.check_dx1_by_hand(1.5))
    _, start = ch06.neuron(stage(6))
    _, o = ch06.neuron(stage(6), b=6 + math.atanh(0.5))  # n = −6 + b, so o = tanh(n) = 0.5
    assert ch06.check_reached_target(0.2, 1, [start.data, o.data]).passed
    assert not ch06.check_reached_target(0.2, 1, [start.data, start.data]).passed


# ---------------------------------------------------------------- chapter 6


def test_unanswered_dx1_does_not_give_the_answer_away():
    report = ch06.check_dx1_by_hand(None)
    assert not report.passed
    assert "not answered yet" in str(report) and "1.5" not in str(report)
    assert ch06.check_dx1_by_hand(-1.5).passed


def test_dx1_gets_a_hint_first_and_the_answer_after_a_second_wrong_try():
    first = str(ch06.check_dx1_by_hand(-3))
    assert "that is w1 alone" in first and "1 − o²" in first and "-1.5" not in first
    assert "Try again" in first
    second = str(ch06.check_dx1_by_hand(0.5))
    assert "The answer is -1.5" in second and "w1·(1 − o²)" in second
    assert ch06.check_dx1_by_hand(-1.5).passed


@pytest.mark.parametrize(
    "answer,words",
    [
        (-3, "that is w1 alone"),
        (0.5, "the tanh's local derivative alone"),
        (1.5, "the sign is off"),
        (1.0, "that is ∂o/∂w1"),
        (-6, "the product's value"),
        (-0.75, "follow the path from o back to x1"),
    ],
)
def test_dx1_names_what_each_wrong_number_is(answer, words):
    message = str(ch06.check_dx1_by_hand(answer))
    assert words in message and "-1.5" not in message  # the hint, never the answer


@pytest.mark.parametrize("answer", [True, Value(-1.5), "-1.5", [-1.5]])
def test_dx1_asks_for_a_plain_number_for_a_bool_a_value_or_a_string(answer):
    # True is an int to Python, and a Value prints as a number: neither is the plain number
    # the question asks for
    message = str(ch06.check_dx1_by_hand(answer))
    assert "should be a number" in message
    assert ch06.check_dx1_by_hand(-1.5).passed


@pytest.mark.parametrize("answer", [Fraction(-3, 2), -1.5000000001])
def test_dx1_takes_any_real_number_close_to_the_answer(answer):
    assert ch06.check_dx1_by_hand(answer).passed


def train_outputs(learning_rate, steps, target=0.5):
    """The chapter's `train`, on the engine: (losses, outputs)."""
    Value = stage(6)
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
    losses, outputs = [], []
    for step in range(steps + 1):
        for p in (w1, w2, b):
            p.grad = 0.0
        o = (x1 * w1 + x2 * w2 + b).tanh()
        loss = (o - target) ** 2
        losses.append(loss.data)
        outputs.append(o.data)
        if step < steps:
            loss.backward()
            for p in (w1, w2, b):
                p.data -= learning_rate * p.grad
    return losses, outputs


def target_message(learning_rate, steps, outputs=None):
    if outputs is None:
        outputs = train_outputs(learning_rate, steps)[1]
    report = ch06.check_reached_target(learning_rate, steps, outputs)
    assert not report.passed
    return report.results[0].message


def test_reached_target_passes_a_run_that_arrives():
    for learning_rate, steps in ((0.2, 20), (0.05, 40), (0.3, 3)):
        assert ch06.check_reached_target(
            learning_rate, steps, train_outputs(learning_rate, steps)[1]
        ).passed


def test_the_checks_replay_on_floats_agrees_with_the_engine():
    for learning_rate, steps, target in (
        (0.2, 20, 0.5),
        (0.5, 20, 0.5),
        (5.0, 20, 0.5),
        (0.2, 20, 0.0),
    ):
        losses, outputs = train_outputs(learning_rate, steps, target)
        want_losses, want_outputs = ch06.training_history(learning_rate, steps, target)
        assert outputs == pytest.approx(want_outputs, rel=1e-9, abs=1e-9)
        assert losses == pytest.approx(want_losses, rel=1e-9, abs=1e-9)


def test_reached_target_untouched_stub_is_not_answered_yet():
    report = ch06.check_reached_target(0.0, 0, train_outputs(0.0, 0)[1])
    assert not report.passed and "not answered yet" in str(report)


def test_reached_target_says_the_tuple_from_train_was_kept_whole():
    # Once a trap: `my_outputs = train(...)` keeps the pair; the old check said "take more steps,
    # or a larger learning rate" about a list
    message = target_message(0.2, 20, train_outputs(0.2, 20))
    assert "the pair `(losses, outputs)`" in message
    assert "`my_losses, my_outputs = train(...)`" in message
    assert "larger" not in message and "more steps" not in message


def test_reached_target_tells_a_diverging_learning_rate_to_shrink_not_grow():
    # A message that misled, before: a learning rate that diverged was told "a larger
    # learning rate"
    for learning_rate in (0.5, 0.7, 1.0, 5.0):
        message = target_message(learning_rate, 20)
        assert "too large" in message and "take a smaller learning rate" in message
        assert "take more steps" not in message and "or a larger learning rate" not in message
    assert "near ±1, where the tanh is flat" in target_message(5.0, 20)
    assert "swings around 0.5 without settling" in target_message(0.4, 20)


def test_reached_target_names_the_other_ways_to_miss():
    assert "learning rate of 0" in target_message(0.0, 20)
    assert "uphill" in target_message(-0.2, 20)
    assert "only measures the output" in target_message(0.2, 0)
    for learning_rate, steps in ((0.05, 3), (0.001, 20)):
        message = target_message(learning_rate, steps)
        assert "not far enough yet: take more steps, or a larger learning rate" in message
    losses, outputs = train_outputs(0.2, 20)
    assert "holds the losses, not the outputs" in target_message(0.2, 20, losses)
    towards_zero = train_outputs(0.2, 20, target=0.0)[1]
    assert "training towards 0" in target_message(0.2, 20, towards_zero)


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
    assert ch06.check_skipped_zero_grad(" Swings", forgetful, learning_rate=0.05, target=0.0).passed

    report = ch06.check_skipped_zero_grad("swings", zeroed, learning_rate=0.05, target=0.0)
    assert not report.passed and "`zero_grads=False`" in str(report)
    report = ch06.check_skipped_zero_grad("same", forgetful, learning_rate=0.05, target=0.0)
    assert [r.passed for r in report.results] == [False, True]


def test_skipped_zero_grad_explains_unfinished_and_mismatched_attempts():
    report = ch06.check_skipped_zero_grad(None, None, learning_rate=0.05, target=0.0)
    assert "not answered yet" in str(report) and "swings" not in str(report)
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    report = ch06.check_skipped_zero_grad(None, forgetful, learning_rate=0.05, target=0.0)
    assert "no prediction yet" in str(report)
    report = ch06.check_skipped_zero_grad("maybe", None, learning_rate=0.05, target=0.0)
    assert "choose one of" in str(report) and "no losses yet" in str(report)
    short = train_neuron_with_the_engine(0.05, 3, 0.0, zero_grads=False)
    assert "at least 10 steps" in str(
        ch06.check_skipped_zero_grad("swings", short, learning_rate=0.05, target=0.0)
    )
    other_rate = train_neuron_with_the_engine(0.2, 30, 0.0, zero_grads=False)
    message = str(
        ch06.check_skipped_zero_grad("swings", other_rate, learning_rate=0.05, target=0.0)
    )
    assert "after 1 step without zeroing" in message and "learning rate 0.05" in message


def test_skipped_zero_grad_says_the_tuple_from_train_was_kept_whole():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    outputs = [0.0] * len(forgetful)  # whatever: `train` returns (losses, outputs)
    message = str(
        ch06.check_skipped_zero_grad("swings", (forgetful, outputs), learning_rate=0.05, target=0.0)
    )
    assert "the pair `(losses, outputs)`" in message and "at least 10 steps" not in message


def test_skipped_zero_grad_hints_before_it_reveals_the_prediction():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    zeroed = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=True)
    first = ch06.check_skipped_zero_grad("same", forgetful, learning_rate=0.05, target=0.0)
    assert "from the second step on" in str(first) and "swing" not in str(first).lower()
    # a wrong try on the losses alone does not count against the prediction
    ch06.check_skipped_zero_grad("swings", zeroed, learning_rate=0.05, target=0.0)
    second = ch06.check_skipped_zero_grad("slower", forgetful, learning_rate=0.05, target=0.0)
    assert 'The answer is "swings"' in str(second)
    assert ch06.check_skipped_zero_grad("swings", forgetful, learning_rate=0.05, target=0.0).passed


def test_skipped_zero_grad_hint_for_slower():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    message = str(ch06.check_skipped_zero_grad("slower", forgetful, learning_rate=0.05, target=0.0))
    assert "nothing here makes the steps smaller" in message and "The answer" not in message
