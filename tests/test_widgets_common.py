"""What every explorer shares (autograd/widgets/_common.py): views shown with named
controls, plots in words, drawings and plots that end in a message rather than a traceback,
classes without backward(), matplotlib imported with the first plot.
"""

import math
import subprocess
import sys

from widgets_shared import B, neuron, neuron_function, small_dashboard, widgets

from autograd import Value
from autograd.widgets import (
    ActivationExplorer,
    BackwardStepper,
    CurvatureExplorer,
    FiniteDifferenceExplorer,
    GraphExplorer,
)

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


def test_an_explorer_whose_drawing_takes_too_long_shows_a_message(monkeypatch):
    from conftest import skip_or_fail

    from autograd import viz

    try:
        viz.layout_program()
    except viz.GraphvizNotFoundError:
        skip_or_fail("no Graphviz layout program (pip install graphviz-pure)")
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 0.001)
    view = GraphExplorer(
        neuron_function, {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": B}
    ).widget()
    assert "took longer than 0.001 s" in view.drawing.value
    assert "<svg" not in view.drawing.value


def test_the_explorers_import_matplotlib_only_with_their_first_plot():
    """The backward stepper and the graph explorer draw graphs, not plots: they work offline in
    the browser, where matplotlib would come from the network."""
    code = (
        "import sys; from autograd.widgets import BackwardStepper, GraphExplorer; "
        "from autograd import Value; from autograd.article import neuron; "
        "stepper = BackwardStepper(neuron(Value)['o']); stepper.go_to(3); stepper.graph(); "
        "print('matplotlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


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


INTERACTIVE = (
    widgets.Button,
    widgets.ToggleButton,
    widgets.ToggleButtons,
    widgets.Image,
    widgets.IntSlider,
    widgets.FloatSlider,
    widgets.FloatLogSlider,
    widgets.Play,
)


def test_every_control_of_every_explorer_has_a_name():
    for name, explorer in every_explorer().items():
        for control in controls(explorer.widget()):
            if not isinstance(control, INTERACTIVE):
                continue
            if isinstance(control, widgets.Play):  # its buttons are bare icons: never shown
                assert control.layout.display == "none", name
                continue
            assert accessible_name(control), (name, type(control).__name__)


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
    monkeypatch.setattr(
        IPython.display, "display", lambda bundle, raw=False: shown.append((bundle, raw))
    )
    explorer = GraphExplorer(lambda a, b: a * b, {"a": 2.0, "b": -3.0})
    for thing in (explorer, explorer.widget(), BackwardStepper(neuron()["o"]), widget_test()):
        shown.clear()
        thing._ipython_display_()
        assert [raw for _, raw in shown] == [True, True]
        assert shown[0][0] == {"text/html": NAME_SLIDERS}
        assert "application/vnd.jupyter.widget-view+json" in shown[1][0]
    assert "aria-label" in NAME_SLIDERS and ".widget-label" in NAME_SLIDERS
