"""Chapter 07's checks (`autograd.checks.ch07`): the exercises on the tiny neural-network library
judge an attempt correctly and explain it in words; the checkpoint passes the package's nn on
every later stage and fails honestly."""

import functools
import importlib
import importlib.util

import pytest

from autograd import Value
from autograd.checks import ch07, checkpoint
from autograd.stages import stage

from checks_support import LAST_CHAPTER, failure_message, result


def nn_module():
    return importlib.import_module("autograd.nn")


def test_checkpoint_seven_passes_the_packages_nn():
    report = checkpoint(7, nn_module())
    assert report.passed, str(report)


@pytest.mark.parametrize("stage_chapter", range(7, LAST_CHAPTER + 1))
def test_checkpoint_seven_passes_the_packages_nn_on_each_later_stage(stage_chapter):
    nn = nn_module()
    V = stage(stage_chapter)
    namespace = {
        name: functools.partial(getattr(nn, name), value_class=V)
        for name in ("Neuron", "Layer", "MLP")
    }
    report = checkpoint(7, namespace)
    assert report.passed, str(report)


# ---------------------------------------------------------------- chapter 7 fails honestly


def nn_namespace(**overrides):
    nn = nn_module()
    namespace = {"Neuron": nn.Neuron, "Layer": nn.Layer, "MLP": nn.MLP}
    namespace.update(overrides)
    return namespace


def test_checkpoint_seven_catches_a_neuron_without_its_bias():
    nn = nn_module()

    class NoBias(nn.Neuron):
        def parameters(self):
            return list(self.w)

    message = failure_message(checkpoint(7, nn_namespace(Neuron=NoBias)), "parameter counts")
    assert message == (
        "`Neuron(3).parameters()` should hold 4 values (3 weights and a bias), but held 3"
    )


def test_checkpoint_seven_catches_parameters_that_are_copies():
    nn = nn_module()

    class Copying(nn.MLP):
        def parameters(self):
            return [type(p)(p.data) for p in super().parameters()]

    report = checkpoint(7, nn_namespace(MLP=Copying))
    message = failure_message(report, "parameter counts")
    assert "held new values, not the layers' own" in message
    assert "would never reach the model" in message
    assert not result(report, "one gradient-descent step").passed


def test_checkpoint_seven_catches_zero_grad_that_does_nothing():
    nn = nn_module()

    class Lazy(nn.Layer):
        def zero_grad(self):
            pass

    message = failure_message(checkpoint(7, nn_namespace(Layer=Lazy)), "zero_grad")
    assert message.startswith("`Layer(3, 4).zero_grad()` left every gradient as it was (16 of 16")


def test_checkpoint_seven_catches_gradients_with_the_wrong_sign():
    def pow_uphill(self, n):
        out = Value(self.data**n, (self,), f"**{n}")

        def _backward():
            a = out._prev[0]
            a.grad -= n * a.data ** (n - 1) * out.grad

        out._backward = _backward
        return out

    nn = nn_module()
    V = stage(7, __pow__=pow_uphill)
    namespace = {
        name: functools.partial(getattr(nn, name), value_class=V)
        for name in ("Neuron", "Layer", "MLP")
    }
    message = failure_message(checkpoint(7, namespace), "one gradient-descent step")
    assert "the mean squared error should be lower than" in message


def test_checkpoint_seven_says_what_is_missing():
    message = failure_message(checkpoint(7, {"Neuron": None}), "parameter counts")
    assert "found no `Neuron`" in message


def test_chapter_seven_exercise_checks():
    nn = nn_module()
    assert ch07.check_layer_parameters(nn.Layer).passed
    assert ch07.check_zero_grad(nn).passed
    assert ch07.check_circles(nn.MLP(2, [16, 1]), 60, 0.93).passed
    assert "below 90%" in str(ch07.check_circles(nn.MLP(2, [16, 1]), 60, 0.85))


# ---------------------------------------------------------------- chapter 7


def chapter_seven(parameters=None, zero_grad=None):
    """The chapter's four classes as the notebook builds them, with the learner's
    `Layer.parameters` and `Module.zero_grad` (the correct ones unless given)."""
    import random

    Value = stage(5)
    rng = random.Random(0)

    class Module:
        def parameters(self):
            return []

        def zero_grad(self):
            for p in self.parameters():
                p.grad = 0.0

    class Neuron(Module):
        def __init__(self, nin, relu=True):
            self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
            self.b = Value(0.0)
            self.relu = relu

        def __call__(self, x):
            act = self.b
            for wi, xi in zip(self.w, x):
                act = act + wi * xi
            return act.relu() if self.relu else act

        def parameters(self):
            return self.w + [self.b]

    class Layer(Module):
        def __init__(self, nin, nout, relu=True):
            self.neurons = [Neuron(nin, relu) for _ in range(nout)]

        def __call__(self, x):
            return [n(x) for n in self.neurons]

        def parameters(self):
            return [p for n in self.neurons for p in n.parameters()]

    class MLP(Module):
        def __init__(self, nin, nouts):
            sizes = [nin] + list(nouts)
            self.layers = [
                Layer(sizes[i], sizes[i + 1], relu=i < len(nouts) - 1) for i in range(len(nouts))
            ]

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x[0] if len(x) == 1 else x

        def parameters(self):
            return [p for layer in self.layers for p in layer.parameters()]

    if parameters is not None:
        Layer.parameters = parameters
    if zero_grad is not None:
        Module.zero_grad = zero_grad
    return {"Value": Value, "Module": Module, "Neuron": Neuron, "Layer": Layer, "MLP": MLP}


def layer_message(parameters):
    ns = chapter_seven(parameters=parameters)
    report = ch07.check_layer_parameters(ns["Layer"])
    assert not report.passed
    checkpoint = ch07.checkpoint(ns)  # the checkpoint, on the learner's class, says it too
    assert not checkpoint.passed
    message = report.results[0].message
    assert message in str(checkpoint)
    return message


def test_layer_parameters_passes_the_notebooks_classes():
    ns = chapter_seven()
    assert ch07.check_layer_parameters(ns["Layer"]).passed
    assert ch07.check_zero_grad(ns).passed
    assert ch07.checkpoint(ns).passed


def test_layer_parameters_names_each_classic_mistake():
    assert "a list of lists, one per neuron" in layer_message(
        lambda self: [n.parameters() for n in self.neurons]
    )
    assert "only the first neuron's parameters" in layer_message(
        lambda self: self.neurons[0].parameters()
    )
    assert "no `return`" in layer_message(lambda self: None)
    assert "held Neuron objects, not values" in layer_message(lambda self: self.neurons)
    assert "every weight but no bias" in layer_message(
        lambda self: [w for n in self.neurons for w in n.w]
    )
    assert "returned a generator" in layer_message(
        lambda self: (p for n in self.neurons for p in n.parameters())
    )
    message = layer_message(
        lambda self: [type(p)(p.data) for n in self.neurons for p in n.parameters()]
    )
    assert "new values, not the neurons' own" in message


def test_layer_parameters_stub_is_not_answered_yet():
    ns = chapter_seven()
    del ns["Layer"].parameters

    def parameters(self):  # a stub, as a notebook gives it
        ...  # return one flat list of every neuron's parameters

    ns["Layer"].parameters = parameters
    report = ch07.check_layer_parameters(ns["Layer"])
    assert "not answered yet" in str(report) and "list of lists" not in str(report)


def zero_grad_message(zero_grad):
    ns = chapter_seven(zero_grad=zero_grad)
    report = ch07.check_zero_grad(ns)
    assert not report.passed
    return report.results[0].message


def test_zero_grad_names_each_classic_mistake():
    def zero_data(self):
        for p in self.parameters():
            p.data = 0.0

    def first_only(self):
        self.parameters()[0].grad = 0.0

    def compares(self):
        for p in self.parameters():
            p.grad == 0.0  # the mistake

    def neurons_only(self):
        for neuron in self.neurons:
            for p in neuron.parameters():
                p.grad = 0.0

    def no_loop(self):
        self.parameters().grad = 0.0

    message = zero_grad_message(zero_data)
    assert "it set `p.data`" in message and "instead of `p.grad`" in message
    assert "only the first parameter's grad" in zero_grad_message(first_only)
    assert "`p.grad == 0.0` *compares*" in zero_grad_message(compares)
    assert "`self.neurons`, which only a Layer has" in zero_grad_message(neurons_only)
    assert "a list has no `grad`" in zero_grad_message(no_loop)


def circles_message(sizes, steps, accuracy):
    from autograd import nn

    report = ch07.check_circles(nn.MLP(2, sizes), steps, accuracy)
    assert not report.passed
    return report.results[0].message


def test_circles_says_why_a_model_falls_short():
    from autograd import nn

    assert ch07.check_circles(nn.MLP(2, [16, 1]), 60, 0.95).passed
    message = circles_message([1], 60, 0.55)
    assert "a linear model" in message and "straight line" in message
    assert "at least three" in circles_message([2, 1], 60, 0.6)
    assert "take more steps" in circles_message([16, 1], 3, 0.55)
    assert "never trained" in circles_message([16, 1], 0, 0.5)
    assert "between 0 and 1 (0.9 is 90%)" in circles_message([16, 1], 60, 95)
    assert "not answered yet" in str(ch07.check_circles(nn.MLP(2, [1]), 0, 0.5))


def test_the_solution_of_the_circles_reaches_90_percent_whatever_the_random_state():
    # the solution cell runs after whatever the learner's cell did to the random state: it
    # must pass its own check from any state (MLP(2, [16, 1]), 60 steps; see the notebook)
    import random

    from autograd.data import make_circles

    ns = chapter_seven()
    MLP = ns["MLP"]
    X, y = make_circles(100, noise=0.1, seed=0)
    for seed in range(3):
        random.seed(seed)
        model = MLP(2, [16, 1])
        for k in range(60):
            batch = random.sample(range(len(X)), 20)
            scores = [model(X[i]) for i in batch]
            loss = sum((1 - y[i] * s).relu() for i, s in zip(batch, scores)) * (1 / 20)
            loss = loss + 1e-4 * sum(p * p for p in model.parameters())
            model.zero_grad()
            loss.backward()
            for p in model.parameters():
                p.data -= (1.0 - 0.9 * k / 60) * p.grad
        right = sum((model(x).data > 0) == (t > 0) for x, t in zip(X, y)) / len(y)
        assert right >= 0.9, (seed, right)
