"""Drawing graphs: what a learner sees in the picture, and that a picture appears at all.

The expected numbers are worked out by hand from the article's neuron, and the pictures are
read back from the SVG that the layout program produced, so these tests check what is drawn,
not what the code meant to draw.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import require_module, skip_or_fail

from autograd import Value
from autograd import viz
from autograd.viz import (
    GraphvizNotFoundError,
    backward_order,
    draw_dot,
    layout_program,
    save,
    side_by_side,
    trace,
)

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
POINTS_PER_INCH = 72  # SVG sizes from Graphviz are in points
PIXELS_PER_POINT = 96 / 72  # how a browser shows a point on screen (CSS units)


# --------------------------------------------------------------------------- helpers


def neuron():
    """The article's neuron, after o.backward(): a dict from label to Value."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    s = x1w1 + x2w2
    s.label = "x1*w1 + x2*w2"
    n = s + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    o.backward()
    return {v.label: v for v in (x1, x2, w1, w2, b, x1w1, x2w2, s, n, o)}


# By hand: n = 2*(-3) + 0*1 + 6.8813735870195432 = 0.8813735870195432 = asinh(1), so
# o = tanh(asinh(1)) = 1/sqrt(2) = 0.7071 and do/dn = 1 - o**2 = 0.5. A sum passes its
# gradient through unchanged (0.5 to b, to the sum, to both products); a product a*b gives
# a the gradient b * upstream: dx1 = w1 * 0.5 = -1.5, dw1 = x1 * 0.5 = 1.0,
# dx2 = w2 * 0.5 = 0.5, dw2 = x2 * 0.5 = 0.0.
NEURON = {  # label: (data, grad) as the drawing prints them, four decimals
    "x1": ("2.0000", "-1.5000"),
    "x2": ("0.0000", "0.5000"),
    "w1": ("-3.0000", "1.0000"),
    "w2": ("1.0000", "0.0000"),
    "b": ("6.8814", "0.5000"),
    "x1*w1": ("-6.0000", "0.5000"),
    "x2*w2": ("0.0000", "0.5000"),
    "x1*w1 + x2*w2": ("-6.0000", "0.5000"),
    "n": ("0.8814", "0.5000"),
    "o": ("0.7071", "1.0000"),
}
# backward() sorts depth-first from o, visiting inputs in the order they were given:
# x1, w1, x1*w1, x2, w2, x2*w2, sum, b, n, o; then runs that list backwards.
NEURON_BACKWARD = ["o", "n", "b", "x1*w1 + x2*w2", "x2*w2", "w2", "x2", "x1*w1", "w1", "x1"]


@pytest.fixture
def program():
    """Skip (fail in CI) when no layout program is installed, as on a bare learner machine."""
    try:
        return layout_program()
    except GraphvizNotFoundError:
        skip_or_fail("no Graphviz layout program (pip install graphviz-pure)")


@pytest.fixture
def graphviz_pure():
    """The real graphviz-pure command, wherever it is installed."""
    for folder in [None, *viz.layout._script_dirs()]:
        found = shutil.which("graphviz-pure", path=folder)
        if found:
            return Path(found)
    skip_or_fail("graphviz-pure is not installed (pip install graphviz-pure)")


def render(graph):
    return graph.pipe(format="svg", encoding="utf-8")


class Picture:
    """What an SVG drawing shows: its boxes, its ovals and its arrows."""

    def __init__(self, svg):
        self.svg = svg
        root = ET.fromstring(svg)
        self.values, self.ops, self.edges = [], [], []
        for group in root.iter(f"{SVG}g"):
            classes = group.get("class", "").split()
            title = group.findtext(f"{SVG}title")
            texts = [t.text or "" for t in group.iter(f"{SVG}text")]
            if "edge" in classes:
                self.edges.append(title)
            elif "node" in classes:
                node = {"name": title, "texts": texts, "classes": classes, "group": group}
                # A record box is drawn as a polygon, an operation as an ellipse.
                is_op = group.find(f"{SVG}ellipse") is not None
                (self.ops if is_op else self.values).append(node)
        self.all_text = [t.text or "" for t in root.iter(f"{SVG}text")]

    def value(self, label):
        matches = [node for node in self.values if label in node["texts"]]
        assert len(matches) == 1, f"expected one box labelled {label!r}, found {len(matches)}"
        return matches[0]


def chapter_3_L():
    """Chapter 3's L = (a*b + c) * f at a=2, b=-3, c=10, f=-2, after backward()."""
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c, f = Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    L.backward()
    return L


def svg_size(svg):
    """(width, height) of a drawing in points, as its <svg> element states them."""
    root = ET.fromstring(svg)
    return tuple(float(root.get(side).removesuffix("pt")) for side in ("width", "height"))


def shape_of(node):
    return node["group"].find(f"{SVG}polygon")


def hide_programs(monkeypatch, tmp_path, *, path_entries=(), script_dirs=()):
    """Let PATH hold only `path_entries` (name -> program), and the folders beside Python only
    `script_dirs` (None: leave that lookup as it is)."""
    bin_dir = tmp_path / "path-bin"
    bin_dir.mkdir()
    for name, target in dict(path_entries).items():
        link(target, bin_dir / name)
    monkeypatch.setenv("PATH", str(bin_dir))
    if script_dirs is not None:
        monkeypatch.setattr(viz.layout, "_script_dirs", lambda: [str(d) for d in script_dirs])
    return bin_dir


def link(target, where):
    try:
        where.symlink_to(target)
    except OSError:  # no symlinks (Windows without the privilege): a copy runs the same
        shutil.copy2(target, where)


# --------------------------------------------------------------------------- the neuron


def test_neuron_drawing_shows_every_value_with_its_data_and_grad(program):
    picture = Picture(render(draw_dot(neuron()["o"])))
    for label, (data, grad) in NEURON.items():
        assert picture.value(label)["texts"] == [label, f"data {data}", f"grad {grad}"]


def test_neuron_drawing_has_one_box_per_value_one_oval_per_operation_and_every_arrow(program):
    picture = Picture(render(draw_dot(neuron()["o"])))
    assert len(picture.values) == 10  # 5 inputs, 2 products, 2 sums, tanh's output
    assert sorted(op["texts"][0] for op in picture.ops) == ["*", "*", "+", "+", "tanh"]
    # Each operation: one arrow per input (2+2+2+2+1) and one to its output (5).
    assert len(picture.edges) == 14


def test_neuron_arrows_run_from_inputs_through_the_operation_to_the_output(program):
    picture = Picture(render(draw_dot(neuron()["o"])))
    name = {label: picture.value(label)["name"] for label in NEURON}
    tanh = next(op["name"] for op in picture.ops if op["texts"] == ["tanh"])
    assert f"{name['n']}->{tanh}" in picture.edges
    assert f"{tanh}->{name['o']}" in picture.edges


def test_trace_lists_values_inputs_first_and_one_edge_per_use():
    values, edges = trace(neuron()["o"])
    assert [v.label for v in values] == NEURON_BACKWARD[::-1]
    assert len(edges) == 9  # every input of every operation, without the operations
    assert all(values.index(a) < values.index(b) for a, b in edges)


# --------------------------------------------------------------------------- same picture every run


def test_two_renders_of_one_graph_are_identical(program):
    o = neuron()["o"]
    assert render(draw_dot(o)) == render(draw_dot(o))


def test_a_freshly_built_identical_graph_gives_the_identical_picture(program):
    assert render(draw_dot(neuron()["o"])) == render(draw_dot(neuron()["o"]))


def test_another_python_process_draws_the_same_dot_text():
    # A new process has new object addresses and a new hash seed; names must not depend on them.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import test_viz; "
        "from autograd.viz import draw_dot; print(draw_dot(test_viz.neuron()['o']).source)"
    )
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run(
        [sys.executable, "-c", code, str(here)], capture_output=True, text=True, env=env, check=True
    )
    assert other.stdout == draw_dot(neuron()["o"]).source + "\n"


# --------------------------------------------------------------------------- a reused value


def test_reused_value_is_drawn_once_with_an_arrow_per_use(program):
    x = Value(3.0, label="x")
    y = x * x
    y.label = "y"
    y.backward()
    picture = Picture(render(draw_dot(y)))
    assert len(picture.values) == 2 and len(picture.ops) == 1
    assert picture.value("x")["texts"] == ["x", "data 3.0000", "grad 6.0000"]  # d(x*x)/dx = 2x
    x_name, op_name = picture.value("x")["name"], picture.ops[0]["name"]
    assert picture.edges.count(f"{x_name}->{op_name}") == 2
    assert len(picture.edges) == 3


def test_trace_gives_a_reused_value_an_edge_per_use():
    x = Value(3.0)
    y = x * x
    values, edges = trace(y)
    assert values == [x, y]
    assert edges == [(x, y), (x, y)]


# --------------------------------------------------------------------------- options


def test_show_grad_false_leaves_out_every_gradient(program):
    picture = Picture(render(draw_dot(neuron()["o"], show_grad=False)))
    assert not [text for text in picture.all_text if "grad" in text]
    assert picture.value("o")["texts"] == ["o", "data 0.7071"]


def test_show_order_numbers_each_value_by_its_turn_in_backward(program):
    picture = Picture(render(draw_dot(neuron()["o"], show_order=True)))
    for position, label in enumerate(NEURON_BACKWARD, start=1):
        assert picture.value(label)["texts"][0] == f"#{position}"
    assert any("#1 is the output" in text for text in picture.all_text)


def test_highlight_gives_only_the_chosen_value_a_thick_marked_border(program):
    values = neuron()
    plain = render(draw_dot(values["o"]))
    marked = render(draw_dot(values["o"], highlight=[values["n"]]))
    assert marked != plain
    picture = Picture(marked)
    n = picture.value("n")
    assert "highlighted" in n["classes"]
    others = [node for node in picture.values if node is not n]
    assert not any("highlighted" in node["classes"] for node in others)
    width = float(shape_of(n).get("stroke-width", "1"))
    assert all(width > float(shape_of(node).get("stroke-width", "1")) for node in others)


def test_highlight_accepts_a_single_value(program):
    values = neuron()
    picture = Picture(render(draw_dot(values["o"], highlight=values["b"])))
    assert "highlighted" in picture.value("b")["classes"]


def test_name_of_gives_the_node_name_the_svg_uses(program):
    values = neuron()
    graph = draw_dot(values["o"])
    picture = Picture(render(graph))
    for label in ("x1", "b", "o"):
        assert graph.name_of(values[label]) == picture.value(label)["name"]
    with pytest.raises(ValueError):
        graph.name_of(Value(1.0))


def rgb(colour):
    named = {"white": "#ffffff", "black": "#000000"}
    colour = named.get(colour, colour)
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def contrast(a, b):
    """WCAG contrast ratio between two sRGB colours."""

    def luminance(c):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_color_grads_fills_by_sign_and_size_with_readable_text_and_a_legend(program):
    values = neuron()
    picture = Picture(render(draw_dot(values["o"], color_grads=True)))
    fill = {label: rgb(shape_of(picture.value(label)).get("fill")) for label in NEURON}
    # Zero gradient: no colour. Negative (x1) and positive (the rest) in two different hues.
    assert fill["w2"] == (255, 255, 255)
    red, _, blue = fill["x1"]
    assert red > blue
    for label in ("w1", "o", "n", "b", "x2"):
        r, _, b = fill[label]
        assert b > r, label
    # Larger |grad| means a deeper colour: |-1.5| > 1.0 > 0.5.
    darkness = {label: 3 * 255 - sum(colour) for label, colour in fill.items()}
    assert darkness["x1"] > darkness["w1"] > darkness["n"] > darkness["w2"] == 0
    assert darkness["o"] == darkness["w1"] and darkness["n"] == darkness["b"]
    legend = " ".join(picture.all_text)
    assert "negative" in legend and "positive" in legend and "1.5000" in legend


def test_color_grads_text_is_readable_on_every_fill_even_the_deepest(program):
    p, q = Value(1.0, label="p"), Value(-1.0, label="q")
    r = p * q
    r.label = "r"
    r.backward()  # dr/dp = q = -1 and dr/dq = p = 1: both signs at full depth
    pictures = [Picture(render(draw_dot(root, color_grads=True))) for root in (r, neuron()["o"])]
    for picture in pictures:
        for node in picture.values:
            fill = rgb(shape_of(node).get("fill"))
            text = node["group"].find(f"{SVG}text").get("fill", "black")
            # WCAG AA for normal text: a contrast of at least 4.5.
            assert contrast(rgb(text), fill) >= 4.5, node["texts"]


# --------------------------------------------------------------------------- fitting the notebook


def test_a_drawing_wider_than_max_width_shrinks_to_it_keeping_proportions_and_text(program):
    o = neuron()["o"]
    natural = svg_size(render(draw_dot(o)))  # by default, the natural size
    assert natural == svg_size(render(draw_dot(o, max_width=None)))
    assert natural[0] > 9.5 * POINTS_PER_INCH  # the neuron left to right: about 17 inches
    fitted_svg = render(draw_dot(o, max_width=9.5))
    fitted = svg_size(fitted_svg)
    assert fitted[0] == pytest.approx(9.5 * POINTS_PER_INCH, abs=1)
    assert fitted[1] / fitted[0] == pytest.approx(natural[1] / natural[0], rel=0.02)
    assert Picture(fitted_svg).value("o")["texts"] == ["o", "data 0.7071", "grad 1.0000"]


def test_max_width_is_in_inches(program):
    width, _ = svg_size(render(draw_dot(neuron()["o"], max_width=5)))
    assert width == pytest.approx(5 * POINTS_PER_INCH, abs=1)


def test_a_drawing_narrower_than_max_width_keeps_its_natural_size(program):
    x = Value(3.0, label="x")
    y = x * x
    natural = svg_size(render(draw_dot(y, max_width=None)))
    assert natural[0] < 7 * POINTS_PER_INCH
    assert svg_size(render(draw_dot(y, max_width=9.5))) == natural  # never scaled up
    assert svg_size(render(draw_dot(y, max_width=7))) == natural


# What a notebook shows: the SVG inside HTML, whose box fits the output area. In JupyterLab
# at 1300x900 with the file browser open the output area is 868 pixels wide; a phone's page
# gives about 350. Read back from the HTML's own numbers here, and measured in Chromium below.
LAPTOP_AREA = 868  # pixels
PHONE_AREA = 350  # pixels
READABLE = 10  # pixels: the smallest text a learner reads with ease
LAYOUT_ROUNDING = 0.05  # pixels: a browser lays boxes out in fractions of a pixel


def shown_svg(html):
    """The <svg> element of a drawing's HTML, and its CSS as a dict."""
    start = html.index("<svg")
    root = ET.fromstring(html[start:html.rindex("</svg>") + len("</svg>")])
    style = dict(part.split(":", 1) for part in root.get("style").replace(" ", "").split(";"))
    return root, style


def smallest_text_at(root, width):
    """The height in pixels of the smallest text of drawing `root` shown `width` pixels wide."""
    viewbox_width = float(root.get("viewBox").split()[2])
    scale = 1.0
    for group in root.iter(f"{SVG}g"):
        if "graph" in group.get("class", "").split() and group.get("transform"):
            scale = float(group.get("transform").split("scale(")[1].split()[0])
            break
    sizes = [float(text.get("font-size")) for text in root.iter(f"{SVG}text")]
    return min(sizes) * scale * width / viewbox_width


def test_a_notebook_shows_a_drawing_as_html_no_wider_than_itself_that_shrinks_with_the_area(
        program):
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
    cases = [(chapter_3_L(), {}), (neuron()["o"], {"rankdir": "TB", "color_grads": True}),
             (neuron()["o"], {"max_width": 9.5}), (small, {})]
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
    box = html[:html.index("<svg")]
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
                page.set_content(f'<body style="margin:20px"><div id="one" style="width:{width}px">'
                                 f'{html}</div><div id="row" style="width:{width}px">'
                                 f'{row.html()}</div></body>')
                results[width] = {name: page.eval_on_selector(f"#{name}", measure)
                                  for name in ("one", "row")}
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


def test_graphviz_pure_shrinks_a_wide_drawing_too_and_the_same_every_time(
        monkeypatch, tmp_path, graphviz_pure):
    hide_programs(monkeypatch, tmp_path, path_entries={"graphviz-pure": graphviz_pure})
    assert layout_program().name == "graphviz-pure"
    first = render(draw_dot(neuron()["o"], color_grads=True, max_width=9.5))
    assert "graphviz-pure" in first
    assert svg_size(first)[0] == pytest.approx(9.5 * POINTS_PER_INCH, abs=1)
    assert render(draw_dot(neuron()["o"], color_grads=True, max_width=9.5)) == first


@pytest.mark.parametrize(
    "max_width, error, message",
    [
        (0, ValueError, "from 1 to 100 inches"),
        (-3, ValueError, "from 1 to 100 inches"),
        (float("nan"), ValueError, "nan"),
        (float("inf"), ValueError, "inf"),
        (912, ValueError, "not pixels: 912 pixels would be max_width=9.5"),
        ("9.5", TypeError, "'9.5' of type str"),
        (True, TypeError, "True of type bool"),
    ],
)
def test_a_max_width_that_is_not_a_sensible_number_of_inches_is_refused(max_width, error,
                                                                        message):
    with pytest.raises(error, match=message):
        draw_dot(neuron()["o"], max_width=max_width)


# --------------------------------------------------------------------------- side by side


def figures_of(page):
    """[(caption or None, Picture)] for each drawing of a side_by_side page, left to right."""
    root = ET.fromstring(page)
    found = []
    for figure in root.iter("figure"):
        caption = figure.find("figcaption")
        svg = figure.find(f"{SVG}svg")
        found.append((None if caption is None else caption.text,
                      Picture(ET.tostring(svg, encoding="unicode")), svg))
    return found


def doubled_and_tripled():
    """x + x and 3 * x at x = 3, after backward(): dx is 2 for the first, 3 for the second."""
    x = Value(3.0, label="x")
    y = x + x
    y.label = "y"
    y.backward()
    u = Value(3.0, label="x")
    z = 3 * u
    z.label = "z"
    z.backward()
    return y, z


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
        style = dict(part.split(":", 1)
                     for part in svg.get("style").replace(" ", "").split(";"))
        natural = svg_size(ET.tostring(svg, encoding="unicode"))[0] * PIXELS_PER_POINT
        assert style["width"] == "100%" and style["height"] == "auto"
        assert float(style["max-width"].removesuffix("px")) == pytest.approx(natural, abs=0.1)
        narrowest = float(style["min-width"].removesuffix("px"))
        assert smallest_text_at(svg, narrowest) == pytest.approx(READABLE, abs=0.01)


def test_side_by_side_is_the_same_html_every_time(program):
    pages = [side_by_side(*map(draw_dot, doubled_and_tripled()), titles=["a", "b"]).html()
             for _ in range(2)]
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


def test_side_by_side_without_a_layout_program_explains_and_shows_each_source(monkeypatch,
                                                                            tmp_path):
    hide_programs(monkeypatch, tmp_path)
    y, z = doubled_and_tripled()
    first, second = draw_dot(y), draw_dot(z)
    bundle = side_by_side(first, second)._repr_mimebundle_()
    assert "pip install graphviz-pure" in bundle["text/plain"]
    assert first.source in bundle["text/plain"] and second.source in bundle["text/plain"]


# --------------------------------------------------------------------------- the backward order


def test_backward_order_is_the_order_backward_runs_the_nodes():
    values = neuron()
    order = [v.label for v in backward_order(values["o"])]
    assert order == NEURON_BACKWARD
    # And the engine agrees: record each node's _backward as it runs.
    ran = []
    for value in values.values():
        original = value._backward
        value._backward = lambda v=value, f=original: (ran.append(v.label), f())
    values["o"].backward()
    assert ran == order


def test_backward_order_handles_a_graph_far_deeper_than_the_recursion_limit():
    leaf = x = Value(1.0)
    for _ in range(20_000):
        x = x.tanh()
    order = backward_order(x)
    assert len(order) == 20_001 and order[0] is x and order[-1] is leaf


# --------------------------------------------------------------------------- any Value-like class


class Node:
    """A learner's minimal node: no operators, no label, parents in whatever container."""

    def __init__(self, data, prev=(), op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, prev, op


@pytest.mark.parametrize("container", [tuple, list, set])
def test_draws_a_learners_own_class_whatever_holds_its_inputs(program, container):
    a, b, k = Node(2.0), Node(-3.0), Node(1.0)
    c = Node(-6.0, container([a, b]), "*")
    d = Node(-5.0, container([c, k]), "+")
    d.grad, c.grad, k.grad, a.grad, b.grad = 1.0, 1.0, 1.0, -3.0, 2.0
    picture = Picture(render(draw_dot(d)))
    assert len(picture.values) == 5 and len(picture.ops) == 2
    assert len(picture.edges) == 6  # 2 + 1 into and out of each operation
    boxes = sorted(tuple(node["texts"]) for node in picture.values)
    assert ("data -5.0000", "grad 1.0000") in boxes  # no label part without a label
    assert ("data 2.0000", "grad -3.0000") in boxes
    assert [v for v in backward_order(d)][0] is d


def test_draws_micrograd_values(program):
    engine = require_module("micrograd.engine").engine
    a, b = engine.Value(2.0), engine.Value(-3.0)
    c = a * b + a
    c.backward()
    picture = Picture(render(draw_dot(c)))
    assert len(picture.values) == 4 and len(picture.ops) == 2
    assert ["data 2.0000", "grad -2.0000"] in [node["texts"] for node in picture.values]


def test_record_special_characters_in_labels_and_operations_are_drawn_literally(program):
    a = Value(1.0, label='{a|b} <c> "q" \\ end\\')
    b = Value(2.0, label="<x>")
    c = Value(3.0, _children=(a, b), _op='<"|>\\')
    picture = Picture(render(draw_dot(c)))
    assert picture.value('{a|b} <c> "q" \\ end\\')["texts"][1] == "data 1.0000"
    assert picture.value("<x>")["texts"][1] == "data 2.0000"
    assert picture.ops[0]["texts"] == ['<"|>\\']


def test_numbers_keep_four_decimals_and_switch_to_powers_of_ten_when_those_hide_them(program):
    tiny, huge = Value(3e-7, label="tiny"), Value(-2.5e8, label="huge")
    total = tiny + huge
    picture = Picture(render(draw_dot(total, show_grad=False)))
    assert picture.value("tiny")["texts"][1] == "data 3.0000e-07"
    assert picture.value("huge")["texts"][1] == "data -2.5000e+08"


# --------------------------------------------------------------------------- refusing bad input


def test_a_graph_over_max_nodes_is_refused_with_its_size_and_the_option():
    with pytest.raises(ValueError, match=r"10 values.*max_nodes=5") as refused:
        draw_dot(neuron()["o"], max_nodes=5)
    assert "max_nodes=10" in str(refused.value)  # the value that would draw it


def test_the_default_limit_refuses_a_long_chain_and_raising_it_draws_it():
    x = Value(0.0)
    for _ in range(150):
        x = x + 1  # each step adds the constant 1 and the sum: 1 + 150 * 2 values
    with pytest.raises(ValueError, match=r"301 values.*max_nodes=300"):
        draw_dot(x)
    graph = draw_dot(x, max_nodes=301)
    assert len(graph.values) == 301
    assert graph.source.count("shape=record") == 301


@pytest.mark.parametrize("given", [2.0, None, "x", [Value(1.0)]])
def test_something_that_is_not_a_value_is_a_type_error_naming_it(given):
    with pytest.raises(TypeError, match=type(given).__name__):
        draw_dot(given)


def test_an_input_that_is_not_a_value_is_a_type_error_naming_it():
    broken = Node(1.0, (Value(1.0), 4.5), "+")
    with pytest.raises(TypeError, match=r"4\.5.*float"):
        draw_dot(broken)


@pytest.mark.parametrize(
    "options, error",
    [
        ({"rankdir": "sideways"}, ValueError),
        ({"max_nodes": 0}, ValueError),
        ({"highlight": "o"}, TypeError),
        ({"highlight": [Value(1.0)]}, ValueError),  # not in this graph
    ],
)
def test_bad_options_are_refused_clearly(options, error):
    with pytest.raises(error):
        draw_dot(neuron()["o"], **options)


def test_top_to_bottom_keeps_each_box_a_single_row(program):
    picture = Picture(render(draw_dot(neuron()["o"], rankdir="TB")))
    box = shape_of(picture.value("o"))
    ys = [float(p.split(",")[1]) for p in box.get("points").split()]
    xs = [float(p.split(",")[0]) for p in box.get("points").split()]
    assert max(xs) - min(xs) > 2 * (max(ys) - min(ys))  # wider than tall: fields side by side


# --------------------------------------------------------------------------- which program draws


def test_dot_on_path_is_preferred(monkeypatch, tmp_path, graphviz_pure):
    # graphviz-pure answers to the name `dot` with dot's options, so it can stand in for it.
    bin_dir = hide_programs(
        monkeypatch, tmp_path, path_entries={"dot": graphviz_pure, "graphviz-pure": graphviz_pure}
    )
    assert layout_program() == ("dot", str(bin_dir / "dot"))


def test_without_dot_graphviz_pure_beside_python_draws(monkeypatch, tmp_path, graphviz_pure):
    venv_bin = tmp_path / "venv-bin"
    venv_bin.mkdir()
    link(graphviz_pure, venv_bin / "graphviz-pure")
    hide_programs(monkeypatch, tmp_path, script_dirs=None)
    # A kernel started from a venv's python without the venv's bin folder on PATH.
    monkeypatch.setattr(sys, "executable", str(venv_bin / "python"))
    program = layout_program()
    assert program == ("graphviz-pure", str(venv_bin / "graphviz-pure"))
    svg = render(draw_dot(neuron()["o"]))
    assert "graphviz-pure" in svg  # graphviz-pure signs the SVG it writes
    assert Picture(svg).value("o")["texts"] == ["o", "data 0.7071", "grad 1.0000"]


def test_without_dot_graphviz_pure_on_path_draws_and_saves(monkeypatch, tmp_path, graphviz_pure):
    hide_programs(monkeypatch, tmp_path, path_entries={"graphviz-pure": graphviz_pure})
    assert layout_program().name == "graphviz-pure"
    graph = draw_dot(neuron()["o"])
    assert "image/svg+xml" in graph._repr_mimebundle_()
    assert save(graph, tmp_path / "n.png").read_bytes().startswith(PNG_SIGNATURE)
    rendered = graph.render(outfile=tmp_path / "rendered.svg")
    assert "data 0.7071" in Picture(Path(rendered).read_text(encoding="utf-8")).all_text


def test_without_any_program_the_error_says_how_to_install_one(monkeypatch, tmp_path):
    hide_programs(monkeypatch, tmp_path)
    with pytest.raises(GraphvizNotFoundError) as missing:
        layout_program()
    message = str(missing.value)
    assert isinstance(missing.value, RuntimeError)
    for advice in ("pip install graphviz-pure", "apt-get install graphviz",
                   "brew install graphviz", "conda install graphviz", "graph.source"):
        assert advice in message
    graph = draw_dot(neuron()["o"])
    with pytest.raises(GraphvizNotFoundError):
        graph.pipe(format="svg")
    with pytest.raises(GraphvizNotFoundError):
        save(graph, tmp_path / "n.svg")
    assert save(graph, tmp_path / "n.gv").read_text(encoding="utf-8") == graph.source


def test_without_any_program_the_notebook_shows_advice_and_dot_text(monkeypatch, tmp_path, capsys):
    hide_programs(monkeypatch, tmp_path)
    graph = draw_dot(neuron()["o"])
    bundle = graph._repr_mimebundle_()
    assert "pip install graphviz-pure" in bundle["text/plain"]
    assert graph.source in bundle["text/plain"]
    assert "data 0.7071" in bundle["text/html"] and "x1*w1 + x2*w2" in bundle["text/html"]
    # What Jupyter does with the object: no traceback, the advice as HTML.
    formatter = require_module("IPython.core.formatters").core.formatters.DisplayFormatter()
    data, _ = formatter.format(graph)
    assert "pip install graphviz-pure" in data["text/html"]
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.skipif(os.name == "nt", reason="the stand-in broken program is a POSIX shell script")
def test_a_failing_layout_program_shows_its_complaint_in_the_notebook(monkeypatch, tmp_path):
    broken = tmp_path / "broken-dot"
    broken.write_text("#!/bin/sh\necho 'Format: \"svg\" not recognized' >&2\nexit 1\n")
    broken.chmod(0o755)
    hide_programs(monkeypatch, tmp_path, path_entries={"dot": broken})
    bundle = draw_dot(neuron()["o"])._repr_mimebundle_()
    assert 'Format: "svg" not recognized' in bundle["text/plain"]
    assert "x1*w1 + x2*w2" in bundle["text/html"]


# --------------------------------------------------------------------------- saving


def test_saves_svg_and_png(program, tmp_path):
    graph = draw_dot(neuron()["o"])
    svg = save(graph, tmp_path / "neuron.svg")
    assert Picture(svg.read_text(encoding="utf-8")).value("x1")["texts"][2] == "grad -1.5000"
    png = save(graph, tmp_path / "neuron.png")
    assert png.read_bytes().startswith(PNG_SIGNATURE)


def test_save_refuses_an_unknown_format_and_a_non_graph(tmp_path):
    with pytest.raises(ValueError, match="neuron.pdf"):
        save(draw_dot(neuron()["o"]), tmp_path / "neuron.pdf")
    with pytest.raises(TypeError, match="Value"):
        save(Value(1.0), tmp_path / "neuron.svg")


# --------------------------------------------------------------------------- labels exactly as given


@pytest.fixture(params=["dot", "graphviz-pure"])
def each_program(request, monkeypatch, tmp_path):
    """Draw with the system's `dot`, then (a second run of the test) with graphviz-pure alone."""
    if request.param == "dot":
        found = shutil.which("dot")
        if found is None:
            skip_or_fail("the system's Graphviz `dot` is not installed (apt-get install graphviz)")
    else:
        found = request.getfixturevalue("graphviz_pure")
    hide_programs(monkeypatch, tmp_path, path_entries={request.param: found})
    assert layout_program().name == request.param
    return request.param


PRINTABLE_ASCII = "".join(map(chr, range(0x21, 0x7F)))  # ! to ~, every one but the space
# (label as given, what the drawing must show). Printable characters, `&` in every guise a
# layout program might read as an entity, record syntax, Graphviz's own backslash escapes,
# quotes and characters beyond ASCII are all shown as they are. A tab and a line break are
# shown as ⇥ and ↵, other control characters as Python spells them, and a space a browser
# would squeeze away (at an end, beside another) as a no-break space (U+00A0).
TRICKY_LABELS = [
    (PRINTABLE_ASCII, PRINTABLE_ASCII),
    ("a b " + PRINTABLE_ASCII + " c", "a b " + PRINTABLE_ASCII + " c"),
    ("a&b", "a&b"),
    ("&amp;", "&amp;"),
    ("&lt;x&gt; &#38; &#x26; &nbsp; &", "&lt;x&gt; &#38; &#x26; &nbsp; &"),
    ("<b>not bold</b>", "<b>not bold</b>"),
    ("{a|b} <port> [x]", "{a|b} <port> [x]"),
    ("\\", "\\"),
    ("ends in \\", "ends in \\"),
    ("\\n \\l \\r \\N \\G \\E \\T \\H \\L \\\\", "\\n \\l \\r \\N \\G \\E \\T \\H \\L \\\\"),
    ("\"double\" 'single' `back`", "\"double\" 'single' `back`"),
    ("é ü ß ∑ → 日本 🙂 x\u00a0y", "é\u00a0ü\u00a0ß\u00a0∑\u00a0→\u00a0日本\u00a0🙂\u00a0x\u00a0y"),
    ("tab\there", "tab\u21e5here"),
    ("two\nlines\r\n", "two\u21b5lines\\r\u21b5"),
    ("\x00\x01\x1b\x7f\x85", "\\x00\\x01\\x1b\\x7f\\x85"),
    (" lead, trail ", "\u00a0lead, trail\u00a0"),
    ("two  spaces", "two\u00a0\u00a0spaces"),
]


def test_labels_and_operations_are_drawn_exactly_as_given(each_program):
    # One graph holds every label twice: as a value's label and as the _op of a value made
    # from it, so one layout per program checks both kinds of node.
    made = []
    for i, (given, _) in enumerate(TRICKY_LABELS):
        leaf = Value(float(i), label=given)
        made.append(Value(0.0, _children=(leaf,), _op=given))
    root = Value(0.0, _children=tuple(made), _op="+")
    svg = render(draw_dot(root, max_width=None))
    assert ("graphviz-pure" in svg) == (each_program == "graphviz-pure")  # who drew it
    picture = Picture(svg)  # parsing proves it is well-formed XML; text comes out unescaped
    labels = [box["texts"][0] for box in picture.values if len(box["texts"]) == 3]
    operations = [op["texts"] for op in picture.ops]
    for given, shown in TRICKY_LABELS:
        assert labels.count(shown) == 1, f"the label {given!r} is not drawn as {shown!r}"
        assert operations.count([shown]) == 1, f"the op {given!r} is not drawn as {shown!r}"


def test_graphviz_pure_keeps_quiet_about_characters_beyond_ascii(monkeypatch, tmp_path, capsys,
                                                                  graphviz_pure):
    # It guesses a width for each and would say so once per character, in red, in the notebook.
    hide_programs(monkeypatch, tmp_path, path_entries={"graphviz-pure": graphviz_pure})
    svg = render(draw_dot(Value(1.0, label="αβγ é 日本")))
    assert "αβγ" in svg
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- a layout that takes too long


def long_chain(length=150):
    x = Value(0.0)
    for _ in range(length):
        x = x + 1
    return x  # 1 + 2 * length values


def test_a_layout_that_takes_too_long_is_stopped_with_a_clear_message(program, tmp_path):
    graph = draw_dot(long_chain(), max_nodes=301, timeout=0.001)
    started = time.monotonic()
    with pytest.raises(viz.LayoutTimeoutError) as stopped:
        graph.pipe(format="svg")
    assert time.monotonic() - started < 5  # stopped, not waited for
    message = str(stopped.value)
    for part in ("301 values", "longer than 0.001 s", "max_nodes", "timeout="):
        assert part in message
    # In a notebook: the message and the DOT text, no picture and no traceback.
    bundle = graph._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "longer than 0.001 s" in bundle["text/plain"] and graph.source in bundle["text/plain"]
    with pytest.raises(viz.LayoutTimeoutError):  # save() keeps the drawing's limit
        save(graph, tmp_path / "chain.svg")
    assert save(graph, tmp_path / "chain.svg", timeout=60).read_text(encoding="utf-8")


def test_the_time_limit_defaults_to_layout_timeout(program, monkeypatch):
    graph = draw_dot(neuron()["o"])
    assert graph.timeout is None
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 0.001)
    with pytest.raises(viz.LayoutTimeoutError, match="longer than 0.001 s"):
        graph.pipe(format="svg")
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 60.0)
    assert Picture(render(graph)).value("o")["texts"] == ["o", "data 0.7071", "grad 1.0000"]


@pytest.mark.parametrize(
    "timeout, error",
    [(0, ValueError), (-1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
     (True, TypeError), ("5", TypeError)],
)
def test_a_timeout_that_is_not_a_sensible_number_of_seconds_is_refused(timeout, error, tmp_path):
    with pytest.raises(error, match="timeout"):
        draw_dot(neuron()["o"], timeout=timeout)
    with pytest.raises(error, match="timeout"):
        save(draw_dot(neuron()["o"]), tmp_path / "n.svg", timeout=timeout)


# --------------------------------------------------------------------------- the package, graphviz


# What `autograd.viz` offered when it was one module (its __all__ then), less LAYOUT_TIMEOUT:
# notebooks, the widgets, the README and learners import these, so the package must keep every
# one. The time limit lives in `autograd.viz.layout` alone, where setting it takes effect.
NAMES_OF_THE_SINGLE_MODULE = [
    "draw_dot", "side_by_side", "inline_svg", "DEFAULT_MAX_WIDTH", "trace", "backward_order",
    "layout_program", "save", "GraphDrawing", "SideBySide", "GraphvizNotFoundError",
    "LayoutTimeoutError", "LayoutProgram",
]


def test_the_viz_package_offers_every_name_the_single_module_did():
    assert set(NAMES_OF_THE_SINGLE_MODULE) <= set(viz.__all__)
    star = {}
    exec("from autograd.viz import *", star)
    for name in NAMES_OF_THE_SINGLE_MODULE:
        assert star[name] is getattr(viz, name), name
        assert name in dir(viz), name  # so a notebook completes it after `viz.`
    assert viz.DEFAULT_MAX_WIDTH == 9.5 and viz.layout.LAYOUT_TIMEOUT == 20.0
    # The explorers check rankdir against this.
    assert viz.RANKDIRS == ("LR", "TB", "RL", "BT")
    # no copy of the time limit on the package, which setting would not change
    assert not hasattr(viz, "LAYOUT_TIMEOUT")


def test_setting_layout_timeout_sets_the_limit_drawings_use(monkeypatch):
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 7.5)
    with pytest.raises(ValueError, match=r"LAYOUT_TIMEOUT \(7.5 s\)"):
        draw_dot(Value(1.0), timeout=-1)


def test_graph_drawing_overrides_no_private_method_of_graphviz():
    # GraphDrawing reaches the layout program through graphviz's public methods (pipe, render,
    # view) and IPython's display hook, never through graphviz's internals, so a graphviz
    # release that renames those cannot quietly route a drawing around the layout program
    # that layout_program() found, or around its time limit.
    graphviz = require_module("graphviz")
    own = {name for name in vars(viz.GraphDrawing)
           if name.startswith("_") and not name.startswith("__")}
    assert own & set(dir(graphviz.Digraph)) == {"_repr_mimebundle_"}


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.pipe(format="nope"),
        lambda g: g.pipe(format="svg", engine="nope"),
        lambda g: g.pipe(format="png", renderer="nope"),
        lambda g: g.render("n", format="nope"),
        lambda g: g.render(outfile="n.nope"),  # no format, and the suffix names none
    ],
)
def test_a_drawing_refuses_what_graphviz_refuses_with_graphvizs_words(call, monkeypatch,
                                                                      tmp_path):
    graphviz = require_module("graphviz")
    monkeypatch.chdir(tmp_path)  # render() saves the DOT text first, as graphviz's does
    with pytest.raises(Exception) as theirs:
        call(graphviz.Digraph())
    with pytest.raises(type(theirs.value)) as ours:
        call(viz.GraphDrawing())
    assert str(ours.value) == str(theirs.value)


def test_render_names_its_files_as_graphviz_does(monkeypatch, tmp_path):
    graphviz = require_module("graphviz")
    if shutil.which("dot") is None:  # graphviz's own render() runs the system's dot
        skip_or_fail("the system's Graphviz `dot` is not installed (apt-get install graphviz)")
    calls = [
        {"format": "svg"},
        {"filename": "n", "format": "png"},
        {"filename": "n", "directory": "sub", "format": "svg"},
        {"outfile": "picture.svg"},
        {"outfile": "deeper/picture.png", "format": "png"},
        {"outfile": "other.svg", "directory": "sub"},
        {"filename": "c.gv", "format": "svg", "cleanup": True},
    ]
    results = {}
    for kind, make in (("graphviz", graphviz.Digraph), ("ours", viz.GraphDrawing)):
        folder = tmp_path / kind
        folder.mkdir()
        monkeypatch.chdir(folder)
        returned = []
        for options in calls:
            graph = make(name="g")
            graph.node("a")
            returned.append(graph.render(**options))
        written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        results[kind] = returned, written
    assert results["ours"] == results["graphviz"]


def test_every_way_to_a_picture_runs_under_the_drawings_time_limit(program, tmp_path):
    # graphviz's own way of running dot has no time limit: stopping each of these shows that
    # it went through autograd.viz.layout instead.
    graph = draw_dot(long_chain(), max_nodes=301, timeout=0.001)
    for draw in (lambda: graph.pipe(format="png"),
                 lambda: graph.pipe(format="svg", encoding="utf-8"),
                 lambda: graph.render(tmp_path / "chain.gv", format="svg"),
                 lambda: graph.view(tmp_path / "shown.gv"),  # stopped before a viewer opens
                 lambda: save(graph, tmp_path / "chain.png")):
        with pytest.raises(viz.LayoutTimeoutError, match="longer than 0.001 s"):
            draw()
    for include in (None, ["image/svg+xml"], ["image/png"], ["image/jpeg"]):
        bundle = graph._repr_mimebundle_(include=include)
        assert "longer than 0.001 s" in bundle["text/html"] and "image/png" not in bundle


def test_a_notebook_gets_the_image_types_it_asks_for(program):
    graph = draw_dot(neuron()["o"])
    assert set(graph._repr_mimebundle_()) == {"text/html", "image/svg+xml"}
    assert set(graph._repr_mimebundle_(include=["image/svg+xml"])) == {"image/svg+xml"}
    png = graph._repr_mimebundle_(include=["image/png", "image/svg+xml"],
                                  exclude=["image/svg+xml"])
    assert set(png) == {"image/png"} and png["image/png"].startswith(PNG_SIGNATURE)
    assert graph._repr_mimebundle_(include=[]) == {}
    svg = graph._repr_mimebundle_()["image/svg+xml"]
    assert Picture(svg).value("o")["texts"] == ["o", "data 0.7071", "grad 1.0000"]


# --------------------------------------------------------------------------- in the browser
# Under Pyodide (the JupyterLite edition) there is no program to start: viz-js, Graphviz as
# WebAssembly, draws (autograd/viz/browser.py). Here a stand-in takes viz-js's place; the real
# one runs in tests/test_lite.py, in Chromium, and below under Node when lite/ has it.

import json  # noqa: E402

import graphviz  # noqa: E402

from autograd.viz import browser  # noqa: E402

VIZ_JS_URL = "http://127.0.0.1:8000/static/viz/viz.js"
VIZ_JS = Path(__file__).resolve().parent.parent / "lite/node_modules/@viz-js/viz/dist/viz.js"
NODE = shutil.which("node")  # looked up now: the fixture below empties PATH
CANNED_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>drawn by the stand-in</text></svg>'


class StandIn:
    """viz-js's `render` as `browser.py` calls it: records each call, answers as told."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer or (lambda text, settings: {
            "status": "success", "output": CANNED_SVG, "errors": []})

    def __call__(self, text, settings):
        self.calls.append((text, settings))
        return self.answer(text, settings)


@pytest.fixture
def in_the_browser(monkeypatch, tmp_path):
    """As under Pyodide: no program may start, and `renderer` (a StandIn) is viz-js."""
    hide_programs(monkeypatch, tmp_path, script_dirs=())

    def no_programs(*args, **kwargs):
        raise AssertionError(f"a program was started in the browser: {args}")

    monkeypatch.setattr(viz.layout.subprocess, "run", no_programs)
    monkeypatch.setattr(viz.layout, "IN_BROWSER", True)
    monkeypatch.setattr(browser, "location", lambda: VIZ_JS_URL)
    renderer = StandIn()
    monkeypatch.setattr(browser, "_renderer", renderer)
    return renderer


def test_the_browser_draws_with_viz_js_and_keeps_the_output_contract(in_the_browser, tmp_path):
    graph = draw_dot(neuron()["o"])
    assert layout_program() == ("viz-js", VIZ_JS_URL)
    bundle = graph._repr_mimebundle_()
    # viz-js's picture, carrying the drawing's sentence as its name, as everywhere else
    labelled = CANNED_SVG.replace(
        '"><text>', f'" role="img" aria-label="{graph.summary()}"><title>{graph.summary()}'
                    '</title><text>')
    assert bundle["image/svg+xml"] == labelled
    assert "drawn by the stand-in</text></svg></div>" in bundle["text/html"]
    assert graph.pipe(format="svg") == labelled.encode()
    assert save(graph, tmp_path / "neuron.svg").read_text(encoding="utf-8") == labelled
    text, settings = in_the_browser.calls[0]
    assert text == graph.source
    assert settings == {"engine": "dot", "format": "svg"}
    assert [call[1] for call in in_the_browser.calls] == [settings] * 3


def test_outside_the_browser_viz_js_is_never_used(monkeypatch, program):
    monkeypatch.setattr(browser, "_renderer", StandIn())
    graph = draw_dot(neuron()["o"])
    svg = graph._repr_mimebundle_()["image/svg+xml"]
    assert "stand-in" not in svg and layout_program().name in ("dot", "graphviz-pure")
    assert browser._renderer.calls == []


def test_the_browser_explains_what_viz_js_cannot_draw(in_the_browser, tmp_path, capsys):
    def answer(text, settings):
        if settings["format"] != "svg":  # viz-js's words for a format it lacks
            return {"status": "failure", "output": None, "errors": [
                {"level": "error", "message": f'Format: "{settings["format"]}" not recognized'}]}
        return {"status": "success", "output": CANNED_SVG,
                "errors": [{"level": "warning", "message": "using box for unknown shape"}]}

    in_the_browser.answer = answer
    graph = draw_dot(neuron()["o"])
    bundle = graph._repr_mimebundle_(include=["image/png"])
    assert "The layout program viz-js failed" in bundle["text/plain"]
    assert 'Error: Format: "png" not recognized' in bundle["text/plain"]
    assert graph.source in bundle["text/plain"] and "x1*w1 + x2*w2" in bundle["text/html"]
    with pytest.raises(graphviz.CalledProcessError, match="viz-js"):
        save(graph, tmp_path / "neuron.png", dpi=150)
    assert in_the_browser.calls[-1][1]["graphAttributes"] == {"dpi": "150"}
    # warnings go to stderr, as a layout program's do, unless quiet
    graph.pipe(format="svg")
    assert "Warning: using box for unknown shape" in capsys.readouterr().err
    graph.pipe(format="svg", quiet=True)
    assert capsys.readouterr().err == ""


def test_the_browser_explains_when_viz_js_did_not_load(in_the_browser, monkeypatch):
    def not_loaded():
        raise browser.VizJsNotLoadedError(f"viz-js did not load from {VIZ_JS_URL}: 404")

    monkeypatch.setattr(browser, "_renderer", None)
    monkeypatch.setattr(browser, "_load", not_loaded)
    graph = draw_dot(neuron()["o"])
    bundle = graph._repr_mimebundle_()
    assert "did not load" in bundle["text/plain"] and graph.source in bundle["text/plain"]
    assert "did not load" in side_by_side(graph)._repr_mimebundle_()["text/plain"]


def test_the_real_viz_js_draws_what_dot_draws(in_the_browser):
    """viz-js itself (lite/'s npm copy, run by Node) draws the article's neuron."""
    node = NODE
    if node is None or not VIZ_JS.is_file():
        skip_or_fail("needs `node` and lite/node_modules (python3 lite/build.py makes them; in CI, "
                     "tests/test_lite.py builds it first)")
    script = ("import(process.argv[1]).then(async m => { const v = await m.instance();"
              " let s = ''; for await (const c of process.stdin) s += c;"
              " const [text, settings] = JSON.parse(s);"
              " process.stdout.write(JSON.stringify(v.render(text, settings))); })")

    def answer(text, settings):  # Popen: the fixture lets no subprocess.run start a program
        with subprocess.Popen([node, "-e", script, VIZ_JS.as_uri()], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) as node_js:
            out, _ = node_js.communicate(json.dumps([text, settings]), timeout=60)
        assert node_js.returncode == 0
        return json.loads(out)

    in_the_browser.answer = answer
    svg = draw_dot(neuron()["o"])._repr_mimebundle_()["image/svg+xml"]
    picture = Picture(svg)
    for label, (data, grad) in NEURON.items():
        assert picture.value(label)["texts"] == [label, f"data {data}", f"grad {grad}"]


# --------------------------------------------------------------------------- the drawing in words

# The article's neuron in one sentence, from the numbers worked out by hand above (NEURON):
# its output o, its 10 values and 5 operations (two products, two sums, tanh), and the
# gradient of o with respect to each input, in drawing order, with a true minus sign.
NEURON_SENTENCE = ("The graph of o: 10 values, 5 operations; o = 0.7071; do/dx1 = \u22121.5, "
                   "do/dw1 = 1, do/dx2 = 0.5, do/dw2 = 0, do/db = 0.5.")


def svg_of(text):
    """The <svg> element in SVG or HTML text."""
    return ET.fromstring(re.search(r"<svg\b.*</svg>", text, re.S).group())


def accessible_name(svg_element):
    """What a screen reader reads for an inline <svg>: its role, aria-label and <title>."""
    title = svg_element.find(f"{SVG}title")
    if title is None:
        title = svg_element.find("title")
    first = next(iter(svg_element), None)
    return (svg_element.get("role"), svg_element.get("aria-label"),
            None if title is None else title.text, first is title)


def test_a_drawing_says_in_one_sentence_what_it_shows():
    values = neuron()
    assert len(values) == 10
    graph = draw_dot(values["o"])
    assert graph.summary() == NEURON_SENTENCE


def test_before_backward_the_sentence_says_the_grads_are_all_zero():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    assert draw_dot(c).summary() == ("The graph of c: 3 values, 1 operation; c = \u22126; "
                                     "every grad 0 (backward() has not run).")
    # without grads in the picture, none in the sentence; highlighted values are named
    assert draw_dot(c, show_grad=False, highlight=a).summary() == (
        "The graph of c: 3 values, 1 operation; c = \u22126; highlighted: a.")


def test_a_long_sentence_names_the_first_inputs_and_counts_the_rest():
    xs = [Value(float(i), label=f"x{i}") for i in range(11)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    total.label = "s"
    total.backward()
    sentence = draw_dot(total).summary()
    assert sentence.startswith("The graph of s: 21 values, 10 operations; s = 55; ds/dx0 = 1, ")
    assert "ds/dx7 = 1" in sentence and "ds/dx8" not in sentence
    assert sentence.endswith("and 3 more inputs.")


def test_every_svg_picture_carries_the_sentence_as_its_name(program, tmp_path):
    graph = draw_dot(neuron()["o"])
    wanted = ("img", NEURON_SENTENCE, NEURON_SENTENCE, True)
    bundle = graph._repr_mimebundle_()
    assert accessible_name(svg_of(bundle["image/svg+xml"])) == wanted
    assert accessible_name(svg_of(bundle["text/html"])) == wanted
    saved = save(graph, tmp_path / "neuron.svg").read_text(encoding="utf-8")
    assert accessible_name(svg_of(saved)) == wanted
    rendered = Path(graph.render(directory=tmp_path, format="svg")).read_text(encoding="utf-8")
    assert accessible_name(svg_of(rendered)) == wanted
    # side by side, each drawing has its own name
    a = Value(3.0, label="a")
    row = side_by_side(graph, draw_dot(a * a)).html()
    names = [accessible_name(ET.fromstring(svg))[1]
             for svg in re.findall(r"<svg.*?</svg>", row, re.S)]
    assert names == [NEURON_SENTENCE, draw_dot(a * a).summary()]
    assert names[1].startswith("The graph of v1: 2 values, 1 operation; v1 = 9;")


def test_a_label_with_markup_is_read_exactly_as_written(program):
    a = Value(1.0, label='<b> & "c"')
    out = a * 2
    out.label = "out"
    svg = draw_dot(out).pipe(format="svg", encoding="utf-8")
    role, label, title, first = accessible_name(svg_of(svg))
    assert label == title == draw_dot(out).summary()
    assert label.startswith("The graph of out: 3 values, 1 operation; out = 2;")


def test_describe_reads_the_drawing_value_by_value():
    graph = draw_dot(neuron()["o"])
    lines = graph.describe().splitlines()
    assert lines[0] == NEURON_SENTENCE
    # one line per value, in drawing order, each starting with its node's name and label
    drawn = [v.label for v in graph.values]
    assert [line.split(":")[0] for line in lines[1:]] == [f"v{i} {label}"
                                                         for i, label in enumerate(drawn)]
    by_label = dict(zip(drawn, lines[1:]))
    # the numbers worked out by hand (NEURON), read without trailing zeros
    assert by_label["x1"].endswith(": data 2, grad \u22121.5; an input.")
    assert by_label["w1"].endswith(": data \u22123, grad 1; an input.")
    assert by_label["b"].endswith(": data 6.8814, grad 0.5; an input.")
    x1, w1 = drawn.index("x1"), drawn.index("w1")
    assert by_label["x1*w1"].endswith(
        f": data \u22126, grad 0.5; made by * from x1 (v{x1}) and w1 (v{w1}).")
    assert by_label["o"].endswith(f": data 0.7071, grad 1; made by tanh from n "
                                  f"(v{drawn.index('n')}).")
    # a notebook shows the text as it is, and the drawing's HTML has it folded under it
    assert repr(graph.describe()) == graph.describe()
    page = graph._repr_mimebundle_(include=["text/html"])["text/html"]
    assert "<details" in page and "made by tanh from n" in page


def cycle_drawing():
    """A drawing made by hand, as chapter 10 draws a reference cycle: labels on two lines,
    labelled arrows, a dashed circle, and a node that only an arrow names."""
    drawing = viz.GraphDrawing()
    drawing.node("0", "out\n(Value)", color="#cf222e")
    drawing.node("1", "_backward\n(function)", color="#cf222e")
    drawing.edge("0", "1", label="_backward", color="#cf222e", style="dashed")
    drawing.edge("1", "0", label="cell_contents", style="dashed,bold")
    drawing.edges([("0", "loose")])
    return drawing


CYCLE_SENTENCE = ("A drawing of 3 nodes and 3 arrows: "
                  "from out (Value) to _backward (function), labelled _backward, dashed; "
                  "from _backward (function) to out (Value), labelled cell_contents, dashed; "
                  "from out (Value) to loose.")


def test_a_drawing_made_by_hand_says_what_it_shows_arrow_by_arrow(program, tmp_path):
    drawing = cycle_drawing()
    assert drawing.summary() == CYCLE_SENTENCE
    # the picture carries it, as every picture from draw_dot does, and HTML folds the
    # node-by-node text under it
    wanted = ("img", CYCLE_SENTENCE, CYCLE_SENTENCE, True)
    bundle = drawing._repr_mimebundle_()
    assert accessible_name(svg_of(bundle["image/svg+xml"])) == wanted
    saved = save(drawing, tmp_path / "cycle.svg").read_text(encoding="utf-8")
    assert accessible_name(svg_of(saved)) == wanted
    assert "<details" in bundle["text/html"] and "no arrow leaves it" in bundle["text/html"]
    assert drawing.describe() == CYCLE_SENTENCE + "\n" + "\n".join([
        "out (Value): to _backward (function), labelled _backward, dashed; to loose.",
        "_backward (function): to out (Value), labelled cell_contents, dashed.",
        "loose: no arrow leaves it."])


def test_a_long_hand_made_drawing_names_the_first_arrows_and_counts_the_rest():
    drawing = viz.GraphDrawing()
    drawing.edges((str(i), str(i + 1)) for i in range(15))
    sentence = drawing.summary()
    assert sentence.startswith("A drawing of 16 nodes and 15 arrows: from 0 to 1; ")
    assert "from 11 to 12;" in sentence and "from 12 to 13" not in sentence
    assert sentence.endswith("and 3 more arrows.")
    assert len(drawing.describe().splitlines()) == 1 + 16  # every node, in the longer text


def test_an_empty_drawing_has_nothing_to_say():
    drawing = viz.GraphDrawing()
    assert drawing.summary() is None
    with pytest.raises(ValueError, match="nothing in it to describe"):
        drawing.describe()
