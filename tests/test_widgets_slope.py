"""SlopeExplorer (autograd/widgets/slope.py): chapter 00's warm-up to play with, the line
through two points, rise over run, and why y over x of one point is not the line's slope.

Every expected number is worked out by hand in a comment."""

import pytest
import widgets_shared  # noqa: F401 (without ipywidgets, it skips these tests)

from autograd.widgets import SlopeExplorer


def test_the_warm_up_line_has_slope_two_and_one_point_alone_says_otherwise():
    ex = SlopeExplorer((1, 3), (4, 9))
    # rise 9 - 3 = 6, run 4 - 1 = 3, slope 2; 9 / 4 = 2.25 is the line from (0, 0) to (4, 9)
    assert (ex.rise, ex.run, ex.slope, ex.one_point) == (6.0, 3.0, 2.0, 2.25)
    assert not ex.through_origin
    assert "2.25" in ex.describe() and "misses (0, 0)" in ex.describe()


def test_a_line_through_the_origin_has_the_slope_y_over_x():
    ex = SlopeExplorer((1, 3), (4, 9))
    ex.set("y1", 2.25)  # (1, 2.25) lies on y = 2.25 x, with (4, 9)
    assert ex.slope == ex.one_point == 2.25 and ex.through_origin
    assert "passes through (0, 0)" in ex.describe()


def test_a_vertical_line_has_no_slope_and_says_so():
    ex = SlopeExplorer((2, 1), (2, 5))
    assert ex.run == 0 and ex.slope is None
    assert "no slope" in ex.describe()
    ex.widget()  # the view draws it too, without a traceback
    assert "no slope" in ex.widget().status.value


def test_moving_a_slider_moves_the_point_and_the_view_follows_the_model():
    ex = SlopeExplorer()
    view = ex.widget()
    view.sliders["x2"].value = 7.0  # rise 6 over run 6: slope 1
    assert ex.points[1] == (7.0, 9.0) and ex.slope == 1.0
    assert "slope = rise / run = 1" in view.status.value
    ex.set("y2", 3.0)  # a cell moves the model: the slider follows
    assert view.sliders["y2"].value == 3.0 and ex.slope == 0.0


def test_every_control_has_a_name_and_the_plot_a_text_alternative():
    view = SlopeExplorer().widget()
    assert [s.description for s in view.sliders.values()] == ["x1", "y1", "x2", "y2"]
    assert view.plot.tooltip.startswith("Plot: slope = 6 / 3 = 2")
    assert len(view.plot.value) > 1000  # a picture was drawn


def test_bad_coordinates_are_refused_with_a_clear_message():
    ex = SlopeExplorer()
    with pytest.raises(ValueError, match="unknown coordinate 'z'"):
        ex.set("z", 1.0)
    with pytest.raises(TypeError, match="x1 must be an int or a float"):
        ex.set("x1", "3")
    with pytest.raises(ValueError, match="must be points"):
        SlopeExplorer((1, 2, 3), (4, 5))
