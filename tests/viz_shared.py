"""What the tests of autograd.viz share: the article's neuron and its numbers as the
drawing prints them, the layout programs as fixtures, and ways to read a picture back from
the SVG that the layout program produced (tests/test_viz_*.py).
"""

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import skip_or_fail

from autograd import Value, viz
from autograd.viz import (
    GraphvizNotFoundError,
    layout_program,
)

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
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


READABLE = 10  # pixels: the smallest text a learner reads with ease


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


# --------------------------------------------------------------------------- a layout that takes too long


def long_chain(length=150):
    x = Value(0.0)
    for _ in range(length):
        x = x + 1
    return x  # 1 + 2 * length values


def svg_of(text):
    """The <svg> element in SVG or HTML text."""
    return ET.fromstring(re.search(r"<svg\b.*</svg>", text, re.S).group())


def accessible_name(svg_element):
    """What a screen reader reads for an inline <svg>: its role, aria-label and <title>."""
    title = svg_element.find(f"{SVG}title")
    if title is None:
        title = svg_element.find("title")
    first = next(iter(svg_element), None)
    return (
        svg_element.get("role"),
        svg_element.get("aria-label"),
        None if title is None else title.text,
        first is title,
    )
