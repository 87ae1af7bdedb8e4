"""Chapter 7 · A tiny neural-network library — checkpoint and exercise checks.

What the chapter asks for, following `autograd.nn`: classes `Neuron(nin, ...)`,
`Layer(nin, nout, ...)` and `MLP(nin, nouts, ...)`, each with `parameters()` (a list of the
model's values, the same objects on every call) and `zero_grad()`; calling a neuron on a list
of `nin` numbers gives one value, a layer gives a list of `nout` values, an MLP gives one value
when its last layer has one neuron (else a list). MLP(2, [16, 16, 1]) has
(2·16 + 16) + (16·16 + 16) + (16·1 + 1) = 337 parameters.

The checkpoint takes anything that holds the three classes by name: a module, a namespace, or
a dict such as the notebook's `globals()`. It builds them with their defaults only (nothing
about seeds, non-linearities or attributes is assumed).
"""

from . import check, expect, fail, run_checks, show

__all__ = ["checkpoint", "check_layer_parameters", "check_zero_grad", "check_accuracy"]

# A tiny data set, four points in the plane with targets ±1.
X = [[2.0, 3.0], [-1.0, -2.0], [0.5, -1.0], [-1.5, 1.0]]
Y = [1.0, -1.0, -1.0, 1.0]
LEARNING_RATE = 0.005  # small, so that one step along −gradient must lower a smooth loss


def _classes(namespace):
    """(Neuron, Layer, MLP) from a module, a namespace or a dict."""
    found = []
    for name in ("Neuron", "Layer", "MLP"):
        if isinstance(namespace, dict):
            cls = namespace.get(name)
        else:
            cls = getattr(namespace, name, None)
        if cls is None:
            fail(f"found no `{name}`: pass the checkpoint something that holds `Neuron`, "
                 "`Layer` and `MLP`, such as `globals()` or a module")
        found.append(cls)
    return found


def _is_value(x):
    return hasattr(x, "data") and hasattr(x, "grad") and not isinstance(x, (list, tuple))


def _expect_parameters(model, expected, what, why):
    params = model.parameters()
    expect(isinstance(params, list),
           f"`{what}.parameters()` should return a list, but returned {type(params).__name__}")
    expect(len(params) == expected,
           f"`{what}.parameters()` should hold {expected} values ({why}), but held {len(params)}")
    for p in params:
        expect(_is_value(p), f"`{what}.parameters()` should hold values (with `data` and "
                             f"`grad`), but held {show(p)}")
    expect(len({id(p) for p in params}) == len(params),
           f"`{what}.parameters()` lists some value more than once")
    again = model.parameters()
    expect(len(again) == len(params) and all(p is q for p, q in zip(params, again)),
           f"`{what}.parameters()` should return the model's own values, the same objects on "
           "every call; it returned new ones the second time, so an update to them would never "
           "reach the model")


@check("parameter counts: Neuron(3) 4, Layer(3, 4) 16, MLP(2, [16, 16, 1]) 337")
def parameter_counts(namespace):
    Neuron, Layer, MLP = _classes(namespace)
    _expect_parameters(Neuron(3), 4, "Neuron(3)", "3 weights and a bias")
    _expect_parameters(Layer(3, 4), 16, "Layer(3, 4)", "4 neurons of 3 weights and a bias")
    _expect_parameters(MLP(2, [16, 16, 1]), 337, "MLP(2, [16, 16, 1])",
                       "(2·16 + 16) + (16·16 + 16) + (16·1 + 1)")


@check("forward shapes: one value from a neuron, a list from a layer, one value from an MLP "
       "with one output")
def forward_shapes(namespace):
    Neuron, Layer, MLP = _classes(namespace)
    out = Neuron(3)([1.0, -2.0, 0.5])
    expect(_is_value(out), f"a neuron should give one value, but `Neuron(3)(x)` gave {show(out)}")
    out = Layer(3, 4)([1.0, -2.0, 0.5])
    expect(isinstance(out, list) and len(out) == 4 and all(_is_value(v) for v in out),
           f"`Layer(3, 4)(x)` should give a list of 4 values, but gave {show(out)}")
    out = MLP(2, [16, 16, 1])([1.0, -2.0])
    expect(_is_value(out),
           f"an MLP whose last layer has one neuron should give one value (not a list of one), "
           f"but `MLP(2, [16, 16, 1])(x)` gave {show(out)}")
    out = MLP(2, [3, 2])([1.0, -2.0])
    expect(isinstance(out, list) and len(out) == 2 and all(_is_value(v) for v in out),
           f"`MLP(2, [3, 2])(x)` should give a list of 2 values, but gave {show(out)}")


def _expect_zero_grad(model, what):
    params = model.parameters()
    for p in params:
        p.grad = 1.0
    model.zero_grad()
    left = [p.grad for p in params if p.grad != 0.0]
    expect(not left, f"after `{what}.zero_grad()`, {len(left)} of {len(params)} parameters "
                     f"still had a gradient, such as {left[:1]}")


@check("zero_grad() sets every parameter's grad to 0.0")
def zero_grad_resets(namespace):
    _, Layer, MLP = _classes(namespace)
    _expect_zero_grad(Layer(3, 4), "Layer(3, 4)")
    _expect_zero_grad(MLP(2, [4, 1]), "MLP(2, [4, 1])")


def mean_squared_error(model):
    """(1/n) Σ (model(x) − y)² over the tiny data set, built only from the values' operators."""
    total = (model(X[0]) - Y[0]) ** 2
    for x, y in zip(X[1:], Y[1:]):
        total = total + (model(x) - y) ** 2
    return total * (1.0 / len(X))


@check("one gradient-descent step on a tiny data set lowers the loss")
def descent_step(namespace):
    _, _, MLP = _classes(namespace)
    model = MLP(2, [8, 1])
    loss = mean_squared_error(model)
    model.zero_grad()
    loss.backward()
    params = model.parameters()
    expect(any(p.grad != 0.0 for p in params),
           "after `loss.backward()` no parameter had a gradient: is the model's output built "
           "from its parameters, and does `parameters()` return them?")
    for p in params:
        p.data -= LEARNING_RATE * p.grad
    after = mean_squared_error(model).data
    expect(after < loss.data,
           f"after one step `p.data -= {LEARNING_RATE} * p.grad`, the mean squared error should "
           f"be lower than {loss.data!r}, but was {after!r}")


CHECKPOINT = [parameter_counts, forward_shapes, zero_grad_resets, descent_step]


def checkpoint(namespace):
    """Chapter 7's specification, run on the learner's `Neuron`, `Layer` and `MLP`
    (pass `globals()`, a module, or a dict holding them)."""
    return run_checks("Chapter 7 checkpoint: a tiny neural-network library", CHECKPOINT,
                      namespace)


# --------------------------------------------------------------------- exercises


@check("Layer.parameters(): every neuron's weights and bias, once, the same objects each call")
def layer_parameters(Layer):
    _expect_parameters(Layer(3, 4), 16, "Layer(3, 4)", "4 neurons of 3 weights and a bias")
    _expect_parameters(Layer(2, 1), 3, "Layer(2, 1)", "1 neuron of 2 weights and a bias")


def check_layer_parameters(Layer):
    """Exercise: `Layer.parameters()`."""
    return run_checks("Exercise: Layer.parameters", [layer_parameters], Layer)


@check("zero_grad() sets every parameter's grad to 0.0")
def model_zero_grad(model):
    _expect_zero_grad(model, "model")


def check_zero_grad(model):
    """Exercise: `zero_grad()`, on any model (a neuron, a layer, an MLP)."""
    return run_checks("Exercise: zero_grad", [model_zero_grad], model)


def check_accuracy(accuracy, at_least=0.9):
    """Exercise: training accuracy (a fraction between 0 and 1) of at least `at_least`."""
    question = f"training accuracy of at least {at_least:.0%}"

    @check(question)
    def high_enough():
        expect(0.0 <= accuracy <= 1.0,
               f"accuracy should be a fraction between 0 and 1, but was {accuracy!r}")
        expect(accuracy >= at_least,
               f"your accuracy was {accuracy:.1%}, below {at_least:.0%}: train longer, widen "
               "the hidden layers, or lower the learning rate as training goes on")

    return run_checks("Your model", [high_enough])
