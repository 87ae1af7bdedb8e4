"""Chapter 2 · The Value node and the computational graph — checkpoint and exercise checks.

What the chapter asks for: a class `Value(data, _children=(), _op="", label="")` whose objects
hold `data` (an int or float, stored as a float; anything else is refused with a TypeError that
says what was given), `grad` (0.0 to start), `_prev` (the children as a tuple, in the order
given), `_op`, `label`, and `_backward` (on a leaf, a function that does nothing); and whose
repr is the article's `Value(data=2.0000, grad=0.0000)`.
"""

import math
from collections import Counter

from . import check, expect, expect_children, fail, run_checks, show

__all__ = [
    "checkpoint", "check_rejects_non_numbers", "check_count_nodes", "check_hand_built_L",
    "check_value_used_twice",
]

NOT_NUMBERS = ["2.0", None, True, 1 + 2j]


@check("`data` is stored as a float")
def data_is_float(Value):
    for given in (2.0, 3, -7):
        data = Value(given).data
        expect(type(data) is float and data == given,
               f"`Value({given!r}).data` should be the float {float(given)!r}, but was "
               f"{data!r} of type {type(data).__name__}: store `float(data)`")


@check("a new value starts with `grad` 0.0, no children, no op and no label")
def fresh_leaf(Value):
    v = Value(2.0)
    expect(v.grad == 0.0, f"a new value's `grad` should be 0.0, but was {v.grad!r}")
    expect(v._prev == () and isinstance(v._prev, tuple),
           f"a value made from nothing should have `_prev` equal to `()`, but it was "
           f"{show(v._prev)}")
    expect(v._op == "", f"a leaf's `_op` should be the empty string, but was {v._op!r}")
    expect(v.label == "", f"`label` should default to the empty string, but was {v.label!r}")


@check("`_prev` keeps the children as a tuple, in the order given")
def children_in_order(Value):
    a, b = Value(2.0), Value(-3.0)
    names = {id(a): "a", id(b): "b"}
    expect_children(Value(-1.0, (a, b), "+"), (a, b), names, "Value(-1.0, (a, b), '+')")
    expect_children(Value(-1.0, (b, a), "+"), (b, a), names, "Value(-1.0, (b, a), '+')")
    # A value used twice keeps both edges; a set would keep one.
    expect_children(Value(4.0, (a, a), "*"), (a, a), names, "Value(4.0, (a, a), '*')")


@check("`_op` and `label` are kept")
def op_and_label(Value):
    a = Value(2.0, label="a")
    expect(a.label == "a", f"`Value(2.0, label='a').label` should be 'a', but was {a.label!r}")
    v = Value(4.0, (a, a), "*", label="y")
    expect(v._op == "*", f"`Value(4.0, (a, a), '*')._op` should be '*', but was {v._op!r}")
    expect(v.label == "y", f"the label given as `label='y'` should be kept, but was {v.label!r}")


@check("repr is the article's `Value(data=2.0000, grad=0.0000)`")
def article_repr(Value):
    got = repr(Value(2.0))
    expect(got == "Value(data=2.0000, grad=0.0000)",
           f"`repr(Value(2.0))` should be 'Value(data=2.0000, grad=0.0000)', but was {got!r}")
    v = Value(-3.14159)
    v.grad = 0.5
    got = repr(v)
    expect(got == "Value(data=-3.1416, grad=0.5000)",
           "with data -3.14159 and grad 0.5 the repr should be "
           f"'Value(data=-3.1416, grad=0.5000)' (four decimals, `:.4f`), but was {got!r}")


@check("refuses non-numbers (str, None, bool, complex) with a TypeError that says what was given")
def rejects_non_numbers(Value):
    for bad in NOT_NUMBERS:
        try:
            made = Value(bad)
        except TypeError as error:
            said = str(error)
            expect(repr(bad) in said or type(bad).__name__ in said,
                   f"`Value({bad!r})` raised TypeError, but its message {said!r} does not say "
                   f"what was given (name the value, {bad!r}, or its type, "
                   f"{type(bad).__name__})")
        except Exception as error:
            fail(f"`Value({bad!r})` should raise TypeError, but raised {type(error).__name__}: "
                 f"{error}")
        else:
            hint = " (True is an int to Python, so test for bool first)" if bad is True else ""
            held = show(getattr(made, "data", made))
            fail(f"`Value({bad!r})` should raise TypeError, but it made a value holding "
                 f"{held}{hint}")


@check("a leaf's `_backward` can be called and does nothing")
def leaf_backward_is_a_no_op(Value):
    v = Value(2.0)
    expect(callable(v._backward), f"`_backward` should be a function, but was {show(v._backward)}")
    v.grad = 5.0
    result = v._backward()
    expect(result is None,
           f"a leaf's `_backward()` should return nothing, but returned {show(result)}")
    expect(v.grad == 5.0 and v.data == 2.0,
           "a leaf's `_backward()` should change nothing, but it changed the leaf to "
           f"data={v.data!r}, grad={v.grad!r}")


CHECKPOINT = [
    data_is_float, fresh_leaf, children_in_order, op_and_label, article_repr,
    rejects_non_numbers, leaf_backward_is_a_no_op,
]


def checkpoint(Value):
    """Chapter 2's specification, run on the learner's Value class."""
    return run_checks("Chapter 2 checkpoint: the Value node", CHECKPOINT, Value)


# --------------------------------------------------------------------- exercises


def check_rejects_non_numbers(Value):
    """Exercise: refuse anything that is not an int or a float, with a clear TypeError."""
    return run_checks("Exercise: refuse non-numbers", [data_is_float, rejects_non_numbers], Value)


def _graphs(Value):
    """(description, root, number of distinct nodes) for graphs built with the constructor."""
    leaf = Value(1.0)
    # The chapter's L = (a·b + c)·f: four leaves, e = a·b, d = e + c, L = d·f.
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e = Value(-6.0, (a, b), "*")
    d = Value(4.0, (e, c), "+")
    L = Value(-8.0, (d, f), "*")
    # x used twice by the same node: two edges, one node.
    x = Value(3.0)
    twice = Value(6.0, (x, x), "+")
    # A diamond: p feeds q and r, and s uses both.
    p = Value(3.0)
    q, r = Value(4.0, (p,), "+1"), Value(6.0, (p,), "*2")
    s = Value(24.0, (q, r), "*")
    return [
        ("a single value", leaf, 1),
        ("L = (a·b + c)·f", L, 7),
        ("y = x + x", twice, 2),
        ("the diamond s = q·r with q and r both made from p", s, 4),
    ]


@check("`count_nodes` counts every value once, however many paths lead to it")
def counts_nodes(count_nodes, Value):
    for description, root, expected in _graphs(Value):
        got = count_nodes(root)
        if isinstance(got, int) and got > expected:
            hint = (": a value reached along two edges was counted twice; keep a set of the "
                    "nodes already seen")
        elif isinstance(got, int) and got < expected:
            hint = ": some values were missed; visit the children in `_prev` of every node"
        else:
            hint = ""
        expect(got == expected,
               f"`count_nodes` on {description} should be {expected}, but was {got!r}{hint}")


def check_count_nodes(count_nodes, Value):
    """Exercise: `count_nodes(root)`, the number of distinct values `root` was computed from
    (itself included)."""
    return run_checks("Exercise: count_nodes", [counts_nodes], count_nodes, Value)


@check("L = (a·b + c)·f, built by hand, has the right values and structure")
def hand_built_L(L):
    expect(L.data == -8.0, f"L should be (2·(−3) + 10)·(−2) = −8.0, but `L.data` was {L.data!r}")
    expect(L._op == "*", f"L is d·f, so `L._op` should be '*', but was {L._op!r}")
    expect(len(L._prev) == 2, f"L = d·f should have two children, but has {len(L._prev)}")
    d, f = sorted(L._prev, key=lambda v: v.data, reverse=True)
    expect((d.data, f.data) == (4.0, -2.0),
           f"L's children should be d = 4.0 and f = −2.0, but were {d.data!r} and {f.data!r}")
    expect(d._op == "+" and len(d._prev) == 2,
           f"d = e + c should have `_op` '+' and two children, but has {d._op!r} and "
           f"{len(d._prev)}")
    c, e = sorted(d._prev, key=lambda v: v.data, reverse=True)
    expect((c.data, e.data) == (10.0, -6.0),
           f"d's children should be e = −6.0 and c = 10.0, but were {e.data!r} and {c.data!r}")
    expect(e._op == "*" and sorted(v.data for v in e._prev) == [-3.0, 2.0],
           f"e = a·b should have `_op` '*' and children a = 2.0 and b = −3.0, but has "
           f"{e._op!r} and {[v.data for v in e._prev]}")


def check_hand_built_L(L):
    """Exercise: the expression L = (a·b + c)·f built node by node with the constructor."""
    return run_checks("Exercise: build L by hand", [hand_built_L], L)


def _walk(root):
    """Every node of the graph that ends at `root`, once each (by identity)."""
    nodes, seen, stack = [], {id(root)}, [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child in node._prev:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return nodes


def _name(node):
    label = getattr(node, "label", "")
    return f"`{label}`" if label else f"the value holding {node.data!r}"


_COMBINE = {"+": math.fsum, "*": math.prod}


@check("one value is used twice, and each + and * node holds what its children make")
def value_used_twice(y):
    if not all(hasattr(y, name) for name in ("data", "_prev", "_op")):
        fail(f"`y` should be a Value built with the constructor, such as "
             f"`Value(9.0, (x, x), '*')`, but was {show(y)}")
    nodes = _walk(y)
    uses = Counter(id(child) for node in nodes for child in node._prev)
    if not uses or max(uses.values()) < 2:
        fail("no value in y's graph is used twice: every value appears in only one `_prev`, "
             "once. Give one value two uses: as both children of one node, as in "
             "`Value(9.0, (x, x), '*')`, or as a child of two different nodes.")
    for node in nodes:
        if node._op in _COMBINE and node._prev:
            made = _COMBINE[node._op]([child.data for child in node._prev])
            expect(math.isclose(node.data, made, rel_tol=1e-9, abs_tol=1e-12),
                   f"{_name(node)} has `_op` {node._op!r} and children holding "
                   f"{[child.data for child in node._prev]}, so its data should be {made!r}, "
                   f"but it is {node.data!r}")


def check_value_used_twice(y):
    """Exercise: a graph, built with the constructor, in which one value is used twice."""
    return run_checks("Exercise: a value used twice", [value_used_twice], y)
