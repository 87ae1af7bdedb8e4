"""What Binder builds from `binder/`: Graphviz, the learner's packages, this package, cached well.

repo2docker (the tool Binder builds with) copies `binder/requirements.txt` into the image and
installs it *before* it copies the repository, as long as that file names nothing inside the
repository (no `-e .`, `-r` or `-c`); so a change to a notebook reuses the cached layer with
the packages. The package itself is installed by `binder/postBuild`, which runs last.
"""

import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest
from conftest import skip_or_fail
from course_files import ROOT, copy_checkout, requires_python
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

BINDER = ROOT / "binder"


def requirement_lines(path):
    """The requirement lines of a pip requirements file, without comments and blank lines."""
    lines = (
        line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()
    )
    return [line for line in lines if line]


def comparable(line):
    req = Requirement(line)
    return (
        canonicalize_name(req.name),
        str(req.specifier),
        tuple(sorted(req.extras)),
        str(req.marker),
    )


def postbuild_commands():
    lines = (BINDER / "postBuild").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines[1:] if line.strip() and not line.strip().startswith("#")]


# --------------------------------------------------------------------------- the files


def test_binder_requirements_are_the_root_requirements_without_the_package():
    root = requirement_lines(ROOT / "requirements.txt")
    assert "-e ." in root, "the root requirements.txt installs this package (-e .)"
    root_packages = sorted(comparable(line) for line in root if line != "-e .")
    binder_packages = sorted(
        comparable(line) for line in requirement_lines(BINDER / "requirements.txt")
    )
    assert binder_packages == root_packages, (
        "binder/requirements.txt must list exactly the root requirements.txt without `-e .`"
    )


def test_binder_requirements_name_nothing_in_the_repository_so_they_are_installed_first():
    for line in requirement_lines(BINDER / "requirements.txt"):
        assert not line.startswith("-"), (
            f"{line!r}: an option or a local reference stops the caching"
        )
        Requirement(line)  # a named requirement, never a path; raises if it is not one


def test_apt_txt_installs_graphviz():
    assert requirement_lines(BINDER / "apt.txt") == ["graphviz"]


def test_runtime_is_a_python_the_package_supports():
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    match = re.fullmatch(r"python-(3\.\d+)", runtime)
    assert match, f"runtime.txt should read python-3.X, not {runtime!r}"
    requires = requires_python()
    assert match.group(1) in SpecifierSet(requires), (
        f"{runtime} is outside requires-python {requires}"
    )


def test_postbuild_stops_at_its_first_error():
    assert (BINDER / "postBuild").read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")
    assert postbuild_commands()[0] == "set -euo pipefail", (
        "the first command must be set -euo pipefail"
    )


def fake_python(folder, exit_code):
    """A `python` that records its arguments and working folder, then exits with `exit_code`."""
    folder.mkdir()
    script = folder / "python"
    script.write_text(f'#!/bin/sh\necho "$PWD $*" >> "{folder}/calls"\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder / "calls"


def run_postbuild(tmp_path, exit_code):
    bash = shutil.which("bash")
    if bash is None:
        skip_or_fail("bash is not on PATH, and binder/postBuild is a bash script")
    repo = copy_checkout(tmp_path / "repo")
    calls = fake_python(tmp_path / "bin", exit_code)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    # Binder runs it from the repository's root as ./binder/postBuild
    done = subprocess.run(
        [bash, "binder/postBuild"], cwd=repo, env=env, capture_output=True, text=True
    )
    return repo, calls, done


def test_postbuild_installs_the_package_from_the_repository_root(tmp_path):
    repo, calls, done = run_postbuild(tmp_path, exit_code=0)
    assert done.returncode == 0, done.stderr
    recorded = calls.read_text().splitlines()
    assert len(recorded) == 1, recorded
    folder, _, arguments = recorded[0].partition(" ")
    assert os.path.samefile(folder, repo), "pip must run in the repository's root"
    words = arguments.split()
    assert words[:3] == ["-m", "pip", "install"], arguments
    assert words[-2:] in (["--editable", "."], ["-e", "."]), arguments


def test_postbuild_fails_when_the_install_fails(tmp_path):
    _, _, done = run_postbuild(tmp_path, exit_code=3)
    assert done.returncode != 0, "a failed install must fail the Binder build, not be ignored"


# --------------------------------------------------------------------------- repo2docker


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory):
    """The Dockerfile repo2docker writes for a copy of the repository, as instructions."""
    if importlib.util.find_spec("repo2docker") is None:
        skip_or_fail("jupyter-repo2docker is not installed (pip install -r requirements-dev.txt)")
    work = tmp_path_factory.mktemp("repo2docker")
    repo = copy_checkout(work / "repo")
    done = subprocess.run(
        # Binder builds as user jovyan, uid 1000; --no-build needs no Docker.
        [
            sys.executable,
            "-m",
            "repo2docker",
            "--no-build",
            "--debug",
            "--user-id",
            "1000",
            "--user-name",
            "jovyan",
            str(repo),
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    joined = done.stdout.replace("\\\n", " ")
    instructions = [" ".join(line.split()) for line in joined.splitlines()]
    return [line for line in instructions if line and not line.startswith("#")]


def index_of(instructions, pattern, what):
    found = [i for i, line in enumerate(instructions) if re.search(pattern, line)]
    assert len(found) == 1, (
        f"expected one instruction that {what}, found {len(found)}:\n"
        + "\n".join(instructions[i] for i in found)
    )
    return found[0]


def repository_copied(instructions):
    return index_of(instructions, r"^COPY \S+ src/ \$\{REPO_DIR\}/$", "copies the whole repository")


def test_binder_image_installs_graphviz_before_the_repository_is_copied(dockerfile):
    apt = index_of(dockerfile, r"^RUN .*apt-get install .*\bgraphviz\b", "installs graphviz")
    assert apt < repository_copied(dockerfile)


def test_binder_image_installs_the_requirements_before_the_repository_is_copied(dockerfile):
    copied = index_of(
        dockerfile,
        r"^COPY \S+ src/binder/requirements\.txt ",
        "copies binder/requirements.txt alone",
    )
    pip = index_of(
        dockerfile,
        r'^RUN \S*pip install .*-r "?binder/requirements\.txt"?$',
        "installs binder/requirements.txt",
    )
    assert copied < pip < repository_copied(dockerfile), "so the installed packages stay cached"


def test_binder_image_installs_the_package_with_postbuild_after_the_repository_is_copied(
    dockerfile,
):
    postbuild = index_of(dockerfile, r"^RUN \./binder/postBuild$", "runs binder/postBuild")
    assert postbuild > repository_copied(dockerfile)
