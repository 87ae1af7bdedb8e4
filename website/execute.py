"""Execute one notebook in place, as a learner's Run All would: website/build.py runs this.

    website/.venv/bin/python website/execute.py NOTEBOOK.ipynb WORKING_DIRECTORY

It runs in website/.venv (nbclient is there, and the kernel is that venv's Python), in a fresh
kernel whose working directory is WORKING_DIRECTORY (the notebooks folder), and keeps the
widgets' state in the notebook's metadata so that the website can show them. Only cells tagged
`raises-exception` may raise; any other error prints the cell and its traceback and exits 1.

The outputs then lose the build machine's paths (`private_paths_removed`): the course's own
folder becomes relative (autograd/compile.py, website/.venv/bin/python), and other absolute
paths (the Python it was built from, programs such as /usr/bin/dot) keep only their last part
(…/dot). The website shows where things are found, not whose machine built it.
"""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the course's folder
# An absolute path outside the course's folder, as outputs print it: a / not inside a word,
# a URL or another path, then folders; the last part is kept.
_ABSOLUTE = re.compile(r"(?<![\w/:.~\\…-])/(?:[\w.+@-]+/)+(?=[\w.+@-])")


def private_paths_removed(text, root=ROOT, prefixes=(sys.base_prefix, sys.prefix)):
    """`text` with the course's folder `root` made relative, the Python installations
    `prefixes` and the home folder elided to "…", and other absolute paths to "…/" + their
    last part."""
    text = text.replace(f"{root}{os.sep}", "").replace(str(root), ".")
    for prefix in sorted({p for p in prefixes if p and p != os.sep}, key=len, reverse=True):
        text = text.replace(prefix, "…")
    home = os.path.expanduser("~")
    if home not in ("", os.sep, "~"):
        text = text.replace(home + os.sep, "~" + os.sep)
    return _ABSOLUTE.sub("…/", text)


def _clean(value):
    if isinstance(value, str):
        return private_paths_removed(value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def remove_private_paths(notebook):
    """Every text output of `notebook` (streams, errors, text/* data) without the build
    machine's paths (`private_paths_removed`); pictures and widget state are left as they are."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _clean(output["text"])
            if "traceback" in output:
                output["traceback"] = _clean(output["traceback"])
                output["evalue"] = _clean(output.get("evalue", ""))
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    output["data"][mime] = _clean(value)


CELL_TIMEOUT = 600  # seconds; every chapter runs in well under a minute


def main(path, cwd):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": cwd}},
        store_widget_state=True,
    )
    try:
        client.execute()
    except CellExecutionError as error:
        print(error, file=sys.stderr)
        return 1
    remove_private_paths(notebook)
    nbformat.write(notebook, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
