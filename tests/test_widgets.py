"""The explorers: models driven from code, views built and poked as a browser would poke them.

Every expected number is worked out by hand in a comment (or comes from a Taylor expansion),
never copied from what the code printed.
"""

import math
import re
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

import pytest

widgets = pytest.importorskip("ipywidgets")  # part of requirements.txt; a bare engine install lacks it

from autograd import Value, nn
from autograd.fast import Value as FastValue
from autograd.stages import stage
from autograd.widgets import (
    ActivationExplorer,
    BackwardStepper,
    CurvatureExplorer,
    FiniteDifferenceExplorer,
    GraphExplorer,
    TrainingDashboard,
)

B = 6.8813735870195432  # the article's bias: n = 2*(-3) + 0*1 + b = atanh(1/sqrt(2)), o = 0.7071


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


def neuron():
    """The article's neuron, every node labelled: o = tanh(x1*w1 + x2*w2 + b)."""
    v = {name: Value(x, label=name) for name, x in
         [("x1", 2.0), ("x2", 0.0), ("w1", -3.0), ("w2", 1.0), ("b", B)]}
    v["x1w1"] = v["x1"] * v["w1"]
    v["x2w2"] = v["x2"] * v["w2"]
    v["s"] = v["x1w1"] + v["x2w2"]
    v["n"] = v["s"] + v["b"]
    v["o"] = v["n"].tanh()
    for name, value in v.items():
        value.label = name
    return v


def diamond():
    """x -> s = 2x, used twice: directly and through p = s + 1; q = s * p = 4x^2 + 2x."""
    x = Value(3.0, label="x")
    s = x * 2
    s.label = "s"
    p = s + 1
    p.label = "p"
    q = s * p
    q.label = "q"
    return {"x": x, "s": s, "p": p, "q": q}


def grads(values):
    return {name: v.grad for name, v in values.items()}


def neuron_function(x1, x2, w1, w2, b):
    return (x1 * w1 + x2 * w2 + b).tanh()


SVG = "{http://www.w3.org/2000/svg}"


def drawn_svg(drawing_html):
    """The <svg> element a view's drawing shows."""
    return ET.fromstring(re.search(r"<svg.*</svg>", drawing_html, re.DOTALL).group(0))


def box_centre(svg, label):
    """(x, y) of the middle of the box whose first text is `label`, in SVG coordinates."""
    for group in svg.iter(f"{SVG}g"):
        texts = [t for t in group.iter(f"{SVG}text")]
        if "node" in group.get("class", "") and texts and texts[0].text == label:
            return float(texts[0].get("x")), float(texts[0].get("y"))
    raise AssertionError(f"no box labelled {label!r}")


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
    assert ex.grads == {"x1": approx(-1.5), "x2": approx(0.5), "w1": approx(1.0),
                        "w2": approx(0.0), "b": approx(0.5)}


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


# ---------------------------------------------------------------------------- BackwardStepper

# The neuron's graph, sorted depth-first from o with inputs in _prev order:
#   x1, w1, x1w1, x2, w2, x2w2, s, b, n, o
# so backward() runs the operations o, n, s, x2w2, x1w1. With 1 - o^2 = 1/2:
#   step 0  seed            o = 1
#   step 1  o = tanh(n)     n  += (1 - o^2) * 1        = 0.5
#   step 2  n = s + b       s  += 0.5,  b += 0.5
#   step 3  s = x1w1 + x2w2 x1w1 += 0.5, x2w2 += 0.5
#   step 4  x2w2 = x2 * w2  x2 += w2 * 0.5 = 0.5,  w2 += x2 * 0.5 = 0
#   step 5  x1w1 = x1 * w1  x1 += w1 * 0.5 = -1.5, w1 += x1 * 0.5 = 1
NEURON_STEPS = [
    {"o": 1.0},
    {"o": 1.0, "n": 0.5},
    {"o": 1.0, "n": 0.5, "s": 0.5, "b": 0.5},
    {"o": 1.0, "n": 0.5, "s": 0.5, "b": 0.5, "x1w1": 0.5, "x2w2": 0.5},
    {"o": 1.0, "n": 0.5, "s": 0.5, "b": 0.5, "x1w1": 0.5, "x2w2": 0.5, "x2": 0.5, "w2": 0.0},
    {"o": 1.0, "n": 0.5, "s": 0.5, "b": 0.5, "x1w1": 0.5, "x2w2": 0.5, "x2": 0.5, "w2": 0.0,
     "x1": -1.5, "w1": 1.0},
]


def expected(values, filled):
    """Every gradient: those filled in so far, 0 for the rest."""
    return {name: approx(filled.get(name, 0.0)) for name in values}


@pytest.mark.parametrize("k", range(len(NEURON_STEPS)))
def test_stepper_gradients_after_k_steps_match_hand_computation(k):
    v = neuron()
    stepper = BackwardStepper(v["o"])
    assert stepper.n_steps == 5
    for _ in range(k):
        stepper.next()
    assert stepper.position == k
    assert grads(v) == expected(v, NEURON_STEPS[k])


def test_stepper_fires_the_operations_in_backward_order():
    v = neuron()
    stepper = BackwardStepper(v["o"])
    fired = []
    while not stepper.done:
        stepper.next()
        fired.append(stepper.fired.label)
    assert fired == ["o", "n", "s", "x2w2", "x1w1"]


def test_stepper_last_step_equals_backward_on_a_fresh_copy():
    v = neuron()
    stepper = BackwardStepper(v["o"])
    stepper.go_to(stepper.n_steps)
    fresh = neuron()
    fresh["o"].backward()
    assert grads(v) == {name: approx(g) for name, g in grads(fresh).items()}
    assert stepper.wrong_grads() == []


def test_stepper_previous_replays_from_zero_instead_of_subtracting():
    v = neuron()
    stepper = BackwardStepper(v["o"])
    stepper.go_to(5)
    v["x1"].grad = 100.0  # someone scribbles on the graph; replaying ignores it
    stepper.previous()
    assert stepper.position == 4
    assert grads(v) == expected(v, NEURON_STEPS[4])
    stepper.previous()
    assert grads(v) == expected(v, NEURON_STEPS[3])


def test_stepper_reset_and_previous_at_zero_leave_only_the_seed():
    v = neuron()
    stepper = BackwardStepper(v["o"])
    stepper.go_to(3)
    stepper.reset()
    assert stepper.position == 0 and stepper.fired is None
    assert grads(v) == expected(v, NEURON_STEPS[0])
    stepper.previous()  # nothing before step 0
    assert stepper.position == 0
    stepper.go_to(5)
    stepper.next()  # nothing after the last step
    assert stepper.position == 5


def test_stepper_zeroes_gradients_left_over_from_earlier_backward_calls():
    v = neuron()
    v["o"].backward()
    v["o"].backward()  # leaves now hold twice their gradient
    BackwardStepper(v["o"])
    assert grads(v) == expected(v, NEURON_STEPS[0])


def test_stepper_go_to_rejects_steps_outside_the_schedule():
    stepper = BackwardStepper(neuron()["o"])
    with pytest.raises(ValueError, match="between 0 and 5"):
        stepper.go_to(6)
    with pytest.raises(TypeError):
        stepper.go_to(1.5)


# The diamond q = s * p, p = s + 1, s = 2x at x = 3 (s = 6, p = 7, q = 42):
#   step 1  q = s * p   s += p * 1 = 7,  p += s * 1 = 6
#   step 2  p = s + 1   s += 6  -> 13  (the shared node's second contribution)
#   step 3  s = x * 2   x += 2 * 13 = 26
# and indeed dq/dx = d(4x^2 + 2x)/dx = 8x + 2 = 26.
DIAMOND_STEPS = [
    {"q": 1.0},
    {"q": 1.0, "s": 7.0, "p": 6.0},
    {"q": 1.0, "s": 13.0, "p": 6.0},
    {"q": 1.0, "s": 13.0, "p": 6.0, "x": 26.0},
]


@pytest.mark.parametrize("k", range(len(DIAMOND_STEPS)))
def test_stepper_on_a_shared_node_accumulates_both_contributions(k):
    v = diamond()
    stepper = BackwardStepper(v["q"])
    stepper.go_to(k)
    assert grads(v) == expected(v, DIAMOND_STEPS[k])


def test_stepper_log_shows_the_second_contribution_to_a_shared_node():
    stepper = BackwardStepper(diamond()["q"])
    stepper.go_to(1)
    assert "s.grad: 0.0000 -> 7.0000 (contribution 1 of 2)" in "\n".join(stepper.log)
    stepper.go_to(2)
    log = "\n".join(stepper.log)
    assert "s.grad: 7.0000 -> 13.0000 (contribution 2 of 2, added with +=)" in log


def test_stepper_counts_a_value_used_twice_by_one_operation():
    x = Value(3.0, label="x")
    y = x * x  # dy/dx = 2x = 6: both uses pass 3 back in the same step
    y.label = "y"
    stepper = BackwardStepper(y)
    stepper.next()
    assert x.grad == 6.0
    assert "x.grad: 0.0000 -> 6.0000 (contributions 1-2 of 2)" in stepper.log[-1]


def test_forward_order_gives_wrong_gradients_on_the_diamond():
    v = diamond()
    stepper = BackwardStepper(v["q"], wrong_order=True)
    stepper.go_to(stepper.n_steps)
    # s and p fire while their gradient is still 0; only q's closure passes anything back
    assert grads(v) == expected(v, {"q": 1.0, "s": 7.0, "p": 6.0})
    wrong = {node.label: (now, right) for node, now, right in stepper.wrong_grads()
             if node.label}
    assert wrong == {"x": (0.0, 26.0), "s": (7.0, 13.0)}
    assert "fired having received 0 of its 2 contributions" in "\n".join(stepper.log)


def test_breadth_first_order_fires_the_shared_node_too_early():
    v = diamond()
    stepper = BackwardStepper(v["q"], wrong_order="breadth-first")
    stepper.go_to(stepper.n_steps)
    # q, then s (first reached, with p's contribution still missing): x += 2 * 7 = 14; then p
    assert [node.label for node in stepper.schedule] == ["q", "s", "p"]
    assert grads(v) == expected(v, {"q": 1.0, "s": 13.0, "p": 6.0, "x": 14.0})
    assert "s fired having received 1 of its 2 contributions" in "\n".join(stepper.log)


def test_wrong_order_leaves_a_leaf_diamond_at_zero():
    # The article's diamond: a feeds b and c, d = b * c. Right: dd/da = c + b = 2a = 4 at a = 2.
    a = Value(2.0, label="a")
    d = (a * 1.0) * (a + 0.0)
    right = BackwardStepper(d)
    right.go_to(right.n_steps)
    assert a.grad == 4.0
    wrong = BackwardStepper(d, wrong_order="forward")
    wrong.go_to(wrong.n_steps)
    assert a.grad == 0.0


def test_stepper_rejects_an_unknown_wrong_order():
    with pytest.raises(ValueError, match="wrong_order"):
        BackwardStepper(diamond()["q"], wrong_order="random")


def test_stepper_view_next_moves_the_highlight_and_fills_in_a_gradient():
    v = neuron()
    stepper = BackwardStepper(v["o"])
    view = stepper.widget()
    assert "highlighted" not in view.drawing.value  # step 0: nothing has fired
    assert view.previous_button.disabled and not view.next_button.disabled
    view.next_button.click()
    assert stepper.position == 1 and view.slider.value == 1
    first = view.drawing.value
    assert "highlighted" in first and "grad 0.5000" in first  # n received 1 - o^2
    view.next_button.click()
    second = view.drawing.value
    assert second != first and "o just fired" not in view.status.value
    assert "n just fired" in view.status.value
    view.slider.value = 5
    assert stepper.done and view.next_button.disabled
    assert "exactly the gradients backward() computes" in view.status.value
    view.reset_button.click()
    assert stepper.position == 0 and grads(v) == expected(v, NEURON_STEPS[0])


def test_stepper_view_on_a_graph_too_large_to_draw_shows_a_message():
    x = Value(1.0, label="x")
    y = x
    for _ in range(400):  # 801 values (a product and a constant each), over draw_dot's 300
        y = y * 1.0
    stepper = BackwardStepper(y)
    view = stepper.widget()
    assert "<svg" not in view.drawing.value and "max_nodes" in view.drawing.value
    stepper.go_to(stepper.n_steps)
    assert x.grad == 1.0  # the stepping itself does not depend on the drawing


def test_stepper_view_says_the_wrong_order_is_wrong():
    stepper = BackwardStepper(diamond()["q"], wrong_order=True)
    view = stepper.widget()
    view.slider.value = stepper.n_steps
    assert "WRONG ORDER" in view.status.value
    assert "x.grad = 0.0000, but backward() gives 26.0000" in view.status.value


def shown_text_at_narrowest(svg):
    """(natural, narrowest, smallest text there): a view's drawing's CSS widths in pixels, and
    the height in pixels of its smallest text when it is shrunk to the narrowest."""
    style = dict(part.split(":", 1) for part in svg.get("style").replace(" ", "").split(";"))
    natural, narrowest = (float(style[k].removesuffix("px")) for k in ("max-width", "min-width"))
    viewbox_width = float(svg.get("viewBox").split()[2])
    smallest = min(float(text.get("font-size")) for text in svg.iter(f"{SVG}text"))
    return natural, narrowest, smallest * narrowest / viewbox_width


def test_stepper_view_fits_the_neuron_top_to_bottom_into_a_laptops_notebook():
    # JupyterLab at 1300x900 with the file browser open: an output area 868 pixels wide.
    drawing = BackwardStepper(neuron()["o"], rankdir="TB").widget().drawing.value
    svg = drawn_svg(drawing)
    natural, narrowest, text = shown_text_at_narrowest(svg)
    assert natural == pytest.approx(float(svg.get("width").removesuffix("pt")) * 96 / 72, abs=0.1)
    assert narrowest <= 868 and text == pytest.approx(10, abs=0.01)  # shrinks, text still readable
    assert "width:100%" in svg.get("style")


def test_stepper_view_scrolls_the_wide_neuron_sideways_rather_than_shrink_its_text():
    drawing = BackwardStepper(neuron()["o"]).widget().drawing.value  # left to right: wide
    natural, narrowest, text = shown_text_at_narrowest(drawn_svg(drawing))
    assert natural > narrowest > 868 and text == pytest.approx(10, abs=0.01)
    box = drawing[:drawing.index("<svg")]
    assert "explorer-graph" in box and "overflow-x:auto" in box


def test_stepper_draws_top_to_bottom_when_asked():
    stepper = BackwardStepper(neuron()["o"], rankdir="TB")
    view = stepper.widget()
    view.next_button.click()
    svg = drawn_svg(view.drawing.value)
    assert box_centre(svg, "o")[1] > box_centre(svg, "n")[1] > box_centre(svg, "x1")[1]
    assert "highlighted" in view.drawing.value  # still the stepper's drawing: n just fired
    with pytest.raises(ValueError, match="rankdir"):
        BackwardStepper(neuron()["o"], rankdir=True)


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


# ---------------------------------------------------------------------------- TrainingDashboard


def small_dashboard(**options):
    settings = dict(n=20, hidden=(4,), batch_size=None, lr=0.1, seed=1)
    settings.update(options)
    return TrainingDashboard(**settings)


def test_dashboard_starts_with_the_untrained_models_loss():
    board = small_dashboard()
    # the same loss computed the slow way, through the engine's graph
    scores = [board.model(x) for x in board.X]
    loss = nn.hinge_loss(scores, board.y).data
    loss += 1e-4 * sum(p.data**2 for p in board.model.parameters())
    assert board.steps == 0 and board.losses == [approx(loss)]
    assert board.accuracy == nn.accuracy(scores, board.y)


def test_dashboard_steps_lower_the_loss():
    board = small_dashboard()
    board.run(10)
    assert board.steps == 10 and len(board.losses) == 11
    assert board.losses[-1] < board.losses[0]
    assert board.diverged is None


def test_dashboard_boundary_scores_match_the_model_through_the_engine():
    board = small_dashboard()
    board.run(3)
    xs, ys, scores = board.boundary(grid=5)
    assert len(xs) == len(ys) == 5 and all(len(row) == 5 for row in scores)
    for i in (0, 2, 4):
        for j in (0, 3):
            assert scores[i][j] == approx(board.model([xs[j], ys[i]]).data)


@pytest.mark.parametrize("nonlin", ["relu", "tanh", "sigmoid", "linear"])
def test_dashboard_scores_match_the_model_through_the_engine_for_every_nonlinearity(nonlin):
    # The dashboard scores the grid and the loss on plain floats; the model called through
    # the reference engine must give the same numbers, whatever its activation.
    board = small_dashboard(nonlin=nonlin, hidden=(3, 3), value_class=Value)
    board.run(2)
    xs, ys, scores = board.boundary(grid=4)
    for i in range(4):
        for j in range(4):
            assert scores[i][j] == approx(board.model([xs[j], ys[i]]).data)
    engine_scores = [board.model(x) for x in board.X]
    loss = nn.hinge_loss(engine_scores, board.y).data
    loss += 1e-4 * sum(p.data**2 for p in board.model.parameters())
    assert board.losses[-1] == approx(loss)


def test_dashboard_with_a_huge_learning_rate_reports_divergence():
    board = small_dashboard(lr=1e6)
    board.run(20)
    assert board.diverged is not None and "diverged" in board.diverged
    steps = board.steps
    assert steps < 20  # it stopped training once the loss blew up
    assert board.step() is None and board.steps == steps
    assert board.figure() is not None
    board.set_lr(0.1)
    board.reset()
    assert board.diverged is None and board.steps == 0


def test_dashboard_reset_starts_again_from_the_same_weights():
    board = small_dashboard()
    first = board.losses[0]
    board.run(3)
    board.reset()
    assert board.steps == 0 and board.losses == [first]


def test_dashboard_data_set_noise_and_width_rebuild_the_model():
    board = small_dashboard()
    board.run(2)
    board.set_dataset("circles")
    assert board.dataset == "circles" and board.steps == 0
    # circles: every clean point at radius 1 or 0.5, so with noise 0 that is all there is
    board.set_noise(0.0)
    radii = sorted({round(math.hypot(*p), 9) for p in board.X})
    assert radii == [0.5, 1.0]
    board.set_width(3)
    # one hidden layer of 3: 3 * (2 + 1) weights and biases, then 3 + 1 for the output
    assert board.hidden == (3,) and len(board.model.parameters()) == 9 + 4
    with pytest.raises(ValueError, match="unknown data set"):
        board.set_dataset("iris")


def test_dashboard_trains_on_the_fast_engine_unless_given_another():
    assert all(isinstance(p, FastValue) for p in small_dashboard().model.parameters())
    slow = small_dashboard(value_class=Value)
    assert all(type(p) is Value for p in slow.model.parameters())
    fast = small_dashboard(value_class=FastValue)
    slow.run(3)
    fast.run(3)
    assert fast.losses == [pytest.approx(loss, rel=1e-9) for loss in slow.losses]


def test_dashboard_can_train_on_a_compiled_step_with_the_reference_engines_numbers():
    compiled = small_dashboard(compiled=True, batch_size=6)
    assert compiled.compiled and all(type(p) is Value for p in compiled.model.parameters())
    slow = small_dashboard(value_class=Value, batch_size=6)
    compiled.run(5)
    slow.run(5)
    assert compiled.losses == slow.losses and compiled.accuracies == slow.accuracies
    compiled.set_width(3)  # a new model: traced again at the next step
    compiled.run(1)
    assert compiled.steps == 1 and len(compiled.model.parameters()) == 9 + 4
    with pytest.raises(ValueError, match="compiled=True takes loss='hinge' or 'mse'"):
        small_dashboard(compiled=True, loss="bce")


def test_dashboard_mini_batches_cover_every_point_once_per_pass():
    board = small_dashboard(batch_size=6)
    batches = [board._next_batch() for _ in range(3)]  # 18 of 20 points
    seen = [i for batch in batches for i in batch]
    assert all(len(b) == 6 for b in batches) and len(set(seen)) == 18


def test_dashboard_view_buttons_and_play_ticks_train():
    board = small_dashboard()
    view = board.widget()
    picture = view.plot.value
    view.step_button.click()
    assert board.steps == 1
    view.play.value = 1  # the Play widget's tick, as the browser sends it
    assert board.steps == 2
    assert "step 2" in view.status.value and view.plot.value != picture
    view.lr_slider.value = 0.5
    assert board.lr == pytest.approx(0.5) and board.steps == 2  # the model is kept
    view.dataset_menu.value = "xor"
    assert board.dataset == "xor" and board.steps == 0
    view.width_slider.value = 5
    assert board.hidden == (5,)
    view.noise_slider.value = 0.2
    assert board.noise == pytest.approx(0.2)


def test_dashboard_view_stops_playing_when_training_diverges():
    board = small_dashboard(lr=1e6)
    view = board.widget()
    view.play.playing = True
    board.run(20)
    assert board.diverged
    assert view.play.playing is False and view.step_button.disabled
    assert "diverged" in view.status.value


# ---------------------------------------------------------------------------- other engines


def test_stepper_and_activation_explorer_work_on_a_class_without_backward():
    # Chapter 5 shows the wrong order before the learner has written backward(): the
    # stepper only needs each node's _backward.
    from autograd.stages import stage

    ValueBefore5 = stage(4)
    assert not hasattr(ValueBefore5, "backward")
    x = ValueBefore5(3.0, label="x")
    s = x * 2
    q = s * (s + 1)
    stepper = BackwardStepper(q)
    stepper.go_to(stepper.n_steps)
    assert x.grad == 26.0  # 8x + 2, as on the package's Value
    ex = ActivationExplorer("tanh", 0.0, value_class=ValueBefore5)
    assert ex.slope == 1.0 and ex.mismatch is None


@pytest.mark.parametrize(
    "name, x, value, slope",
    [
        ("tanh", 0.0, 0.0, 1.0),  # 1 - tanh(0)^2
        ("relu", 2.0, 2.0, 1.0),
        ("sigmoid", 0.0, 0.5, 0.25),  # sigma(0) (1 - sigma(0)) = 1/2 * 1/2
        ("exp", 0.0, 1.0, 1.0),  # e^0
    ],
)
def test_activation_explorer_runs_on_chapter_4s_class_which_has_no_backward(name, x, value,
                                                                             slope):
    # Chapter 4 shows the explorer before its learner has written backward() (chapter 5).
    Chapter4 = stage(4)
    ex = ActivationExplorer(name, x, value_class=Chapter4)
    assert (ex.value, ex.slope, ex.error, ex.mismatch) == (approx(value), approx(slope), None,
                                                           None)
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
    def sigmoid(self):
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


def test_stepper_works_on_the_fast_engine():
    x = FastValue(3.0, label="x")
    s = x * 2
    q = s * (s + 1)
    breadth_first = BackwardStepper(q, wrong_order="breadth-first")
    breadth_first.go_to(breadth_first.n_steps)
    assert x.grad == 14.0  # s fired before p passed its 6: 2 * 7
    right = BackwardStepper(q)
    right.go_to(right.n_steps)
    assert x.grad == 26.0


def test_finite_difference_explains_when_f_cannot_take_a_value():
    with pytest.raises(TypeError, match="pass df"):
        FiniteDifferenceExplorer(math.sin, None, 1.0)


# ---------------------------------------------------------------------------- extreme input


def is_png(picture):
    return picture[:8] == b"\x89PNG\r\n\x1a\n"


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


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n": 1}, "from 2 to 1000"),
        ({"n": 10**6}, "from 2 to 1000"),
        ({"hidden": (0,)}, "width must be from 1 to 64"),
        ({"hidden": (65,)}, "width must be from 1 to 64"),
        ({"hidden": ()}, "from 1 to 4 hidden layers"),
        ({"hidden": (4,) * 5}, "from 1 to 4 hidden layers"),
        ({"lr": 0.0}, r"from 1e-06 to 1e\+06"),
        ({"lr": 1e7}, r"from 1e-06 to 1e\+06"),
        ({"lr": math.nan}, r"from 1e-06 to 1e\+06"),
        ({"noise": -0.1}, "noise must be a number from 0 to 1"),
        ({"noise": 1e300}, "noise must be a number from 0 to 1"),
        ({"alpha": math.inf}, "alpha .* from 0 to 1"),
        ({"batch_size": 0}, "batch_size .* from 1 to 1000"),
        # 1000 points through 2 -> 32 -> 32 -> 1 (1185 parameters) would take seconds a step
        ({"n": 1000, "batch_size": None, "hidden": (32, 32)}, "1,185,000 point-parameters"),
    ],
)
def test_dashboard_refuses_sizes_beyond_its_ranges_and_says_the_range(options, message):
    with pytest.raises(ValueError, match=message):
        small_dashboard(**options)


def test_dashboard_accepts_the_ends_of_its_ranges():
    board = small_dashboard(n=2, hidden=(64,) * 4, lr=1e-6, noise=1.0, alpha=1.0)
    assert board.hidden == (64, 64, 64, 64) and len(board.X) == 2
    assert board.run(0) == board.losses[0]


def test_dashboard_setters_refuse_out_of_range_values_and_keep_the_model():
    board = small_dashboard()
    model, losses = board.model, list(board.losses)
    for refused in (lambda: board.set_width(65), lambda: board.set_lr(1e7),
                    lambda: board.set_noise(2.0), lambda: board.run(10_001),
                    lambda: board.boundary(grid=201)):
        with pytest.raises(ValueError, match="must be"):
            refused()
    with pytest.raises(TypeError, match="whole number"):
        board.run(2.5)
    assert board.model is model and board.losses == losses
    assert (board.hidden, board.lr, board.noise) == ((4,), 0.1, 0.1)


def test_dashboard_controls_stay_within_the_models_ranges():
    board = small_dashboard(n=400, hidden=(8, 8))
    view = board.widget()
    lo, hi = board.LR_RANGE
    assert lo <= 10**view.lr_slider.min and 10**view.lr_slider.max <= hi
    assert board.NOISE_RANGE[0] <= view.noise_slider.min
    assert view.noise_slider.max <= board.NOISE_RANGE[1]
    assert board.WIDTH_RANGE[0] <= view.width_slider.min
    assert view.width_slider.max <= board.WIDTH_RANGE[1]
    view.lr_slider.value = 1e9  # typed into the readout: the slider keeps it in range
    assert board.lr <= hi
    # Width 32 on every one of 400 points: 400 * 1185 point-parameters is too much for one
    # step. The view says so, and the slider goes back to the model's width.
    view.width_slider.value = 32
    assert board.hidden == (8, 8) and view.width_slider.value == 8
    assert "point-parameters" in view.status.value


def test_dashboard_plot_survives_a_loss_near_the_float_limit_without_warnings():
    board = small_dashboard()
    board.losses += [1e300, 1.7e308]  # what steps of a diverging model can record
    board.steps = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "overflow encountered", in red, before
        assert is_png(board.figure()._repr_png_())


def test_an_explorer_whose_drawing_takes_too_long_shows_a_message(monkeypatch):
    from conftest import skip_or_fail

    from autograd import viz

    try:
        viz.layout_program()
    except viz.GraphvizNotFoundError:
        skip_or_fail("no Graphviz layout program (pip install graphviz-pure)")
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 0.001)
    view = GraphExplorer(neuron_function, {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0,
                                           "b": B}).widget()
    assert "took longer than 0.001 s" in view.drawing.value
    assert "<svg" not in view.drawing.value


# ---------------------------------------------------------------------------- the package


def test_autograd_widgets_keeps_every_name_it_has_always_offered():
    # `autograd.widgets` was one module; it is a package now, one module per explorer. What
    # notebooks and learners import from it must not have moved.
    import autograd.widgets as package

    assert package.__all__ == [
        "GraphExplorer",
        "BackwardStepper",
        "FiniteDifferenceExplorer",
        "ActivationExplorer",
        "TrainingDashboard",
        "CurvatureExplorer",
        "ENGINE_ERRORS",
    ]
    assert package.ENGINE_ERRORS == (ValueError, OverflowError, ZeroDivisionError)
    for name in package.__all__:
        assert getattr(package, name) is not None, name
    # the views and the tables a notebook may reach for, public names too
    for name in ["GraphExplorerView", "BackwardStepperView", "FiniteDifferenceView",
                 "ActivationView", "TrainingDashboardView", "CurvatureView", "WRONG_ORDERS",
                 "ACTIVATIONS"]:
        assert hasattr(package, name), name
    assert GraphExplorer is package.GraphExplorer
    assert isinstance(GraphExplorer(lambda a: a * a, {"a": 3.0}).widget(),
                      package.GraphExplorerView)
    assert set(package.WRONG_ORDERS) == {"forward", "breadth-first"}
    assert set(package.ACTIVATIONS) == {"tanh", "relu", "sigmoid", "exp"}


def test_the_explorers_import_matplotlib_only_with_their_first_plot():
    """The backward stepper and the graph explorer draw graphs, not plots: they work offline in
    the browser, where matplotlib would come from the network."""
    code = ("import sys; from autograd.widgets import BackwardStepper, GraphExplorer; "
            "from autograd import Value; from autograd.article import neuron; "
            "stepper = BackwardStepper(neuron(Value)['o']); stepper.go_to(3); stepper.graph(); "
            "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


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
        approx(t), approx(1 - t * t), approx(-2 * t * (1 - t * t)))
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


# ---------------------------------------------------------------------------- names for every control


def controls(widget):
    """Every widget inside `widget` (itself included), depth first."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from controls(child)


def accessible_name(control):
    """The name a screen reader reads for an ipywidgets control, as ipywidgets 8 draws it: a
    button's text (its description) or its title (tooltip); a slider's description label; each
    of ToggleButtons' options as its own button's text; an Image's title (its tooltip)."""
    if isinstance(control, (widgets.Button, widgets.ToggleButton)):
        return control.description or control.tooltip
    if isinstance(control, widgets.ToggleButtons):
        return all(str(label).strip() for label in control.options) and "options"
    if isinstance(control, widgets.Image):
        return control.tooltip
    return control.description


def every_explorer():
    x1, w1 = Value(2.0, label="x1"), Value(-3.0, label="w1")
    out = x1 * w1
    out.label = "out"
    return {
        "graph explorer": GraphExplorer(lambda a, b: a * b, {"a": 2.0, "b": -3.0}),
        "stepper": BackwardStepper(out),
        "activation": ActivationExplorer("tanh", 0.5),
        "finite differences": FiniteDifferenceExplorer(math.sin, math.cos, 1.0),
        "curvature": CurvatureExplorer(lambda x: x * x * x, 1.0),
        "dashboard": small_dashboard(),
    }


INTERACTIVE = (widgets.Button, widgets.ToggleButton, widgets.ToggleButtons, widgets.Image,
               widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider, widgets.Play)


def test_every_control_of_every_explorer_has_a_name():
    for name, explorer in every_explorer().items():
        for control in controls(explorer.widget()):
            if not isinstance(control, INTERACTIVE):
                continue
            if isinstance(control, widgets.Play):  # its buttons are bare icons: never shown
                assert control.layout.display == "none", name
                continue
            assert accessible_name(control), (name, type(control).__name__)


def test_the_dashboard_plays_and_pauses_with_a_named_button():
    board = small_dashboard()
    view = board.widget()
    assert (view.play_button.description, view.play_button.icon) == ("Play", "play")
    view.play.playing = True  # as the browser sets it when the button is pressed
    assert (view.play_button.description, view.play_button.icon) == ("Pause", "pause")
    assert view.play_button.value is True
    view.play.playing = False
    assert view.play_button.description == "Play" and view.play_button.value is False
    # the button and the hidden Play widget are linked in the browser, both ways
    link = view._play_link
    assert (link.source, link.target) == ((view.play_button, "value"), (view.play, "playing"))


def test_a_plot_says_in_words_what_its_panels_show():
    board = small_dashboard()
    view = board.widget()
    fig = board.figure()
    titles = [ax.get_title() for ax in fig.get_axes() if ax.get_title()]
    assert len(titles) == 2 and all(title in view.plot.tooltip for title in titles)
    assert "training step against" in view.plot.tooltip
    # ipywidgets 8's view sets the title from the tooltip only after reading the description,
    # and fails to draw a widget whose state has none: the plot's state must carry one
    state = view.plot.get_state()
    assert state["tooltip"] == view.plot.tooltip and state["description"] == ""
    view.step_button.click()  # the words follow the picture
    assert "Loss after 1 step" in view.plot.tooltip
    explorer = CurvatureExplorer(lambda x: x * x * x, 1.0)
    assert explorer.widget().plot.tooltip.startswith("Plot: ")
    assert "its tangent and its parabola" in explorer.widget().plot.tooltip


# ---------------------------------------------------------------- sliders with names


def test_every_view_is_shown_with_the_script_that_names_its_sliders(monkeypatch):
    """ipywidgets leaves a slider's handle without a name; the script shown before each view
    gives it the slider's description (tests/test_accessibility.py sees it work in the
    browser). The explorers, their views, and chapter 00's widget test all bring it."""
    import IPython.display

    from autograd._slider_names import NAME_SLIDERS
    from autograd.environment import widget_test

    shown = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda bundle, raw=False: shown.append((bundle, raw)))
    explorer = GraphExplorer(lambda a, b: a * b, {"a": 2.0, "b": -3.0})
    for thing in (explorer, explorer.widget(), BackwardStepper(neuron()["o"]), widget_test()):
        shown.clear()
        thing._ipython_display_()
        assert [raw for _, raw in shown] == [True, True]
        assert shown[0][0] == {"text/html": NAME_SLIDERS}
        assert "application/vnd.jupyter.widget-view+json" in shown[1][0]
    assert "aria-label" in NAME_SLIDERS and ".widget-label" in NAME_SLIDERS
