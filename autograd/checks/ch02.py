"""Chapter 2 · The Value node and the computational graph — checkpoint and exercise checks.

What the chapter asks for: a class `Value(data, _children=(), _op="", label="")` whose objects
hold `data` (an int or float, stored as a float; anything else is refused with a TypeError that
says what was given), `grad` (0.0 to start), `_prev` (the children as a tuple, in the order
given), `_op`, `label`, and `_backward` (on a leaf, a function that does nothing); and whose
repr is the article's `Value(data=2.0000, grad=0.0000)`.

The chapter's exercises: a constructor that refuses non-numbers (`REJECT`), `count_nodes`
(`COUNT_NODES`) and y = x·x + x built by hand (`USED_TWICE`).
"""

import io
import math
import operator
import sys
from contextlib import redirect_stdout

from ..graph import topological_order
from .toolbox import (
    Exercise,
    check,
    declare_checkpoint,
    describe_nodes,
    diagnose,
    expect,
    expect_children,
    fail,
    is_int,
    returned,
    run_checks,
    show,
    _text,
    untouched_stub,
)

__all__ = [
    "checkpoint",
    "check_rejects_non_numbers",
    "check_count_nodes",
    "check_hand_built_L",
    "check_value_used_twice",
]

NOT_NUMBERS = ["2.0", None, True, 1 + 2j]


@check("`data` is stored as a float")
def data_is_float(Value):
    for given in (2.0, 3, -7):
        try:
            data = Value(given).data
        except TypeError as error:
            kind = "an int" if isinstance(given, int) else "a float"
            fail(
                f"`Value({given!r})` raised TypeError ({_text(error)}), but {given!r} is "
                f"{kind}, a number: accept ints as well as floats (and store `float(data)`)"
            )
        expect(
            type(data) is float and data == given,
            f"`Value({given!r}).data` should be the float {float(given)!r}, but was "
            f"{show(data)} of type {type(data).__name__}: store `float(data)`",
        )


@check("a new value starts with `grad` 0.0, no children, no op and no label")
def fresh_leaf(Value):
    v = Value(2.0)
    expect(v.grad == 0.0, f"a new value's `grad` should be 0.0, but was {show(v.grad)}")
    expect(
        v._prev == () and isinstance(v._prev, tuple),
        f"a value made from nothing should have `_prev` equal to `()`, but it was {show(v._prev)}",
    )
    expect(v._op == "", f"a leaf's `_op` should be the empty string, but was {show(v._op)}")
    expect(v.label == "", f"`label` should default to the empty string, but was {show(v.label)}")


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
    expect(a.label == "a", f"`Value(2.0, label='a').label` should be 'a', but was {show(a.label)}")
    v = Value(4.0, (a, a), "*", label="y")
    expect(v._op == "*", f"`Value(4.0, (a, a), '*')._op` should be '*', but was {show(v._op)}")
    expect(
        v.label == "y", f"the label given as `label='y'` should be kept, but was {show(v.label)}"
    )


@check("repr is the article's `Value(data=2.0000, grad=0.0000)`")
def article_repr(Value):
    got = repr(Value(2.0))
    expect(
        got == "Value(data=2.0000, grad=0.0000)",
        f"`repr(Value(2.0))` should be 'Value(data=2.0000, grad=0.0000)', but was {show(got)}",
    )
    v = Value(-3.14159)
    v.grad = 0.5
    got = repr(v)
    expect(
        got == "Value(data=-3.1416, grad=0.5000)",
        "with data -3.14159 and grad 0.5 the repr should be "
        f"'Value(data=-3.1416, grad=0.5000)' (four decimals, `:.4f`), but was {show(got)}",
    )


@check("refuses non-numbers (str, None, bool, complex) with a TypeError that says what was given")
def rejects_non_numbers(Value):
    for bad in NOT_NUMBERS:
        printed = io.StringIO()
        try:
            with redirect_stdout(printed):
                made = Value(bad)
        except TypeError as error:
            said = _text(error)
            expect(
                repr(bad) in said or type(bad).__name__ in said,
                f"`Value({bad!r})` raised TypeError, but its message {said!r} does not say "
                f"what was given (name the value, {bad!r}, or its type, "
                f"{type(bad).__name__})",
            )
        except AssertionError as error:
            fail(
                f"`Value({bad!r})` should raise TypeError, but raised AssertionError"
                f"{': ' + _text(error) if _text(error) else ''}. An `assert` checks the "
                "programmer's own assumptions (and Python skips it under `python -O`); for "
                "a caller's wrong argument, `raise TypeError(...)`"
            )
        except Exception as error:
            fail(
                f"`Value({bad!r})` should raise TypeError, but raised "
                f"{type(error).__name__}{': ' + _text(error) if _text(error) else ''}. TypeError "
                "is Python's error for an argument of the wrong type (ValueError is for one "
                "of the right type with a wrong value, such as `int('abc')`)"
            )
        else:
            if not hasattr(made, "data"):
                fail(
                    f"`Value({bad!r})` should raise TypeError, but it made a value with no "
                    "`data` at all: `return` leaves `__init__` early without an error; "
                    "`raise TypeError(...)` stops the caller"
                )
            held = show(made.data)
            if printed.getvalue().strip():
                fail(
                    f"`Value({bad!r})` printed {printed.getvalue().strip()!r} and then made a "
                    f"value holding {held} anyway: printing warns but does not stop "
                    "anything; `raise TypeError(...)` does"
                )
            if bad is True:
                hint = ": True is an int to Python, so test for bool first"
            elif isinstance(bad, str):
                hint = (
                    ": `float('2.0')` turns a string that looks like a number into one, so "
                    "test the type itself (`isinstance`) before converting, rather than "
                    "trying `float()`"
                )
            else:
                hint = ""
            fail(
                f"`Value({bad!r})` should raise TypeError, but it made a value holding {held}{hint}"
            )


@check("a leaf's `_backward` can be called and does nothing")
def leaf_backward_is_a_no_op(Value):
    v = Value(2.0)
    expect(callable(v._backward), f"`_backward` should be a function, but was {show(v._backward)}")
    v.grad = 5.0
    result = v._backward()
    expect(
        result is None, f"a leaf's `_backward()` should return nothing, but returned {show(result)}"
    )
    expect(
        v.grad == 5.0 and v.data == 2.0,
        "a leaf's `_backward()` should change nothing, but it changed the leaf to "
        f"data={show(v.data)}, grad={show(v.grad)}",
    )


CHECKPOINT = [
    data_is_float,
    fresh_leaf,
    children_in_order,
    op_and_label,
    article_repr,
    rejects_non_numbers,
    leaf_backward_is_a_no_op,
]


@declare_checkpoint(2, "Chapter 2 checkpoint: the Value node", CHECKPOINT)
def checkpoint(Value):
    """Chapter 2's specification, run on the learner's Value class."""


# --------------------------------------------------------------------- exercises


REJECT = Exercise(
    2,
    "refuse non-numbers",
    [rejects_non_numbers, data_is_float],
    what="your `__init__`",
    answer_of=lambda Value: vars(Value).get("__init__"),
    unanswered=untouched_stub(given=6),
    todo="replace `...` with a test that raises TypeError for anything that is not an int or "
    "a float, run the cell, then this check again",
)


def check_rejects_non_numbers(Value):
    """Exercise: refuse anything that is not an int or a float, with a clear TypeError."""
    return REJECT.check(Value)


def _graphs(Value):
    """(description, root) for graphs built with the constructor, each chosen so that a
    classic way of miscounting gives a number of its own (see `COUNTS`)."""
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
    # A chain of reuses: 3 values, 4 edges, 7 paths from y2.
    t = Value(1.0)
    y1 = Value(2.0, (t, t), "+")
    y2 = Value(4.0, (y1, y1), "+")
    # Two different values that hold the same number.
    u, v = Value(2.0), Value(2.0)
    w = Value(4.0, (u, v), "+")
    return [
        ("a single value", leaf),
        ("L = (a·b + c)·f", L),
        ("y = x + x", twice),
        ("the diamond s = q·r with q and r both made from p", s),
        ("y2 = y1 + y1 with y1 = x + x", y2),
        ("c = a + b with a and b two values that both hold 2.0", w),
    ]


def _paths(root):
    return 1 + sum(_paths(child) for child in root._prev)


def _leaf_paths(root):
    return 1 if not root._prev else sum(_leaf_paths(child) for child in root._prev)


# The right count, and the ways of getting it wrong that learners really write: each rule
# gives, for a root, the number that way of counting returns, and what it means.
COUNTS = [
    (
        "no seen set",
        lambda root: _paths(root),
        "a value reached along two edges was counted twice: keep a set of the nodes already "
        "seen, as `leaves` does, and count each value once",
    ),
    (
        "no root",
        lambda root: len(_walk(root)) - 1,
        "the root itself was not counted: count the root too (start the walk from `[root]`, not "
        "from its children)",
    ),
    (
        "no root, no seen set",
        lambda root: _paths(root) - 1,
        "two slips: the root itself was not counted (count the root too), and a value reached "
        "along two edges was counted twice (keep a set of the nodes already seen)",
    ),
    (
        "only leaves",
        lambda root: sum(1 for node in _walk(root) if not node._prev),
        "that counts only the leaves, the values with no children; count every value, the ones "
        "computed from others and the root included",
    ),
    (
        "only leaves, per path",
        _leaf_paths,
        "that counts only the leaves, the values with no children (and a leaf once per path to "
        "it); count every value, once, the ones computed from others and the root included",
    ),
    (
        "by data",
        lambda root: len({node.data for node in _walk(root)}),
        "two different values that hold the same number were counted as one: keep the nodes "
        "themselves in `seen`, not their `data`",
    ),
    (
        "children only",
        lambda root: len(root._prev),
        "that counts only the root's own children: keep walking, from each child to its "
        "children, and count the root too",
    ),
    (
        "root and children",
        lambda root: 1 + len(root._prev),
        "that counts only the root and its own children: keep walking, from each child to its "
        "children in turn",
    ),
]


@check("`count_nodes` counts every value once, however many paths lead to it")
def counts_nodes(count_nodes, Value):
    cases = [
        (description, root, len(_walk(root)), count_nodes(root))
        for description, root in _graphs(Value)
    ]
    for description, root, expected, got in cases:
        returned(
            got,
            none=f"`count_nodes` on {description} gave None: the function has no "
            "`return` (or a path through it that misses one); end it with "
            "`return` and the count",
            kind=lambda got: not isinstance(got, (set, frozenset, list, tuple, dict)),
            wrong=lambda got: (
                f"`count_nodes` on {description} gave {type(got).__name__} "
                f"of {len(got)} items, not a number: return how many values "
                "there are (`len(...)` of what you collected)"
            ),
        )
        if not is_int(got):
            fail(
                f"`count_nodes` on {description} should be the whole number {expected}, but "
                f"was {show(got)}"
            )
    wrong = [(d, root, expected, got) for d, root, expected, got in cases if got != expected]
    if not wrong:
        return
    description, root, expected, got = wrong[0]
    said = f"`count_nodes` on {description} should be {expected}, but was {got}"
    counted = [g for _, _, _, g in cases]
    meaning = diagnose(
        counted,
        (
            (lambda rule=rule: [rule(r) for _, r, _, _ in cases], meaning)
            for _, rule, meaning in COUNTS
        ),
        same=operator.eq,
    )
    if meaning is not None:
        fail(f"{said}: {meaning}")
    if got > expected:
        fail(
            f"{said}: some value was counted more than once; keep a set of the nodes already "
            "seen and count each value once"
        )
    fail(
        f"{said}: some values were missed; count the root, and follow `_prev` from every "
        "value you reach"
    )


COUNT_NODES = Exercise(
    2,
    "count the nodes",
    [counts_nodes],
    what="your `count_nodes`",
    unanswered=untouched_stub(),
    todo="replace `...` with a walk that counts each value once and returns the count, run "
    "the cell, then this check again",
)


def check_count_nodes(count_nodes, Value):
    """Exercise: `count_nodes(root)`, the number of distinct values `root` was computed from
    (itself included)."""
    return COUNT_NODES.check(count_nodes, Value)


@check("L = (a·b + c)·f, built by hand, has the right values and structure")
def hand_built_L(L):
    expect(
        L.data == -8.0, f"L should be (2·(−3) + 10)·(−2) = −8.0, but `L.data` was {show(L.data)}"
    )
    expect(L._op == "*", f"L is d·f, so `L._op` should be '*', but was {show(L._op)}")
    expect(len(L._prev) == 2, f"L = d·f should have two children, but has {len(L._prev)}")
    d, f = sorted(L._prev, key=lambda v: v.data, reverse=True)
    expect(
        (d.data, f.data) == (4.0, -2.0),
        f"L's children should be d = 4.0 and f = −2.0, but were {show(d.data)} and {show(f.data)}",
    )
    expect(
        d._op == "+" and len(d._prev) == 2,
        f"d = e + c should have `_op` '+' and two children, but has {show(d._op)} and "
        f"{len(d._prev)}",
    )
    c, e = sorted(d._prev, key=lambda v: v.data, reverse=True)
    expect(
        (c.data, e.data) == (10.0, -6.0),
        f"d's children should be e = −6.0 and c = 10.0, but were {show(e.data)} and {show(c.data)}",
    )
    expect(
        e._op == "*" and sorted(v.data for v in e._prev) == [-3.0, 2.0],
        f"e = a·b should have `_op` '*' and children a = 2.0 and b = −3.0, but has "
        f"{show(e._op)} and {[v.data for v in e._prev]}",
    )


def check_hand_built_L(L):
    """The expression L = (a·b + c)·f built node by node with the constructor (the chapter's
    walk-through, not an exercise)."""
    return run_checks("L built by hand", [hand_built_L], L)


def _walk(root):
    """Every node of the graph that ends at `root`, once each (by identity)."""
    return topological_order(root)


def _is_node(obj):
    return all(hasattr(obj, name) for name in ("data", "_prev", "_op"))


_MISSING = object()


def _names_for(obj, namespace):
    """The names the notebook gave `obj` (its own, not IPython's `_12` and the like)."""
    return [
        name
        for name, value in namespace.items()
        if value is obj and not name.startswith("_") and name not in ("square", "y")
    ]


def _expect_y_built_from_square(y, x, square, namespace):
    """Fail unless `square` is a Value and `y` is built from it (not from a product of another
    name), saying what the learner named the product instead."""
    yours = next((c for c in getattr(y, "_prev", ()) if _is_node(c) and c is not x), None)
    other = _names_for(yours, namespace) if yours is not None else []
    called = f" (you named it `{other[0]}`)" if other else ""
    if square is _MISSING or square is None:
        where = "there is no `square`" if square is _MISSING else "`square` is still None"
        fail(
            f"{where}{called}: the cells below use the name `square` for x·x, so build the "
            "product under that name, then y from `square` and x"
        )
    if not _is_node(square):
        fail(
            f"`square` should be x·x as a Value made with the constructor, but it is {show(square)}"
        )
    if yours is not None and not any(c is square for c in y._prev):
        # also a `square` left in the kernel by an earlier run, while y uses another product
        named = f"`{other[0]}`" if other else "another value"
        fail(
            f"y was built from {named}, not from `square`: the cells below use `square` for "
            "x·x, so build y from `square` itself and x, and the graph has one x·x node"
        )


def _expect_square_is_x_times_x(square, x, names):
    """Fail unless `square` is the product x·x: children `(x, x)`, op '*', data x.data²."""
    children = square._prev
    if isinstance(square._op, tuple) or (
        isinstance(children, tuple) and any(isinstance(c, str) for c in children)
    ):
        fail(
            f"`square` has children {show(children)} and op {show(square._op)}: the children "
            "and the op have swapped places. The constructor takes them in the order "
            "`Value(data, _children, _op)`: the children tuple second, the op string third"
        )
    if any(not _is_node(c) for c in children):
        fail(
            f"the children of `square` are {show(children)}, but a child must be a Value, "
            "the node itself: pass `x`, not the number `x.data`, so that the graph links "
            "square back to x"
        )
    if len(children) == 1 and children[0] is x:
        fail(
            "`square` has one child, `(x,)`, but a product needs both operands as children: "
            "x·x multiplies x by x, so its children are `(x, x)`. With one child the graph "
            "would say x was used once, and in chapter 03 x would get only one of its two "
            "shares of gradient from this node"
        )
    if (
        len(children) == 2
        and all(c is not x for c in children)
        and all(getattr(c, "data", None) == x.data for c in children)
    ):
        fail(
            f"the children of `square` are {describe_nodes(children, names)}: new values that "
            "hold 3.0, not x itself. Use `x` twice, `(x, x)`, so that the graph shows one "
            "value used twice"
        )
    expect_children(square, (x, x), names, "square")
    expect(
        square._op == "*",
        f"`square._op` should be '*', but was {show(square._op)}: the op is what says which "
        "operation made the value (it is drawn in the graph's oval, and chapter 03's "
        "backward pass needs it to know the local derivative): give it as the third "
        "argument, after the children",
    )
    expect(
        math.isclose(square.data, x.data * x.data),
        f"`square.data` should be x.data · x.data = {show(x.data * x.data)}, but it is "
        f"{show(square.data)}",
    )


def _expect_y_is_square_plus_x(y, square, x, names):
    """Fail unless `y` is the sum square + x: children `(square, x)`, op '+', its data."""
    y_children = y._prev
    if not (
        isinstance(y_children, tuple)
        and len(y_children) == 2
        and {id(c) for c in y_children} == {id(square), id(x)}
    ):
        fail(
            f"y = square + x, so y's children should be `(square, x)`, but they are "
            f"`{describe_nodes(y_children, names)}`"
        )
    expect(y._op == "+", f"`y._op` should be '+' (y = square + x), but was {show(y._op)}")
    expect(
        math.isclose(y.data, square.data + x.data),
        f"`y.data` should be square.data + x.data = {show(square.data + x.data)}, but it is "
        f"{show(y.data)}",
    )


@check("y = x·x + x: `square` = x·x with both operands as children, then y = square + x")
def value_used_twice(y, namespace):
    x = namespace.get("x")
    square = namespace.get("square", _MISSING)
    if not _is_node(y):
        fail(f"`y` should be a Value made with the constructor, as L was, but it is {show(y)}")
    if not _is_node(x):
        fail(
            f'`x` should be the Value `Value(3.0, label="x")` the cell starts with, but it '
            f"is {show(x)}: keep that line"
        )
    _expect_y_built_from_square(y, x, square, namespace)
    names = {id(x): "x", id(square): "square", id(y): "y"}
    _expect_square_is_x_times_x(square, x, names)
    _expect_y_is_square_plus_x(y, square, x, names)


USED_TWICE = Exercise(
    2,
    "use a value twice",
    [value_used_twice],
    what="your `square` and `y`",
    answer_of=lambda y, namespace: y,
    todo="replace each `None` with a Value made with the constructor, run the cell, then this "
    "check again",
)


def check_value_used_twice(y, namespace=None):
    """Exercise: y = x·x + x built with the constructor, with x = 3 and the product named
    `square`, as the notebook's later cells call it. `namespace` holds `x` and `square`: by
    default the globals of the caller, the notebook's own names."""
    if namespace is None:
        namespace = sys._getframe(1).f_globals
    return USED_TWICE.check(y, namespace)
