"""`GraphDrawing`: a `graphviz.Digraph` that becomes a picture through `layout.run`.

A drawing turns into a picture in four ways: `pipe()` gives the picture's bytes or text,
`render()` (and `view()`) writes it to a file, a notebook shows it through
`_repr_mimebundle_()`, and `save(graph, path)` writes it where the learner says. All four
run the program `layout.layout_program()` finds, under the drawing's time limit, and a
notebook that cannot get a picture shows `explain(...)`: the reason and the DOT text, never a
traceback.

GraphDrawing overrides only public methods of `graphviz.Digraph` (and IPython's display hook),
with graphviz's own signatures, so it works with any graphviz from 0.20 on and leaves every
other graphviz object in the session as it was: nothing here depends on how graphviz runs its
own `dot` inside. (A notebook shows a drawing as SVG inside HTML that fits it to the output
area, whatever `graphviz.set_jupyter_format` says, unless it asks for another image type.)
"""

import html  # the standard library's, not autograd/viz/html.py
import os
import warnings
from pathlib import Path

import graphviz

from . import layout, screen

__all__ = ["GraphDrawing", "save", "explain", "CANNOT_DRAW"]

# What stops a drawing from becoming a picture, and what a notebook explains instead.
CANNOT_DRAW = (layout.GraphvizNotFoundError, layout.LayoutTimeoutError,
               graphviz.CalledProcessError, layout.browser.VizJsNotLoadedError)

# What a notebook may ask a drawing for, and how the layout program makes it (format and,
# for text, the encoding to read it in). SVG unless the notebook asks for another.
_PICTURES = {
    "image/jpeg": ("jpeg", None),
    "image/png": ("png", None),
    "image/svg+xml": ("svg", "utf-8"),
}
# HTML first: an SVG picture alone is shown at its own width, however narrow the output area.
_SHOWN_BY_DEFAULT = ("text/html", "image/svg+xml")
_SOURCE_SUFFIX = ".gv"  # graphviz's own name for a DOT file it writes before rendering


class GraphDrawing(graphviz.Digraph):
    """A `graphviz.Digraph` that draws with `layout_program()` and never shows a traceback.

    `values` holds the drawn values in drawing order (node `v{i}` is `values[i]`); `timeout`
    the seconds its layout may take (None: `LAYOUT_TIMEOUT`).

    `pipe`, `render` and `view` take graphviz's arguments, refuse an unknown engine, format,
    renderer or formatter with graphviz's words, and name files as graphviz does; they differ
    in which program lays the graph out, and in the time limit.
    """

    values = ()
    timeout = None
    # The drawing in words (draw_dot sets both): a sentence that SVG pictures carry as their
    # <title> and aria-label, and a longer text, value by value, for `describe()`.
    summary_text = None
    description_text = None

    def summary(self):
        """One sentence saying what the drawing shows (its output, how many values and
        operations, the inputs' gradients): the text a screen reader reads for the picture."""
        return self.summary_text

    def describe(self):
        """The drawing in words, value by value in drawing order (v0, v1, ...): each value's
        label, data and grad, and the operation that made it from which inputs."""
        if self.description_text is None:
            raise ValueError("this drawing has no description: only drawings from draw_dot "
                             "have one")
        return Description(f"{self.summary_text}\n{self.description_text}")

    def _labelled(self, picture, format, renderer, formatter):
        """An SVG picture with the summary as its <title> and aria-label (role img)."""
        if self.summary_text is None or format != "svg" or renderer or formatter:
            return picture
        return screen.labelled_svg(picture.decode("utf-8"), self.summary_text).encode("utf-8")

    def _limits(self):
        return {"timeout": layout.check_timeout(self.timeout), "values": len(self.values) or None}

    def _parameters(self, engine, format, renderer, formatter):
        """The layout engine and output format to use: the given ones, checked as graphviz
        checks them, else the drawing's own (`self.engine`, `self.format`, ...)."""
        checks = (("engine", engine, graphviz.ENGINES, ""),
                  ("format", format, graphviz.FORMATS, ""),
                  ("renderer", renderer, graphviz.RENDERERS, "None or "),
                  ("formatter", formatter, graphviz.FORMATTERS, "None or "))
        for kind, given, known, or_none in checks:
            if given is not None and given.lower() not in known:
                raise ValueError(f"unknown {kind}: {given!r} (must be {or_none}one of "
                                 f"{sorted(known)})")
        engine = self.engine if engine is None else engine
        format = self.format if format is None else format
        renderer = self.renderer if renderer is None else renderer
        formatter = self.formatter if formatter is None else formatter
        return engine, format, renderer, formatter

    def pipe(self, format=None, renderer=None, formatter=None, neato_no_op=None, quiet=False,
             *, engine=None, encoding=None):
        """The drawing as a picture: bytes, or text decoded with `encoding` (SVG, say).

        `format` ("svg", "png", ...; None: `self.format`), `renderer`, `formatter`,
        `neato_no_op`, `quiet` (no warnings from the layout program) and `engine` (None:
        `self.engine`) mean what they mean in `graphviz.Digraph.pipe`.
        """
        engine, format, renderer, formatter = self._parameters(engine, format, renderer,
                                                               formatter)
        picture = layout.run(engine, format, self.source.encode(self.encoding),
                             renderer=renderer, formatter=formatter, neato_no_op=neato_no_op,
                             quiet=quiet, **self._limits())
        picture = self._labelled(picture, format, renderer, formatter)
        return picture if encoding is None else picture.decode(encoding)

    def render(self, filename=None, directory=None, view=False, cleanup=False, format=None,
               renderer=None, formatter=None, neato_no_op=None, quiet=False, quiet_view=False,
               *, outfile=None, engine=None, raise_if_result_exists=False,
               overwrite_source=False):
        """Save the DOT text to a file, draw it into another, and return that one's path.

        The arguments and the files' names are graphviz's (`graphviz.Digraph.render`): the
        DOT text goes to `filename` in `directory` (by default the drawing's own), the picture
        to `outfile` or, without one, beside the DOT file with the format added
        (`autograd.gv` -> `autograd.gv.svg`); `outfile`'s suffix gives the format when
        `format` is None. `cleanup` deletes the DOT file afterwards; `view` opens the picture.
        """
        if outfile is not None:
            outfile = Path(outfile)
            format = _format_for(outfile, format)
            if directory is None:
                outfile = Path(self.directory, outfile)
        engine, format, renderer, formatter = self._parameters(engine, format, renderer,
                                                               formatter)
        if outfile is not None and filename is None:
            filename = outfile.with_suffix(_SOURCE_SUFFIX)
        filepath = Path(self.save(filename, directory=directory))
        if outfile is None:
            suffix = ".".join(part for part in (formatter, renderer, format) if part)
            outfile = filepath.with_name(f"{filepath.name}.{suffix}")
        elif not overwrite_source and outfile.resolve() == filepath.resolve():
            raise ValueError(f"outfile {outfile} must differ from the DOT file it is drawn from")
        if raise_if_result_exists and outfile.exists():
            raise graphviz.FileExistsError(f"output file exists: {os.fspath(outfile)!r}")
        # Started in the DOT file's folder, as graphviz does, so that a path in the DOT text
        # (an image=..., say) is read relative to the file.
        picture = layout.run(engine, format, filepath.read_bytes(), renderer=renderer,
                             formatter=formatter, neato_no_op=neato_no_op, quiet=quiet,
                             cwd=filepath.parent, **self._limits())
        outfile.write_bytes(self._labelled(picture, format, renderer, formatter))
        if cleanup:
            os.remove(filepath)
        if view or quiet_view:
            graphviz.view(os.fspath(outfile), quiet=quiet_view)
        return os.fspath(outfile)

    def view(self, filename=None, directory=None, cleanup=False, quiet=False,
             quiet_view=False):
        """`render(..., view=True)`: draw the graph into a file and open it in a viewer."""
        return self.render(filename, directory, view=True, cleanup=cleanup, quiet=quiet,
                           quiet_view=quiet_view)

    def name_of(self, value):
        """The node name (`v0`, `v1`, ...) this drawing gave `value`; also its SVG `<title>`."""
        for i, drawn in enumerate(self.values):
            if drawn is value:
                return f"v{i}"
        raise ValueError(f"{value!r} is not part of this drawing")

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        """What Jupyter shows: the picture as SVG, and as HTML that fits it to the output area
        (see `screen.py`), which JupyterLab, the website and the JupyterLite edition show
        first; or the types in `include`, less those in `exclude`. When there is no picture,
        the reason and the DOT text."""
        wanted = set(_SHOWN_BY_DEFAULT) if include is None else set(include)
        wanted -= set(exclude or ())
        try:
            bundle = {mimetype: self.pipe(format=format, encoding=encoding)
                      for mimetype, (format, encoding) in _PICTURES.items()
                      if mimetype in wanted}
            if "text/html" in wanted:
                svg = bundle.get("image/svg+xml") or self.pipe(format="svg", encoding="utf-8")
                bundle["text/html"] = screen.drawing_html(svg, words=self.description_text)
            return bundle
        except CANNOT_DRAW as error:
            return explain(error, self.source)


class Description(str):
    """A drawing in words (`GraphDrawing.describe()`): text that a notebook shows as it is."""

    def __repr__(self):
        return str(self)


def _format_for(outfile, format):
    """The format to render into `outfile`: `format`, else the one its suffix names (as
    graphviz chooses it, with graphviz's warnings when the two disagree)."""
    suffix = outfile.suffix[1:].lower()
    if suffix not in graphviz.FORMATS:
        if format is None:
            raise graphviz.RequiredArgumentError(
                f"cannot infer rendering format from suffix {outfile.suffix!r} of outfile: "
                f"{os.fspath(outfile)!r} (provide format or outfile with a suffix from "
                f"{['.' + known for known in sorted(graphviz.FORMATS)]!r})"
            )
        warnings.warn(f"unknown outfile suffix {outfile.suffix!r} (expected: {'.' + format!r})",
                      category=graphviz.UnknownSuffixWarning, stacklevel=3)
        return format
    if format is not None and format.lower() != suffix:
        warnings.warn(f"expected format {suffix!r} from outfile differs from given format: "
                      f"{format!r}", category=graphviz.FormatSuffixMismatchWarning, stacklevel=3)
        return format
    return suffix


def explain(error, source, what="this graph"):
    """What a notebook shows instead of a picture that `error` (one of `CANNOT_DRAW`) stopped:
    the reason, and the DOT text `source`. `what` names the drawing in a layout program's
    complaint ("this graph", "these graphs")."""
    message = str(error)
    if isinstance(error, graphviz.CalledProcessError):
        stderr = error.stderr.decode(errors="replace") if error.stderr else ""
        message = f"The layout program {error.cmd[0]} failed to draw {what}:\n{stderr}"
    text = f"{message}\n\n{source}"
    page = (
        '<div class="autograd-no-drawing" style="border-left: 4px solid #e66101; '
        'padding-left: 0.8em">'
        f'<pre style="white-space: pre-wrap">{html.escape(message)}</pre>'
        "<p>The graph as DOT text (<code>graph.source</code>):</p>"
        f"<pre>{html.escape(source)}</pre></div>"
    )
    return {"text/plain": text, "text/html": page}


# --------------------------------------------------------------------------- saving


_SAVE_FORMATS = ("svg", "png", "gv", "dot")


def save(graph, path, *, dpi=150, timeout=None):
    """Write `graph` (from `draw_dot`, or any graphviz graph) to `path` and return the path.

    The format follows the suffix: `.svg`, `.png` (at `dpi` dots per inch), or `.gv`/`.dot`
    for the DOT text itself, which needs no layout program. `timeout`: the seconds the layout
    may take (None: the drawing's own `timeout`, else `LAYOUT_TIMEOUT`).
    """
    source = getattr(graph, "source", None)
    if not isinstance(source, str):
        raise TypeError(
            f"save needs a graph from draw_dot (or any graphviz graph), but was given "
            f"{graph!r} of type {type(graph).__name__}"
        )
    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in _SAVE_FORMATS:
        raise ValueError(
            f"cannot save a graph as {path.name!r}: the name must end in "
            f"{', '.join('.' + k for k in _SAVE_FORMATS)}"
        )
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 10 <= dpi <= 1200:
        raise ValueError(f"dpi must be a number from 10 to 1200, but was {dpi!r}")
    timeout = layout.check_timeout(timeout)
    if timeout is None:
        timeout = getattr(graph, "timeout", None)
    encoding = getattr(graph, "encoding", None) or "utf-8"
    if kind in ("gv", "dot"):
        path.write_text(source, encoding=encoding)
        return path
    options = [f"-Gdpi={dpi:g}"] if kind == "png" else []
    picture = layout.run(getattr(graph, "engine", "dot"), kind, source.encode(encoding),
                         options=options, timeout=timeout,
                         values=len(getattr(graph, "values", ())) or None)
    summary = getattr(graph, "summary_text", None)
    if kind == "svg" and summary:
        picture = screen.labelled_svg(picture.decode("utf-8"), summary).encode("utf-8")
    path.write_bytes(picture)
    return path
