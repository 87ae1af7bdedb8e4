"""Helpers for the tests of the repository's own files: the README and a clean copy of the course."""

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# What a fresh clone does not have: environments, caches and build output (as in .gitignore).
NOT_IN_A_CHECKOUT = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    "*.py[cod]",
    "*.egg-info",
    "build",
    "dist",
    ".ipynb_checkpoints",
    ".pytest_cache",
    ".hypothesis",
    ".benchmarks",
)


def copy_checkout(destination):
    """Copy the repository to `destination` as a fresh clone would hold it; return the copy's path.

    In a git checkout, the files git tracks or would track (nothing it ignores, so no site or
    Lite edition built here, no node_modules), as they are in the working tree; elsewhere the
    whole folder but for NOT_IN_A_CHECKOUT."""
    destination = Path(destination)
    listed = None
    if (ROOT / ".git").exists() and shutil.which("git"):
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
        )
        if done.returncode == 0:
            listed = [name for name in done.stdout.decode().split("\0") if name]
    if listed is None:
        shutil.copytree(ROOT, destination, ignore=NOT_IN_A_CHECKOUT, symlinks=True)
        return destination
    destination.mkdir(parents=True, exist_ok=True)
    for name in listed:
        source = ROOT / name
        if not source.exists() and not source.is_symlink():  # deleted, not yet committed
            continue
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination / name, follow_symlinks=False)
    return destination


def fenced_blocks(text, language):
    """The contents of every ```language block in `text`, in order."""
    pattern = rf"^```{re.escape(language)}[ \t]*\n(.*?)^```[ \t]*$"
    return [m.group(1) for m in re.finditer(pattern, text, flags=re.MULTILINE | re.DOTALL)]


def readme_shell_commands():
    """Each line of the README's ```sh blocks: the commands a learner is told to type."""
    text = README.read_text(encoding="utf-8")
    return [
        line.strip()
        for block in fenced_blocks(text, "sh")
        for line in block.splitlines()
        if line.strip()
    ]


def readme_setup_command():
    """The README's one command that sets the course up and opens it in JupyterLab."""
    found = [
        c for c in readme_shell_commands() if c.startswith("python3 -m venv") and "jupyter lab" in c
    ]
    assert len(found) == 1, f"the README should have one set-up command, found {found}"
    return found[0]


def requires_python():
    """The package's `requires-python` specifier, as pyproject.toml states it (e.g. ">=3.10")."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^requires-python\s*=\s*"([^"]+)"', pyproject, re.MULTILINE).group(1)
