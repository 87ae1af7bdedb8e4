"""ForwardExplorer (autograd/widgets/forward.py): chapter 02's graph to play with. A slider per
input; the graph is built again and drawn, the values the move changed highlighted.

Every expected number is worked out by hand in a comment."""

import pytest
import widgets_shared  # noqa: F401 (without ipywidgets, it skips these tests)

from autograd.stages import stage
from autograd.widgets import ForwardExplorer

Value = stage(2)  # chapter 02's class: a constructor and a repr, no operators yet


def build_L(a, b, c, f):
    e = Value(a.data * b.data, (a, b), "*", label="e")
    d = Value(e.data + c.data, (e, c), "+", label="d")
    return Value(d.data * f.data, (d, f), "*", label="L")


def chapter_two():
    return ForwardExplorer(build_L, {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}, value_class=Value)


def test_the_graph_of_L_holds_the_chapters_numbers():
    # e = 2·(−3) = −6, d = −6 + 10 = 4, L = 4·(−2) = −8
    assert chapter_two().data == {
        "a": 2.0,
        "b": -3.0,
        "e": -6.0,
        "c": 10.0,
        "d": 4.0,
        "f": -2.0,
        "L": -8.0,
    }


def test_moving_f_changes_only_L_since_d_was_complete_before_f_joined_in():
    ex = chapter_two()
    ex.set("f", 1.0)  # L = 4·1 = 4
    assert ex.changed == ["f", "L"] and ex.data["L"] == 4.0
    said = ex.describe()
    assert "moving f changed f, L" in said and "none of them was made from f" in said


def test_moving_a_changes_everything_made_from_a():
    ex = chapter_two()
    ex.set("a", 1.0)  # e = −3, d = 7, L = −14
    assert ex.changed == ["a", "e", "d", "L"]
    assert (ex.data["e"], ex.data["d"], ex.data["L"]) == (-3.0, 7.0, -14.0)


def test_the_drawing_shows_data_not_gradients_and_outlines_what_changed():
    ex = chapter_two()
    ex.set("c", 0.0)  # d = −6, L = 12
    source = ex.graph().source
    assert "data 12.0000" in source and "grad" not in source.replace("autograd", "")
    view = ex.widget()
    assert "<svg" in view.drawing.value and "moving c changed c, d, L" in view.summary.value


def test_the_sliders_have_names_and_move_the_model():
    ex = chapter_two()
    view = ex.widget()
    assert [s.description for s in view.sliders.values()] == ["a", "b", "c", "f"]
    view.sliders["b"].value = 1.0  # e = 2, d = 12, L = −24
    assert ex.data["L"] == -24.0 and ex.changed == ["b", "e", "d", "L"]


def test_bad_inputs_are_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="build must be a function"):
        ForwardExplorer(None, {"a": 1.0})
    with pytest.raises(TypeError, match="non-empty dict"):
        ForwardExplorer(build_L, {})
    with pytest.raises(ValueError, match="unknown input 'z'"):
        chapter_two().set("z", 1.0)


def test_an_input_no_value_was_made_from_changes_alone():
    ex = ForwardExplorer(
        lambda a, b: Value(a.data * 2, (a,), "*2", label="y"),
        {"a": 1.0, "b": 0.0},
        value_class=Value,
    )
    ex.set("b", 3.0)  # b is not in y's graph
    assert ex.changed == [] and "nothing in the graph changed" in ex.describe()
    ex.set("a", 2.0)
    assert ex.changed == ["a", "y"]
