"""Chapter 6 · Training a neuron — checkpoint and exercise checks.

What the chapter asks for: a Value class with everything so far (operators, `tanh`,
`backward()`) that reproduces the article's neuron exactly,

    x1 = 2, x2 = 0, w1 = −3, w2 = 1, b = 6.8813735870195432,
    o = tanh(x1·w1 + x2·w2 + b) = 0.7071067811865476 (that is 1/√2),

with dL/dw1 = x1·(1 − o²) = 1.0, dL/dw2 = x2·(1 − o²) = 0.0, dL/dx1 = w1·(1 − o²) = −1.5 and
dL/dx2 = w2·(1 − o²) = 0.5; and gradient descent on (o − 0.5)² that lowers the loss.
"""

from . import check, check_answer, expect, expect_close, run_checks

__all__ = ["checkpoint", "neuron", "check_dx1_by_hand", "check_reached_target", "ARTICLE"]

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
    return check_answer("dL/dx1 for the article's neuron", answer, -1.5,
                        hint="dL/dx1 = w1·(1 − o²), with w1 = −3 and o² = 1/2")


def check_reached_target(o, target=0.5, tol=0.01):
    """Exercise: gradient descent drove the neuron's output `o` to within `tol` of `target`."""
    return check_answer(f"the neuron's output after training (target {target:g})", o.data,
                        target, tol=tol,
                        hint="take more steps, or a larger learning rate; remember to zero the "
                             "gradients before each backward()")
