"""Write the README's chapter table and chapter 00's map from the course's list of chapters.

    python scripts/make_readme_chapters.py            # rewrites both where they are out of date
    python scripts/make_readme_chapters.py --check    # exits 1 if either is out of date

Each row of the README's table links the chapter's heading to its notebook, shows the chapter's
promise and a badge that opens the notebook on Binder. Chapter 00's map (the section "## The
map" of its notebook) has a row for every other chapter, with the same promise, and a sentence
under it that says how long the core chapters take and which chapters go further. The chapters,
their order, headings and notebooks, and where the core ends (`CORE_LAST`) come from
`autograd/syllabus.py`; the promise is the one the notebook itself makes, the second paragraph
of its title cell, and a chapter's time is the "about N minutes" its title cell gives.
`tests/test_syllabus.py` fails when the README's table or the map is not what this script
writes, so after adding a chapter or changing a title, a promise or a time, run it.
"""

import json
import re
import sys
import textwrap
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

sys.path.insert(0, str(ROOT))  # run from a checkout, installed or not

from autograd.syllabus import CHAPTERS, CORE_LAST, LAST  # noqa: E402

MAP_NOTEBOOK = ROOT / CHAPTERS[0].path  # chapter 00, whose section "## The map" this writes
MAP_HEADING = "## The map\n\n"

HEADER = "| Chapter | What you will do | Open |\n| --- | --- | --- |\n"
BADGE = "https://mybinder.org/badge_logo.svg"
BINDER = "https://mybinder.org/v2/gh/autograd-from-scratch/autograd-from-scratch/HEAD?labpath="


def title_cell(chapter):
    notebook = json.loads((ROOT / chapter.path).read_text(encoding="utf-8"))
    return "".join(notebook["cells"][0]["source"])


def promise(chapter):
    """The chapter's one-sentence promise: the second paragraph of its notebook's first cell."""
    return " ".join(title_cell(chapter).split("\n\n")[1].split())


def minutes(chapter):
    """How long the chapter's title cell says it takes: its "about N minutes"."""
    found = re.search(r"· about (\d+) minutes ·", title_cell(chapter))
    if not found:
        raise ValueError(f"{chapter.path}'s title cell does not say '· about N minutes ·'")
    return int(found.group(1))


def row(chapter):
    binder = BINDER + quote(chapter.path, safe="")
    return (
        f"| [{chapter.heading}]({chapter.path}) | {promise(chapter)} | "
        f"[![Open in Binder]({BADGE})]({binder}) |\n"
    )


def table():
    """The chapter table, header and rows, as the README should have it."""
    return HEADER + "".join(row(chapter) for chapter in CHAPTERS)


def with_table(text):
    """`text` (the README) with its chapter table, which runs to the next blank line, replaced."""
    start = text.index(HEADER)
    end = text.index("\n\n", start) + 1
    return text[:start] + table() + text[end:]


def chapter_map():
    """Chapter 00's map, as its notebook should have it: a table of the other chapters and their
    promises, then how long the core takes and which chapters go further."""
    rows = "".join(f"| [{c.heading}]({c.notebook}) | {promise(c)} |\n" for c in CHAPTERS[1:])
    hours = round(sum(minutes(c) for c in CHAPTERS[: CORE_LAST + 1]) / 30) / 2
    hours = f"{hours:g} hours" if hours != 1 else "an hour"
    after = (
        f"Chapters 00 to {CORE_LAST:02d} are the core of the course: about {hours} in all, "
        f"by the times their title cells give. Chapters {CORE_LAST + 1:02d} to {LAST:02d} are "
        f"for when you want more."
    )
    return (
        "| Chapter | What you will do |\n|---|---|\n"
        + rows
        + "\n"
        + textwrap.fill(after, width=95, break_on_hyphens=False)
        + "\n"
    )


def with_map(notebook_text):
    """Chapter 00's notebook (its JSON text) with the section "## The map" rewritten: from the
    heading to the next heading of that cell, which stays as it is."""
    notebook = json.loads(notebook_text)
    cell = next(
        c
        for c in notebook["cells"]
        if c["cell_type"] == "markdown" and MAP_HEADING in "".join(c["source"])
    )
    text = "".join(cell["source"])
    start = text.index(MAP_HEADING) + len(MAP_HEADING)
    end = text.index("\n## ", start) if "\n## " in text[start:] else len(text)
    text = text[:start] + chapter_map() + text[end:]
    cell["source"] = text.splitlines(keepends=True)
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def main(argv):
    stale = []
    for path, rewrite in ((README, with_table), (MAP_NOTEBOOK, with_map)):
        text = path.read_text(encoding="utf-8")
        fresh = rewrite(text)
        if fresh != text:
            stale.append(path.relative_to(ROOT).as_posix())
            if "--check" not in argv:
                path.write_text(fresh, encoding="utf-8")
    if stale and "--check" in argv:
        print(f"out of date: {', '.join(stale)}: run python scripts/make_readme_chapters.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
