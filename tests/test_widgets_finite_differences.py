"""FiniteDifferenceExplorer (autograd/widgets/finite_differences.py): the error of finite
differences against the step h.

Every expected number comes from a Taylor expansion, never from what the code printed.
"""

import math

import pytest
import widgets_shared  # noqa: F401 (without ipywidgets, it skips these tests)

from autograd.widgets import (
    FiniteDifferenceExplorer,
)

# ------------------------------------------------------------------- FiniteDifferenceExplorer


def sin_explorer(h=1e-4):
    return FiniteDifferenceExplorer(math.sin, math.cos, 1.0, h=h)


def test_errors_follow_the_taylor_truncation_terms_at_moderate_h():
    # Taylor: forward error ~ h |f''(x)| / 2, central error ~ h^2 |f'''(x)| / 6; for sin at 1,
    # f'' = -sin 1 and f''' = -cos 1. At h = 1e-3 round-off (~1e-13) is negligible.
    h = 1e-3
    forward, central = sin_explorer().errors(h)
    assert forward == pytest.approx(h * math.sin(1) / 2, rel=0.01)
    assert central == pytest.approx(h**2 * math.cos(1) / 6, rel=0.01)


def test_error_slopes_are_one_and_two_for_truncation():
    ex = sin_explorer()
    (f1, c1), (f2, c2) = ex.errors(1e-2), ex.errors(1e-3)
    assert f1 / f2 == pytest.approx(10, rel=0.05)  # slope 1: ten times smaller h, ten times
    assert c1 / c2 == pytest.approx(100, rel=0.05)  # slope 2: a hundred times


def test_round_off_makes_tiny_h_worse_than_a_moderate_one():
    ex = sin_explorer()
    # at h = 1e-12 round-off is ~ eps / h ~ 1e-4; at h = 1e-5 the central error is ~ 1e-11
    assert ex.errors(1e-12)[1] > 1000 * ex.errors(1e-5)[1]
    assert ex.errors(1e-12)[0] > 10 * ex.errors(1e-8)[0]


def test_best_h_sits_at_the_bottom_of_the_v():
    ex = sin_explorer()
    # theory: forward ~ sqrt(eps) ~ 1e-8; central ~ eps^(1/3) ~ 1e-5 (within a few decades)
    assert 1e-10 <= ex.best_h("forward") <= 1e-6
    assert 1e-7 <= ex.best_h("central") <= 1e-3


def test_finite_difference_model_survives_the_ends_of_its_range():
    ex = sin_explorer()
    for h in (1e-12, 1.0):
        ex.set_h(h)
        assert all(math.isfinite(e) for e in ex.errors(h))
        assert ex.figure() is not None
    # at h = 1: forward error |sin 2 - sin 1 - cos 1| = 0.4725 (sin 2 = 0.9093, sin 1 = 0.8415,
    # cos 1 = 0.5403)
    assert ex.errors(1.0)[0] == pytest.approx(0.4725, abs=1e-4)


def test_finite_difference_rejects_a_step_that_is_not_positive():
    ex = sin_explorer()
    with pytest.raises(ValueError, match="positive"):
        ex.errors(0.0)
    with pytest.raises(ValueError, match="positive"):
        ex.set_h(-1e-3)
    with pytest.raises(TypeError):
        ex.errors("small")


def test_exact_derivative_can_come_from_the_engine():
    # f(x) = 3x^2 - 4x + 5, f'(3) = 6*3 - 4 = 14 (chapter 1's example)
    ex = FiniteDifferenceExplorer(lambda x: 3 * x**2 - 4 * x + 5, None, 3.0)
    assert ex.exact == 14.0


def test_finite_difference_view_reports_f_failing_instead_of_raising():
    # log at 0.5 with h = 1: x - h = -0.5 is outside log's domain
    ex = FiniteDifferenceExplorer(math.log, lambda x: 1 / x, 0.5, h=0.01)
    view = ex.widget()
    view.slider.value = 1.0
    assert ex.h == 1.0
    assert "cannot be evaluated" in view.status.value
    forward, central = ex.curve([0.01, 1.0])
    assert forward[1] is None and central[1] is None and forward[0] is not None


def test_finite_difference_view_slider_moves_h_and_redraws():
    ex = sin_explorer()
    view = ex.widget()
    picture = view.plot.value
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"
    view.slider.value = 1e-8
    assert ex.h == pytest.approx(1e-8)
    assert "h = 1.0e-08" in view.status.value
    assert view.plot.value != picture


def test_finite_difference_explains_when_f_cannot_take_a_value():
    with pytest.raises(TypeError, match="pass df"):
        FiniteDifferenceExplorer(math.sin, None, 1.0)
