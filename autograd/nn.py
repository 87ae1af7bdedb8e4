"""A tiny neural-network library on top of any `Value`-like class.

A `Neuron` computes act(w . x + b); a `Layer` is a list of neurons that read the same inputs;
an `MLP` is a chain of layers. Every parameter is a value of `value_class` (the package's
`Value` by default, but a learner's own class or the faster engine work too), so training is
just: zero the gradients, run the model, build a loss, call `backward()`, nudge each parameter
against its gradient.

Labels throughout are -1 and +1: a model's output is a score whose sign is the prediction.
"""

import random
from collections import namedtuple

from ._floats import is_int, is_real
from .engine import Value

__all__ = [
    "Module",
    "Neuron",
    "Layer",
    "MLP",
    "mse_loss",
    "hinge_loss",
    "l2_penalty",
    "bce_with_logits",
    "accuracy",
    "SGD",
    "StepResult",
    "check_labels",
    "train_step",
    "NONLINEARITIES",
    "LOSSES",
]

NONLINEARITIES = ("relu", "tanh", "sigmoid", "linear")


# --------------------------------------------------------------------- argument checks


def _check_count(n, what):
    if not is_int(n) or n < 1:
        raise ValueError(f"{what} must be a positive int, but was given {n!r}")
    return n


def _check_nonlin(nonlin):
    nonlin = "linear" if nonlin is None else nonlin
    if nonlin not in NONLINEARITIES:
        choices = ", ".join(repr(c) for c in NONLINEARITIES)
        raise ValueError(f"nonlin must be one of {choices} (or None), but was given {nonlin!r}")
    return nonlin


def _check_value_class(value_class, nonlin):
    if not isinstance(value_class, type):
        raise TypeError(f"value_class must be a class such as Value, but was given {value_class!r}")
    if nonlin != "linear" and not callable(getattr(value_class, nonlin, None)):
        raise TypeError(
            f"nonlin={nonlin!r} needs a {nonlin}() method, and {value_class.__name__} has none "
            f"(add one, or choose another nonlin)"
        )


def _rng(seed):
    """One random.Random for a whole model, so one seed fixes every initial weight."""
    if isinstance(seed, random.Random):
        return seed
    if seed is None or is_int(seed):
        return random.Random(seed)
    raise TypeError(f"seed must be an int, a random.Random or None, but was given {seed!r}")


def _parameter(value_class, data, label):
    p = value_class(data)
    try:  # a label makes drawings readable; a class without one still works
        p.label = label
    except AttributeError:
        pass
    return p


# --------------------------------------------------------------------- the modules


class Module:
    """Anything with parameters: they can be listed, and their gradients reset."""

    def parameters(self):
        return []

    def zero_grad(self):
        """Set every parameter's grad to 0: `backward()` adds to gradients, never replaces them."""
        for p in self.parameters():
            p.grad = 0.0


class Neuron(Module):
    """One neuron: act(w1*x1 + ... + wn*xn + b).

    Initialisation: weights uniform in (-1, 1), bias 0. The course's data sets have inputs
    of size about 1, so weights of size 1 give first-layer neurons that vary across the data
    and scores of the size of the hinge loss's margin (1), which a learning rate near 1
    moves quickly. (The scaled variant, uniform(-1, 1) / sqrt(nin), starts with scores so
    small that MLP(2, [16, 16, 1]) on moons needs clearly more steps at the same learning
    rate.) The bias starts at 0 because the random weights already make the neurons differ.
    """

    def __init__(self, nin, nonlin="relu", *, seed=None, value_class=Value):
        self.nin = _check_count(nin, "nin (the number of inputs)")
        self.nonlin = _check_nonlin(nonlin)
        _check_value_class(value_class, self.nonlin)
        self.value_class = value_class
        rng = _rng(seed)
        self.w = [
            _parameter(value_class, rng.uniform(-1.0, 1.0), f"w{i}") for i in range(1, nin + 1)
        ]
        self.b = _parameter(value_class, 0.0, "b")

    def __call__(self, x):
        try:
            n = len(x)
        except TypeError:
            raise TypeError(
                f"a neuron takes a sequence of {self.nin} inputs, but was given {x!r}"
            ) from None
        if n != self.nin:
            raise ValueError(f"this neuron takes {self.nin} inputs, but was given {n}")
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi  # wi on the left, so a plain-number xi is wrapped by wi's class
        if self.nonlin == "linear":
            return act
        return getattr(act, self.nonlin)()

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"Neuron({self.nin} inputs, {self.nonlin})"


class Layer(Module):
    """`nout` neurons that all read the same `nin` inputs; calling it returns a list of `nout` values."""

    def __init__(self, nin, nout, nonlin="relu", *, seed=None, value_class=Value):
        _check_count(nout, "nout (the number of neurons)")
        rng = _rng(seed)
        self.neurons = [Neuron(nin, nonlin, seed=rng, value_class=value_class) for _ in range(nout)]
        self.nin, self.nout, self.nonlin = nin, nout, self.neurons[0].nonlin

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]

    def __repr__(self):
        return f"Layer({self.nin} -> {self.nout} {self.nonlin})"


class MLP(Module):
    """A multi-layer perceptron: layers of sizes `nouts`, hidden ones `nonlin`, the last linear.

    The last layer is linear so that the output is an unbounded score (or logit); calling the
    model returns one value when the last layer has one neuron, otherwise a list.
    """

    def __init__(self, nin, nouts, nonlin="relu", *, seed=None, value_class=Value):
        _check_count(nin, "nin (the number of inputs)")
        try:
            nouts = list(nouts)
        except TypeError:
            raise TypeError(
                f"nouts must be a list of layer sizes, but was given {nouts!r}"
            ) from None
        if not nouts:
            raise ValueError("nouts must name at least one layer size, but was given []")
        for size in nouts:
            _check_count(size, "each layer size in nouts")
        nonlin = _check_nonlin(nonlin)
        rng = _rng(seed)
        sizes = [nin] + nouts
        last = len(nouts) - 1
        self.layers = [
            Layer(
                sizes[i],
                sizes[i + 1],
                "linear" if i == last else nonlin,
                seed=rng,
                value_class=value_class,
            )
            for i in range(len(nouts))
        ]
        self.nin, self.nouts, self.nonlin = nin, nouts, nonlin

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        shape = " -> ".join([str(self.nin)] + [f"{l.nout} {l.nonlin}" for l in self.layers])
        return f"MLP({shape}, {len(self.parameters())} parameters)"


# --------------------------------------------------------------------- losses and metrics


def _check_pairs(a, b, a_name, b_name):
    a, b = list(a), list(b)
    if not a:
        raise ValueError(f"{a_name} is empty: a loss needs at least one example")
    if len(a) != len(b):
        raise ValueError(f"{a_name} has {len(a)} items but {b_name} has {len(b)}; they must match")
    return a, b


def check_labels(labels):
    """A ValueError unless every label is -1 or +1 (a number, or a leaf `Value` holding one)."""
    for i, y in enumerate(labels):
        if isinstance(y, Value) and not y._prev:  # a label an input of a compiled step
            y = y.data
        if not is_real(y) or y not in (-1, 1):
            raise ValueError(f"labels must be -1 or +1, but label {i} is {y!r}")


def _check_values(values, name):
    for i, v in enumerate(values):
        if not hasattr(v, "data"):
            raise TypeError(
                f"{name} must be values (with .data and .grad), but item {i} is {v!r} "
                f"of type {type(v).__name__}"
            )


def _total(values):
    """Sum values without the constant 0 that `sum()` would start from (one node fewer)."""
    it = iter(values)
    total = next(it)
    for v in it:
        total = total + v
    return total


def mse_loss(preds, targets):
    """Mean squared error: (1/n) sum (pred_i - target_i)^2; d/dpred_i = 2 (pred_i - target_i) / n.

    Targets are numbers (or values), not only labels: any real target works.
    """
    preds, targets = _check_pairs(preds, targets, "preds", "targets")
    _check_values(preds, "preds")
    return _total((p - t) ** 2 for p, t in zip(preds, targets)) * (1.0 / len(preds))


def hinge_loss(scores, labels):
    """Mean max-margin loss: (1/n) sum relu(1 - y_i s_i).

    A point scored on the right side with margin at least 1 costs nothing and passes no
    gradient; otherwise d/ds_i = -y_i / n pushes its score towards its label.
    """
    scores, labels = _check_pairs(scores, labels, "scores", "labels")
    check_labels(labels)
    _check_values(scores, "scores")
    return _total((1 - y * s).relu() for s, y in zip(scores, labels)) * (1.0 / len(scores))


def l2_penalty(params, alpha):
    """L2 regularisation: alpha * sum p^2, so d/dp = 2 alpha p pulls every weight towards 0."""
    params = list(params)
    if not params:
        raise ValueError("l2_penalty needs at least one parameter, but params is empty")
    if not is_real(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a number >= 0, but was given {alpha!r}")
    return _total(p * p for p in params) * alpha


def _logistic_loss(z, y):
    """log(1 + exp(-m)) with margin m = y z, from Value ops, never exp of a large positive number.

    For m >= 0, exp(-m) <= 1 is safe. For m < 0 the same quantity is rewritten as
    -m + log(1 + exp(m)), where exp(m) <= 1 again. The sign of m is the sign of the logit's
    data, flipped for label -1.
    """
    m = y * z
    if m.data >= 0:
        return (1 + (-m).exp()).log()
    return -m + (1 + m.exp()).log()


def bce_with_logits(logits, labels):
    """Binary cross-entropy on logits, labels -1/+1: (1/n) sum log(1 + exp(-y_i z_i)).

    It equals -[t log sigmoid(z) + (1 - t) log(1 - sigmoid(z))] with target t = (y + 1) / 2,
    and d/dz_i = (sigmoid(z_i) - t_i) / n. Stays finite for logits of any size.
    """
    logits, labels = _check_pairs(logits, labels, "logits", "labels")
    check_labels(labels)
    _check_values(logits, "logits")
    return _total(_logistic_loss(z, y) for z, y in zip(logits, labels)) * (1.0 / len(logits))


def accuracy(scores, labels):
    """The fraction of points whose score has the label's sign (a score of exactly 0 is wrong)."""
    scores, labels = _check_pairs(scores, labels, "scores", "labels")
    check_labels(labels)
    correct = 0
    for s, y in zip(scores, labels):
        s = s.data if hasattr(s, "data") else s
        correct += (s > 0 and y > 0) or (s < 0 and y < 0)
    return correct / len(scores)


# --------------------------------------------------------------------- optimisation


class SGD:
    """Plain stochastic gradient descent: p.data -= lr * p.grad for every parameter.

    `lr` is a number or a function of the step count (0, 1, 2, ...), for a schedule such as
    `SGD(params, lambda k: 1.0 - 0.9 * k / 100)`.
    """

    def __init__(self, params, lr):
        self.params = list(params)
        if not self.params:
            raise ValueError("SGD needs at least one parameter, but params is empty")
        if not (callable(lr) or is_real(lr)):
            raise TypeError(f"lr must be a number or a function of the step count, not {lr!r}")
        self.lr = lr
        self.steps = 0

    def current_lr(self):
        """The learning rate the next `step()` will use."""
        lr = self.lr(self.steps) if callable(self.lr) else self.lr
        if not is_real(lr):
            raise TypeError(f"the lr schedule returned {lr!r} at step {self.steps}, not a number")
        return lr

    def step(self):
        lr = self.current_lr()
        for p in self.params:
            p.data -= lr * p.grad
        self.steps += 1

    def zero_grad(self):
        for p in self.params:
            p.grad = 0.0

    def __repr__(self):
        return f"SGD({len(self.params)} parameters, lr={self.lr!r}, steps={self.steps})"


LOSSES = {"hinge": hinge_loss, "bce": bce_with_logits, "mse": mse_loss}

StepResult = namedtuple("StepResult", ["loss", "accuracy"])


def train_step(model, X, y, *, lr=None, loss="hinge", alpha=1e-4, optimizer=None):
    """One full-batch training step; returns `StepResult(loss, accuracy)` as plain floats.

    Zero the gradients, score every point, take the mean `loss` ("hinge", "bce" or "mse")
    plus `alpha` times the L2 penalty (alpha=0 turns it off), backpropagate, then update
    with `optimizer` if given or else with a plain SGD step of size `lr`. The accuracy is
    that of the scores computed before the update.
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))}, not {loss!r}")
    if (lr is None) == (optimizer is None):
        raise TypeError("train_step needs exactly one of lr= (a number) or optimizer=")
    if lr is not None and not is_real(lr):
        raise TypeError(f"lr must be a number, but was given {lr!r}")
    params = model.parameters()

    model.zero_grad()
    scores = [model(x) for x in X]
    if scores and isinstance(scores[0], list):
        raise ValueError(f"train_step needs a model with one output, but {model!r} has several")
    total = LOSSES[loss](scores, y)
    if alpha:
        total = total + l2_penalty(params, alpha)
    total.backward()

    if optimizer is not None:
        optimizer.step()
    else:
        for p in params:
            p.data -= lr * p.grad
    return StepResult(total.data, accuracy(scores, y))
