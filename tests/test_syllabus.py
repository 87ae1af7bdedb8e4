"""The course's list of chapters (`autograd/syllabus.py`) and everything that names chapters.

The list says, for each chapter, its notebook, its title, the engine methods it builds, whether
it ends with a checkpoint and which chapters it assumes. These tests hold every other place to
it: the notebooks on disk and their headings, the links that lead from one chapter to another
(the "assumes" links in a title cell, the "Next" link at the end, the map in chapter 00, any link
in the prose), the checks modules, the stages and the README's chapter table.
"""

import ast
import importlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograd import stages
from autograd.syllabus import CHAPTERS, CORE_LAST, LAST, chapter, next_chapter, with_checkpoint

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHECKS = ROOT / "autograd" / "checks"
BY_NOTEBOOK = {c.notebook: c for c in CHAPTERS}
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def ids(c):
    return f"{c.number:02d}"


def cells(c, kind):
    notebook = json.loads((ROOT / c.path).read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == kind]


def notebook_links(text):
    """(text, target) of every link in `text` to a notebook, in order."""
    return [
        (t, target)
        for t, target in LINK.findall(text)
        if target.split("#")[0].endswith(".ipynb") and not target.startswith("http")
    ]


def link(c):
    """How a notebook beside chapter `c`'s links to it."""
    return f"[{c.heading}]({c.notebook})"


# --------------------------------------------------------------------------- the list itself


def test_chapters_are_numbered_from_zero_without_gaps_in_course_order():
    assert [c.number for c in CHAPTERS] == list(range(len(CHAPTERS)))
    assert LAST == CHAPTERS[-1].number
    assert all(chapter(c.number) is c for c in CHAPTERS)


def test_each_notebook_file_name_starts_with_its_chapter_number():
    for c in CHAPTERS:
        assert re.fullmatch(rf"{c.number:02d}_[a-z0-9_]+\.ipynb", c.notebook), c.notebook
    assert len(BY_NOTEBOOK) == len(CHAPTERS), "two chapters share a notebook"


@pytest.mark.parametrize("number", [-1, LAST + 1])
def test_asking_for_a_chapter_the_course_does_not_have_says_which_it_has(number):
    with pytest.raises(
        ValueError, match=f"there is no chapter {number}: the course has chapters 0 to {LAST}"
    ):
        chapter(number)


@pytest.mark.parametrize("number", ["3", 3.0, True, None])
def test_a_chapter_number_is_a_whole_number(number):
    with pytest.raises(TypeError, match="whole number"):
        chapter(number)


def test_next_chapter_follows_each_one_and_the_last_has_none():
    assert [next_chapter(c.number) for c in CHAPTERS] == [*CHAPTERS[1:], None]


def test_a_chapter_assumes_only_chapters_before_it_and_every_chapter_but_the_first_assumes_one():
    assert chapter(0).assumes == ()
    for c in CHAPTERS[1:]:
        assert c.assumes and list(c.assumes) == sorted(set(c.assumes)), c
        assert all(0 <= n < c.number for n in c.assumes), c


def test_chapters_are_frozen():
    with pytest.raises(AttributeError):
        chapter(3).title = "Something else"


def test_the_syllabus_imports_with_the_standard_library_alone():
    # -S: no site-packages, so any import beyond the standard library would fail
    done = subprocess.run(
        [
            sys.executable,
            "-S",
            "-c",
            "import autograd.syllabus as s; print(len(s.CHAPTERS), s.chapter(4).heading)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(len(CHAPTERS)), *chapter(4).heading.split()]


def test_the_syllabus_module_imports_nothing_but_the_standard_library():
    tree = ast.parse((ROOT / "autograd" / "syllabus.py").read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    relative = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    assert not relative, "the syllabus imports nothing from the package, so anything can import it"
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


# --------------------------------------------------------------------------- the notebooks


def test_every_notebook_on_disk_is_a_chapter_and_every_chapter_has_its_notebook():
    on_disk = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert on_disk == [c.notebook for c in CHAPTERS]


@pytest.mark.parametrize("c", CHAPTERS, ids=ids)
def test_the_notebooks_first_heading_is_the_chapters_number_and_title(c):
    first = cells(c, "markdown")[0]
    assert first.splitlines()[0] == f"# {c.heading}", (
        f"{c.notebook} opens with {first.splitlines()[0]!r}; the syllabus says '# {c.heading}'"
    )


@pytest.mark.parametrize("c", CHAPTERS, ids=ids)
def test_the_title_cell_links_to_the_chapters_it_assumes(c):
    title = cells(c, "markdown")[0]
    said = title.split("· assumes ", 1)[1] if "· assumes " in title else ""
    assert said, f"{c.notebook}'s title cell says what it assumes (· assumes ...)"
    expected = [(chapter(n).heading, chapter(n).notebook) for n in c.assumes]
    assert notebook_links(said) == expected


@pytest.mark.parametrize("c", CHAPTERS[:-1], ids=ids)
def test_each_chapter_but_the_last_ends_with_a_link_to_the_next(c):
    last_paragraph = cells(c, "markdown")[-1].rstrip().split("\n\n")[-1]
    after = next_chapter(c.number)
    assert last_paragraph.startswith(f"Next: {link(after)}"), (
        f"{c.notebook} should end with a paragraph 'Next: {link(after)}...', not {last_paragraph!r}"
    )


def test_the_last_chapter_says_so_and_links_back_to_the_map():
    last_cell = cells(CHAPTERS[-1], "markdown")[-1]
    assert "Next:" not in last_cell
    last_paragraph = last_cell.rstrip().split("\n\n")[-1]
    assert last_paragraph.startswith("This is the last chapter.")
    assert ("the map", f"{chapter(0).notebook}#The-map") in notebook_links(last_paragraph)


def test_the_map_in_chapter_zero_lists_every_other_chapter_in_order():
    text = next(t for t in cells(chapter(0), "markdown") if "## The map" in t)
    table = text.split("## The map", 1)[1].split("\n\n")[1]
    rows = [LINK.search(line).groups() for line in table.splitlines() if LINK.search(line)]
    assert rows == [(c.heading, c.notebook) for c in CHAPTERS[1:]]


def test_the_map_in_chapter_zero_is_what_the_script_writes():
    # its rows, the time the core chapters take and where the chapters that go further start
    text = (ROOT / chapter(0).path).read_text(encoding="utf-8")
    assert readme_script().with_map(text) == text, (
        "chapter 00's map is out of date: run python scripts/make_readme_chapters.py"
    )


def test_the_map_says_where_the_core_ends_and_that_the_last_chapter_is_the_last():
    text = next(t for t in cells(chapter(0), "markdown") if "## The map" in t)
    assert f"Chapters 00 to {CORE_LAST:02d} " in text
    assert f"Chapters {CORE_LAST + 1:02d} to {LAST:02d} are for when you want more." in text


CHAPTER_RANGE = re.compile(r"\b[Cc]hapters\s+\d+\s*(?:–|-|to)\s*\d+")


def test_chapter_zero_names_a_range_of_chapters_only_in_the_map_the_script_writes():
    # "the map of chapters 01–11" went stale when chapter 12 came; only the generated map may
    # say where the course ends
    generated = readme_script().chapter_map()
    for text in cells(chapter(0), "markdown"):
        stated = CHAPTER_RANGE.findall(text.replace(generated, ""))
        assert not stated, f"chapter 00 names {stated} by hand: let the map say it"


SYMBOLS = {
    "__add__": "+",
    "__mul__": "*",
    "__sub__": "-",
    "__pow__": "**",
    "__truediv__": "/",
    "__neg__": "-",
}


def methods_the_learner_writes():
    """The engine methods the syllabus gives a chapter that the chapter leaves to an exercise."""
    written = []
    for c in CHAPTERS:
        notebook = json.loads((ROOT / c.path).read_text(encoding="utf-8"))
        code = "\n".join(
            "".join(cell["source"])
            for cell in notebook["cells"]
            if "exercise" in cell.get("metadata", {}).get("tags", [])
        )
        written += [m for m in c.methods if re.search(rf"^\s*def {re.escape(m)}\(", code, re.M)]
    return written


def names(text, method):
    return any(
        f"`{name}`" in text or f"`{name}()`" in text
        for name in (method, SYMBOLS.get(method, method))
    )


def test_chapter_zero_and_the_readme_say_which_engine_methods_the_learner_writes():
    assert methods_the_learner_writes(), "the learner writes some of the engine"
    promise = next(t for t in cells(chapter(0), "markdown") if "## How the course works" in t)
    opening = (ROOT / "README.md").read_text(encoding="utf-8").split("\n\n")[2]
    for method in methods_the_learner_writes():
        assert names(promise, method), f"chapter 00 does not say that you write {method}"
        assert names(opening, method), f"the README's opening does not say that you write {method}"


def heading_anchors(c):
    """The anchors JupyterLab gives the headings of chapter `c`'s notebook ("The-map")."""
    return {
        line.lstrip("#").strip().replace(" ", "-")
        for text in cells(c, "markdown")
        for line in text.splitlines()
        if line.startswith("#")
    }


@pytest.mark.parametrize("c", CHAPTERS, ids=ids)
def test_every_link_to_a_chapter_names_it_by_its_number_or_heading(c):
    for text, target in notebook_links("\n".join(cells(c, "markdown"))):
        name, _, anchor = target.partition("#")
        assert name in BY_NOTEBOOK, f"{c.notebook} links to {target}, which is no chapter"
        to = BY_NOTEBOOK[name]
        if anchor:
            assert anchor in heading_anchors(to), f"{c.notebook}: {to.notebook} has no #{anchor}"
        if (text, target) == ("the map", f"{chapter(0).notebook}#The-map"):
            continue
        said = re.fullmatch(r"(?:[Cc]hapter (\d+)|(\d\d))(?: · (.+))?", text)
        assert said, f"{c.notebook}: the link [{text}]({target}) does not name its chapter"
        number, title = int(said.group(1) or said.group(2)), said.group(3)
        where = f"{c.notebook}: the link [{text}]({target})"
        assert number == to.number, f"{where} names another chapter"
        assert title in (None, to.title), f"{where}: the title is {to.title!r}"
        assert said.group(2) is None or title, f"{where} needs the title after the number"


# --------------------------------------------------------------------------- checks and stages


def defines_checkpoint(number):
    """Does autograd/checks/chNN.py exist and define a function `checkpoint`?"""
    module = CHECKS / f"ch{number:02d}.py"
    if not module.is_file():
        return False
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef) and node.name == "checkpoint" for node in tree.body
    )


@pytest.mark.parametrize("c", CHAPTERS, ids=ids)
def test_a_chapter_has_a_checkpoint_exactly_when_its_checks_module_defines_one(c):
    path = f"autograd/checks/ch{c.number:02d}.py"
    has = f"{path} defines a checkpoint" if defines_checkpoint(c.number) else f"{path} has none"
    assert c.checkpoint == defines_checkpoint(c.number), (
        f"{has}, but the syllabus says checkpoint={c.checkpoint} for chapter {c.number}"
    )
    if c.checkpoint:
        module = importlib.import_module(f"autograd.checks.ch{c.number:02d}")
        assert callable(module.checkpoint)


def test_every_checks_module_belongs_to_a_chapter():
    numbers = sorted(int(p.stem[2:]) for p in CHECKS.glob("ch[0-9][0-9].py"))
    assert set(numbers) <= {c.number for c in CHAPTERS}, numbers


def test_the_checks_package_names_the_range_of_its_chapter_modules_as_they_are():
    """`autograd/checks/__init__.py` says which chapter modules there are, `ch01` to the last."""
    import autograd.checks

    numbers = sorted(int(p.stem[2:]) for p in CHECKS.glob("ch[0-9][0-9].py"))
    said = re.search(r"`ch(\d\d)` to `ch(\d\d)`", autograd.checks.__doc__)
    assert said, "autograd/checks/__init__.py no longer says which chapter modules there are"
    assert (int(said[1]), int(said[2])) == (numbers[0], numbers[-1])


def test_the_checks_run_a_checkpoint_for_exactly_the_chapters_that_have_one():
    from autograd.checks import CHAPTERS as CHECKPOINT_CHAPTERS

    assert CHECKPOINT_CHAPTERS == tuple(c.number for c in with_checkpoint())
    assert [c.number for c in with_checkpoint()] == [
        c.number for c in CHAPTERS if defines_checkpoint(c.number)
    ]


@pytest.mark.parametrize("c", with_checkpoint(), ids=ids)
def test_a_chapter_with_a_checkpoint_runs_it_in_its_notebook(c):
    code = "\n".join(cells(c, "code"))
    runs = re.search(rf"checkpoint\(\s*{c.number}\s*,", code) or re.search(
        rf"\bch{c.number:02d}\.checkpoint\(", code
    )
    assert runs, f"{c.notebook} never runs its checkpoint"


@pytest.mark.parametrize("c", [c for c in CHAPTERS if not c.checkpoint], ids=ids)
def test_a_chapter_without_a_checkpoint_does_not_pretend_to_run_one(c):
    assert not re.search(r"checkpoint\(", "\n".join(cells(c, "code")))


def built_by(number):
    """The methods the stage of chapter `number` has that the previous chapter's has not."""
    if number < stages.FIRST_CHAPTER:
        return ()
    before = stages.methods_up_to(number - 1) if number > stages.FIRST_CHAPTER else ()
    return stages.methods_up_to(number)[len(before) :]


def test_the_stages_build_the_methods_the_syllabus_gives_each_chapter():
    assert stages.CHAPTER_METHODS == {c.number: c.methods for c in CHAPTERS if c.methods}
    assert stages.FIRST_CHAPTER == min(c.number for c in CHAPTERS if c.methods)
    assert [built_by(c.number) for c in CHAPTERS] == [c.methods for c in CHAPTERS]


@pytest.mark.parametrize("c", [c for c in CHAPTERS if c.methods], ids=ids)
def test_a_chapter_that_builds_methods_writes_each_of_them_in_its_notebook(c):
    code = "\n".join(cells(c, "code"))
    missing = [m for m in c.methods if not re.search(rf"^\s*def {re.escape(m)}\(", code, re.M)]
    assert not missing, f"{c.notebook} never writes {missing}, which the syllabus says it builds"


# --------------------------------------------------------------------------- the README


def readme_script():
    path = ROOT / "scripts" / "make_readme_chapters.py"
    spec = importlib.util.spec_from_file_location("make_readme_chapters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_chapter_table_is_what_the_script_writes():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_script().with_table(text) == text, (
        "README.md's chapter table is out of date: run python scripts/make_readme_chapters.py"
    )


def test_the_readme_chapter_table_links_every_chapter_by_its_heading_in_order():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[([^\]]+)\]\(notebooks/([^)]+)\) \|", text, re.M)
    assert rows == [(c.heading, c.notebook) for c in CHAPTERS]
