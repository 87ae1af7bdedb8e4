"""Trace once, run many: compile a loss built from `Value`s into straight-line Python.

Every training step with the engine builds the same graph again: thousands of `Value` objects,
each with a closure, only to run the same arithmetic on new numbers. When the *shape* of the
computation does not change from step to step (the same model, the same number of points),
we can record it once and keep only the arithmetic.

`compile_loss(fn, params, inputs)` does that in three moves:

1. **Trace.** It calls `fn` once on engine `Value`s made from the given numbers, which builds
   the graph as usual.
2. **Record the tape.** It walks the graph inputs-first (`autograd.graph.topological_order`,
   the order `backward()` uses) and writes one `Instruction` per operation: a flat list, the
   *tape* (also called a Wengert list). Parameters become the names `p0, p1, ...`, inputs
   `x0, x1, ...`, intermediate results `t0, t1, ...`. A leaf that is neither a parameter nor an
   input (the `2.5` of `a + 2.5`, which the engine wraps in a `Value`) becomes a literal, and
   so does anything computed from literals alone.
3. **Generate code.** From the tape it writes the source of one Python function: the forward
   pass, one assignment per instruction, then the backward pass, the engine's `_backward`
   closures unrolled in reverse order, with the gradient of `t5` in a local variable `dt5`.

    >>> step = compile_loss(lambda p, x: (p[0] * x[0] + p[1]).tanh(), [0.5, -1.0], [2.0])
    >>> loss, grads = step([0.5, -1.0], [2.0])
    >>> loss, grads
    (0.0, [2.0, 1.0])
    >>> print(step.source)                                      # doctest: +NORMALIZE_WHITESPACE
    def loss_and_grads(p, x):
        p0, p1, = p
        x0, = x
        # forward: one line per operation, in the order the engine ran them
        t0 = p0 * x0
        if t0 - t0: _checked(t0, '*', p0, x0)
        t1 = t0 + p1
        if t1 - t1: _checked(t1, '+', t0, p1)
        t2 = _tanh(t1)
        # backward: the engine's _backward closures, unrolled in reverse order
        dt2 = 1.0
        dt1 = 0.0 + (1.0 - t2) * (1.0 + t2) * dt2
        dt0 = dt1
        dp1 = dt1
        dp0 = 0.0 + x0 * dt0
        return t2, [dp0, dp1]

**Exactly the engine's numbers.** Each line does the same floating-point operations, in the
same order, as the engine's code for that operation: the forward values come from the same
`autograd._floats` helpers (so log of a negative number, a division by zero or an overflow
raise the same exception with the same message), and every gradient is accumulated in the
order `backward()` would add it. So the loss and the gradients are *bit for bit* the engine's,
not merely close. Two details make that true: the engine's rules for a slope of 0 (relu at
and below 0, `x ** 0`, pass back nothing even when the gradient above is infinite) become an
`if`; and a gradient's first contribution is added to `0.0`, as the engine adds it to a
zeroed `grad`, so that even the sign of a zero gradient agrees.

**What a trace freezes, and the guards.** The tape holds the operations that ran *for the
numbers of the trace*. Arithmetic on new numbers is replayed faithfully (relu's kink is an
operation, so it is re-decided every call), but Python control flow is not: an `if x.data > 0:`
in `fn`, a `max` or a sort of values, took one branch at trace time and the compiled function
always takes that branch. So:

- A call must have the parameters and inputs the function was traced with: as many
  parameters, inputs nested in the same shape. Anything else raises a `ValueError` that says
  what was expected (it does not trace again behind your back: compile again with
  `compile_loss` when the shape changes, e.g. for a last, smaller batch).
- `check=True` runs the engine beside the compiled code on every call and raises
  `TraceMismatch` when the loss, a gradient, or an error differ: the sign that `fn` branches
  on `.data`. It is slow (both run); use it while you develop, then switch it off.
"""

import gc
import itertools
import linecache
import math
from typing import NamedTuple

from . import _floats
from .engine import Value
from .graph import topological_order

__all__ = ["compile_loss", "CompiledLoss", "Instruction", "TraceMismatch"]


class Instruction(NamedTuple):
    """One line of the tape: `out = op(*args)`.

    `op` is the engine's operation label: `'+'`, `'*'`, `'/'`, `'**'` (a `Value` exponent),
    `'**n'` (a number exponent, which is then `args[1]`), `'tanh'`, `'exp'`, `'log'`, `'relu'`
    or `'sigmoid'`. `args` are names (`p3`, `x0`, `t7`) or number literals (`2.5`).
    """

    out: str
    op: str
    args: tuple


class TraceMismatch(AssertionError):
    """`check=True` found the compiled function and the engine disagreeing for some numbers."""


# The helpers the generated code calls: the engine's own rules for numbers.
_NAMESPACE = {
    "_checked": _floats.checked,
    "_quotient": _floats.quotient,
    "_power": _floats.power,
    "_power_slope": _floats.power_slope,
    "_log_slope": _floats.log_slope,
    "_exp": _floats.exp,
    "_log": _floats.log,
    "_sigmoid": _floats.sigmoid,
    "_tanh": math.tanh,
    "_inf": math.inf,
    "_nan": math.nan,
}

_UNARY = {"tanh": "_tanh", "exp": "_exp", "log": "_log", "sigmoid": "_sigmoid"}
_compiled_count = itertools.count()


def compile_loss(fn, params, inputs=(), *, check=False):
    """Trace `fn(params, inputs)` once and return a `CompiledLoss` that replays it on numbers.

    `fn` takes a list of parameter `Value`s and the inputs (the same nesting of lists as
    `inputs`, with a `Value` for each number) and returns the scalar loss as a `Value`.
    `params` is a flat sequence of numbers, or of leaf `Value`s (a model's own parameters,
    which `fn` may then use directly, e.g. through the model); `inputs` is a number or a
    nesting of lists and tuples of numbers (or leaf `Value`s). Their numbers are those of the
    trace. Every other leaf that `fn` uses (a number it writes, a `Value` it closes over that
    is not in `params`) is a constant of the compiled code, frozen at its value now.

    `check=True`: every call also runs `fn` on the engine and raises `TraceMismatch` on any
    difference (see the module's docstring). The call returns `(loss, gradients)`.
    """
    return CompiledLoss(fn, params, inputs, check=check)


class CompiledLoss:
    """`fn` traced once: call it as `loss, grads = compiled(param_numbers, input_numbers)`.

    Attributes: `tape` (the `Instruction`s, forward order), `source` (the generated Python),
    `n_params`, `input_shape` (how the inputs nest; `None` for a single number) and `check`.
    """

    def __init__(self, fn, params, inputs=(), *, check=False):
        self.fn = fn
        self.check = check
        self._params = list(params)
        for i, p in enumerate(self._params):
            _require_leaf_or_number(p, f"parameter {i}")
        if len({id(p) for p in self._params if isinstance(p, Value)}) != sum(
                isinstance(p, Value) for p in self._params):
            raise ValueError("the same Value appears twice in params: list each parameter once")
        flat_inputs, self.input_shape = _flatten(inputs)
        for i, x in enumerate(flat_inputs):
            _require_leaf_or_number(x, f"input {i}")
        self._inputs = flat_inputs
        self.n_params = len(self._params)

        param_leaves = [p if isinstance(p, Value) else Value(p) for p in self._params]
        input_leaves = [x if isinstance(x, Value) else Value(x) for x in flat_inputs]
        root = fn(list(param_leaves), _unflatten(input_leaves, self.input_shape))
        if not isinstance(root, Value):
            raise TypeError(
                f"the function to compile must return the loss as an autograd.engine.Value, "
                f"but returned {root!r} of type {type(root).__name__}"
            )
        self.tape, self._result, self._grad_names = _record(root, param_leaves, input_leaves)
        del root, param_leaves, input_leaves  # free the traced graph before compiling its code
        self.source = _generate(self.tape, self._result, self._grad_names,
                                self.n_params, len(flat_inputs))
        filename = f"<compiled loss {next(_compiled_count)}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        namespace = dict(_NAMESPACE)
        collecting = gc.isenabled()
        gc.disable()  # compiling builds a large syntax tree, and each of the collector's passes
        try:          # over it and the traced graph would cost more than the compiling itself
            exec(compile(self.source, filename, "exec"), namespace)
        finally:
            if collecting:
                gc.enable()
        self._function = namespace["loss_and_grads"]

    def __call__(self, params, inputs=()):
        """`(loss, [d loss / d param for each parameter])` for these numbers, as floats."""
        p = _numbers(params, "parameter")
        if len(p) != self.n_params:
            raise ValueError(
                f"this loss was compiled for {self.n_params} parameters, but was given {len(p)}: "
                "compile it again with compile_loss for a different set of parameters"
            )
        flat, shape = _flatten(inputs)
        if shape != self.input_shape:
            raise ValueError(
                f"this loss was compiled for inputs shaped {_shape_text(self.input_shape)}, but "
                f"was given {_shape_text(shape)}: a trace replays one shape, so compile again "
                "with compile_loss for this one"
            )
        x = _numbers(flat, "input")
        if not self.check:
            return self._function(p, x)
        return self._checked_call(p, x)

    def __repr__(self):
        return (f"<CompiledLoss: {len(self.tape)} instructions, {self.n_params} parameters, "
                f"inputs {_shape_text(self.input_shape)}{', check' if self.check else ''}>")

    # ----------------------------------------------------------------- check mode

    def _checked_call(self, p, x):
        compiled = _outcome(self._function, p, x)
        eager = _outcome(self._run_engine, p, x)
        if compiled[0] == "error" or eager[0] == "error":
            if compiled[:3] != eager[:3]:
                raise TraceMismatch(
                    f"the compiled code gave {_outcome_text(compiled)} but the engine gave "
                    f"{_outcome_text(eager)}. {_FROZEN}"
                )
            raise compiled[3]
        (_, c_loss, c_grads), (_, e_loss, e_grads) = compiled, eager
        pairs = [("the loss", c_loss, e_loss)] + [
            (f"the gradient of parameter {i}", c, e)
            for i, (c, e) in enumerate(zip(c_grads, e_grads))]
        for what, c, e in pairs:
            if not _same(c, e):
                raise TraceMismatch(
                    f"{what} is {c!r} from the compiled code but {e!r} from the engine. {_FROZEN}"
                )
        return c_loss, c_grads

    def _run_engine(self, p, x):
        """The eager engine on these numbers; the given leaf Values are restored afterwards."""
        saved = []

        def leaf(given, number):
            if not isinstance(given, Value):
                return Value(number)
            saved.append((given, given.data, given.grad))
            given.data, given.grad = number, 0.0
            return given

        try:
            params = [leaf(g, n) for g, n in zip(self._params, p)]
            inputs = [leaf(g, n) for g, n in zip(self._inputs, x)]
            root = self.fn(list(params), _unflatten(inputs, self.input_shape))
            root.backward()
            return root.data, [v.grad for v in params]
        finally:
            for value, data, grad in reversed(saved):
                value.data, value.grad = data, grad


_FROZEN = (
    "The compiled code replays the operations of the trace; the function probably chose "
    "between them in Python on .data (an if, max, abs, a sort) and these numbers take "
    "another branch. Compile again for them, or make the choice an operation such as relu."
)


# --------------------------------------------------------------------- the trace


def _record(root, param_leaves, input_leaves):
    """Walk the graph into a tape: (instructions, the result's name, each parameter's grad name).

    A node's name is `p3`/`x0` for a parameter/input, a literal for a constant (a leaf that is
    neither, or an operation on constants only), else `t<k>` for the k-th instruction.
    """
    names = {}
    for i, v in enumerate(param_leaves):
        names[id(v)] = f"p{i}"
    for i, v in enumerate(input_leaves):
        names.setdefault(id(v), f"x{i}")
    tape = []
    for node in topological_order(root):
        if not isinstance(node, Value):
            raise TypeError(
                f"compile_loss traces autograd.engine.Value graphs, but the graph holds {node!r} "
                f"of type {type(node).__name__}"
            )
        if id(node) in names:
            continue
        if not node._prev:
            names[id(node)] = _literal(node.data)  # a constant leaf: `2.5` in `a + 2.5`
            continue
        args = [names[id(child)] for child in node._prev]
        op = node._op
        if op.startswith("**") and op != "**":  # a number exponent, kept as the engine keeps it
            args.append(_literal(_exponent(node)))
            op = "**n"
        if op not in ("+", "*", "/", "**", "**n", "relu") and op not in _UNARY:
            raise NotImplementedError(f"compile_loss does not know the operation {op!r} of {node!r}")
        if all(_is_literal(a) for a in args[: len(node._prev)]):
            names[id(node)] = _literal(node.data)  # computed from constants only: a constant
            continue
        names[id(node)] = out = f"t{len(tape)}"
        tape.append(Instruction(out, op, tuple(args)))
    result = names[id(root)]
    return tape, result, [f"p{i}" for i in range(len(param_leaves))]


def _exponent(node):
    """The number n of `a ** n`, exactly as the engine holds it (an int stays an int, so that
    error messages print it the same way): the closure's captured `n`."""
    backward = node._backward
    cells = dict(zip(backward.__code__.co_freevars, backward.__closure__ or ()))
    if "n" in cells:
        return cells["n"].cell_contents
    return float(node._op[2:])


def _literal(x):
    """Python source for the number x: its repr (which reads back exactly), or a name."""
    if math.isnan(x):
        return "_nan"
    if math.isinf(x):
        return "_inf" if x > 0 else "-_inf"
    return repr(x)


def _is_literal(name):
    """Whether `name` (an argument of an instruction) is a number rather than a variable."""
    return not (name[0] in "pxt" and name[1:].isdigit())


def _literal_value(literal):
    """The number a literal written by `_literal` stands for."""
    return {"_nan": math.nan, "_inf": math.inf, "-_inf": -math.inf}.get(literal) or float(literal)


# --------------------------------------------------------------------- code generation


def _generate(tape, result, grad_names, n_params, n_inputs):
    """The source of `loss_and_grads(p, x)` for this tape."""
    lines = ["def loss_and_grads(p, x):"]
    if n_params:
        lines.append("    " + "".join(f"p{i}, " for i in range(n_params)).rstrip() + " = p")
    if n_inputs:
        lines.append("    " + "".join(f"x{i}, " for i in range(n_inputs)).rstrip() + " = x")
    lines.append("    # forward: one line per operation, in the order the engine ran them")
    for ins in tape:
        lines.extend("    " + line for line in _forward(ins))

    # Which names need a gradient: the parameters and whatever was computed from them.
    needs = set(grad_names)
    for out, _, args in tape:
        if any(a in needs for a in args):
            needs.add(out)
    lines.append("    # backward: the engine's _backward closures, unrolled in reverse order")
    assigned = set()
    if result in needs:
        lines.append(f"    d{result} = 1.0")
        assigned.add(result)
    for ins in reversed(tape):
        if ins.out not in needs:
            continue
        if ins.out not in assigned:  # nothing flowed back into it: its grad is 0
            lines.append(f"    d{ins.out} = 0.0")
            assigned.add(ins.out)
        for target, expr, condition in _backward(ins):
            if target not in needs:
                continue  # a constant or an input: no gradient wanted
            lines.append("    " + _accumulate(target, expr, condition, assigned))
    grads = ", ".join(f"d{name}" if name in assigned else "0.0" for name in grad_names)
    lines.append(f"    return {result}, [{grads}]")
    return "\n".join(lines) + "\n"


def _forward(ins):
    """The lines computing `ins.out`: the engine's forward, checks and all."""
    out, op, args = ins
    if op in ("+", "*"):
        a, b = args
        return [f"{out} = {a} {op} {b}",
                f"if {out} - {out}: _checked({out}, {op!r}, {a}, {b})"]  # overflow: as the engine
    if op == "/":
        a, b = args
        lines = [] if _is_literal(b) else [f"if not {b}: _quotient({a}, {b})"]  # raises, as the engine
        return lines + [f"{out} = {a} / {b}", f"if {out} - {out}: _checked({out}, '/', {a}, {b})"]
    if op in ("**", "**n"):
        return [f"{out} = _power({args[0]}, {args[1]})"]
    if op == "relu":
        return [f"{out} = 0.0 if {args[0]} < 0 else {args[0]}"]
    return [f"{out} = {_UNARY[op]}({args[0]})"]


def _backward(ins):
    """What the engine's `_backward` for `ins` adds to each input's grad, in the engine's order:
    (input name, the expression added, a condition or None)."""
    out, op, args = ins
    g = f"d{out}"
    if op == "+":
        return [(args[0], g, None), (args[1], g, None)]
    if op == "*":
        a, b = args
        return [(a, f"{b} * {g}", None), (b, f"{a} * {g}", None)]
    if op == "/":
        a, b = args
        return [(a, f"{g} / {b}", None), (b, f"-{g} * ({out} / {b})", None)]
    if op == "**n":
        a, n = args
        if _literal_value(n) == 0:  # slope 0: passes back nothing, as the engine
            return []
        return [(a, f"_power_slope({a}, {n}) * {g}", None)]
    if op == "**":
        a, b = args
        condition = None if _is_literal(b) else f"{b} != 0"
        first = [] if _is_literal(b) and _literal_value(b) == 0 else [
            (a, f"_power_slope({a}, {b}) * {g}", condition)]
        return first + [(b, f"_log_slope({a}, {b}, {out}) * {g}", None)]
    a = args[0]
    if op == "tanh":
        return [(a, f"(1.0 - {out}) * (1.0 + {out}) * {g}", None)]
    if op == "exp":
        return [(a, f"{out} * {g}", None)]
    if op == "log":
        return [(a, f"{g} / {a}", None)]
    if op == "relu":
        return [(a, g, f"{out} > 0")]
    return [(a, f"{out} * (1.0 - {out}) * {g}", None)]  # sigmoid


def _accumulate(target, expr, condition, assigned):
    """One line adding `expr` to the gradient of `target`, as `target.grad += expr` would.

    The first contribution creates the variable. The engine adds it to a grad of 0.0, so we
    write `0.0 + expr` too: the same number, and the same sign of a zero (0.0 + -0.0 is 0.0).
    A gradient variable is never -0.0, so a bare `dt3` needs no `0.0 +`.
    """
    d = f"d{target}"
    if d[1:] in assigned:
        return f"if {condition}: {d} += {expr}" if condition else f"{d} += {expr}"
    assigned.add(target)
    bare = expr[0] == "d" and not _is_literal(expr[1:])  # another gradient variable, as is
    first = expr if bare else f"0.0 + {expr}"
    return f"{d} = {first} if {condition} else 0.0" if condition else f"{d} = {first}"


# --------------------------------------------------------------------- numbers and shapes


def _require_leaf_or_number(x, what):
    if isinstance(x, Value):
        if x._prev:
            raise ValueError(
                f"{what} must be a number or a leaf Value, but {x!r} was computed by {x._op!r}"
            )
        return
    _floats.as_float(x)  # a TypeError for anything that is not a real number


def _numbers(values, what):
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"the {what}s must be a sequence of numbers, not {values!r}") from None
    return [x if type(x) is float else _floats.as_float(x) for x in values]


def _flatten(obj):
    """(the numbers of a nesting of lists and tuples, in order; its shape). The shape of a number
    is None, of a sequence the tuple of its items' shapes."""
    if isinstance(obj, (list, tuple)):
        flat, shapes = [], []
        for item in obj:
            f, s = _flatten(item)
            flat.extend(f)
            shapes.append(s)
        return flat, tuple(shapes)
    return [obj], None


def _unflatten(flat, shape):
    """The nesting `shape` (as lists) filled with the items of `flat`, in order."""
    items = iter(flat)

    def build(s):
        return next(items) if s is None else [build(child) for child in s]

    return build(shape)


def _shape_text(shape):
    """`shape` in words: 'a number', '3 numbers', '100 × (2 numbers)', or a ragged list."""
    if shape is None:
        return "a number"
    if all(s is None for s in shape):
        return f"{len(shape)} number{'s' * (len(shape) != 1)}"
    if len(set(shape)) == 1:
        return f"{len(shape)} × ({_shape_text(shape[0])})"
    return "[" + ", ".join(_shape_text(s) for s in shape) + "]"


def _outcome(function, p, x):
    try:
        loss, grads = function(p, x)
    except (ArithmeticError, ValueError) as e:
        return "error", type(e), str(e), e
    return "ok", loss, grads


def _outcome_text(outcome):
    if outcome[0] == "error":
        return f"{outcome[1].__name__}({outcome[2]!r})"
    return f"loss {outcome[1]!r}"


def _same(a, b):
    """The same float, bit for bit (NaN equal to NaN; 0.0 and -0.0 differ)."""
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
