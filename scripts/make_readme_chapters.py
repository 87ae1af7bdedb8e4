"""Write the README's chapter table from the course's list of chapters.

    python scripts/make_readme_chapters.py            # rewrites the table in README.md
    python scripts/make_readme_chapters.py --check    # exits 1 if the table is out of date

Each row links the chapter's heading to its notebook, shows the chapter's promise and a badge
that opens the notebook on Binder. The chapters, their order, headings and notebooks come from
`autograd/syllabus.py`; the promise is the one the notebook itself makes, the second paragraph
of its title cell. `tests/test_syllabus.py` fails when the README's table is not what this script
writes, so after adding a chapter or changing a title or a promise, run it.
"""

import json
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

sys.path.insert(0, str(ROOT))  # run from a checkout, installed or not

from autograd.syllabus import CHAPTERS  # noqa: E402

HEADER = "| Chapter | What you will do | Open |\n| --- | --- | --- |\n"
BADGE = "https://mybinder.org/badge_logo.svg"
BINDER = "https://mybinder.org/v2/gh/autograd-from-scratch/autograd-from-scratch/HEAD?labpath="


def promise(chapter):
    """The chapter's one-sentence promise: the second paragraph of its notebook's first cell."""
    notebook = json.loads((ROOT / chapter.path).read_text(encoding="utf-8"))
    paragraphs = "".join(notebook["cells"][0]["source"]).split("\n\n")
    return " ".join(paragraphs[1].split())


def row(chapter):
    binder = BINDER + quote(chapter.path, safe="")
    return (f"| [{chapter.heading}]({chapter.path}) | {promise(chapter)} | "
            f"[![Open in Binder]({BADGE})]({binder}) |\n")


def table():
    """The chapter table, header and rows, as the README should have it."""
    return HEADER + "".join(row(chapter) for chapter in CHAPTERS)


def with_table(text):
    """`text` (the README) with its chapter table, which runs to the next blank line, replaced."""
    start = text.index(HEADER)
    end = text.index("\n\n", start) + 1
    return text[:start] + table() + text[end:]


def main(argv):
    text = README.read_text(encoding="utf-8")
    fresh = with_table(text)
    if "--check" in argv:
        if fresh != text:
            print("README.md's chapter table is out of date: "
                  "run python scripts/make_readme_chapters.py")
            return 1
        return 0
    if fresh != text:
        README.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
