"""Drawing graphs with draw_dot (autograd/viz/draw.py): what a learner sees in the picture.

The expected numbers are worked out by hand from the article's neuron, and the pictures are
read back from the SVG that the layout program produced, so these tests check what is drawn,
not what the code meant to draw. Also what the drawing says in words (summary, describe).
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import viz_shared
from conftest import require_module, skip_or_fail
from viz_shared import (
    NEURON,
    SVG,
    Picture,
    accessible_name,
    hide_programs,
    neuron,
    render,
    svg_of,
    svg_size,
)

from autograd import Value
from autograd.viz import (
    backward_order,
    draw_dot,
    layout_program,
    save,
    side_by_side,
    trace,
)

# the fixtures that these tests share with the others of the package
graphviz_pure = viz_shared.graphviz_pure
program = viz_shared.program
POINTS_PER_INCH = 72  # SVG sizes from Graphviz are in points
# backward() sorts depth-first from o, visiting inputs in the order they were given:
# x1, w1, x1*w1, x2, w2, x2*w2, sum, b, n, o; then runs that list backwards.
NEURON_BACKWARD = ["o", "n", "b", "x1*w1 + x2*w2", "x2*w2", "w2", "x2", "x1*w1", "w1", "x1"]


def shape_of(node):
    return node["group"].find(f"{SVG}polygon")


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
        "import sys; sys.path.insert(0, sys.argv[1]); import viz_shared; "
        "from autograd.viz import draw_dot; print(draw_dot(viz_shared.neuron()['o']).source)"
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


def rgb(colour):
    named = {"white": "#ffffff", "black": "#000000"}
    colour = named.get(colour, colour)
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def contrast(a, b):
    """WCAG contrast ratio between two sRGB colours."""

    def luminance(c):
        lin = [
            (v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
            for v in c
        ]
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


def test_graphviz_pure_shrinks_a_wide_drawing_too_and_the_same_every_time(
    monkeypatch, tmp_path, graphviz_pure
):
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
def test_a_max_width_that_is_not_a_sensible_number_of_inches_is_refused(max_width, error, message):
    with pytest.raises(error, match=message):
        draw_dot(neuron()["o"], max_width=max_width)


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


def test_graphviz_pure_keeps_quiet_about_characters_beyond_ascii(
    monkeypatch, tmp_path, capsys, graphviz_pure
):
    # It guesses a width for each and would say so once per character, in red, in the notebook.
    hide_programs(monkeypatch, tmp_path, path_entries={"graphviz-pure": graphviz_pure})
    svg = render(draw_dot(Value(1.0, label="αβγ é 日本")))
    assert "αβγ" in svg
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- the drawing in words

# The article's neuron in one sentence, from the numbers worked out by hand above (NEURON):
# its output o, its 10 values and 5 operations (two products, two sums, tanh), and the
# gradient of o with respect to each input, in drawing order, with a true minus sign.
NEURON_SENTENCE = (
    "The graph of o: 10 values, 5 operations; o = 0.7071; do/dx1 = \u22121.5, "
    "do/dw1 = 1, do/dx2 = 0.5, do/dw2 = 0, do/db = 0.5."
)


def test_a_drawing_says_in_one_sentence_what_it_shows():
    values = neuron()
    assert len(values) == 10
    graph = draw_dot(values["o"])
    assert graph.summary() == NEURON_SENTENCE


def test_before_backward_the_sentence_says_the_grads_are_all_zero():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    assert draw_dot(c).summary() == (
        "The graph of c: 3 values, 1 operation; c = \u22126; every grad 0 (backward() has not run)."
    )
    # without grads in the picture, none in the sentence; highlighted values are named
    assert draw_dot(c, show_grad=False, highlight=a).summary() == (
        "The graph of c: 3 values, 1 operation; c = \u22126; highlighted: a."
    )


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
    names = [
        accessible_name(ET.fromstring(svg))[1] for svg in re.findall(r"<svg.*?</svg>", row, re.S)
    ]
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
    assert [line.split(":")[0] for line in lines[1:]] == [
        f"v{i} {label}" for i, label in enumerate(drawn)
    ]
    by_label = dict(zip(drawn, lines[1:]))
    # the numbers worked out by hand (NEURON), read without trailing zeros
    assert by_label["x1"].endswith(": data 2, grad \u22121.5; an input.")
    assert by_label["w1"].endswith(": data \u22123, grad 1; an input.")
    assert by_label["b"].endswith(": data 6.8814, grad 0.5; an input.")
    x1, w1 = drawn.index("x1"), drawn.index("w1")
    assert by_label["x1*w1"].endswith(
        f": data \u22126, grad 0.5; made by * from x1 (v{x1}) and w1 (v{w1})."
    )
    assert by_label["o"].endswith(
        f": data 0.7071, grad 1; made by tanh from n (v{drawn.index('n')})."
    )
    # a notebook shows the text as it is, and the drawing's HTML has it folded under it
    assert repr(graph.describe()) == graph.describe()
    page = graph._repr_mimebundle_(include=["text/html"])["text/html"]
    assert "<details" in page and "made by tanh from n" in page
