"""Chapter 6 · Training a neuron — checkpoint and exercise checks.

What the chapter asks for: a Value class with everything so far (operators, `tanh`,
`backward()`) that reproduces the article's neuron exactly,

    x1 = 2, x2 = 0, w1 = −3, w2 = 1, b = 6.8813735870195432,
    o = tanh(x1·w1 + x2·w2 + b) = 0.7071067811865476 (that is 1/√2),

with dL/dw1 = x1·(1 − o²) = 1.0, dL/dw2 = x2·(1 − o²) = 0.0, dL/dx1 = w1·(1 − o²) = −1.5 and
dL/dx2 = w2·(1 − o²) = 0.5; and gradient descent on (o − 0.5)² that lowers the loss.
"""

import math

from . import check, check_answer, expect, expect_close, fail, run_checks, show

__all__ = ["checkpoint", "neuron", "check_dx1_by_hand", "check_reached_target",
           "check_skipped_zero_grad", "descent_history", "ARTICLE", "ZERO_GRAD_ANSWERS"]

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
    expect_close(o.data, 0.7071067811865476, "`o.data`", tol=TOL,
                 hint="o = tanh(2·(−3) + 0·1 + 6.8813735870195432) = tanh(0.8813735870195432), "
                      "which is 1/√2")


@check("the article's gradients: dw1 = 1.0, dw2 = 0.0, dx1 = −1.5, dx2 = 0.5, db = 0.5")
def neuron_gradients(Value):
    leaves, o = neuron(Value)
    o.backward()
    # 1 − o² = 1/2, so each gradient is the other factor of its product, halved.
    for name, grad, rule in (("w1", 1.0, "x1·(1 − o²) = 2·0.5"),
                             ("w2", 0.0, "x2·(1 − o²), and x2 = 0"),
                             ("x1", -1.5, "w1·(1 − o²) = −3·0.5"),
                             ("x2", 0.5, "w2·(1 − o²) = 1·0.5"),
                             ("b", 0.5, "1 − o²")):
        expect_close(leaves[name].grad, grad, f"after `o.backward()`, `{name}.grad`", tol=TOL,
                     hint=f"do{name} = {rule}")


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
    expect(after.data < before,
           f"after one step `p.data -= 0.1 * p.grad` on w1, w2 and b, the loss should be lower "
           f"than {before!r}, but was {after.data!r}: check the sign of the step and the "
           "gradients of `-` and `**`")


CHECKPOINT = [neuron_output, neuron_gradients, descent_step]


def checkpoint(Value):
    """Chapter 6's specification, run on the learner's Value class."""
    return run_checks("Chapter 6 checkpoint: training a neuron", CHECKPOINT, Value)


# --------------------------------------------------------------------- exercises


def check_dx1_by_hand(answer):
    """Exercise: dL/dx1 for the article's neuron, worked by hand (−1.5)."""
    if answer is None:  # say what to do, and keep the number to ourselves

        @check("dL/dx1 for the article's neuron")
        def answered():
            fail("no answer yet: replace `None` with the number you expect `x1.grad` to hold")

        return run_checks("Your answer", [answered])
    return check_answer("dL/dx1 for the article's neuron", answer, -1.5,
                        hint="dL/dx1 = w1·(1 − o²), with w1 = −3 and o² = 1/2")


def check_reached_target(o, target=0.5, tol=0.01):
    """Exercise: gradient descent drove the neuron's output `o` (a value, or its number) to
    within `tol` of `target`."""
    got = o.data if hasattr(o, "data") else o
    return check_answer(f"the neuron's output after training (target {target:g})", got,
                        target, tol=tol,
                        hint="take more steps, or a larger learning rate; remember to zero the "
                             "gradients before each backward()")


# The skipped-zero_grad exercise. Its expected losses come from the neuron's derivatives written
# out by hand on plain floats, so the check shares no code with the learner's Value class:
#   o = tanh(x1·w1 + x2·w2 + b),  dL/dn = 2(o − target)(1 − o²),
#   dL/dw1 = x1·dL/dn,  dL/dw2 = x2·dL/dn,  dL/db = dL/dn.

ZERO_GRAD_ANSWERS = ("same", "slower", "swings")


def descent_history(learning_rate, steps, target, zero_grads=True):
    """The losses (o − target)² after 0, 1, ..., `steps` gradient-descent steps on w1, w2, b
    from the article's numbers; without `zero_grads`, each step uses the sum of every gradient
    so far, as `p.grad` does when nobody resets it."""
    x1, x2, w1, w2, b = (ARTICLE[k] for k in ("x1", "x2", "w1", "w2", "b"))
    g_w1 = g_w2 = g_b = 0.0
    losses = []
    for step in range(steps + 1):
        o = math.tanh(x1 * w1 + x2 * w2 + b)
        losses.append((o - target) ** 2)
        if step == steps:
            break
        dn = 2 * (o - target) * (1 - o * o)
        if zero_grads:
            g_w1 = g_w2 = g_b = 0.0
        g_w1, g_w2, g_b = g_w1 + x1 * dn, g_w2 + x2 * dn, g_b + dn
        w1, w2, b = w1 - learning_rate * g_w1, w2 - learning_rate * g_w2, b - learning_rate * g_b
    return losses


def _first_difference(got, expected, tol=1e-9):
    """The first step at which two loss histories differ, or None."""
    for k, (g, e) in enumerate(zip(got, expected)):
        if not (isinstance(g, (int, float)) and math.isclose(g, e, rel_tol=tol, abs_tol=tol)):
            return k
    return None


def check_skipped_zero_grad(prediction, losses, *, learning_rate, target):
    """Exercise: predict what skipping the zero step does ("same", "slower" or "swings"), then
    show it: `losses` after 0, 1, ... steps of training that never zeroes the gradients."""

    @check("your prediction: what the loss does when the gradients are never zeroed")
    def predicted():
        answer = prediction.strip().lower() if isinstance(prediction, str) else prediction
        if answer is None:
            fail("no prediction yet: put \"same\", \"slower\" or \"swings\" in `my_prediction`")
        expect(answer in ZERO_GRAD_ANSWERS,
               f"choose one of \"same\", \"slower\" or \"swings\", not {show(prediction)}")
        expect(answer == "swings",
               f"you predicted {answer!r}; without zeroing, step k uses the sum of the gradients "
               "of steps 1 to k, so the parameters keep moving the way they moved before, even "
               "after the output has passed the target: run it and look at the curve")

    @check("your losses come from training that never zeroes the gradients")
    def shown():
        if losses is None:
            fail("no losses yet: train with step 1 switched off (`zero_grads=False`) and keep "
                 "the losses in `forgetful_losses`")
        try:
            got = list(losses)
        except TypeError:
            fail(f"`forgetful_losses` should be a list of numbers, but was {show(losses)}")
        expect(len(got) >= 11, f"train for at least 10 steps to see what happens (the list "
                               f"holds {len(got)} losses, one more than the steps)")
        steps = len(got) - 1
        if _first_difference(got, descent_history(learning_rate, steps, target)) is None:
            fail("these are the losses of training that *does* zero the gradients: switch "
                 "step 1 off with `zero_grads=False`")
        k = _first_difference(got, descent_history(learning_rate, steps, target, False))
        if k is not None:
            expected = descent_history(learning_rate, k, target, False)[k]
            fail(f"after {k} steps without zeroing, the loss should be {expected!r} but was "
                 f"{show(got[k])}: did you train from the article's numbers with learning "
                 f"rate {learning_rate!r} and target {target!r}?")

    return run_checks("Exercise: skipping zero_grad", [predicted, shown])
