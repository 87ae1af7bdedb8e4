"""Trace once, run many: compile a loss built from `Value`s into straight-line code.

Every training step with the engine builds the same graph again: thousands of `Value` objects,
each with a closure, only to run the same arithmetic on new numbers. When the *shape* of the
computation does not change from step to step (the same model, the same number of points),
we can record it once and keep only the arithmetic.

`compile_loss(fn, params, inputs)` does that in three moves:

1. **Trace.** It calls `fn` once on engine `Value`s made from the given numbers, which builds
   the graph as usual.
2. **Record the tape.** It writes one `Instruction` per operation, in the order the engine ran
   them: a flat list, the *tape* (also called a Wengert list). Parameters become the names
   `p0, p1, ...`, inputs `x0, x1, ...`, intermediate results `t0, t1, ...`. A leaf that is
   neither a parameter nor an input (the `2.5` of `a + 2.5`, which the engine wraps in a
   `Value`) becomes a number on the tape, a constant, and so does anything computed from
   constants alone.
3. **Generate code.** From the tape it writes the source of one function: the forward pass,
   one assignment per instruction, then the backward pass, the engine's `_backward` closures
   unrolled in the order `backward()` runs them, with the gradient of `t5` in `dt5`.

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
        t1 = t0 + p1
        if t1 - t1: return None
        t2 = _tanh(t1)
        if t2 - t2: return None
        # backward: the engine's _backward closures, in the order backward() runs them
        dt2 = 1.0
        dt1 = 0.0 + (1.0 - t2) * (1.0 + t2) * dt2
        dp1 = dt1
        dp0 = 0.0 + x0 * dt1
        return t2, [dp0, dp1]
    <BLANKLINE>

**Exactly the engine's numbers.** Each line does the same floating-point operations, in the
same order, as the engine's code for that operation, and every gradient is accumulated in the
order `backward()` would add it. (One line is saved: `t1 = t0 + p1` passes its gradient on
unchanged, so `t0`'s gradient *is* `dt1`, and the code uses `dt1` where a `dt0 = dt1` would be.) So the loss and the gradients are *bit for bit* the engine's,
not merely close. Two details make that true: the engine's rules for a slope of 0 (relu at
and below 0, `x ** 0`, pass back nothing even when the gradient above is infinite) become a
condition; and a gradient's first contribution is added to `0.0`, as the engine adds it to a
zeroed `grad`, so that even the sign of a zero gradient agrees.

**The fast line and the careful one.** The engine checks every result: a float too large,
the log of a negative number, a division by zero raise an error that says so. Checking every
line would double the code, so the generated function checks only where it must. A number
that is not finite (inf or NaN) spreads through `+`, `*` and most operations to the loss;
only a few can swallow it (`tanh(inf)` is 1.0, `exp(-inf)` is 0.0, `x / inf` is 0.0, relu of
`-inf` is 0), and before those, a line `if t1 - t1: return None` (`v - v` is 0.0 for every
finite `v`, and NaN otherwise) gives up; so does a loss that is not finite. Then the step is
done again by the *careful* version, generated (once) with the engine's check on every line:
it raises the engine's error with the engine's message, or returns what the engine returns
when the inputs themselves were not finite. On ordinary numbers the careful version never runs.

**A C backend.** `backend="c"` writes the same tape as C (`source` shows it), builds it with
the system's C compiler (`cc`, `gcc` or `clang`; `$CC` first) into a shared library, kept in a
cache directory under a name made from a hash of the code, and calls it through `ctypes`. The
C code does the same float operations in the same order (and is built with
`-ffp-contract=off`, so no multiply-add is fused), so it gives the same numbers. Where no
compiler is found, a `NoCompilerWarning` says so and the Python code runs instead.

**Fusion.** Written one line per operation, a training step is tens of thousands of lines.
The C code is *fused* (`fusion`; Python's too, for a tape of `FUSE_PYTHON_FROM` instructions
or more, or with `fuse=True`): each sum of products, a
neuron's `b + w1*x1 + ... + wn*xn`, becomes a running sum that a loop adds the products to,
and each block of statements that repeats with its indices moving by fixed steps (the
neurons of a layer, the points of a batch) becomes a loop. The loops run the same
statements, in the same order, so the numbers are still the engine's, bit for bit; the C is
a few hundred lines, which the compiler builds at `-O2` (the default `opt_level`) in a
fraction of the time that tens of thousands of lines took it.

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
  `TraceMismatch` when the loss, a gradient, or an error differ. Its message gives the numbers
  of the call and the first operation where the tape and the engine part ways: another
  operation (`fn` branches on `.data`), or another number from the same operation (a constant
  of the trace has changed since); or it says that the same tape run as Python agrees with the
  engine, so that only the C code differs. It is slow (both run); use it while you develop,
  then switch it off.
- Each parameter and each input is a leaf of its own: a `Value` given twice (as a parameter
  and an input, or as two inputs) is refused, since it holds one number where the code would
  take two. So is a node made by hand, `Value(data, children, op)`, or one whose `_backward`
  was replaced: `backward()` does not differentiate through it by its operation's rule, and
  the compiled code would.

`compile_step(model, X, y)` puts this to work for `autograd.nn`: one training step of an MLP,
compiled, with the face of `nn.train_step`.

`compile_batch(point_fn, loss_fn, params, points)` compiles a batch a point at a time: it
traces `point_fn` on one point and `loss_fn` on a stand-in for each point's output, compiles
each once, and writes a loop over the points around the first; its `descend` makes a step of
gradient descent in place, in C inside the library. `compile_loss` on the whole
batch makes every operation on every point an instruction, so its compile grows with the
batch; `compile_batch`'s grows with one point's program and the loss. The numbers are the
engine's, bit for bit, as its docstring says why (and where it refuses).

**How the package is built.** As the compiler of chapter 11: one pipeline over data, a stage
per module, each taking what the stage before gave. Following `compile_loss` to the C library:

- `front`: takes a function of `Value`s and its numbers, gives a `CompiledLoss` (what it
  checks, the pipeline run once, the check mode); `step` puts it to work for `autograd.nn`;
  `batch` takes a function of one point and a loss of the outputs, gives a `CompiledBatch`
  (two programs through the same pipeline, and a loop over the points around one);
  `inputs` takes what it and each call are given, gives their numbers and shape (a batch of
  points of floats read at C speed), or the error that says what is wrong;
- `tracing`: takes a `with` block, gives every `Value` the engine made in it, in order;
- `tape`: takes the graph of a trace, gives a `Trace`, its `Instruction`s as data (`record`);
- `passes`: takes a `Trace`, gives a `Program`: the facts every later stage reads (what needs
  a gradient, the backward pass as data, liveness, results folded into their one use, the
  sums of products, slot numbers), each found once, when first asked;
- `rules`: takes the table of primitives (`autograd.ops`), gives the two tables, each
  operation's forward expression and its backward contributions, as templates;
- `statements`: takes instructions, the backward pass and a *writer*, gives the statements
  the writer spells (names, helpers and statements in its language);
- `places`: the statements of the fused code as data, `Code` whose places (an array and an
  index, or a number) are never written into the text;
- `fusion`: takes a `Program` and a writer, gives the fused statements, each sum of
  products a running sum;
- `loops`: takes statements, gives them rolled into loops where a block repeats;
- `interleave`: takes a rolled loop whose turns each run a sum of products (a layer's
  neurons), gives its C with four turns' sums side by side, each with its own additions;
- `jam`: takes a rolled loop whose turns each run a loop (a layer's backward, a loop over the
  neurons of a loop over their inputs), gives its C with four turns in one inner loop, every
  place's additions in the order they were;
- `lanes`: takes a point's fused statements (a large `compile_batch`), gives its C with eight
  points side by side, one lane each, the parameters' gradients added to lane by lane in
  `backward()`'s order of the points;
- `python`, `python_fused` and `c`: the writers, which only spell, each in its language, at
  the very end; `batch_code` takes a batch's two programs and its points' order, gives its
  `loss_and_grads` in Python or C (and, in C, `descend`: the step and its update);
- `build`: takes a `Program` (or C code already written, `build_code`), gives the C code
  built with the system's compiler, cached and
  loaded (its docstring says what the cache promises).
"""

from .batch import CompiledBatch, compile_batch
from .build import CacheWarning
from .front import (
    FUSE_PYTHON_FROM,
    CompiledLoss,
    NoCompilerWarning,
    TraceMismatch,
    c_compiler,
    compile_loss,
)
from .step import CompiledStep, compile_step
from .tape import Instruction

__all__ = [
    "compile_loss",
    "compile_step",
    "compile_batch",
    "c_compiler",
    "CompiledLoss",
    "CompiledStep",
    "CompiledBatch",
    "Instruction",
    "TraceMismatch",
    "NoCompilerWarning",
    "CacheWarning",
    "FUSE_PYTHON_FROM",
]
