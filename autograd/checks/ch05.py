"""Chapter 5 · Topological sort and backward() — checkpoint and exercise checks.

What the chapter asks for: `Value.backward()`, which orders the graph so that every node comes
after the nodes it was computed from (a topological sort, by depth-first search with an explicit
stack, so that a chain 100,000 nodes deep works at Python's default recursion limit of 1,000),
resets the gradients of the intermediate nodes (those with `_prev`: they are scratch space for
one pass), sets `self.grad = 1.0`, and calls each node's `_backward` in reverse order. Leaves'
gradients accumulate: calling `backward()` twice adds exactly one more copy to each leaf, as
the package's engine (and PyTorch) do.

The chapter's first exercise asks for the article's recursive sort, `topological_order(root)`:
a list `topo`, a set `visited` and a nested `build_topo(v)`. Its checks run it on the diamond, on
two different values that hold the same number (a `visited` set of `.data` takes them for one),
on random graphs, in the article's very order (inputs in `_prev`'s order), and on a chain of
diamonds that a sort without `visited` cannot finish: a time limit stops it, and the message
names the missing set. The graphs are shallow, so a right recursive sort never meets the
recursion limit. Each wrong list is compared with what the classic bugs give (pre-order, the
list reversed, no recursion, the root's `_prev` followed instead of `v._prev`), so that the
message names the bug.

The first `backward()` (seed `self.grad = 1.0`, then every `_backward` in reverse topological
order) is checked on the diamond d = (a + 1)·(2a), built with the learner's operators, with each
node's `_backward` wrapped: the message says which closures ran, in what order, with what
gradient (forward order, no seed or a seed after the loop, the leaves' closures only, the root's
only, gradients zeroed in the loop, another graph sorted).

The iterative sort exercise asks for `sort(root)`: a list of every value `root` depends on (itself
included), each exactly once and after all of its children (`_prev`), so the root comes last.
A wrong list is compared with what the stub's loop gives with each classic bug in it (no
`visited` set, no `break`, the node appended too early, the list reversed, the root left out),
so the message names the bug; nodes are named by labels the check gives them (x0, n5, ...).
"""

import math
import operator

from ..graph import breadth_first_order
from .toolbox import (
    ARITHMETIC, DEFAULT_RECURSION_LIMIT, TANH, VISITED, Exercise, call, chain_of_sums, check,
    declare_checkpoint, default_recursion_limit, diagnose, expect, expect_close, fail, is_close,
    is_unwritten, make_program, returned, reverse_topological_order, run_steps, show,
)

__all__ = ["checkpoint", "check_recursive_sort", "check_order_prediction", "check_backward",
           "check_topological_sort", "random_program", "DEPTH"]

DEPTH = 100_000  # deep enough that one Python frame per node is far beyond the limit
SEEDS = range(5)

# What a check that runs out of time says: the likely cause. On a busy test machine, with the
# package's engine and the solutions, backward() on the deep chain took up to 3 s and the sort
# up to 2 s: they may take 40 s and 30 s. Every other check took under 0.2 s of its 5.
IN_A_SET = (f"keep the visited nodes in a set: looking a node up in a list takes longer the "
            f"longer the list grows, and this chain has {DEPTH:,} nodes")
VISITED_IN_A_SET = f"{VISITED} And {IN_A_SET}"
STUCK_LOOP = ("does each pass of your `while` loop either push an input that is not in `visited` "
              "yet (and add it to `visited`) or pop the entry on top of the stack?")


OPERATIONS = {"+": ARITHMETIC["add"], "*": ARITHMETIC["mul"], "tanh": TANH}


def random_program(seed, n_inputs=3, n_steps=12):
    """A seeded random graph as (inputs, steps); each step is (op, i, j) on earlier nodes.

    Each step uses the node just before it (so every node reaches the output) and one earlier
    node chosen at random, so nodes are shared; the inputs are all used, input 0 twice.
    """
    (inputs,), steps = make_program(
        seed, OPERATIONS, n_inputs=n_inputs, n_steps=n_steps,
        draw=lambda rng: rng.choice((-1, 1)) * rng.uniform(0.3, 1.5),
        gather=lambda n: [("+", n - 1, i) for i in range(n - 1)])
    steps.append(("*", n_inputs + len(steps) - 1, 0))
    return inputs, steps


def build(Value, inputs, steps):
    """Run a program with the learner's operators; return (leaves, output)."""
    leaves = [Value(x) for x in inputs]
    return leaves, run_steps(leaves, steps, OPERATIONS)


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
    expect(v.grad == 1.0, f"after `v.backward()` on a lone value, `v.grad` should be 1.0 "
                          f"(dv/dv = 1), but was {show(v.grad)}")
    # The seed *sets* the output's gradient: an output that still holds one (a second call, or
    # a value that was used in an earlier pass) must not carry it into this pass.
    v.backward()
    w = Value(-1.0)
    w.grad = 0.5  # left over from an earlier pass
    w.backward()
    if is_close(v.grad, 2.0) or is_close(w.grad, 1.5):
        fail(f"after a second `v.backward()` on a lone value, `v.grad` was {show(v.grad)}, and "
             f"a value that held 0.5 from an earlier pass had {show(w.grad)} after "
             "`backward()`: the seed adds 1.0 to what the output held (`self.grad += 1.0`). "
             "dL/dL is 1 however often you ask: set it, `self.grad = 1.0`")
    expect(v.grad == 1.0 and is_close(w.grad, 1.0),
           f"after `backward()`, the output's own gradient should be 1.0, whatever it held "
           f"before (a second `v.backward()` gave {show(v.grad)}, a value that held 0.5 "
           f"gave {show(w.grad)}): set it, `self.grad = 1.0`")


@check("L = (a·b + c)·f: dL/da = 6, dL/db = −4, dL/dc = −2, dL/df = 4", timeout_hint=VISITED)
def chapter_three_expression(Value):
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    for name, leaf, grad, rule in (("a", a, 6.0, "f·b"), ("b", b, -4.0, "f·a"),
                                   ("c", c, -2.0, "f"), ("f", f, 4.0, "a·b + c")):
        expect_close(leaf.grad, grad, f"after `L.backward()`, `{name}.grad`",
                     hint=f"dL/d{name} = {rule}")


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
        hint = (": b passed gradient to a twice, once before c had finished with b; run a "
                "node's `_backward` only after every node that uses it (a topological order)")
    expect(a.grad == 4.0, f"`a.grad` should be 4.0 (c = 4a) but was {show(a.grad)}{hint}")


@check(f"random graphs with shared nodes: gradients match (seeds {SEEDS[0]} to {SEEDS[-1]})",
       timeout_hint=VISITED)
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


@check(f"a chain {DEPTH:,} nodes deep works at the default recursion limit", seconds=40,
       timeout_hint=VISITED_IN_A_SET)
def deep_chain(Value):
    x, step, chain = chain_of_sums(Value, DEPTH, 1.0, 0.5)
    try:
        with default_recursion_limit():
            chain[-1].backward()
    except RecursionError:
        fail(f"`backward()` raised RecursionError on a chain {DEPTH:,} nodes deep: a recursive "
             f"sort needs one Python frame per node, and Python allows about "
             f"{DEFAULT_RECURSION_LIMIT:,}; sort with an explicit stack instead")
    expect_close(x.grad, 1.0, "at the start of the chain, `x.grad`", hint="every step adds 1")
    expect_close(step.grad, float(DEPTH), "`step.grad`",
                 hint=f"`step` is used {DEPTH:,} times, and each use adds 1")


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
        expect(math.copysign(1.0, after) == math.copysign(1.0, before) and abs(after) > abs(before),
               f"after a second `L.backward()`, `{name}.grad` went from {show(before)} to "
               f"{show(after)}; it should grow (the package's engine gives "
               f"{show(2 * before)}): `backward()` adds to gradients and never resets the "
               "leaves; zeroing them between training steps is `zero_grad`'s job")


@check("a second backward() adds exactly one more copy of each leaf's gradient",
       timeout_hint=VISITED)
def second_call_adds_one_copy(Value):
    for name, before, after in _backward_twice(Value):
        expect_close(after, 2 * before, f"after a second `L.backward()`, `{name}.grad`",
                     hint=f"the first call gave {show(before)}, and the second should add it once "
                          "more. More than that means the values in between (a·b and a·b + c) "
                          "still held the first call's gradients and passed them on again: "
                          "set `grad = 0.0` on every node that has `_prev` before the pass, "
                          "and leave the leaves alone")


CHECKPOINT = [seeds_one, chapter_three_expression, twice_twice, random_graphs, deep_chain,
              twice_accumulates, second_call_adds_one_copy]


@declare_checkpoint(5, "Chapter 5 checkpoint: topological sort and backward()", CHECKPOINT)
def checkpoint(Value):
    """Chapter 5's specification, run on the learner's Value class with `backward()`."""
# --------------------------------------------------------------------- exercises
# In the order the chapter asks them (the checkpoint lists them in this order).


# --------------------------------------------------------------------- the recursive sort
# The article's `topological_order`: a list `topo`, a set `visited`, and a nested
# `build_topo(v)` that marks v visited, calls itself on v's inputs, then appends v. The checks
# build their graphs with the learner's constructor alone, `Value(data, children, op)`, and
# keep them shallow (a few dozen calls deep at most), so that a right recursive sort never
# meets the recursion limit here.

CHAIN_OF_DIAMONDS = 40  # diamonds in a row: without `visited`, 2**40 paths to the first node
NO_VISITED = ("without a `visited` set, `build_topo` goes into a shared node once for every "
              f"path that leads to it, and this chain of {CHAIN_OF_DIAMONDS} diamonds has "
              f"2^{CHAIN_OF_DIAMONDS} paths from its end to its start: add each node to "
              "`visited` when `build_topo` first reaches it, and go into a node only if it is "
              "not in `visited` yet")


def _named(Value, nodes):
    """Label each of `nodes` (a {name: node} dict) with its name where the class allows it;
    return {id(node): name} for the messages."""
    for name, node in nodes.items():
        try:
            node.label = name
        except AttributeError:  # a class without a label: the messages still use the names
            pass
    return {id(node): name for name, node in nodes.items()}


def _shape_of_diamond(Value):
    """d = (a + 1)·(2a) at a = 3, made with the constructor: (d, names). The constants are
    nodes too, named `one` and `two`; `a` is used twice."""
    a, one, two = Value(3.0), Value(1.0), Value(2.0)
    b = Value(4.0, (a, one), "+")
    c = Value(6.0, (a, two), "*")
    d = Value(24.0, (b, c), "*")
    return d, _named(Value, {"a": a, "one": one, "b": b, "two": two, "c": c, "d": d})


def _shape_of_twins(Value):
    """s = x + y, where x and y are two different leaves that hold the same number, 2."""
    x, y = Value(2.0), Value(2.0)
    s = Value(4.0, (x, y), "+")
    return s, _named(Value, {"x": x, "y": y, "s": s})


def _chain_of_diamonds(Value, n):
    """n diamonds in a row, each node of the chain used twice by the next diamond: 3n + 1
    nodes, 2n + 1 deep, and 2**n paths from the last node to the first."""
    x = Value(1.0)
    names = {id(x): "x0"}
    for k in range(1, n + 1):
        b = Value(0.0, (x,), "+1")
        c = Value(0.0, (x,), "*2")
        x = Value(0.0, (b, c), "*")
        names.update({id(b): f"b{k}", id(c): f"c{k}", id(x): f"x{k}"})
    return x, names


def _recursive_problem(order, root, name):
    """What is wrong with `order`, the learner's `topological_order(root)`, in words that
    follow "`topological_order` on <graph> ..."; None if it is a right order."""
    root_name = name(root)
    expected = _depth_first(root)
    if order is None:
        return ("returned None: the function has no `return`; end it with `return topo`, "
                "after calling `build_topo(root)`")
    if type(order).__name__ == "list_reverseiterator":
        return ("returned `reversed(topo)`, the list backwards (and an iterator, not a list): "
                "return `topo` as `build_topo` built it, each node after its inputs; "
                "`backward()` is the one that walks it in reverse")
    if not isinstance(order, (list, tuple)):
        return f"should return a list of nodes, but returned {show(order)}"
    if not order:
        return ("returned an empty list: did you call `build_topo(root)` before `return topo`, "
                "and does `build_topo(v)` append `v` to `topo` once it has been through v's "
                "inputs?")
    known = {id(node) for node in expected}
    strangers = [item for item in order if id(item) not in known]
    if strangers and not any(hasattr(item, "_prev") for item in strangers):
        return (f"listed {show(strangers[0])}, which is not a node of the graph: append the "
                "node itself, `topo.append(v)`")
    position = {}
    for k, node in enumerate(order):
        if id(node) in position:
            return (f"listed {name(node)} twice (positions {position[id(node)]} and {k}): "
                    f"{name(node)} is used by two nodes, and `build_topo` went into it once "
                    "from each. Keep a set `visited`: add `v` to it when `build_topo` first "
                    "reaches `v`, and go into a node only if it is not in `visited` yet")
        position[id(node)] = k
    if _same_list(order, [root]) and len(expected) > 1:
        return (f"returned only the root, [{root_name}]: `build_topo(v)` must call itself on "
                "each of v's inputs, `for child in v._prev: build_topo(child)`, before it "
                "appends `v`")
    if _same_list(order, expected[::-1]):
        return (f"returned {_listing(order, name)}: a right order backwards, the root first. "
                "Return `topo` as `build_topo` built it, each node after its inputs; "
                "`backward()` is the one that walks it in reverse")
    if _same_list(order, _depth_first(root, post=False)):
        return (f"returned {_listing(order, name)}: each node before its inputs, the root "
                "first. `build_topo(v)` appends `v` before going into its inputs; append it "
                "after the loop over `v._prev`, once all of them are in `topo`")
    if len(order) > len(expected):
        return (f"returned {len(order)} nodes, but the graph has only {len(expected)}: did "
                "nodes from an earlier call stay in a `topo` or `visited` made outside the "
                "function? Make both afresh inside `topological_order`, on every call")
    missing = [node for node in expected if id(node) not in position]
    if missing:
        listed_data = {}
        for node in order:
            listed_data.setdefault(_data_key(node), node)
        twin = next((node for node in missing if _data_key(node) in listed_data), None)
        if twin is not None and len(listed_data) == len(order):
            other = listed_data[_data_key(twin)]
            return (f"left out {name(twin)}, a different node that holds the same number as "
                    f"{name(other)} ({show(twin.data)}): a `visited` set of `.data` takes the "
                    f"two for one node. Put the nodes themselves in `visited`, `visited.add(v)`"
                    ", and ask `v not in visited`")
        if id(root) not in position:
            return (f"never listed the root, {root_name}, itself: `build_topo(root)` appends "
                    "it last, once everything it depends on is in `topo`")
        near = {id(root)} | {id(child) for child in root._prev}
        if all(id(node) in near for node in order):
            return (f"left out {', '.join(name(node) for node in missing[:3])}, the inputs of "
                    f"{root_name}'s inputs: `build_topo(v)` must go through the inputs of "
                    f"the node it was given, `v._prev`, not `root._prev`")
        return (f"left out {len(missing)} of the {len(expected)} nodes, such as "
                f"{', '.join(name(node) for node in missing[:3])}: `build_topo(v)` must call "
                "itself on every input of `v`, `for child in v._prev`")
    if order[-1] is not root:
        return (f"should end with the root, {root_name}, but ended with {name(order[-1])}: "
                "`build_topo(root)` appends the root last")
    for node in order:
        for child in node._prev:
            if position[id(child)] > position[id(node)]:
                return (f"put {name(node)} (at position {position[id(node)]}) before its input "
                        f"{name(child)} (at {position[id(child)]}): `build_topo(v)` appends `v` "
                        "only after going into every one of its inputs")
    return None


def _data_key(node):
    data = getattr(node, "data", None)
    try:
        hash(data)
    except TypeError:
        return id(node)
    return ("data", data)


def _expect_recursive(sort, root, names, graph):
    """Fail unless `sort(root)` is a right topological order of `root`'s graph."""
    def name(node):
        return names.get(id(node)) or show(node)

    what = f"{_sort_name(sort)} on {graph}"
    problem = _recursive_problem(sort(root), root, name)
    if problem is not None:
        fail(f"{what} {problem}")


@check("the diamond d = (a + 1)·(2a): every node once, each after its inputs, d last",
       timeout_hint=NO_VISITED)
def recursive_diamond(sort, Value):
    root, names = _shape_of_diamond(Value)
    _expect_recursive(sort, root, names, "the diamond d = (a + 1)·(2a)")


@check("s = x + y, with x and y two different values that both hold 2: both listed",
       timeout_hint=NO_VISITED)
def recursive_twins(sort, Value):
    root, names = _shape_of_twins(Value)
    _expect_recursive(sort, root, names, "s = x + y (x and y both 2.0)")


@check(f"random graphs with shared nodes: every node once, after its inputs, the root last "
       f"(seeds {SEEDS[0]} to {SEEDS[-1]}, each also with its operands swapped), twice each",
       timeout_hint=NO_VISITED)
def recursive_random_graphs(sort, Value):
    for mirrored in (False, True):
        for seed in SEEDS:
            root, names = _labelled_random_graph(Value, seed, mirrored)
            graph = (f"random graph {seed}{', operands swapped' if mirrored else ''} "
                     f"(root {names[id(root)]})")
            _expect_recursive(sort, root, names, graph)
            _expect_recursive(sort, root, names, f"{graph}, called a second time")


@check("the article's order: inputs taken in `_prev`'s order, each node when its inputs are "
       "done", timeout_hint=NO_VISITED)
def recursive_article_order(sort, Value):
    for mirrored in (False, True):
        for seed in SEEDS:
            root, names = _labelled_random_graph(Value, seed, mirrored)
            order = sort(root)
            expected = _depth_first(root)
            if _same_list(order, expected):
                continue

            def name(node):
                return names.get(id(node)) or show(node)

            if _recursive_problem(order, root, name) is not None:
                fail("not checked yet: the list must be a right order first (see above)")

            what = f"{_sort_name(sort)} on random graph {seed} (root {names[id(root)]})"
            if _same_list(order, _depth_first(root, inputs=lambda node: tuple(node._prev)[::-1])):
                fail(f"{what} returned a right order, but not the article's: it takes each "
                     "node's inputs from right to left. Go through `v._prev` in its own order, "
                     "`for child in v._prev:`, so that your order matches the drawings and "
                     "`backward_order` later in the chapter")
            k = next(k for k, (mine, article) in enumerate(zip(order, expected))
                     if mine is not article)
            fail(f"{what} returned a right order, but not the article's depth-first one: "
                 f"yours lists {name(order[k])} at position {k}, where the article's lists "
                 f"{name(expected[k])}. Write `build_topo` as the docstring says: mark `v` "
                 "visited, call `build_topo` on each input in `v._prev` in turn, then append "
                 "`v`")


@check(f"a chain of {CHAIN_OF_DIAMONDS} diamonds, each node used twice: in well under a second",
       seconds=2, timeout_hint=NO_VISITED)
def recursive_chain_of_diamonds(sort, Value):
    root, names = _chain_of_diamonds(Value, CHAIN_OF_DIAMONDS)
    _expect_recursive(sort, root, names, f"a chain of {CHAIN_OF_DIAMONDS} diamonds")


RECURSIVE = Exercise(
    5, "the recursive topological sort",
    [recursive_diamond, recursive_twins, recursive_random_graphs, recursive_article_order,
     recursive_chain_of_diamonds],
    what="your `topological_order`", unanswered=is_unwritten,
    todo="replace `...` with the body the docstring describes (a list `topo`, a set "
         "`visited` and a nested `build_topo`), run the cell, then this check again")


def check_recursive_sort(sort, Value):
    """Exercise: the article's recursive `topological_order(root)` (`build_topo` with a
    `visited` set), checked on graphs made with the learner's `Value`."""
    return RECURSIVE.check(sort, Value)


# --------------------------------------------------------------------- predict an order


def _depth_first(root, *, inputs=lambda node: node._prev, post=True):
    """The depth-first order of `root`'s graph: post-order (a value after its inputs, as the
    chapter's sort lists them) or pre-order; `inputs` picks the order the inputs are taken in."""
    order, visited = [], set()
    stack = [(root, iter(inputs(root)))]
    visited.add(id(root))
    if not post:
        order.append(root)
    while stack:
        node, rest = stack[-1]
        for child in rest:
            if id(child) not in visited:
                visited.add(id(child))
                if not post:
                    order.append(child)
                stack.append((child, iter(inputs(child))))
                break
        else:
            stack.pop()
            if post:
                order.append(node)
    return order


def _wrong_orders(root):
    """(order, hint) for the orders learners really predict instead of the depth-first one."""
    order = _depth_first(root)
    root_inputs = ", ".join(child.label for child in root._prev)
    first = root._prev[0].label if root._prev else root.label
    return [
        (order[::-1], f"that lists the output first, the order `backward()` runs the closures "
                      f"in. The sort lists each value after everything it was computed from, "
                      f"so the output, {show(root.label)}, comes last."),
        (_depth_first(root, post=False),
         "that lists each value when the search first reaches it, before its inputs. The sort "
         "lists a value only when it leaves it, once all of its inputs are listed."),
        (_depth_first(root, inputs=lambda node: tuple(node._prev)[::-1]),
         f"that follows `_prev` from right to left. The sort takes the inputs in `_prev`'s "
         f"order: `{root.label}._prev` is `({root_inputs})`, so it goes into {show(first)} first."),
        ([node for node in order if not node._prev] + [node for node in order if node._prev],
         "that lists all the leaves first. A depth-first search finishes one branch before it "
         "starts the next: as soon as all of a value's inputs are listed, the value itself "
         "comes next."),
        (breadth_first_order(root)[::-1],
         "that is a breadth-first search from the output, read backwards: level by level. "
         "This search goes deep first, as far as it can along the first input, before it looks "
         "at the second."),
    ]


def _reveal(root):
    """The answer, for the second wrong try."""
    labels = ", ".join(show(node.label) for node in _depth_first(root))
    return (f" The sort lists [{labels}]: it starts at the output, goes into its first input "
            "and on as deep as it can, lists a value as soon as everything it was computed from "
            "is listed, then goes back up to the next input.")


def _second_try():
    return ORDER.wrong_tries >= 1


def _fail_order(message, root):
    message = message if message.endswith(".") else message + "."
    if _second_try():
        fail(message + _reveal(root))
    fail(message + " Try again: after a second wrong try this check shows the answer (or "
                   "expand the solution below it).")


def _order_problem(prediction, root):
    """What makes `prediction` not a valid order of `root`'s graph, in words; None if it is."""
    order = _depth_first(root)
    by_label = {node.label: node for node in order}
    if isinstance(prediction, str):
        return ("write a list of strings, one label each, such as `['a', 'b', ...]`, not one "
                "string")
    if not isinstance(prediction, (list, tuple)):
        return f"the prediction should be a list of labels, but was {show(prediction)}"
    if any(hasattr(p, "_prev") for p in prediction):
        return ("write each value's label as a string, such as `'a'`, not the value itself "
                "(a value is named by its label in the drawing)")
    odd = [p for p in prediction if not isinstance(p, str)]
    if odd:
        return f"each label should be a string, such as `'a'`, but {show(odd[0])} is not"
    unknown = [p for p in prediction if p not in by_label]
    if unknown:
        return (f"there is no value labelled {show(unknown[0])} in the graph; its labels are "
                f"{', '.join(sorted(by_label))}")
    seen = {}
    for k, label in enumerate(prediction):
        if label in seen:
            return (f"{show(label)} appears twice in your list: the sort lists each value once, "
                    "however many times it is used")
        seen[label] = k
    missing = [node for node in order if node.label not in seen]
    if missing:
        parts = []
        if root in missing:
            parts.append(f"{show(root.label)}, the output itself: the sort lists it too, last, "
                         "after everything it depends on")
        leaves = [node.label for node in missing if not node._prev]
        if leaves:
            parts.append(f"the lea{'ves' if len(leaves) > 1 else 'f'} "
                         f"{', '.join(map(show, leaves))}: the sort lists "
                         f"{'them' if len(leaves) > 1 else 'it'} too (no inputs of "
                         f"{'their' if len(leaves) > 1 else 'its'} own, but the output "
                         f"depends on {'them' if len(leaves) > 1 else 'it'})")
        middle = [node.label for node in missing if node._prev and node is not root]
        if middle:
            parts.append(f"{', '.join(map(repr, middle))}: the sort lists every value the "
                         "output depends on")
        return "your list misses " + "; and ".join(parts)
    for label in prediction:
        for child in by_label[label]._prev:
            if seen[child.label] > seen[label]:
                return (f"you listed {show(label)} before {show(child.label)}, but "
                        f"{show(label)} was computed from {show(child.label)}: a value comes "
                        "after its inputs")
    return None


def _known_wrong(prediction, root):
    if not isinstance(prediction, (list, tuple)):
        return None
    return diagnose(list(prediction), (([node.label for node in order], hint)
                                       for order, hint in _wrong_orders(root)), same=operator.eq)


def _labels_of(root):
    order = _depth_first(root)
    labels = [getattr(node, "label", "") for node in order]
    if "" in labels or len(set(labels)) != len(labels):
        raise ValueError("check_order_prediction needs a graph whose values all have "
                         "different labels")
    return order


@check("every value once, each after the values it was computed from")
def valid_order(prediction, root):
    _labels_of(root)
    hint = _known_wrong(prediction, root)
    problem = _order_problem(prediction, root)
    if problem is not None:
        _fail_order(hint or problem, root)


@check("the very order the depth-first sort gives")
def same_as_depth_first(prediction, root):
    order = _labels_of(root)
    if _order_problem(prediction, root) is not None:
        fail("not checked yet: the list must be a valid order first (see above)")
    got = [node.label for node in order]
    if list(prediction) == got:
        return
    hint = _known_wrong(prediction, root)
    if hint is None:
        k = next(k for k, (mine, sorts) in enumerate(zip(prediction, got)) if mine != sorts)
        hint = (f"a valid order (every value after its inputs), but not the one this search "
                f"gives: yours parts from it at position {k}, {show(prediction[k])}. Trace it "
                "again: start at the output, go into its first input and on as deep as you "
                "can; list a value as soon as all of its inputs are listed, then go back up.")
    _fail_order(hint, root)


ORDER = Exercise(
    5, "predict an order", [valid_order, same_as_depth_first], what="your predicted order",
    unanswered=lambda prediction: prediction is None or (
        isinstance(prediction, (list, tuple)) and not prediction),
    todo="replace `None` with the labels as a list of strings, such as `['a', 'b', ...]`, in "
         "the order you expect the sort to list the values, then run this check again")


def check_order_prediction(prediction, root):
    """Exercise: predict, as a list of labels, the order in which the depth-first sort (the
    article's `build_topo`, children taken in `_prev` order) lists the graph of `root`. The
    first wrong try gets a hint; the second shows the order."""
    return ORDER.check(prediction, root)


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
    said = (f"{what}, a.grad came out {show(grads['a'])} instead of 14 (and b.grad "
            f"{show(grads['b'])}, c.grad {show(grads['c'])}, d.grad {show(grads['d'])})")
    if fired is None:
        return said
    ran = [node for node, _ in fired]
    counts, first = {}, {}
    for k, node in enumerate(ran):
        counts[id(node)] = counts.get(id(node), 0) + 1
        first.setdefault(id(node), k)
    if not ran:
        return (f"{said}. No closure of d's graph ran: sort the graph of the value `backward()` "
                "was called on, `topological_order(self)`, and call `node._backward()` for "
                "every node of that list")
    if all(not node._prev for node in ran):
        return (f"{said}. Only the leaves' `_backward` ran, and a leaf's does nothing (it has no "
                "inputs to pass gradient to): call `_backward` on every node of the list, the "
                "output first")
    if all(node is d for node in ran):
        return (f"{said}. Only d's closure ran ({counts[id(d)]} "
                f"time{'s' if counts[id(d)] > 1 else ''}): inside the loop, call the closure "
                "of the node the loop is at, `node._backward()`, not `self._backward()`")
    if id(d) not in counts:
        return (f"{said}. d's own closure never ran, so nothing reached b and c: sort from "
                "`self`, the value `backward()` was called on (`topological_order(self)` ends "
                "with it), and run every closure of that list")
    twice = next((node for node in ran if counts[id(node)] > 1), None)
    if twice is not None:
        return (f"{said}. The closure of {name(twice)} ran {counts[id(twice)]} times, passing "
                "its gradient back each time: run each node's `_backward` exactly once")
    users = {}
    for node in _depth_first(d):
        for child in node._prev:
            users.setdefault(id(child), []).append(node)
    for k, (node, grad) in enumerate(fired):
        late = [user for user in users.get(id(node), []) if first.get(id(user), k + 1) > k]
        if node._prev and late:
            return (f"{said}. The closures ran in forward order, inputs first: {name(node)}'s "
                    f"ran before {name(late[0])}'s, which uses {name(node)}, so it passed on "
                    f"{name(node)}.grad = {show(grad)} before {name(late[0])} had added to it. "
                    "Walk the sorted list backwards, `for node in reversed(topo):`, so that "
                    "each node runs after every node that uses it")
    d_then = fired[first[id(d)]][1]
    if not is_close(d_then, 1.0):
        if is_close(grads["d"], 1.0):
            return (f"{said}. d's closure ran while d.grad was still {show(d_then)}: "
                    "`self.grad = 1.0` comes after the loop. Seed the output first, then run "
                    "the closures")
        if _zeroes_in_the_loop(Value):
            return (f"{said}. The loop sets each gradient to 0 before the closure runs, so "
                    "every closure passes on 0: `backward()` only adds to gradients. Take the "
                    "zeroing out of the loop")
        return (f"{said}. d's closure ran while d.grad was {show(d_then)}: start with "
                "`self.grad = 1.0` (the output's gradient with respect to itself), before the "
                "loop")
    wiped = [node for node, grad in fired if not is_close(node.grad, grad)
             and not is_close(grad, 0.0)]
    if wiped:
        return (f"{said}. {name(wiped[0])}.grad was {show(fired[first[id(wiped[0])]][1])} when "
                f"its closure ran, and {show(wiped[0].grad)} after `backward()`: the loop sets "
                "gradients back to 0 after the closures used them, but `backward()` only adds "
                "to gradients. Take the zeroing out of the loop")
    return said


def _zeroes_in_the_loop(Value):
    """Does the learner's `backward()` wipe a gradient a leaf already held? (A missing seed
    leaves it alone; a loop that zeroes each node it reaches does not.)"""
    nodes, _ = _diamond(Value)
    a, d = nodes["a"], nodes["d"]
    a.grad = 0.5
    d.backward()
    return is_close(a.grad, 0.0)


@check("the diamond d = (a + 1)·(2a) at a = 3: dd/da = 14, each closure run once, after every "
       "node that uses it", timeout_hint=VISITED)
def backward_diamond(Value):
    problem = _backward_problem(Value, "after `d.backward()` on the diamond d = (a + 1)·(2a) "
                                       "at a = 3")
    if problem is not None:
        fail(problem)


BACKWARD = Exercise(
    5, "backward()", [backward_diamond, seeds_one, chapter_three_expression, twice_twice,
                      random_graphs],
    what="your `backward()`", answer_of=lambda Value: getattr(Value, "backward", None),
    unanswered=is_unwritten,
    todo="replace `...` with the body the docstring describes (seed, then the loop), run the "
         "cell, then this check again")


def check_backward(Value):
    """Exercise: the learner's first `backward()` on their `Value`: seed `self.grad = 1.0`,
    then each node's `_backward` in reverse topological order."""
    return BACKWARD.check(Value)


# --------------------------------------------------------------------- the iterative sort


def _same_list(got, expected):
    """Are `got` and `expected` the same nodes in the same order (by identity)?"""
    return (isinstance(got, (list, tuple)) and len(got) == len(expected)
            and all(a is b for a, b in zip(got, expected)))


def _simulate(root, bug, limit=100_000):
    """What the stub's loop returns with one classic bug in it, on the graph of `root`; None
    if it would run longer than `limit` steps. A learner's list that matches one of these gets
    a message that names the bug, rather than only what is wrong with the list."""
    order, visited = [], {id(root)}
    stack = [(root, iter(root._prev))]
    steps = 0
    while stack:
        steps += 1
        if steps > limit:
            return None
        if bug == "pop first":  # take the entry off the stack at once, append the node at once
            node, inputs = stack.pop()
            for child in inputs:
                if id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, iter(child._prev)))
            order.append(node)
            continue
        node, inputs = stack[-1]
        pushed = False
        for child in inputs:
            if bug == "no visited" or id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                pushed = True
                if bug == "append when pushed":
                    order.append(child)
                if bug not in ("no break", "no break, with a flag"):
                    break
        if bug == "no break":  # `for ... else` without a `break`: the else always runs
            stack.pop()
            order.append(node)
        elif not pushed:
            stack.pop()
            if bug != "append when pushed":
                order.append(node)
    if bug == "reversed":
        return order[::-1]
    if bug == "no root":
        return order[:-1]
    return order


_SORT_BUGS = [
    ("no visited", "a node used twice is listed twice: before pushing an input, check that it "
                   "is not in `visited` yet, and add it to `visited` when you push it"),
    ("no break", "after pushing one input the loop goes on to push the others, and the "
                 "`else:` (which runs whenever the `for` loop ends without `break`) pops an "
                 "entry that is not finished: `break` right after pushing an input, so that it "
                 "is finished, with everything below it, before the next one is looked at"),
    ("no break, with a flag", "it pushes all of a node's unvisited inputs at once, so one "
                              "input can be finished before another input it was computed "
                              "from: push one input, then `break`, so that it is finished, with "
                              "everything below it, before the next one is looked at"),
    ("pop first", "it takes each entry off the stack and appends its node at once, before the "
                  "node's inputs are listed: leave the entry on the stack (look at `stack[-1]`) "
                  "until it has no unvisited input left, then pop it and append its node"),
    ("append when pushed", "it appends each node when it is pushed, before its inputs are "
                           "listed (and never appends the root): append a node when its entry "
                           "is popped, once everything below it is listed"),
    ("reversed", "it is a right order backwards, the root first: return `order` as the loop "
                 "builds it, each node after its inputs; `backward()` walks it in reverse"),
    ("no root", "it lists everything except the root itself: the root's entry is on the stack "
                "from the start; pop it and append it like any other node, last"),
]


def _expect_topological(order, root, what, names):
    """Fail unless `order` lists everything `root` depends on once, children first, root last.
    `names` maps id(node) to the label the check gave it, so that messages name nodes. A list
    that is wrong is compared with what each classic bug gives, to name the bug; a right list
    passes, whichever way it was found."""

    def name(node):
        return names.get(id(node)) or getattr(node, "label", "") or show(node)

    returned(order,
             none=f"{what} returned None: the function has no `return`; end it with `return "
                  "order`",
             kind=lambda order: isinstance(order, (list, tuple)),
             wrong=lambda order: f"{what} should return a list of nodes, but returned "
                                 f"{show(order)}")
    problem = _sort_problem(order, root, name)
    if problem is None:
        return
    simulated = ((lambda bug=bug: _simulate(root, bug), why) for bug, why in _SORT_BUGS)
    why = diagnose(order, simulated, same=_same_list)
    if why is not None:
        fail(f"{what} returned {_listing(order, name)}: {why}")
    fail(f"{what} {problem}")


def _sort_problem(order, root, name):
    """What is wrong with the list `order` as a topological order of `root`'s graph, in words
    that follow "`sort` on graph 0 ..."; None if nothing is."""
    root_name = name(root)
    expected = reverse_topological_order(root)
    known = {id(node) for node in expected}
    for k, node in enumerate(order):
        if isinstance(node, tuple) and node and id(node[0]) in known:
            return (f"listed a stack entry, ({name(node[0])}, <iterator>), at position {k}: "
                    "append the node alone, `order.append(node)`")
    position = {}
    for k, node in enumerate(order):
        if id(node) in position:
            return (f"listed {name(node)} twice (positions {position[id(node)]} and {k}): "
                    "remember which nodes you have visited, and push a node only if it is not "
                    "in `visited` yet")
        position[id(node)] = k
    if id(root) not in position:
        return (f"never listed the root, {root_name}, itself: it comes last, once everything "
                "it depends on is listed (pop its entry and append it like any other node)")
    missing = [node for node in expected if id(node) not in position]
    if missing:
        return (f"left out {len(missing)} of the {len(expected)} nodes, such as "
                f"{', '.join(name(node) for node in missing[:3])}: follow `_prev` from every "
                "node you visit")
    if len(order) != len(expected):
        return (f"returned {len(order)} nodes, but the graph has only {len(expected)}: did "
                "nodes from an earlier call stay in a list or set that outlived it?")
    if order[-1] is not root:
        return (f"should end with the root, {root_name}, but ended with {name(order[-1])}"
                + (" and began with the root: list each node after its children, so that "
                   "`reversed(order)` is the order for backward()" if order[0] is root else ""))
    for node in order:
        for child in node._prev:
            if position[id(child)] > position[id(node)]:
                return (f"put {name(node)} (at position {position[id(node)]}) before its input "
                        f"{name(child)} (at {position[id(child)]}): a node must come after "
                        "everything it was computed from")
    return None


def _listing(order, name, most=8):
    """`[x0, x1, n3, ...]` for a message: the first few nodes by name."""
    shown = ", ".join(name(node) for node in order[:most])
    return f"[{shown}{', ...' if len(order) > most else ''}] ({len(order)} nodes)"


def _sort_name(sort):
    name = getattr(sort, "__name__", "")
    return f"`{name if name.isidentifier() else 'sort'}`"


def _labelled_random_graph(Value, seed, mirrored=False):
    """Random graph `seed` built with the constructor alone (its shape is all a sort needs),
    each node labelled: inputs x0, x1, x2, then n3, n4, ... in the order they are made.

    Each operation's first input is the node just before it; `mirrored` swaps the two inputs,
    so that the second is the one the first was computed from: a sort that pushes all of a
    node's inputs at once gets the order right on one of the two and wrong on the other.
    """
    inputs, steps = random_program(seed)
    nodes = [Value(x) for x in inputs]
    for op, i, j in steps:
        operands = (nodes[j], nodes[i]) if mirrored else (nodes[i], nodes[j])
        nodes.append(Value(0.0, operands[:1] if op == "tanh" else operands, op))
    names = {}
    for k, node in enumerate(nodes):
        names[id(node)] = f"x{k}" if k < len(inputs) else f"n{k}"
        try:
            node.label = names[id(node)]
        except AttributeError:  # a class without a label: the messages still use the names
            pass
    return nodes[-1], names


@check(f"random graphs: every node once, after its children, the root last (seeds "
       f"{SEEDS[0]} to {SEEDS[-1]}, each also with its operands swapped)", timeout_hint=STUCK_LOOP)
def sorts_random_graphs(sort, Value):
    for mirrored in (False, True):
        for seed in SEEDS:
            root, names = _labelled_random_graph(Value, seed, mirrored)
            graph = f"random graph {seed}{', operands swapped' if mirrored else ''}"
            what = f"{_sort_name(sort)} on {graph} (root {names[id(root)]})"
            _expect_topological(sort(root), root, what, names)
            _expect_topological(sort(root), root, f"a second call of {what}", names)


@check(f"a chain {DEPTH:,} nodes deep, at the default recursion limit", seconds=30,
       timeout_hint=f"{STUCK_LOOP} And {IN_A_SET}")
def sorts_deep_chain(sort, Value):
    chain = [Value(0.0)]
    for _ in range(DEPTH):
        chain.append(Value(0.0, (chain[-1],), "+1"))
    what = _sort_name(sort)
    with default_recursion_limit():
        order = call(sort, chain[-1], raised=lambda error: (
            f"{what} raised RecursionError on a chain {DEPTH:,} nodes deep: each recursive call "
            f"takes a Python frame, and Python allows about {DEFAULT_RECURSION_LIMIT:,}; keep "
            "the nodes still to visit on a list of your own (an explicit stack)"
        ) if isinstance(error, RecursionError) else None,
            none=f"{what} returned None on the chain: the function has no `return`; end it "
                 "with `return order`")
    expect(isinstance(order, (list, tuple)) and len(order) == len(chain),
           f"{what} on the chain should return its {len(chain):,} nodes, but returned "
           f"{len(order) if isinstance(order, (list, tuple)) else show(order)}")
    expect(all(got is node for got, node in zip(order, chain)),
           "on a chain there is only one valid order, from the first node to the last, but "
           f"{what} returned another")


SORT = Exercise(
    5, "an iterative topological sort", [sorts_random_graphs, sorts_deep_chain],
    what="your `iterative_topological_order`", unanswered=is_unwritten,
    todo="replace `...` with the loop, run the cell, then this check again")


def check_topological_sort(sort, Value):
    """Exercise: the iterative topological sort `sort(root)` (see the module docstring)."""
    return SORT.check(sort, Value)
