"""What each operation of the tape computes, forward and backward: one row per operation.

Chapter 11 teaches a compiler as two tables, an operation's forward line and its backward
lines; this is the package's pair. A row says, once, the same float operations in the same
order as the engine's code for that operation, as *templates*: `{a}` and `{b}` are its
inputs, `{out}` its result, `{g}` the gradient of its result, and any other name (`{power}`,
`{tanh}`) a helper function, which each back end spells in its own language (`_power` in
Python, `pow` in C). A back end fills the templates in (`write`); a pass reads which inputs
a template uses (`operands`) without writing anything.
"""

import functools
import math
import operator
import string
from typing import NamedTuple

from .. import _floats


class Select(NamedTuple):
    """An expression that chooses: `yes` where `condition` holds, else `no` (relu's kink)."""

    condition: str
    yes: str
    no: str


class Share(NamedTuple):
    """What the engine's `_backward` adds to the grad of one input, `to` (0 or 1): `expr`.

    `condition`: added only where it holds, at run time (relu: `{out} > 0`). `nonzero`: the
    input (`"b"`) whose value 0 means a slope of 0, which passes back nothing even when the
    gradient above is infinite, as the engine's `if n != 0`: decided once, when that input is
    a number of the trace, else a condition at run time.
    """

    to: int
    expr: str
    condition: str = None
    nonzero: str = None


class Rule(NamedTuple):
    """One operation: `on_floats`, its forward on floats as the engine computes it (errors
    included), which the check mode compares with the engine operation by operation;
    `forward`, its forward expression; `guard`, where the fast code must give up on a
    value that is not finite (`"finite"`: every input that is a variable; `"divisor"`: the
    second input, also when it is 0); `careful`, the forward expression of the careful Python
    code where it differs; `checked`, whether the careful code checks the result as the
    engine does (an overflow of `+ * /`); `folds`, whether the C code may write the operation
    inside the one expression that uses its result; `backward`, the `Share`s of the engine's
    `_backward`, in its order."""

    on_floats: object
    forward: object
    backward: tuple
    guard: str = None
    careful: object = None
    checked: bool = False
    folds: bool = False


_POWER_SLOPE = Share(0, "{power_slope}({a}, {b}) * {g}", nonzero="b")

RULES = {
    "+": Rule(operator.add, "{a} + {b}",
              (Share(0, "{g}"), Share(1, "{g}")), checked=True, folds=True),
    "*": Rule(operator.mul, "{a} * {b}",
              (Share(0, "{b} * {g}"), Share(1, "{a} * {g}")), checked=True, folds=True),
    "/": Rule(_floats.quotient, "{a} / {b}",
              (Share(0, "{g} / {b}"), Share(1, "-{g} * ({out} / {b})")),
              guard="divisor", checked=True),
    # `a ** b` with a Value exponent, and `a ** n` with a number n (then the tape's `args[1]`)
    "**": Rule(_floats.power, "{power}({a}, {b})",
               (_POWER_SLOPE, Share(1, "{log_slope}({a}, {b}, {out}) * {g}")), guard="finite"),
    "**n": Rule(_floats.power, "{power}({a}, {b})", (_POWER_SLOPE,), guard="finite"),
    "tanh": Rule(math.tanh, "{tanh}({a})",
                 (Share(0, "(1.0 - {out}) * (1.0 + {out}) * {g}"),), guard="finite"),
    "exp": Rule(_floats.exp, "{exp}({a})", (Share(0, "{out} * {g}"),), guard="finite"),
    "log": Rule(_floats.log, "{log}({a})", (Share(0, "{g} / {a}"),)),
    "sigmoid": Rule(_floats.sigmoid, "{sigmoid}({a})",
                    (Share(0, "{out} * (1.0 - {out}) * {g}"),), guard="finite"),
    # `a - a` is NaN for -inf, which the loss then shows; the careful code gives the engine's 0
    "relu": Rule(lambda a: 0.0 if a < 0 else a, Select("{a} < 0", "{a} - {a}", "{a}"),
                 (Share(0, "{g}", condition="{out} > 0"),),
                 careful=Select("{a} < 0", "0.0", "{a}")),
}

GRADIENT = "{g}"  # a share that passes the gradient above on as it is (a sum's)
_ROLES = ("a", "b", "out")


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
    if isinstance(template, Select):
        return [x for part in template for x in operands(part, ins)]
    return [_operand(role, ins) for role in _roles(template)]


@functools.lru_cache(maxsize=None)
def _roles(template):
    """The fields of `template` that name an operand (`a`, `b`, `out`), in order."""
    return tuple(field for _, field in _parts(template) if field in _ROLES)


def _operand(role, ins):
    return ins.out if role == "out" else ins.args[_ROLES.index(role)]


def write(template, writer, ins, operand=None, g=None):
    """`template` filled in for the instruction `ins` in `writer`'s language (a `Select`
    written as its choice): `a`, `b` and `out` the instruction's operands, written by
    `operand` (`writer.v` by default), `g` as given, any other name a helper (`writer.f`)."""
    if isinstance(template, Select):
        return writer.select(*(write(part, writer, ins, operand, g) for part in template))
    operand = operand or writer.v
    text = []
    for literal, field in _parts(template):
        text.append(literal)
        if field == "g":
            text.append(g)
        elif field in _ROLES:
            text.append(operand(_operand(field, ins)))
        elif field:
            text.append(writer.f(field))
    return "".join(text)


@functools.lru_cache(maxsize=None)
def _parts(template):
    """`template` as (text, field) pairs: the text before each field, and the field's name."""
    return tuple((literal, field) for literal, field, _, _ in string.Formatter().parse(template))
