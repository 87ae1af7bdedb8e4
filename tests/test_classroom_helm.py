"""classroom/zero-to-jupyterhub.yaml: values Zero to JupyterHub accepts, that open the course.

What this checks, and what it cannot: the chart (`jupyterhub`, version 4.4.0) validates its
values against a JSON schema it ships inside the chart, which no package this project installs
from PyPI or npm carries; so the test holds the file to a list of the keys it uses, pinned here
by hand from the chart's `values.schema.yaml` at version 4.4.0, each with the types that schema
allows it.
A key the list lacks, a value of the wrong type, or a chart version other than the one the list
was read from fails. What Kubernetes would make of the objects the chart passes through as they
are (the postStart hook, the volumes) is not checked, and nothing is installed on a cluster.

The rest is the course's side: the image is built from binder/ with nbgitpuller, which pulls
this repository into the folder whose chapter 00 JupyterLab opens; nbgrader's exchange is where
the configuration says; and the memory a student is guaranteed covers what one student used in
the hub test, with the students per node in classroom/README.md's "Sizing" table following
from it.
"""

import math
import re

import pytest
from conftest import require_module
from course_files import ROOT

VALUES = ROOT / "classroom" / "zero-to-jupyterhub.yaml"
CLASS_README = ROOT / "classroom" / "README.md"
CHART_VERSION = "4.4.0"  # the chart the key list below was read from
REPOSITORY = "https://github.com/autograd-from-scratch/autograd-from-scratch"  # Binder's

NUMBER = (int, float)
OPEN = "passed through"  # the chart takes anything below this key (a Kubernetes object)

# The keys the values file uses, with the types chart 4.4.0's values.schema.yaml allows for
# them. `*` stands for a name of your choosing. Every object in the schema on these paths
# refuses keys it does not list (additionalProperties: false), as this test does.
KEYS = {
    "singleuser": dict,
    "singleuser.image": dict,
    "singleuser.image.name": str,
    "singleuser.image.tag": str,
    "singleuser.lifecycleHooks": dict,
    "singleuser.lifecycleHooks.postStart": OPEN,
    "singleuser.defaultUrl": (str, type(None)),
    "singleuser.memory": dict,
    "singleuser.memory.guarantee": (*NUMBER, str, type(None)),
    "singleuser.memory.limit": (*NUMBER, str, type(None)),
    "singleuser.cpu": dict,
    "singleuser.cpu.guarantee": (*NUMBER, type(None)),
    "singleuser.cpu.limit": (*NUMBER, type(None)),
    "singleuser.storage": dict,
    "singleuser.storage.capacity": (str, type(None)),
    "singleuser.storage.extraVolumes": OPEN,
    "singleuser.storage.extraVolumeMounts": OPEN,
    "singleuser.extraFiles": dict,
    "singleuser.extraFiles.*": dict,
    "singleuser.extraFiles.*.mountPath": str,
    "singleuser.extraFiles.*.stringData": str,
    "singleuser.extraFiles.*.data": OPEN,
    "singleuser.extraFiles.*.mode": NUMBER,
    "hub": dict,
    "hub.config": dict,
    "hub.config.*": OPEN,  # traitlets configuration: the key must be a class name
    "cull": dict,
    "cull.enabled": bool,
    "cull.timeout": (int, type(None)),
    "cull.every": (int, type(None)),
}


def values():
    yaml = require_module("yaml")
    return yaml.safe_load(VALUES.read_text(encoding="utf-8"))


def pinned(path):
    """The entry of KEYS for the dotted `path`, where `*` may stand for any one name."""
    parts = path.split(".")
    for key, kind in KEYS.items():
        pattern = key.split(".")
        if len(pattern) == len(parts) and all(p in ("*", q) for p, q in zip(pattern, parts)):
            return key, kind
    return None, None


def walk(mapping, prefix=""):
    """Every (dotted path, value) of nested mappings, not descending below OPEN keys."""
    for name, value in mapping.items():
        path = f"{prefix}{name}"
        yield path, value
        if isinstance(value, dict) and pinned(path)[1] is not OPEN:
            yield from walk(value, path + ".")


def quantity(text):
    """A Kubernetes memory quantity (400M, 1G, 512Mi, or a number of bytes) in bytes."""
    units = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(k|M|G|Ki|Mi|Gi)?", str(text))
    assert match, f"{text!r} is not a memory quantity this test reads"
    return float(match.group(1)) * units[match.group(2) or ""]


def commands_in_comments():
    """The shell commands the file's comments show (indented in the comment), continuation
    lines joined."""
    lines = [
        re.sub(r"^\s*#", "", line)
        for line in VALUES.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith("#")
    ]
    commands, current = [], ""
    for line in lines:
        if not current and not line.startswith("   "):
            continue
        current += " " + line.strip().removesuffix("\\").strip()
        if not line.rstrip().endswith("\\"):
            commands.append(current.strip())
            current = ""
    return commands


def guaranteed_bytes():
    """The memory the values guarantee each student's server, in bytes."""
    return quantity(values()["singleuser"]["memory"]["guarantee"])


def test_every_key_is_one_the_chart_takes_with_a_type_it_takes():
    for path, value in walk(values()):
        key, kind = pinned(path)
        assert key is not None, (
            f"{path}: not a key of chart {CHART_VERSION}'s values (or not pinned here)"
        )
        if key == "hub.config.*":
            assert re.match(r"[A-Z]", path.split(".")[-1]), f"{path}: hub.config takes class names"
            assert isinstance(value, dict), f"{path}: a class's configuration is a mapping"
        elif kind is not OPEN:
            assert isinstance(value, kind) and not (kind is NUMBER and isinstance(value, bool)), (
                f"{path}: {value!r} is not of a type the chart takes ({kind})"
            )


def test_each_file_given_to_the_servers_has_one_kind_of_content():
    for name, spec in values()["singleuser"].get("extraFiles", {}).items():
        given = [kind for kind in ("data", "stringData", "binaryData") if kind in spec]
        assert len(given) == 1, (
            f"extraFiles.{name} needs exactly one of data, stringData, binaryData"
        )


def test_the_install_command_names_the_chart_version_the_keys_were_checked_against():
    install = [c for c in commands_in_comments() if c.startswith("helm upgrade --install")]
    assert len(install) == 1, "the file shows the one helm command that installs the chart"
    assert f"jupyterhub/jupyterhub --version {CHART_VERSION} " in install[0]
    assert "--values classroom/zero-to-jupyterhub.yaml" in install[0]
    text = VALUES.read_text(encoding="utf-8")
    versions = set(re.findall(r"version (\d+\.\d+\.\d+)", text))
    assert versions == {CHART_VERSION}, f"the file names chart versions {versions}"


def test_the_image_is_built_from_binder_with_nbgitpuller_and_the_class_nbgrader():
    builds = [c for c in commands_in_comments() if c.startswith("jupyter-repo2docker ")]
    assert len(builds) == 1, "the file shows the repo2docker command that builds the image"
    command = builds[0]
    assert command.rstrip().endswith(" ."), (
        "repo2docker builds the repository's top folder (binder/ in it)"
    )
    assert "nbgitpuller==" in command, (
        "the servers' postStart runs gitpuller, which nbgitpuller installs"
    )
    nbgrader = re.search(
        r"^nbgrader==\S+", (ROOT / "classroom" / "requirements.txt").read_text(), re.M
    )
    assert nbgrader.group(0) in command, "the image's nbgrader is the class environment's"
    image = values()["singleuser"]["image"]
    assert f"--image-name {image['name']}:{image['tag']}" in command, (
        "the values use the image built"
    )


def test_nbgitpuller_pulls_this_course_and_jupyterlab_opens_its_chapter_00():
    singleuser = values()["singleuser"]
    command = singleuser["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert command[0] == "gitpuller", command
    _, repository, branch, folder = command
    assert repository == REPOSITORY and branch
    opened = singleuser["defaultUrl"]
    assert opened.startswith(f"/lab/tree/{folder}/"), (
        f"{opened} is not in {folder}, where gitpuller pulls"
    )
    in_repository = opened.removeprefix(f"/lab/tree/{folder}/")
    assert in_repository == "notebooks/00_start_here.ipynb" and (ROOT / in_repository).is_file()


def test_nbgrader_exchange_is_the_folder_the_shared_volume_is_mounted_on():
    singleuser = values()["singleuser"]
    config = next(
        spec["stringData"]
        for spec in singleuser["extraFiles"].values()
        if spec["mountPath"].endswith("/nbgrader_config.py")
    )
    root = re.search(r"c\.Exchange\.root = \"([^\"]+)\"", config).group(1)
    mounts = [mount["mountPath"] for mount in singleuser["storage"]["extraVolumeMounts"]]
    assert root in mounts, f"nbgrader's exchange {root} is not a mounted volume ({mounts})"


def sizing_rows():
    """classroom/README.md's "Sizing" table: the rows of numbers under its heading."""
    text = CLASS_README.read_text(encoding="utf-8")
    assert "\n## Sizing\n" in text, "classroom/README.md has a section ## Sizing"
    section = text.split("\n## Sizing\n", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if re.match(r"\|\s*\d", line)
    ]
    assert rows, "the Sizing section has a table of node sizes"
    return section, rows


def test_the_guarantee_covers_the_memory_measured_and_the_limit_the_guarantee():
    guarantee, limit = guaranteed_bytes(), quantity(values()["singleuser"]["memory"]["limit"])
    assert guarantee <= limit
    section, _ = sizing_rows()
    measured = re.search(r"measured (\d+) MiB per student", section)
    assert measured, "the Sizing section says the memory per student the hub test measured"
    assert guarantee >= int(measured.group(1)) * 2**20, "the guarantee is below what a student used"


def test_students_per_node_follow_from_the_guarantee():
    """Each row: node memory (GiB), memory left for students (GiB), students per node."""
    section, rows = sizing_rows()
    reserved = re.search(r"keeps (\d+(?:\.\d+)?) GiB of every node", section)
    assert reserved, "the Sizing section says how much of a node the students cannot use"
    guarantee = guaranteed_bytes()
    for node, left, students, *_ in rows:
        assert float(left) == pytest.approx(float(node) - float(reserved.group(1))), node
        assert int(students) == math.floor(float(left) * 2**30 / guarantee), node
