"""The statements: take instructions and a writer, give the statements it spells.

The statements both back ends write, each in its language: the forward statements of an
instruction, the backward pass, the parameters' gradients.

A *writer* (`python.Python`, `c.C`) says how its language spells names (`v`, gradients `d`),
helpers (`f`) and statements (`assign`, `add`, `add_if`, `select`, `guard`,
`divisor_guard`, and the forward statements the table leaves to it: `relu`), and how it joins
pieces (`join`: into text, or into `places.Code` for the fused writers); the operations
themselves come from the table of primitives (`autograd.ops`, read by `rules.RULES`), and what
to write from the passes (`passes.gradient_flow`). No operation is named here.
"""

from . import passes
from .rules import GRADIENT, RULES, write
from .tape import is_name


def forward(ins, lang, operand=None):
    """The fast statements computing `ins.out` in `lang`: guards only where a value that is
    not finite could vanish (see the docstring of `autograd.compile`); the language's helpers
    raise the other errors. `operand(name)` writes an input (`lang.v` by default)."""
    rule = RULES[ins.op]
    if rule.statement:  # the writer's own (relu)
        return [getattr(lang, rule.statement)(lang.v(ins.out), *map(operand or lang.v, ins.args))]
    lines = []
    if rule.guard == "divisor" and is_name(ins.args[1]):
        lines.append(lang.divisor_guard(lang.v(ins.args[1])))
    elif rule.guard == "inputs":
        lines.extend(lang.guard(lang.v(x)) for x in ins.args if is_name(x))
    return lines + [lang.assign(lang.v(ins.out), write(rule.forward, lang, ins, operand))]


def backward(flow, lang):
    """The backward pass (`passes.gradient_flow`) as statements of `lang`.

    The first contribution to a gradient creates its variable. The engine adds it to a grad
    of 0.0, so we write `0.0 + expr` too: the same number, and the same sign of a zero
    (0.0 + -0.0 is 0.0). A gradient variable is never -0.0, so a bare `dt3` needs no `0.0 +`.
    """
    lines = []
    for step in flow.steps:
        if isinstance(step, passes.Seed):
            lines.append(lang.assign(lang.d(flow.of(step.name)), lang.v(step.value)))
            continue
        lines.append(
            backward_step(step, lang, lang.d(flow.of(step.ins.out)), lang.d(flow.of(step.target)))
        )
    return lines


def backward_step(step, lang, g, d):
    """The statement of one `passes.Add`: `d`, the gradient it adds to, gets its share of
    `g`, the gradient of the instruction's result (both as `lang` writes them)."""
    expr = write(step.expr, lang, step.ins, g=g)
    condition = step.condition and write(step.condition, lang, step.ins, g=g)
    if not step.first:
        return lang.add_if(d, expr, condition) if condition else lang.add(d, expr)
    first = expr if step.expr == GRADIENT else lang.join("0.0 + ", expr)
    return lang.assign(d, lang.select(condition, first, "0.0") if condition else first)


def gradients(flow, lang):
    """The gradient of each parameter: its variable, or 0.0 where no gradient reaches it."""
    return [lang.d(flow.of(name)) if name else "0.0" for name in flow.grads]
