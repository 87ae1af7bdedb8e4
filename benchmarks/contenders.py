"""The contenders: micrograd's demo step, done by every engine the benchmark compares.

The step: an MLP with layer sizes 2-16-16-1 (ReLU hidden layers, linear output) scores the
moons points; the loss is the mean hinge loss max(0, 1 - y*score) plus an L2 penalty
1e-4 * sum(p*p); then the backward pass and one SGD update (learning rate 0.05).

Every contender has the same face: `prepare(X, y)` (the points in the form its step takes),
`new_model(seed)`, `step(model, data)` (one step; returns the loss before the update) and
`weights(model)` (every parameter as a float, layer by layer, neuron by neuron, weights then
bias). All start from `initial_weights(seed)`, so steps from the same seed must give every
contender the same losses and the same updated weights.

The scalar engines (micrograd, PyTorch with one 0-d tensor per scalar, the course's two
engines) all run the very same Python code below, one node per scalar, so the differences
between them are the engines. PyTorch on whole matrices, the course's tensor engine
(`autograd.tensor`, on NumPy) and the hand-written floor do the same arithmetic in their own
way: they have no per-scalar nodes.

`SIZES` are the layer sizes of the demo step; a contender's `sizes` attribute may be set to
others (the benchmark's wider step), from which it makes its weights.

The compiled steps (`autograd.compile`) trace that same Python code once, with the reference
engine, into straight-line code (Python, or C built into a shared library) that takes the
parameters' and the points' numbers and returns the loss and every gradient; their step is a
call of that code and the same SGD update. Compiling is done once, in `prepare`, outside the
timed steps, and its time is kept in `compile_seconds`.
"""

import array
import importlib
import inspect
import os
import random
import tempfile
import time
import warnings

from floor import floor_step

from autograd.graph import count

SIZES = (2, 16, 16, 1)
ALPHA = 1e-4
LR = 0.05


def initial_weights(seed, sizes=SIZES):
    """Layers of neurons, each neuron [w_1, ..., w_n, bias]: uniform(-1, 1) weights, zero bias."""
    rng = random.Random(seed)
    return [
        [[rng.uniform(-1, 1) for _ in range(nin)] + [0.0] for _ in range(nout)]
        for nin, nout in zip(sizes, sizes[1:])
    ]


def multiply_adds(sizes, points):
    """The multiply-adds of one forward pass of the MLP of layer `sizes` over `points` points:
    the work a step's arithmetic grows with (its backward pass does about twice as many)."""
    return points * sum(nin * nout for nin, nout in zip(sizes, sizes[1:]))


# ---------------------------------------------------------------- the step, one node per scalar


def forward(layers, x):
    last = len(layers) - 1
    for i, layer in enumerate(layers):
        out = []
        for w, b in layer:
            act = sum((wi * xi for wi, xi in zip(w, x)), b)
            out.append(act.relu() if i < last else act)
        x = out
    return x[0]


def loss_and_scores(engine, model, X, y):
    """(loss, the score of each point) of `model` on the points, as `engine`'s scalars."""
    layers, params = model
    inputs = [[engine.inp(a) for a in row] for row in X]
    scores = [forward(layers, row) for row in inputs]
    return loss_of_scores(scores, y, params), scores


def loss_of_scores(scores, y, params):
    """The mean hinge loss of the scores, then the L2 penalty of the parameters."""
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in params)
    return data_loss + reg_loss


def accuracy(y, scores):
    """The fraction of points whose score has the sign of their label (scores as numbers)."""
    return sum((yi > 0) == (si > 0) for yi, si in zip(y, scores)) / len(y)


def build_loss(engine, model, X, y):
    """(loss, accuracy) of `model` on the points, as a graph of `engine`'s scalars."""
    loss, scores = loss_and_scores(engine, model, X, y)
    return loss, accuracy(y, [engine.data(s) for s in scores])


def train_step(engine, model, X, y, lr=LR):
    params = model[1]
    loss, _ = build_loss(engine, model, X, y)
    engine.zero(params)
    loss.backward()
    engine.update(params, lr)
    return engine.data(loss)


def count_nodes(root):
    """Nodes in a graph whose nodes list their inputs in `_prev` (iteratively, for deep graphs)."""
    return count(root)


class Engine:
    """A scalar engine: how it makes parameters and inputs, and how it zeroes and updates them."""

    name = key = "?"
    sizes = SIZES  # the MLP's layer sizes; the benchmark sets another for its wider step
    has_nodes = True  # one graph node per scalar: bytes per node and the deepest chain apply
    memory_method = "tracemalloc"

    def param(self, x):
        return self.V(x)

    def inp(self, x):
        return self.V(x)

    def data(self, v):
        return v.data

    def zero(self, params):
        for p in params:
            p.grad = 0.0

    def update(self, params, lr):
        for p in params:
            p.data -= lr * p.grad

    def prepare(self, X, y):
        return X, y

    def new_model(self, seed):
        layers = [
            [([self.param(w) for w in neuron[:-1]], self.param(neuron[-1])) for neuron in layer]
            for layer in initial_weights(seed, self.sizes)
        ]
        params = [p for layer in layers for w, b in layer for p in (*w, b)]
        return layers, params

    def step(self, model, data):
        return train_step(self, model, *data)

    def weights(self, model):
        return [float(self.data(p)) for p in model[1]]

    def count_nodes(self, root, X):
        return count_nodes(root)

    def chain(self, depth):
        """Differentiate v = x + 1 + 1 + ... (depth additions); return x's gradient."""
        x = self.param(0.5)
        v = x
        for _ in range(depth):
            v = v + 1.0
        v.backward()
        return float(self.data_grad(x))

    def data_grad(self, x):
        return x.grad


class ValueEngine(Engine):
    """An engine whose scalars are the `Value` class of one module, imported when first used."""

    module = "?"

    def __init__(self):
        self.V = importlib.import_module(self.module).Value


class Micrograd(ValueEngine):
    name = "micrograd 0.1.0"
    key = "micrograd"
    module = "micrograd.engine"


class Reference(ValueEngine):
    name = "autograd.engine"
    key = "autograd"
    module = "autograd.engine"


class Fast(ValueEngine):
    name = "autograd.fast"
    key = "fast"
    module = "autograd.fast"


class TorchScalars(Engine):
    name = "PyTorch, 0-d tensors"
    key = "torch-0d"
    memory_method = "resident size"

    def __init__(self):
        self.torch = importlib.import_module("torch")
        # One thread, as the pure-Python engines have: a fair single-core comparison.
        self.torch.set_num_threads(1)

    def param(self, x):
        return self.torch.tensor(x, dtype=self.torch.float64, requires_grad=True)

    def inp(self, x):
        return self.torch.tensor(x, dtype=self.torch.float64)

    def data(self, v):
        return v.item()

    def data_grad(self, x):
        return x.grad.item()

    def zero(self, params):
        for p in params:
            p.grad = None

    def update(self, params, lr):
        with self.torch.no_grad():
            for p in params:
                p -= lr * p.grad

    def count_nodes(self, root, X):
        """One node per operation and per parameter in the autograd graph, plus the inputs.

        The same count as for the Python engines: PyTorch's graph holds a function object
        per operation and an AccumulateGrad per parameter; the input tensors it holds have
        no node of their own, so they are added as the number of input scalars.
        """
        seen, stack = {root.grad_fn}, [root.grad_fn]
        while stack:
            for child, _ in stack.pop().next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append(child)
        return len(seen) + sum(len(row) for row in X)


class Batched:
    """What the contenders on whole matrices share (PyTorch's and the course's tensors): the
    forward pass of a model of (weights, biases) layers, and the backward pass and SGD update
    of its parameters. Each library says how it applies relu, zeroes the gradients and
    updates a parameter."""

    sizes = SIZES
    has_nodes = False  # no node per scalar: no bytes per node, no deepest chain

    def relu(self, h):
        return h.relu()

    def zero(self, p):
        raise NotImplementedError

    def update(self, p, lr):
        raise NotImplementedError

    def forward(self, model, h):
        """h through every layer: h @ w.T + b, relu between the layers."""
        for i, (w, b) in enumerate(model):
            h = h @ w.T + b
            if i < len(model) - 1:
                h = self.relu(h)
        return h

    def descend(self, loss, model, lr):
        """Zero every parameter's gradient, backward from `loss`, one SGD update; the loss."""
        for layer in model:
            for p in layer:
                self.zero(p)
        loss.backward()
        for layer in model:
            for p in layer:
                self.update(p, lr)
        return loss.item()


class TorchParameters(Batched):
    """PyTorch's way: the gradient dropped (None), the update outside autograd's sight."""

    def zero(self, p):
        p.grad = None

    def update(self, p, lr):
        with self.torch.no_grad():
            p -= lr * p.grad


class TensorParameters(Batched):
    """autograd.tensor's way: the gradient zeroed in place, the update on `data`."""

    def zero(self, p):
        p.grad.fill(0.0)

    def update(self, p, lr):
        p.data -= lr * p.grad


class TorchBatched(TorchParameters):
    """The same MLP as matrices: one forward pass over all the points at once, float64.

    The points are turned into tensors once, in `prepare`: that is how data lives in a
    framework, and it leaves only the step itself to time.
    """

    name = "PyTorch, batched"
    key = "torch-batched"

    def __init__(self):
        self.torch = importlib.import_module("torch")
        self.torch.set_num_threads(1)

    def prepare(self, X, y):
        t = self.torch
        return t.tensor(X, dtype=t.float64), t.tensor(y, dtype=t.float64)

    def new_model(self, seed):
        t = self.torch
        model = []
        for layer in initial_weights(seed, self.sizes):
            w = t.tensor([neuron[:-1] for neuron in layer], dtype=t.float64, requires_grad=True)
            b = t.tensor([neuron[-1] for neuron in layer], dtype=t.float64, requires_grad=True)
            model.append((w, b))
        return model

    def step(self, model, data):
        X, y = data
        scores = self.forward(model, X)[:, 0]
        data_loss = (1 + -y * scores).relu().sum() * (1.0 / len(y))
        reg_loss = ALPHA * sum((p * p).sum() for layer in model for p in layer)
        _accuracy = ((y > 0) == (scores > 0)).double().mean().item()  # as the other steps do
        return self.descend(data_loss + reg_loss, model, LR)

    def weights(self, model):
        out = []
        for w, b in model:
            for row, bias in zip(w.tolist(), b.tolist()):
                out += row + [bias]
        return out


class TensorBatched(TensorParameters):
    """The same MLP as matrices on the course's `autograd.tensor.Tensor` (NumPy, float64): the
    step of PyTorch, batched, written with the course's own tensor engine.

    As for PyTorch, the points become arrays once, in `prepare`. They stay plain arrays (a
    Tensor takes them as constants), and each parameter is a Tensor whose gradient is set to
    zero in place before the backward pass, which accumulates into it.
    """

    name = "autograd.tensor (NumPy)"
    key = "tensor"

    def __init__(self):
        self.np = importlib.import_module("numpy")
        self.Tensor = importlib.import_module("autograd.tensor").Tensor

    def prepare(self, X, y):
        return self.np.array(X, dtype=float), self.np.array(y, dtype=float)

    def new_model(self, seed):
        T = self.Tensor
        return [
            (T([neuron[:-1] for neuron in layer]), T([neuron[-1] for neuron in layer]))
            for layer in initial_weights(seed, self.sizes)
        ]

    def step(self, model, data):
        X, y = data
        scores = self.forward(model, X).reshape(len(y))
        data_loss = (1 + -y * scores).relu().sum() * (1.0 / len(y))
        reg_loss = ALPHA * sum((p * p).sum() for layer in model for p in layer)
        _accuracy = ((y > 0) == (scores.data > 0)).mean()  # as the other steps do
        return self.descend(data_loss + reg_loss, model, LR)

    def weights(self, model):
        out = []
        for w, b in model:
            for row, bias in zip(w.data.tolist(), b.data.tolist()):
                out += row + [bias]
        return out


class Floor:
    """The hand-written floor (see floor.py): plain floats in lists, no graph at all."""

    name = "hand-written floor"
    key = "floor"
    sizes = SIZES
    has_nodes = False

    def prepare(self, X, y):
        return X, y

    def new_model(self, seed):
        return initial_weights(seed, self.sizes)

    def step(self, model, data):
        return floor_step(model, *data, LR, ALPHA)[0]

    def weights(self, model):
        return [p for layer in model for neuron in layer for p in neuron]


class Unavailable(ImportError):
    """A contender that cannot run on this machine (a missing library or C compiler)."""


class _Traced:
    """What `loss_and_scores` needs of an engine while `compile_loss` traces it: the inputs
    are already `Value`s (compile_loss makes them)."""

    @staticmethod
    def inp(x):
        return x


def _layers(params, sizes=SIZES):
    """The flat parameter list (layer by layer, neuron by neuron, weights then bias) as the
    `layers` that `forward` takes: per layer, a list of (weights, bias)."""
    layers, at = [], 0
    for nin, nout in zip(sizes, sizes[1:]):
        layer = []
        for _ in range(nout):
            layer.append((params[at : at + nin], params[at + nin]))
            at += nin + 1
        layers.append(layer)
    return layers


def cpu_seconds():
    """CPU seconds used so far by this process and by the children it has waited for (the C
    compiler): on a busy machine, compiling takes longer on the wall clock, not in CPU time."""
    try:
        import resource
    except ImportError:  # not a Unix: this process alone
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class CompiledPython:
    """The step compiled by `autograd.compile.compile_batch`: traced once, then plain code.

    `prepare(X, y)` traces `forward` on one point and `loss_of_scores` on the scores (the very
    code the scalar engines run) with the reference engine and compiles them, once per data
    set (the labels `y` are constants of the compiled code, the points `X` its inputs); a
    baseline checkout without `compile_batch` traces the whole of `loss_and_scores` with
    `compile_loss`. `compile_seconds` is how long that took, from
    the first `Value` of the trace to the callable code, on the wall clock, and
    `compile_cpu_seconds` in CPU time (this process's and the C compiler's).

    The model is the flat list of parameter numbers (for C, an `array.array` of doubles, which
    the library updates where they are). A step is `compiled.descend(model, X, lr=LR)`: the
    loss, the gradients and the engines' SGD update (p - lr * grad, the L2 term being in the
    loss), all in the compiled code, as PyTorch makes its update in its own kernels; then the
    accuracy of the scores it returns, which every step counts.
    """

    name = "compiled step, Python"
    key = "compiled-py"
    sizes = SIZES
    has_nodes = False
    backend = "python"

    package = "autograd"  # or a baseline's package (see `baseline_contenders`)

    def __init__(self):
        compiler = importlib.import_module(f"{self.package}.compile")
        self.compile_loss = compiler.compile_loss
        self.compile_batch = getattr(compiler, "compile_batch", None)
        self.compile_seconds = None
        self._compiled = {}  # the data, as tuples -> its compiled loss

    def _compile(self, X, y):
        sizes = self.sizes
        trace_weights = [
            p for layer in initial_weights(0, sizes) for neuron in layer for p in neuron
        ]
        points = [list(row) for row in X]
        if self.compile_batch is None:  # a baseline from before compile_batch

            def loss(params, inputs):
                return loss_and_scores(_Traced, (_layers(params, sizes), params), inputs, y)

            return self.compile_loss(
                loss, trace_weights, points, has_aux=True, **self.compile_options()
            )
        return self.compile_batch(
            lambda params, point: forward(_layers(params, sizes), point),
            lambda params, scores, _: loss_of_scores(scores, y, params),
            trace_weights,
            points,
            **self.compile_options(),
        )

    def compile_options(self):
        return {}

    def prepare(self, X, y):
        key = (self.sizes, tuple(tuple(row) for row in X), tuple(y))
        if key not in self._compiled:
            start, cpu = time.perf_counter(), cpu_seconds()
            compiled = self._compile(X, y)
            self.compile_seconds = time.perf_counter() - start
            self.compile_cpu_seconds = cpu_seconds() - cpu
            self._compiled[key] = compiled
        return self._compiled[key], [list(row) for row in X], list(y)

    def new_model(self, seed):
        return [
            p for layer in initial_weights(seed, self.sizes) for neuron in layer for p in neuron
        ]

    def step(self, model, data):
        compiled, X, y = data
        if not hasattr(compiled, "descend"):  # a baseline from before CompiledBatch.descend
            loss, grads, scores = compiled(model, X)
            model[:] = [p - LR * g for p, g in zip(model, grads)]
        else:
            loss, scores = compiled.descend(model, X, lr=LR)
        _accuracy = accuracy(y, scores)  # as the other steps do
        return loss

    def weights(self, model):
        return list(model)


class CompiledC(CompiledPython):
    """The same step compiled to C (`backend="c"`): the generated C is built
    into a shared library and called through ctypes. `opt_level` is the compiler's -O level.

    The library is built in a fresh temporary directory (`$AUTOGRAD_CACHE` pointed there
    while compiling), so `compile_seconds` is always a full build, never a hit in the cache
    of an earlier run. Unavailable where no C compiler is found or it cannot build the code
    (the compiler would fall back to Python, which the other compiled contender measures).
    """

    name = "compiled step, C"
    key = "compiled-c"
    backend = "c"

    def __init__(self, opt_level=None):
        super().__init__()
        compiler = importlib.import_module("autograd.compile")
        self.no_compiler = compiler.NoCompilerWarning
        if compiler.c_compiler() is None:
            raise Unavailable(
                "no C compiler found (cc, gcc or clang on PATH), so there is no C step to time"
            )
        default = self.default_opt_level()
        self.opt_level = default if opt_level is None else opt_level
        self.name = f"{type(self).name} -O{self.opt_level}"
        if self.opt_level != default:  # compile_loss's default is the one the targets name
            self.key = f"{type(self).key}-O{self.opt_level}"

    @staticmethod
    def default_opt_level():
        """The -O level `compile_loss` builds C with when it is not told one."""
        compile_loss = importlib.import_module("autograd.compile").compile_loss
        return inspect.signature(compile_loss).parameters["opt_level"].default

    def compile_options(self):
        return {"backend": "c", "opt_level": self.opt_level}

    def new_model(self, seed):
        return array.array("d", super().new_model(seed))

    def prepare(self, X, y):
        # the points' numbers in an array, once, as data lives in a framework (TorchBatched)
        compiled, points, labels = super().prepare(X, y)
        return compiled, array.array("d", [x for point in points for x in point]), labels

    def _compile(self, X, y):
        cache = tempfile.TemporaryDirectory(prefix="bench-compiled-c-")  # removed at exit
        self._caches = getattr(self, "_caches", []) + [cache]  # the library lives there
        before = os.environ.get("AUTOGRAD_CACHE")
        os.environ["AUTOGRAD_CACHE"] = cache.name
        try:
            with warnings.catch_warnings():
                # the warning that the compiler falls back on Python stops the compiling here
                warnings.simplefilter("error", self.no_compiler)
                compiled = super()._compile(X, y)
        except self.no_compiler as why:
            why = str(why).split("; running")[0].rstrip(": ")  # (compiled-py times Python)
            raise Unavailable(f"the compiler could not build C: {why}") from None
        finally:
            if before is None:
                del os.environ["AUTOGRAD_CACHE"]
            else:
                os.environ["AUTOGRAD_CACHE"] = before
        if compiled.backend != "c":
            raise Unavailable(f"the compiler ran {compiled.backend!r}, not C")
        return compiled


BASELINE = "autograd_baseline"  # the name another checkout's package is imported under


def load_baseline(directory):
    """Import the `autograd` package of another checkout (`directory` holds its `autograd/`)
    under the name `autograd_baseline`, beside this checkout's: one run can then time both."""
    import importlib.util
    import sys
    from pathlib import Path

    init = Path(directory).resolve() / "autograd" / "__init__.py"
    if not init.is_file():
        raise FileNotFoundError(f"no autograd package in {directory} (looked for {init})")
    spec = importlib.util.spec_from_file_location(
        BASELINE, init, submodule_search_locations=[str(init.parent)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[BASELINE] = module
    spec.loader.exec_module(module)
    return module


def baseline_contenders(directory):
    """The two engines and the compiled Python step of the checkout in `directory`, as
    contenders named "... (baseline)": a change is timed against what it changed, in one run."""
    load_baseline(directory)

    class BaselineReference(Reference):
        name = "engine (baseline)"
        key = "autograd-baseline"
        module = f"{BASELINE}.engine"
        baseline_of = "autograd"

    class BaselineFast(Fast):
        name = "fast (baseline)"
        key = "fast-baseline"
        module = f"{BASELINE}.fast"
        baseline_of = "fast"

    class BaselineCompiledPython(CompiledPython):
        name = "compiled-py (baseline)"
        key = "compiled-py-baseline"
        package = BASELINE
        baseline_of = "compiled-py"

    return {c.key: c for c in (BaselineReference, BaselineFast, BaselineCompiledPython)}


# In the order the table lists them: the baselines, then the course's engines, then the
# compiled steps and the floor.
CONTENDERS = {
    c.key: c
    for c in (
        Micrograd,
        TorchScalars,
        TorchBatched,
        Reference,
        Fast,
        TensorBatched,
        CompiledPython,
        CompiledC,
        Floor,
    )
}
