"""The article's worked examples, built with any Value class, and the numbers they must give.

The course grows from an article whose examples have exact, known answers. Tests, checks,
drawings and explorers rebuild those examples again and again; this module is the one place
that builds them, so every one of them builds the same graph, in the same order, with the same
labels. Each builder takes the class to build with: the package's engines, a chapter's stage, a
learner's own class, or anything that is called as `Value(number, label=name)` and supports the
operators the example uses (even a function that makes PyTorch tensors).

    >>> from autograd import Value
    >>> nodes = neuron(Value)
    >>> nodes["o"].backward()
    >>> [round(nodes[name].grad, 12) for name in ("w1", "w2", "x1", "x2")]
    [1.0, 0.0, -1.5, 0.5]

The article's neuron, `o = tanh(x1·w1 + x2·w2 + b)`: the bias is chosen so that
n = 2·(−3) + 0·1 + b = 0.8813735870195432 = asinh(1), hence o = tanh(n) = 1/√2 and
do/dn = 1 − o² = 1/2. A sum passes its gradient on unchanged and a product gives each factor the
other factor times the gradient above, so dw1 = x1/2 = 1, dw2 = x2/2 = 0, dx1 = w1/2 = −1.5,
dx2 = w2/2 = 0.5 and db = 1/2.

The expression of the operators chapter, `L = (a·b + c)·f` at a = 2, b = −3, c = 10, f = −2:
e = a·b = −6, d = e + c = 4, L = d·f = −8; dL/dd = f = −2 flows unchanged to e and c, so
dL/da = −2·b = 6, dL/db = −2·a = −4, dL/dc = −2, and dL/df = d = 4.

Standard library only (it needs nothing at all): `import autograd` must stay that light.
"""

__all__ = [
    "NEURON",
    "NEURON_DATA",
    "NEURON_GRADS",
    "neuron",
    "neuron_output",
    "EXPRESSION",
    "EXPRESSION_DATA",
    "EXPRESSION_GRADS",
    "expression",
]

# ----------------------------------------------------------------------------- the neuron

# The leaves, in the article's order: inputs x1, x2; weights w1, w2; bias b.
NEURON = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}

# Every node of the graph `neuron` builds, by its label: its value, then its gradient after
# `o.backward()` (worked out in the module's docstring). These are the mathematics' numbers;
# floating point gets within 1e-12 of them (o.data is 0.7071067811865477, dw1 0.9999999999999996).
NEURON_DATA = {
    "x1": 2.0,
    "x2": 0.0,
    "w1": -3.0,
    "w2": 1.0,
    "b": 6.8813735870195432,
    "x1*w1": -6.0,
    "x2*w2": 0.0,
    "x1*w1 + x2*w2": -6.0,
    "n": 0.8813735870195432,
    "o": 0.7071067811865476,
}
NEURON_GRADS = {
    "x1": -1.5,
    "x2": 0.5,
    "w1": 1.0,
    "w2": 0.0,
    "b": 0.5,
    "x1*w1": 0.5,
    "x2*w2": 0.5,
    "x1*w1 + x2*w2": 0.5,
    "n": 0.5,
    "o": 1.0,
}


def neuron_output(x1, x2, w1, w2, b):
    """The neuron's formula on five values (of any kind): `tanh(x1·w1 + x2·w2 + b)`."""
    return (x1 * w1 + x2 * w2 + b).tanh()


def neuron(Value, **numbers):
    """The article's neuron built with `Value`: a dict from label to node, every node labelled.

    The labels are the keys of `NEURON_DATA`, leaves first, then each operation in the order
    it is built: "x1*w1", "x2*w2", "x1*w1 + x2*w2", "n" and "o". Nothing is run backward: call
    `nodes["o"].backward()` when you want the gradients. `numbers` replaces the value of any
    leaf, e.g. `neuron(Value, b=6.0)`.
    """
    unknown = sorted(set(numbers) - set(NEURON))
    if unknown:
        raise TypeError(
            f"the neuron's leaves are {', '.join(NEURON)}; there is no {', '.join(unknown)}"
        )
    nodes = {name: Value(x, label=name) for name, x in {**NEURON, **numbers}.items()}
    x1, x2, w1, w2, b = (nodes[name] for name in NEURON)
    _add(nodes, "x1*w1", x1 * w1)
    _add(nodes, "x2*w2", x2 * w2)
    _add(nodes, "x1*w1 + x2*w2", nodes["x1*w1"] + nodes["x2*w2"])
    _add(nodes, "n", nodes["x1*w1 + x2*w2"] + b)
    _add(nodes, "o", nodes["n"].tanh())
    return nodes


# ----------------------------------------------------------------------------- L = (a·b + c)·f

EXPRESSION = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}
EXPRESSION_DATA = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0, "e": -6.0, "d": 4.0, "L": -8.0}
EXPRESSION_GRADS = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0, "e": -2.0, "d": -2.0, "L": 1.0}


def expression(Value, **numbers):
    """`L = (a·b + c)·f` built with `Value`: a dict from label to node ("a", "b", "c", "f", then
    e = a·b, d = e + c and L = d·f), every node labelled, nothing run backward."""
    unknown = sorted(set(numbers) - set(EXPRESSION))
    if unknown:
        raise TypeError(
            f"the expression's leaves are {', '.join(EXPRESSION)}; there is no {', '.join(unknown)}"
        )
    nodes = {name: Value(x, label=name) for name, x in {**EXPRESSION, **numbers}.items()}
    _add(nodes, "e", nodes["a"] * nodes["b"])
    _add(nodes, "d", nodes["e"] + nodes["c"])
    _add(nodes, "L", nodes["d"] * nodes["f"])
    return nodes


def _add(nodes, label, node):
    node.label = label
    nodes[label] = node
