"""Chapter 12's exercises: a Hessian-vector product, and `my_grad`, whose gradients are Values.

Each entry costs a run of the rest of the chapter after its exercise (a second or so), so the
catalogue keeps one entry per kind of mistake; tests/test_checks_ch12.py
covers more wrong answers, check by check.
"""

from . import Mistake

_MY_GRAD = """def my_grad(output, inputs):
    grads = {{id(output): Value(1.0)}}
    for node in reversed(topological_order(output)):
        if id(node) not in grads or not node._prev:
            continue
        g = grads[id(node)]
        if node._op == "+":
            parts = [{add}]
        elif node._op == "*":
            a, b = node._prev
            parts = [{mul}]
        elif node._op == "tanh":
            parts = [{tanh}]
        for child, part in zip(node._prev, parts):
{accumulate}
    return [grads.get(id(x), Value(0.0)) for x in inputs]
"""

_ADD_UP = (
    "            if id(child) in grads:\n"
    "                grads[id(child)] = grads[id(child)] + part\n"
    "            else:\n"
    "                grads[id(child)] = part"
)


def _my_grad(add="g, g", mul="b * g, a * g", tanh="(1 - node * node) * g", accumulate=_ADD_UP):
    return _MY_GRAD.format(add=add, mul=mul, tanh=tanh, accumulate=accumulate)


def _hvp(body):
    return f"def hvp(f, xs, v):\n    leaves = [Value(x) for x in xs]\n{body}\n"


MISTAKES = [
    # my_grad: each part added into grads, slopes built from the nodes, times g
    Mistake(
        "ch12.check_my_grad",
        "= for +=",
        _my_grad(accumulate="            grads[id(child)] = part"),
        ("assigns with `=` instead of adding with `+=`", "keeps only its last contribution"),
    ),
    Mistake(
        "ch12.check_my_grad",
        "missing upstream factor g",
        _my_grad(add="Value(1.0), Value(1.0)", mul="b, a", tanh="1 - node * node"),
        ("passes the local slope alone", "multiply it by `g`"),
    ),
    Mistake(
        "ch12.check_my_grad",
        "slopes from .data",
        _my_grad(mul="b.data * g, a.data * g", tanh="(1 - node.data ** 2) * g"),
        ("computed from `.data`", "not differentiable again"),
    ),
    Mistake(
        "ch12.check_my_grad",
        "factors of * swapped",
        _my_grad(mul="a * g, b * g"),
        ("gives each factor its own value as its slope", "`b`, the other factor"),
    ),
    Mistake(
        "ch12.check_my_grad",
        "tanh's slope from its input",
        _my_grad(tanh="(1 - node._prev[0] * node._prev[0]) * g"),
        ("the slope of tanh is built from its input", "`(1 - node * node) * g`"),
    ),
    # hvp: grad with create_graph=True, then grad of the sum of g_i * v_i
    Mistake(
        "ch12.check_hvp",
        "Values, not numbers",
        _hvp(
            "    g = grad(f(leaves), leaves, create_graph=True)\n"
            "    return grad(sum(gi * vi for gi, vi in zip(g, v)), leaves)"
        ),
        ("returned Values", "`[d.data for d in ...]`"),
    ),
    Mistake(
        "ch12.check_hvp",
        "no create_graph",
        _hvp(
            "    g = grad(f(leaves), leaves)\n"
            "    return [d.data for d in grad(sum(gi * vi for gi, vi in zip(g, v)), leaves)]"
        ),
        ("create_graph=True",),
    ),
    Mistake(
        "ch12.check_hvp",
        "the gradient returned",
        _hvp("    return [d.data for d in grad(f(leaves), leaves)]"),
        ("these are the first derivatives",),
    ),
    Mistake(
        "ch12.check_hvp",
        "v left out",
        _hvp(
            "    g = grad(f(leaves), leaves, create_graph=True)\n"
            "    return [d.data for d in grad(sum(g), leaves)]"
        ),
        ("H times a vector of ones",),
    ),
    # create_graph=True is there, but g · v is summed from the gradients' floats
    Mistake(
        "ch12.check_hvp",
        "g · v summed from .data",
        _hvp(
            "    g = grad(f(leaves), leaves, create_graph=True)\n"
            "    g_dot_v = sum(gi.data * vi for gi, vi in zip(g, v))\n"
            "    return [d.data for d in grad(g_dot_v, leaves)]"
        ),
        ("you pass `create_graph=True`", "a plain float", "a float left the graph"),
    ),
    Mistake(
        "ch12.check_hvp",
        "g · v made a new Value, allow_unused to silence grad",
        _hvp(
            "    g = grad(f(leaves), leaves, create_graph=True)\n"
            "    g_dot_v = Value(sum(gi.data * vi for gi, vi in zip(g, v)))\n"
            "    return [d.data for d in grad(g_dot_v, leaves, allow_unused=True)]"
        ),
        ("a new Value made from their numbers", "only turns that into gradients of 0"),
    ),
]
