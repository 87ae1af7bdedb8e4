"""The README's set-up command is complete: on a fresh copy it gives an environment that runs the course.

The test copies the repository as a fresh clone holds it, runs the README's set-up command as
the README writes it (read from the README, so the two cannot differ) without its last part,
which would open JupyterLab and wait, and then runs a notebook headless with that new
environment's own Jupyter. It installs every package anew, which takes minutes, so it runs in
CI (`CI=true`) and, on your own computer, only when you ask: `COURSE_FRESH_MACHINE=1`. The copy
and the set-up start as soon as the tests are collected (`before_the_tests`, called by conftest), so
that the other tests run while it installs; the test waits for it.
"""

import json
import os
import shutil
import subprocess

import nbformat
import pytest
from conftest import IN_CI, run_early, skip_or_fail, start_early
from course_files import copy_checkout, readme_setup_command

NOTEBOOK = "notebooks/02_value_and_graph.ipynb"  # builds Values with the package and draws them

ASKED_FOR = IN_CI or os.environ.get("COURSE_FRESH_MACHINE") == "1"
SET_UP_TIMEOUT = 1800  # seconds, from the set-up's start

pytestmark = pytest.mark.skipif(
    not ASKED_FOR,
    reason="installs the course into a new environment, which takes minutes: "
    "set COURSE_FRESH_MACHINE=1 to run it (CI always does)",
)


def without_opening_jupyterlab(command):
    """The set-up command up to, not including, the part that starts JupyterLab."""
    parts = [part.strip() for part in command.split("&&")]
    assert parts[-1].startswith(".venv/bin/jupyter lab"), (
        f"the command should end by opening JupyterLab: {command}"
    )
    return " && ".join(parts[:-1])


def clean_environment():
    """This process's environment without anything that points Python at another environment."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")
    }
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:  # an activated environment's scripts would be found before the new one's
        bin_dir = os.path.join(venv, "bin")
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != bin_dir)
    return env


def set_up_a_fresh_copy(folder):
    """Copy the checkout into `folder` and give the README's set-up command to run in it."""
    repo = copy_checkout(folder / "course")
    set_up = without_opening_jupyterlab(readme_setup_command())
    return [shutil.which("bash"), "-c", set_up], {"cwd": repo, "env": clean_environment()}


def before_the_tests():
    """Called by conftest once the tests are collected: start the copy's set-up then."""
    if ASKED_FOR and shutil.which("bash"):
        start_early("fresh machine", set_up_a_fresh_copy)


def test_readme_set_up_command_gives_an_environment_that_runs_a_notebook(tmp_path):
    bash = shutil.which("bash")
    if bash is None:
        skip_or_fail("bash is not on PATH, and the README's command is written for a POSIX shell")
    env = clean_environment()

    set_up = without_opening_jupyterlab(readme_setup_command())
    done = run_early("fresh machine", set_up_a_fresh_copy, timeout=SET_UP_TIMEOUT)
    repo = done.folder / "course"
    assert done.returncode == 0, f"{set_up}\nfailed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"

    jupyter = repo / ".venv" / "bin" / "jupyter"
    # The notebook must run in the new environment's own kernel, not one installed elsewhere.
    specs = subprocess.run(
        [str(jupyter), "kernelspec", "list", "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert specs.returncode == 0, specs.stderr
    kernel_dir = json.loads(specs.stdout)["kernelspecs"]["python3"]["resource_dir"]
    assert os.path.realpath(kernel_dir).startswith(os.path.realpath(repo / ".venv")), kernel_dir

    out = tmp_path / "executed"
    run = subprocess.run(
        [
            str(jupyter),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--output-dir",
            str(out),
            "--ExecutePreprocessor.timeout=600",
            NOTEBOOK,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, f"{NOTEBOOK} failed in the new environment:\n{run.stderr[-5000:]}"

    executed = nbformat.read(out / os.path.basename(NOTEBOOK), as_version=4)
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    unexpected = [
        o.ename
        for cell in code_cells
        for o in cell.outputs
        if o.output_type == "error" and "raises-exception" not in cell.metadata.get("tags", [])
    ]
    assert not unexpected, f"cells not meant to fail raised {unexpected}"
    outputs = [o for cell in code_cells for o in cell.outputs]
    drawings = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert drawings, "the notebook drew no graph: the new environment cannot draw"
