"""Drawings in HTML (autograd/viz/html.py): several side by side, and one inline."""

import xml.etree.ElementTree as ET

import pytest
import viz_shared
from viz_shared import (
    PIXELS_PER_POINT,
    READABLE,
    SVG,
    Picture,
    chapter_3_L,
    doubled_and_tripled,
    hide_programs,
    neuron,
    smallest_text_at,
    svg_size,
)

from autograd import viz
from autograd.viz import (
    draw_dot,
    side_by_side,
)

# the fixtures that these tests share with the others of the package
program = viz_shared.program


# --------------------------------------------------------------------------- side by side


def figures_of(page):
    """[(caption or None, Picture)] for each drawing of a side_by_side page, left to right."""
    root = ET.fromstring(page)
    found = []
    for figure in root.iter("figure"):
        caption = figure.find("figcaption")
        svg = figure.find(f"{SVG}svg")
        found.append(
            (
                None if caption is None else caption.text,
                Picture(ET.tostring(svg, encoding="unicode")),
                svg,
            )
        )
    return found


def test_side_by_side_shows_each_drawing_under_its_title_left_to_right(program):
    y, z = doubled_and_tripled()
    row = side_by_side(draw_dot(y), draw_dot(z), titles=["x + x", "3 <times> x"])
    page = row._repr_mimebundle_()["text/html"]
    assert "<?xml" not in page and "DOCTYPE" not in page  # bare <svg> elements in HTML
    (first_title, first, _), (second_title, second, _) = figures_of(page)
    assert first_title == "x + x" and second_title == "3 <times> x"
    assert first.value("x")["texts"] == ["x", "data 3.0000", "grad 2.0000"]
    assert first.value("y")["texts"] == ["y", "data 6.0000", "grad 1.0000"]
    assert second.value("x")["texts"] == ["x", "data 3.0000", "grad 3.0000"]
    assert second.value("z")["texts"] == ["z", "data 9.0000", "grad 1.0000"]


def test_side_by_side_lets_every_drawing_shrink_with_the_row_as_far_as_its_text_allows(program):
    row = side_by_side(draw_dot(chapter_3_L()), draw_dot(neuron()["o"], rankdir="TB"))
    for caption, _, svg in figures_of(row.html()):
        assert caption is None  # no titles, no captions
        style = dict(part.split(":", 1) for part in svg.get("style").replace(" ", "").split(";"))
        natural = svg_size(ET.tostring(svg, encoding="unicode"))[0] * PIXELS_PER_POINT
        assert style["width"] == "100%" and style["height"] == "auto"
        assert float(style["max-width"].removesuffix("px")) == pytest.approx(natural, abs=0.1)
        narrowest = float(style["min-width"].removesuffix("px"))
        assert smallest_text_at(svg, narrowest) == pytest.approx(READABLE, abs=0.01)


def test_side_by_side_is_the_same_html_every_time(program):
    pages = [
        side_by_side(*map(draw_dot, doubled_and_tripled()), titles=["a", "b"]).html()
        for _ in range(2)
    ]
    assert pages[0] == pages[1]


@pytest.mark.parametrize(
    "arguments, titles, error, message",
    [
        ((), None, ValueError, "at least one drawing"),
        (("value",), None, TypeError, r"draw_dot\(value\)"),
        (("drawing", 4), None, TypeError, "4 of type int"),
        (("drawing", "drawing"), ["only one"], ValueError, "2 drawings, but 1 titles"),
        (("drawing",), "one", TypeError, "single string"),
        (("drawing",), [7], TypeError, "7"),
    ],
)
def test_side_by_side_refuses_what_it_cannot_show(arguments, titles, error, message):
    o = neuron()["o"]
    given = [{"value": o, "drawing": draw_dot(o)}.get(a, a) for a in arguments]
    with pytest.raises(error, match=message):
        side_by_side(*given, titles=titles)


def test_inline_svg_refuses_what_is_not_svg_text():
    with pytest.raises(TypeError, match="bytes"):
        viz.inline_svg(b"<svg></svg>")
    with pytest.raises(ValueError, match="no <svg>"):
        viz.inline_svg("digraph { a -> b }")


def test_side_by_side_without_a_layout_program_explains_and_shows_each_source(
    monkeypatch, tmp_path
):
    hide_programs(monkeypatch, tmp_path)
    y, z = doubled_and_tripled()
    first, second = draw_dot(y), draw_dot(z)
    bundle = side_by_side(first, second)._repr_mimebundle_()
    assert "pip install graphviz-pure" in bundle["text/plain"]
    assert first.source in bundle["text/plain"] and second.source in bundle["text/plain"]
