"""GraphExplorer (autograd/widgets/graph_explorer.py): sliders for the inputs of a function
of Values; every move reruns forward and backward.

Every expected number is worked out by hand in a comment, never copied from what the code
printed.
"""

import math

import pytest
from widgets_shared import B, approx, box_centre, drawn_svg, neuron_function

from autograd.widgets import (
    GraphExplorer,
)

# ---------------------------------------------------------------------------- GraphExplorer


def test_graph_explorer_output_and_gradients_match_hand_computation():
    # f = a*b + c at a=2, b=-3, c=10: f = 4, df/da = b = -3, df/db = a = 2, df/dc = 1
    ex = GraphExplorer(lambda a, b, c: a * b + c, {"a": 2.0, "b": -3.0, "c": 10.0})
    assert ex.output == 4.0
    assert ex.grads == {"a": -3.0, "b": 2.0, "c": 1.0}


def test_graph_explorer_on_the_article_neuron_gives_the_article_gradients():
    ex = GraphExplorer(neuron_function, {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": B})
    # o = tanh(atanh(1/sqrt 2)) = 1/sqrt 2; 1 - o^2 = 1/2; d/dx1 = w1/2, d/dw1 = x1/2, ...
    assert ex.output == approx(1 / math.sqrt(2))
    assert ex.grads == {
        "x1": approx(-1.5),
        "x2": approx(0.5),
        "w1": approx(1.0),
        "w2": approx(0.0),
        "b": approx(0.5),
    }


def test_changing_an_input_changes_output_gradients_and_drawing():
    ex = GraphExplorer(lambda a, b, c: a * b + c, {"a": 2.0, "b": -3.0, "c": 10.0})
    before = ex.graph().source
    ex.set("b", 1.0)
    # f = 2*1 + 10 = 12; df/da = b = 1, df/db = a = 2
    assert ex.values == {"a": 2.0, "b": 1.0, "c": 10.0}
    assert ex.output == 12.0
    assert ex.grads == {"a": 1.0, "b": 2.0, "c": 1.0}
    after = ex.graph().source
    assert after != before
    assert "data 12.0000" in after and "data 12.0000" not in before


def test_graph_explorer_shows_an_engine_error_instead_of_raising():
    ex = GraphExplorer(lambda x: x.log(), {"x": 1.0})
    ex.set("x", -1.0)  # log(-1) has no value
    assert ex.output is None and ex.grads == {"x": None}
    assert "log" in ex.error and "ValueError" in ex.error
    ex.set("x", math.e)  # and it recovers: log e = 1, d/dx = 1/e
    assert ex.error is None
    assert ex.output == approx(1.0) and ex.grads["x"] == approx(1 / math.e)


def test_graph_explorer_rejects_unknown_inputs_and_non_numbers():
    ex = GraphExplorer(lambda a: a * 2, {"a": 1.0})
    with pytest.raises(ValueError, match="unknown input 'z'"):
        ex.set("z", 1.0)
    with pytest.raises(TypeError, match="'a'"):
        ex.set("a", "3")
    with pytest.raises(TypeError, match="function"):
        GraphExplorer(3, {"a": 1.0})


def test_graph_explorer_view_slider_reruns_and_redraws():
    ex = GraphExplorer(lambda a, b, c: a * b + c, {"a": 2.0, "b": -3.0, "c": 10.0})
    view = ex.widget()
    drawing = view.drawing.value
    assert "<svg" in drawing and "4.0000" in drawing
    view.sliders["b"].value = 1.0  # what dragging the slider in the browser does
    assert ex.values["b"] == 1.0 and ex.output == 12.0
    assert "12.0000" in view.drawing.value and view.drawing.value != drawing
    assert "12.0000" in view.summary.value


def test_graph_explorer_view_shows_the_message_at_an_impossible_value():
    ex = GraphExplorer(lambda x: x.log(), {"x": 1.0})
    view = ex.widget()
    view.sliders["x"].value = -2.0
    assert "log" in view.summary.value and "explorer-error" in view.summary.value
    assert view.drawing.value == ""


def test_graph_explorer_draws_top_to_bottom_when_asked():
    across = GraphExplorer(lambda a: a * 2, {"a": 1.0}).widget()
    down = GraphExplorer(lambda a: a * 2, {"a": 1.0}, rankdir="TB").widget()
    (ax, ay), (ox, oy) = (box_centre(drawn_svg(across.drawing.value), n) for n in ("a", "out"))
    assert ox > ax and oy == pytest.approx(ay, abs=20)  # the output to the right of its input
    (ax, ay), (ox, oy) = (box_centre(drawn_svg(down.drawing.value), n) for n in ("a", "out"))
    assert oy > ay  # the output below its input (SVG y grows downwards)
    with pytest.raises(ValueError, match="rankdir"):
        GraphExplorer(lambda a: a * 2, {"a": 1.0}, rankdir="down")


def test_model_changed_from_code_updates_its_view_without_moving_it_beyond_range():
    ex = GraphExplorer(lambda a: a * 2, {"a": 1.0}, ranges={"a": (-1, 1)})
    view = ex.widget()
    ex.set("a", 0.5)
    assert view.sliders["a"].value == 0.5
    ex.set("a", 100.0)  # beyond the slider: the slider stays, the model keeps 100
    assert ex.values["a"] == 100.0 and ex.output == 200.0
    assert "200.0000" in view.summary.value


def test_explorer_displays_as_its_widget_with_a_readable_text_fallback():
    bundle = GraphExplorer(lambda a: a * 2, {"a": 1.0})._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "GraphExplorer(output=2.0000, inputs={'a': 1.0})"
