"""A drawing on screen (autograd/viz/screen.py): it shrinks to its output area only as far as
its text stays readable, and scrolls sideways beyond that.
"""

import xml.etree.ElementTree as ET

import pytest
import viz_shared
from conftest import require_module
from viz_shared import (
    PIXELS_PER_POINT,
    READABLE,
    chapter_3_L,
    doubled_and_tripled,
    long_chain,
    neuron,
    render,
    smallest_text_at,
    svg_size,
)

from autograd import Value
from autograd.viz import (
    draw_dot,
    side_by_side,
)

# the fixtures that these tests share with the others of the package
program = viz_shared.program


# What a notebook shows: the SVG inside HTML, whose box fits the output area. In JupyterLab
# at 1300x900 with the file browser open the output area is 868 pixels wide; a phone's page
# gives about 350. Read back from the HTML's own numbers here, and measured in Chromium below.
LAPTOP_AREA = 868  # pixels
PHONE_AREA = 350  # pixels
LAYOUT_ROUNDING = 0.05  # pixels: a browser lays boxes out in fractions of a pixel


def shown_svg(html):
    """The <svg> element of a drawing's HTML, and its CSS as a dict."""
    start = html.index("<svg")
    root = ET.fromstring(html[start : html.rindex("</svg>") + len("</svg>")])
    style = dict(part.split(":", 1) for part in root.get("style").replace(" ", "").split(";"))
    return root, style


def test_a_notebook_shows_a_drawing_as_html_no_wider_than_itself_that_shrinks_with_the_area(
    program,
):
    for root in (chapter_3_L(), neuron()["o"]):
        graph = draw_dot(root)
        html = graph._repr_mimebundle_()["text/html"]
        svg, style = shown_svg(html)
        natural = svg_size(render(graph))[0] * PIXELS_PER_POINT
        assert style["width"] == "100%" and style["height"] == "auto"  # the box's width
        assert float(style["max-width"].removesuffix("px")) == pytest.approx(natural, abs=0.1)
        assert svg.get("viewBox") is not None  # proportions and every label kept
        assert "data " in html and "<?xml" not in html


def test_a_drawing_shrinks_no_further_than_its_text_stays_readable(program):
    x = Value(3.0, label="x")
    small = x * x
    cases = [
        (chapter_3_L(), {}),
        (neuron()["o"], {"rankdir": "TB", "color_grads": True}),
        (neuron()["o"], {"max_width": 9.5}),
        (small, {}),
    ]
    for root, options in cases:
        svg, style = shown_svg(draw_dot(root, **options)._repr_mimebundle_()["text/html"])
        natural = float(style["max-width"].removesuffix("px"))
        narrowest = float(style["min-width"].removesuffix("px"))
        if smallest_text_at(svg, natural) <= READABLE:
            assert narrowest == natural  # already as small as it may be: never shrunk
        else:
            assert smallest_text_at(svg, narrowest) == pytest.approx(READABLE, abs=0.01)


def test_chapter_3s_L_graph_and_the_neuron_top_to_bottom_fit_a_laptops_notebook(program):
    for root, options in ((chapter_3_L(), {}), (neuron()["o"], {"rankdir": "TB"})):
        svg, style = shown_svg(draw_dot(root, **options)._repr_mimebundle_()["text/html"])
        natural = float(style["max-width"].removesuffix("px"))
        assert float(style["min-width"].removesuffix("px")) <= LAPTOP_AREA
        assert smallest_text_at(svg, min(natural, LAPTOP_AREA)) >= READABLE


def test_a_long_chain_left_to_right_scrolls_sideways_rather_than_shrink_its_text(program):
    html = draw_dot(long_chain(20))._repr_mimebundle_()["text/html"]
    svg, style = shown_svg(html)
    narrowest = float(style["min-width"].removesuffix("px"))
    assert narrowest > LAPTOP_AREA
    assert smallest_text_at(svg, narrowest) >= READABLE - 0.01
    box = html[: html.index("<svg")]
    assert "overflow-x:auto" in box and "max-width:100%" in box


def test_in_chromium_a_drawing_fits_a_laptops_output_area_and_scrolls_on_a_phone(program):
    """The HTML in a real browser: at 868 pixels, the drawing (natural width above that) is no
    wider than the area and its text is readable; at 350, its text stays readable and its own
    box scrolls sideways, while the page around it does not."""
    require_module("playwright")
    from conftest import CHROMIUM_ARGS, chromium
    from playwright.sync_api import sync_playwright

    graph = draw_dot(neuron()["o"], rankdir="TB", color_grads=True)
    html = graph._repr_mimebundle_()["text/html"]
    row = side_by_side(*map(draw_dot, doubled_and_tripled()), titles=["x + x", "3 * x"])
    measure = """(area) => {
        const box = area.getBoundingClientRect();
        const drawings = [...area.querySelectorAll('svg')].map(svg => {
            const sizes = [...svg.querySelectorAll('text')].map(text =>
                parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a);
            const shown = svg.getBoundingClientRect();
            return {left: shown.left - box.left, right: shown.right - box.left,
                    top: shown.top - box.top, width: shown.width, smallest: Math.min(...sizes)};
        });
        const scrollers = [...area.querySelectorAll('div')]
            .filter(div => div.scrollWidth > div.clientWidth + 1).length;
        return {drawings, scrollers, areaScrolls: area.scrollWidth > area.clientWidth + 1,
                pageScrolls: document.documentElement.scrollWidth > window.innerWidth};
    }"""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            results = {}
            for width in (LAPTOP_AREA, PHONE_AREA):
                page.set_viewport_size({"width": width + 40, "height": 800})
                page.set_content(
                    f'<body style="margin:20px"><div id="one" style="width:{width}px">'
                    f'{html}</div><div id="row" style="width:{width}px">'
                    f"{row.html()}</div></body>"
                )
                results[width] = {
                    name: page.eval_on_selector(f"#{name}", measure) for name in ("one", "row")
                }
        finally:
            browser.close()
    natural = svg_size(render(graph))[0] * PIXELS_PER_POINT
    assert natural > LAPTOP_AREA  # so that fitting it means shrinking it
    laptop, phone = results[LAPTOP_AREA], results[PHONE_AREA]
    (one,) = laptop["one"]["drawings"]
    assert one["right"] <= LAPTOP_AREA + 0.5 and one["width"] == pytest.approx(LAPTOP_AREA, abs=1)
    assert one["smallest"] >= READABLE - LAYOUT_ROUNDING and laptop["one"]["scrollers"] == 0
    first, second = laptop["row"]["drawings"]  # side by side, shrunk, both within the area
    assert first["top"] == second["top"] and second["right"] <= LAPTOP_AREA + 0.5
    natural_first = svg_size(render(draw_dot(doubled_and_tripled()[0])))[0] * PIXELS_PER_POINT
    assert first["width"] < natural_first - 50
    assert min(first["smallest"], second["smallest"]) >= READABLE - LAYOUT_ROUNDING
    assert laptop["row"]["scrollers"] == 0
    (one,) = phone["one"]["drawings"]
    assert one["smallest"] >= READABLE - LAYOUT_ROUNDING and one["width"] > PHONE_AREA
    assert phone["one"]["scrollers"] == 1 and not phone["one"]["areaScrolls"]
    first, second = phone["row"]["drawings"]  # one under the other, text still readable
    assert second["top"] > first["top"]
    assert min(first["smallest"], second["smallest"]) >= READABLE - LAYOUT_ROUNDING
    assert not phone["one"]["pageScrolls"] and not phone["row"]["areaScrolls"]
