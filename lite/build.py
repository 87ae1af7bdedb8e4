"""Build the JupyterLite edition of the course: a static site in lite/_output.

    python3 lite/build.py

Any Python 3 runs this script; it needs npm, a network that reaches PyPI and npm, and a
Python >= 3.12 somewhere (on PATH as python3.13/python3.12, or under pyenv), because the Pyodide
kernel's [lock] extra needs it. Step by step, everything inside lite/ and ignored by git:

1. lite/.venv: a venv of that Python with lite/requirements.txt (JupyterLite 0.8.x, pinned);
2. lite/node_modules: `npm ci` of lite/package.json (the `pyodide` runtime, pinned), copied to
   lite/static/pyodide, where the build finds it, so that jupyter-lite.json's `pyodideUrl` is the
   site's own ./static/pyodide/pyodide.mjs and not a CDN;
3. lite/.build/wheels: the `autograd` wheel, built from a copy of the repository's source;
4. lite/.build/pyodide-constraints.txt: the versions of the pure-Python packages that this
   Pyodide's lock file names, so that the lock step takes those versions from PyPI (offline
   copies in the site) instead of fetching them from Pyodide's CDN;
5. lite/.build/notebooks: notebooks/ as the site serves them, without the Binder badge (a
   picture from another host) and with the site's kernelspec, so that they open unmodified;
6. `jupyter lite build`, from scratch (the old output, cache and .jupyterlite.doit.db deleted):
   every notebook of lite/.build/notebooks, the wheel listed for piplite (pypi/all.json) and in the site's
   Pyodide lock file (static/pyodide-lock/), so that `import autograd` installs it, together
   with ipython and the kernel's other packages; the lock also holds graphviz's Python package
   (jupyter_lite_config.json pins it), as a dependency of the wheel there, so that
   `from autograd.viz import draw_dot` installs it too;
7. _output/static/viz/viz.js: Graphviz compiled to WebAssembly (the npm package `@viz-js/viz`,
   pinned in lite/package.json, one MIT file), with which `autograd.viz` draws in the browser;
8. _output/index.html: the first page, lite/welcome.html with the chapters filled in: what
   loads (lite/first-visit.json: what a first visit downloads, as tests/test_lite.py measures
   it) and how long it takes, where the learner's edits are kept, what needs the network.

Each step is announced with the time so far, and pip shows what it installs. Takes 20 to 50 s
on a loaded 2-core machine once lite/.venv exists (about 90 s before, with pip's cache warm);
the site is about 44 MB on disk (ipywidgets and its JupyterLab extension included), of which
a first visit downloads about 27 MB. Everything the build keeps in lite/ takes about 210 MB:
`git clean -fdX lite` removes it. website/build.py runs this and
puts the result in the course website, under lite/.
Serve the result with `python3 -m http.server -d lite/_output` and open /lab/index.html.
Packages that are not pure Python (numpy, matplotlib) stay on Pyodide's CDN: a page that
imports them needs the network.
"""

import glob
import html
import json
import os
import re
import shutil
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

LITE = Path(__file__).resolve().parent
ROOT = LITE.parent
VENV = LITE / ".venv"
BUILD = LITE / ".build"
OUTPUT = LITE / "_output"
PYODIDE = LITE / "static" / "pyodide"
MIN_PYTHON = (3, 12)

# Of the npm package, only what the browser loads (no type stubs, sourcemaps or demo pages).
PYODIDE_SKIP = ("*.d.ts", "*.map", "*.html", "README.md", "package.json")
# viz-js's single-file ES module (the WebAssembly inside), and where the site serves it:
# autograd/viz/browser.py looks for it at ../viz/viz.js from the site's Pyodide lock folder.
VIZ_JS = LITE / "node_modules" / "@viz-js" / "viz" / "dist" / "viz.js"
SITE_VIZ_JS = OUTPUT / "static" / "viz" / "viz.js"
# What a first visit downloads up to chapter 00's first cell having run, as tests/test_lite.py
# measures it (the README and the first page state it; the test checks it still holds).
FIRST_VISIT = LITE / "first-visit.json"


def find_python():
    """A Python >= 3.12 to build with, or None."""
    if sys.version_info >= MIN_PYTHON:
        return sys.executable
    names = [shutil.which(f"python3.{minor}") for minor in (14, 13, 12)]
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    names += sorted(glob.glob(f"{pyenv}/versions/3.1[2-9]*/bin/python3"), reverse=True)
    for name in filter(None, names):
        version = subprocess.run(
            [name, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True
        )
        if version.returncode == 0 and tuple(map(int, version.stdout.split())) >= MIN_PYTHON:
            return name
    return None


def run(*command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def make_venv():
    python = find_python()
    if python is None:
        sys.exit("lite/build.py needs Python >= 3.12 (python3.12 on PATH, or pyenv)")
    if not (VENV / "bin" / "python").exists():
        run(python, "-m", "venv", VENV)
    run(VENV / "bin" / "pip", "install", "--progress-bar", "off", "-r", LITE / "requirements.txt")


def copy_pyodide():
    run("npm", "ci", "--no-audit", "--no-fund", cwd=LITE)
    shutil.rmtree(PYODIDE, ignore_errors=True)
    shutil.copytree(
        LITE / "node_modules" / "pyodide", PYODIDE, ignore=shutil.ignore_patterns(*PYODIDE_SKIP)
    )
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))
    pure = sorted(
        f"{package['name']}=={package['version']}"
        for package in lock["packages"].values()
        if package["file_name"].endswith("-none-any.whl")
    )
    (BUILD / "pyodide-constraints.txt").write_text("\n".join(pure) + "\n", encoding="utf-8")


def build_wheel():
    """The `autograd` wheel, built from a copy so that the work tree gets no build/ folder."""
    wheels = BUILD / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(ROOT / name, tmp)
        shutil.copytree(
            ROOT / "autograd", Path(tmp) / "autograd", ignore=shutil.ignore_patterns("__pycache__")
        )
        run(VENV / "bin" / "pip", "wheel", "--no-deps", "-w", wheels, tmp)


# A picture from another host in a notebook's prose (the Binder badge under each title): the
# site keeps no request to other hosts, so the Lite copies drop it, and the "· " after it.
PICTURE_LINK = re.compile(r"\[!\[[^\]]*\]\(https?://[^)\s]+\)\]\([^)\s]+\)(\n· )?")
# The kernel the site runs, and the language_info its info reply gives (the Pyodide kernel's
# front end, jupyterlite-pyodide-kernel 0.8.6): a notebook whose metadata says anything else is
# rewritten when its kernel starts, and opens marked as modified (tests/test_lite.py checks).
LITE_KERNELSPEC = {"display_name": "Python (Pyodide)", "language": "python", "name": "python"}
LITE_LANGUAGE_INFO = {
    "codemirror_mode": {"name": "python", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.8",
}
SITE_NOTEBOOKS = BUILD / "notebooks"


def copy_notebooks():
    """notebooks/*.ipynb as the site serves them (lite/.build/notebooks, which
    jupyter_lite_config.json names): no picture from another host, the site's kernelspec."""
    shutil.rmtree(SITE_NOTEBOOKS, ignore_errors=True)
    SITE_NOTEBOOKS.mkdir(parents=True)
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                source = PICTURE_LINK.sub("", "".join(cell["source"]))
                cell["source"] = source.splitlines(keepends=True)
        notebook["metadata"]["kernelspec"] = dict(LITE_KERNELSPEC)
        notebook["metadata"]["language_info"] = dict(LITE_LANGUAGE_INFO)
        (SITE_NOTEBOOKS / path.name).write_text(
            json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def lite_build():
    for stale in (OUTPUT, LITE / ".cache"):
        shutil.rmtree(stale, ignore_errors=True)
    (LITE / ".jupyterlite.doit.db").unlink(missing_ok=True)
    # uv must not try to download a CPython of Pyodide's version: it solves for the
    # Pyodide platform and builds nothing.
    env = dict(os.environ, UV_PYTHON_DOWNLOADS="never")
    run(VENV / "bin" / "jupyter", "lite", "build", cwd=LITE, env=env)


def copy_viz_js():
    """viz-js into the site, beside the Pyodide lock folder, where autograd.viz imports it."""
    SITE_VIZ_JS.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(VIZ_JS, SITE_VIZ_JS)


def write_welcome():
    """The site's first page (lite/welcome.html, filled in): what loads, where edits are kept,
    and the chapters. It replaces JupyterLite's own index.html, which redirects to lab/, and
    keeps the settings that page carries for the apps."""
    sys.path.insert(0, str(ROOT))
    from autograd.syllabus import CHAPTERS

    items = "\n".join(
        f'  <li><a href="lab/index.html?path={quote(chapter.notebook)}">'
        f"{html.escape(chapter.title)}</a></li>"
        for chapter in CHAPTERS
    )
    # what a first visit downloads, measured in a browser by tests/test_lite.py
    first_visit = json.loads(FIRST_VISIT.read_text(encoding="utf-8"))["megabytes"]
    # JupyterLite's apps read the site's settings from this element of the root page: keep it
    jupyterlite_page = (OUTPUT / "index.html").read_text(encoding="utf-8")
    config = re.search(r'<script id="jupyter-config-data".*?</script>', jupyterlite_page, re.S)
    if config is None:
        sys.exit("lite/build.py: JupyterLite's index.html has no jupyter-config-data script")
    page = string.Template((LITE / "welcome.html").read_text(encoding="utf-8"))
    (OUTPUT / "index.html").write_text(
        page.substitute(chapters=items, size=f"{first_visit:.0f}", config=config.group()),
        encoding="utf-8",
    )


STEPS = [
    ("lite/.venv: JupyterLite's build tools (pip; minutes the first time)", make_venv),
    ("lite/node_modules: Pyodide and viz-js (npm ci)", copy_pyodide),
    ("the autograd wheel", build_wheel),
    ("the notebooks as the site serves them", copy_notebooks),
    ("jupyter lite build", lite_build),
    ("viz-js into the site", copy_viz_js),
    ("the first page", write_welcome),
]


def main():
    started = time.monotonic()
    BUILD.mkdir(exist_ok=True)
    for number, (what, step) in enumerate(STEPS, 1):
        print(
            f"lite/build.py: step {number}/{len(STEPS)}, {what} "
            f"({time.monotonic() - started:.0f} s so far)",
            flush=True,
        )
        step()
    size = sum(p.stat().st_size for p in OUTPUT.rglob("*") if p.is_file())
    print(f"lite/build.py: {OUTPUT} ({size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
