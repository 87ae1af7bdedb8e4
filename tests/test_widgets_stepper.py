"""BackwardStepper (autograd/widgets/stepper.py): backward() one closure at a time, in the
right order and in wrong ones.

Every expected number is worked out by hand in a comment, never copied from what the code
printed.
"""

import pytest
from widgets_shared import SVG, approx, box_centre, drawn_svg, neuron

from autograd import Value
from autograd.fast import Value as FastValue
from autograd.widgets import (
    BackwardStepper,
)


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
    {
        "o": 1.0,
        "n": 0.5,
        "s": 0.5,
        "b": 0.5,
        "x1w1": 0.5,
        "x2w2": 0.5,
        "x2": 0.5,
        "w2": 0.0,
        "x1": -1.5,
        "w1": 1.0,
    },
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
    wrong = {node.label: (now, right) for node, now, right in stepper.wrong_grads() if node.label}
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
    box = drawing[: drawing.index("<svg")]
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
