"""Run a notebook the way Run All does, in several variants at once, and say what each cell showed.

A variant is the notebook with some code cells replaced (an exercise answered with the
solution's code, or with a classic mistake). Every variant runs its cells in order in a fresh
IPython shell and stops at the first cell that raises, unless that cell is tagged
`raises-exception`, exactly as Run All stops in JupyterLab.

Variants share whatever they have in common: the cells before the first replaced one run once,
then the process forks, one child per different source, each going on alone (so a notebook
with thirty mistakes costs one run plus thirty tails, not thirty-one runs), as many at a time
as the machine has cores (or RUNALL_PROCESSES). Forking needs a POSIX system: elsewhere the
caller asks for one variant at a time, and each runs from the top.

    python tests/runall.py REQUEST.json RESULTS.json [REQUEST2.json RESULTS2.json ...]

REQUEST: {"notebook": path, "variants": {name: {cell index: source}},
          "may_raise": {name: [cell index]}}  (may_raise optional: replaced cells that raise)
RESULTS: {name: [{"index", "source", "text", "error"} for each cell that ran]}
With several pairs, the notebooks run one after another, each in a process of its own (`each`).
"""

import gc
import html
import importlib
import io
import json
import os
import re
import sys
from contextlib import redirect_stderr, redirect_stdout

_TAGS = re.compile(r"<[^>]+>")


def _plain(data):
    """The text a learner reads in one output: HTML without its tags, else the plain text."""
    if "text/html" in data:
        text = data["text/html"]
        text = re.sub(r"<(br|/p|/li|/div|div)\b[^>]*>", "\n", text)
        return html.unescape(_TAGS.sub("", text))
    return data.get("text/plain", "")


def _make_shell():
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    shown = []

    class Publisher(DisplayPublisher):
        def publish(self, data, metadata=None, *args, **kwargs):
            shown.append(_plain(data))

    class Hook(DisplayHook):
        def write_format_data(self, format_dict, md_dict=None):
            shown.append(_plain(format_dict))

        def write_output_prompt(self):
            pass

    class Shell(InteractiveShell):
        displayhook_class = Hook
        display_pub_class = Publisher

    config = Config()
    config.HistoryManager.enabled = False
    shell = Shell.instance(config=config)
    return shell, shown


def _run_cell(shell, shown, cell, source, may_raise=False):
    """Run one cell; return its record and whether Run All stops after it (not when the cell
    `may_raise`: a variant's answer that raises, run as a learner goes on after it with Run >
    Run Selected Cell and All Below)."""
    shown.clear()
    buffer = io.StringIO()
    with redirect_stdout(buffer), redirect_stderr(buffer):
        result = shell.run_cell(source, store_history=True)
    error = result.error_in_exec or result.error_before_exec
    text = buffer.getvalue() + "\n".join(shown)
    record = {
        "index": cell["index"],
        "source": source,
        "text": text,
        "error": f"{type(error).__name__}: {error}" if error else None,
    }
    allowed = "raises-exception" in cell["tags"] or may_raise
    return record, error is not None and not allowed


def _finish(records, names, out_dir):
    for name in names:
        with open(os.path.join(out_dir, f"{name}.json"), "w", encoding="utf-8") as file:
            json.dump(records, file)


def _run_from(shell, shown, cells, variants, start, records, out_dir):
    """Run `variants` ({name: {index: source}}) from cell `start`; they agree before it."""
    position = start
    while position < len(cells):
        cell = cells[position]
        sources = {
            name: replaced.get(cell["index"], cell["source"]) for name, replaced in variants.items()
        }
        if len(set(sources.values())) > 1:
            break
        may_raise = any(cell["index"] in _MAY_RAISE.get(name, ()) for name in variants)
        record, stop = _run_cell(shell, shown, cell, next(iter(sources.values())), may_raise)
        records.append(record)
        position += 1
        if stop:
            return _finish(records, variants, out_dir)
    else:
        return _finish(records, variants, out_dir)
    groups = {}
    for name, source in sources.items():
        groups.setdefault(source, {})[name] = variants[name]
    # One child per different source. At most `_SLOTS` processes run cells at a time: this
    # one gives its slot back while its children run, and takes one again when they are done.
    _SLOTS.release()
    children = []
    for source, group in groups.items():
        pid = os.fork()
        if pid == 0:  # the child runs this source and everything after it, then exits
            code = 0
            _SLOTS.acquire()
            try:
                may_raise = any(
                    cells[position]["index"] in _MAY_RAISE.get(name, ()) for name in group
                )
                record, stop = _run_cell(shell, shown, cells[position], source, may_raise)
                if stop:
                    _finish(records + [record], group, out_dir)
                else:
                    _run_from(shell, shown, cells, group, position + 1, records + [record], out_dir)
            except BaseException:  # the parent sees the missing results
                code = 1
            finally:
                _SLOTS.release()
                sys.stdout.flush()
                os._exit(code)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    _SLOTS.acquire()


_SLOTS = None
_MAY_RAISE = {}  # {variant: [cell index]}: replaced cells that raise, after which it goes on


# Libraries the chapters import, none of them the course's own (whose modules, imported early,
# could read a learner's file or register a magic before the notebook asks): imported once
# before the first cell, and frozen.
LIBRARIES = (
    "IPython.core.interactiveshell",
    "numpy",
    "matplotlib.pyplot",
    "ipywidgets",
    "graphviz",
)


def _freeze_libraries():
    """Import LIBRARIES (those installed) and move every object alive now out of the cyclic
    collector's view (gc.freeze()). They live as long as the run. Each forked variant's
    collections, and the chapters' own gc.collect() calls, then scan only what the notebook
    made, and leave the shared pages alone. What a cell makes stays in view: gc.get_referrers
    finds it, and its cycles are freed as in a kernel. A frozen object is out of that view too:
    gc.get_referrers never lists a library's own objects among the referrers of a cell's
    object, so no chapter may count on it to. (Freezing the shell as well, at each fork, hid
    referrers that chapter 10 counts.) (Chapters 5 and 10: 165 s -> 133 s.)"""
    for name in LIBRARIES:
        try:
            importlib.import_module(name)
        except ImportError:  # a learner's machine without the plots: the chapters say so
            pass
    gc.collect()
    gc.freeze()


def main(request_path, results_path):
    with open(request_path, encoding="utf-8") as file:
        request = json.load(file)
    with open(request["notebook"], encoding="utf-8") as file:
        notebook = json.load(file)
    cells = [
        {"index": i, "source": "".join(c["source"]), "tags": c.get("metadata", {}).get("tags", [])}
        for i, c in enumerate(notebook["cells"])
        if c["cell_type"] == "code"
    ]
    variants = {
        name: {int(k): v for k, v in replaced.items()}
        for name, replaced in request["variants"].items()
    }
    _MAY_RAISE.update(request.get("may_raise", {}))
    out_dir = results_path + ".d"
    os.makedirs(out_dir, exist_ok=True)
    os.chdir(os.path.dirname(os.path.abspath(request["notebook"])))
    os.environ.setdefault("MPLBACKEND", "Agg")
    global _SLOTS
    import multiprocessing

    _SLOTS = multiprocessing.Semaphore(int(os.environ.get("RUNALL_PROCESSES", os.cpu_count() or 1)))
    _SLOTS.acquire()
    _freeze_libraries()
    shell, shown = _make_shell()
    _run_from(shell, shown, cells, variants, 0, [], out_dir)
    results = {}
    for name in variants:
        path = os.path.join(out_dir, f"{name}.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as file:
                results[name] = json.load(file)
        else:
            results[name] = None  # its process died: the caller says so
    with open(results_path, "w", encoding="utf-8") as file:
        json.dump(results, file)


def each(pairs):
    """Run several notebooks, one after another, each in a process of its own: for each
    (REQUEST, RESULTS), RESULTS.exit gets the exit code, and stderr a line `== NOTEBOOK` before
    what that run wrote there."""
    import subprocess

    for request, results in pairs:
        with open(request, encoding="utf-8") as file:
            notebook = os.path.basename(json.load(file)["notebook"])
        print(f"== {notebook}", file=sys.stderr, flush=True)
        done = subprocess.run([sys.executable, __file__, request, results])
        with open(f"{results}.exit", "w", encoding="utf-8") as file:
            file.write(str(done.returncode))


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 2:
        main(*args)
    else:
        each(zip(args[::2], args[1::2]))
