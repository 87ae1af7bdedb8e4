"""Chapter 07's exercises: `Layer.parameters`, `zero_grad`, 90% on the circles."""

from . import Mistake

_LAYER = "ch07.check_layer_parameters"
_ZERO = "ch07.check_zero_grad"
_CIRCLES = "ch07.check_circles"


def _parameters(body):
    return f"@add_to_class(Layer)\ndef parameters(self):\n{body}"


def _zero_grad(body):
    return f"@add_to_class(Module)\ndef zero_grad(self):\n{body}"


def _circles(layers, steps):
    return f"""circle_model = MLP(2, {layers})
circle_steps = {steps}
circle_losses = train(circle_model, Xc, yc, circle_steps)
circle_accuracy = accuracy([circle_model(x) for x in Xc], yc)"""


MISTAKES = [
    # Layer.parameters: every neuron's parameters, in one flat list
    Mistake(
        _LAYER,
        "a list of lists",
        _parameters("    return [neuron.parameters() for neuron in self.neurons]"),
        ("a list of lists, one per neuron",),
    ),
    Mistake(
        _LAYER,
        "only the first neuron",
        _parameters("    return self.neurons[0].parameters()"),
        ("only the first neuron's parameters",),
    ),
    Mistake(
        _LAYER,
        "missing return",
        _parameters("    [p for neuron in self.neurons for p in neuron.parameters()]"),
        ("returned None", "no `return`"),
    ),
    Mistake(
        _LAYER,
        "returning the neurons",
        _parameters("    return self.neurons"),
        ("held Neuron objects, not values",),
    ),
    Mistake(
        _LAYER,
        "copies of the values",
        _parameters(
            "    return [Value(p.data) for neuron in self.neurons for p in neuron.parameters()]"
        ),
        ("new values, not the neurons' own",),
    ),
    Mistake(
        _LAYER,
        "the weights without the biases",
        _parameters("    return [w for neuron in self.neurons for w in neuron.w]"),
        ("every weight but no bias",),
    ),
    Mistake(
        _LAYER,
        "a generator, not a list",
        _parameters("    return (p for neuron in self.neurons for p in neuron.parameters())"),
        ("returned a generator",),
    ),
    # zero_grad: every parameter's grad to 0.0, on every module
    Mistake(
        _ZERO,
        "zeroing data instead of grad",
        _zero_grad("    for p in self.parameters():\n        p.data = 0.0"),
        ("it set `p.data`", "instead of `p.grad`"),
    ),
    Mistake(
        _ZERO,
        "only the first parameter",
        _zero_grad("    self.parameters()[0].grad = 0.0"),
        ("only the first parameter's grad",),
    ),
    Mistake(
        _ZERO,
        "return inside the loop",
        _zero_grad("    for p in self.parameters():\n        p.grad = 0.0\n        return"),
        ("only the first parameter's grad",),
    ),
    Mistake(
        _ZERO,
        "p.grad == 0 compares",
        _zero_grad("    for p in self.parameters():\n        p.grad == 0.0"),
        ("`p.grad == 0.0` *compares*",),
    ),
    Mistake(
        _ZERO,
        "forgetting to loop over layers (self.neurons)",
        _zero_grad(
            "    for neuron in self.neurons:\n        for p in neuron.parameters():\n"
            "            p.grad = 0.0"
        ),
        ("`self.neurons`, which only a Layer has",),
    ),
    Mistake(
        _ZERO,
        "looping over layers on every module",
        _zero_grad(
            "    for layer in self.layers:\n        for p in layer.parameters():\n"
            "            p.grad = 0.0"
        ),
        ("`self.layers`, which only an MLP has",),
    ),
    Mistake(
        _ZERO,
        "no loop at all",
        _zero_grad("    self.parameters().grad = 0.0"),
        ("a list has no `grad`",),
    ),
    # 90% on the circles
    Mistake(_CIRCLES, "a linear model", _circles("[1]", 60), ("a linear model", "straight line")),
    Mistake(_CIRCLES, "too few steps", _circles("[16, 1]", 3), ("take more steps",)),
    Mistake(_CIRCLES, "a hidden layer too narrow", _circles("[2, 1]", 40), ("at least three",)),
    Mistake(_CIRCLES, "never trained", _circles("[16, 1]", 0), ("never trained",)),
]
