"""The exercise checks of chapters 06-08 judge an attempt correctly and explain it in words."""
import inspect
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from autograd import Value
from autograd.checks import ch06, ch07, ch08
from autograd.gradcheck import gradcheck
from autograd.stages import stage

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- chapter 6


def test_unanswered_dx1_does_not_give_the_answer_away():
    report = ch06.check_dx1_by_hand(None)
    assert not report.passed
    assert "not answered yet" in str(report) and "1.5" not in str(report)
    assert ch06.check_dx1_by_hand(-1.5).passed


def test_dx1_gets_a_hint_first_and_the_answer_after_a_second_wrong_try():
    first = str(ch06.check_dx1_by_hand(-3))
    assert "that is w1 alone" in first and "1 − o²" in first and "-1.5" not in first
    assert "Try again" in first
    second = str(ch06.check_dx1_by_hand(0.5))
    assert "The answer is -1.5" in second and "w1·(1 − o²)" in second
    assert ch06.check_dx1_by_hand(-1.5).passed


@pytest.mark.parametrize("answer,words", [
    (-3, "that is w1 alone"), (0.5, "the tanh's local derivative alone"),
    (1.5, "the sign is off"), (1.0, "that is ∂o/∂w1"), (-6, "the product's value"),
    (-0.75, "follow the path from o back to x1"),
])
def test_dx1_names_what_each_wrong_number_is(answer, words):
    message = str(ch06.check_dx1_by_hand(answer))
    assert words in message and "-1.5" not in message  # the hint, never the answer


@pytest.mark.parametrize("answer", [True, Value(-1.5), "-1.5", [-1.5]])
def test_dx1_asks_for_a_plain_number_for_a_bool_a_value_or_a_string(answer):
    # True is an int to Python, and a Value prints as a number: neither is the plain number
    # the question asks for
    message = str(ch06.check_dx1_by_hand(answer))
    assert "should be a number" in message
    assert ch06.check_dx1_by_hand(-1.5).passed


@pytest.mark.parametrize("answer", [Fraction(-3, 2), -1.5000000001])
def test_dx1_takes_any_real_number_close_to_the_answer(answer):
    assert ch06.check_dx1_by_hand(answer).passed


def train_outputs(learning_rate, steps, target=0.5):
    """The chapter's `train`, on the engine: (losses, outputs)."""
    Value = stage(6)
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
    losses, outputs = [], []
    for step in range(steps + 1):
        for p in (w1, w2, b):
            p.grad = 0.0
        o = (x1 * w1 + x2 * w2 + b).tanh()
        loss = (o - target) ** 2
        losses.append(loss.data)
        outputs.append(o.data)
        if step < steps:
            loss.backward()
            for p in (w1, w2, b):
                p.data -= learning_rate * p.grad
    return losses, outputs


def target_message(learning_rate, steps, outputs=None):
    if outputs is None:
        outputs = train_outputs(learning_rate, steps)[1]
    report = ch06.check_reached_target(learning_rate, steps, outputs)
    assert not report.passed
    return report.results[0].message


def test_reached_target_passes_a_run_that_arrives():
    for learning_rate, steps in ((0.2, 20), (0.05, 40), (0.3, 3)):
        assert ch06.check_reached_target(learning_rate, steps, train_outputs(learning_rate,
                                                                             steps)[1]).passed


def test_the_checks_replay_on_floats_agrees_with_the_engine():
    for learning_rate, steps, target in ((0.2, 20, 0.5), (0.5, 20, 0.5), (5.0, 20, 0.5),
                                         (0.2, 20, 0.0)):
        losses, outputs = train_outputs(learning_rate, steps, target)
        want_losses, want_outputs = ch06.training_history(learning_rate, steps, target)
        assert outputs == pytest.approx(want_outputs, rel=1e-9, abs=1e-9)
        assert losses == pytest.approx(want_losses, rel=1e-9, abs=1e-9)


def test_reached_target_untouched_stub_is_not_answered_yet():
    report = ch06.check_reached_target(0.0, 0, train_outputs(0.0, 0)[1])
    assert not report.passed and "not answered yet" in str(report)


def test_reached_target_says_the_tuple_from_train_was_kept_whole():
    # Once a trap: `my_outputs = train(...)` keeps the pair; the old check said "take more steps,
    # or a larger learning rate" about a list
    message = target_message(0.2, 20, train_outputs(0.2, 20))
    assert "the pair `(losses, outputs)`" in message
    assert "`my_losses, my_outputs = train(...)`" in message
    assert "larger" not in message and "more steps" not in message


def test_reached_target_tells_a_diverging_learning_rate_to_shrink_not_grow():
    # A message that misled, before: a learning rate that diverged was told "a larger
    # learning rate"
    for learning_rate in (0.5, 0.7, 1.0, 5.0):
        message = target_message(learning_rate, 20)
        assert "too large" in message and "take a smaller learning rate" in message
        assert "take more steps" not in message and "or a larger learning rate" not in message
    assert "near ±1, where the tanh is flat" in target_message(5.0, 20)
    assert "swings around 0.5 without settling" in target_message(0.4, 20)


def test_reached_target_names_the_other_ways_to_miss():
    assert "learning rate of 0" in target_message(0.0, 20)
    assert "uphill" in target_message(-0.2, 20)
    assert "only measures the output" in target_message(0.2, 0)
    for learning_rate, steps in ((0.05, 3), (0.001, 20)):
        message = target_message(learning_rate, steps)
        assert "not far enough yet: take more steps, or a larger learning rate" in message
    losses, outputs = train_outputs(0.2, 20)
    assert "holds the losses, not the outputs" in target_message(0.2, 20, losses)
    towards_zero = train_outputs(0.2, 20, target=0.0)[1]
    assert "training towards 0" in target_message(0.2, 20, towards_zero)


def test_descent_history_matches_one_step_worked_by_hand():
    # o = 1/√2 at the start, so dL/dn = 2·o·(1 − o²) = 1/√2 for the target 0; the step moves
    # w1 by −η·x1·dL/dn and b by −η·dL/dn, so n moves by −η·(x1² + 1)·dL/dn = −5η/√2.
    lr = 0.05
    n0 = 2.0 * -3.0 + 6.8813735870195432
    n1 = n0 - lr * 5 / math.sqrt(2)
    losses = ch06.descent_history(lr, 1, 0.0)
    assert losses[0] == pytest.approx(0.5, abs=1e-12)
    assert losses[1] == pytest.approx(math.tanh(n1) ** 2, abs=1e-12)


def train_neuron_with_the_engine(learning_rate, steps, target, zero_grads):
    """The chapter's training loop, written against the engine (not the check's floats)."""
    Value = stage(6)
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
    losses = []
    for step in range(steps + 1):
        if zero_grads:
            for p in (w1, w2, b):
                p.grad = 0.0
        loss = ((x1 * w1 + x2 * w2 + b).tanh() - target) ** 2
        losses.append(loss.data)
        if step < steps:
            loss.backward()
            for p in (w1, w2, b):
                p.data -= learning_rate * p.grad
    return losses


def test_skipped_zero_grad_passes_only_the_forgetful_run_and_the_right_prediction():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    zeroed = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=True)
    assert forgetful[1] == pytest.approx(zeroed[1])  # the first step cannot tell them apart
    assert ch06.check_skipped_zero_grad("swings", forgetful, learning_rate=0.05, target=0.0).passed
    assert ch06.check_skipped_zero_grad(" Swings", forgetful, learning_rate=0.05,
                                        target=0.0).passed

    report = ch06.check_skipped_zero_grad("swings", zeroed, learning_rate=0.05, target=0.0)
    assert not report.passed and "`zero_grads=False`" in str(report)
    report = ch06.check_skipped_zero_grad("same", forgetful, learning_rate=0.05, target=0.0)
    assert [r.passed for r in report.results] == [False, True]


def test_skipped_zero_grad_explains_unfinished_and_mismatched_attempts():
    report = ch06.check_skipped_zero_grad(None, None, learning_rate=0.05, target=0.0)
    assert "not answered yet" in str(report) and "swings" not in str(report)
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    report = ch06.check_skipped_zero_grad(None, forgetful, learning_rate=0.05, target=0.0)
    assert "no prediction yet" in str(report)
    report = ch06.check_skipped_zero_grad("maybe", None, learning_rate=0.05, target=0.0)
    assert "choose one of" in str(report) and "no losses yet" in str(report)
    short = train_neuron_with_the_engine(0.05, 3, 0.0, zero_grads=False)
    assert "at least 10 steps" in str(
        ch06.check_skipped_zero_grad("swings", short, learning_rate=0.05, target=0.0))
    other_rate = train_neuron_with_the_engine(0.2, 30, 0.0, zero_grads=False)
    message = str(ch06.check_skipped_zero_grad("swings", other_rate, learning_rate=0.05,
                                               target=0.0))
    assert "after 1 step without zeroing" in message and "learning rate 0.05" in message


def test_skipped_zero_grad_says_the_tuple_from_train_was_kept_whole():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    outputs = [0.0] * len(forgetful)  # whatever: `train` returns (losses, outputs)
    message = str(ch06.check_skipped_zero_grad("swings", (forgetful, outputs),
                                               learning_rate=0.05, target=0.0))
    assert "the pair `(losses, outputs)`" in message and "at least 10 steps" not in message


def test_skipped_zero_grad_hints_before_it_reveals_the_prediction():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    zeroed = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=True)
    first = ch06.check_skipped_zero_grad("same", forgetful, learning_rate=0.05, target=0.0)
    assert "from the second step on" in str(first) and "swing" not in str(first).lower()
    # a wrong try on the losses alone does not count against the prediction
    ch06.check_skipped_zero_grad("swings", zeroed, learning_rate=0.05, target=0.0)
    second = ch06.check_skipped_zero_grad("slower", forgetful, learning_rate=0.05, target=0.0)
    assert 'The answer is "swings"' in str(second)
    assert ch06.check_skipped_zero_grad("swings", forgetful, learning_rate=0.05,
                                        target=0.0).passed


def test_skipped_zero_grad_hint_for_slower():
    forgetful = train_neuron_with_the_engine(0.05, 30, 0.0, zero_grads=False)
    message = str(ch06.check_skipped_zero_grad("slower", forgetful, learning_rate=0.05,
                                               target=0.0))
    assert "nothing here makes the steps smaller" in message and "The answer" not in message


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
            self.layers = [Layer(sizes[i], sizes[i + 1], relu=i < len(nouts) - 1)
                           for i in range(len(nouts))]

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
        lambda self: [n.parameters() for n in self.neurons])
    assert "only the first neuron's parameters" in layer_message(
        lambda self: self.neurons[0].parameters())
    assert "no `return`" in layer_message(lambda self: None)
    assert "held Neuron objects, not values" in layer_message(lambda self: self.neurons)
    assert "every weight but no bias" in layer_message(
        lambda self: [w for n in self.neurons for w in n.w])
    assert "returned a generator" in layer_message(
        lambda self: (p for n in self.neurons for p in n.parameters()))
    message = layer_message(
        lambda self: [type(p)(p.data) for n in self.neurons for p in n.parameters()])
    assert "new values, not the neurons' own" in message


def test_layer_parameters_stub_is_not_answered_yet():
    ns = chapter_seven()
    del ns["Layer"].parameters

    def parameters(self):
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
            p.grad == 0.0  # noqa: B015  (the mistake)

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


# ---------------------------------------------------------------- chapter 8


ONE_OPERATION = {
    "__add__": (lambda x, y: x + y, [0.7, -1.3]),
    "__mul__": (lambda x, y: x * y, [0.7, -1.3]),
    "__pow__": (lambda x: x**3, [0.7]),
    "tanh": (lambda x: x.tanh(), [0.7]),
    "exp": (lambda x: x.exp(), [0.7]),
}
EXPECTED_BROKEN = {"A": "__mul__", "B": "__pow__", "C": "__add__"}


@pytest.mark.parametrize("letter", sorted(ch08.MYSTERIES))
def test_each_mystery_breaks_exactly_its_own_primitive(letter):
    value_class = ch08.MYSTERIES[letter]
    failing = [name for name, (f, inputs) in ONE_OPERATION.items()
               if not gradcheck(f, inputs, value_class=value_class)]
    assert failing == [EXPECTED_BROKEN[letter]]
    x = value_class(0.3)
    assert type(x * 2 + x**2) is value_class  # the bug travels with every result


def test_mystery_classes_do_not_name_their_bug():
    for letter, value_class in ch08.MYSTERIES.items():
        doc = value_class.__doc__
        assert f"Mystery class {letter}" in doc
        assert EXPECTED_BROKEN[letter] not in doc and "mul" not in doc and "pow" not in doc


def test_mystery_diagnosis_accepts_the_method_in_any_usual_spelling():
    assert ch08.check_mysteries("__mul__", "__pow__", "__add__").passed
    assert ch08.check_mysteries("*", "Value.__pow__", "`+`").passed
    assert ch08.check_mysteries("mul", "**", "add").passed


def test_mystery_diagnosis_explains_what_is_wrong_without_naming_the_answer():
    report = ch08.check_mysteries(None, "__truediv__", "tanh")
    assert [r.passed for r in report.results] == [False, False, False]
    none, composed, wrong = (r.message for r in report.results)
    assert none.startswith("no answer yet")
    assert "no closure of its own" in composed and "b**-1" in composed
    assert "that method of mystery C is fine" in wrong
    assert all(answer not in str(report) for answer in ("__mul__", "__pow__", "__add__"))


def correct_checker(f, inputs, value_class, h=1e-6, tol=1e-5):
    values = [value_class(x) for x in inputs]
    f(*values).backward()
    for i, v in enumerate(values):
        up, down = list(inputs), list(inputs)
        up[i] += h
        down[i] -= h
        numerical = (f(*map(value_class, up)).data - f(*map(value_class, down)).data) / (2 * h)
        if abs(v.grad - numerical) > tol * max(1.0, abs(v.grad), abs(numerical)):
            return False
    return True


def make_checker(*, numerical="central", tol=1e-5, h=1e-6, compare="grad", together=False,
                 returns="both"):
    """A gradient checker written with one of the mistakes learners make (none by default)."""

    def check_gradients(f, inputs, value_class):
        values = [value_class(x) for x in inputs]
        out = f(*values)
        out.backward()
        for i, v in enumerate(values):
            up, down = list(inputs), list(inputs)
            if together:
                up, down = [x + h for x in inputs], [x - h for x in inputs]
            else:
                up[i] += h
                down[i] -= h
            f_up = f(*[value_class(x) for x in up]).data
            if numerical == "forward":
                slope = (f_up - out.data) / h
            else:
                f_down = f(*[value_class(x) for x in down]).data
                slope = {"central": (f_up - f_down) / (2 * h), "no 2h": f_up - f_down,
                         "/h": (f_up - f_down) / h, "/2*h": (f_up - f_down) / 2 * h}[numerical]
            grad = {"grad": v.grad, "output": out.grad, "first": values[0].grad,
                    "data": v.data}[compare]
            agree = abs(grad - slope) <= tol * max(1.0, abs(grad), abs(slope))
            if returns == "in the loop":
                return agree
            if not agree and returns != "never False":
                return False
        if returns != "no final return":
            return True

    return check_gradients


def checker_message(checker):
    report = ch08.check_gradient_checker(checker)
    assert not report.passed
    first = report.failures[0].message
    checkpoint = ch08.checkpoint(checker)  # the checkpoint on the same checker says it too
    assert not checkpoint.passed and first in str(checkpoint)
    return first


def test_gradient_checker_exercise_passes_fair_checkers_and_explains_the_stub():
    assert ch08.check_gradient_checker(correct_checker).passed
    assert ch08.check_gradient_checker(make_checker()).passed
    assert ch08.checkpoint(make_checker()).passed

    def stub(f, inputs, value_class, h=1e-6, tol=1e-5):
        values = [value_class(x) for x in inputs]
        f(*values).backward()
        for i in range(len(inputs)):
            ...  # the central difference of f in input i
        return None  # replace with your verdict

    report = ch08.check_gradient_checker(stub)
    assert "not answered yet" in str(report)


def test_a_checker_that_nudges_every_input_at_once_is_told_so_not_about_the_tolerance():
    # A message that misled, before: it was told "is the tolerance too tight, or the step h
    # so small ...?"
    message = checker_message(make_checker(together=True))
    assert "nudges every input at once" in message
    assert "tolerance" not in message
    checkpoint = ch08.checkpoint(make_checker(together=True))
    assert "tolerance" not in str(checkpoint)


@pytest.mark.parametrize("mistake,words", [
    (dict(numerical="forward", tol=1e-10), ("forward difference", "tighter than")),
    (dict(numerical="forward", tol=0.05), ("forward difference", "too loose")),
    (dict(tol=1e-12), ("tighter than float64 allows",)),
    (dict(tol=0.05), ("too loose", "3.00%")),
    (dict(h=1e-13), ("so small that",)),
    (dict(numerical="no 2h"), ("without the division by 2h",)),
    (dict(numerical="/h"), ("twice too large",)),
    (dict(numerical="/2*h"), ("`/ 2 * h`",)),
    (dict(compare="output"), ("the output's own `grad`",)),
    (dict(compare="first"), ("the first input's gradient",)),
    (dict(compare="data"), ("the inputs' `data`, not their `grad`",)),
    (dict(returns="never False"), ("it never says False",)),
    (dict(returns="in the loop"), ("only ever compares the first input",)),
    (dict(returns="no final return"), ("forget to `return`",)),
])
def test_gradient_checker_names_each_classic_mistake(mistake, words):
    message = checker_message(make_checker(**mistake))
    for w in words:
        assert w in message, message


def test_a_checker_that_always_says_true_compared_nothing():
    message = checker_message(lambda f, inputs, value_class: True)
    assert "compared nothing" in message


def test_an_always_true_checker_fails_the_checkpoint_even_after_the_solution_stood_in():
    # Once a trap: its own check said 1 of 2, then the checkpoint said "4 of 4 checks passed"
    from autograd.checks.exercise import solution

    always_true = "def check_gradients(f, inputs, value_class):\n    return True\n"
    ns = {"ch08": ch08}
    exec(compile(always_true, "<cell>", "exec"), ns)
    assert not ch08.check_gradient_checker(ns["check_gradients"]).passed
    body = inspect.getsource(correct_checker).replace("def correct_checker", "def check_gradients")
    said = []
    solution("ch08.check_gradient_checker(check_gradients)", body, ns, out=said.append)
    assert "did not pass its check" in said[0]
    report = ch08.checkpoint(ns["check_gradients"])
    assert not report.failures  # the solution's checker is the one the checks ran on
    assert not report.passed and "compared nothing" in str(report)
    assert "came from the solution because yours failed" in report.summary()


def test_mystery_answers_typed_after_the_solution_count_as_the_learners():
    # the names are strings, and Python shares one object for equal short names, so a
    # string cannot be told from the solution's: a correct name counts as the learner's, and
    # the checkpoint passes
    from autograd.checks.exercise import solution

    nb = json.loads((ROOT / "notebooks" / "08_checking_gradients.ipynb").read_text())
    body = next("".join(c["source"]) for c in nb["cells"]
                if "".join(c["source"]).startswith("%%solution ch08.check_mysteries"))
    body = body.partition("\n")[2].replace("probe(", "print(")
    check = "ch08.check_mysteries(broken_in_A, broken_in_B, broken_in_C)"
    ns = {"ch08": ch08, "broken_in_A": "__sub__", "broken_in_B": "__pow__",
          "broken_in_C": "__add__"}
    assert not eval(check, ns).passed
    solution(check, body, ns, out=lambda text: None)
    again = eval(check, ns)  # the check cell run again, on the solution's names
    assert again.passed and not again.by_solution
    ns.update(broken_in_A="__mul__", broken_in_B="__pow__", broken_in_C="__add__")
    mine = eval(check, ns)  # the learner's cell, fixed, then its check
    assert mine.passed and "solution" not in mine.title
    report = ch08.checkpoint(correct_checker)
    assert "✓ three broken classes" in str(report)


def test_mystery_diagnosis_is_an_exercise_that_says_what_each_wrong_name_is():
    report = ch08.check_mysteries("x * y", "__truediv__", "exp(x)")
    assert [r.passed for r in report.results] == [True, False, False]
    assert "no closure of its own" in str(report)
    assert "that method of mystery C is fine" in str(report)
    assert "has no method named 'foo'" in str(ch08.check_mysteries("foo", None, None))
    assert "not answered yet" in str(ch08.check_mysteries(None, None, None))


def test_the_learners_checker_catches_every_mystery_on_its_probe():
    for letter, value_class in ch08.MYSTERIES.items():
        f, inputs = ONE_OPERATION[EXPECTED_BROKEN[letter]]
        assert not correct_checker(f, inputs, value_class)
        assert correct_checker(f, inputs, stage(8))
