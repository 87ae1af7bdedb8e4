"""Chapter 6 · Training a neuron — checkpoint and exercise checks.

What the chapter asks for: a Value class with everything so far (operators, `tanh`,
`backward()`) that reproduces the article's neuron exactly,

    x1 = 2, x2 = 0, w1 = −3, w2 = 1, b = 6.8813735870195432,
    o = tanh(x1·w1 + x2·w2 + b) = 0.7071067811865476 (that is 1/√2),

with dL/dw1 = x1·(1 − o²) = 1.0, dL/dw2 = x2·(1 − o²) = 0.0, dL/dx1 = w1·(1 − o²) = −1.5 and
dL/dx2 = w2·(1 − o²) = 0.5; and gradient descent on (o − 0.5)² that lowers the loss.
"""

import math

from .toolbox import (
    Exercise,
    Prediction,
    SameArguments,
    check,
    declare_checkpoint,
    expect,
    expect_close,
    fail,
    is_int,
    is_number,
    show,
)

__all__ = [
    "checkpoint",
    "neuron",
    "check_dx1_by_hand",
    "check_reached_target",
    "check_skipped_zero_grad",
    "descent_history",
    "training_history",
    "ARTICLE",
    "ZERO_GRAD_ANSWERS",
]

ARTICLE = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}
TOL = 1e-12


def neuron(Value, **numbers):
    """The article's neuron built with `Value`; returns (leaves by name, output o)."""
    leaves = {name: Value(x, label=name) for name, x in {**ARTICLE, **numbers}.items()}
    n = leaves["x1"] * leaves["w1"] + leaves["x2"] * leaves["w2"] + leaves["b"]
    return leaves, n.tanh()


@check("the article's neuron: o = 0.7071067811865476")
def neuron_output(Value):
    _, o = neuron(Value)
    expect_close(
        o.data,
        0.7071067811865476,
        "`o.data`",
        tol=TOL,
        hint="o = tanh(2·(−3) + 0·1 + 6.8813735870195432) = tanh(0.8813735870195432), "
        "which is 1/√2",
    )


@check("the article's gradients: dw1 = 1.0, dw2 = 0.0, dx1 = −1.5, dx2 = 0.5, db = 0.5")
def neuron_gradients(Value):
    leaves, o = neuron(Value)
    o.backward()
    # 1 − o² = 1/2, so each gradient is the other factor of its product, halved.
    for name, grad, rule in (
        ("w1", 1.0, "x1·(1 − o²) = 2·0.5"),
        ("w2", 0.0, "x2·(1 − o²), and x2 = 0"),
        ("x1", -1.5, "w1·(1 − o²) = −3·0.5"),
        ("x2", 0.5, "w2·(1 − o²) = 1·0.5"),
        ("b", 0.5, "1 − o²"),
    ):
        expect_close(
            leaves[name].grad,
            grad,
            f"after `o.backward()`, `{name}.grad`",
            tol=TOL,
            hint=f"do{name} = {rule}",
        )


@check("one gradient-descent step on (o − 0.5)² lowers the loss")
def descent_step(Value):
    leaves, o = neuron(Value)
    loss = (o - 0.5) ** 2
    before = loss.data
    loss.backward()
    for name in ("w1", "w2", "b"):
        leaves[name].data -= 0.1 * leaves[name].grad
    x1, x2, w1, w2, b = (leaves[k] for k in ("x1", "x2", "w1", "w2", "b"))
    after = ((x1 * w1 + x2 * w2 + b).tanh() - 0.5) ** 2
    expect(
        after.data < before,
        f"after one step `p.data -= 0.1 * p.grad` on w1, w2 and b, the loss should be lower "
        f"than {show(before)}, but was {show(after.data)}: check the sign of the step and the "
        "gradients of `-` and `**`",
    )


CHECKPOINT = [neuron_output, neuron_gradients, descent_step]


@declare_checkpoint(6, "Chapter 6 checkpoint: training a neuron", CHECKPOINT)
def checkpoint(Value):
    """Chapter 6's specification, run on the learner's Value class."""


# --------------------------------------------------------------------- exercises


# ∂o/∂x1, predicted before looking: a hint first, the number after a second wrong try.

DX1 = Prediction(
    6,
    "∂o/∂x1 by hand",
    "∂o/∂x1 for the article's neuron",
    -1.5,
    hint="follow the path from o back to x1: first through the tanh, whose local derivative "
    "is 1 − o² (and o² = 1/2 here), then into the product x1·w1, whose local derivative "
    "with respect to x1 is the other factor. Multiply the two.",
    explain="the tanh contributes 1 − o² = 0.5, and the product x1·w1 contributes its other "
    "factor, w1 = −3: ∂o/∂x1 = w1·(1 − o²) = −3 · 0.5.",
    known_wrong=[
        (
            -3.0,
            "that is w1 alone, the product's local derivative; on its way to o the path "
            "also passes through the tanh, whose local derivative 1 − o² multiplies it.",
        ),
        (
            0.5,
            "that is 1 − o², the tanh's local derivative alone (it is also ∂o/∂x2, since "
            "w2 = 1); multiply it by the local derivative of x1·w1 with respect to x1.",
        ),
        (
            1.5,
            "the size is right but the sign is off: the local derivative of x1·w1 with "
            "respect to x1 is w1, and w1 is negative.",
        ),
        (
            1.0,
            "that is ∂o/∂w1 = x1·(1 − o²); for x1 the other factor of the product is w1, not x1.",
        ),
        (-6.0, "that is x1·w1, the product's value, not its slope."),
        (
            2.0,
            "that is x1's own value; the slope of x1·w1 with respect to x1 is the other "
            "factor, w1.",
        ),
    ],
    what="your `my_dx1`",
    todo="replace `None` with the number you expect `x1.grad` to hold, then run this check again",
)


def check_dx1_by_hand(answer):
    """Exercise: ∂o/∂x1 for the article's neuron, worked by hand (−1.5). The first wrong
    number gets a hint, the second the answer."""
    return DX1.check(answer)


# Driving the output to 0.5: the learner chooses a learning rate and a number of steps. The
# check replays the same training on plain floats (the neuron's derivatives written out by
# hand, sharing no code with the learner's class), so it can say what went wrong:
#   o = tanh(x1·w1 + x2·w2 + b),  dL/dn = 2(o − target)(1 − o²),
#   dL/dw1 = x1·dL/dn,  dL/dw2 = x2·dL/dn,  dL/db = dL/dn.

GOAL, GOAL_TOL = 0.5, 0.01


def training_history(learning_rate, steps, target, zero_grads=True):
    """(losses, outputs) after 0, 1, ..., `steps` gradient-descent steps on w1, w2, b from the
    article's numbers, as the chapter's `train` records them; without `zero_grads`, each step
    uses the sum of every gradient so far, as `p.grad` does when nobody resets it."""
    x1, x2, w1, w2, b = (ARTICLE[k] for k in ("x1", "x2", "w1", "w2", "b"))
    g_w1 = g_w2 = g_b = 0.0
    losses, outputs = [], []
    for step in range(steps + 1):
        o = math.tanh(x1 * w1 + x2 * w2 + b)
        losses.append((o - target) ** 2)
        outputs.append(o)
        if step == steps:
            break
        dn = 2 * (o - target) * (1 - o * o)
        if zero_grads:
            g_w1 = g_w2 = g_b = 0.0
        g_w1, g_w2, g_b = g_w1 + x1 * dn, g_w2 + x2 * dn, g_b + dn
        w1, w2, b = w1 - learning_rate * g_w1, w2 - learning_rate * g_w2, b - learning_rate * g_b
    return losses, outputs


def descent_history(learning_rate, steps, target, zero_grads=True):
    """The losses (o − target)² after 0, 1, ..., `steps` steps (see `training_history`)."""
    return training_history(learning_rate, steps, target, zero_grads)[0]


def _agree(got, expected, tol=1e-6):
    """Are two histories the same numbers (to `tol`, for the round-off of a different order
    of operations)?"""
    return (
        isinstance(got, (list, tuple))
        and len(got) == len(expected)
        and all(
            is_number(g) and math.isclose(g, e, rel_tol=tol, abs_tol=tol)
            for g, e in zip(got, expected)
        )
    )


def _is_pair_from_train(x):
    """Is `x` the `(losses, outputs)` pair that `train` returns, kept whole?"""
    return isinstance(x, tuple) and len(x) == 2 and all(isinstance(part, list) for part in x)


_UNPACK = (
    "`train` returns two lists, `(losses, outputs)`: unpack them into two names, "
    "`my_losses, my_outputs = train(...)`, as the stub does"
)


def _expect_an_answer_of_the_right_kind(learning_rate, steps, outputs):
    """Fail unless the learning rate is a number, the steps a whole number and the outputs a
    list of numbers (not the pair that `train` returns)."""
    if _is_pair_from_train(outputs):
        fail(
            f"`my_outputs` holds the pair `(losses, outputs)`, two lists, not the outputs: "
            f"{_UNPACK}"
        )
    if not is_number(learning_rate):
        fail(f"`my_learning_rate` should be a number, but was {show(learning_rate)}")
    if not is_int(steps) or steps < 0:
        fail(f"`my_steps` should be a whole number of steps, but was {show(steps)}")
    if not (isinstance(outputs, list) and outputs and all(is_number(o) for o in outputs)):
        fail(
            f"`my_outputs` should be the list of outputs that `train` returns second, but was "
            f"{show(outputs)}"
        )


def _expect_training_that_moves(learning_rate, steps, outputs, final):
    """Fail where the outputs are not a run towards 0.5 that moves: the losses, a run towards
    0, no steps, a learning rate of 0 or below. Returns what the failures start with."""
    losses, expected = training_history(learning_rate, steps, GOAL)
    if _agree(outputs, losses) and not _agree(outputs, expected):
        fail(f"`my_outputs` holds the losses, not the outputs: {_UNPACK}, in that order")
    said = (
        f"after {steps} step{'s' * (steps != 1)} at learning rate {learning_rate:g} the "
        f"output is {final:.4f}, not within {GOAL_TOL:g} of {GOAL:g}"
    )
    if not _agree(outputs, expected) and _agree(
        outputs, training_history(learning_rate, steps, 0.0)[1]
    ):
        fail(
            f"{said}: these outputs come from training towards 0, `train`'s default target; "
            "pass `target=0.5`, as the stub does"
        )
    if steps == 0:
        fail(
            f"{said}: with 0 steps `train` only measures the output, it never updates: "
            "choose a number of steps too"
        )
    if learning_rate == 0:
        fail(
            f"{said}: with a learning rate of 0 every update `p.data -= 0 * p.grad` is 0, so "
            "nothing ever moves: choose a learning rate above 0"
        )
    if learning_rate < 0:
        fail(
            f"{said}: a negative learning rate steps *uphill*, with the gradient instead of "
            "against it, so every step moves the output away from 0.5: the learning rate must "
            "be above 0"
        )
    return said


def _fail_for_the_way_it_missed(said, outputs):
    """Fail, saying how a run that moves missed 0.5: too short, diverged, or swinging."""
    final = outputs[-1]
    gaps = [o - GOAL for o in outputs]
    crossings = [k for k in range(1, len(gaps)) if gaps[k - 1] * gaps[k] < 0]
    if not crossings:
        fail(
            f"{said}: every step moved the output towards 0.5, but not far enough yet: take "
            "more steps, or a larger learning rate"
        )
    k = crossings[0]
    jump = f"step {k} threw the output from {outputs[k - 1]:.4f} to {outputs[k]:.4f}, past {GOAL:g}"
    far = next((j for j in range(1, len(gaps)) if abs(gaps[j]) > abs(gaps[0])), None)
    if far is not None:  # further from the target than it started: diverged
        worse = (
            f"{jump} and further from it than where it started"
            if far == k
            else f"{jump}, and by step {far} it was at {outputs[far]:.4f}, further from "
            f"{GOAL:g} than where it started"
        )
        stuck = (
            " It ended near ±1, where the tanh is flat, its gradient is almost 0, and the "
            "neuron barely moves any more."
            if abs(final) > 0.99
            else ""
        )
        fail(
            f"{said}: the learning rate is too large, and training diverged: {worse}.{stuck} "
            "More steps, or a larger rate, would only make it worse: take a smaller learning "
            "rate"
        )
    if abs(gaps[-1]) < abs(gaps[k]) and len(crossings) < 4:
        fail(
            f"{said}: {jump}, and it has been swinging around the target since, the swings "
            "shrinking slowly: take a smaller learning rate (or more steps)"
        )
    fail(
        f"{said}: the learning rate is too large: {jump}, and every step since jumps to the "
        "other side again, so it swings around 0.5 without settling: take a smaller "
        "learning rate"
    )


@check("the neuron's output ends within 0.01 of the target 0.5")
def reached_target(learning_rate, steps, outputs):
    _expect_an_answer_of_the_right_kind(learning_rate, steps, outputs)
    final = outputs[-1]
    if abs(final - GOAL) <= GOAL_TOL:
        return
    said = _expect_training_that_moves(learning_rate, steps, outputs, final)
    _fail_for_the_way_it_missed(said, outputs)


REACH_TARGET = Exercise(
    6,
    "drive the output to 0.5",
    [reached_target],
    what="your choice of learning rate and steps",
    answer_of=SameArguments(),
    unanswered=lambda answer: (
        answer[0] == 0 and answer[1] == 0 and not _is_pair_from_train(answer[2])
    ),
    todo="choose a learning rate and a number of steps, run the cell, then this check again",
)


def check_reached_target(learning_rate, steps, outputs):
    """Exercise: `train(learning_rate, steps, target=0.5)` drove the neuron's output
    (`outputs[-1]`, from the `(losses, outputs)` that `train` returns) to within 0.01 of 0.5.
    A failure says what the learning rate and the steps did: too few, too small, too large."""
    return REACH_TARGET.check(learning_rate, steps, outputs)


# The skipped-zero_grad exercise: a prediction (a hint first, the answer after a second wrong
# prediction), then the losses of a run that never zeroes.

ZERO_GRAD_ANSWERS = ("same", "slower", "swings")

_ZERO_GRAD_HINTS = {
    "same": "the first step is indeed the same, but from the second step on each update uses "
    "the sum of all the gradients so far, not just the latest. While they all point "
    "the same way, what does that sum do to the size of the steps, and what happens "
    "when the output reaches the target?",
    "slower": "nothing here makes the steps smaller: without zeroing, each step adds the "
    "latest gradient to all the earlier ones, so the steps grow while the gradients "
    "point the same way. What happens when growing steps reach the target?",
}
_ZERO_GRAD_ANSWER = (
    "it swings: without zeroing, step k uses the sum of the gradients of "
    "steps 1 to k, so the parameters keep moving the way they moved before, "
    "even after the output has passed the target, and they overshoot"
)


def _prediction(prediction):
    return prediction.strip().strip("\"'").lower() if isinstance(prediction, str) else prediction


@check("your prediction: what the loss does when the gradients are never zeroed")
def predicted(prediction, losses, learning_rate, target):
    answer = _prediction(prediction)
    if answer is None:
        fail('no prediction yet: put "same", "slower" or "swings" in `my_prediction`')
    expect(
        answer in ZERO_GRAD_ANSWERS,
        f'choose one of "same", "slower" or "swings", not {show(prediction)}',
    )
    if answer == "swings":
        return
    outcome = ZERO_GRAD.outcome()
    if getattr(outcome, "wrong_predictions", 0) >= 1:  # the second wrong prediction: say it
        fail(
            f'you predicted {show(answer)} again. The answer is "swings": {_ZERO_GRAD_ANSWER}. '
            "Run it and look at the curve below."
        )
    fail(
        f"you predicted {show(answer)}: {_ZERO_GRAD_HINTS[answer]} Try again: after a second "
        "wrong prediction this check shows the answer (or expand the solution below it)."
    )


@check("your losses come from training that never zeroes the gradients")
def shown(prediction, losses, learning_rate, target):
    if losses is None:
        fail(
            "no losses yet: train with step 1 switched off (`zero_grads=False`) and keep "
            "the losses in `forgetful_losses`"
        )
    if _is_pair_from_train(losses):
        fail(
            "`forgetful_losses` holds the pair `(losses, outputs)`, two lists, not the "
            "losses: `train` returns two lists, so unpack them, "
            "`forgetful_losses, forgetful_outputs = train(...)`"
        )
    try:
        got = list(losses)
    except TypeError:
        fail(f"`forgetful_losses` should be a list of numbers, but was {show(losses)}")
    expect(
        len(got) >= 11,
        f"train for at least 10 steps to see what happens (the list "
        f"holds {len(got)} losses, one more than the steps)",
    )
    steps = len(got) - 1
    if _first_difference(got, descent_history(learning_rate, steps, target)) is None:
        fail(
            "these are the losses of training that *does* zero the gradients: switch "
            "step 1 off with `zero_grads=False`"
        )
    k = _first_difference(got, descent_history(learning_rate, steps, target, False))
    if k is not None:
        expected = descent_history(learning_rate, k, target, False)[k]
        fail(
            f"after {k} step{'s' * (k != 1)} without zeroing, the loss should be "
            f"{expected:.6g} but was "
            f"{show(got[k])}: did you train from the article's numbers with learning "
            f"rate {show(learning_rate)} and target {show(target)}?"
        )


def _first_difference(got, expected, tol=1e-9):
    """The first step at which two loss histories differ, or None."""
    for k, (g, e) in enumerate(zip(got, expected)):
        if not (is_number(g) and math.isclose(g, e, rel_tol=tol, abs_tol=tol)):
            return k
    return None


class _PredictAndShow(Exercise):
    """The zero_grad exercise: counts wrong *predictions* apart from the other wrong tries, so
    that a learner whose losses were wrong is not shown the prediction's answer at once."""

    def check(self, *args):
        previous = self.outcome()
        before = previous.wrong_tries if previous else 0
        count = getattr(previous, "wrong_predictions", 0)
        report = super().check(*args)
        outcome = self.outcome()
        if outcome is not None and outcome is not previous:  # this check was remembered
            if outcome.wrong_tries > before and _prediction(args[0]) in ("same", "slower"):
                count += 1
            outcome.wrong_predictions = count
        return report


ZERO_GRAD = _PredictAndShow(
    6,
    "skipping zero_grad",
    [predicted, shown],
    what="your zero_grad experiment",
    answer_of=SameArguments(pick=2),
    unanswered=lambda answer: answer[0] is None and answer[1] is None,
    todo="put your prediction in `my_prediction` and the losses of a run with "
    "`zero_grads=False` in `forgetful_losses`, run the cell, then this check again",
)


def check_skipped_zero_grad(prediction, losses, *, learning_rate, target):
    """Exercise: predict what skipping the zero step does ("same", "slower" or "swings"), then
    show it: `losses` after 0, 1, ... steps of training that never zeroes the gradients."""
    return ZERO_GRAD.check(prediction, losses, learning_rate, target)
