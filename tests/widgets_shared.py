"""What the tests of the explorers share: the article's neuron, as Values and as a function,
and ways to read a view's drawing. Importing it skips the tests without ipywidgets.
"""

import re
import xml.etree.ElementTree as ET

import pytest
from conftest import require_module

# part of requirements.txt; a bare engine install lacks it
widgets = require_module("ipywidgets", "pip install -r requirements.txt")
from autograd import Value  # noqa: E402 (only once ipywidgets is known to be there)
from autograd.widgets import (  # noqa: E402
    TrainingDashboard,
)

B = 6.8813735870195432  # the article's bias: n = 2*(-3) + 0*1 + b = atanh(1/sqrt(2)), o = 0.7071


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


def neuron():
    """The article's neuron, every node labelled: o = tanh(x1*w1 + x2*w2 + b)."""
    v = {
        name: Value(x, label=name)
        for name, x in [("x1", 2.0), ("x2", 0.0), ("w1", -3.0), ("w2", 1.0), ("b", B)]
    }
    v["x1w1"] = v["x1"] * v["w1"]
    v["x2w2"] = v["x2"] * v["w2"]
    v["s"] = v["x1w1"] + v["x2w2"]
    v["n"] = v["s"] + v["b"]
    v["o"] = v["n"].tanh()
    for name, value in v.items():
        value.label = name
    return v


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


# ---------------------------------------------------------------------------- TrainingDashboard


def small_dashboard(**options):
    settings = dict(n=20, hidden=(4,), batch_size=None, lr=0.1, seed=1)
    settings.update(options)
    return TrainingDashboard(**settings)


# ---------------------------------------------------------------------------- extreme input


def is_png(picture):
    return picture[:8] == b"\x89PNG\r\n\x1a\n"
