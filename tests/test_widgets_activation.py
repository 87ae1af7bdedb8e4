"""ActivationExplorer (autograd/widgets/activation.py): an activation and its slope, at any
point, on any engine.

Every expected number is worked out by hand, never copied from what the code printed.
"""

import math

import pytest
from widgets_shared import approx, is_png

from autograd import Value
from autograd.stages import stage
from autograd.widgets import (
    ActivationExplorer,
)

# ---------------------------------------------------------------------------- ActivationExplorer


@pytest.mark.parametrize(
    "name, x, value, slope",
    [
        ("tanh", 0.0, 0.0, 1.0),  # tanh' = 1 - tanh^2 = 1 at 0
        ("tanh", 3.0, math.tanh(3.0), 1 - math.tanh(3.0) ** 2),  # about 0.0099
        ("relu", 2.0, 2.0, 1.0),
        ("relu", 0.0, 0.0, 0.0),  # the engine's choice: slope 0 at the kink
        ("relu", -1.5, 0.0, 0.0),
        ("sigmoid", 0.0, 0.5, 0.25),  # sigma (1 - sigma) = 1/2 * 1/2
        ("exp", 1.0, math.e, math.e),
    ],
)
def test_activation_value_and_slope_by_hand(name, x, value, slope):
    ex = ActivationExplorer(name, x)
    assert ex.value == approx(value)
    assert ex.slope == approx(slope)
    assert ex.mismatch is None


def test_activation_explorer_moves_the_point_and_switches_function():
    ex = ActivationExplorer()
    ex.set_function("sigmoid")
    ex.set_point(0.0)
    assert (ex.function, ex.x, ex.value, ex.slope) == ("sigmoid", 0.0, 0.5, 0.25)
    with pytest.raises(ValueError, match="unknown function 'softplus'"):
        ex.set_function("softplus")


def test_activation_far_out_gives_a_message_not_an_exception():
    ex = ActivationExplorer("exp", 1000.0)  # e^1000 does not fit a float
    assert ex.value is None and ex.slope is None
    assert "OverflowError" in ex.error and "exp" in ex.error
    assert ex.figure() is not None
    ex.set_function("tanh")  # tanh is fine out there: 1, with slope 0
    assert ex.error is None and ex.value == 1.0 and ex.slope == 0.0
    ex.set_function("sigmoid")
    ex.set_point(-1000.0)
    assert ex.value == 0.0 and ex.slope == 0.0


def test_activation_explorer_catches_a_wrong_derivative_in_a_learners_class():
    class WrongTanh(Value):
        """The chapter-8 bug: 1 - tanh instead of 1 - tanh^2."""

        def tanh(self):
            t = math.tanh(self.data)
            out = Value(t, (self,), "tanh")

            def _backward():
                self.grad += (1 - t) * out.grad

            out._backward = _backward
            return out

    ex = ActivationExplorer("tanh", 0.5, value_class=WrongTanh)
    # 1 - tanh(0.5) = 0.5379 but 1 - tanh(0.5)^2 = 0.7864
    assert ex.mismatch is not None and "1 - tanh(x)^2" in ex.mismatch


def test_activation_view_controls_drive_the_model():
    ex = ActivationExplorer("tanh", 0.5)
    view = ex.widget()
    picture = view.plot.value
    view.menu.value = "relu"
    view.slider.value = 2.0
    assert (ex.function, ex.x, ex.slope) == ("relu", 2.0, 1.0)
    assert "relu(2) = 2.0000" in view.status.value
    assert view.plot.value != picture
    ex.set_function("exp")
    ex.set_point(800.0)  # beyond the slider, set from code: a message in the view
    assert "OverflowError" in view.status.value


@pytest.mark.parametrize(
    "name, x, value, slope",
    [
        ("tanh", 0.0, 0.0, 1.0),  # 1 - tanh(0)^2
        ("relu", 2.0, 2.0, 1.0),
        ("sigmoid", 0.0, 0.5, 0.25),  # sigma(0) (1 - sigma(0)) = 1/2 * 1/2
        ("exp", 0.0, 1.0, 1.0),  # e^0
    ],
)
def test_activation_explorer_runs_on_chapter_4s_class_which_has_no_backward(name, x, value, slope):
    # Chapter 4 shows the explorer before its learner has written backward() (chapter 5).
    Chapter4 = stage(4)
    ex = ActivationExplorer(name, x, value_class=Chapter4)
    assert (ex.value, ex.slope, ex.error, ex.mismatch) == (approx(value), approx(slope), None, None)
    view = ex.widget()
    assert list(view.menu.options) == ["tanh", "relu", "sigmoid", "exp"]
    view.slider.value = 1.0
    assert ex.x == 1.0 and ex.error is None and ex.mismatch is None


def test_activation_explorer_offers_only_the_activations_a_learners_class_has():
    Chapter4SoFar = stage(3)  # chapter 4 half done: tanh written, nothing else yet

    def tanh(self):
        t = math.tanh(self.data)
        out = Chapter4SoFar(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    Chapter4SoFar.tanh = tanh
    ex = ActivationExplorer("tanh", 0.0, value_class=Chapter4SoFar)
    assert ex.functions == ["tanh"] and ex.slope == 1.0
    assert list(ex.widget().menu.options) == ["tanh"]
    with pytest.raises(ValueError, match="has no method 'relu' yet; it has tanh"):
        ex.set_function("relu")
    with pytest.raises(ValueError, match="none of tanh, relu"):
        ActivationExplorer("tanh", value_class=stage(3))


def test_activation_explorer_refuses_a_method_that_returns_no_value():
    def sigmoid(self):  # a stub, as a notebook gives it
        ...  # the learner's stub, not yet written

    Stubbed = stage(4, sigmoid=sigmoid)
    ex = ActivationExplorer("tanh", 0.5, value_class=Stubbed)
    with pytest.raises(TypeError, match=r"sigmoid\(\) must return a Value, but it returned None"):
        ex.set_function("sigmoid")
    assert ex.function == "tanh"  # the explorer stays where it was
    view = ex.widget()
    view.menu.value = "sigmoid"  # the same from the menu: a message, and the menu goes back
    assert view.menu.value == "tanh" and ex.function == "tanh"
    assert "must return a Value" in view.status.value


@pytest.mark.parametrize(
    "name, x, value, slope",
    [
        ("tanh", math.inf, 1.0, 0.0),  # tanh tends to 1 and flattens out
        ("sigmoid", -1e308, 0.0, 0.0),
        ("relu", 1.7976931348623157e308, 1.7976931348623157e308, 1.0),  # the largest float
    ],
)
def test_activation_at_the_ends_of_the_floats_computes_and_plots(name, x, value, slope):
    ex = ActivationExplorer(name, x)
    assert (ex.value, ex.slope, ex.error, ex.mismatch) == (value, slope, None, None)
    fig = ex.figure()  # matplotlib refused (ValueError: arange) to centre a plot on 1e308
    assert is_png(fig._repr_png_())
    # Neighbouring floats out there are far apart: the plot keeps its window and says so.
    assert fig.axes[0].get_xlim()[0] > -6 and fig.axes[0].get_xlim()[1] < 6
    assert f"x = {x:g}" in fig._suptitle.get_text()


def test_activation_at_nan_is_no_mismatch_and_says_it_checks_nothing():
    ex = ActivationExplorer("tanh", math.nan)
    assert math.isnan(ex.value) and math.isnan(ex.slope) and math.isnan(ex.analytic_slope)
    assert ex.error is None and ex.mismatch is None  # nan vs nan: no disagreement...
    assert "nan" in ex.note and "checks nothing" in ex.note  # ...and no agreement either
    view = ex.widget()
    assert "checks nothing" in view.status.value and "but" not in view.status.value
    assert is_png(view.plot.value)
    assert not math.isnan(view.slider.value)  # the slider stays where it can be
    ex.set_point(0.5)
    assert ex.note is None and "checks nothing" not in view.status.value


def test_activation_at_nan_still_catches_a_slope_that_should_be_nan():
    class ZeroSlopeTanh(Value):
        """A _backward that passes nothing back: slope 0 even where the formula gives nan."""

        def tanh(self):
            return Value(math.tanh(self.data), (self,), "tanh")

    ex = ActivationExplorer("tanh", math.nan, value_class=ZeroSlopeTanh)
    assert ex.slope == 0.0 and math.isnan(ex.analytic_slope)
    assert ex.mismatch is not None and "= 0.0" in ex.mismatch


def test_activation_view_shows_messages_not_tracebacks_at_extreme_points():
    ex = ActivationExplorer("exp", 0.0)
    view = ex.widget()
    ex.set_point(1e308)  # exp(1e308) does not fit a float: the engine says so
    assert ex.value is None and "OverflowError" in view.status.value
    assert is_png(view.plot.value)
    ex.set_point(math.inf)  # a Value holding inf: exp(inf) = inf, which is no error
    assert ex.value == math.inf and ex.mismatch is None
    assert "not every number here is finite" in view.status.value
    assert is_png(view.plot.value)
    ex.set_point(-math.inf)
    assert (ex.value, ex.slope, ex.note) == (0.0, 0.0, None)


def test_activation_refuses_a_point_or_window_it_cannot_hold():
    ex = ActivationExplorer()
    with pytest.raises(ValueError, match="fit in a float"):
        ex.set_point(10**400)
    assert ex.x == 0.5  # unchanged
    for window in [(-math.inf, 0.0), (-1e308, 1e308), (1.0, 1.0 + 1e-14), (1.0, 1.0)]:
        with pytest.raises(ValueError, match="window"):
            ActivationExplorer(window=window)
