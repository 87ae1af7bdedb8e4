"""Build the course website: every chapter, executed, as one static site in website/_site.

    python3 website/build.py              # everything, the JupyterLite edition included
    python3 website/build.py --skip-lite  # the chapter pages only (quicker, while editing)

Any Python >= 3.10 runs this script. It needs npm, a network that reaches the package
registries (PyPI, npm) and, for the JupyterLite edition, a Python >= 3.12 somewhere (lite/build.py
finds it); the drawings use Graphviz's `dot` where it is installed, as the notebooks do (else the
graphviz-pure wheel). Step by step, everything ignored by git (website/.gitignore, lite/'s
own):

1. website/.venv: a venv of the running Python with website/requirements.txt (the course's
   requirements, nbclient, and Sphinx with myst-nb and sphinx-book-theme, pinned);
2. website/node_modules: `npm ci` of website/package.json (MathJax 3, require.js and the widget
   embedder, pinned), of which the few files the pages load are copied to website/_build/static,
   so that formulas and widgets need no CDN;
3. website/_build/src: a copy of each chapter of notebooks/ (the originals are not touched)
   with a row of two buttons under its title, "Run it in your browser" (the JupyterLite edition,
   in this site) and "Open in Binder", executed with nbclient in website/.venv's kernel, two at
   a time, in the notebooks folder as a learner runs them, widget state kept; and the landing
   page, website/index.md with the README's chapter table, made from `autograd.syllabus`;
4. website/_site: Sphinx (website/conf.py) renders website/_build/src, without executing again;
5. website/_site/lite: lite/build.py builds the JupyterLite edition (beside steps 1 to 4, its
   output in website/_build/lite.log), copied here.

A chapter that raises an error (outside a cell tagged `raises-exception`) stops the build with a
non-zero exit, the chapter's name and the error. On a 2-core machine it takes about 80 s when
website/.venv, website/node_modules and lite/.venv exist (the chapters 45 s, Sphinx 7 s, the Lite
edition 11 s), about 2 minutes with a new website/.venv (pip's cache warm), and longer on a clean
machine, which downloads everything first. The site is about 60 MB, 44 MB of it the Lite edition.
Serve the result with

    python3 -m http.server -d website/_site

and open http://localhost:8000/.
"""

import concurrent.futures
import json
import os
import posixpath
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

if sys.version_info < (3, 10):
    sys.exit("website/build.py needs Python >= 3.10")

WEBSITE = Path(__file__).resolve().parent
ROOT = WEBSITE.parent
VENV = WEBSITE / ".venv"
BUILD = WEBSITE / "_build"
SRC = BUILD / "src"  # the executed chapters and the landing page: what Sphinx reads
STATIC = BUILD / "static"  # the files of website/node_modules that the pages load
SITE = WEBSITE / "_site"
NOTEBOOKS = ROOT / "notebooks"
LITE_BUILD = ROOT / "lite" / "build.py"
LITE_OUTPUT = ROOT / "lite" / "_output"
LITE_IN_SITE = "lite"  # the Lite edition's folder in the site; its file browser is notebooks/

sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
import make_readme_chapters as readme  # noqa: E402  (the README's table: promise, Binder)
from autograd.syllabus import CHAPTERS  # noqa: E402

# The repository, as the Binder links name it (…/v2/gh/OWNER/NAME/HEAD?labpath=).
REPOSITORY = "https://github.com/" + "/".join(readme.BINDER.split("/v2/gh/")[1].split("/")[:2])

# Of website/node_modules, what the pages load: MathJax with every TeX extension and SVG output
# (no fonts to fetch), and what myst-nb's widget embedding needs (its nb_ipywidgets_js).
BROWSER_FILES = {
    "mathjax/tex-svg-full.js": "mathjax/es5/tex-svg-full.js",
    "widgets/require.js": "requirejs/require.js",
    "widgets/embed-amd.js": "@jupyter-widgets/html-manager/dist/embed-amd.js",
}
# ...and the widgets' icon fonts, where the embedder looks for them (see
# website/static/widgets/require-config.js)
WIDGET_FONTS = ("@jupyter-widgets/html-manager/dist", "*.woff2", "widgets/@jupyter-widgets")
PARALLEL = 2  # chapters executed at once: the machine has 2 cores


def run(*command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def page_of(notebook):
    """The chapter's page in the site, relative to its root: 02_value_and_graph.html."""
    return Path(notebook).stem + ".html"


def lite_link(notebook, page):
    """A link from `page` (a path in the site) that opens `notebook` in the Lite edition."""
    lab = posixpath.relpath(f"{LITE_IN_SITE}/lab/index.html", posixpath.dirname(page) or ".")
    return f"{lab}?path={quote(notebook)}"


def jupyterlab_anchor(heading):
    """A heading's anchor as JupyterLab makes it, which the notebooks link to: `#The-map`."""
    return heading.replace(" ", "-")


def binder_link(chapter):
    return readme.BINDER + quote(chapter.path, safe="")


# ------------------------------------------------------------------------------ the steps


def make_venv():
    if not (VENV / "bin" / "python").exists():
        run(sys.executable, "-m", "venv", VENV)
    # cwd: the course's requirements.txt installs this package with `-e .`
    run(
        VENV / "bin" / "pip",
        "install",
        "--progress-bar",
        "off",
        "--disable-pip-version-check",
        "-r",
        WEBSITE / "requirements.txt",
        cwd=ROOT,
    )


def copy_browser_files():
    run("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", cwd=WEBSITE)
    shutil.rmtree(STATIC, ignore_errors=True)
    for target, source in BROWSER_FILES.items():
        (STATIC / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(WEBSITE / "node_modules" / source, STATIC / target)
    folder, pattern, target = WIDGET_FONTS
    (STATIC / target).mkdir(parents=True)
    for font in (WEBSITE / "node_modules" / folder).glob(pattern):
        shutil.copy(font, STATIC / target)


def launch_cell(chapter, nbformat_minor):
    """A markdown cell with the chapter's two buttons: this site's Lite edition, and Binder."""
    page = page_of(chapter.notebook)
    source = (
        f'<div class="course-launch">\n'
        f'<a class="btn btn-primary" href="{lite_link(chapter.notebook, page)}">'
        f"Run it in your browser</a>\n"
        f'<a class="btn btn-outline-primary" href="{binder_link(chapter)}">'
        f"Open in Binder</a>\n</div>"
    )
    cell = {"cell_type": "markdown", "metadata": {}, "source": source}
    if nbformat_minor >= 5:
        cell["id"] = "course-launch"
    return cell


def chapter_source(chapter):
    """The chapter's notebook as the site shows it, before it runs.

    The buttons go under the title cell, and replace its Binder badge (an image from another
    host); collapsed solutions stay collapsed (myst-nb's `hide-input` tag).
    """
    notebook = json.loads((ROOT / chapter.path).read_text(encoding="utf-8"))
    cells = notebook["cells"]
    badge = f"[![Open in Binder]({readme.BADGE})]({binder_link(chapter)})"
    title = "".join(cells[0]["source"])
    cells[0]["source"] = title.replace(badge + "\n· ", "").replace(badge, "")
    cells.insert(1, launch_cell(chapter, notebook.get("nbformat_minor", 0)))
    for cell in cells:
        if cell["metadata"].get("jupyter", {}).get("source_hidden"):
            tags = cell["metadata"].setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
    return notebook


def execute(chapter, stop):
    """Run the chapter's copy in website/.venv's kernel: (seconds, None) or (seconds, error),
    or None if `stop` is set (another chapter failed) before it starts."""
    if stop.is_set():
        return None
    path = SRC / chapter.notebook
    started = time.monotonic()
    # Chapters run two at a time, so none reads or writes a learner's my_engine.py: each runs on
    # the course's engine (autograd.stages), the same on every build (autograd/yours.py).
    result = subprocess.run(
        [VENV / "bin" / "python", WEBSITE / "execute.py", path, NOTEBOOKS],
        capture_output=True,
        text=True,
        env=dict(os.environ, AUTOGRAD_MY_ENGINE="off"),
    )
    if result.returncode:
        stop.set()  # start no other chapter: the build fails anyway
        return time.monotonic() - started, result.stderr[-6000:]
    return time.monotonic() - started, None


def execute_chapters():
    shutil.rmtree(SRC, ignore_errors=True)
    SRC.mkdir(parents=True)
    for chapter in CHAPTERS:
        (SRC / chapter.notebook).write_text(
            json.dumps(chapter_source(chapter), indent=1, ensure_ascii=False), encoding="utf-8"
        )
    failed, stop = [], threading.Event()
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        running = {pool.submit(execute, chapter, stop): chapter for chapter in CHAPTERS}
        for future in concurrent.futures.as_completed(running):
            chapter, result = running[future], future.result()
            if result is None:
                continue
            seconds, error = result
            print(f"  {chapter.heading}: {seconds:.1f} s{' FAILED' if error else ''}", flush=True)
            if error:
                failed.append((chapter, error))
    if failed:
        for chapter, error in failed:
            print(
                f"\n{chapter.heading} ({chapter.path}) raised an error:\n{error}", file=sys.stderr
            )
        sys.exit(
            "website/build.py: chapter "
            + ", ".join(c.heading for c, _ in failed)
            + " raised an error (see above)"
        )


def chapter_row(chapter):
    """The README's row (heading, promise, where to run it), with links into this site."""
    page = "index.html"
    return (
        f"| [{chapter.heading}]({chapter.notebook}) | {readme.promise(chapter)} | "
        f'<a href="{lite_link(chapter.notebook, page)}">in your browser</a> · '
        f"[on Binder]({binder_link(chapter)}) |\n"
    )


def write_index():
    """The landing page: website/index.md with the chapter table and the chapters' toctree."""
    table = "| Chapter | What you will do | Run it |\n| --- | --- | --- |\n" + "".join(
        chapter_row(chapter) for chapter in CHAPTERS
    )
    toctree = (
        "\n```{toctree}\n:hidden:\n:caption: Chapters\n:maxdepth: 1\n\n"
        + "".join(Path(chapter.notebook).stem + "\n" for chapter in CHAPTERS)
        + "```\n"
    )
    text = (WEBSITE / "index.md").read_text(encoding="utf-8")
    text = (
        text.replace("{{lite_start}}", f"{LITE_IN_SITE}/index.html")  # its first page
        .replace("{{repository}}", REPOSITORY)
        .replace("{{chapters}}", table + toctree)
    )
    (SRC / "index.md").write_text(text, encoding="utf-8")


def render():
    # Sphinx writes into _build/html, and myst-nb its pictures beside that (_build/jupyter_execute)
    html = BUILD / "html"
    for stale in (SITE, html, BUILD / "doctrees", BUILD / "jupyter_execute"):
        shutil.rmtree(stale, ignore_errors=True)
    # -W: a broken cross-reference or a missing picture fails the build
    run(
        VENV / "bin" / "sphinx-build",
        "-b",
        "html",
        "-q",
        "-W",
        "--keep-going",
        "-j",
        "auto",
        "-c",
        WEBSITE,
        "-d",
        BUILD / "doctrees",
        SRC,
        html,
    )
    (html / ".buildinfo").unlink(missing_ok=True)  # Sphinx's note to itself, not for readers
    html.rename(SITE)


def start_lite():
    """Start lite/build.py, which runs beside the other steps (it mostly downloads and copies):
    its output goes to website/_build/lite.log."""
    BUILD.mkdir(parents=True, exist_ok=True)
    log = open(BUILD / "lite.log", "w", encoding="utf-8")
    print(f"+ {sys.executable} {LITE_BUILD} > {BUILD / 'lite.log'} (in the background)", flush=True)
    return subprocess.Popen([sys.executable, LITE_BUILD], stdout=log, stderr=subprocess.STDOUT)


def add_lite(building):
    """Wait for lite/build.py (saying, every 15 s, which of its steps it is on), then copy the
    Lite edition into the site."""
    said = None
    while building.poll() is None:
        log = (BUILD / "lite.log").read_text(encoding="utf-8", errors="replace")
        steps = [line for line in log.splitlines() if line.startswith("lite/build.py: step")]
        if steps and steps[-1] != said:
            said = steps[-1]
            print(f"  {said}", flush=True)
        time.sleep(15)
    if building.returncode:
        print((BUILD / "lite.log").read_text(encoding="utf-8")[-6000:], file=sys.stderr)
        sys.exit(f"website/build.py: lite/build.py failed (exit {building.returncode})")
    shutil.copytree(LITE_OUTPUT, SITE / LITE_IN_SITE)


def size_mb(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main(argv):
    building = None if "--skip-lite" in argv else start_lite()
    steps = [
        ("venv", make_venv),
        ("npm", copy_browser_files),
        ("execute chapters", execute_chapters),
        ("landing page", write_index),
        ("sphinx", render),
    ]
    if building is not None:
        steps.append(("lite (waited for)", lambda: add_lite(building)))
    times = {}
    began = time.monotonic()
    for number, (name, step) in enumerate(steps, 1):
        print(
            f"== step {number}/{len(steps)}: {name} ({time.monotonic() - began:.0f} s so far)",
            flush=True,
        )
        started = time.monotonic()
        step()
        times[name] = time.monotonic() - started
    print(f"\nwebsite/build.py: {SITE} ({size_mb(SITE):.1f} MB) in {sum(times.values()):.0f} s")
    for name, seconds in times.items():
        print(f"  {name:<18}{seconds:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
