"""CONTRIBUTING.md's "Where things go": every file and test it names is where it says."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def where_things_go():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = re.search(r"^## Where things go\n(.*?)^## ", text, re.MULTILINE | re.DOTALL)
    assert section, "CONTRIBUTING.md has no section 'Where things go'"
    return section.group(1)


def named_paths():
    """Each `path` the section names: in code spans, with a folder and a file extension."""
    spans = re.findall(r"`([^`\s]+)`", where_things_go())
    return sorted({s for s in spans if "/" in s and re.search(r"\.(py|ipynb|md|svg)(::\w+)?$", s)})


def test_the_section_names_the_files_of_every_kind_of_change():
    section = where_things_go()
    for change in (
        "An operation",
        "An explorer",
        "A chapter",
        "A check or an exercise",
        "A drawing feature",
    ):
        assert f"| **{change}**" in section, change
    assert len(named_paths()) > 20


@pytest.mark.parametrize("named", named_paths())
def test_every_file_and_test_it_names_exists(named):
    path, _, test = named.partition("::")
    # placeholders: NN is a chapter's number, short_name and <name> any name, * any part
    pattern = path.replace("NN", "[0-9][0-9]").replace("short_name", "*").replace("<name>", "*")
    found = sorted(ROOT.glob(pattern))
    assert found, f"CONTRIBUTING.md names {path}, which does not exist"
    if test:
        assert any(f"def {test}(" in p.read_text(encoding="utf-8") for p in found), named
