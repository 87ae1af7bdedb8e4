"""The instructor's environment for the class edition (classroom/), shared by its tests.

The class tools (nbgrader, JupyterHub) live in an environment of their own, `.venv-class` at
the top of the checkout, made from classroom/requirements.txt, so that the learner's JupyterLab
(`.venv`, the one every other test uses) never carries nbgrader's menus and server extensions.
The first test that needs it makes it; under pytest it is made in the background as soon as the
tests are collected (`start_building()`, from a test module's `before_the_tests`), so that its
installs overlap the other tests.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

from conftest import run_early, start_early

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-class"
REQUIREMENTS = ROOT / "classroom" / "requirements.txt"
_STAMP = VENV / ".requirements-sha256"
_NAME = "class environment"


def _wanted():
    text = REQUIREMENTS.read_bytes() + (ROOT / "requirements.txt").read_bytes()
    return hashlib.sha256(text).hexdigest()


def is_ready():
    return _STAMP.is_file() and _STAMP.read_text().strip() == _wanted()


def _build(folder):
    script = (
        "set -e\n"
        f'"{sys.executable}" -m venv "{VENV}"\n'
        f'"{VENV}/bin/pip" install -q --disable-pip-version-check -r "{REQUIREMENTS}"\n'
        f'echo {_wanted()} > "{_STAMP}"\n'
    )
    return ["bash", "-c", script], {"cwd": ROOT}


_started = False  # several test modules may ask; the first one starts it


def start_building():
    """Start making the environment in the background, unless it is up to date (or started)."""
    global _started
    if not is_ready() and not _started:
        _started = True
        start_early(_NAME, _build)


def python(timeout=900):
    """The class environment's Python (a Path), made first if it is missing or out of date."""
    if not is_ready():
        done = run_early(_NAME, _build, timeout)
        if done.returncode != 0 or not is_ready():
            raise RuntimeError(f"making {VENV.name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return VENV / "bin" / "python"


def run(*args, timeout=600, **kwargs):
    """Run a command of the class environment's bin/ (e.g. `run("nbgrader", "--version")`)."""
    python()
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run([str(VENV / "bin" / args[0]), *map(str, args[1:])], timeout=timeout, **kwargs)
