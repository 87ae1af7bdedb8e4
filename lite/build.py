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
5. `jupyter lite build`, from scratch (the old output, cache and .jupyterlite.doit.db deleted):
   every notebook of notebooks/, the wheel listed for piplite (pypi/all.json) and in the site's
   Pyodide lock file (static/pyodide-lock/), so that `import autograd` installs it, together
   with ipython and the kernel's other packages; the lock also holds graphviz's Python package
   (jupyter_lite_config.json pins it), as a dependency of the wheel there, so that
   `from autograd.viz import draw_dot` installs it too;
6. _output/static/viz/viz.js: Graphviz compiled to WebAssembly (the npm package `@viz-js/viz`,
   pinned in lite/package.json, one MIT file), with which `autograd.viz` draws in the browser;
7. _output/index.html: the first page, lite/welcome.html with the chapters filled in: what
   loads and how long it takes, where the learner's edits are kept, what needs the network.

Takes 12 to 16 s on a 2-core machine once lite/.venv exists (about 35 s before); the site is
about 44 MB (ipywidgets and its JupyterLab extension included). website/build.py runs this and
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


def find_python():
    """A Python >= 3.12 to build with, or None."""
    if sys.version_info >= MIN_PYTHON:
        return sys.executable
    names = [shutil.which(f"python3.{minor}") for minor in (14, 13, 12)]
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    names += sorted(glob.glob(f"{pyenv}/versions/3.1[2-9]*/bin/python3"), reverse=True)
    for name in filter(None, names):
        version = subprocess.run([name, "-c", "import sys; print(*sys.version_info[:2])"],
                                 capture_output=True, text=True)
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
    run(VENV / "bin" / "pip", "install", "-q", "-r", LITE / "requirements.txt")


def copy_pyodide():
    run("npm", "ci", "--no-audit", "--no-fund", cwd=LITE)
    shutil.rmtree(PYODIDE, ignore_errors=True)
    shutil.copytree(LITE / "node_modules" / "pyodide", PYODIDE,
                    ignore=shutil.ignore_patterns(*PYODIDE_SKIP))
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))
    pure = sorted(f"{package['name']}=={package['version']}"
                  for package in lock["packages"].values()
                  if package["file_name"].endswith("-none-any.whl"))
    (BUILD / "pyodide-constraints.txt").write_text("\n".join(pure) + "\n", encoding="utf-8")


def build_wheel():
    """The `autograd` wheel, built from a copy so that the work tree gets no build/ folder."""
    wheels = BUILD / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(ROOT / name, tmp)
        shutil.copytree(ROOT / "autograd", Path(tmp) / "autograd",
                        ignore=shutil.ignore_patterns("__pycache__"))
        run(VENV / "bin" / "pip", "wheel", "-q", "--no-deps", "-w", wheels, tmp)


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
        f"{html.escape(chapter.title)}</a></li>" for chapter in CHAPTERS)
    size = sum(p.stat().st_size for p in OUTPUT.rglob("*") if p.is_file())
    # JupyterLite's apps read the site's settings from this element of the root page: keep it
    jupyterlite_page = (OUTPUT / "index.html").read_text(encoding="utf-8")
    config = re.search(r'<script id="jupyter-config-data".*?</script>', jupyterlite_page, re.S)
    if config is None:
        sys.exit("lite/build.py: JupyterLite's index.html has no jupyter-config-data script")
    page = string.Template((LITE / "welcome.html").read_text(encoding="utf-8"))
    (OUTPUT / "index.html").write_text(
        page.substitute(chapters=items, size=f"{size / 1e6:.0f}", config=config.group()),
        encoding="utf-8")


def main():
    started = time.monotonic()
    BUILD.mkdir(exist_ok=True)
    make_venv()
    copy_pyodide()
    build_wheel()
    lite_build()
    copy_viz_js()
    write_welcome()
    size = sum(p.stat().st_size for p in OUTPUT.rglob("*") if p.is_file())
    print(f"lite/build.py: {OUTPUT} ({size / 1e6:.1f} MB) in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
