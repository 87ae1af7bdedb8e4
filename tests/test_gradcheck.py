"""Finite differences and gradcheck: they agree with correct engines and catch planted bugs."""

import math

import pytest
from conftest import require_module

from autograd import Value, article
from autograd.gradcheck import (
    GradcheckReport,
    central_difference,
    forward_difference,
    gradcheck,
    numerical_grad,
)

# --------------------------------------------------------------------- finite differences


def test_differences_find_the_slope_of_a_quadratic():
    def f(x):
        return 3 * x**2 - 4 * x + 5  # f'(3) = 6*3 - 4 = 14, f'' = 6

    # forward is off by h f''/2 = 3h; central is exact for a quadratic, up to round-off
    assert forward_difference(f, 3.0, h=1e-3) == pytest.approx(14.0 + 3e-3, abs=1e-8)
    assert central_difference(f, 3.0, h=1e-3) == pytest.approx(14.0, abs=1e-8)


def test_central_difference_beats_forward_difference_on_a_smooth_function():
    h = 1e-3
    forward_error = abs(forward_difference(math.sin, 1.0, h) - math.cos(1.0))
    central_error = abs(central_difference(math.sin, 1.0, h) - math.cos(1.0))
    # Taylor: forward error ~ h |sin''|/2 = h sin(1)/2, central ~ h^2 |sin'''|/6 = h^2 cos(1)/6
    assert forward_error == pytest.approx(h * math.sin(1.0) / 2, rel=0.01)
    assert central_error == pytest.approx(h**2 * math.cos(1.0) / 6, rel=0.01)
    assert central_error < forward_error / 100


@pytest.mark.parametrize("h", [0, -1e-3, math.nan, math.inf, "small"])
def test_a_bad_step_is_refused(h):
    with pytest.raises(ValueError, match="h must be"):
        central_difference(math.sin, 1.0, h=h)
    with pytest.raises(ValueError, match="h must be"):
        forward_difference(math.sin, 1.0, h=h)


def test_numerical_grad_of_a_function_of_two_values():
    # f = a b + b^3: df/da = b = -1, df/db = a + 3 b^2 = 2 + 3 = 5
    grads = numerical_grad(lambda a, b: a * b + b**3, [2.0, -1.0])
    assert grads == pytest.approx([-1.0, 5.0], abs=1e-8)


# --------------------------------------------------------------------- gradcheck on correct code


def test_gradcheck_passes_the_articles_neuron_with_the_articles_gradients():
    report = gradcheck(article.neuron_output, article.NEURON)
    assert report.passed and bool(report)
    assert [r.name for r in report.rows] == ["x1", "x2", "w1", "w2", "b"]
    # 1 - tanh^2 = 0.5: d/dx1 = w1/2, d/dx2 = w2/2, d/dw1 = x1/2, d/dw2 = x2/2, d/db = 1/2
    assert [r.analytic for r in report.rows] == pytest.approx([-1.5, 0.5, 1.0, 0.0, 0.5], abs=1e-12)
    assert report.output == pytest.approx(0.7071067811865476, abs=1e-12)


def test_gradcheck_passes_a_function_using_every_operation():
    def f(a, b, c):
        return a * b + (a / c).exp() - c.log() * b + a.sigmoid() + (b**2).relu() - 2**c + a**c

    report = gradcheck(f, [0.7, -1.3, 1.9])
    assert report.passed, str(report)
    assert [r.name for r in report.rows] == ["x0", "x1", "x2"]
    assert report.max_abs_error == max(r.abs_error for r in report.rows)
    assert report.max_rel_error == max(r.rel_error for r in report.rows)


def test_gradcheck_accepts_names_for_a_list():
    report = gradcheck(lambda a, b: a * b, [3.0, 4.0], names=["a", "b"])
    assert [(r.name, r.analytic) for r in report.rows] == [("a", 4.0), ("b", 3.0)]


def test_gradcheck_works_with_micrograd_values():
    require_module("micrograd")
    from micrograd.engine import Value as MicrogradValue

    report = gradcheck(lambda a, b: (a * b + a**3).relu(), [1.5, 2.0], value_class=MicrogradValue)
    assert report.passed
    assert [r.analytic for r in report.rows] == pytest.approx([2.0 + 3 * 1.5**2, 1.5])


# --------------------------------------------------------------------- gradcheck on broken code


class WrongTanh(Value):
    """The bug chapter 8 plants: tanh's backward uses 1 - t instead of 1 - t^2."""

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward():
            self.grad += (1.0 - out.data) * out.grad

        out._backward = _backward
        return out


def test_gradcheck_catches_a_wrong_derivative_and_names_the_input():
    # tanh is called on x itself, so the planted bug is on x's path only
    report = gradcheck(lambda x, y: x.tanh() * y, {"x": 0.5, "y": 2.0}, value_class=WrongTanh)
    assert not report.passed and not bool(report)
    assert [r.name for r in report.failures] == ["x"]
    x, y = report.rows
    t = math.tanh(0.5)
    assert x.analytic == pytest.approx(2.0 * (1 - t), abs=1e-12)
    assert x.numerical == pytest.approx(2.0 * (1 - t**2), abs=1e-8)
    assert x.abs_error == pytest.approx(2.0 * (t - t**2), abs=1e-8)
    assert y.passed and y.analytic == pytest.approx(t, abs=1e-12)
    assert report.max_abs_error == x.abs_error


class SlightlyOffMul(Value):
    """Multiplication whose gradient for the left factor is too large by one part in 10^4."""

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad * (1 + 1e-4)
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


@pytest.mark.parametrize(
    "atol, rtol, passes",
    [
        # d/da (a b) = b = 2, reported as 2.0002: abs error 2e-4, rel error about 1e-4
        (1e-6, 1e-5, False),  # 1e-6 + 2e-5 < 2e-4
        (0.0, 1e-3, True),  # 2e-3 >= 2e-4
        (3e-4, 0.0, True),
        (1e-4, 0.0, False),
        (1e-4, 0.6e-4, True),  # 1e-4 + 1.2e-4 >= 2e-4: the two tolerances add up
    ],
)
def test_tolerance_rule_is_atol_plus_rtol_times_numerical(atol, rtol, passes):
    report = gradcheck(
        lambda a, b: a * b, [3.0, 2.0], atol=atol, rtol=rtol, value_class=SlightlyOffMul
    )
    a = report.rows[0]
    assert a.abs_error == pytest.approx(2e-4, rel=1e-3)
    assert a.rel_error == pytest.approx(2e-4 / 2.0002, rel=1e-3)
    assert a.passed is passes
    assert report.rows[1].passed


# --------------------------------------------------------------------- the report


def test_report_prints_every_input_and_the_verdict():
    text = str(gradcheck(article.neuron_output, article.NEURON))
    lines = text.splitlines()
    assert len(lines) == 1 + len(article.NEURON) + 1  # header, one row per input, verdict
    for name, line in zip(article.NEURON, lines[1:-1]):
        assert line.startswith(name) and line.endswith("ok")
    assert lines[-1].startswith("PASSED")
    assert "1e-06 + 1e-05 * |numerical|" in lines[-1]  # the default tolerances, stated


def test_report_of_a_failure_marks_the_row_and_names_it_in_the_verdict():
    report = gradcheck(lambda x, y: x.tanh() * y, {"x": 0.5, "y": 2.0}, value_class=WrongTanh)
    lines = str(report).splitlines()
    x_line, y_line = lines[1], lines[2]
    assert x_line.startswith("x") and x_line.endswith("FAIL")
    assert y_line.startswith("y") and y_line.endswith("ok")
    assert lines[-1].startswith("FAILED") and lines[-1].endswith(": x")


def test_report_table_columns_line_up():
    text = str(gradcheck(lambda long_name, b: long_name * b, {"long_name": 1.0, "b": -250.5}))
    header, *rows = text.splitlines()[:-1]
    # numbers are right-aligned, so each row is as wide as the header plus its status "ok"
    assert [len(row) for row in rows] == [len(header) + len("  ok")] * 2
    assert header.index("analytic") + len("analytic") == rows[0].index("-250.5") + len("-250.5")


def test_report_html_is_a_table_with_failing_rows_marked():
    good = gradcheck(article.neuron_output, article.NEURON)._repr_html_()
    bad = gradcheck(
        lambda x, y: x.tanh() * y, {"x": 0.5, "y": 2.0}, value_class=WrongTanh
    )._repr_html_()
    assert good.startswith("<table") and good.count("<tr") == 1 + len(article.NEURON)
    assert "gradcheck-fail" not in good and "PASSED" in good
    assert bad.count("gradcheck-fail") == 1 and "FAILED" in bad


def test_report_html_escapes_names():
    html = gradcheck(lambda a: a * 2, {"<a>": 1.0})._repr_html_()
    assert "<a>" not in html and "&lt;a&gt;" in html


def test_report_is_a_gradcheck_report_with_a_short_repr():
    report = gradcheck(lambda a: a * a, [3.0])
    assert isinstance(report, GradcheckReport)
    assert repr(report).startswith("GradcheckReport(passed=True, inputs=1")


# --------------------------------------------------------------------- bad input


def test_a_function_that_returns_no_value_is_refused_saying_what_it_returned():
    with pytest.raises(TypeError, match="returned 6.0 of type float"):
        gradcheck(lambda a: a.data * 2, [3.0])
    with pytest.raises(TypeError, match="of type list"):
        numerical_grad(lambda a: [a], [3.0])


def test_names_and_inputs_must_agree():
    with pytest.raises(ValueError, match="2 inputs but 1 names"):
        gradcheck(lambda a, b: a * b, [1.0, 2.0], names=["a"])
    with pytest.raises(TypeError, match="not both"):
        gradcheck(lambda a: a, {"a": 1.0}, names=["b"])
    with pytest.raises(ValueError, match="at least one"):
        gradcheck(lambda: Value(1.0), [])


def test_inputs_must_be_numbers_and_tolerances_non_negative():
    with pytest.raises(TypeError, match="input a must be a number"):
        gradcheck(lambda a: a, {"a": "1"})
    with pytest.raises(ValueError, match="atol"):
        gradcheck(lambda a: a, [1.0], atol=-1)
    with pytest.raises(ValueError, match="rtol"):
        gradcheck(lambda a: a, [1.0], rtol=math.nan)


def test_a_step_that_leaves_the_functions_domain_says_so():
    # log is defined at x = 1e-7 but not at x - h: the error must blame the step, not f
    with pytest.raises(
        ValueError,
        match=r"the step h=1e-06 took x0 from 1e-07 to -9e-07 "
        r"\(x - h\), where f raised ValueError: log\(-9e-07\)"
        r".*smaller h",
    ):
        gradcheck(lambda x: x.log(), [1e-7])
    with pytest.raises(
        ValueError,
        match=r"took b from 5e-07 to -5e-07 \(x - h\).* 0\.5 is not a "
        r"real number.*smaller h",
    ):
        gradcheck(lambda a, b: a * b**0.5, {"a": 2.0, "b": 5e-7})
    with pytest.raises(
        ValueError,
        match=r"took x0 from 1 to 1\.000001 \(x \+ h\), where f gave "
        r"nan.*smaller h",
    ):
        numerical_grad(lambda x: x * (math.nan if x.data > 1 else 1.0), [1.0])
    assert gradcheck(lambda x: x.log(), [1e-7], h=1e-10)  # a smaller step stays inside
