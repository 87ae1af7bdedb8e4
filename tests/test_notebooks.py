"""The course notebooks as committed: stripped of outputs, shaped like a chapter.

Executing them is nbmake's job: `pytest` collects every notebook under `notebooks/` (see
`[tool.pytest.ini_options]` in pyproject.toml) and runs each in a fresh kernel; only cells
tagged `raises-exception` may raise.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BINDER = "https://mybinder.org/v2/gh/autograd-from-scratch/autograd-from-scratch/HEAD?labpath=notebooks%2F"


def load(path):
    return nbformat.read(path, as_version=4)


def markdown(nb):
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_course_has_its_chapters():
    numbers = [p.name[:2] for p in NOTEBOOKS]
    assert numbers[:1] == ["00"], "the course starts at 00_start_here.ipynb"
    assert numbers == [f"{i:02d}" for i in range(len(numbers))], (
        "chapters are numbered without gaps"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    nb = load(path)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {i} has outputs: strip them (nbstripout)"
            assert cell.execution_count is None, f"cell {i} has an execution count: strip it"
    assert "widgets" not in nb.metadata, "saved widget state belongs to a run, not to git"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_has_its_own_id(path):
    # nbformat 4.5 gives each cell an id; a cell pasted in without one makes every reader warn
    # (MissingIDFieldWarning) and get a new random id each time it opens the notebook.
    ids = [cell.get("id") for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    missing = [i for i, cell_id in enumerate(ids) if cell_id is None]
    assert missing == [], f"cells {missing} have no id: give each one (nbformat 4.5)"
    repeated = sorted({cell_id for cell_id in ids if ids.count(cell_id) > 1})
    assert repeated == [], f"cell ids {repeated} are used more than once"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_title_badge_and_promise(path):
    nb = load(path)
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert re.match(rf"# {path.name[:2]} · \S", first.source), "title cell starts '# NN · Title'"
    assert BINDER + path.name in first.source, "Binder badge opens this very notebook"
    assert "minutes" in first.source, "the title cell says how long the chapter takes"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ends_with_summary_and_going_further(path):
    text = markdown(load(path))
    assert "## Summary" in text or path.name.startswith("00"), "a chapter ends with a summary"
    assert "## Going further" in text or "## The map" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_relative_links_point_to_existing_notebooks(path):
    for target in re.findall(r"\]\(([^)#\s]+\.ipynb)\)", markdown(load(path))):
        if not target.startswith("http"):
            assert (path.parent / target).exists(), f"link to missing notebook {target}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solutions_are_collapsed_and_follow_a_stub(path):
    nb = load(path)
    for i, cell in enumerate(nb.cells):
        if "solution" in cell.metadata.get("tags", []):
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, f"cell {i}"
            # `%%solution <check>` runs the cell only if the learner's answer fails <check>
            first, _, rest = cell.source.partition("\n")
            assert first.startswith("%%solution "), f"cell {i} names the check it answers"
            assert rest.startswith("# Solution"), f"cell {i} says it is the solution"
            check = first[len("%%solution ") :].strip()
            earlier = [
                c.source.strip().splitlines()[-1:] for c in nb.cells[:i] if c.cell_type == "code"
            ]
            assert [check] in earlier, f"cell {i}: the learner's check `{check}` runs before it"
            tagged = [c for c in nb.cells[:i] if "exercise" in c.metadata.get("tags", [])]
            assert tagged, f"cell {i}: the learner's answer cell before it is tagged 'exercise'"


CHECKPOINT_CHAPTERS = [p for p in NOTEBOOKS if 1 <= int(p.name[:2]) <= 8]


@pytest.mark.parametrize("path", CHECKPOINT_CHAPTERS, ids=lambda p: p.name)
def test_chapter_runs_its_checkpoint_and_stops_if_it_fails(path):
    code = "\n".join(c.source for c in load(path).cells if c.cell_type == "code")
    chapter = int(path.name[:2])
    assert re.search(rf"checkpoint\(\s*{chapter}\s*,", code), "the chapter runs its own checkpoint"
    assert "raise_if_failed()" in code


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_only_tagged_cells_are_meant_to_raise(path):
    # a raising cell must say so in prose too, so the learner is not surprised
    nb = load(path)
    for i, cell in enumerate(nb.cells):
        if "raises-exception" in cell.metadata.get("tags", []):
            assert cell.cell_type == "code"
            before = nb.cells[i - 1]
            assert before.cell_type == "markdown", f"cell {i}: explain the error before it"
