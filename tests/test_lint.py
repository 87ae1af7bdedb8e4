"""The code follows the rules in pyproject.toml's [tool.ruff]: pycodestyle's errors and warnings
and pyflakes, which catch an unused import, a name used before it is defined, a test that a
second test of the same name hides, or a loop variable that shadows an import; and it is laid
out as `ruff format` lays it out ([tool.ruff.format]), so that a diff shows only what changed.
.pre-commit-config.yaml runs both before a commit, with the same ruff."""

import re
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
    done = subprocess.run(
        [*ruff(), "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_fails_on_a_planted_mistake(tmp_path):
    """The configuration really checks something: an unused import and a test hidden by a second
    of the same name, as in the code it guards, are reported."""
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\n\ndef test_a():\n    pass\n\n\ndef test_a():\n    pass\n")
    done = subprocess.run(
        [
            *ruff(),
            "check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--output-format",
            "concise",
            str(planted),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "F401" in done.stdout and "F811" in done.stdout, done.stdout


def test_the_code_is_laid_out_as_ruff_format_lays_it_out():
    """`ruff format --check .`; to fix what it reports: `ruff format .` (or `pre-commit run`)."""
    done = subprocess.run(
        [*ruff(), "format", "--check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def test_the_format_check_fails_on_a_planted_layout(tmp_path):
    """The check has teeth: a file laid out otherwise is reported."""
    planted = tmp_path / "planted.py"
    planted.write_text("x=[1,2 ,3]\n")
    done = subprocess.run(
        [
            *ruff(),
            "format",
            "--check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(planted),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr


def test_pre_commit_runs_the_ruff_that_the_tests_run():
    """.pre-commit-config.yaml's ruff hooks are pinned to the ruff of requirements-dev.txt."""
    pinned = re.search(r"^ruff==(\S+)$", (ROOT / "requirements-dev.txt").read_text(), re.M)
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    rev = re.search(r"ruff-pre-commit\n\s+rev: v(\S+)", config)
    assert pinned and rev and rev[1] == pinned[1], (pinned, rev)
    assert "id: ruff-check" in config and "id: ruff-format" in config
