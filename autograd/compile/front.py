"""The front end: takes a function of `Value`s and its numbers, gives a `CompiledLoss`.

What `compile_loss` checks, the trace, the pipeline run once (tape, passes, a writer, the
build), and the check mode that runs the engine beside the compiled code (see the package's
docstring)."""

import math
import time
import warnings

from .. import _floats
from ..engine import Value
from ..graph import collector_paused
from . import build
from .python import Python, load, python_source
from .python_fused import fused_python_source
from ..ops import OPS, find
from .inputs import (
    batch_of_floats,
    flatten,
    leaves,
    numbers,
    point_lengths,
    shape_text,
    type_name,
    unflatten,
)
from .passes import Program
from .tape import is_name, record
from .tracing import creations

__all__ = ["compile_loss", "c_compiler", "CompiledLoss", "TraceMismatch", "NoCompilerWarning"]

BACKENDS = ("python", "c")
# The C compiler's -O level unless one is asked for. With the code fused, -O2 builds in about
# the time -O0 does (the C is some 200 lines) and its step runs in about half the time; -O3
# gains little more. (Measured on the benchmark's step; see `autograd.compile.fusion`.)
OPT_LEVEL = 2
# The Python code of a tape at least this long is fused too, unless `fuse=False`: a training
# step's tens of thousands of lines take CPython about a second to compile, its few hundred
# fused lines a few milliseconds, and they run about as fast. A shorter tape is written one
# line per operation, which is the code to read (a neuron's, say).
FUSE_PYTHON_FROM = 1000


class TraceMismatch(AssertionError):
    """`check=True` found the compiled function and the engine disagreeing for some numbers."""


class NoCompilerWarning(UserWarning):
    """`backend="c"` was asked for but no C compiler built the code: Python code runs instead."""


def built_or_warned(build_it):
    """The `Library` that `build_it()` builds, or None after a `NoCompilerWarning` that says
    why it could not be built (pointing at the line that asked for the compile)."""
    try:
        return build_it()
    except build.CannotBuild as reason:
        # built_or_warned < _trace_and_build (or _build) < __init__ < compile_... < that line
        warnings.warn(
            f"{reason}; running the compiled Python code instead", NoCompilerWarning, stacklevel=5
        )
        return None


def c_compiler():
    """The path of the C compiler `backend="c"` would use (`$CC`, `cc`, `gcc` or `clang`), or None."""
    return build.find_compiler()


def compile_loss(
    fn,
    params,
    inputs=(),
    *,
    check=False,
    has_aux=False,
    backend="python",
    opt_level=OPT_LEVEL,
    fuse=None,
):
    """Trace `fn(params, inputs)` once and return a `CompiledLoss` that replays it on numbers.

    `fn` takes a list of parameter `Value`s and the inputs (the same nesting of lists as
    `inputs`, with a `Value` for each number) and returns the scalar loss as a `Value`.
    `params` is a flat sequence of numbers, or of leaf `Value`s (a model's own parameters,
    which `fn` may then use directly, e.g. through the model); `inputs` is a number or a
    nesting of lists and tuples of numbers (or leaf `Value`s). Their numbers are those of the
    trace. Every other leaf that `fn` uses (a number it writes, a `Value` it closes over that
    is not in `params`) is a constant of the compiled code, frozen at its value now.

    `has_aux=True`: `fn` returns `(loss, values)`, a list of other `Value`s it computed (a
    model's scores, say); a call then returns `(loss, gradients, their numbers)`.
    `check=True`: every call also runs `fn` on the engine and raises `TraceMismatch` on any
    difference (see the module's docstring). `backend`: `"python"` or `"c"`; `opt_level`: the
    C compiler's `-O` level (0 to 3; 2 unless given). `fuse`: write each sum of products as a
    running sum and each repeated block as a loop (`autograd.compile.fusion`), or, with
    `fuse=False`, one statement per operation; the same numbers either way. By default the C
    code is fused (a few hundred lines instead of tens of thousands, which build in a
    fraction of the time), and so is the Python code of a tape of `FUSE_PYTHON_FROM` (1,000)
    instructions or more, a training step's (whose code CPython then reads in milliseconds
    instead of about a second, and which runs about as fast); a shorter tape's Python is one
    line per operation, for reading.
    """
    return CompiledLoss(
        fn,
        params,
        inputs,
        check=check,
        has_aux=has_aux,
        backend=backend,
        opt_level=opt_level,
        fuse=fuse,
    )


def _check_options(backend, fuse, opt_level):
    """ValueError or TypeError for an option `compile_loss` does not take."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'python' or 'c', not {backend!r}")
    if fuse is not None and type(fuse) is not bool:
        raise TypeError(
            f"fuse must be True, False or None (the default: see compile_loss), not {fuse!r}"
        )
    if type(opt_level) is not int or not 0 <= opt_level <= 3:
        raise ValueError(
            f"opt_level must be a whole number from 0 to 3 (the C compiler's "
            f"-O level), not {opt_level!r}"
        )


class CompiledLoss:
    """`fn` traced once: call it as `loss, grads = compiled(param_numbers, input_numbers)`.

    Attributes: `tape` (the `Instruction`s, in the order the engine ran them), `backend` (the
    code that runs: `"python"` or `"c"`), `source` (that code), `compile_seconds` (the time
    the trace, the code and its build took), `n_params`, `input_shape` (how the inputs nest;
    `None` for a single number), `check`, `has_aux` and `fused` (whether the code is fused).
    """

    def __init__(
        self,
        fn,
        params,
        inputs=(),
        *,
        check=False,
        has_aux=False,
        backend="python",
        opt_level=OPT_LEVEL,
        fuse=None,
    ):
        started = time.perf_counter()
        _check_options(backend, fuse, opt_level)
        self.fn, self.check, self.has_aux = fn, check, has_aux
        self._params = list(params)
        self._inputs, self.input_shape = leaves(self._params, inputs)
        self._lengths = point_lengths(self.input_shape)
        self.n_params = len(self._params)
        # A trace builds tens of thousands of objects, and the collector's passes over them
        # (and later over the syntax tree of the code) would cost more than the work itself.
        with collector_paused():
            self._trace_and_build(backend, opt_level, fuse)
        self.compile_seconds = time.perf_counter() - started

    def _trace_and_build(self, backend, opt_level, fuse):
        """The pipeline, run once: trace `fn`, record the tape, find the `Program`'s facts,
        and write (and for C, build) the code."""
        param_leaves = [p if isinstance(p, Value) else Value(p) for p in self._params]
        input_leaves = [x if isinstance(x, Value) else Value(x) for x in self._inputs]
        with creations() as made:
            result = self.fn(list(param_leaves), unflatten(input_leaves, self.input_shape))
        root, aux = _loss_and_aux(result, self.has_aux)
        self._trace = record(root, aux, self.has_aux, param_leaves, input_leaves, made)
        self._program = Program(self._trace)  # the passes, each run once, when asked
        self.tape = self._trace.tape
        del root, aux, result, param_leaves, input_leaves, made  # the graph can go now
        self._careful = None
        self.backend, self._c = "python", None
        if backend == "c":
            self._c = built_or_warned(
                lambda: build.build(self._program, opt_level, fuse is not False)
            )
        if self._c is not None:
            self.backend, self.source = "c", self._c.source
        else:
            if fuse is None:
                fuse = len(self.tape) >= FUSE_PYTHON_FROM
            self.source = (
                fused_python_source(self._program)
                if fuse
                else python_source(self._program, careful=False)
            )
            self._function = load(self.source)
        self.fused = fuse is not False if self.backend == "c" else bool(fuse)

    def __call__(self, params, inputs=()):
        """`(loss, [d loss / d param for each parameter])` for these numbers, as floats (and
        the other values' numbers as a third item, with `has_aux`)."""
        p = numbers(params, "parameter")
        if len(p) != self.n_params:
            raise ValueError(
                f"this loss was compiled for {self.n_params} parameters, but was given {len(p)}: "
                "compile it again with compile_loss for a different set of parameters"
            )
        x = batch_of_floats(inputs, self._lengths)  # the common case, at C speed
        if x is None:
            x = self._inputs_checked(inputs)
        return self._checked_call(p, x) if self.check else self._replay(p, x)

    def _inputs_checked(self, inputs):
        """The numbers of `inputs`, once they are found shaped as at the trace (a TypeError or
        ValueError that says how they differ otherwise)."""
        flat, shape = flatten(inputs)
        if shape is None and self.input_shape is not None and not _floats.is_real(inputs):
            raise TypeError(
                f"the inputs must be a list or tuple shaped {shape_text(self.input_shape)}, as "
                f"at the trace, but were given {_floats.show(inputs)} of type {type_name(inputs)}"
                + (": pass a list, e.g. array.tolist()" if hasattr(inputs, "tolist") else "")
            )
        if shape != self.input_shape:
            raise ValueError(
                f"this loss was compiled for inputs shaped {shape_text(self.input_shape)}, but "
                f"was given {shape_text(shape)}: a trace replays one shape, so compile again "
                "with compile_loss for this one"
            )
        return numbers(flat, "input")

    def __repr__(self):
        return (
            f"<CompiledLoss: {len(self.tape)} instructions, {self.n_params} parameters, "
            f"inputs {shape_text(self.input_shape)}, {self.backend}"
            f"{', check' if self.check else ''}>"
        )

    def _replay(self, p, x):
        """(loss, grads[, aux]) from the fast code, or from the careful code where it gives up."""
        if self._c is not None:
            result = self._c(p, x)
        else:
            try:
                result = self._function(p, x)
            except (ArithmeticError, ValueError):  # the careful code raises the engine's error
                result = None
        if result is None:
            if self._careful is None:
                self._careful = load(python_source(self._program, careful=True))
            result = self._careful(p, x)
        return result

    # ----------------------------------------------------------------- check mode

    def _checked_call(self, p, x):
        compiled = _outcome(self._replay, p, x)
        eager = _outcome(self._run_engine, p, x)
        if compiled[0] == "error" or eager[0] == "error":
            if compiled[:3] != eager[:3]:
                raise TraceMismatch(
                    f"the compiled code gave {_outcome_text(compiled)} but the engine gave "
                    f"{_outcome_text(eager)}{self._diagnosis(p, x)}"
                )
            raise compiled[3]
        (_, c_loss, c_grads, *c_aux), (_, e_loss, e_grads, *e_aux) = compiled, eager
        pairs = (
            [("the loss", c_loss, e_loss)]
            + [
                (f"the gradient of parameter {i}", c, e)
                for i, (c, e) in enumerate(zip(c_grads, e_grads))
            ]
            + [(f"auxiliary value {i}", c, e) for i, (c, e) in enumerate(zip(*c_aux, *e_aux))]
        )
        for what, c, e in pairs:
            if not _same_bits(c, e):
                raise TraceMismatch(
                    f"{what} is {c!r} from the compiled code but {e!r} from the engine"
                    f"{_ulps_apart(c, e)}{self._diagnosis(p, x)}"
                )
        return compiled[1:]

    def _diagnosis(self, p, x):
        """The rest of a TraceMismatch's message: the point, the first operation where the
        tape and the engine part ways (or else which code differs), and the possible causes."""
        where = f", at parameters {_few(p)} and inputs {_few(x)}. "
        ours = _tape_values(self._trace, p, x)
        made, leaves = self._engine_operations(p, x)
        known = {id(leaf): True for leaf in leaves}
        k = 0
        for node in made:
            if not node._prev or all(id(child) not in known for child in node._prev):
                continue  # a constant, as `record` makes it
            known[id(node)] = True
            if k >= len(self.tape):
                return where + (
                    f"The engine ran more operations than the {len(self.tape)} of "
                    f"the trace (the next was {node._op!r}): fn took another "
                    f"path. {_CAUSES}"
                )
            ins = self.tape[k]
            row = find(node._op)
            if row is None or row.name != ins.op:
                return where + (
                    f"They part ways at operation {k + 1}: the compiled code runs "
                    f"{_instruction_text(ins)} where the engine ran {node._op!r}. "
                    f"{_CAUSES}"
                )
            value = ours.get(ins.out)
            if value is not None and not _same_bits(value, node.data):
                constants = [Python.v(a) for a in ins.args if not is_name(a)]
                hint = (
                    f" Its constant {constants[0]} is a number frozen at the trace: has the "
                    f"Value or number it came from changed?"
                    if constants
                    else ""
                )
                return where + (
                    f"They part ways at operation {k + 1}, {_instruction_text(ins)}, "
                    f"which gives {value!r} in the compiled code but {node.data!r} "
                    f"in the engine{_ulps_apart(value, node.data)}.{hint} {_CAUSES}"
                )
            k += 1
        if self._c is not None:
            python = _outcome(load(python_source(self._program, careful=True)), p, x)
            engine_run = _outcome(self._run_engine, p, x)
            if python[:3] == engine_run[:3] and (
                python[0] == "error"
                or all(
                    _same_bits(a, b)
                    for a, b in zip(_flat_numbers(python[1:]), _flat_numbers(engine_run[1:]))
                )
            ):
                return where + (
                    "Every operation of the trace ran as the engine ran it, and the "
                    "same tape run as Python agrees with the engine: the C code "
                    "alone differs, so the cause is the C build (the C compiler "
                    "computed some operation, a pow or a libm call, with other "
                    "rounding), not fn: backend='python' gives the engine's numbers."
                )
        return where + (
            "Every operation of the trace ran as the engine ran it, with the same "
            "numbers; the gradients differ, so a node's _backward or _prev was "
            f"changed after the trace, or the C build rounds differently. {_CAUSES}"
        )

    def _engine_operations(self, p, x):
        """(every Value the engine makes running fn at these numbers, in order; the parameter
        and input leaves), as a trace records them; the given leaves are restored after."""
        made, leaves, saved = [], [], []
        for given, number in zip(self._params + self._inputs, list(p) + list(x)):
            if isinstance(given, Value):
                saved.append((given, given.data, given.grad))
                given.data = number
                leaves.append(given)
            else:
                leaves.append(Value(number))
        params, inputs = leaves[: len(p)], leaves[len(p) :]
        try:
            with creations() as made:
                self.fn(list(params), unflatten(inputs, self.input_shape))
        except Exception:  # what ran up to the error is what is compared
            pass
        finally:
            for value, data, grad in reversed(saved):
                value.data, value.grad = data, grad
        return made, leaves

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
            root, aux = _loss_and_aux(
                self.fn(list(params), unflatten(inputs, self.input_shape)), self.has_aux
            )
            root.backward()
            grads = [v.grad for v in params]
            if self.has_aux:
                return root.data, grads, [_data(a) for a in aux]
            return root.data, grads
        finally:
            for value, data, grad in reversed(saved):
                value.data, value.grad = data, grad


_CAUSES = (
    "Possible causes: fn branches on .data (an if, max, abs, a sort): the compiled code replays "
    "the operations of the trace, and these numbers take another branch (compile again for "
    "them, or make the choice an operation such as relu); a Value that fn closes over, or "
    "another number it reads, has changed since the trace, of which it is a constant; the "
    "graph was edited (a _backward or a _prev replaced); with backend='c', the C compiler "
    "rounding an operation differently."
)


def _instruction_text(ins):
    """`t3 = t1 * p0`, `t4 = tanh(t3)`, `t5 = t4 ** 2.0`: an instruction as the code reads."""
    out, op, args = ins
    args = [Python.v(a) for a in args]
    if OPS[op].helper in (None, "power"):  # an operator: `+ * /`, or `**` for both powers
        return f"{out} = {args[0]} {op[:2]} {args[1]}"
    return f"{out} = {op}({args[0]})"


def _tape_values(trace, p, x):
    """{name: number} of every result of the tape's forward pass at these numbers, computed
    as the engine computes them, up to the first error."""
    values = {f"p{i}": v for i, v in enumerate(p)}
    values.update((f"x{i}", v) for i, v in enumerate(x))
    for out, op, args in trace.tape:
        numbers = [values[a] if is_name(a) else a for a in args]
        try:
            values[out] = OPS[op].forward(*numbers)
        except (ArithmeticError, ValueError):
            break
    return values


def _few(numbers, most=6):
    """A list of numbers for a message, cut short after `most`."""
    numbers = list(numbers)
    shown = ", ".join(repr(n) for n in numbers[:most])
    return f"[{shown}{', ...' if len(numbers) > most else ''}]"


def _ulps_apart(a, b):
    """' (3 ulps apart)' for two finite floats that differ only in their last bits, else ''."""
    if not (math.isfinite(a) and math.isfinite(b)) or a == b:
        return ""
    steps, lo = 0, min(a, b)
    while lo < max(a, b) and steps < 16:
        lo, steps = math.nextafter(lo, math.inf), steps + 1
    return f" ({steps} ulp{'s' * (steps != 1)} apart)" if lo == max(a, b) else ""


def _flat_numbers(result):
    """The numbers of (loss, grads[, aux]), one flat list."""
    loss, grads, *aux = result
    return [loss, *grads, *(aux[0] if aux else [])]


def _loss_and_aux(result, has_aux):
    """(the loss Value, the auxiliary values) that `fn` returned, or a TypeError saying why not."""
    aux = ()
    if has_aux:
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(
                f"with has_aux=True the function must return (loss, values), but "
                f"returned {result!r}"
            )
        result, aux = result
        aux = list(aux) if isinstance(aux, (tuple, list)) else [aux]
        for i, a in enumerate(aux):
            if not isinstance(a, Value):
                _floats.as_float(a)
    if not isinstance(result, Value):
        raise TypeError(
            f"the function to compile must return the loss as an autograd.engine.Value, "
            f"but returned {result!r} of type {type(result).__name__}"
        )
    return result, aux


def _data(v):
    return v.data if isinstance(v, Value) else float(v)


def _outcome(function, p, x):
    try:
        result = function(p, x)
    except (ArithmeticError, ValueError) as e:
        return "error", type(e), str(e), e
    return ("ok", *result)


def _outcome_text(outcome):
    if outcome[0] == "error":
        return f"{outcome[1].__name__}({outcome[2]!r})"
    return f"loss {outcome[1]!r}"


def _same_bits(a, b):
    """The same float, bit for bit (NaN equal to NaN; 0.0 and -0.0 differ)."""
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
