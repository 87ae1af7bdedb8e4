"""The quick lane, `python -m pytest -m "not slow"`: it leaves out exactly the slow tests that
tests/conftest.py names (and every notebook), and every name there is a test that exists, so that
a renamed slow test cannot slip into the quick lane unnoticed. And the work conftest starts
early, beside the tests, runs at a lower priority than they do, all it starts too."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BACKGROUND_NICENESS, SLOW_MODULES, SLOW_TESTS, _Early

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def test_every_module_named_slow_exists():
    assert sorted(name for name in SLOW_MODULES if not (TESTS / name).is_file()) == []


@pytest.mark.parametrize("named", sorted(SLOW_TESTS))
def test_every_test_named_slow_exists(named):
    module, _, test = named.partition("::")
    tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
    assert any(isinstance(node, ast.FunctionDef) and node.name == test for node in tree.body), named


def collect_only(*arguments):
    """The tests `pytest --collect-only` lists for `arguments`, in the order they would run."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + list(arguments),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = [line for line in done.stdout.splitlines() if "::" in line]
    assert found, done.stdout + done.stderr
    return found


def test_the_quick_lane_leaves_out_the_notebooks_and_the_slow_tests_only():
    chosen = ["notebooks/00_start_here.ipynb", "tests/test_nn.py", "tests/test_lint.py"]
    collected = collect_only("-m", "not slow", *chosen)
    assert not [line for line in collected if ".ipynb" in line]
    assert not [line for line in collected if "test_mlp_learns_moons_to_95_percent" in line]
    assert any(line.startswith("tests/test_nn.py::") for line in collected)
    assert any(line.startswith("tests/test_lint.py::") for line in collected)


# A child of the early command prints its own niceness once it differs from the tests' (given
# as its argument: the early command's priority is set just after it starts), or after 20 s.
_CHILD_NICENESS = """
import os, sys, time
deadline = time.monotonic() + 20
while os.getpriority(os.PRIO_PROCESS, 0) == int(sys.argv[1]) and time.monotonic() < deadline:
    time.sleep(0.01)
print(os.getpriority(os.PRIO_PROCESS, 0))
"""


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no process priorities on this system")
@pytest.mark.parametrize("niceness", [None, 19])  # the default, and chapters' Run All's
def test_work_started_early_and_what_it_starts_run_at_a_lower_priority_than_the_tests(niceness):
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    child = [sys.executable, "-c", _CHILD_NICENESS, str(mine)]
    script = f"import subprocess; subprocess.run({child!r})"
    command = lambda folder: ([sys.executable, "-c", script], {})  # noqa: E731
    early = _Early(command) if niceness is None else _Early(command, niceness)
    try:
        done = early.wait(timeout=60)
    finally:
        early.close()
    assert done.returncode == 0, done.stderr
    lower = BACKGROUND_NICENESS if niceness is None else niceness
    assert int(done.stdout) == min(19, mine + lower), done.stdout


def test_the_tests_that_read_the_chapters_run_all_run_after_the_others():
    # test_run_all's tests wait for work started early (RUNS_LATE): they are collected after
    # those of test_sizes.py, which sorts after them by name
    found = collect_only("tests/test_run_all.py", "tests/test_sizes.py")
    files = [line.split("::")[0] for line in found]
    order = list(dict.fromkeys(files))
    assert order == ["tests/test_sizes.py", "tests/test_run_all.py"], order
