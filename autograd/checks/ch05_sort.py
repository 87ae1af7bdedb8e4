"""Chapter 5 · the iterative sort: `sort(root)` with an explicit stack, checked (see `ch05`)."""

from .toolbox import (
    DEFAULT_RECURSION_LIMIT,
    Exercise,
    call,
    check,
    default_recursion_limit,
    diagnose,
    expect,
    fail,
    is_unwritten,
    returned,
    reverse_topological_order,
    show,
)
from .ch05_graphs import (
    DEPTH,
    SEEDS,
    IN_A_SET,
    STUCK_LOOP,
    _same_list,
    _listing,
    _sort_name,
    _labelled_random_graph,
)


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
    (
        "no visited",
        "a node used twice is listed twice: before pushing an input, check that it "
        "is not in `visited` yet, and add it to `visited` when you push it",
    ),
    (
        "no break",
        "after pushing one input the loop goes on to push the others, and the "
        "`else:` (which runs whenever the `for` loop ends without `break`) pops an "
        "entry that is not finished: `break` right after pushing an input, so that it "
        "is finished, with everything below it, before the next one is looked at",
    ),
    (
        "no break, with a flag",
        "it pushes all of a node's unvisited inputs at once, so one "
        "input can be finished before another input it was computed "
        "from: push one input, then `break`, so that it is finished, with "
        "everything below it, before the next one is looked at",
    ),
    (
        "pop first",
        "it takes each entry off the stack and appends its node at once, before the "
        "node's inputs are listed: leave the entry on the stack (look at `stack[-1]`) "
        "until it has no unvisited input left, then pop it and append its node",
    ),
    (
        "append when pushed",
        "it appends each node when it is pushed, before its inputs are "
        "listed (and never appends the root): append a node when its entry "
        "is popped, once everything below it is listed",
    ),
    (
        "reversed",
        "it is a right order backwards, the root first: return `order` as the loop "
        "builds it, each node after its inputs; `backward()` walks it in reverse",
    ),
    (
        "no root",
        "it lists everything except the root itself: the root's entry is on the stack "
        "from the start; pop it and append it like any other node, last",
    ),
]


def _expect_topological(order, root, what, names):
    """Fail unless `order` lists everything `root` depends on once, children first, root last.
    `names` maps id(node) to the label the check gave it, so that messages name nodes. A list
    that is wrong is compared with what each classic bug gives, to name the bug; a right list
    passes, whichever way it was found."""

    def name(node):
        return names.get(id(node)) or getattr(node, "label", "") or show(node)

    returned(
        order,
        none=f"{what} returned None: the function has no `return`; end it with `return order`",
        kind=lambda order: isinstance(order, (list, tuple)),
        wrong=lambda order: f"{what} should return a list of nodes, but returned {show(order)}",
    )
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
            return (
                f"listed a stack entry, ({name(node[0])}, <iterator>), at position {k}: "
                "append the node alone, `order.append(node)`"
            )
    position = {}
    for k, node in enumerate(order):
        if id(node) in position:
            return (
                f"listed {name(node)} twice (positions {position[id(node)]} and {k}): "
                "remember which nodes you have visited, and push a node only if it is not "
                "in `visited` yet"
            )
        position[id(node)] = k
    if id(root) not in position:
        return (
            f"never listed the root, {root_name}, itself: it comes last, once everything "
            "it depends on is listed (pop its entry and append it like any other node)"
        )
    missing = [node for node in expected if id(node) not in position]
    if missing:
        return (
            f"left out {len(missing)} of the {len(expected)} nodes, such as "
            f"{', '.join(name(node) for node in missing[:3])}: follow `_prev` from every "
            "node you visit"
        )
    if len(order) != len(expected):
        return (
            f"returned {len(order)} nodes, but the graph has only {len(expected)}: did "
            "nodes from an earlier call stay in a list or set that outlived it?"
        )
    if order[-1] is not root:
        return f"should end with the root, {root_name}, but ended with {name(order[-1])}" + (
            " and began with the root: list each node after its children, so that "
            "`reversed(order)` is the order for backward()"
            if order[0] is root
            else ""
        )
    for node in order:
        for child in node._prev:
            if position[id(child)] > position[id(node)]:
                return (
                    f"put {name(node)} (at position {position[id(node)]}) before its input "
                    f"{name(child)} (at {position[id(child)]}): a node must come after "
                    "everything it was computed from"
                )
    return None


@check(
    f"random graphs: every node once, after its children, the root last (seeds "
    f"{SEEDS[0]} to {SEEDS[-1]}, each also with its operands swapped)",
    timeout_hint=STUCK_LOOP,
)
def sorts_random_graphs(sort, Value):
    for mirrored in (False, True):
        for seed in SEEDS:
            root, names = _labelled_random_graph(Value, seed, mirrored)
            graph = f"random graph {seed}{', operands swapped' if mirrored else ''}"
            what = f"{_sort_name(sort)} on {graph} (root {names[id(root)]})"
            _expect_topological(sort(root), root, what, names)
            _expect_topological(sort(root), root, f"a second call of {what}", names)


@check(
    f"a chain {DEPTH:,} nodes deep, at the default recursion limit",
    seconds=30,
    timeout_hint=f"{STUCK_LOOP} And {IN_A_SET}",
)
def sorts_deep_chain(sort, Value):
    chain = [Value(0.0)]
    for _ in range(DEPTH):
        chain.append(Value(0.0, (chain[-1],), "+1"))
    what = _sort_name(sort)
    with default_recursion_limit():
        order = call(
            sort,
            chain[-1],
            raised=lambda error: (
                (
                    f"{what} raised RecursionError on a chain {DEPTH:,} nodes deep: each recursive call "
                    f"takes a Python frame, and Python allows about {DEFAULT_RECURSION_LIMIT:,}; keep "
                    "the nodes still to visit on a list of your own (an explicit stack)"
                )
                if isinstance(error, RecursionError)
                else None
            ),
            none=f"{what} returned None on the chain: the function has no `return`; end it "
            "with `return order`",
        )
    expect(
        isinstance(order, (list, tuple)) and len(order) == len(chain),
        f"{what} on the chain should return its {len(chain):,} nodes, but returned "
        f"{len(order) if isinstance(order, (list, tuple)) else show(order)}",
    )
    expect(
        all(got is node for got, node in zip(order, chain)),
        "on a chain there is only one valid order, from the first node to the last, but "
        f"{what} returned another",
    )


SORT = Exercise(
    5,
    "an iterative topological sort",
    [sorts_random_graphs, sorts_deep_chain],
    what="your `iterative_topological_order`",
    unanswered=is_unwritten,
    todo="replace `...` with the loop, run the cell, then this check again",
)


def check_topological_sort(sort, Value):
    """Exercise: the iterative topological sort `sort(root)` (see the module docstring)."""
    return SORT.check(sort, Value)
