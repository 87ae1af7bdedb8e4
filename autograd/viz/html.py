"""Drawings in HTML: one as an inline `<svg>` element, several side by side.

`inline_svg(svg)` makes a layout program's SVG fit inside HTML (the explorers in
`autograd.widgets` use it); `side_by_side(...)` shows drawings in a row, each under its title,
and, like a single drawing, explains in the notebook when they cannot be drawn.
"""

import html  # the standard library's (this module is autograd.viz.html)

from .draw import FONT
from .graph_drawing import CANNOT_DRAW, explain
from .screen import fitted_svg, pixels, screen_widths

__all__ = ["inline_svg", "side_by_side", "SideBySide"]


def inline_svg(svg):
    """SVG text from a layout program as an `<svg>` element to put in HTML.

    The XML prolog and doctype go (HTML embeds the bare element), and the element shrinks
    with a container narrower than the drawing, proportions kept, but only as far as its text
    stays readable (`screen.SMALLEST_TEXT` pixels); put it in a box that scrolls sideways
    (`screen.BOX_STYLE`) for a container narrower than that. It never grows beyond its size.
    """
    if not isinstance(svg, str):
        raise TypeError(
            f"inline_svg takes SVG text (a str), but was given {svg!r:.80} of "
            f"type {type(svg).__name__}"
        )
    if "<svg" not in svg:
        raise ValueError(f"inline_svg takes SVG text, but this has no <svg> in it: {svg!r:.80}")
    return fitted_svg(svg)


# The drawings share the row's width: each starts at the narrowest its text allows and grows,
# in proportion to how much it can, up to its own width, so drawings of about the same size keep
# about the same scale. Where the row cannot hold them all at their narrowest (a phone), the
# next goes under the one before; one that is wider even alone makes the row scroll sideways.
_ROW_STYLE = (
    "display:flex; flex-wrap:wrap; gap:1em 2em; align-items:flex-start; "
    "max-width:100%; overflow-x:auto; overflow-y:hidden"
)
_FIGURE_STYLE = "margin:0; display:flex; flex-direction:column; align-items:center"
_CAPTION_STYLE = f"font-family:{FONT},sans-serif; font-weight:bold; margin-bottom:0.4em"


def _figure_size(svg):
    """The CSS that lets one figure of the row grow from its narrowest to its own width."""
    widths = screen_widths(svg)
    if widths is None:
        return "flex:1 1 0; min-width:0"
    natural, narrowest = widths
    return (
        f"flex:{max(natural - narrowest, 0.001):.1f} 1 {pixels(narrowest, up=True)}; "
        f"min-width:{pixels(narrowest, up=True)}; max-width:{pixels(natural)}"
    )


def side_by_side(*drawings, titles=None):
    """Show several drawings next to each other, each under its title, in a notebook.

    `drawings` are graphs from `draw_dot` (or any graphviz graph); `titles`, if given, one
    string per drawing. The result displays as HTML: one inline SVG per drawing, shrunk
    together to fit the output area when the row is wider than it, as far as their text stays
    readable (then the row wraps, or scrolls sideways). `.html()` gives the text.

    >>> from autograd import Value
    >>> from autograd.viz import draw_dot
    >>> x = Value(3.0, label="x")
    >>> row = side_by_side(draw_dot(x * 2), draw_dot(x + x), titles=["x * 2", "x + x"])
    """
    if not drawings:
        raise ValueError("side_by_side needs at least one drawing, but was given none")
    for drawing in drawings:
        if not (
            callable(getattr(drawing, "pipe", None))
            and isinstance(getattr(drawing, "source", None), str)
        ):
            hint = " (draw it first: draw_dot(value))" if hasattr(drawing, "_prev") else ""
            raise TypeError(
                f"side_by_side takes drawings from draw_dot (or any graphviz graph), but was "
                f"given {drawing!r} of type {type(drawing).__name__}{hint}"
            )
    if titles is not None:
        if isinstance(titles, str):
            raise TypeError(
                f"titles must be a list of strings, one per drawing, not the "
                f"single string {titles!r}"
            )
        titles = tuple(titles)
        if len(titles) != len(drawings):
            raise ValueError(
                f"titles must give one title per drawing: {len(drawings)} "
                f"drawings, but {len(titles)} titles {titles!r}"
            )
        for title in titles:
            if not isinstance(title, str):
                raise TypeError(f"each title must be a string, but one was {title!r}")
    return SideBySide(drawings, titles)


class SideBySide:
    """Drawings in a row, as `side_by_side` makes them; a notebook shows them as HTML."""

    def __init__(self, drawings, titles=None):
        self.drawings = tuple(drawings)
        self.titles = titles

    def html(self):
        """The row as HTML text. Raises `GraphvizNotFoundError` without a layout program."""
        figures = []
        for i, drawing in enumerate(self.drawings):
            caption = ""
            if self.titles is not None:
                caption = (
                    f'<figcaption style="{_CAPTION_STYLE}">'
                    f"{html.escape(self.titles[i])}</figcaption>"
                )
            svg = drawing.pipe(format="svg", encoding="utf-8")
            figures.append(
                f'<figure style="{_FIGURE_STYLE}; {_figure_size(svg)}">{caption}'
                f"{inline_svg(svg)}</figure>"
            )
        return (
            f'<div class="autograd-side-by-side" style="{_ROW_STYLE}" tabindex="0">'
            f"{''.join(figures)}</div>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        sources = "\n\n".join(drawing.source for drawing in self.drawings)
        try:
            page = self.html()
        except CANNOT_DRAW as error:
            return explain(error, sources, "these graphs")
        return {"text/html": page, "text/plain": repr(self)}

    def __repr__(self):
        titles = "" if self.titles is None else f": {', '.join(self.titles)}"
        return f"SideBySide({len(self.drawings)} drawings{titles})"
