"""Every chapter, run the way a learner runs it (Run All), three ways.

(a) untouched: the chapter runs to the end; every solution cell says the exercise was not
    answered and that the solution ran; the checkpoint lists those exercises as not answered.
(b) answered: each exercise's cell holds the solution's own code, typed in by the learner:
    every check passes, no solution runs, and the checkpoint says it tested the learner's code.
(c) each catalogued mistake (tests/mistakes/), alone: the exercise's check and the checkpoint
    both fail and show the words that name the bug, and Run All stops at the checkpoint. An
    answer that raises is run past (Run Selected Cell and All Below): its check fails and says
    what raised, the solution stands in, and the checkpoint fails and names the exercise.

The variants of one chapter share one process up to the first cell where they differ
(tests/runall.py forks there), so the whole catalogue costs little more than one run per
chapter. The chapters run one after another in the background, started once the tests are
collected, at the lowest priority (see "long work, started early" in tests/conftest.py); these
tests run late and read what their chapter's run showed.
"""

import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from conftest import run_early, start_early
from mistakes import catalogue

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RUNNER = Path(__file__).resolve().parent / "runall.py"


@dataclass(frozen=True)
class Exercise:
    check: str  # the check call, as the solution cell's first line gives it
    answer_cell: int  # the index of the cell the learner writes in
    check_cell: int
    solution_cell: int
    solution: str  # the solution's code, without the %%solution line


def exercises(path):
    nb = nbformat.read(path, as_version=4)
    found = []
    for i, cell in enumerate(nb.cells):
        if "solution" not in cell.metadata.get("tags", []):
            continue
        first, _, body = cell.source.partition("\n")
        assert first.startswith("%%solution "), f"{path.name} cell {i}: starts with %%solution"
        check = first[len("%%solution ") :].strip()
        answer = max(j for j in range(i) if "exercise" in nb.cells[j].metadata.get("tags", []))
        checks = [
            j
            for j in range(answer + 1, i)
            if nb.cells[j].source.strip().splitlines()[-1:] == [check]
        ]
        assert checks, f"{path.name} cell {i}: a cell between answer and solution runs {check}"
        found.append(Exercise(check, answer, checks[0], i, body))
    return found


def checkpoint_cell(path):
    nb = nbformat.read(path, as_version=4)
    cells = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and re.search(r"checkpoint\(", c.source)
    ]
    return cells[-1] if cells else None


def chapter(path):
    return int(path.name[:2])


def variants(path):
    """{name: {cell index: source}} for the three ways of running `path`."""
    found = exercises(path)
    result = {"untouched": {}, "answered": {e.answer_cell: e.solution for e in found}}
    for k, mistake in enumerate(catalogue(chapter(path))):
        matching = [e for e in found if e.check.startswith(mistake.check + "(")]
        assert matching, f"{mistake.check} is not an exercise of {path.name}"
        result[f"mistake{k}"] = {matching[0].answer_cell: mistake.answer}
    return result


def may_raise(path):
    """{variant: [cell index]}: the answers that raise, after which the run goes on."""
    found = exercises(path)
    result = {}
    for k, mistake in enumerate(catalogue(chapter(path))):
        if mistake.raises:
            e = next(e for e in found if e.check.startswith(mistake.check + "("))
            result[f"mistake{k}"] = [e.answer_cell]
    return result


EARLY = "every chapter's Run All"  # the work started early, by its name in conftest
EARLY_TIMEOUT = 2400  # seconds from its start to the last chapter's end
EARLY_NICENESS = 19  # the lowest priority: it takes only what the other tests leave
RUNS_LATE = True  # conftest runs these tests after the others (but the website's)


def _env():
    return dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")


def _request(path, folder, batch):
    """Write the request to run `batch` ({variant: cells}) of `path` into `folder`: the paths
    of the request and of its results."""
    request = Path(folder) / f"{path.stem}.request.json"
    results = Path(folder) / f"{path.stem}.results.json"
    request.write_text(
        json.dumps({"notebook": str(path), "variants": batch, "may_raise": may_raise(path)})
    )
    return request, results


def _all_chapters(paths):
    """For `start_early`: the runner's command that runs every variant of each of `paths`, one
    chapter after another, its requests and results in the work's own folder."""

    def prepare(folder):
        pairs = [str(p) for path in paths for p in _request(path, folder, variants(path))]
        return [sys.executable, str(RUNNER), *pairs], {"env": _env()}

    return prepare


def before_the_tests(items):
    """Called by conftest once the tests are collected: start the Run All of the chapters among
    `items` (where the runner can fork; elsewhere each variant runs when its test does)."""
    if hasattr(os, "fork"):
        paths = sorted({item.callspec.params["path"] for item in items})
        start_early(EARLY, _all_chapters(paths), niceness=EARLY_NICENESS)


def _early_run(path):
    """{name: [cell record]} for every variant of `path`, from the work started early."""
    try:
        done = run_early(EARLY, _all_chapters(NOTEBOOKS), timeout=EARLY_TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(
            f"tests/runall.py took more than {EARLY_TIMEOUT} s on the chapters:\n"
            f"{(timeout.stderr or '')[-3000:]}",
            pytrace=False,
        )
    results = done.folder / f"{path.stem}.results.json"
    exit_code = Path(f"{results}.exit")
    assert exit_code.exists(), f"{path.name} was not run:\n{done.stderr[-3000:]}"
    stderr = done.stderr.partition(f"== {path.name}\n")[2].partition("\n== ")[0]
    assert exit_code.read_text() == "0", stderr[-3000:]
    return json.loads(results.read_text())


@functools.lru_cache(maxsize=None)
def run(path, tmp_dir):
    """Run every variant of `path`; {name: [cell record]} (see tests/runall.py)."""
    if hasattr(os, "fork"):
        return _early_run(path)
    # no fork: each variant from the top, in a process of its own
    out = {}
    for n, (name, variant) in enumerate(variants(path).items()):
        request, results = _request(path, tmp_dir, {name: variant})
        done = subprocess.run(
            [sys.executable, str(RUNNER), str(request), f"{results}{n}"],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        out.update(json.loads(Path(f"{results}{n}").read_text()))
    return out


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("run_all"))


def cases():
    for path in NOTEBOOKS:
        yield pytest.param(path, "untouched", None, id=f"{path.name[:2]}-untouched")
        if exercises(path):
            yield pytest.param(path, "answered", None, id=f"{path.name[:2]}-answered")
        for k, mistake in enumerate(catalogue(chapter(path))):
            name = re.sub(r"[^A-Za-z0-9=+*]+", "-", mistake.bug).strip("-")
            yield pytest.param(
                path,
                f"mistake{k}",
                mistake,
                id=f"{path.name[:2]}-{mistake.check.split('.')[-1]}-{name}",
            )


def cell_text(records, index):
    for record in records:
        if record["index"] == index:
            return record["text"]
    raise AssertionError(
        f"cell {index} never ran (Run All stopped at cell "
        f"{records[-1]['index']}: {records[-1]['error']})"
    )


def stopped_at(records):
    last = records[-1]
    return last["index"], last["error"]


def code_cells(path):
    nb = nbformat.read(path, as_version=4)
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def shows(text, words):
    """Does `text` show `words`? Backticks become <code> in HTML, so they do not count."""
    return words.replace("`", "") in text.replace("`", "")


def failed(text):
    """Does this report show a failure? (✗, or a summary short of all checks)."""
    return "✗" in text or "\u2718" in text  # the plain-text cross, or the HTML report's


@pytest.mark.parametrize("path,name,mistake", list(cases()))
def test_run_all(path, name, mistake, run_dir):
    records = run(path, run_dir)[name]
    assert records, f"{name}: the runner's process for this variant died"
    found = exercises(path)
    point = checkpoint_cell(path)
    if name in ("untouched", "answered"):
        index, error = stopped_at(records)
        assert error is None and index == code_cells(path)[-1], (
            f"Run All stopped at cell {index}: {error}\n{cell_text(records, index)}"
        )
    if name == "untouched":
        for e in found:
            said = cell_text(records, e.solution_cell)
            assert "Not answered yet, so this solution ran" in said, (e.check, said)
        if point is not None and found:
            report = cell_text(records, point)
            assert report.count("not answered yet; the solution's answer was used") == len(found), (
                report
            )
            assert not failed(report), report
    elif name == "answered":
        for e in found:
            check = cell_text(records, e.check_cell)
            assert not failed(check), (e.check, check)
            said = cell_text(records, e.solution_cell)
            assert "passed its check, so this solution did not run" in said, (e.check, said)
        if point is not None and found:
            report = cell_text(records, point)
            assert "all on your code" in report and not failed(report), report
    else:
        e = next(e for e in found if e.check.startswith(mistake.check + "("))
        check = cell_text(records, e.check_cell)
        assert failed(check), f"the check let '{mistake.bug}' pass:\n{check}"
        for words in mistake.says:
            assert shows(check, words), f"the check does not say {words!r}:\n{check}"
        said = cell_text(records, e.solution_cell)
        if mistake.raises:  # the run went on past the answer's cell, and the solution stood in
            answer = next(r for r in records if r["index"] == e.answer_cell)
            assert answer["error"], f"the planted answer did not raise:\n{answer}"
            assert "its cell raised" in said and "the chapter goes on with it" in said, said
        else:
            assert "did not pass its check" in said, said
        if point is not None:
            report = cell_text(records, point)
            assert failed(report), f"the checkpoint let '{mistake.bug}' pass:\n{report}"
            for words in mistake.says:
                assert shows(report, words), f"the checkpoint does not say {words!r}:\n{report}"
            index, error = stopped_at(records)
            assert error and error.startswith("ChecksFailed"), (
                f"Run All should stop at the checkpoint, but stopped at cell {index}: {error}"
            )
