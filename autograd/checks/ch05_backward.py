"""Chapter 5 · backward(): the checks of the checkpoint, and the exercise that writes the first
`backward()` (see `ch05`).
"""

import math

from .toolbox import (
    DEFAULT_RECURSION_LIMIT,
    VISITED,
    Exercise,
    chain_of_sums,
    check,
    default_recursion_limit,
    expect,
    expect_close,
    fail,
    is_close,
    is_unwritten,
    show,
)
from .ch05_graphs import DEPTH, SEEDS, VISITED_IN_A_SET, random_program, build, _named, _depth_first


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


@check("backward() sets the output's own gradient to 1.0", timeout_hint=VISITED)
def seeds_one(Value):
    v = Value(3.0)
    v.backward()
    expect(
        v.grad == 1.0,
        f"after `v.backward()` on a lone value, `v.grad` should be 1.0 "
        f"(dv/dv = 1), but was {show(v.grad)}",
    )
    # The seed *sets* the output's gradient: an output that still holds one (a second call, or
    # a value that was used in an earlier pass) must not carry it into this pass.
    v.backward()
    w = Value(-1.0)
    w.grad = 0.5  # left over from an earlier pass
    w.backward()
    if is_close(v.grad, 2.0) or is_close(w.grad, 1.5):
        fail(
            f"after a second `v.backward()` on a lone value, `v.grad` was {show(v.grad)}, and "
            f"a value that held 0.5 from an earlier pass had {show(w.grad)} after "
            "`backward()`: the seed adds 1.0 to what the output held (`self.grad += 1.0`). "
            "dL/dL is 1 however often you ask: set it, `self.grad = 1.0`"
        )
    expect(
        v.grad == 1.0 and is_close(w.grad, 1.0),
        f"after `backward()`, the output's own gradient should be 1.0, whatever it held "
        f"before (a second `v.backward()` gave {show(v.grad)}, a value that held 0.5 "
        f"gave {show(w.grad)}): set it, `self.grad = 1.0`",
    )


@check("L = (a·b + c)·f: dL/da = 6, dL/db = −4, dL/dc = −2, dL/df = 4", timeout_hint=VISITED)
def chapter_three_expression(Value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    for name, leaf, grad, rule in (
        ("a", a, 6.0, "f·b"),
        ("b", b, -4.0, "f·a"),
        ("c", c, -2.0, "f"),
        ("f", f, 4.0, "a·b + c"),
    ):
        expect_close(
            leaf.grad, grad, f"after `L.backward()`, `{name}.grad`", hint=f"dL/d{name} = {rule}"
        )


@check("b = a + a; c = b + b gives dc/da = 4", timeout_hint=VISITED)
def twice_twice(Value):
    a = Value(1.0)
    b = a + a
    c = b + b
    c.backward()
    hint = ""
    if a.grad in (1.0, 2.0):
        hint = ": some gradient was overwritten; `_backward` must add with `+=`"
    elif a.grad == 8.0:
        hint = (
            ": b passed gradient to a twice, once before c had finished with b; run a "
            "node's `_backward` only after every node that uses it (a topological order)"
        )
    expect(a.grad == 4.0, f"`a.grad` should be 4.0 (c = 4a) but was {show(a.grad)}{hint}")


@check(
    f"random graphs with shared nodes: gradients match (seeds {SEEDS[0]} to {SEEDS[-1]})",
    timeout_hint=VISITED,
)
def random_graphs(Value):
    for seed in SEEDS:
        inputs, steps = random_program(seed)
        leaves, out = build(Value, inputs, steps)
        out.backward()
        for k, leaf in enumerate(leaves):
            value, slope = forward_mode(inputs, steps, k)
            expect_close(out.data, value, f"on random graph {seed}, the output")
            expect_close(
                leaf.grad,
                slope,
                f"on random graph {seed} ({len(steps)} operations), `x{k}.grad`",
                hint="a node must run its `_backward` only after every node that "
                "uses it has run its own (a reverse topological order)",
            )


@check(
    f"a chain {DEPTH:,} nodes deep works at the default recursion limit",
    seconds=40,
    timeout_hint=VISITED_IN_A_SET,
)
def deep_chain(Value):
    x, step, chain = chain_of_sums(Value, DEPTH, 1.0, 0.5)
    try:
        with default_recursion_limit():
            chain[-1].backward()
    except RecursionError:
        fail(
            f"`backward()` raised RecursionError on a chain {DEPTH:,} nodes deep: a recursive "
            f"sort needs one Python frame per node, and Python allows about "
            f"{DEFAULT_RECURSION_LIMIT:,}; sort with an explicit stack instead"
        )
    expect_close(x.grad, 1.0, "at the start of the chain, `x.grad`", hint="every step adds 1")
    expect_close(
        step.grad,
        float(DEPTH),
        "`step.grad`",
        hint=f"`step` is used {DEPTH:,} times, and each use adds 1",
    )


def _backward_twice(Value):
    """(name, gradient after one `L.backward()`, gradient after a second) for each leaf of
    L = (a·b + c)·f."""
    leaves = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    a, b, c, f = leaves
    L = (a * b + c) * f
    L.backward()
    first = [leaf.grad for leaf in leaves]
    L.backward()
    return [(name, before, leaf.grad) for name, leaf, before in zip("abcf", leaves, first)]


@check("calling backward() twice accumulates: leaf gradients grow", timeout_hint=VISITED)
def twice_accumulates(Value):
    for name, before, after in _backward_twice(Value):
        expect(
            math.copysign(1.0, after) == math.copysign(1.0, before) and abs(after) > abs(before),
            f"after a second `L.backward()`, `{name}.grad` went from {show(before)} to "
            f"{show(after)}; it should grow (the package's engine gives "
            f"{show(2 * before)}): `backward()` adds to gradients and never resets the "
            "leaves; zeroing them between training steps is `zero_grad`'s job",
        )


@check(
    "a second backward() adds exactly one more copy of each leaf's gradient", timeout_hint=VISITED
)
def second_call_adds_one_copy(Value):
    for name, before, after in _backward_twice(Value):
        expect_close(
            after,
            2 * before,
            f"after a second `L.backward()`, `{name}.grad`",
            hint=f"the first call gave {show(before)}, and the second should add it once "
            "more. More than that means the values in between (a·b and a·b + c) "
            "still held the first call's gradients and passed them on again: "
            "set `grad = 0.0` on every node that has `_prev` before the pass, "
            "and leave the leaves alone",
        )


# --------------------------------------------------------------------- backward()
# The learner's first `backward()`: seed the output's grad with 1.0, then run every node's
# `_backward` in reverse topological order. The checks build the diamond with the learner's
# operators and wrap each node's `_backward` to see which closures ran, in what order, and with
# what gradient: so that a message can say what the loop did, not only which number is wrong.

DIAMOND_GRADS = {"a": 14.0, "b": 6.0, "c": 4.0, "d": 1.0}  # d = (a + 1)·(2a) at a = 3


def _diamond(Value):
    """d = (a + 1)·(2a) at a = 3, made with the learner's operators: ({name: node}, names)."""
    a = Value(3.0)
    b = a + 1
    c = a * 2
    d = b * c
    nodes = {"a": a, "b": b, "c": c, "d": d}
    names = _named(Value, nodes)
    for node in _depth_first(d):  # the constants 1 and 2, which the operators wrapped
        if id(node) not in names:
            names[id(node)] = f"the constant {show(getattr(node, 'data', node))}"
    return nodes, names


def _watch(root):
    """Wrap the `_backward` of every node of `root`'s graph so that each call is recorded as
    (node, its grad when the closure started); return the record (a list that fills as the
    closures run), or None if a node would not take the wrapper."""
    fired = []
    for node in _depth_first(root):
        closure = node._backward

        def watched(node=node, closure=closure):
            fired.append((node, node.grad))
            closure()

        try:
            node._backward = watched
        except AttributeError:
            return None
    return fired


def _backward_problem(Value, what):
    """Run `backward()` on a fresh diamond with every closure watched; say in words what the
    learner's loop did wrong, or None if the gradients came out right."""
    nodes, names = _diamond(Value)
    d = nodes["d"]

    def name(node):
        return names.get(id(node)) or show(node)

    fired = _watch(d)
    d.backward()
    grads = {key: node.grad for key, node in nodes.items()}
    if all(is_close(grads[key], value) for key, value in DIAMOND_GRADS.items()):
        return None
    said = (
        f"{what}, a.grad came out {show(grads['a'])} instead of 14 (and b.grad "
        f"{show(grads['b'])}, c.grad {show(grads['c'])}, d.grad {show(grads['d'])})"
    )
    if fired is None:
        return said
    ran = [node for node, _ in fired]
    counts, first = {}, {}
    for k, node in enumerate(ran):
        counts[id(node)] = counts.get(id(node), 0) + 1
        first.setdefault(id(node), k)
    problem = _closures_that_ran(said, ran, counts, d, name)
    if problem is not None:
        return problem
    users = {}
    for node in _depth_first(d):
        for child in node._prev:
            users.setdefault(id(child), []).append(node)
    for k, (node, grad) in enumerate(fired):
        late = [user for user in users.get(id(node), []) if first.get(id(user), k + 1) > k]
        if node._prev and late:
            return (
                f"{said}. The closures ran in forward order, inputs first: {name(node)}'s "
                f"ran before {name(late[0])}'s, which uses {name(node)}, so it passed on "
                f"{name(node)}.grad = {show(grad)} before {name(late[0])} had added to it. "
                "Walk the sorted list backwards, `for node in reversed(topo):`, so that "
                "each node runs after every node that uses it"
            )
    return _seed_or_zeroing(Value, said, fired, first, d, grads, name)


def _closures_that_ran(said, ran, counts, d, name):
    """What is wrong with which closures ran (`ran`, in the order they ran; `counts` by node):
    none, the leaves' only, d's only, all but d's, one of them twice. None if each ran once."""
    if not ran:
        return (
            f"{said}. No closure of d's graph ran: sort the graph of the value `backward()` "
            "was called on, `topological_order(self)`, and call `node._backward()` for "
            "every node of that list"
        )
    if all(not node._prev for node in ran):
        return (
            f"{said}. Only the leaves' `_backward` ran, and a leaf's does nothing (it has no "
            "inputs to pass gradient to): call `_backward` on every node of the list, the "
            "output first"
        )
    if all(node is d for node in ran):
        return (
            f"{said}. Only d's closure ran ({counts[id(d)]} "
            f"time{'s' if counts[id(d)] > 1 else ''}): inside the loop, call the closure "
            "of the node the loop is at, `node._backward()`, not `self._backward()`"
        )
    if id(d) not in counts:
        return (
            f"{said}. d's own closure never ran, so nothing reached b and c: sort from "
            "`self`, the value `backward()` was called on (`topological_order(self)` ends "
            "with it), and run every closure of that list"
        )
    twice = next((node for node in ran if counts[id(node)] > 1), None)
    if twice is not None:
        return (
            f"{said}. The closure of {name(twice)} ran {counts[id(twice)]} times, passing "
            "its gradient back each time: run each node's `_backward` exactly once"
        )
    return None


def _seed_or_zeroing(Value, said, fired, first, d, grads, name):
    """The closures ran once each, in the right order, yet the gradients are wrong: what the
    seed (`self.grad = 1.0`, missing or late) or a zeroing in the loop did, in words."""
    d_then = fired[first[id(d)]][1]
    if not is_close(d_then, 1.0):
        if is_close(grads["d"], 1.0):
            return (
                f"{said}. d's closure ran while d.grad was still {show(d_then)}: "
                "`self.grad = 1.0` comes after the loop. Seed the output first, then run "
                "the closures"
            )
        if _zeroes_in_the_loop(Value):
            return (
                f"{said}. The loop sets each gradient to 0 before the closure runs, so "
                "every closure passes on 0: `backward()` only adds to gradients. Take the "
                "zeroing out of the loop"
            )
        return (
            f"{said}. d's closure ran while d.grad was {show(d_then)}: start with "
            "`self.grad = 1.0` (the output's gradient with respect to itself), before the "
            "loop"
        )
    wiped = [
        node for node, grad in fired if not is_close(node.grad, grad) and not is_close(grad, 0.0)
    ]
    if wiped:
        return (
            f"{said}. {name(wiped[0])}.grad was {show(fired[first[id(wiped[0])]][1])} when "
            f"its closure ran, and {show(wiped[0].grad)} after `backward()`: the loop sets "
            "gradients back to 0 after the closures used them, but `backward()` only adds "
            "to gradients. Take the zeroing out of the loop"
        )
    return said


def _zeroes_in_the_loop(Value):
    """Does the learner's `backward()` wipe a gradient a leaf already held? (A missing seed
    leaves it alone; a loop that zeroes each node it reaches does not.)"""
    nodes, _ = _diamond(Value)
    a, d = nodes["a"], nodes["d"]
    a.grad = 0.5
    d.backward()
    return is_close(a.grad, 0.0)


@check(
    "the diamond d = (a + 1)·(2a) at a = 3: dd/da = 14, each closure run once, after every "
    "node that uses it",
    timeout_hint=VISITED,
)
def backward_diamond(Value):
    problem = _backward_problem(
        Value, "after `d.backward()` on the diamond d = (a + 1)·(2a) at a = 3"
    )
    if problem is not None:
        fail(problem)


BACKWARD = Exercise(
    5,
    "backward()",
    [backward_diamond, seeds_one, chapter_three_expression, twice_twice, random_graphs],
    what="your `backward()`",
    answer_of=lambda Value: getattr(Value, "backward", None),
    unanswered=is_unwritten,
    todo="replace `...` with the body the docstring describes (seed, then the loop), run the "
    "cell, then this check again",
)


def check_backward(Value):
    """Exercise: the learner's first `backward()` on their `Value`: seed `self.grad = 1.0`,
    then each node's `_backward` in reverse topological order."""
    return BACKWARD.check(Value)
