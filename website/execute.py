"""Execute one notebook in place, as a learner's Run All would: website/build.py runs this.

    website/.venv/bin/python website/execute.py NOTEBOOK.ipynb WORKING_DIRECTORY

It runs in website/.venv (nbclient is there, and the kernel is that venv's Python), in a fresh
kernel whose working directory is WORKING_DIRECTORY (the notebooks folder), and keeps the
widgets' state in the notebook's metadata so that the website can show them. Only cells tagged
`raises-exception` may raise; any other error prints the cell and its traceback and exits 1.
"""

import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CELL_TIMEOUT = 600  # seconds; every chapter runs in well under a minute


def main(path, cwd):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": cwd}}, store_widget_state=True)
    try:
        client.execute()
    except CellExecutionError as error:
        print(error, file=sys.stderr)
        return 1
    nbformat.write(notebook, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
