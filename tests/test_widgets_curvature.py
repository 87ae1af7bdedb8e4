"""CurvatureExplorer (autograd/widgets/curvature.py): the first and second derivative, the
tangent, the parabola and Newton's step.
"""

import math

import pytest
from widgets_shared import approx

from autograd.widgets import (
    CurvatureExplorer,
)

# ----------------------------------------------------------------------------- CurvatureExplorer


def double_well(w):
    """w^4 - 2w^2 + w/2: f' = 4w^3 - 4w + 1/2, f'' = 12w^2 - 4, negative for |w| < 1/sqrt(3)."""
    return w**4 - 2 * w**2 + 0.5 * w


def test_curvature_explorer_gives_the_first_and_second_derivative():
    # x^3 - 2x at 1.5: f = 3.375 - 3 = 0.375, f' = 3 * 2.25 - 2 = 4.75, f'' = 6 * 1.5 = 9
    ex = CurvatureExplorer(lambda x: x**3 - 2 * x, 1.5)
    assert ex.derivatives() == (approx(0.375), approx(4.75), approx(9.0))
    # tanh at 0.8: f' = 1 - t^2, f'' = -2t(1 - t^2), with t = tanh 0.8
    t = math.tanh(0.8)
    assert CurvatureExplorer(lambda x: x.tanh(), 0.8).derivatives() == (
        approx(t),
        approx(1 - t * t),
        approx(-2 * t * (1 - t * t)),
    )
    # a function that does not depend on x: both derivatives are 0, not an error
    assert CurvatureExplorer(lambda x: x**0 * 3.0, 1.0).derivatives()[1:] == (0.0, 0.0)


def test_the_parabola_touches_f_to_second_order_and_the_tangent_to_first():
    ex = CurvatureExplorer(double_well, 0.3)
    fx = double_well(0.3)
    assert ex.tangent(0.3) == approx(fx) and ex.parabola(0.3) == approx(fx)
    # Taylor: f - tangent ~ f'' h^2 / 2 (halving h quarters it); f - parabola ~ f''' h^3 / 6
    # (halving h divides it by 8). f''' = 24x = 7.2 at 0.3, f'' = 12 * 0.09 - 4 = -2.92.
    h = 1e-3
    gap_line = [double_well(0.3 + d) - ex.tangent(0.3 + d) for d in (h, h / 2)]
    gap_parabola = [double_well(0.3 + d) - ex.parabola(0.3 + d) for d in (h, h / 2)]
    assert gap_line[0] == pytest.approx(-2.92 * h**2 / 2, rel=0.01)
    assert gap_line[0] / gap_line[1] == pytest.approx(4, rel=0.01)
    assert gap_parabola[0] == pytest.approx(7.2 * h**3 / 6, rel=0.01)
    assert gap_parabola[0] / gap_parabola[1] == pytest.approx(8, rel=0.01)


def test_newton_steps_go_to_the_vertex_and_reach_the_minimum():
    ex = CurvatureExplorer(double_well, 1.4)
    # x - f'/f'' = 1.4 - (4 * 2.744 - 5.6 + 0.5) / (12 * 1.96 - 4) = 1.4 - 5.876 / 19.52
    assert ex.newton_target() == approx(1.4 - 5.876 / 19.52)
    seen = []
    ex.observe(lambda model: seen.append(model.x))
    for _ in range(6):
        ex.newton()
    assert seen[0] == approx(1.4 - 5.876 / 19.52) and len(seen) == 6
    # the right-hand minimum, where f' = 4x^3 - 4x + 1/2 = 0 and f'' > 0
    _, d1, d2 = ex.derivatives()
    assert abs(d1) < 1e-12 and d2 > 0 and 0.9 < ex.x < 1.0


def test_where_f_bends_down_newton_goes_uphill_and_the_view_says_so():
    ex = CurvatureExplorer(double_well, 0.3, x_range=(-1.6, 1.6))
    view = ex.widget()
    assert "f'' < 0" in view.status.value and "uphill" in view.status.value
    before = double_well(0.3)
    view.newton_button.click()
    assert double_well(ex.x) > before  # the step went up: to the top of a downward parabola
    view.slider.value = 1.2
    assert ex.x == 1.2 and "f'' > 0" in view.status.value and "bottom" in view.status.value


def test_at_an_inflection_point_newton_has_no_step_and_the_button_says_why():
    ex = CurvatureExplorer(lambda x: x**3, 0.0)  # f'' = 6x = 0 at 0
    assert ex.newton_target() is None
    with pytest.raises(ValueError, match=r"f''\(0\) is 0: the parabola is a straight line"):
        ex.newton()
    view = ex.widget()
    assert "has nowhere to go" in view.status.value
    view.newton_button.click()
    assert "straight line" in view.message.value and ex.x == 0.0


def test_curvature_view_follows_the_model_and_redraws():
    ex = CurvatureExplorer(double_well, 0.3, x_range=(-1.6, 1.6))
    view = ex.widget()
    picture = view.plot.value
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"
    ex.set_x(-1.0)
    assert view.slider.value == -1.0 and "At x = -1" in view.status.value
    assert view.plot.value != picture
    ex.set_x(5.0)  # beyond the slider: the model takes it, the slider stays where it was
    assert ex.x == 5.0 and view.slider.value == -1.0 and "At x = 5" in view.status.value


def test_the_plot_shows_f_the_tangent_the_parabola_and_the_vertex():
    ex = CurvatureExplorer(double_well, 1.4, x_range=(-1.6, 1.6))
    ax = ex.figure().axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "f = double_well" in labels
    assert any(label.startswith("tangent") for label in labels)
    assert any(label.startswith("parabola") for label in labels)
    vertex = next(line for line in ax.get_lines() if "Newton's next x" in line.get_label())
    target = 1.4 - 5.876 / 19.52
    assert vertex.get_xdata()[0] == approx(target)
    # the vertex lies on the parabola: f(x) - f'^2 / (2 f'')
    assert vertex.get_ydata()[0] == approx(ex.parabola(target))
    # the axes are f's, with a margin: the parabola's arms do not stretch them
    fs = [double_well(-1.6 + 3.2 * i / 300) for i in range(301)]
    low, high = ax.get_ylim()
    assert min(fs) > low > min(fs) - 0.2 * (max(fs) - min(fs))
    assert max(fs) < high < max(fs) + 0.2 * (max(fs) - min(fs))


def test_where_f_cannot_be_evaluated_the_view_says_so_and_still_draws():
    ex = CurvatureExplorer(lambda x: x.log(), 1.0, x_range=(-1.0, 3.0))
    view = ex.widget()
    view.slider.value = -0.5
    assert "f cannot be evaluated at x = -0.5" in view.status.value
    assert view.plot.value[:8] == b"\x89PNG\r\n\x1a\n"  # the curve, with a gap below 0
    view.newton_button.click()
    assert "log" in view.message.value and ex.x == -0.5


def test_curvature_explorer_rejects_what_it_cannot_use():
    with pytest.raises(TypeError, match="f must be a function of one Value"):
        CurvatureExplorer(3.0)
    with pytest.raises(TypeError, match=r"f must work on a Value .* f\(Value\(0\)\) failed"):
        CurvatureExplorer(math.sin)
    with pytest.raises(TypeError, match=r"must return a Value built from its argument"):
        CurvatureExplorer(lambda x: 2.0)
    with pytest.raises(ValueError, match="the lower first"):
        CurvatureExplorer(double_well, x_range=(1.0, -1.0))
    with pytest.raises(TypeError, match="x_range must be a pair"):
        CurvatureExplorer(double_well, x_range=3.0)
    with pytest.raises(TypeError, match="x must be an int or a float"):
        CurvatureExplorer(double_well, "0.5")
    with pytest.raises(ValueError, match="cannot be evaluated anywhere"):
        CurvatureExplorer(lambda x: (x - 10).log(), 0.0)
