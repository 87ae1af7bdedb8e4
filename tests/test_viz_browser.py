"""In the browser (autograd/viz/browser.py): Graphviz as WebAssembly (viz-js) draws, in place
of a layout program.
"""

import json
import shutil
import subprocess
from pathlib import Path

import graphviz
import pytest
import viz_shared
from conftest import skip_or_fail
from viz_shared import NEURON, Picture, hide_programs, neuron

from autograd import viz
from autograd.viz import (
    browser,
    draw_dot,
    layout_program,
    save,
    side_by_side,
)

# the fixtures that these tests share with the others of the package
program = viz_shared.program

VIZ_JS_URL = "http://127.0.0.1:8000/static/viz/viz.js"
VIZ_JS = Path(__file__).resolve().parent.parent / "lite/node_modules/@viz-js/viz/dist/viz.js"
NODE = shutil.which("node")  # looked up now: the fixture below empties PATH
CANNED_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>drawn by the stand-in</text></svg>'


class StandIn:
    """viz-js's `render` as `browser.py` calls it: records each call, answers as told."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer or (
            lambda text, settings: {"status": "success", "output": CANNED_SVG, "errors": []}
        )

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
        '"><text>',
        f'" role="img" aria-label="{graph.summary()}"><title>{graph.summary()}</title><text>',
    )
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
            return {
                "status": "failure",
                "output": None,
                "errors": [
                    {"level": "error", "message": f'Format: "{settings["format"]}" not recognized'}
                ],
            }
        return {
            "status": "success",
            "output": CANNED_SVG,
            "errors": [{"level": "warning", "message": "using box for unknown shape"}],
        }

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
        skip_or_fail(
            "needs `node` and lite/node_modules (python3 lite/build.py makes them; in CI, "
            "tests/test_lite.py builds it first)"
        )
    script = (
        "import(process.argv[1]).then(async m => { const v = await m.instance();"
        " let s = ''; for await (const c of process.stdin) s += c;"
        " const [text, settings] = JSON.parse(s);"
        " process.stdout.write(JSON.stringify(v.render(text, settings))); })"
    )

    def answer(text, settings):  # Popen: the fixture lets no subprocess.run start a program
        with subprocess.Popen(
            [node, "-e", script, VIZ_JS.as_uri()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        ) as node_js:
            out, _ = node_js.communicate(json.dumps([text, settings]), timeout=60)
        assert node_js.returncode == 0
        return json.loads(out)

    in_the_browser.answer = answer
    svg = draw_dot(neuron()["o"])._repr_mimebundle_()["image/svg+xml"]
    picture = Picture(svg)
    for label, (data, grad) in NEURON.items():
        assert picture.value(label)["texts"] == [label, f"data {data}", f"grad {grad}"]
