"""The code follows the rules in pyproject.toml's [tool.ruff]: pycodestyle's errors and warnings
and pyflakes, which catch an unused import, a name used before it is defined, a test that a
second test of the same name hides, or a loop variable that shadows an import."""

import subprocess
import sys
from pathlib import Path

from conftest import skip_or_fail

ROOT = Path(__file__).resolve().parent.parent


def ruff():
    """The command that runs ruff: the one installed beside this Python, else skip (fail in CI)."""
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    try:
        import ruff as _  # noqa: F401 (only: is the package there?)
    except ImportError:
        skip_or_fail("ruff is not installed (pip install -r requirements-dev.txt)")
    return [sys.executable, "-m", "ruff"]


def test_the_code_passes_the_linter():
    done = subprocess.run([*ruff(), "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_fails_on_a_planted_mistake(tmp_path):
    """The configuration really checks something: an unused import and a test hidden by a second
    of the same name, as in the code it guards, are reported."""
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\n\ndef test_a():\n    pass\n\n\ndef test_a():\n    pass\n")
    done = subprocess.run([*ruff(), "check", "--no-cache", "--config",
                           str(ROOT / "pyproject.toml"), "--output-format", "concise",
                           str(planted)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "F401" in done.stdout and "F811" in done.stdout, done.stdout
