"""Chapter 5 · the recursive sort: the article's `topological_order(root)`, checked (see `ch05`)."""

from .toolbox import Exercise, check, fail, is_unwritten, show
from .ch05_graphs import (
    SEEDS,
    _named,
    _depth_first,
    _same_list,
    _listing,
    _sort_name,
    _labelled_random_graph,
)


# --------------------------------------------------------------------- the recursive sort
# The article's `topological_order`: a list `topo`, a set `visited`, and a nested
# `build_topo(v)` that marks v visited, calls itself on v's inputs, then appends v. The checks
# build their graphs with the learner's constructor alone, `Value(data, children, op)`, and
# keep them shallow (a few dozen calls deep at most), so that a right recursive sort never
# meets the recursion limit here.

CHAIN_OF_DIAMONDS = 40  # diamonds in a row: without `visited`, 2**40 paths to the first node
NO_VISITED = (
    "without a `visited` set, `build_topo` goes into a shared node once for every "
    f"path that leads to it, and this chain of {CHAIN_OF_DIAMONDS} diamonds has "
    f"2^{CHAIN_OF_DIAMONDS} paths from its end to its start: add each node to "
    "`visited` when `build_topo` first reaches it, and go into a node only if it is "
    "not in `visited` yet"
)


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


def _not_a_list(order):
    """What is wrong with `order` when it is not a list of nodes at all (None, an iterator, an
    empty list); None if it is a list with something in it."""
    if order is None:
        return (
            "returned None: the function has no `return`; end it with `return topo`, "
            "after calling `build_topo(root)`"
        )
    if type(order).__name__ == "list_reverseiterator":
        return (
            "returned `reversed(topo)`, the list backwards (and an iterator, not a list): "
            "return `topo` as `build_topo` built it, each node after its inputs; "
            "`backward()` is the one that walks it in reverse"
        )
    if not isinstance(order, (list, tuple)):
        return f"should return a list of nodes, but returned {show(order)}"
    if not order:
        return (
            "returned an empty list: did you call `build_topo(root)` before `return topo`, "
            "and does `build_topo(v)` append `v` to `topo` once it has been through v's "
            "inputs?"
        )
    return None


def _recursive_problem(order, root, name):
    """What is wrong with `order`, the learner's `topological_order(root)`, in words that
    follow "`topological_order` on <graph> ..."; None if it is a right order."""
    root_name = name(root)
    expected = _depth_first(root)
    problem = _not_a_list(order)
    if problem is not None:
        return problem
    known = {id(node) for node in expected}
    strangers = [item for item in order if id(item) not in known]
    if strangers and not any(hasattr(item, "_prev") for item in strangers):
        return (
            f"listed {show(strangers[0])}, which is not a node of the graph: append the "
            "node itself, `topo.append(v)`"
        )
    position = {}
    for k, node in enumerate(order):
        if id(node) in position:
            return (
                f"listed {name(node)} twice (positions {position[id(node)]} and {k}): "
                f"{name(node)} is used by two nodes, and `build_topo` went into it once "
                "from each. Keep a set `visited`: add `v` to it when `build_topo` first "
                "reaches `v`, and go into a node only if it is not in `visited` yet"
            )
        position[id(node)] = k
    if _same_list(order, [root]) and len(expected) > 1:
        return (
            f"returned only the root, [{root_name}]: `build_topo(v)` must call itself on "
            "each of v's inputs, `for child in v._prev: build_topo(child)`, before it "
            "appends `v`"
        )
    if _same_list(order, expected[::-1]):
        return (
            f"returned {_listing(order, name)}: a right order backwards, the root first. "
            "Return `topo` as `build_topo` built it, each node after its inputs; "
            "`backward()` is the one that walks it in reverse"
        )
    if _same_list(order, _depth_first(root, post=False)):
        return (
            f"returned {_listing(order, name)}: each node before its inputs, the root "
            "first. `build_topo(v)` appends `v` before going into its inputs; append it "
            "after the loop over `v._prev`, once all of them are in `topo`"
        )
    if len(order) > len(expected):
        return (
            f"returned {len(order)} nodes, but the graph has only {len(expected)}: did "
            "nodes from an earlier call stay in a `topo` or `visited` made outside the "
            "function? Make both afresh inside `topological_order`, on every call"
        )
    missing = [node for node in expected if id(node) not in position]
    if missing:
        return _left_out(order, root, name, expected, missing, position)
    if order[-1] is not root:
        return (
            f"should end with the root, {root_name}, but ended with {name(order[-1])}: "
            "`build_topo(root)` appends the root last"
        )
    for node in order:
        for child in node._prev:
            if position[id(child)] > position[id(node)]:
                return (
                    f"put {name(node)} (at position {position[id(node)]}) before its input "
                    f"{name(child)} (at {position[id(child)]}): `build_topo(v)` appends `v` "
                    "only after going into every one of its inputs"
                )
    return None


def _left_out(order, root, name, expected, missing, position):
    """What `order` says about the nodes of the graph it left out (`missing`), for
    `_recursive_problem`: a twin taken for its look-alike, the root, or the inputs' inputs."""
    root_name = name(root)
    listed_data = {}
    for node in order:
        listed_data.setdefault(_data_key(node), node)
    twin = next((node for node in missing if _data_key(node) in listed_data), None)
    if twin is not None and len(listed_data) == len(order):
        other = listed_data[_data_key(twin)]
        return (
            f"left out {name(twin)}, a different node that holds the same number as "
            f"{name(other)} ({show(twin.data)}): a `visited` set of `.data` takes the "
            f"two for one node. Put the nodes themselves in `visited`, `visited.add(v)`"
            ", and ask `v not in visited`"
        )
    if id(root) not in position:
        return (
            f"never listed the root, {root_name}, itself: `build_topo(root)` appends "
            "it last, once everything it depends on is in `topo`"
        )
    near = {id(root)} | {id(child) for child in root._prev}
    if all(id(node) in near for node in order):
        return (
            f"left out {', '.join(name(node) for node in missing[:3])}, the inputs of "
            f"{root_name}'s inputs: `build_topo(v)` must go through the inputs of "
            f"the node it was given, `v._prev`, not `root._prev`"
        )
    return (
        f"left out {len(missing)} of the {len(expected)} nodes, such as "
        f"{', '.join(name(node) for node in missing[:3])}: `build_topo(v)` must call "
        "itself on every input of `v`, `for child in v._prev`"
    )


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


@check(
    "the diamond d = (a + 1)·(2a): every node once, each after its inputs, d last",
    timeout_hint=NO_VISITED,
)
def recursive_diamond(sort, Value):
    root, names = _shape_of_diamond(Value)
    _expect_recursive(sort, root, names, "the diamond d = (a + 1)·(2a)")


@check(
    "s = x + y, with x and y two different values that both hold 2: both listed",
    timeout_hint=NO_VISITED,
)
def recursive_twins(sort, Value):
    root, names = _shape_of_twins(Value)
    _expect_recursive(sort, root, names, "s = x + y (x and y both 2.0)")


@check(
    f"random graphs with shared nodes: every node once, after its inputs, the root last "
    f"(seeds {SEEDS[0]} to {SEEDS[-1]}, each also with its operands swapped), twice each",
    timeout_hint=NO_VISITED,
)
def recursive_random_graphs(sort, Value):
    for mirrored in (False, True):
        for seed in SEEDS:
            root, names = _labelled_random_graph(Value, seed, mirrored)
            graph = (
                f"random graph {seed}{', operands swapped' if mirrored else ''} "
                f"(root {names[id(root)]})"
            )
            _expect_recursive(sort, root, names, graph)
            _expect_recursive(sort, root, names, f"{graph}, called a second time")


@check(
    "the article's order: inputs taken in `_prev`'s order, each node when its inputs are done",
    timeout_hint=NO_VISITED,
)
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
                fail(
                    f"{what} returned a right order, but not the article's: it takes each "
                    "node's inputs from right to left. Go through `v._prev` in its own order, "
                    "`for child in v._prev:`, so that your order matches the drawings and "
                    "`backward_order` later in the chapter"
                )
            k = next(
                k for k, (mine, article) in enumerate(zip(order, expected)) if mine is not article
            )
            fail(
                f"{what} returned a right order, but not the article's depth-first one: "
                f"yours lists {name(order[k])} at position {k}, where the article's lists "
                f"{name(expected[k])}. Write `build_topo` as the docstring says: mark `v` "
                "visited, call `build_topo` on each input in `v._prev` in turn, then append "
                "`v`"
            )


@check(
    f"a chain of {CHAIN_OF_DIAMONDS} diamonds, each node used twice: in well under a second",
    seconds=2,
    timeout_hint=NO_VISITED,
)
def recursive_chain_of_diamonds(sort, Value):
    root, names = _chain_of_diamonds(Value, CHAIN_OF_DIAMONDS)
    _expect_recursive(sort, root, names, f"a chain of {CHAIN_OF_DIAMONDS} diamonds")


RECURSIVE = Exercise(
    5,
    "the recursive topological sort",
    [
        recursive_diamond,
        recursive_twins,
        recursive_random_graphs,
        recursive_article_order,
        recursive_chain_of_diamonds,
    ],
    what="your `topological_order`",
    unanswered=is_unwritten,
    todo="replace `...` with the body the docstring describes (a list `topo`, a set "
    "`visited` and a nested `build_topo`), run the cell, then this check again",
)


def check_recursive_sort(sort, Value):
    """Exercise: the article's recursive `topological_order(root)` (`build_topo` with a
    `visited` set), checked on graphs made with the learner's `Value`."""
    return RECURSIVE.check(sort, Value)
