"""The Python writer: takes a `passes.Program`, gives the source of `loss_and_grads`.

The Python back end: the tape written as one Python function, `loss_and_grads(p, x)`.

`python_source(trace, careful)` writes it from the rules' templates (`rules.RULES`, read from
the table of primitives) and the passes' facts (`passes`); `load(source)` runs the source and
returns the function, with the table's helpers (`autograd.ops.NAMESPACE`: the engine's own
rules for numbers) as its helpers.
"""

import itertools
import linecache
import math

from .. import _floats, ops
from .rules import RULES, write
from .statements import backward, forward, gradients
from .tape import is_name


def literal(x):
    """Python source for the number x: its repr (which reads back exactly), or a name."""
    if math.isnan(x):
        return "_nan"
    if math.isinf(x):
        return "_inf" if x > 0 else "-_inf"
    return repr(x)


class Python:
    """How the generated Python writes names, helpers and statements."""

    @staticmethod
    def v(name):
        return name if is_name(name) else literal(name)

    @staticmethod
    def d(name):
        return "d" + name

    @staticmethod
    def f(helper):
        return "_" + helper

    assign = "{} = {}".format
    add = "{} += {}".format
    guard = "if {0} - {0}: return None".format  # not finite: let the careful code decide
    divisor_guard = "if {0} - {0} or not {0}: return None".format
    select = "{1} if {0} else {2}".format
    # relu's forward (the table's `statement`): `a - a` is NaN for -inf, which the loss then
    # shows; the careful code gives the engine's 0 (`careful_forward`)
    relu = "{0} = {1} - {1} if {1} < 0 else {1}".format

    add_if = "if {2}: {0} += {1}".format  # (target, expression, condition)

    @staticmethod
    def join(*parts):
        return "".join(parts)


# The careful code's own spelling of a forward statement: relu gives the engine's 0 for -inf.
_CAREFUL = {"relu": "{0} = 0.0 if {1} < 0 else {1}".format}


def careful_forward(ins):
    """The Python lines computing `ins.out` with every check the engine makes."""
    rule = RULES[ins.op]
    out = ins.out
    a, b = (*map(Python.v, ins.args), None)[:2]
    if rule.statement:
        return [_CAREFUL[rule.statement](out, a)]
    lines = []
    if rule.guard == "divisor" and is_name(ins.args[1]):
        lines.append(f"if not {b}: _quotient({a}, {b})")  # raises, as the engine
    lines.append(f"{out} = {write(rule.forward, Python, ins)}")
    if rule.checked:  # an overflow: as the engine
        lines.append(f"if {out} - {out}: _checked({out}, {ins.op!r}, {a}, {b})")
    return lines


def python_source(program, careful):
    """The source of `loss_and_grads(p, x)` for a `passes.Program`: fast, or careful (every
    check)."""
    trace = program.trace
    lines = ["def loss_and_grads(p, x):"]
    if trace.n_params:
        lines.append("    " + "".join(f"p{i}, " for i in range(trace.n_params)).rstrip() + " = p")
    if trace.n_inputs:
        lines.append("    " + "".join(f"x{i}, " for i in range(trace.n_inputs)).rstrip() + " = x")
    if careful:
        lines.append("    # forward, every result checked as the engine checks it")
        for ins in trace.tape:
            lines.extend("    " + line for line in careful_forward(ins))
    else:
        lines.append("    # forward: one line per operation, in the order the engine ran them")
        for ins in trace.tape:
            lines.extend("    " + line for line in forward(ins, Python))
        lines.extend("    " + Python.guard(name) for name in program.ends)
    lines.append(
        "    # backward: the engine's _backward closures, in the order backward() runs them"
    )
    flow = program.flow
    lines.extend("    " + line for line in backward(flow, Python))
    aux = f", [{', '.join(map(Python.v, trace.aux))}]" if trace.has_aux else ""
    lines.append(
        f"    return {Python.v(trace.result)}, [{', '.join(gradients(flow, Python))}]{aux}"
    )
    return "\n".join(lines) + "\n"


# The helpers the generated Python calls: the table's (each row's forward, as `_` and its
# helper, and the slopes' helpers), the careful code's checks, and the numbers no literal spells.
NAMESPACE = {
    **ops.NAMESPACE,
    "_checked": _floats.checked,
    "_quotient": _floats.quotient,
    "_inf": math.inf,
    "_nan": math.nan,
}

_loaded = itertools.count()


def load(source):
    """The function `loss_and_grads` that `source` defines (its lines shown in tracebacks)."""
    filename = f"<compiled loss {next(_loaded)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(NAMESPACE)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["loss_and_grads"]
