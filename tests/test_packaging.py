"""The package's promises about imports and installation files."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_imports_with_the_standard_library_alone():
    # -S: no site-packages at all, so any third-party import would fail here
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from autograd import Value; v = Value(2.0) * 3; v.backward(); print(v.data)"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, str(ROOT)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6.0"


def test_import_autograd_loads_no_drawing_or_widget_library():
    code = (
        "import sys; import autograd, autograd.nn, autograd.data, autograd.gradcheck, autograd.stages, autograd.checks, autograd.environment; "
        "heavy = {'graphviz', 'ipywidgets', 'matplotlib', 'numpy', 'IPython', 'torch'}; "
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [
        line.strip()
        for line in readme.splitlines()
        if "-m pytest" in line and line.strip().startswith("python")
    ]
    assert len(commands) == 1, commands
    assert commands[0] in ci.splitlines()


def test_ci_makes_its_environment_once_and_installs_pytorch_into_it():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    code = [line for line in ci.splitlines() if not line.lstrip().startswith("#")]
    assert sum(line.count("-m venv .venv ") for line in code) == 1, code
    assert "export PIP_REQUIREMENT=requirements-torch.txt" in code


def test_every_package_of_the_course_is_listed_for_installation():
    # a package missing here is left out of a wheel, though an editable install still finds it
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^packages = \[(.*)\]$", text, re.M).group(1)
    listed = {name.strip().strip('"') for name in listed.split(",")}
    on_disk = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "autograd").rglob("__init__.py")
    }
    assert listed == on_disk


def test_a_built_wheel_carries_the_digits_and_load_digits_reads_them(tmp_path):
    # an editable install reads the file from the work tree; a wheel (the browser edition's, a
    # learner's `pip install`) has it only if pyproject.toml lists it as package data
    import shutil
    import zipfile

    source = tmp_path / "src"
    shutil.copytree(
        ROOT / "autograd", source / "autograd", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "wheels"),
            str(source),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "autograd/datasets/digits.csv.gz" in archive.namelist()
        archive.extractall(tmp_path / "installed")
    code = "from autograd.data import load_digits; images, labels = load_digits(); print(len(images), labels[:3])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path / "installed"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "1797"
