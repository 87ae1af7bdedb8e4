"""A second writer of the compiler's text, straight from the table of primitives, for the tests
only: `source(instruction, lang, number)` writes one instruction `(out, op, args)` of the tape
from its row in `autograd.ops`, as text of the language `lang` (a writer with `v`, `d`, `f`,
`assign`, `guard`, `divisor_guard`, `relu`: the compiler's `Python` or `C`; `number(arg)` is
the float a literal argument stands for, None for a variable): the forward expression, the
forward statements and the backward parts. tests/test_ops.py holds the compiler's text, which
it writes from its templates (`autograd.compile.rules`), to this one in both languages.
"""

from typing import NamedTuple

from autograd.ops import OPS, TEXT, Expr


class Source(NamedTuple):
    """One instruction as text: `expression`, its forward expression (a helper call for
    relu, whose forward is a statement); `forward`, the statements computing it, guards
    first; `backward`, what it adds to each input's gradient, in the engine's order, as
    (input name, expression, condition or None)."""

    expression: str
    forward: list
    backward: list


def source(instruction, lang, number, gradient=None):
    """The text of `instruction`, `(out, op, args)` with `op` a row's name, in `lang`.

    `number(arg)` is the float a literal argument stands for, or None for a variable;
    `gradient(name)` names the variable holding a value's gradient (`lang.d` by default).
    """
    out, name, args = instruction
    op = OPS[name]
    values = [number(a) for a in args]
    xs = [Expr.leaf(lang.v(a), value) for a, value in zip(args, values)]
    o = Expr.leaf(lang.v(out))
    if op.helper is None:
        expression = Expr(name, tuple(xs))
    else:
        expression = Expr("call", (op.helper, *xs))
    expression = expression.text(lang.f)
    if op.statement:
        forward = [getattr(lang, op.statement)(lang.v(out), *(x.text(lang.f) for x in xs))]
    else:
        forward = []
        if op.guard == "divisor" and values[1] is None:
            forward.append(lang.divisor_guard(xs[1].text(lang.f)))
        elif op.guard == "inputs":
            forward.extend(lang.guard(x.text(lang.f)) for x, v in zip(xs, values) if v is None)
        forward.append(lang.assign(lang.v(out), expression))
    g = Expr.leaf((gradient or lang.d)(out))
    backward = []
    for target, rule in zip(args, op.backward):
        part = rule(TEXT, *xs, o, g)
        if part is None:
            continue
        if part.op == "if":
            condition, then, _ = part.parts
            backward.append((target, then.text(lang.f), condition.text(lang.f)))
        else:
            backward.append((target, part.text(lang.f), None))
    return Source(expression, forward, backward)
