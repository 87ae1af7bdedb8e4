"""GraphDrawing (autograd/viz/graph_drawing.py): a graphviz.Digraph that becomes a picture
through the layout program found, in a file, in a notebook, or as words.
"""

import shutil

import pytest
import viz_shared
from conftest import require_module, skip_or_fail
from viz_shared import (
    PNG_SIGNATURE,
    Picture,
    accessible_name,
    long_chain,
    neuron,
    render,
    svg_of,
)

from autograd import Value, viz
from autograd.viz import (
    draw_dot,
    save,
)

# the fixtures that these tests share with the others of the package
program = viz_shared.program


def test_name_of_gives_the_node_name_the_svg_uses(program):
    values = neuron()
    graph = draw_dot(values["o"])
    picture = Picture(render(graph))
    for label in ("x1", "b", "o"):
        assert graph.name_of(values[label]) == picture.value(label)["name"]
    with pytest.raises(ValueError):
        graph.name_of(Value(1.0))


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


def test_graph_drawing_overrides_no_private_method_of_graphviz():
    # GraphDrawing reaches the layout program through graphviz's public methods (pipe, render,
    # view) and IPython's display hook, never through graphviz's internals, so a graphviz
    # release that renames those cannot quietly route a drawing around the layout program
    # that layout_program() found, or around its time limit.
    graphviz = require_module("graphviz")
    own = {
        name
        for name in vars(viz.GraphDrawing)
        if name.startswith("_") and not name.startswith("__")
    }
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
def test_a_drawing_refuses_what_graphviz_refuses_with_graphvizs_words(call, monkeypatch, tmp_path):
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
    for draw in (
        lambda: graph.pipe(format="png"),
        lambda: graph.pipe(format="svg", encoding="utf-8"),
        lambda: graph.render(tmp_path / "chain.gv", format="svg"),
        lambda: graph.view(tmp_path / "shown.gv"),  # stopped before a viewer opens
        lambda: save(graph, tmp_path / "chain.png"),
    ):
        with pytest.raises(viz.LayoutTimeoutError, match="longer than 0.001 s"):
            draw()
    for include in (None, ["image/svg+xml"], ["image/png"], ["image/jpeg"]):
        bundle = graph._repr_mimebundle_(include=include)
        assert "longer than 0.001 s" in bundle["text/html"] and "image/png" not in bundle


def test_a_notebook_gets_the_image_types_it_asks_for(program):
    graph = draw_dot(neuron()["o"])
    assert set(graph._repr_mimebundle_()) == {"text/html", "image/svg+xml"}
    assert set(graph._repr_mimebundle_(include=["image/svg+xml"])) == {"image/svg+xml"}
    png = graph._repr_mimebundle_(include=["image/png", "image/svg+xml"], exclude=["image/svg+xml"])
    assert set(png) == {"image/png"} and png["image/png"].startswith(PNG_SIGNATURE)
    assert graph._repr_mimebundle_(include=[]) == {}
    svg = graph._repr_mimebundle_()["image/svg+xml"]
    assert Picture(svg).value("o")["texts"] == ["o", "data 0.7071", "grad 1.0000"]


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


CYCLE_SENTENCE = (
    "A drawing of 3 nodes and 3 arrows: "
    "from out (Value) to _backward (function), labelled _backward, dashed; "
    "from _backward (function) to out (Value), labelled cell_contents, dashed; "
    "from out (Value) to loose."
)


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
    assert drawing.describe() == CYCLE_SENTENCE + "\n" + "\n".join(
        [
            "out (Value): to _backward (function), labelled _backward, dashed; to loose.",
            "_backward (function): to out (Value), labelled cell_contents, dashed.",
            "loose: no arrow leaves it.",
        ]
    )


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
