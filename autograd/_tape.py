"""The tape of `autograd.compile`, and how each operation is written from it, in any language.

`record` turns a traced graph into a `Trace`: the instructions in the order the engine ran
them, and in the order `backward()` runs their closures. `forward` and `backward` say, once,
what each operation computes (the same float operations, in the same order, as the engine's
code for it); a *writer* (`Python` here, `autograd._compile_c.C` for C) says how to spell
names, helpers and statements in its language. `python_source` writes the Python function.
The module docstring of `autograd.compile` explains the ideas.
"""

import contextlib
import math
from typing import NamedTuple

from . import engine
from .engine import Value
from .graph import topological_order
from .higher_order import require_engine_derivative

class Instruction(NamedTuple):
    """One line of the tape: `out = op(*args)`.

    `op` is the engine's operation label: `'+'`, `'*'`, `'/'`, `'**'` (a `Value` exponent),
    `'**n'` (a number exponent, which is then `args[1]`), `'tanh'`, `'exp'`, `'log'`, `'relu'`
    or `'sigmoid'`. `args` are names (`p3`, `x0`, `t7`) or number literals (`2.5`).
    """

    out: str
    op: str
    args: tuple


_UNARY = ("tanh", "exp", "log", "sigmoid")
_OPS = ("+", "*", "/", "**", "**n", "relu") + _UNARY
@contextlib.contextmanager
def creations():
    """While tracing, keep every `Value` the engine makes, in the order it makes them.

    The tape keeps that order, and keeps the operations whose results never reach the loss:
    the engine ran them, so for numbers where one of them raises (or where two operations
    would), the compiled code raises the same error as the engine, the first that ran.

    The engine's `__init__` appends each new Value to the list in its context variable
    `_tracing`, set here for this context only: another thread, or another trace, has its own,
    and nothing global changes, so nothing can be left behind.
    """
    made = []
    token = engine._tracing.set(made)
    try:
        yield made
    finally:
        engine._tracing.reset(token)


# --------------------------------------------------------------------- the trace


class Trace(NamedTuple):
    """What code generation needs: the tape in the order the engine ran it, the same
    instructions in the order `backward()` runs their closures, the names of the loss and the
    auxiliary values, and the results where a value that is not finite would show (`ends`)."""

    tape: list
    backward: list
    result: str
    aux: list
    ends: list  # the loss, the auxiliary values, and every result no other instruction uses
    has_aux: bool
    n_params: int
    n_inputs: int


def record(root, aux, has_aux, param_leaves, input_leaves, made):
    """Walk the graph into a `Trace`.

    A node's name is `p3`/`x0` for a parameter/input, a literal for a constant (a leaf that is
    neither, or an operation on constants only), else `t<k>` for the k-th instruction.
    """
    names = {}
    for i, v in enumerate(param_leaves):
        names[id(v)] = f"p{i}"
    for i, v in enumerate(input_leaves):
        names.setdefault(id(v), f"x{i}")
    order = topological_order(root)  # reversed, the order backward() runs the closures
    # Every value made during the trace, in the order the engine made them, after those made
    # before it (a value that `fn` closes over), in the graph's order.
    during = {id(n) for n in made}
    nodes = [n for n in order if id(n) not in during]
    for a in aux:
        if isinstance(a, Value):
            nodes.extend(n for n in topological_order(a) if id(n) not in during)
    nodes.extend(made)
    constant = set()
    tape, instruction_of = [], {}
    for node in nodes:
        if not isinstance(node, Value):
            raise TypeError(
                f"compile_loss traces autograd.engine.Value graphs, but the graph holds {node!r} "
                f"of type {type(node).__name__}"
            )
        key = id(node)
        if key in names:
            continue
        prev = node._prev
        if not prev or all(id(child) in constant for child in prev):
            names[key] = literal(node.data)  # `2.5` in `a + 2.5`, or computed from constants
            constant.add(key)
            continue
        # (a child missing from `names` was made before the trace and reaches only operations
        # whose results do not reach the loss: it is a constant of the code, like a leaf)
        require_engine_derivative(node, "compile_loss")  # made by hand: no derivative to compile
        args = [names.get(id(child)) or literal(child.data) for child in prev]
        op = node._op
        if op.startswith("**") and op != "**":  # a number exponent, kept as the engine keeps it
            args.append(literal(exponent(node)))
            op = "**n"
        if op not in _OPS:
            raise NotImplementedError(f"compile_loss does not know the operation {op!r} of {node!r}")
        names[key] = out = f"t{len(tape)}"
        instruction_of[key] = ins = Instruction(out, op, tuple(args))
        tape.append(ins)
    closures = [instruction_of[id(n)] for n in reversed(order) if id(n) in instruction_of]
    result = names[id(root)]
    aux = [names[id(a)] if isinstance(a, Value) else literal(float(a)) for a in aux]
    used = {a for ins in tape for a in ins.args}
    unused = [ins.out for ins in tape if ins.out not in used]  # results that reach no loss
    ends = [name for name in dict.fromkeys([result, *aux, *unused]) if not is_literal(name)]
    return Trace(tape, closures, result, aux, ends, has_aux, len(param_leaves), len(input_leaves))


def exponent(node):
    """The number n of `a ** n`, exactly as the engine holds it (an int stays an int, so that
    error messages print it the same way): the closure's captured `n`."""
    closure = node._backward
    cells = dict(zip(closure.__code__.co_freevars, closure.__closure__ or ()))
    if "n" in cells:
        return cells["n"].cell_contents
    return float(node._op[2:])


def literal(x):
    """Python source for the number x: its repr (which reads back exactly), or a name."""
    if math.isnan(x):
        return "_nan"
    if math.isinf(x):
        return "_inf" if x > 0 else "-_inf"
    return repr(x)


def is_literal(name):
    """Whether `name` (an argument of an instruction) is a number rather than a variable."""
    return not (name[0] in "pxt" and name[1:].isdigit())


def literal_value(literal):
    """The number a literal written by `literal` stands for."""
    return {"_nan": math.nan, "_inf": math.inf, "-_inf": -math.inf}.get(literal) or float(literal)


# --------------------------------------------------------------------- code, in either language
#
# The rules below say what each operation computes, forward and backward, once; `Python` and
# `autograd._compile_c.C` say how to write it. An expression is built from the language's
# names for variables (`v`), gradients (`d`) and helper functions (`f`).


class Python:
    """How the generated Python writes names, helpers and statements."""

    @staticmethod
    def v(name):
        return name

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
    relu = "{0} = {1} - {1} if {1} < 0 else {1}".format  # -inf gives NaN, which the loss shows

    @staticmethod
    def chosen(target, expr, condition):
        return f"{target} = {expr} if {condition} else 0.0"

    @staticmethod
    def add_if(target, expr, condition):
        return f"if {condition}: {target} += {expr}"


def forward_expression(ins, lang):
    """The expression computing `ins.out` (relu is a statement of its own: see `forward`)."""
    out, op, args = ins
    v = [lang.v(a) for a in args]
    if op in ("+", "*", "/"):
        return f"{v[0]} {op} {v[1]}"
    if op in ("**", "**n"):
        return f"{lang.f('power')}({v[0]}, {v[1]})"
    return f"{lang.f(op)}({v[0]})"


def forward(ins, lang):
    """The fast statements computing `ins.out`: guards only where a value that is not finite
    could vanish (see the module's docstring); the language's helpers raise the other errors."""
    out, op, args = ins
    variables = [a for a in args if not is_literal(a)]
    if op == "relu":
        return [lang.relu(lang.v(out), lang.v(args[0]))]
    lines = []
    if op == "/":
        if not is_literal(args[1]):
            lines.append(lang.divisor_guard(lang.v(args[1])))
    elif op in ("**", "**n", "tanh", "exp", "sigmoid"):
        lines.extend(lang.guard(lang.v(a)) for a in variables)
    return lines + [lang.assign(lang.v(out), forward_expression(ins, lang))]


def careful_forward(ins):
    """The Python lines computing `ins.out` with every check the engine makes."""
    out, op, args = ins
    if op in ("+", "*"):
        a, b = args
        return [f"{out} = {a} {op} {b}",
                f"if {out} - {out}: _checked({out}, {op!r}, {a}, {b})"]  # overflow: as the engine
    if op == "/":
        a, b = args
        lines = [] if is_literal(b) else [f"if not {b}: _quotient({a}, {b})"]  # raises, as the engine
        return lines + [f"{out} = {a} / {b}", f"if {out} - {out}: _checked({out}, '/', {a}, {b})"]
    if op == "relu":
        return [f"{out} = 0.0 if {args[0]} < 0 else {args[0]}"]
    return [f"{out} = {forward_expression(ins, Python)}"]


def backward(ins, lang, gradient=None):
    """What the engine's `backward` for `ins` adds to each input's grad, in the engine's order:
    (input name, the expression added, a condition or None). `gradient` names the variable
    that holds the gradient of `ins.out` (`lang.d` by default)."""
    out, op, args = ins
    g, o = (gradient or lang.d)(out), lang.v(out)
    v = [lang.v(a) for a in args]
    if op == "+":
        return [(args[0], g, None), (args[1], g, None)]
    if op == "*":
        return [(args[0], f"{v[1]} * {g}", None), (args[1], f"{v[0]} * {g}", None)]
    if op == "/":
        return [(args[0], f"{g} / {v[1]}", None), (args[1], f"-{g} * ({o} / {v[1]})", None)]
    slope = lang.f("power_slope")
    if op == "**n":
        if literal_value(args[1]) == 0:  # slope 0: passes back nothing, as the engine
            return []
        return [(args[0], f"{slope}({v[0]}, {v[1]}) * {g}", None)]
    if op == "**":
        a, b = args
        condition = None if is_literal(b) else f"{v[1]} != 0"
        first = [] if is_literal(b) and literal_value(b) == 0 else [
            (a, f"{slope}({v[0]}, {v[1]}) * {g}", condition)]
        return first + [(b, f"{lang.f('log_slope')}({v[0]}, {v[1]}, {o}) * {g}", None)]
    if op == "tanh":
        return [(args[0], f"(1.0 - {o}) * (1.0 + {o}) * {g}", None)]
    if op == "exp":
        return [(args[0], f"{o} * {g}", None)]
    if op == "log":
        return [(args[0], f"{g} / {v[0]}", None)]
    if op == "relu":
        return [(args[0], g, f"{o} > 0")]
    return [(args[0], f"{o} * (1.0 - {o}) * {g}", None)]  # sigmoid


def backward_statements(trace, lang):
    """The backward pass as statements of `lang`, and the gradient of each parameter (an
    expression: its variable, or 0.0 where no gradient reaches it)."""
    needs = {f"p{i}" for i in range(trace.n_params)}  # the parameters, and what depends on them
    for out, _, args in trace.tape:
        if any(a in needs for a in args):
            needs.add(out)
    # A sum passes its gradient on as it is: where that is the first gradient an input gets,
    # the input's gradient simply *is* the sum's, and shares its variable instead of copying
    # it (dt0 = dt1). A sum's gradient is final once its closure runs, so only that input can
    # change it from then on. Its second input may share it too, if both inputs are used
    # nowhere else and the second is no sum: backward() runs the second input's closure right
    # after the sum's (the sort visits a node's inputs in order, so the last one ends just
    # before the node); that closure passes nothing on unchanged, and cannot reach the first
    # input, which only the sum uses; so the variable holds the sum's gradient for as long as
    # the second input reads it. Otherwise the second input gets a copy.
    shares = {}  # name -> the name whose gradient variable it uses
    users, op_of = {}, {}
    for ins in trace.tape:
        op_of[ins.out] = ins.op
        for a in ins.args:
            users[a] = users.get(a, 0) + 1

    def gradient(name):
        return lang.d(shares.get(name, name))

    lines, assigned = [], set()
    if trace.result in needs:
        lines.append(lang.assign(gradient(trace.result), "1.0"))
        assigned.add(trace.result)
    for ins in trace.backward:
        if ins.out not in needs:
            continue
        if ins.out not in assigned:  # nothing flowed back into it: its grad is 0
            lines.append(lang.assign(gradient(ins.out), "0.0"))
            assigned.add(ins.out)
        g, shared = gradient(ins.out), False
        for target, expr, condition in backward(ins, lang, gradient):
            if target not in needs:  # a constant or an input, whose gradient nobody wants
                continue
            bare = expr == g  # the gradient above, passed on as it is
            if bare and condition is None and target not in assigned and (
                    not shared or (target == ins.args[-1] and users.get(target) == 1
                                   and users.get(ins.args[0]) == 1
                                   and op_of.get(target, "+") != "+")):
                shares[target] = shares.get(ins.out, ins.out)
                assigned.add(target)
                shared = True
                continue
            lines.append(accumulate(lang, gradient(target), target, expr, condition, assigned,
                                     bare))
    grads = [gradient(f"p{i}") if f"p{i}" in assigned else "0.0" for i in range(trace.n_params)]
    return lines, grads


def accumulate(lang, d, target, expr, condition, assigned, bare):
    """One statement adding `expr` to `d`, the gradient of `target`, as `target.grad += expr`
    would.

    The first contribution creates the variable. The engine adds it to a grad of 0.0, so we
    write `0.0 + expr` too: the same number, and the same sign of a zero (0.0 + -0.0 is 0.0).
    A gradient variable is never -0.0, so a bare `dt3` needs no `0.0 +`.
    """
    if target in assigned:
        return lang.add_if(d, expr, condition) if condition else lang.add(d, expr)
    assigned.add(target)
    first = expr if bare else f"0.0 + {expr}"
    return lang.chosen(d, first, condition) if condition else lang.assign(d, first)


def python_source(trace, careful):
    """The source of `loss_and_grads(p, x)` for this trace: fast, or careful (every check)."""
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
        lines.extend("    " + Python.guard(name) for name in trace.ends)
    lines.append("    # backward: the engine's _backward closures, in the order backward() runs them")
    statements, grads = backward_statements(trace, Python)
    lines.extend("    " + line for line in statements)
    aux = f", [{', '.join(trace.aux)}]" if trace.has_aux else ""
    lines.append(f"    return {trace.result}, [{', '.join(grads)}]{aux}")
    return "\n".join(lines) + "\n"
