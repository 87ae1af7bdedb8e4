"""The checks of chapter 12 accept what the chapter asks for and explain, in words, what is wrong
with the rest: the prediction of a second derivative, the Hessian-vector product `hvp`, and
`my_grad` (an exercise, and the checkpoint's subject), whose classic mistakes are named."""

import linecache

import pytest

from autograd import Value, grad
from autograd.checks import ch12, checkpoint
from autograd.checks.exercise import forget_answers
from autograd.graph import topological_order
from mistakes import catalogue


def define(source, name):
    """Run `source` as a notebook cell does (its source kept where `inspect` finds it), in a
    namespace with what the chapter's setup imports, and return what it defines as `name`."""
    filename = f"<cell {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"Value": Value, "grad": grad, "topological_order": topological_order}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def failed(report):
    return [r for r in report.results if not r.passed]


def catalogued(check):
    return [pytest.param(m, id=m.bug) for m in catalogue(12) if m.check == f"ch12.{check}"]


RIGHT_MY_GRAD = catalogue(12)[0].answer.replace(
    "            grads[id(child)] = part",
    "            grads[id(child)] = grads[id(child)] + part if id(child) in grads else part",
)

RIGHT_HVP = """def hvp(f, xs, v):
    leaves = [Value(x) for x in xs]
    g = grad(f(leaves), leaves, create_graph=True)
    return [d.data for d in grad(sum(gi * vi for gi, vi in zip(g, v)), leaves)]
"""


@pytest.fixture(autouse=True)
def fresh_answers():
    forget_answers()
    yield
    forget_answers()


# --------------------------------------------------------------------- the prediction


def test_the_right_second_derivative_passes():
    assert ch12.check_second_derivative_prediction(9.0).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        (4.75, "that is the first derivative"),
        (7.0, "does not bend"),
        (12.0, "differentiate twice by hand"),
    ],
)
def test_a_wrong_prediction_gets_a_hint_not_the_answer(answer, words):
    report = ch12.check_second_derivative_prediction(answer)
    message = failed(report)[0].message
    assert words in message and "The answer is 9" not in message


def test_a_second_wrong_prediction_gets_the_answer():
    ch12.check_second_derivative_prediction(4.75)
    message = failed(ch12.check_second_derivative_prediction(5.0))[0].message
    assert "The answer is 9" in message and "f''(x) = 6x" in message


def test_the_prediction_agrees_with_grad_of_grad():
    x = Value(1.5)
    first = grad(x**3 - 2 * x, x, create_graph=True)
    assert grad(first, x).data == pytest.approx(ch12.SECOND.expected, abs=1e-12)


# --------------------------------------------------------------------- hvp


def test_a_right_hvp_passes():
    report = ch12.check_hvp(define(RIGHT_HVP, "hvp"))
    assert report.passed, str(report)


def test_an_hvp_that_returns_values_fails_the_exercise_asks_for_numbers():
    source = RIGHT_HVP.replace("[d.data for d in grad(", "list(grad(").replace(
        "leaves)]", "leaves))"
    )
    report = ch12.check_hvp(define(source, "hvp"))
    assert not report.passed
    assert "returned Values" in report.failures[0].message


def test_the_unchanged_hvp_stub_is_not_answered_yet():
    stub = define("def hvp(f, xs, v):\n    ...  # the gradient, then grad of g · v\n", "hvp")
    report = ch12.check_hvp(stub)
    assert not report.passed and "not answered yet" in str(report)


@pytest.mark.parametrize("mistake", catalogued("check_hvp"))
def test_each_catalogued_mistake_in_hvp_fails_and_is_named(mistake):
    report = ch12.check_hvp(define(mistake.answer, "hvp"))
    assert not report.passed
    message = failed(report)[0].message
    for words in mistake.says:
        assert words in message, message


@pytest.mark.parametrize(
    "g_dot_v, second_grad",
    [
        ("sum(gi.data * vi for gi, vi in zip(g, v))", "grad(g_dot_v, leaves)"),
        ("Value(sum(gi.data * vi for gi, vi in zip(g, v)))", "grad(g_dot_v, leaves)"),
        ("sum(Value(gi.data) * vi for gi, vi in zip(g, v))", "grad(g_dot_v, leaves)"),
        (
            "sum(Value(gi.data) * vi for gi, vi in zip(g, v))",
            "grad(g_dot_v, leaves, allow_unused=True)",
        ),
    ],
)
def test_an_hvp_whose_sum_left_the_graph_is_not_told_to_use_create_graph(g_dot_v, second_grad):
    # Once a trap: create_graph=True was there already, yet the check asked for it, and quoted
    # grad's advice to pass allow_unused=True, which would only give zeros
    hvp = define(
        "def hvp(f, xs, v):\n    leaves = [Value(x) for x in xs]\n"
        "    g = grad(f(leaves), leaves, create_graph=True)\n"
        f"    g_dot_v = {g_dot_v}\n"
        f"    return [d.data for d in {second_grad}]\n",
        "hvp",
    )
    message = failed(ch12.check_hvp(hvp))[0].message
    assert "you pass `create_graph=True`" in message and "a float left the graph" in message
    assert "Compute them with" not in message and "Pass allow_unused=True" not in message
    if "allow_unused" in second_grad:
        assert "only turns that into gradients of 0" in message


def test_an_hvp_without_create_graph_is_still_told_to_use_it():
    hvp = define(
        "def hvp(f, xs, v):\n    leaves = [Value(x) for x in xs]\n"
        "    g = grad(f(leaves), leaves)\n"
        "    return [d.data for d in grad(sum(gi * vi for gi, vi in zip(g, v)), "
        "leaves)]\n",
        "hvp",
    )
    message = failed(ch12.check_hvp(hvp))[0].message
    assert "Compute them with `grad(..., create_graph=True)`" in message
    assert "Pass allow_unused=True" not in message


def test_an_hvp_whose_grad_calls_cannot_be_watched_is_told_both_causes():
    # grad reached through a module, not a name the check can watch: no guess, both causes
    hvp = define(
        "import autograd\n"
        "def hvp(f, xs, v):\n    leaves = [Value(x) for x in xs]\n"
        "    g = autograd.grad(f(leaves), leaves, create_graph=True)\n"
        "    g_dot_v = Value(sum(gi.data * vi for gi, vi in zip(g, v)))\n"
        "    return [d.data for d in autograd.grad(g_dot_v, leaves)]\n",
        "hvp",
    )
    message = failed(ch12.check_hvp(hvp))[0].message
    assert "without `create_graph=True`, or a float left the graph" in message
    assert "Pass allow_unused=True" not in message


def test_watching_an_hvps_grad_calls_leaves_its_namespace_as_it_was():
    hvp = define(catalogue(12)[-1].answer, "hvp")
    assert not ch12.check_hvp(hvp).passed
    assert hvp.__globals__["grad"] is grad


def test_the_numerical_hvp_agrees_with_the_exact_one():
    for _, f, xs, v in ch12._HVP_CASES:
        assert ch12.numerical_hvp(f, xs, v) == pytest.approx(
            ch12._exact_hvp(f, xs, v), rel=1e-7, abs=1e-7
        )


# --------------------------------------------------------------------- my_grad


def test_the_reference_my_grad_passes_the_checkpoint():
    report = ch12.checkpoint(ch12.reference_grad)
    assert report.passed, str(report)


def test_a_right_my_grad_passes_as_the_learners_code():
    my_grad = define(RIGHT_MY_GRAD, "my_grad")
    assert ch12.check_my_grad(my_grad).passed
    report = checkpoint(12, my_grad)
    assert report.passed, str(report)
    assert report.title.startswith("Chapter 12")


def test_the_unchanged_my_grad_stub_is_not_answered_yet():
    stub = define(
        "def my_grad(output, inputs):\n    grads = {}\n    ...  # the rules\n"
        "    return [Value(0.0) for x in inputs]\n",
        "my_grad",
    )
    report = ch12.check_my_grad(stub)
    assert not report.passed and len(report.results) == 1
    assert "not answered yet" in str(report)


@pytest.mark.parametrize("mistake", catalogued("check_my_grad"))
def test_each_catalogued_mistake_in_my_grad_fails_and_is_named(mistake):
    my_grad = define(mistake.answer, "my_grad")
    report = ch12.check_my_grad(my_grad)
    assert not report.passed
    message = failed(report)[0].message
    for words in mistake.says:
        assert words in message, message
    spec = ch12.checkpoint(my_grad)
    assert not spec.passed


@pytest.mark.parametrize(
    "mistake, words",
    [
        ({"assign": True}, "keeps only its last contribution"),
        ({"upstream": False}, "passes the local slope alone"),
        ({"floats": True}, "not differentiable again"),
        ({"assign": True, "upstream": False}, "two mistakes at once"),
        ({"alone": ("*",)}, "the rule of `*` passes its local slope alone"),
        ({"alone": ("tanh",)}, "the rule of `tanh` passes its local slope alone"),
        ({"from_data": ("tanh",)}, "the slope of `tanh` is computed from `.data`"),
        ({"swapped": True}, "the rule of `*` gives each factor its own value as its slope"),
    ],
)
def test_each_planted_mistake_of_the_reference_is_named(mistake, words):
    report = ch12.checkpoint(lambda output, inputs: ch12.reference_grad(output, inputs, **mistake))
    assert not report.passed
    assert words in failed(report)[0].message


def test_slopes_from_data_pass_the_first_derivatives_and_fail_the_second():
    report = ch12.checkpoint(
        lambda output, inputs: ch12.reference_grad(output, inputs, floats=True)
    )
    passed = {r.name: r.passed for r in report.results}
    assert passed[ch12.reused_value.check_name]
    assert not passed[ch12.second_derivatives.check_name]


def test_gradients_that_are_numbers_are_told_to_be_values():
    def numbers(output, inputs):
        return [g.data for g in grad(output, inputs)]

    message = failed(ch12.checkpoint(numbers))[0].message
    assert "should be a Value" in message


def test_a_my_grad_that_uses_backward_is_told_to_leave_grad_alone():
    def through_backward(output, inputs):
        output.backward()
        return ch12.reference_grad(output, inputs)

    report = ch12.checkpoint(through_backward)
    assert [r.name for r in failed(report)] == [ch12.leaves_grad_alone.check_name]
    assert "don't call `backward()`" in failed(report)[0].message


def test_an_unknown_operation_fails_with_what_was_raised():
    def only_add(output, inputs):
        grads = {id(output): Value(1.0)}
        for node in reversed(topological_order(output)):
            if node._op == "*":
                raise NotImplementedError("no rule for *")
            for child in node._prev:
                grads[id(child)] = grads[id(node)]
        return [grads.get(id(x), Value(0.0)) for x in inputs]

    message = failed(ch12.checkpoint(only_add))[0].message
    assert "raised NotImplementedError" in message and "no rule for *" in message


def test_the_checkpoint_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match="my_grad"):
        ch12.checkpoint(3)


@pytest.mark.parametrize("seed", list(ch12.SEEDS))
def test_random_expressions_use_every_input_and_stay_finite(seed):
    numbers, build = ch12.random_expression(seed)
    leaves = [Value(n) for n in numbers]
    first = grad(build(*leaves), leaves, create_graph=True)
    second = [grad(g, leaves) for g in first]
    assert all(abs(v.data) < 1e6 for row in second for v in row)
    ops = {node._op for node in topological_order(build(*leaves))}
    assert ops <= {"", "+", "*", "tanh"}  # "" for the leaves
