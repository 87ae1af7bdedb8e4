"""A batch, a point at a time: takes a function of one point and a loss of all the points'
outputs, gives a `CompiledBatch`.

`compile_loss` traces a whole batch: each operation on each point is an instruction that
every stage of the compiler reads, so its compile grows with the batch's arithmetic.
`compile_batch` traces `point_fn` on one point, and `loss_fn` on a stand-in leaf for each
point's output; it compiles each once, and writes a loop over the points around the first.
Its compile grows with one point's program and the loss's, not with the points.

The numbers are the engine's, bit for bit, running

    outputs = [point_fn(params, point) for point in points]
    loss = loss_fn(params, outputs, targets)
    loss.backward()

A point's values are reached only through its output, so `backward()` runs a point's closures
one after another, where the sort put its output in the loss's graph; the code runs them in
that order, the points one after another, each adding to the parameters' gradients. The loss's
own contributions to them (an L2 penalty's) must all come first, as they do when the penalty
is added after the points' loss; `compile_batch` checks that, and otherwise says so and points
to `compile_loss`.
"""

import array
import time
from itertools import chain

from .. import _floats
from ..engine import Value
from ..graph import collector_paused, topological_order
from . import build
from .batch_code import batch_c_code, batch_python_source
from .front import OPT_LEVEL, TraceMismatch, _check_options, _same_bits, built_or_warned
from .inputs import leaves, numbers
from .passes import Program
from .python import load
from .tape import record
from .tracing import creations

__all__ = ["compile_batch", "CompiledBatch"]


def compile_batch(
    point_fn,
    loss_fn,
    params,
    points,
    targets=(),
    *,
    backend="python",
    opt_level=OPT_LEVEL,
    check=False,
):
    """Trace `point_fn` on one point and `loss_fn` on the outputs once; a `CompiledBatch`.

    `point_fn(params, point)` returns one point's output, a `Value` (a model's score, say),
    from the parameter `Value`s and the point (a `Value`, or a list of them, as the points
    are given). `loss_fn(params, outputs, targets)` returns the loss from the outputs, one a
    point, and the targets (a list of `Value`s: labels, say). `params` are numbers or leaf
    `Value`s (a model's own), as for `compile_loss`; `points` is a list of numbers, or of
    lists of numbers all of one length; `targets` a list of numbers. A call takes the same
    number of points, or an `array.array("d")` of their numbers, one point after another.
    `backend`, `opt_level` and `check` are `compile_loss`'s. `point_fn` and `loss_fn` must
    not choose in Python on the numbers (an `if` on `.data`): the code replays the
    operations of the trace, whose outputs are the first point's.
    """
    return CompiledBatch(
        point_fn,
        loss_fn,
        params,
        points,
        targets,
        backend=backend,
        opt_level=opt_level,
        check=check,
    )


class CompiledBatch:
    """`compile_batch`'s result: `loss, grads, outputs = compiled(params, points, targets)`,
    or one step of gradient descent in place: `loss, outputs = compiled.descend(params,
    points, targets, lr=0.1)`.

    Attributes: `backend` (`"python"` or `"c"`), `source` (the code that runs),
    `compile_seconds`, `n_params`, `n_points`, `point_tape` and `loss_tape` (the two traces'
    `Instruction`s), `tape` (both), `check`.
    """

    def __init__(
        self,
        point_fn,
        loss_fn,
        params,
        points,
        targets=(),
        *,
        backend="python",
        opt_level=OPT_LEVEL,
        check=False,
    ):
        started = time.perf_counter()
        _check_options(backend, None, opt_level)
        self.point_fn, self.loss_fn, self.check = point_fn, loss_fn, check
        self._params = list(params)
        if not self._params:
            raise ValueError("compile_batch needs at least one parameter, but params is empty")
        leaves(self._params, ())  # each a number or a leaf Value, none given twice
        points = list(points) if isinstance(points, (list, tuple)) else None
        if not points:
            raise ValueError("compile_batch needs a non-empty list of points")
        self._listed = isinstance(points[0], (list, tuple))
        self.point_length = len(points[0]) if self._listed else 1
        self.n_points, self.n_params = len(points), len(self._params)
        self.n_targets = len(_list(targets, "targets"))
        rows = self._rows(points)
        target_numbers = numbers(list(targets), "target")
        with collector_paused():
            self._trace(rows, target_numbers)
            self._build(backend, opt_level)
        self.compile_seconds = time.perf_counter() - started

    # ----------------------------------------------------------------- the traces

    def _trace(self, rows, targets):
        params = [p if isinstance(p, Value) else Value(p) for p in self._params]
        point = [Value(x) for x in rows[0]]
        seed = Value(0.0)  # the input that holds the output's gradient, in the backward pass
        with creations() as made:
            output = self.point_fn(list(params), point if self._listed else point[0])
        if not isinstance(output, Value):
            raise TypeError(
                f"point_fn must return the point's output as an autograd.engine.Value, but "
                f"returned {output!r} of type {type(output).__name__}"
            )
        trace = record(output, [], False, params, point + [seed], made)
        if not (isinstance(trace.result, str) and trace.result[0] == "t"):
            raise ValueError(
                "point_fn must compute its output from the parameters and the point, but it "
                f"returned {output!r}, a leaf or a constant"
            )
        self._point = Program(trace._replace(seed=f"x{len(point)}", accumulate=True))
        stand_ins = [Value(output.data) for _ in rows]
        target_leaves = [Value(t) for t in targets]
        del made, output
        with creations() as made:
            loss = self.loss_fn(list(params), list(stand_ins), list(target_leaves))
        if not isinstance(loss, Value):
            raise TypeError(
                f"loss_fn must return the loss as an autograd.engine.Value, but returned "
                f"{loss!r} of type {type(loss).__name__}"
            )
        order = topological_order(loss)
        self._order = _backward_order(order, params, stand_ins)
        trace = record(loss, [], False, params + stand_ins, target_leaves, made, order)
        self._loss = Program(trace)
        self.point_tape, self.loss_tape = self._point.trace.tape, self._loss.trace.tape
        self.tape = self.point_tape + self.loss_tape

    def _build(self, backend, opt_level):
        self.backend, self._c = "python", None
        if backend == "c":
            self._c = built_or_warned(
                lambda: build.build_code(self._shape(), self._c_code(), opt_level)
            )
        if self._c is not None:
            self.backend, self.source = "c", self._c.source
        else:
            self.source = batch_python_source(self._point, self._loss, self.n_points, self._order)
            self._function = load(self.source)

    def _shape(self):
        """What the library's `loss_and_grads` takes and gives, as a trace counts it."""
        trace = self._loss.trace
        return trace._replace(
            n_params=self.n_params,
            n_inputs=self.n_points * self.point_length + self.n_targets,
            aux=[None] * self.n_points,
            has_aux=True,
        )

    def _c_code(self):
        return batch_c_code(self._point, self._loss, self.n_points, self._order)

    # ----------------------------------------------------------------- a call

    def __call__(self, params, points, targets=()):
        """`(loss, [d loss / d param for each parameter], [each point's output])`, floats."""
        return self._call(self._numbers_of(params), points, targets)

    def _call(self, p, points, targets):
        """A call, on the parameters' numbers `p`, already checked."""
        flat, targets, x = self._inputs(points, targets)
        if self.check:
            return self._checked(p, flat, targets, x)
        result = self._replay(p, x)
        return result if result is not None else self._engine(p, flat, targets)

    def descend(self, params, points, targets=(), *, lr):
        """One step of gradient descent, in place: each number p of `params` becomes
        `p - lr * grad`, as `params[:] = [p - lr * g for p, g in zip(params, grads)]` would
        after a call, bit for bit. Returns `(loss, outputs)`.

        `params` is a list of numbers, an `array.array("d")`, or a list of leaf `Value`s (a
        model's `parameters()`, whose `.data` change; their `.grad` is left alone). In C the
        update runs in the library, on the array's own numbers where it is one (nothing is
        copied), so a training loop whose parameters stay in an array never brings its
        gradients back into Python."""
        if not isinstance(params, (list, array.array)) or (
            isinstance(params, array.array) and params.typecode != "d"
        ):
            given = (
                f"an array.array of typecode {params.typecode!r}"
                if isinstance(params, array.array)
                else f"a {type(params).__name__}"
            )
            raise TypeError(
                "descend changes params in place: give a list of numbers or an "
                f"array.array('d'), not {given}"
            )
        if type(lr) is not float and not _floats.is_real(lr):
            raise TypeError(f"lr must be a real number, but is {_floats.show(lr)}")
        lr = _floats.as_float(lr)
        if isinstance(params, list) and any(isinstance(p, Value) for p in params):
            if not all(isinstance(p, Value) for p in params):
                raise TypeError(
                    "params must be all numbers or all Values (a model's parameters), not both"
                )
            data = [p.data for p in params]
            result = self.descend(data, points, targets, lr=lr)
            for value, number in zip(params, data):
                value.data = number
            return result
        if self._c is not None and not self.check:
            ours = params if isinstance(params, array.array) else None
            if ours is None or len(ours) != self.n_params:
                ours = array.array("d", self._numbers_of(params))
            result = self._c.descend(ours, self._inputs(points, targets)[2], lr)
            if result is not None:
                if ours is not params:
                    params[:] = ours.tolist() if isinstance(params, list) else ours
                return result
        numbers_now = self._numbers_of(params)
        loss, grads, outputs = self._call(numbers_now, points, targets)
        updated = [p - lr * g for p, g in zip(numbers_now, grads)]
        params[:] = updated if isinstance(params, list) else array.array("d", updated)
        return loss, outputs

    def _numbers_of(self, params):
        p = numbers(params, "parameter")
        if len(p) != self.n_params:
            raise ValueError(
                f"this batch was compiled for {self.n_params} parameters, but was given {len(p)}"
            )
        return p

    def _inputs(self, points, targets):
        """(the points' numbers, the targets', both in one sequence as the code reads them)."""
        flat, targets = self._flat(points), self._targets(targets)
        x = flat + (array.array("d", targets) if isinstance(flat, array.array) else targets)
        return flat, targets, x

    def _targets(self, targets):
        targets = numbers(_list(targets, "targets"), "target")
        if len(targets) != self.n_targets:
            raise ValueError(
                f"this batch was compiled for {self.n_targets} targets, but was given "
                f"{len(targets)}"
            )
        return targets

    def _flat(self, points):
        """The points' numbers, in order: as they are where they are an `array.array("d")` of
        them all, one point after another; read at C speed where each point is a list of floats
        (or a float) as at the trace; else checked point by point (`_rows`)."""
        if isinstance(points, array.array) and points.typecode == "d":
            if len(points) != self.n_points * self.point_length:
                raise ValueError(
                    f"this batch was compiled for {self.n_points} points of "
                    f"{self.point_length} numbers each, {self.n_points * self.point_length} "
                    f"in all, but the array of the points' numbers holds {len(points)}"
                )
            return points
        if not isinstance(points, (list, tuple)):
            raise TypeError(
                "points must be a list or tuple (or an array.array('d') of their numbers), "
                f"not {type(points).__name__}"
            )
        if len(points) == self.n_points:
            if not self._listed:
                if set(map(type, points)) <= {float}:
                    return points
            elif set(map(type, points)) <= {list, tuple} and set(map(len, points)) == {
                self.point_length
            }:
                flat = list(chain.from_iterable(points))
                if set(map(type, flat)) <= {float}:
                    return flat
        return [number for row in self._rows(points) for number in row]

    def _rows(self, points):
        """Each point's numbers, once the points are found shaped as at the trace."""
        if len(points) != self.n_points:
            raise ValueError(
                f"this batch was compiled for {self.n_points} points, but was given "
                f"{len(points)}: compile again with compile_batch for another number"
            )
        rows = []
        for i, point in enumerate(points):
            if self._listed:
                if not isinstance(point, (list, tuple)) or len(point) != self.point_length:
                    raise ValueError(
                        f"point {i} must be a list of {self.point_length} numbers, as at the "
                        f"trace, but is {_floats.show(point)}"
                    )
                rows.append(numbers(list(point), f"point {i}'s number"))
            else:
                rows.append(numbers([point], f"point {i}"))
        return rows

    def _replay(self, p, x):
        """(loss, grads, outputs) from the compiled code, or None where it gives up (a number
        that is not finite, an error): the engine then runs."""
        if self._c is not None:
            return self._c(p, x)
        try:
            return self._function(p, x)
        except (ArithmeticError, ValueError):
            return None

    def _engine(self, p, flat, targets):
        """The engine on these numbers (its error where it raises); the given leaf Values are
        restored afterwards."""
        rows = [flat[k : k + self.point_length] for k in range(0, len(flat), self.point_length)]
        saved, params = [], []
        for given, number in zip(self._params, p):
            if isinstance(given, Value):
                saved.append((given, given.data, given.grad))
                given.data, given.grad = number, 0.0
                params.append(given)
            else:
                params.append(Value(number))
        try:
            outputs = [
                self.point_fn(
                    list(params), [Value(a) for a in row] if self._listed else Value(row[0])
                )
                for row in rows
            ]
            loss = self.loss_fn(list(params), outputs, [Value(t) for t in targets])
            loss.backward()
            return loss.data, [v.grad for v in params], [o.data for o in outputs]
        finally:
            for value, data, grad in reversed(saved):
                value.data, value.grad = data, grad

    def _checked(self, p, flat, targets, x):
        compiled = _outcome(lambda: self._replay(p, x) or self._engine(p, flat, targets))
        eager = _outcome(lambda: self._engine(p, flat, targets))
        if compiled[0] == "error" or eager[0] == "error":
            if compiled[:3] != eager[:3]:
                raise TraceMismatch(
                    f"the compiled code gave {compiled[:3]} but the engine {eager[:3]}"
                )
            raise compiled[3]
        (loss, grads, outputs), (e_loss, e_grads, e_outputs) = compiled[1], eager[1]
        pairs = [("the loss", loss, e_loss)]
        pairs += [
            (f"the gradient of parameter {i}", *ab) for i, ab in enumerate(zip(grads, e_grads))
        ]
        pairs += [(f"point {i}'s output", *ab) for i, ab in enumerate(zip(outputs, e_outputs))]
        for what, c, e in pairs:
            if not _same_bits(c, e):
                raise TraceMismatch(
                    f"{what} is {c!r} from the compiled code but {e!r} from the engine: "
                    "point_fn or loss_fn took another path than at the trace (an if on .data), "
                    "or a Value they close over has changed since"
                )
        return compiled[1]

    def __repr__(self):
        return (
            f"<CompiledBatch: {self.n_points} points, {len(self.point_tape)} instructions a "
            f"point, {len(self.loss_tape)} for the loss, {self.n_params} parameters, "
            f"{self.backend}{', check' if self.check else ''}>"
        )


def _list(values, what):
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{what} must be a list or tuple, not {type(values).__name__}")
    return list(values)


def _outcome(run):
    try:
        return "ok", run()
    except (ArithmeticError, ValueError) as e:
        return "error", type(e), str(e), e


def _backward_order(order, params, stand_ins):
    """The points whose outputs reach the loss (whose graph's `topological_order` is `order`),
    in the order `backward()` reaches them; a ValueError where the loss adds to a parameter's
    gradient after a point does."""
    at = {id(node): k for k, node in enumerate(order)}
    where = {k: at[id(s)] for k, s in enumerate(stand_ins) if id(s) in at}
    last = max(where.values(), default=-1)
    param_ids = {id(p) for p in params}
    for node in order[: max(last, 0)]:
        if any(id(child) in param_ids for child in node._prev):
            raise ValueError(
                f"loss_fn uses a parameter in {node!r}, whose closure backward() runs after "
                "some point's: the compiled code runs the loss's closures first, so its "
                "numbers would differ. Add such a term after the points' loss (loss = "
                "data_loss + penalty), or compile the whole batch with compile_loss"
            )
    return sorted(where, key=lambda k: -where[k])
