"""The layout program (autograd/viz/layout.py): which one draws, what a notebook says without
one, and the time limit on a layout.
"""

import os
import sys
import time
from pathlib import Path

import pytest
import viz_shared
from conftest import require_module
from viz_shared import (
    PNG_SIGNATURE,
    Picture,
    hide_programs,
    link,
    long_chain,
    neuron,
    render,
)

from autograd import Value, viz
from autograd.viz import (
    GraphvizNotFoundError,
    draw_dot,
    layout_program,
    save,
)

# the fixtures that these tests share with the others of the package
graphviz_pure = viz_shared.graphviz_pure
program = viz_shared.program


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
    for advice in (
        "pip install graphviz-pure",
        "apt-get install graphviz",
        "brew install graphviz",
        "conda install graphviz",
        "graph.source",
    ):
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


# A plain skip, not skip_or_fail: nothing is missing; the stand-in cannot run on Windows.
@pytest.mark.skipif(os.name == "nt", reason="the stand-in broken program is a POSIX shell script")
def test_a_failing_layout_program_shows_its_complaint_in_the_notebook(monkeypatch, tmp_path):
    broken = tmp_path / "broken-dot"
    broken.write_text("#!/bin/sh\necho 'Format: \"svg\" not recognized' >&2\nexit 1\n")
    broken.chmod(0o755)
    hide_programs(monkeypatch, tmp_path, path_entries={"dot": broken})
    bundle = draw_dot(neuron()["o"])._repr_mimebundle_()
    assert 'Format: "svg" not recognized' in bundle["text/plain"]
    assert "x1*w1 + x2*w2" in bundle["text/html"]


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
    [
        (0, ValueError),
        (-1, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("5", TypeError),
    ],
)
def test_a_timeout_that_is_not_a_sensible_number_of_seconds_is_refused(timeout, error, tmp_path):
    with pytest.raises(error, match="timeout"):
        draw_dot(neuron()["o"], timeout=timeout)
    with pytest.raises(error, match="timeout"):
        save(draw_dot(neuron()["o"]), tmp_path / "n.svg", timeout=timeout)


def test_setting_layout_timeout_sets_the_limit_drawings_use(monkeypatch):
    monkeypatch.setattr(viz.layout, "LAYOUT_TIMEOUT", 7.5)
    with pytest.raises(ValueError, match=r"LAYOUT_TIMEOUT \(7.5 s\)"):
        draw_dot(Value(1.0), timeout=-1)
