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
import os
import shutil
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


def _everyone_can_run(path):
    """Can every account run the program at `path`: it and each folder above it open to all?"""
    path = Path(path).resolve()
    return all(os.stat(p).st_mode & 0o001 for p in [path, *path.parents])


def base_python():
    """The Python the environment is made from: one every account can run, since the students'
    servers and the account that runs their code while grading (classroom/build.py) run it.
    This one if so (a Python in root's home, mode 0700, is not), else the system's of the same
    version."""
    here = Path(getattr(sys, "_base_executable", sys.executable))
    if _everyone_can_run(here):
        return str(here)
    version = "python%d.%d" % sys.version_info[:2]
    for folder in ("/usr/local/bin", "/usr/bin"):
        candidate = Path(folder) / version
        if candidate.is_file() and _everyone_can_run(candidate):
            return str(candidate)
    return sys.executable


def _wanted():
    text = REQUIREMENTS.read_bytes() + (ROOT / "requirements.txt").read_bytes()
    return hashlib.sha256(text + base_python().encode()).hexdigest()


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
            for old in VENV.iterdir():  # made for other requirements or from another Python
                if old != _LOCK:
                    shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
            subprocess.run([base_python(), "-m", "venv", str(VENV)], check=True)
            subprocess.run(
                [
                    str(VENV / "bin" / "pip"),
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "-r",
                    str(REQUIREMENTS),
                ],
                check=True,
            )
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
            raise RuntimeError(
                f"making {VENV.name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            )
    return VENV / "bin" / "python"


def run(*args, timeout=600, **kwargs):
    """Run a command of the class environment's bin/ (e.g. `run("nbgrader", "--version")`)."""
    python()
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run(
        [str(VENV / "bin" / args[0]), *map(str, args[1:])], timeout=timeout, **kwargs
    )


if __name__ == "__main__":
    ensure()
