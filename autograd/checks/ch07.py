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

import inspect
import re

from .toolbox import (
    Exercise,
    SameArguments,
    check,
    declare_checkpoint,
    expect,
    fail,
    is_int,
    is_number,
    is_unwritten,
    returned,
    show,
    _text,
)

__all__ = ["checkpoint", "check_layer_parameters", "check_zero_grad", "check_circles"]

# A tiny data set, four points in the plane with targets ±1.
X = [[2.0, 3.0], [-1.0, -2.0], [0.5, -1.0], [-1.5, 1.0]]
Y = [1.0, -1.0, -1.0, 1.0]
LEARNING_RATE = 0.005  # small, so that one step along −gradient must lower a smooth loss


def _lookup(namespace, name):
    if isinstance(namespace, dict):
        return namespace.get(name)
    return getattr(namespace, name, None)


def _classes(namespace):
    """(Neuron, Layer, MLP) from a module, a namespace or a dict."""
    found = []
    for name in ("Neuron", "Layer", "MLP"):
        cls = _lookup(namespace, name)
        if cls is None:
            fail(
                f"found no `{name}`: pass the checkpoint something that holds `Neuron`, "
                "`Layer` and `MLP`, such as `globals()` or a module"
            )
        found.append(cls)
    return found


def _is_value(x):
    return hasattr(x, "data") and hasattr(x, "grad") and not isinstance(x, (list, tuple))


def _is_module(x):
    return callable(getattr(x, "parameters", None)) and not _is_value(x)


def _own_parameters(part):
    """`part.parameters()`, or None if that fails (the diagnosis must not crash)."""
    try:
        found = part.parameters()
        return list(found) if isinstance(found, (list, tuple)) else None
    except Exception:
        return None


def _expect_parameters(model, expected, what, why, parts=None, part_name=None):
    """`model.parameters()` is a list of `expected` distinct values, the model's own, the same
    objects on every call. `parts` (a layer's neurons, an MLP's layers) let a failure say what
    the list holds instead: lists, modules, only the first part's values, copies."""
    params = returned(
        model.parameters(),
        none=f"`{what}.parameters()` returned None: the method has no `return` "
        "(a list built on the last line and never returned is thrown "
        "away); it must end with `return [...]`",
    )
    if not isinstance(params, list):
        fail(
            f"`{what}.parameters()` should return a list, but returned a "
            f"{type(params).__name__}"
            + (": wrap a comprehension in [ ], not ( )" if inspect.isgenerator(params) else "")
        )
    part = part_name or "part"
    if any(isinstance(p, (list, tuple)) for p in params):
        fail(
            f"`{what}.parameters()` returned a list of lists, one per {part}: flatten it "
            f"into one list of values, every {part}'s parameters one after another (a list "
            "comprehension with two `for`s does it, or `+=` in a loop)"
        )
    if any(_is_module(p) for p in params):
        kind = type(next(p for p in params if _is_module(p))).__name__
        fail(
            f"`{what}.parameters()` held {kind} objects, not values: a {kind.lower()} is not "
            f"a parameter, it *has* parameters; list each {part}'s `parameters()` instead"
        )
    for p in params:
        expect(
            _is_value(p),
            f"`{what}.parameters()` should hold values (with `data` and "
            f"`grad`), but held {show(p)}",
        )
    if parts:
        own = [_own_parameters(x) for x in parts]
        ids = [id(p) for p in params]
        if own[0] is not None and len(parts) > 1 and ids == [id(p) for p in own[0]]:
            fail(
                f"`{what}.parameters()` held only the first {part}'s parameters ({len(params)} "
                f"values, not {expected}): go through every {part} of the {what.split('(')[0]}, "
                f"`self.{'neurons' if part == 'neuron' else 'layers'}`, not just the first"
            )
        everything = {id(p) for ps in own if ps for p in ps}
        if everything and not set(ids) & everything:
            fail(
                f"`{what}.parameters()` held new values, not the {part}s' own: an update "
                "`p.data -= ...` to them would never reach the model. Return the very "
                f"objects each {part}'s `parameters()` gives"
            )
        weights = [w for x in parts for w in getattr(x, "w", [])]
        if weights and ids == [id(w) for w in weights]:
            fail(
                f"`{what}.parameters()` held every weight but no bias ({len(params)} values, "
                f"not {expected}): each neuron's bias is a parameter too; use the neurons' "
                "own `parameters()`"
            )
    expect(
        len(params) == expected,
        f"`{what}.parameters()` should hold {expected} values ({why}), but held {len(params)}",
    )
    expect(
        len({id(p) for p in params}) == len(params),
        f"`{what}.parameters()` lists some value more than once",
    )
    again = model.parameters()
    expect(
        isinstance(again, list)
        and len(again) == len(params)
        and all(p is q for p, q in zip(params, again)),
        f"`{what}.parameters()` should return the model's own values, the same objects on "
        "every call; it returned new ones the second time, so an update to them would never "
        "reach the model",
    )


def _parts(model, name):
    found = getattr(model, name, None)
    return list(found) if isinstance(found, (list, tuple)) else None


def _expect_neurons_given_right(layer, nin):
    """Fail, naming the given class, when the layer's neurons' own `parameters()` (the
    chapter's `Neuron`, a given cell above the exercise) is not nin weights and a bias, each
    once: a `Layer.parameters` that gathers them can then be no better."""
    neurons = _parts(layer, "neurons")
    if not neurons:
        return
    own = _own_parameters(neurons[0])
    if own is None:
        return
    repeated = len({id(p) for p in own}) != len(own)
    if len(own) == nin + 1 and not repeated:
        return
    kind = type(neurons[0]).__name__
    said = f"{len(own)} values" + (", the same value more than once" if repeated else "")
    fail(
        f"each neuron's own `{kind}.parameters()` should give its {nin} weights and its bias, "
        f"{nin + 1} values once each, but gives {said}: `{kind}` is a given cell above, so was "
        f"it edited? A layer's `parameters()` gathers its neurons' lists, and is only as "
        f"right as they are"
    )


def _expect_layer_parameters(Layer, nin, nout):
    layer = Layer(nin, nout)
    _expect_neurons_given_right(layer, nin)
    _expect_parameters(
        layer,
        nout * (nin + 1),
        f"Layer({nin}, {nout})",
        f"{nout} neuron{'s' * (nout != 1)} of {nin} weights and a bias",
        parts=_parts(layer, "neurons"),
        part_name="neuron",
    )


@check("parameter counts: Neuron(3) 4, Layer(3, 4) 16, MLP(2, [16, 16, 1]) 337")
def parameter_counts(namespace):
    Neuron, Layer, MLP = _classes(namespace)
    _expect_parameters(Neuron(3), 4, "Neuron(3)", "3 weights and a bias")
    _expect_layer_parameters(Layer, 3, 4)
    model = MLP(2, [16, 16, 1])
    _expect_parameters(
        model,
        337,
        "MLP(2, [16, 16, 1])",
        "(2·16 + 16) + (16·16 + 16) + (16·1 + 1)",
        parts=_parts(model, "layers"),
        part_name="layer",
    )


@check(
    "forward shapes: one value from a neuron, a list from a layer, one value from an MLP "
    "with one output"
)
def forward_shapes(namespace):
    Neuron, Layer, MLP = _classes(namespace)
    out = Neuron(3)([1.0, -2.0, 0.5])
    expect(_is_value(out), f"a neuron should give one value, but `Neuron(3)(x)` gave {show(out)}")
    out = Layer(3, 4)([1.0, -2.0, 0.5])
    expect(
        isinstance(out, list) and len(out) == 4 and all(_is_value(v) for v in out),
        f"`Layer(3, 4)(x)` should give a list of 4 values, but gave {show(out)}",
    )
    out = MLP(2, [16, 16, 1])([1.0, -2.0])
    expect(
        _is_value(out),
        f"an MLP whose last layer has one neuron should give one value (not a list of one), "
        f"but `MLP(2, [16, 16, 1])(x)` gave {show(out)}",
    )
    out = MLP(2, [3, 2])([1.0, -2.0])
    expect(
        isinstance(out, list) and len(out) == 2 and all(_is_value(v) for v in out),
        f"`MLP(2, [3, 2])(x)` should give a list of 2 values, but gave {show(out)}",
    )


# --------------------------------------------------------------------- zero_grad


def _source(function):
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def _who_has(attribute, models):
    """The kinds of module (of `models`) that have `attribute`, in words: "a Layer"."""
    kinds = [type(m).__name__ for m in models if hasattr(m, attribute)]
    if not kinds:
        return "no module has"
    return (
        "only "
        + " and ".join(f"an {k}" if k[0] in "AEIMOU" else f"a {k}" for k in kinds)
        + (" has" if len(kinds) == 1 else " have")
    )


def _expect_zero_grad(model, what, others=()):
    """After `model.zero_grad()`, every parameter's grad is 0.0 and its data as it was; a
    failure names the bug the evidence shows."""
    params = model.parameters()
    if getattr(model, "zero_grad", None) is None:
        fail(f"`{what}` has no `zero_grad`: write it on `Module`, which every module inherits")
    for k, p in enumerate(params):
        p.grad = 1.0 + k  # distinct, so that nothing can pass by accident
    data = [p.data for p in params]
    try:
        model.zero_grad()
    except AttributeError as error:
        message = _text(error)
        missing = re.search(r"has no attribute '(\w+)'", message)
        if "'list' object has no attribute 'grad'" in message:
            fail(
                f"`{what}.zero_grad()` raised AttributeError ({message}): `self.parameters()` "
                "is a list, and a list has no `grad`: loop over it, and set each "
                "parameter's `grad`"
            )
        if missing:
            name = missing.group(1)
            fail(
                f"`{what}.zero_grad()` raised AttributeError ({message}): your `zero_grad` "
                f"goes through `self.{name}`, which {_who_has(name, [model, *others])} (a "
                "Neuron holds weights, a Layer neurons, an MLP layers). Loop over "
                "`self.parameters()` instead: every module has it, so one loop serves a "
                "neuron, a layer and a whole network"
            )
        raise
    n = len(params)
    left = [p for p in params if p.grad != 0.0]
    moved = [p for p, d in zip(params, data) if p.data != d]
    if left and moved and all(p.data == 0.0 for p in moved):
        fail(
            f"after `{what}.zero_grad()`, the parameters' *values* were 0 and their gradients "
            "untouched: it set `p.data`, the weight itself, instead of `p.grad`. That wipes "
            "out what the model has learned; set `p.grad = 0.0`"
        )
    if moved:
        fail(
            f"`{what}.zero_grad()` changed {len(moved)} of {n} parameters' `data`: it should "
            "reset the gradients only, and leave the values alone"
        )
    if not left:
        return
    if len(left) == n - 1 and params[0].grad == 0.0:
        fail(
            f"after `{what}.zero_grad()`, only the first parameter's grad was 0.0; the other "
            f"{n - 1} still had theirs: loop over every parameter (is the `return`, or the "
            "assignment, outside the loop?)"
        )
    if len(left) == n:
        source = _source(type(model).zero_grad)
        if re.search(r"\.grad\s*==", source):
            fail(
                f"`{what}.zero_grad()` left every gradient as it was: `p.grad == 0.0` "
                "*compares* the gradient with 0 and throws the answer away; a single `=` "
                "assigns, `p.grad = 0.0`"
            )
        fail(
            f"`{what}.zero_grad()` left every gradient as it was ({n} of {n} still had one): "
            "set `p.grad = 0.0` for every `p` in `self.parameters()`"
        )
    fail(
        f"after `{what}.zero_grad()`, {len(left)} of {n} parameters still had a gradient, "
        f"such as {show(left[0].grad)}: every parameter's grad should be 0.0"
    )


def _zero_grad_models(namespace):
    Neuron, Layer, MLP = _classes(namespace)
    models = [
        (Neuron(3), "Neuron(3)"),
        (Layer(3, 4), "Layer(3, 4)"),
        (MLP(2, [4, 1]), "MLP(2, [4, 1])"),
    ]
    return models


@check("zero_grad() sets every parameter's grad to 0.0")
def zero_grad_resets(namespace):
    models = _zero_grad_models(namespace)
    for model, what in models[1:]:
        _expect_zero_grad(model, what, [m for m, _ in models])


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
    expect(
        any(p.grad != 0.0 for p in params),
        "after `loss.backward()` no parameter had a gradient: is the model's output built "
        "from its parameters, and does `parameters()` return them?",
    )
    for p in params:
        p.data -= LEARNING_RATE * p.grad
    after = mean_squared_error(model).data
    expect(
        after < loss.data,
        f"after one step `p.data -= {LEARNING_RATE} * p.grad`, the mean squared error should "
        f"be lower than {show(loss.data)}, but was {show(after)}",
    )


CHECKPOINT = [parameter_counts, forward_shapes, zero_grad_resets, descent_step]


@declare_checkpoint(7, "Chapter 7 checkpoint: a tiny neural-network library", CHECKPOINT)
def checkpoint(namespace):
    """Chapter 7's specification, run on the learner's `Neuron`, `Layer` and `MLP`
    (pass `globals()`, a module, or a dict holding them)."""


# --------------------------------------------------------------------- the chapter's given code
# The classes the chapter gives in its cells, as it gives them (tests/test_checks_core.py finds
# each one, word for word, in a cell of the notebook). When an exercise's solution fails its check
# in the learner's notebook, it runs again on fresh copies of these (`Exercise.given`): passing
# there, it points to a given cell the learner edited, not to the course.

GIVEN_MODULE = """class Module:
    def parameters(self):
        return []"""

GIVEN_NEURON = """class Neuron(Module):
    def __init__(self, nin, relu=True):
        self.w = [Value(random.uniform(-1, 1), label=f"w{i}") for i in range(1, nin + 1)]
        self.b = Value(0.0, label="b")
        self.relu = relu  # False: the neuron returns its raw sum, a score of any size

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi  # wi on the left, so a plain number xi becomes a Value
        return act.relu() if self.relu else act

    def parameters(self):
        return self.w + [self.b]"""

GIVEN_LAYER = """class Layer(Module):
    def __init__(self, nin, nout, relu=True):
        self.neurons = [Neuron(nin, relu) for _ in range(nout)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]"""

SOLVED_LAYER_PARAMETERS = """@add_to_class(Layer)
def parameters(self):
    return [p for neuron in self.neurons for p in neuron.parameters()]"""

GIVEN_MLP = """class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        last = len(nouts) - 1
        self.layers = [Layer(sizes[i], sizes[i + 1], relu=i < last) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]"""


def given_classes(*cells):
    """The classes that `cells` (sources above) define, fresh, over the engine as chapter 5
    leaves it, as the chapter's setup has it: {name: class}."""
    import random

    from ..stages import add_to_class, stage

    namespace = {"Value": stage(5), "random": random, "add_to_class": add_to_class}
    for cell in cells:
        exec(cell, namespace)
    return {
        name: namespace[name] for name in ("Module", "Neuron", "Layer", "MLP") if name in namespace
    }


# --------------------------------------------------------------------- exercises


@check("Layer.parameters(): every neuron's weights and bias, once, the same objects each call")
def layer_parameters(Layer):
    _expect_layer_parameters(Layer, 3, 4)
    _expect_layer_parameters(Layer, 2, 1)


LAYER_PARAMETERS = Exercise(
    7,
    "Layer.parameters",
    [layer_parameters],
    what="your `Layer.parameters`",
    answer_of=lambda Layer: vars(Layer).get("parameters"),
    unanswered=is_unwritten,
    todo="replace `...` with a `return` of one flat list, run the cell, then this check again",
    given=lambda: given_classes(GIVEN_MODULE, GIVEN_NEURON, GIVEN_LAYER),
)


def check_layer_parameters(Layer):
    """Exercise: `Layer.parameters()`, every neuron's parameters in one flat list."""
    return LAYER_PARAMETERS.check(Layer)


@check("zero_grad() sets every parameter's grad to 0.0, in a neuron, a layer and an MLP")
def zero_grad_everywhere(namespace):
    models = _zero_grad_models(namespace)
    for model, what in models:
        _expect_zero_grad(model, what, [m for m, _ in models])


def _zero_grad_of(namespace):
    """The learner's `zero_grad`, as an MLP finds it (on `Module`, where the stub is)."""
    MLP = _lookup(namespace, "MLP")
    return getattr(MLP, "zero_grad", None) if MLP is not None else None


ZERO_GRAD = Exercise(
    7,
    "zero_grad",
    [zero_grad_everywhere],
    what="your `zero_grad`",
    answer_of=_zero_grad_of,
    unanswered=is_unwritten,
    todo="replace `...` with a loop over the parameters, run the cell, then this check again",
    given=lambda: given_classes(
        GIVEN_MODULE, GIVEN_NEURON, GIVEN_LAYER, SOLVED_LAYER_PARAMETERS, GIVEN_MLP
    ),
)


def check_zero_grad(namespace):
    """Exercise: `Module.zero_grad()`, tried on a neuron, a layer and an MLP built from the
    classes in `namespace` (the notebook's `globals()`, or a module)."""
    return ZERO_GRAD.check(namespace)


# --------------------------------------------------------------------- the circles


def _widths(model):
    """The number of neurons in each layer of one of the chapter's MLPs, or None."""
    layers = _parts(model, "layers")
    if not layers:
        return None
    widths = [len(_parts(layer, "neurons") or []) for layer in layers]
    return widths if all(widths) else None


@check("at least 90% of the circles' points classified right")
def circles_accuracy(model, steps, accuracy):
    if not is_number(accuracy):
        fail(f"`circle_accuracy` should be a fraction between 0 and 1, but was {show(accuracy)}")
    if not 0.0 <= accuracy <= 1.0:
        fail(
            f"`circle_accuracy` should be a fraction between 0 and 1 (0.9 is 90%), but was "
            f"{show(accuracy)}"
        )
    if accuracy >= 0.9:
        return
    said = f"your model classified {accuracy:.0%} of the points right, below 90%"
    widths = _widths(model)
    if widths is not None and len(widths) == 1:
        fail(
            f"{said}: `MLP(2, {widths})` is a linear model. With no hidden layer, its output "
            "neuron (which has no relu) scores w1·x1 + w2·x2 + b, so its boundary is a "
            "straight line, and no straight line separates a circle from the ring around it: "
            "however long it trains, about half the points stay wrong. Add a hidden layer of "
            "relu neurons: `MLP(2, [width, 1])`"
        )
    if widths is not None and min(widths[:-1]) < 3:
        narrow = min(widths[:-1])
        fail(
            f"{said}: a hidden layer of {narrow} relu neuron{'s' * (narrow != 1)} draws a "
            f"boundary of at most {narrow} straight piece{'s' * (narrow != 1)}, and a closed "
            "boundary around the inner circle needs at least three: widen the hidden layers "
            "(a dozen or more neurons make a fair circle)"
        )
    if is_int(steps):
        if steps <= 0:
            fail(
                f"{said}: `circle_steps` is {steps}, so the model never trained: its weights "
                "are still the random ones it started with"
            )
        if steps < 40:
            fail(
                f"{said}: {steps} step{'s' * (steps != 1)} of 20 points each are too few for "
                "the network to find the circle: take more steps (the moons took 40)"
            )
    fail(f"{said}: train longer, or widen the hidden layers")


CIRCLES = Exercise(
    7,
    "90% on the circles",
    [circles_accuracy],
    what="your circle model",
    answer_of=SameArguments(),
    unanswered=lambda answer: _widths(answer[0]) == [1] and answer[1] == 0,
    todo="choose better layers and a number of steps, run the cell, then this check again",
)


def check_circles(model, steps, accuracy):
    """Exercise: a network trained on the circles (`model`, after `steps` steps) classifies at
    least 90% of the points right (`accuracy`, a fraction). A failure says why: a linear
    model, hidden layers too narrow for a closed boundary, too few steps."""
    return CIRCLES.check(model, steps, accuracy)
