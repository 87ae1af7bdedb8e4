"""Chapter 5 · Topological sort and backward() — checkpoint and exercise checks.

What the chapter asks for: `Value.backward()`, which orders the graph so that every node comes
after the nodes it was computed from (a topological sort, by depth-first search with an explicit
stack, so that a chain 100,000 nodes deep works at Python's default recursion limit of 1,000),
resets the gradients of the intermediate nodes (those with `_prev`: they are scratch space for
one pass), sets `self.grad = 1.0`, and calls each node's `_backward` in reverse order. Leaves'
gradients accumulate: calling `backward()` twice adds exactly one more copy to each leaf, as
the package's engine (and PyTorch) do.

The sort exercise asks for `sort(root)`: a list of every value `root` depends on (itself
included), each exactly once and after all of its children (`_prev`), so the root comes last.
"""

import contextlib
import math
import random
import sys

from . import (
    check, expect, expect_close, fail, reverse_topological_order, run_checks, show,
)

__all__ = ["checkpoint", "check_topological_sort", "check_order_prediction", "random_program",
           "DEPTH"]

DEPTH = 100_000  # deep enough that one Python frame per node is far beyond the limit
DEFAULT_RECURSION_LIMIT = 1000
SEEDS = range(5)


@contextlib.contextmanager
def default_recursion_limit():
    """Run the body at Python's default recursion limit, whatever the notebook set it to: a
    recursive sort must fail here as it would for a learner who never raised the limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def random_program(seed, n_inputs=3, n_steps=12):
    """A seeded random graph as (inputs, steps); each step is (op, i, j) on earlier nodes.

    Each step uses the node just before it (so every node reaches the output) and one earlier
    node chosen at random, so nodes are shared; the inputs are all used, input 0 twice.
    """
    rng = random.Random(seed)
    inputs = [rng.choice((-1, 1)) * rng.uniform(0.3, 1.5) for _ in range(n_inputs)]
    steps = [("+", n_inputs - 1, i) for i in range(n_inputs - 1)]
    for _ in range(n_steps):
        last = n_inputs + len(steps) - 1
        steps.append((rng.choice(("+", "*", "tanh")), last, rng.randrange(last + 1)))
    steps.append(("*", n_inputs + len(steps) - 1, 0))
    return inputs, steps


def build(Value, inputs, steps):
    """Run a program with the learner's operators; return (leaves, output)."""
    leaves = [Value(x) for x in inputs]
    nodes = list(leaves)
    for op, i, j in steps:
        a, b = nodes[i], nodes[j]
        nodes.append(a + b if op == "+" else a * b if op == "*" else a.tanh())
    return leaves, nodes[-1]


def forward_mode(inputs, steps, wrt):
    """(value, d value / d inputs[wrt]) of a program, by carrying each node's derivative
    forward with it: an independent witness, exact up to rounding."""
    nodes = [(x, 1.0 if k == wrt else 0.0) for k, x in enumerate(inputs)]
    for op, i, j in steps:
        (a, da), (b, db) = nodes[i], nodes[j]
        if op == "+":
            nodes.append((a + b, da + db))
        elif op == "*":
            nodes.append((a * b, a * db + b * da))
        else:
            t = math.tanh(a)
            nodes.append((t, (1.0 - t * t) * da))
    return nodes[-1]


@check("backward() sets the output's own gradient to 1.0")
def seeds_one(Value):
    v = Value(3.0)
    v.backward()
    expect(v.grad == 1.0, f"after `v.backward()` on a lone value, `v.grad` should be 1.0 "
                          f"(dv/dv = 1), but was {v.grad!r}")


@check("L = (a·b + c)·f: dL/da = 6, dL/db = −4, dL/dc = −2, dL/df = 4")
def chapter_three_expression(Value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    for name, leaf, grad, rule in (("a", a, 6.0, "f·b"), ("b", b, -4.0, "f·a"),
                                   ("c", c, -2.0, "f"), ("f", f, 4.0, "a·b + c")):
        expect_close(leaf.grad, grad, f"after `L.backward()`, `{name}.grad`",
                     hint=f"dL/d{name} = {rule}")


@check("b = a + a; c = b + b gives dc/da = 4")
def twice_twice(Value):
    a = Value(1.0)
    b = a + a
    c = b + b
    c.backward()
    hint = ""
    if a.grad in (1.0, 2.0):
        hint = ": some gradient was overwritten; `_backward` must add with `+=`"
    elif a.grad == 8.0:
        hint = (": b passed gradient to a twice, once before c had finished with b; run a "
                "node's `_backward` only after every node that uses it (a topological order)")
    expect(a.grad == 4.0, f"`a.grad` should be 4.0 (c = 4a) but was {a.grad!r}{hint}")


@check(f"random graphs with shared nodes: gradients match (seeds {SEEDS[0]} to {SEEDS[-1]})")
def random_graphs(Value):
    for seed in SEEDS:
        inputs, steps = random_program(seed)
        leaves, out = build(Value, inputs, steps)
        out.backward()
        for k, leaf in enumerate(leaves):
            value, slope = forward_mode(inputs, steps, k)
            expect_close(out.data, value, f"on random graph {seed}, the output")
            expect_close(leaf.grad, slope, f"on random graph {seed} ({len(steps)} operations), "
                         f"`x{k}.grad`",
                         hint="a node must run its `_backward` only after every node that "
                              "uses it has run its own (a reverse topological order)")


@check(f"a chain {DEPTH:,} nodes deep works at the default recursion limit")
def deep_chain(Value):
    x, step = Value(1.0), Value(0.5)
    y = x
    for _ in range(DEPTH):
        y = y + step  # one more node on the chain, and one more use of `step`
    try:
        with default_recursion_limit():
            y.backward()
    except RecursionError:
        fail(f"`backward()` raised RecursionError on a chain {DEPTH:,} nodes deep: a recursive "
             f"sort needs one Python frame per node, and Python allows about "
             f"{DEFAULT_RECURSION_LIMIT:,}; sort with an explicit stack instead")
    expect_close(x.grad, 1.0, "at the start of the chain, `x.grad`", hint="every step adds 1")
    expect_close(step.grad, float(DEPTH), "`step.grad`",
                 hint=f"`step` is used {DEPTH:,} times, and each use adds 1")


@check("calling backward() twice accumulates: leaf gradients grow")
def twice_accumulates(Value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    first = [leaf.grad for leaf in (a, b, c, f)]
    L.backward()
    for name, leaf, before in zip("abcf", (a, b, c, f), first):
        after = leaf.grad
        expect(math.copysign(1.0, after) == math.copysign(1.0, before) and abs(after) > abs(before),
               f"after a second `L.backward()`, `{name}.grad` went from {before!r} to {after!r}; "
               f"it should grow (the package's engine gives {2 * before!r}): `backward()` adds "
               "to gradients and never resets the leaves; zeroing them between training steps "
               "is `zero_grad`'s job")


@check("a second backward() adds exactly one more copy of each leaf's gradient")
def second_call_adds_one_copy(Value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    first = [leaf.grad for leaf in (a, b, c, f)]
    L.backward()
    for name, leaf, before in zip("abcf", (a, b, c, f), first):
        expect_close(leaf.grad, 2 * before, f"after a second `L.backward()`, `{name}.grad`",
                     hint=f"the first call gave {before!r}, and the second should add it once "
                          "more. More than that means the values in between (a·b and a·b + c) "
                          "still held the first call's gradients and passed them on again: "
                          "set `grad = 0.0` on every node that has `_prev` before the pass, "
                          "and leave the leaves alone")


CHECKPOINT = [seeds_one, chapter_three_expression, twice_twice, random_graphs, deep_chain,
              twice_accumulates, second_call_adds_one_copy]


def checkpoint(Value):
    """Chapter 5's specification, run on the learner's Value class with `backward()`."""
    return run_checks("Chapter 5 checkpoint: topological sort and backward()", CHECKPOINT, Value)


# --------------------------------------------------------------------- exercises


def _expect_topological(order, root, what):
    """Fail unless `order` lists everything `root` depends on once, children first, root last."""
    expect(isinstance(order, (list, tuple)),
           f"{what} should return a list of nodes, but returned {show(order)}")
    expected = reverse_topological_order(root)
    position = {}
    for k, node in enumerate(order):
        if id(node) in position:
            fail(f"{what} listed the node {show(node)} twice (positions {position[id(node)]} "
                 f"and {k}); remember which nodes you have visited")
        position[id(node)] = k
    missing = [node for node in expected if id(node) not in position]
    if missing:
        fail(f"{what} left out {len(missing)} of the {len(expected)} nodes, such as "
             f"{show(missing[0])}: follow `_prev` from every node you visit")
    expect(len(order) == len(expected),
           f"{what} returned {len(order)} nodes, but the graph has only {len(expected)}: did "
           "nodes from an earlier call stay in a list or set that outlived it?")
    expect(order[-1] is root,
           f"{what} should end with the root, but ended with {show(order[-1])}"
           + (" and began with the root: list each node after its children, so that "
              "`reversed(order)` is the order for backward()" if order[0] is root else ""))
    for node in order:
        for child in node._prev:
            if position[id(child)] > position[id(node)]:
                fail(f"{what} put {show(node)} (at {position[id(node)]}) before its child "
                     f"{show(child)} (at {position[id(child)]}): a node must come after "
                     "everything it was computed from")


@check(f"random graphs: every node once, after its children, the root last (seeds "
       f"{SEEDS[0]} to {SEEDS[-1]})")
def sorts_random_graphs(sort, Value):
    for seed in SEEDS:
        inputs, steps = random_program(seed)
        nodes = [Value(x) for x in inputs]
        for op, i, j in steps:  # the constructor alone: the graph's shape is all a sort needs
            nodes.append(Value(0.0, (nodes[i],) if op == "tanh" else (nodes[i], nodes[j]), op))
        root = nodes[-1]
        _expect_topological(sort(root), root, f"`sort` on random graph {seed}")
        _expect_topological(sort(root), root, f"a second `sort` on random graph {seed}")


@check(f"a chain {DEPTH:,} nodes deep, at the default recursion limit")
def sorts_deep_chain(sort, Value):
    chain = [Value(0.0)]
    for _ in range(DEPTH):
        chain.append(Value(0.0, (chain[-1],), "+1"))
    try:
        with default_recursion_limit():
            order = sort(chain[-1])
    except RecursionError:
        fail(f"`sort` raised RecursionError on a chain {DEPTH:,} nodes deep: each recursive "
             f"call takes a Python frame, and Python allows about {DEFAULT_RECURSION_LIMIT:,}; "
             "keep the nodes still to visit on a list of your own (an explicit stack)")
    expect(isinstance(order, (list, tuple)) and len(order) == len(chain),
           f"`sort` on the chain should return its {len(chain):,} nodes, but returned "
           f"{len(order) if isinstance(order, (list, tuple)) else show(order)}")
    expect(all(got is node for got, node in zip(order, chain)),
           "on a chain there is only one valid order, from the first node to the last, but "
           "`sort` returned another")


def check_topological_sort(sort, Value):
    """Exercise: the iterative topological sort `sort(root)` (see the module docstring)."""
    return run_checks("Exercise: an iterative topological sort", [sorts_random_graphs,
                                                                  sorts_deep_chain], sort, Value)


def check_order_prediction(prediction, root):
    """Exercise: predict, as a list of labels, the order in which the depth-first sort (the
    article's `build_topo`, children taken in `_prev` order) lists the graph of `root`."""
    question = "your predicted order"
    if prediction is None or (isinstance(prediction, (list, tuple)) and not prediction):
        @check(question)
        def predicted():
            fail("no prediction yet: write the labels as a list of strings, such as "
                 "`['a', 'b', ...]`, in the order you expect the sort to list the values")

        return run_checks("Your answer", [predicted])

    order = reverse_topological_order(root)[::-1]  # depth-first post-order: root last
    by_label = {getattr(node, "label", ""): node for node in order}
    if "" in by_label or len(by_label) != len(order):
        raise ValueError("check_order_prediction needs a graph whose values all have "
                         "different labels")

    @check("every value once, each after the values it was computed from")
    def valid_order():
        expect(isinstance(prediction, (list, tuple)),
               f"the prediction should be a list of labels, but was {show(prediction)}")
        unknown = [p for p in prediction if p not in by_label]
        expect(not unknown, f"there is no value labelled {show(unknown[0]) if unknown else ''} "
                            f"in the graph; its labels are {', '.join(by_label)}")
        seen = {}
        for k, label in enumerate(prediction):
            expect(label not in seen, f"{label!r} appears twice in your list: the sort lists "
                                      "each value once, however many times it is used")
            seen[label] = k
        missing = [label for label in by_label if label not in seen]
        expect(not missing, f"your list leaves out {', '.join(map(repr, missing))}: the sort "
                            "lists every value the output depends on, leaves too")
        for label in prediction:
            for child in by_label[label]._prev:
                expect(seen[child.label] < seen[label],
                       f"you listed {label!r} before {child.label!r}, but {label!r} was "
                       f"computed from {child.label!r}: a value comes after its inputs")

    @check("the very order the depth-first sort gives")
    def same_as_depth_first():
        got = [node.label for node in order]
        for k, (mine, sorts) in enumerate(zip(prediction, got)):
            expect(mine == sorts,
                   f"at position {k} you wrote {mine!r}, where the sort lists {sorts!r}: it "
                   "starts at the output, follows `_prev` from left to right as deep as it "
                   "can, and lists a value only once everything it was computed from is "
                   "listed")
        expect(len(prediction) == len(got),
               f"your list has {len(prediction)} labels; the sort lists {len(got)} values")

    return run_checks("Your answer", [valid_order, same_as_depth_first])
