"""grad's rules: what each operation passes back to its inputs, as numbers or as Values.

A rule takes an operation's output node `out`, the gradient `g` it has received, `read`
(`read_number` or `read_node`: what a rule takes from a node, its number or the node itself)
and `needs`, whether each input needs a gradient (as PyTorch's `ctx.needs_input_grad`: a
constant's gradient is not built, and cannot overflow). It returns one part per input in
`out._prev` order: the gradient it passes to that input, or None where it passes nothing or the
input needs none. Each runs its operation's row of the table of primitives (`autograd.ops`),
whose derivatives are written as the reference engine's closures compute them (the same float
expression, in the same order): so run on numbers it gives backward()'s floats, and run on
Values it gives Values that hold them, with graphs whose own derivatives are right. What is
grad's own is how it reads the fast engine's nodes, which keep a number operand as their
recorded slope, and the reciprocal 1/x where the reference divides.

    >>> from autograd import Value
    >>> x = Value(0.5)
    >>> t = x.tanh()
    >>> (part,) = RULES[Value]["tanh"](t, Value(1.0), read_node, (True,))
    >>> part._op, part.data == (1 - t.data) * (1 + t.data)   # (1 - t)(1 + t) * g, a Value
    ('*', True)
"""

import math
import operator

from . import _floats, engine, fast, ops, reading

__all__ = [
    "ENGINES",
    "RULES",
    "VALUES",
    "read_number",
    "read_node",
    "rule_for",
    "checked_rule",
    "as_recorded",
    "same_float",
    "too_large",
]

ENGINES = {engine.Value: "autograd.engine", fast.Value: "autograd.fast"}


def read_number(node):
    """create_graph=False: a local derivative is a float, computed from the nodes' numbers."""
    return node.data


def read_node(node):
    """create_graph=True: a local derivative is a Value, computed from the nodes themselves."""
    return node


class _OnValues:
    """The table's `k` for Values: the operations of the graph's own engine, and the slopes of a
    power as Values, except where they are infinite or NaN: a constant, with nothing further
    to differentiate."""

    @staticmethod
    def when(condition, part):
        return part() if condition else None

    @staticmethod
    def positive(x):
        return x.data > 0

    @staticmethod
    def nonzero(x):
        return (x.data if isinstance(x, tuple(ENGINES)) else x) != 0

    @staticmethod
    def power_slope(a, n):
        """n a^(n-1), the slope of a ** n in a, as `_floats.power_slope` computes it (n a
        number or an exponent node). An infinite slope (x ** 0.5 at 0) stays a number."""
        exponent_is_node = isinstance(n, tuple(ENGINES))
        slope = _floats.power_slope(a.data, n.data if exponent_is_node else n)
        return n * a ** (n - 1) if math.isfinite(slope) else slope

    @staticmethod
    def log_slope(a, b, out):
        """a^b ln a, the slope of a ** b in b, as `_floats.log_slope` computes it: a constant 0
        at a = 0 and NaN for a < 0, where there is no logarithm to differentiate."""
        slope = _floats.log_slope(a.data, b.data, out.data)
        return out * a.log() if a.data > 0 and math.isfinite(slope) else slope

    @staticmethod
    def call(name, *args):
        """Another row's operation on Values: its operator, or its method."""
        if name in _OPERATORS:
            return _OPERATORS[name](*args)
        return getattr(args[0], ops.OPS[name].method)(*args[1:])


_OPERATORS = {
    "+": operator.add,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "**n": operator.pow,
}


VALUES = _OnValues()


def _table_parts(op, out, g, read, needs, args, positions=None):
    """The parts the row `op` passes back to the inputs at `positions` (all, by default), the
    node's inputs (and parameters) being `args`, numbers or Values as `read` makes them."""
    k = VALUES if read is read_node else ops.FLOATS
    o = read(out)
    return tuple(
        op.backward[i](k, *args, o, g) if need else None
        for i, need in zip(positions or range(op.arity), needs)
    )


def _by_table(name):
    """grad's rule for the table's operation `name`, on a node that holds all its inputs.
    (Written out for one input, a number exponent, and two inputs: grad runs one per node.)"""
    op = ops.OPS[name]
    if op.parameters:  # '**n': the number exponent, as the op label holds it
        (rule_a,) = op.backward

        def rule(out, g, read, needs):
            k = VALUES if read is read_node else ops.FLOATS
            n = reading.exponent(out)
            return (rule_a(k, read(out._prev[0]), n, read(out), g) if needs[0] else None,)
    elif op.arity == 1:
        (rule_a,) = op.backward

        def rule(out, g, read, needs):
            k = VALUES if read is read_node else ops.FLOATS
            return (rule_a(k, read(out._prev[0]), read(out), g) if needs[0] else None,)
    else:
        rule_a, rule_b = op.backward

        def rule(out, g, read, needs):
            k = VALUES if read is read_node else ops.FLOATS
            a, b = out._prev
            a, b, o = read(a), read(b), read(out)
            return (
                rule_a(k, a, b, o, g) if needs[0] else None,
                rule_b(k, a, b, o, g) if needs[1] else None,
            )

    rule.__name__ = rule.__qualname__ = f"rule_for_{name}"
    rule.__doc__ = f"The table's rule for {name!r} (see `autograd.ops`)."
    return rule


_BY_TABLE = {name: _by_table(name) for name in ops.OPS}


def _power_of_values(out, g, read, needs):
    """a ** b with a Value b, by the table; but at b = 0, where it passes nothing back to a,
    grad keeps the zero slope as a Value: its own slope in b, a^-1, a second derivative needs."""
    to_a, to_b = _BY_TABLE["**"](out, g, read, needs)
    a, b = out._prev
    if (
        needs[0]
        and read is read_node
        and b.data == 0
        and a.data > 0
        and 1.0 / a.data < math.inf
        and math.isfinite(g.data)
    ):
        to_a = read(b) * read(a) ** (read(b) - 1) * g
    return (to_a, to_b)


def _sum_fast(out, g, read, needs):
    """Fast engine, '+': a + b, or a + c with a number c that the node does not keep."""
    if out._b is not None:
        return _BY_TABLE["+"](out, g, read, needs)
    return _table_parts(ops.OPS["+"], out, g, read, needs, (read(out._a), None), positions=[0])


def _product_fast(out, g, read, needs):
    """Fast engine, '*': a * b, or a * c with a number c, which the node keeps as its slope."""
    if out._b is not None:
        return _BY_TABLE["*"](out, g, read, needs)
    return _table_parts(ops.OPS["*"], out, g, read, needs, (read(out._a), out._da), positions=[0])


def _divide_fast(out, g, read, needs):
    """Fast engine, a / b: slopes 1/b (recorded) and the table's in b; a / c and c / a keep
    one input."""
    a, b = out._a, out._b
    divide = ops.OPS["/"]
    if b is not None:
        to_a = _times_reciprocal(out._da, g, b, read) if needs[0] else None
        return (to_a,) + _table_parts(
            divide, out, g, read, needs[1:], (read(a), read(b)), positions=[1]
        )
    if _is_number_over_input(out):  # c / a: the table's slope in the divisor
        return _table_parts(divide, out, g, read, needs, (None, read(a)), positions=[1])
    return (out._da * g,)  # a / c: the recorded slope 1/c is a number


def _log_fast(out, g, read, needs):
    """Fast engine, log a: slope 1/a (recorded)."""
    return (_times_reciprocal(out._da, g, out._a, read),)


def _power_fast(out, g, read, needs):
    """Fast engine, '**': a ** b with a Value b, or c ** a with a number c (one input)."""
    if out._b is not None:
        return _power_of_values(out, g, read, needs)
    return (_slope_of_number_to_power(out, read) * g,)


RULES = {
    engine.Value: {**_BY_TABLE, "**": _power_of_values},
    fast.Value: {
        **_BY_TABLE,
        "+": _sum_fast,
        "*": _product_fast,
        "/": _divide_fast,
        "log": _log_fast,
        "**": _power_fast,
    },
}


def _times_reciprocal(slope, g, x, read):
    """g times the fast engine's recorded slope 1/x, as backward() computes it (`slope * g`).

    As a Value it is built as g / x, the way the reference engine writes it: built as
    (1/x) * g, its own slope in x, -(1/x)/x, would overflow for |x| below about 1e-154, where
    the next derivative is still a finite number. g / x may differ from (1/x) * g in the last
    bit; then the difference, exact (the two are that close), is added as a constant, so the
    Value holds backward()'s number. (Each is computed from x's data now, so that
    `as_recorded` sees it if that data changed since the node was made.)"""
    if read is read_number:
        return g / read(x) if isinstance(slope, ops._Divide) else (1.0 / read(x)) * g
    quotient = g / read(x)
    if isinstance(slope, ops._Divide):  # 1/x overflows: backward() divides too
        return quotient
    recorded = (1.0 / x.data) * g.data
    if quotient.data != recorded and abs(quotient.data - recorded) <= 4 * math.ulp(recorded):
        return quotient + (recorded - quotient.data)
    return quotient


def _is_number_over_input(out):
    """Whether a one-input '/' node of the fast engine is c / a (slope -(out / a)) rather than
    a / c (slope 1/c): only c / a records exactly -(out / a), since 1/c has the other sign."""
    slope, a = out._da, out._a.data
    if type(slope) is not float or a == 0:
        return False
    expected = -(out.data / a)
    return same_float(slope, expected) and math.copysign(1.0, slope) == math.copysign(1.0, expected)


def _slope_of_number_to_power(out, read):
    """The slope out * ln c of c ** a, a number c to a Value power, on the fast engine, which
    keeps only the slope: ln c is taken back as slope / out, made exact if rounding was not."""
    slope, y = float(out._da), out.data
    if read is read_number or not (math.isfinite(slope) and math.isfinite(y) and y != 0):
        return slope  # c <= 0: a constant 0 or NaN, as _floats.log_slope gives
    log_c = slope / y
    if y * log_c == slope:
        return read(out) * log_c
    return read(out) * log_c + (slope - y * log_c)  # the correction is exact: the two are so close


# ------------------------------------------------------------------ finding a node's rule


def rule_for(node, value_class):
    """The rule for `node`'s operation, or the error that says why there is none."""
    op = node._op
    if not op or (value_class is engine.Value and node._backward is engine._leaf_backward):
        raise ValueError(reading.made_by_hand(node, "grad"))
    row = ops.find(op)
    if row is None and op.startswith("**"):  # a power's label as text only: no exponent kept
        raise ValueError(reading.made_by_hand(node, "grad"))
    rule = None if row is None else RULES[value_class].get(row.name)
    if rule is None:
        raise NotImplementedError(
            f"grad has no rule for the operation {op!r} of {reading.show(node)}. It knows the "
            f"operations of {ENGINES[value_class]}: {_known_operations()} (-, negation and the "
            f"rest are made of these). Write your own operation from these, or use backward() "
            f"for its first derivative"
        )
    if value_class is engine.Value:
        reading.require_engine_derivative(node)  # a _backward replaced since
    return rule


def as_recorded(node, g, parts, needs, create_graph):
    """Check a fast node's rule against the local derivatives the engine recorded when it made
    the node (`_da`, `_db`), and return what backward() passes: the same numbers, unless the
    node was made by hand or an input's data has changed since."""
    g_number = g.data if create_graph else g
    for stored, part, need in zip((node._da, node._db), parts, needs):
        if not need:
            continue
        if part is None:
            fits = isinstance(stored, ops._Stop)  # STOP, or a copy of it from pickle
        else:
            fits = same_float(part.data if create_graph else part, stored * g_number)
        if not fits:
            raise ValueError(
                f"grad cannot differentiate {reading.show(node)}, made by {node._op!r}: the fast "
                f"engine recorded a local derivative ({float(stored)!r}) that is not the one "
                f"{node._op!r} gives for the numbers its inputs hold now. The node was made by "
                f"hand, or an input's data changed after it was computed (the fast engine takes "
                f"its derivatives then): build the graph again"
            )
    if create_graph:
        return parts
    return tuple(stored * g for stored, _ in zip((node._da, node._db), node._prev))


def checked_rule(node, value_class, known):
    """The rule for `node`, looked up once for each op label in `known` ({label: (its rule,
    the reference engine's closure code for it)}) and checked against the node's `_backward`;
    or the error that says why grad cannot differentiate the node."""
    rule, code = known.get(node._op, (None, None))
    if rule is None or (code is not None and getattr(node._backward, "__code__", None) is not code):
        rule = rule_for(node, value_class)  # the first of its kind, or an error
        known[node._op] = (
            rule,
            (
                reading.REFERENCE_BACKWARD[ops.find(node._op).name]
                if value_class is engine.Value
                else None
            ),
        )
    return rule


def _known_operations():
    """The table's operations, in words: '+, *, /, ** (a number or a Value exponent), ...'."""
    names = [
        ("** (a number or a Value exponent)" if name == "**" else name)
        for name in ops.OPS
        if name != "**n"
    ]
    return ", ".join(names[:-1]) + " and " + names[-1]


def same_float(x, y):
    """Equal floats, NaN equal to NaN."""
    return x == y or (x != x and y != y)


def too_large(node, error):
    """The OverflowError for a gradient built as a Value that is too large for a float."""
    return OverflowError(
        f"grad(..., create_graph=True): the gradient through {reading.show(node)}, made by "
        f"{node._op!r}, is too large for a float ({error}). backward() gives an "
        f"infinite gradient here; a gradient that is a Value follows the engine's rule "
        f"for numbers and raises"
    )
