"""Reading a node of the package's engines: which row of the table made it, and whether the
derivative it carries is that row's.

`grad` and `compile_loss` differentiate a node by its operation's row of the table of
primitives (`autograd.ops`), not by running its `_backward`. So before they read a node they
must know that backward() would do what the row says: on the reference engine, that the node's
`_backward` is the closure the engine's method gives that operation (a node made by hand,
`Value(data, children, op)`, has none, and a closure replaced since runs other code). The fast
engine keeps no closure; `autograd.grad_rules` checks its recorded slopes instead.

    >>> from autograd import Value
    >>> x = Value(3.0)
    >>> y = x ** 2
    >>> ops.find(y._op).name, exponent(y), has_engine_closure(y)
    ('**n', 2, True)
    >>> has_engine_closure(Value(9.0, (x,), "**2"))   # made by hand: no derivative
    False
"""

import types

from . import engine, ops

__all__ = [
    "REFERENCE_BACKWARD",
    "exponent",
    "has_engine_closure",
    "require_engine_derivative",
    "made_by_hand",
    "show",
]


def _backward_code(method):
    """The code of the `_backward` closure that a reference-engine method defines."""
    return next(
        const
        for const in method.__code__.co_consts
        if isinstance(const, types.CodeType) and const.co_name == "_backward"
    )


# {row name: the code of the closure the reference engine gives that operation}: a node whose
# `_backward` runs other code would get other gradients from backward() than from its row.
REFERENCE_BACKWARD = {
    name: _backward_code(getattr(engine.Value, op.method)) for name, op in ops.OPS.items()
}


def exponent(node):
    """The number n of a node `a ** n` as the engine was given it (`2` or `2.0`), which its
    label holds as data (`_floats.PowerLabel`); None for any other node."""
    return getattr(node._op, "exponent", None)


def has_engine_closure(node):
    """Whether the reference-engine node `node` runs the engine's closure for its op label."""
    row = ops.find(node._op)
    return row is not None and (
        getattr(node._backward, "__code__", None) is REFERENCE_BACKWARD[row.name]
    )


def require_engine_derivative(node, who="grad"):
    """Raise ValueError unless `node`, a reference-engine Value with inputs, has the
    `_backward` its operation gives: it was not made by hand, as `Value(data, children, op)`
    (which records no derivative at all), nor given another `_backward` since. `grad` and
    `compile_loss` both differentiate by the operation's row, so both refuse such a node;
    `who` names the one asking. A label that is no row of the table passes here: the one
    asking says it has no rule for it."""
    if not node._op or node._backward is engine._leaf_backward:
        raise ValueError(made_by_hand(node, who))
    if ops.find(node._op) is not None and not has_engine_closure(node):
        raise ValueError(
            f"{who} cannot differentiate {show(node)}: its _backward is not the engine's "
            f"closure for {node._op!r} (it was replaced), so {who} cannot know what backward() "
            f"does through it"
        )


def made_by_hand(node, who):
    """The message for a node made by hand, which records its inputs but no derivative."""
    return (
        f"{who} cannot differentiate {show(node)} (op {node._op!r}): it was made by hand, "
        f"as Value(data, children, op), which records its inputs for drawing but no "
        f"derivative, so backward() passes nothing through it. Compute it with the engine's "
        f"operations"
    )


def show(node):
    """A value in a message: its data, and its label if it has one (never its `.grad`)."""
    data, label = getattr(node, "data", "?"), getattr(node, "label", "")
    return f"Value(data={data!r}, label={label!r})" if label else f"Value(data={data!r})"
