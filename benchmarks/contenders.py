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
between them are the engines. PyTorch on whole matrices and the hand-written floor do the
same arithmetic in their own way: they have no per-scalar nodes.
"""

import importlib
import random

from floor import floor_step

from autograd.graph import count

SIZES = (2, 16, 16, 1)
ALPHA = 1e-4
LR = 0.05


def initial_weights(seed):
    """Layers of neurons, each neuron [w_1, ..., w_n, bias]: uniform(-1, 1) weights, zero bias."""
    rng = random.Random(seed)
    return [
        [[rng.uniform(-1, 1) for _ in range(nin)] + [0.0] for _ in range(nout)]
        for nin, nout in zip(SIZES, SIZES[1:])
    ]


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


def build_loss(engine, model, X, y):
    """(loss, accuracy) of `model` on the points, as a graph of `engine`'s scalars."""
    layers, params = model
    inputs = [[engine.inp(a) for a in row] for row in X]
    scores = [forward(layers, row) for row in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in params)
    accuracy = sum((yi > 0) == (engine.data(si) > 0) for yi, si in zip(y, scores)) / len(y)
    return data_loss + reg_loss, accuracy


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
            for layer in initial_weights(seed)
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


class TorchBatched:
    """The same MLP as matrices: one forward pass over all the points at once, float64.

    The points are turned into tensors once, in `prepare`: that is how data lives in a
    framework, and it leaves only the step itself to time.
    """

    name = "PyTorch, batched"
    key = "torch-batched"
    has_nodes = False

    def __init__(self):
        self.torch = importlib.import_module("torch")
        self.torch.set_num_threads(1)

    def prepare(self, X, y):
        t = self.torch
        return t.tensor(X, dtype=t.float64), t.tensor(y, dtype=t.float64)

    def new_model(self, seed):
        t = self.torch
        model = []
        for layer in initial_weights(seed):
            w = t.tensor([neuron[:-1] for neuron in layer], dtype=t.float64, requires_grad=True)
            b = t.tensor([neuron[-1] for neuron in layer], dtype=t.float64, requires_grad=True)
            model.append((w, b))
        return model

    def step(self, model, data):
        t = self.torch
        X, y = data
        h = X
        for i, (w, b) in enumerate(model):
            h = h @ w.T + b
            if i < len(model) - 1:
                h = t.relu(h)
        scores = h[:, 0]
        data_loss = t.relu(1 + -y * scores).sum() * (1.0 / len(y))
        reg_loss = ALPHA * sum((p * p).sum() for layer in model for p in layer)
        loss = data_loss + reg_loss
        _accuracy = ((y > 0) == (scores > 0)).double().mean().item()  # as the other steps do
        for layer in model:
            for p in layer:
                p.grad = None
        loss.backward()
        with t.no_grad():
            for layer in model:
                for p in layer:
                    p -= LR * p.grad
        return loss.item()

    def weights(self, model):
        out = []
        for w, b in model:
            for row, bias in zip(w.tolist(), b.tolist()):
                out += row + [bias]
        return out


class Floor:
    """The hand-written floor (see floor.py): plain floats in lists, no graph at all."""

    name = "hand-written floor"
    key = "floor"
    has_nodes = False

    def prepare(self, X, y):
        return X, y

    def new_model(self, seed):
        return initial_weights(seed)

    def step(self, model, data):
        return floor_step(model, *data, LR, ALPHA)[0]

    def weights(self, model):
        return [p for layer in model for neuron in layer for p in neuron]


# In the order the table lists them: the baselines, then the course's engines, then the floor.
CONTENDERS = {c.key: c for c in (Micrograd, TorchScalars, TorchBatched, Reference, Fast, Floor)}
