"""Draw the picture at the top of the README: the article's neuron, after `backward()`.

    python scripts/make_readme_figure.py          # rewrites docs/neuron.svg

The picture is made by the package itself (`autograd.Value` and `autograd.viz.draw_dot`), so
it shows what a learner will see in the notebooks, not a drawing made by hand. The SVG is
committed, because the README shows it from the repository; `tests/test_readme.py` compares
the committed file with what this script produces now, so a change to the engine or to the
drawing that alters the picture fails the tests until the figure is made again with this script.

The layout comes from a Graphviz program (the system `dot`, or `graphviz-pure`): its coordinates
differ between Graphviz versions, while the graph drawn (boxes, labels, numbers, arrows) does not.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURE = ROOT / "docs" / "neuron.svg"

sys.path.insert(0, str(ROOT))  # run from a checkout, installed or not

from autograd import Value  # noqa: E402
from autograd.viz import DEFAULT_MAX_WIDTH, draw_dot  # noqa: E402


def neuron():
    """The article's neuron, o = tanh(x1*w1 + x2*w2 + b), after `o.backward()`; returns o.

    The bias is chosen so that n = 0.8814 and o = tanh(n) = 1/sqrt(2) = 0.7071, which makes
    do/dn = 1 - o**2 = 0.5, so dw1 = x1 * 0.5 = 1.0 and dw2 = x2 * 0.5 = 0.0.
    """
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    o.backward()
    return o


def figure_svg():
    """The README's figure as SVG text, drawn from `neuron()` by the installed layout program.

    Drawn top to bottom: the graph is five boxes long, and left to right it would be shrunk to
    unreadable text in the README's narrow column; and at most 9.5 inches wide, as a picture
    for a page (a notebook fits a drawing to its output area itself).
    """
    return draw_dot(neuron(), rankdir="TB", max_width=DEFAULT_MAX_WIDTH).pipe(
        format="svg", encoding="utf-8"
    )


def main():
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    FIGURE.write_text(figure_svg(), encoding="utf-8", newline="\n")
    print(f"wrote {FIGURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
