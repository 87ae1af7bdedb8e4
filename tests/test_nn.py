"""The tiny neural-network library: shapes, seeds, activations, losses, SGD and training."""

import gc
import math
import random

import pytest
from conftest import require_module

from autograd import Value, article
from autograd.data import make_moons
from autograd.nn import (
    MLP,
    SGD,
    Layer,
    Neuron,
    accuracy,
    bce_with_logits,
    hinge_loss,
    l2_penalty,
    mse_loss,
    train_step,
)


def set_neuron(neuron, weights, bias):
    for w, value in zip(neuron.w, weights):
        w.data = value
    neuron.b.data = bias


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


# --------------------------------------------------------------------- structure


def test_parameter_counts_are_weights_plus_biases():
    # 16*(2+1) + 16*(16+1) + 1*(16+1) = 48 + 272 + 17
    assert len(MLP(2, [16, 16, 1]).parameters()) == 337
    assert len(Neuron(3).parameters()) == 4
    assert len(Layer(3, 5).parameters()) == 5 * 4


def test_neuron_parameters_are_its_weights_then_its_bias():
    n = Neuron(3, seed=0)
    assert n.parameters() == n.w + [n.b]
    assert len(n.w) == 3


def test_layer_always_returns_a_list_of_nout_values():
    one = Layer(2, 1, seed=0)([1.0, 2.0])
    four = Layer(3, 4, seed=0)([1.0, 2.0, 3.0])
    assert isinstance(one, list) and len(one) == 1
    assert isinstance(four, list) and len(four) == 4
    assert all(isinstance(v, Value) for v in one + four)


def test_mlp_returns_one_value_for_one_output_and_a_list_otherwise():
    single = MLP(2, [3, 1], seed=0)([0.5, -0.5])
    several = MLP(2, [3, 2], seed=0)([0.5, -0.5])
    assert isinstance(single, Value)
    assert isinstance(several, list) and len(several) == 2


def test_mlp_hidden_layers_use_nonlin_and_the_last_is_linear():
    model = MLP(2, [4, 3, 1], nonlin="tanh", seed=0)
    assert [layer.nonlin for layer in model.layers] == ["tanh", "tanh", "linear"]
    assert [(layer.nin, layer.nout) for layer in model.layers] == [(2, 4), (4, 3), (3, 1)]


def test_reprs_describe_the_shape():
    assert repr(MLP(2, [16, 16, 1])) == "MLP(2 -> 16 relu -> 16 relu -> 1 linear, 337 parameters)"
    assert repr(Neuron(2, "tanh")) == "Neuron(2 inputs, tanh)"
    assert repr(Neuron(2, None)) == "Neuron(2 inputs, linear)"
    assert repr(Layer(3, 4, "sigmoid")) == "Layer(3 -> 4 sigmoid)"


# --------------------------------------------------------------------- initialisation


def weights_of(model):
    return [p.data for p in model.parameters()]


def test_same_seed_gives_the_same_model_and_different_seeds_differ():
    assert weights_of(MLP(2, [8, 1], seed=3)) == weights_of(MLP(2, [8, 1], seed=3))
    assert weights_of(MLP(2, [8, 1], seed=3)) != weights_of(MLP(2, [8, 1], seed=4))
    assert weights_of(MLP(2, [8, 1], seed=random.Random(3))) == weights_of(MLP(2, [8, 1], seed=3))


def test_unseeded_models_differ():
    assert weights_of(MLP(2, [8, 1])) != weights_of(MLP(2, [8, 1]))


def test_a_model_draws_every_weight_from_one_generator_uniform_with_zero_biases():
    rng = random.Random(7)
    expected = []
    for nin, nout in [(2, 3), (3, 1)]:
        for _ in range(nout):
            expected += [rng.uniform(-1.0, 1.0) for _ in range(nin)] + [0.0]
    assert weights_of(MLP(2, [3, 1], seed=7)) == expected


# --------------------------------------------------------------------- forward and backward


@pytest.mark.parametrize(
    "nonlin, expected",
    [
        # w = (0.5, -1), b = 0.25, x = (2, 1): w.x + b = 1 - 1 + 0.25 = 0.25
        ("linear", 0.25),
        (None, 0.25),
        ("relu", 0.25),
        ("tanh", math.tanh(0.25)),
        ("sigmoid", 1.0 / (1.0 + math.exp(-0.25))),
    ],
)
def test_each_nonlin_applies_its_activation(nonlin, expected):
    n = Neuron(2, nonlin, seed=0)
    set_neuron(n, [0.5, -1.0], 0.25)
    assert n([2.0, 1.0]).data == pytest.approx(expected, abs=1e-15)


def test_relu_neuron_outputs_zero_for_a_negative_sum():
    n = Neuron(2, "relu", seed=0)
    set_neuron(n, [0.5, -1.0], 0.25)
    assert n([0.0, 1.0]).data == 0.0  # 0 - 1 + 0.25 < 0


def test_the_articles_neuron_gives_the_articles_numbers():
    numbers = article.NEURON
    n = Neuron(2, "tanh", seed=0)
    set_neuron(n, [numbers["w1"], numbers["w2"]], numbers["b"])
    x1, x2 = Value(numbers["x1"]), Value(numbers["x2"])
    out = n([x1, x2])
    out.backward()
    assert out.data == pytest.approx(0.7071067811865476, abs=1e-12)
    # 1 - tanh^2 = 0.5: dw = x * 0.5, dx = w * 0.5, db = 0.5
    assert n.w[0].grad == pytest.approx(1.0, abs=1e-12)
    assert n.w[1].grad == pytest.approx(0.0, abs=1e-12)
    assert n.b.grad == pytest.approx(0.5, abs=1e-12)
    assert x1.grad == pytest.approx(-1.5, abs=1e-12)
    assert x2.grad == pytest.approx(0.5, abs=1e-12)


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [4, 1], nonlin="tanh", seed=1)
    model([1.0, -2.0]).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_mlp_gradient_matches_a_hand_computed_two_layer_net():
    # hidden h = relu(w.x + b) for two neurons, output o = v.h + c
    model = MLP(2, [2, 1], seed=0)
    (n1, n2), (out,) = model.layers[0].neurons, model.layers[1].neurons
    set_neuron(n1, [1.0, 2.0], 0.0)  # 1*1 + 2*(-0.25) = 0.5 > 0
    set_neuron(n2, [-1.0, 1.0], 0.0)  # -1 - 0.25 < 0, so relu is 0 and passes no gradient
    set_neuron(out, [3.0, 5.0], 0.5)
    o = model([1.0, -0.25])
    o.backward()
    assert o.data == pytest.approx(3.0 * 0.5 + 5.0 * 0.0 + 0.5)
    assert [w.grad for w in out.w] == pytest.approx([0.5, 0.0])
    assert [w.grad for w in n1.w] == pytest.approx([3.0 * 1.0, 3.0 * -0.25])
    assert [w.grad for w in n2.w] == [0.0, 0.0]


# --------------------------------------------------------------------- other value classes


class TinyValue:
    """A learner's minimal engine, independent of the package: +, *, tanh, relu, backward."""

    nodes_made = 0

    def __init__(self, data, _prev=()):
        TinyValue.nodes_made += 1
        self.data, self.grad, self._prev, self._backward = float(data), 0.0, _prev, lambda: None

    def __add__(self, other):
        other = other if isinstance(other, TinyValue) else TinyValue(other)
        out = TinyValue(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, TinyValue) else TinyValue(other)
        out = TinyValue(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    __rmul__ = __mul__

    def tanh(self):
        out = TinyValue(math.tanh(self.data), (self,))

        def _backward():
            self.grad += (1 - out.data**2) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for p in v._prev:
                    visit(p)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()


def all_nodes(root):
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            stack.extend(v._prev)
            yield v


def test_a_learners_own_class_builds_and_trains_the_whole_graph():
    theirs = MLP(2, [3, 1], nonlin="tanh", seed=5, value_class=TinyValue)
    ours = MLP(2, [3, 1], nonlin="tanh", seed=5)
    out_theirs, out_ours = theirs([0.5, -1.5]), ours([0.5, -1.5])
    assert all(type(v) is TinyValue for v in all_nodes(out_theirs))
    out_theirs.backward()
    out_ours.backward()
    assert out_theirs.data == pytest.approx(out_ours.data, abs=1e-12)
    for p_theirs, p_ours in zip(theirs.parameters(), ours.parameters()):
        assert p_theirs.grad == pytest.approx(p_ours.grad, abs=1e-12)


def test_micrograd_values_work_with_relu_and_match_ours():
    require_module("micrograd")
    from micrograd.engine import Value as mg_value

    theirs = MLP(2, [4, 4, 1], seed=2, value_class=mg_value)
    ours = MLP(2, [4, 4, 1], seed=2)
    X, y = [[0.3, -1.2], [1.0, 0.4], [-0.7, 0.9]], [1, -1, 1]
    loss_theirs = hinge_loss([theirs(x) for x in X], y)
    loss_ours = hinge_loss([ours(x) for x in X], y)
    assert isinstance(loss_theirs, mg_value)
    loss_theirs.backward()
    loss_ours.backward()
    assert loss_theirs.data == pytest.approx(loss_ours.data, abs=1e-12)
    for p_theirs, p_ours in zip(theirs.parameters(), ours.parameters()):
        assert p_theirs.grad == pytest.approx(p_ours.grad, abs=1e-12)


def test_a_nonlin_the_value_class_lacks_is_refused_up_front():
    with pytest.raises(TypeError, match="sigmoid"):
        Neuron(2, "sigmoid", value_class=TinyValue)
    n = Neuron(2, "linear", seed=0, value_class=TinyValue)
    assert n([1.0, 2.0]).data == pytest.approx(n.w[0].data * 1.0 + n.w[1].data * 2.0)


# --------------------------------------------------------------------- losses


def test_mse_loss_value_and_gradient():
    p = [Value(1.0), Value(3.0)]
    loss = mse_loss(p, [0.0, 1.0])
    loss.backward()
    assert loss.data == pytest.approx((1.0**2 + 2.0**2) / 2)
    assert [v.grad for v in p] == pytest.approx([2 * 1.0 / 2, 2 * 2.0 / 2])


def test_hinge_loss_charges_only_points_inside_the_margin():
    s = [Value(2.0), Value(0.5), Value(0.25)]
    loss = hinge_loss(s, [1, 1, -1])
    loss.backward()
    # margins y*s = 2, 0.5, -0.25: costs 0, 0.5, 1.25
    assert loss.data == pytest.approx((0.0 + 0.5 + 1.25) / 3)
    assert [v.grad for v in s] == pytest.approx([0.0, -1 / 3, 1 / 3])


def test_l2_penalty_value_and_gradient():
    p = [Value(1.0), Value(-2.0)]
    penalty = l2_penalty(p, 0.5)
    penalty.backward()
    assert penalty.data == pytest.approx(0.5 * (1.0 + 4.0))
    assert [v.grad for v in p] == pytest.approx([2 * 0.5 * 1.0, 2 * 0.5 * -2.0])


def test_bce_with_logits_value_and_gradient_is_sigmoid_minus_target():
    z = [Value(0.0), Value(2.0), Value(-1.0)]
    labels = [1, 1, -1]
    loss = bce_with_logits(z, labels)
    loss.backward()
    expected = (math.log(2.0) + math.log1p(math.exp(-2.0)) + math.log1p(math.exp(-1.0))) / 3
    assert loss.data == pytest.approx(expected, abs=1e-12)
    targets = [(y + 1) / 2 for y in labels]
    for v, t in zip(z, targets):
        assert v.grad == pytest.approx((sigmoid(v.data) - t) / 3, abs=1e-12)


def test_bce_with_logits_stays_finite_for_huge_logits():
    z = [Value(1000.0), Value(-1000.0), Value(1000.0), Value(-1000.0)]
    loss = bce_with_logits(z, [1, 1, -1, -1])
    loss.backward()
    # confidently right costs 0; confidently wrong costs |z| = 1000
    assert loss.data == pytest.approx((0.0 + 1000.0 + 1000.0 + 0.0) / 4)
    # sigmoid(z) - t: (1 - 1), (0 - 1), (1 - 0), (0 - 0), each over 4
    assert [v.grad for v in z] == pytest.approx([0.0, -0.25, 0.25, 0.0], abs=1e-12)


def test_accuracy_counts_sign_agreement_and_zero_is_wrong():
    assert accuracy([2.0, -1.0, 0.0, Value(0.5)], [1, 1, -1, 1]) == 0.5
    assert accuracy([Value(-3.0)], [-1]) == 1.0


@pytest.mark.parametrize("helper", [hinge_loss, bce_with_logits, accuracy])
@pytest.mark.parametrize("bad", [0, 2, 0.5, "1", True])
def test_labels_other_than_plus_minus_one_are_refused_by_name(helper, bad):
    with pytest.raises(ValueError, match=f"label 1 is {bad!r}"):
        helper([Value(1.0), Value(1.0)], [1, bad])


@pytest.mark.parametrize("helper", [hinge_loss, bce_with_logits, accuracy, mse_loss])
def test_empty_or_mismatched_inputs_are_refused(helper):
    with pytest.raises(ValueError, match="empty"):
        helper([], [])
    with pytest.raises(ValueError, match="2 items.*1"):
        helper([Value(1.0), Value(2.0)], [1])


def test_plain_numbers_as_scores_are_refused_by_losses():
    with pytest.raises(TypeError, match="float"):
        hinge_loss([0.5], [1])


# --------------------------------------------------------------------- SGD and training


def test_sgd_step_moves_against_the_gradient():
    a, b = Value(1.0), Value(-2.0)
    a.grad, b.grad = 0.5, -4.0
    opt = SGD([a, b], lr=0.1)
    opt.step()
    assert (a.data, b.data) == pytest.approx((1.0 - 0.05, -2.0 + 0.4))
    opt.zero_grad()
    assert (a.grad, b.grad) == (0.0, 0.0)


def test_sgd_schedule_gets_the_step_count():
    p = Value(0.0)
    opt = SGD([p], lr=lambda k: 1.0 / (k + 1))
    for _ in range(3):
        p.grad = 1.0
        opt.step()
    assert p.data == pytest.approx(-(1.0 + 1 / 2 + 1 / 3))
    assert opt.steps == 3


def test_bad_learning_rates_are_refused():
    with pytest.raises(TypeError):
        SGD([Value(1.0)], lr="fast")
    opt = SGD([Value(1.0)], lr=lambda k: None)
    with pytest.raises(TypeError, match="step 0"):
        opt.step()


def test_one_training_step_lowers_the_loss():
    X, y = make_moons(20, noise=0.1, seed=0)
    model = MLP(2, [8, 1], seed=0)
    first = train_step(model, X, y, lr=0.05)
    second = train_step(model, X, y, lr=0.05)
    assert second.loss < first.loss
    assert 0.0 <= first.accuracy <= 1.0


def test_train_step_applies_exactly_the_sgd_update():
    X, y = [[1.0, 2.0], [-1.0, 0.5]], [1, -1]
    model, twin = MLP(2, [3, 1], seed=4), MLP(2, [3, 1], seed=4)
    loss, acc = train_step(model, X, y, lr=0.1, alpha=0.0)
    # the same step by hand on the twin
    scores = [twin(x) for x in X]
    total = hinge_loss(scores, y)
    total.backward()
    assert loss == pytest.approx(total.data, abs=1e-15)
    assert acc == accuracy(scores, y)
    for p, q in zip(model.parameters(), twin.parameters()):
        assert p.data == pytest.approx(q.data - 0.1 * q.grad, abs=1e-15)


def test_train_step_with_an_optimizer_uses_its_schedule():
    X, y = make_moons(10, noise=0.1, seed=1)
    model = MLP(2, [4, 1], seed=1)
    opt = SGD(model.parameters(), lr=lambda k: 0.1 / (k + 1))
    for _ in range(2):
        train_step(model, X, y, optimizer=opt, loss="bce")
    assert opt.steps == 2


def test_train_step_refuses_ambiguous_or_unknown_settings():
    X, y = [[0.0, 1.0]], [1]
    model = MLP(2, [2, 1], seed=0)
    with pytest.raises(TypeError, match="exactly one"):
        train_step(model, X, y)
    with pytest.raises(TypeError, match="exactly one"):
        train_step(model, X, y, lr=0.1, optimizer=SGD(model.parameters(), 0.1))
    with pytest.raises(ValueError, match="'cross'"):
        train_step(model, X, y, lr=0.1, loss="cross")
    with pytest.raises(ValueError, match="one output"):
        train_step(MLP(2, [2, 2], seed=0), X, y, lr=0.1)


# With model seed i and data seed i, every i from 0 to 7 reached 95% in 35 steps (7 of 8 in 30).
TRAINING_STEPS = 35


def test_mlp_learns_moons_to_95_percent():
    # micrograd's demo: MLP(2, [16, 16, 1]), hinge loss + 1e-4 L2, decaying learning rate
    X, y = make_moons(100, noise=0.1, seed=0)
    model = MLP(2, [16, 16, 1], seed=0)
    steps = TRAINING_STEPS
    # One collection a step instead of the dozens a 66,000-node graph sets off: the same
    # training, in a quarter of the time (chapter 10 tells why the collector costs so much).
    gc.disable()
    try:
        for k in range(steps):
            train_step(model, X, y, lr=1.0 - 0.9 * k / steps, loss="hinge", alpha=1e-4)
            gc.collect()
    finally:
        gc.enable()
    assert accuracy([model(x) for x in X], y) >= 0.95


# --------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize("nin", [0, -1, 2.5, True, "2"])
def test_nin_must_be_a_positive_int(nin):
    with pytest.raises(ValueError, match="nin"):
        Neuron(nin)


def test_an_unknown_nonlin_lists_the_choices():
    with pytest.raises(ValueError, match="'relu', 'tanh', 'sigmoid', 'linear'.*'softmax'"):
        Neuron(2, "softmax")
    with pytest.raises(ValueError, match="softmax"):
        MLP(2, [3, 1], nonlin="softmax")


def test_wrong_input_length_gives_both_lengths():
    with pytest.raises(ValueError, match="takes 3 inputs, but was given 2"):
        Neuron(3, seed=0)([1.0, 2.0])
    with pytest.raises(ValueError, match="takes 2 inputs, but was given 3"):
        MLP(2, [4, 1], seed=0)([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="sequence"):
        Neuron(1, seed=0)(1.0)


@pytest.mark.parametrize("nouts", [[], [16, 0, 1], [2.0]])
def test_bad_layer_sizes_are_refused(nouts):
    with pytest.raises(ValueError):
        MLP(2, nouts)


def test_bad_seeds_and_value_classes_are_refused():
    with pytest.raises(TypeError, match="seed"):
        MLP(2, [1], seed="abc")
    with pytest.raises(TypeError, match="value_class"):
        Neuron(2, value_class=Value(1.0))


def test_l2_penalty_refuses_negative_alpha_and_no_parameters():
    with pytest.raises(ValueError, match="-1"):
        l2_penalty([Value(1.0)], -1)
    with pytest.raises(ValueError, match="empty"):
        l2_penalty([], 0.1)
