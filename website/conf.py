"""Sphinx's settings for the course website (website/build.py runs sphinx-build with them).

The chapters arrive executed (website/_build/src), so myst-nb only renders them. Everything a
page loads comes from the site itself: the theme's CSS, JS and fonts, MathJax, and the widget
embedder with require.js (website/build.py copies them to website/_build/static).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import REPOSITORY
import accessible_names

project = "Autograd from Scratch"
author = "the authors of Autograd from Scratch"
copyright = "the authors of Autograd from Scratch; prose and figures CC BY 4.0, code MIT"

extensions = ["myst_nb"]
myst_enable_extensions = ["dollarmath", "amsmath"]
# The notebooks link to a heading as JupyterLab names it (`00_start_here.ipynb#The-map`).
myst_heading_anchors = 3
myst_heading_slug_func = "build.jupyterlab_anchor"
nb_execution_mode = "off"  # website/build.py has run every chapter
nb_merge_streams = True  # a cell's prints read as one block, as in JupyterLab
exclude_patterns = ["**/.ipynb_checkpoints"]

html_theme = "sphinx_book_theme"
html_title = project
html_static_path = ["static", "_build/static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]  # plots keep their text readable on a phone
html_theme_options = {
    "repository_url": REPOSITORY,
    "use_repository_button": True,
    "use_download_button": True,  # the executed notebook, and a printable page
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
}

# MathJax 3 from the site: the TeX input with every extension and SVG output needs no fonts.
mathjax_path = "mathjax/tex-svg-full.js"
# The widgets' saved state, shown by the html-manager's embedder with require.js, both from the
# site instead of a CDN (website/static/widgets/ has the two small files that fit them to it).
nb_ipywidgets_js = {
    "widgets/require.js": {},
    "widgets/require-config.js": {},
    "widgets/embed-amd.js": {},
    "widgets/mathjax2-hub.js": {"defer": "defer"},
}


def setup(app):
    # controls named by the text they show (the theme's search button, the solution toggles)
    accessible_names.setup(app)
