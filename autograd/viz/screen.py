"""A drawing on screen: as large as it was drawn when there is room, smaller when there is not,
but never with text too small to read.

JupyterLab in a laptop's window with its file browser open gives an output about 868 pixels
wide; the course website gives less, a phone about 350. A drawing in a box narrower than
itself shrinks to the box's width, proportions kept, until its smallest text would be smaller
than `SMALLEST_TEXT` pixels; narrower than that, it keeps that size and its box scrolls
sideways instead, so that what it says stays readable. It never grows beyond its own size.

`fitted_svg(svg)` gives a layout program's SVG as an `<svg>` element sized that way, and
`drawing_html(svg)` that element in its box, as a notebook shows a single drawing. Both read
the SVG's own numbers (its width, its viewBox, the scale the layout applied, its font sizes),
so they work for any drawing that Graphviz, graphviz-pure or viz-js made.
"""

import html  # the standard library's, not autograd/viz/html.py
import math
import re

__all__ = [
    "SMALLEST_TEXT",
    "BOX_STYLE",
    "screen_widths",
    "pixels",
    "fitted_svg",
    "drawing_html",
    "labelled_svg",
]

SMALLEST_TEXT = 10  # CSS pixels: the smallest text a drawing is shrunk to on screen

# CSS pixels per unit of an SVG length (a browser shows 96 pixels to the inch).
_PIXELS = {
    "": 1.0,
    "px": 1.0,
    "pt": 96 / 72,
    "pc": 16.0,
    "in": 96.0,
    "cm": 96 / 2.54,
    "mm": 96 / 25.4,
}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_OPEN_TAG = re.compile(r"<svg\b[^>]*>", re.S)
_WIDTH = re.compile(rf'\swidth="\s*({_NUMBER})\s*(px|pt|pc|in|cm|mm)?\s*"')
_VIEWBOX = re.compile(rf'\sviewBox="\s*{_NUMBER}[\s,]+{_NUMBER}[\s,]+({_NUMBER})[\s,]+({_NUMBER})')
# The layout's own scale (Graphviz writes it on the graph's group when `size` shrank it).
_SCALE = re.compile(rf'<g\b[^>]*\bclass="graph"[^>]*\btransform="scale\(\s*({_NUMBER})')
_FONT_SIZE = re.compile(rf'\sfont-size="\s*({_NUMBER})\s*(?:px)?"')


def screen_widths(svg):
    """`(natural, narrowest)`: the width in CSS pixels at which `svg` (a layout program's SVG
    text) is drawn, and the narrowest it may shrink to, at which its smallest text is
    `SMALLEST_TEXT` pixels (its natural width, if the text is no larger than that already; 0
    for a drawing without text). None for SVG whose size this cannot read."""
    tag = _OPEN_TAG.search(svg)
    if tag is None:
        return None
    width, box = _WIDTH.search(tag.group()), _VIEWBOX.search(tag.group())
    if width is None:
        return None
    natural = float(width.group(1)) * _PIXELS[width.group(2) or ""]
    if not natural > 0:
        return None
    if box is None or not float(box.group(1)) > 0:
        per_unit = _PIXELS[width.group(2) or ""]  # no viewBox: one unit is one unit of width
    else:
        per_unit = natural / float(box.group(1))
    scale = _SCALE.search(svg)
    if scale is not None and float(scale.group(1)) > 0:
        per_unit *= float(scale.group(1))
    sizes = [float(size) for size in _FONT_SIZE.findall(svg) if float(size) > 0]
    if not sizes:
        return natural, 0.0
    smallest = min(sizes) * per_unit
    return natural, min(natural, natural * SMALLEST_TEXT / smallest)


def pixels(width, up=False):
    """A width in CSS, to a tenth of a pixel: rounded up if `up` (a narrowest width, whose text
    must not end up a hair below `SMALLEST_TEXT`), else to the nearest."""
    tenths = math.ceil(width * 10 - 1e-6) if up else round(width * 10)
    return f"{tenths / 10:g}px"


def fitted_svg(svg):
    """`svg`, a layout program's SVG text, as an `<svg>` element to put in HTML, sized to fit.

    The XML prolog and doctype go (HTML embeds the bare element). The element takes the width
    of its box, but no more than its own width and no less than the narrowest its text allows
    (see `screen_widths`), its height following in proportion; in a narrower box it sticks
    out, so put it in a box that scrolls (`drawing_html`).
    """
    if not isinstance(svg, str):
        raise TypeError(
            f"a drawing on screen needs SVG text (a str), but was given {svg!r:.80} "
            f"of type {type(svg).__name__}"
        )
    start = svg.find("<svg")
    if start < 0:
        raise ValueError(
            f"a drawing on screen needs SVG text, but this has no <svg> in it: {svg!r:.80}"
        )
    widths = screen_widths(svg)
    if widths is None:  # a size this cannot read: shrink to the box, as an image would
        style = "max-width:100%; height:auto"
    else:
        natural, narrowest = widths
        style = (
            f"display:block; width:100%; max-width:{pixels(natural)}; "
            f"min-width:{pixels(narrowest, up=True)}; height:auto"
        )
        box = _VIEWBOX.search(_OPEN_TAG.search(svg).group())
        if box is not None and float(box.group(1)) > 0 and float(box.group(2)) > 0:
            # the height from the viewBox itself, not from the rounded width and height, so
            # that the drawing fills the width it is given (its text as large as computed)
            style += f"; aspect-ratio:{box.group(1)} / {box.group(2)}"
    return svg[start:].replace("<svg", f'<svg style="{style}"', 1)


# The box of a drawing: as wide as the output, scrolling sideways when the drawing cannot
# shrink that far (a phone), and never vertically.
BOX_STYLE = "max-width:100%; overflow-x:auto; overflow-y:hidden"


def labelled_svg(svg, text):
    """`svg` (SVG text) with `text` as its accessible name: an image (role "img") whose
    aria-label and first child, a `<title>`, say `text`, so that a screen reader reads the
    sentence instead of the picture's parts (and a mouse shows it as a tooltip). SVG that has
    an aria-label already keeps it."""
    tag = _OPEN_TAG.search(svg)
    if tag is None or "aria-label=" in tag.group():
        return svg
    said = html.escape(text, quote=True)
    opened = tag.group()[:-1].rstrip("/").rstrip()
    if tag.group().endswith("/>"):  # an empty picture: <svg .../>
        return (
            svg[: tag.start()]
            + (f'{opened} role="img" aria-label="{said}"><title>{said}</title></svg>')
            + svg[tag.end() :]
        )
    return (
        svg[: tag.start()] + f'{opened} role="img" aria-label="{said}">'
        f"<title>{said}</title>" + svg[tag.end() :]
    )


# Under a drawing, folded away until asked for: the drawing in words, value by value.
_WORDS_STYLE = "font-size:90%; margin:0.2em 0 0.6em"
WORDS_SUMMARY = "The drawing in words"


def words_html(words):
    """`words`, a drawing's description (lines of text), as a folded `<details>` element."""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in words.splitlines())
    return (
        f'<details class="autograd-words" style="{_WORDS_STYLE}">'
        f"<summary>{WORDS_SUMMARY}</summary>"
        f'<ul style="margin:0.3em 0; padding-left:1.2em">{items}</ul></details>'
    )


def drawing_html(svg, css_class="autograd-drawing", words=None):
    """`svg` as HTML: its fitted `<svg>` element (`fitted_svg`) in a box that scrolls sideways
    when the drawing cannot shrink to the box's width with its text still readable; with
    `words` (the drawing's description), that text under it, folded away until opened."""
    # tabindex: a box that scrolls sideways can be scrolled from the keyboard too
    box = f'<div class="{css_class}" style="{BOX_STYLE}" tabindex="0">{fitted_svg(svg)}</div>'
    return box if not words else box + words_html(words)
