"""The rules: take the table of primitives, give each operation's templates, both ways.

What each operation of the tape computes, forward and backward, read from the table of
primitives (`autograd.ops`): one `Rule` per row.

Chapter 11 teaches a compiler as two tables, an operation's forward line and its backward
lines; here both come from `ops.OPS`. Each row's forward and each of its derivative rules is
run once, when this module loads, on the table's expression type (`ops.Expr`, through
`ops.TEXT`) with placeholders for its numbers, which writes it as a *template*: `{a}` and
`{b}` are its inputs, `{out}` its result, `{g}` the gradient of its result, and any other
name (`{power}`, `{tanh}`) a helper function, which each back end spells in its own language
(`_power` in Python, `pow` in C). So the float operations, and their order, are the table's,
which are the reference engine's. A back end fills the templates in (`write`); a pass reads
which inputs a template uses (`operands`) without writing anything.
"""

import functools
import string
from typing import NamedTuple

from .. import ops


class Share(NamedTuple):
    """What the engine's `_backward` adds to the grad of one input, `to` (0 or 1): `expr`.

    `condition`: added only where it holds, at run time (relu: `{out} > 0`). `nonzero`: the
    input (`"b"`) whose value 0 means a slope of 0, which passes back nothing even when the
    gradient above is infinite, as the engine's `if n != 0`: decided once, when that input is
    a number of the trace, else a condition at run time (the row's `k.nonzero`).
    """

    to: int
    expr: str
    condition: str = None
    nonzero: str = None


class Rule(NamedTuple):
    """One row of the table as the compiler reads it: `forward`, its forward expression
    (None where the row's forward is a statement of the writer's own, `statement`: relu);
    `backward`, the `Share`s of the engine's `_backward`, in its order; `guard`, where the
    fast code must give up on a value that is not finite (the row's: `"inputs"`, every input
    that is a variable; `"divisor"`, the second input, also when it is 0); `checked`, whether
    the careful code checks the result as the engine does: an operator of the language (`+ *
    /`), which gives an infinity where the engine raises an OverflowError, while a helper is
    the engine's own function; `folds`, whether the C code may write the operation inside the
    one expression that uses its result: an operator with no guard to run first (`+ *`)."""

    forward: str
    backward: tuple
    guard: str
    checked: bool
    folds: bool
    statement: str = None


_ROLES = ("a", "b", "out")
_PLACES = {role: ops.Expr.leaf(f"{{{role}}}") for role in (*_ROLES, "g")}


def _template(expr):
    """An `ops.Expr` over the placeholders, as a template: a helper `h` written `{h}`."""
    return expr.text(lambda helper: f"{{{helper}}}")


def _share(to, part):
    """The `Share` of a rule's answer `part` for the input `to` (see `_rule`)."""
    if part.op != "if":
        return Share(to, _template(part))
    condition, expr, _ = part.parts
    if condition.op == "!=":  # the row's `k.nonzero(x)`: a number x is known at the trace
        return Share(to, _template(expr), nonzero=_template(condition.parts[0])[1:-1])
    return Share(to, _template(expr), _template(condition))


def _rule(op):
    """The `Rule` of the row `op`: its forward and its derivative rules run on placeholders."""
    inputs = [_PLACES[role] for role in _ROLES[: op.arity + op.parameters]]
    out, g = _PLACES["out"], _PLACES["g"]
    shares = []
    for to, rule in enumerate(op.backward):
        part = rule(ops.TEXT, *inputs, out, g)
        if part is not None:
            shares.append(_share(to, part))
    operator = op.helper is None
    return Rule(
        None if op.statement else _template(ops.TEXT.call(op.name, *inputs)),
        tuple(shares),
        op.guard,
        operator,
        operator and not op.guard,
        op.statement,
    )


RULES = {name: _rule(op) for name, op in ops.OPS.items()}

GRADIENT = _template(_PLACES["g"])  # a share that passes the gradient above on as it is (a sum's)


def shares(ins):
    """What the closure of the instruction `ins` adds to its inputs' grads, in its order:
    (the input, the expression's template, the condition's template or None). A slope that
    the trace's numbers make 0 (`Share.nonzero`) is left out: it passes back nothing."""
    for share in RULES[ins.op].backward:
        condition = share.condition
        if share.nonzero:
            exponent = ins.args[_ROLES.index(share.nonzero)]
            if not isinstance(exponent, str):  # a number of the trace: decided now
                if exponent == 0:
                    continue
            else:
                condition = f"{{{share.nonzero}}} != 0"
        yield ins.args[share.to], share.expr, condition


def operands(template, ins):
    """The tape's names and numbers that `template` reads for the instruction `ins`, in the
    order it reads them (`{g}` and helpers are not operands)."""
    if template is None:
        return []
    return [_operand(role, ins) for role in _roles(template)]


@functools.lru_cache(maxsize=None)
def _roles(template):
    """The fields of `template` that name an operand (`a`, `b`, `out`), in order."""
    return tuple(field for _, field in _parts(template) if field in _ROLES)


def role_names(template):
    """The fields of `template` that name an operand (`a`, `b`, `out`), in order; none for
    None."""
    return () if template is None else _roles(template)


def _operand(role, ins):
    return ins.out if role == "out" else ins.args[_ROLES.index(role)]


def write(template, writer, ins, operand=None, g=None):
    """`template` filled in for the instruction `ins` in `writer`'s language: `a`, `b` and
    `out` the instruction's operands, written by `operand` (`writer.v` by default), `g` as
    given, any other name a helper (`writer.f`), the pieces joined by `writer.join`."""
    operand = operand or writer.v
    pieces = []
    for literal, field in _parts(template):
        pieces.append(literal)
        if field == "g":
            pieces.append(g)
        elif field in _ROLES:
            pieces.append(operand(_operand(field, ins)))
        elif field:
            pieces.append(writer.f(field))
    return writer.join(*pieces)


@functools.lru_cache(maxsize=None)
def _parts(template):
    """`template` as (text, field) pairs: the text before each field, and the field's name."""
    return tuple((literal, field) for literal, field, _, _ in string.Formatter().parse(template))
