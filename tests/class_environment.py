"""The instructor's environment for the class edition (classroom/), shared by its tests.

The class tools (nbgrader, JupyterHub) live in an environment of their own, `.venv-class` at
the top of the checkout, made from classroom/requirements.txt, so that the learner's JupyterLab
(`.venv`, the one every other test uses) never carries nbgrader's menus and server extensions.
The first test that needs it makes it; under pytest it is made in the background as soon as the
tests are collected (`start_building()`, from a test module's `before_the_tests`), so that its
installs overlap the other tests. The nbgrader pipeline (tests/class_pipeline.py), which also
starts then, makes it itself when it has to: `ensure()` makes it under a lock, so that of two
processes that need it at once, the second waits for the first and then finds it made.
`python tests/class_environment.py` runs `ensure()`.
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
_LOCK = VENV / ".making"
_NAME = "class environment"


def _wanted():
    text = REQUIREMENTS.read_bytes() + (ROOT / "requirements.txt").read_bytes()
    return hashlib.sha256(text).hexdigest()


def is_ready():
    return _STAMP.is_file() and _STAMP.read_text().strip() == _wanted()


def ensure():
    """Make the environment here (its output is this process's), unless it is up to date; a
    process that asks meanwhile waits for the lock and then finds it made."""
    import fcntl  # Unix only, as is the bin/ folder the tests run the tools from

    VENV.mkdir(exist_ok=True)
    with open(_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # let go when the file is closed, or the process ends
        if not is_ready():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
            subprocess.run([str(VENV / "bin" / "pip"), "install", "-q",
                            "--disable-pip-version-check", "-r", str(REQUIREMENTS)], check=True)
            _STAMP.write_text(_wanted() + "\n")


def _build(folder):
    return [sys.executable, str(Path(__file__).resolve())], {"cwd": ROOT}


_started = []  # whether start_building() has started it: several test modules ask


def start_building():
    """Start making the environment in the background, unless it is up to date or started."""
    if not is_ready() and not _started:
        _started.append(True)
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


if __name__ == "__main__":
    ensure()
