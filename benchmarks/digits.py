"""One epoch on the handwritten digits: the course's tensor engine against PyTorch.

The data: `autograd.data.load_digits()`, 1,797 8x8 images in 10 classes, each pixel divided
by 16 so that it lies in [0, 1]. The model: an MLP 64-32-10 (a ReLU hidden layer, linear
class scores), its weights uniform(-1/sqrt(n_in), 1/sqrt(n_in)) from a seed, zero biases. An
epoch: the images in their order, in minibatches of 32 (the last one smaller), and for each
the mean cross-entropy, the backward pass and an SGD update (learning rate 0.1).

Both contenders have the same face: `prepare(images, labels)` (the minibatches, as arrays or
tensors, made once), `new_model(seed)`, `epoch(model, data)` (one epoch; returns the mean of
its minibatch losses) and `weights(model)` (every parameter as a float, layer by layer:
the weight matrix row by row, then the biases).
"""

import importlib
import math
import random

from contenders import TensorParameters, TorchParameters

SIZES = (64, 32, 10)
BATCH = 32
LR = 0.1


def initial_weights(seed, sizes=SIZES):
    """[(W, b), ...] as lists: W has a row of n_in weights per unit, b a zero per unit."""
    rng = random.Random(seed)
    layers = []
    for nin, nout in zip(sizes, sizes[1:]):
        bound = 1 / math.sqrt(nin)
        layers.append(
            ([[rng.uniform(-bound, bound) for _ in range(nin)] for _ in range(nout)], [0.0] * nout)
        )
    return layers


def batches(images, labels, size=BATCH):
    """[(pixels in [0, 1], labels), ...]: the data in order, `size` images at a time."""
    pixels = [[v / 16 for v in image] for image in images]
    return [(pixels[i : i + size], labels[i : i + size]) for i in range(0, len(pixels), size)]


class TensorDigits(TensorParameters):
    """The epoch on `autograd.tensor`: `Tensor` parameters, NumPy arrays for the data."""

    name = "autograd.tensor (NumPy)"
    key = "tensor"

    def __init__(self):
        self.np = importlib.import_module("numpy")
        tensor = importlib.import_module("autograd.tensor")
        self.Tensor, self.cross_entropy = tensor.Tensor, tensor.cross_entropy

    def prepare(self, images, labels):
        np = self.np
        return [
            (np.array(x, dtype=float), np.array(t, dtype=np.int64))
            for x, t in batches(images, labels)
        ]

    def new_model(self, seed):
        return [(self.Tensor(w), self.Tensor(b)) for w, b in initial_weights(seed)]

    def epoch(self, model, data):
        losses = [
            self.descend(self.cross_entropy(self.forward(model, x), labels), model, LR)
            for x, labels in data
        ]
        return sum(losses) / len(losses)

    def weights(self, model):
        return [v for w, b in model for v in w.data.ravel().tolist() + b.data.tolist()]


class TorchDigits(TorchParameters):
    """The same epoch on PyTorch, float64, one thread."""

    name = "PyTorch (1 thread)"
    key = "torch"

    def __init__(self):
        self.torch = importlib.import_module("torch")
        self.torch.set_num_threads(1)  # as in the benchmark's other PyTorch steps

    def prepare(self, images, labels):
        t = self.torch
        return [
            (t.tensor(x, dtype=t.float64), t.tensor(y, dtype=t.int64))
            for x, y in batches(images, labels)
        ]

    def new_model(self, seed):
        t = self.torch
        return [
            (
                t.tensor(w, dtype=t.float64, requires_grad=True),
                t.tensor(b, dtype=t.float64, requires_grad=True),
            )
            for w, b in initial_weights(seed)
        ]

    def epoch(self, model, data):
        cross_entropy = self.torch.nn.functional.cross_entropy
        losses = [
            self.descend(cross_entropy(self.forward(model, x), labels), model, LR)
            for x, labels in data
        ]
        return sum(losses) / len(losses)

    def weights(self, model):
        return [v for w, b in model for v in w.detach().flatten().tolist() + b.tolist()]


CONTENDERS = {c.key: c for c in (TensorDigits, TorchDigits)}
