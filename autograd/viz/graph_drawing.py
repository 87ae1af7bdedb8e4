"""`GraphDrawing`: a `graphviz.Digraph` that becomes a picture through `layout.run`, and says
in words what it shows.

A drawing turns into a picture in four ways: `pipe()` gives the picture's bytes or text,
`render()` (and `view()`) writes it to a file, a notebook shows it through
`_repr_mimebundle_()`, and `save(graph, path)` writes it where the learner says. All four
run the program `layout.layout_program()` finds, under the drawing's time limit, and a
notebook that cannot get a picture shows `explain(...)`: the reason and the DOT text, never a
traceback. Every SVG picture carries the drawing's `summary()` as its name (its `<title>`
and aria-label), and a notebook folds its `describe()` text under it: draw_dot sets both;
any other drawing makes them from the nodes and arrows it was given.

GraphDrawing overrides only public methods of `graphviz.Digraph` (and IPython's display hook),
with graphviz's own signatures, so it works with any graphviz from 0.20 on and leaves every
other graphviz object in the session as it was: nothing here depends on how graphviz runs its
own `dot` inside. (A notebook shows a drawing as SVG inside HTML that fits it to the output
area, whatever `graphviz.set_jupyter_format` says, unless it asks for another image type.)
"""

import html  # the standard library's, not autograd/viz/html.py
import os
import re
import warnings
from pathlib import Path

import graphviz

from . import layout, screen

__all__ = ["GraphDrawing", "save", "explain", "CANNOT_DRAW"]

# What stops a drawing from becoming a picture, and what a notebook explains instead.
CANNOT_DRAW = (
    layout.GraphvizNotFoundError,
    layout.LayoutTimeoutError,
    graphviz.CalledProcessError,
    layout.browser.VizJsNotLoadedError,
)

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
    # The drawing in words. draw_dot sets both: a sentence that SVG pictures carry as their
    # <title> and aria-label, and a longer text, value by value, for `describe()`. Any other
    # drawing is put into words from the nodes and arrows it was given (see `node`, `edge`).
    summary_text = None
    description_text = None

    def node(self, name, label=None, _attributes=None, **attrs):
        """Add a node, as `graphviz.Digraph.node` does, and remember it for the words."""
        super().node(name, label, _attributes=_attributes, **attrs)
        self._parts()[0][name] = _spoken_label(name if label is None else label)

    def edge(self, tail_name, head_name, label=None, _attributes=None, **attrs):
        """Add an arrow, as `graphviz.Digraph.edge` does, and remember it for the words."""
        super().edge(tail_name, head_name, label, _attributes=_attributes, **attrs)
        style = str(attrs.get("style", ""))
        self._parts()[1].append(
            (tail_name, head_name, label, next((s for s in _LINE_STYLES if s in style), None))
        )

    def edges(self, tail_head_iter):
        """Add arrows without labels, as `graphviz.Digraph.edges` does (and remember them)."""
        for tail, head in tail_head_iter:
            self.edge(tail, head)

    def _parts(self):
        """({node name: its label in words}, [(tail, head, label, line style)]): what `node`
        and `edge` were given, in order."""
        if "_drawn" not in self.__dict__:
            self._drawn = ({}, [])
        return self._drawn

    def summary(self):
        """One sentence saying what the drawing shows: the text a screen reader reads for the
        picture. From draw_dot: its output, how many values and operations, the inputs'
        gradients. Any other drawing: how many nodes and arrows, and which arrow goes where.
        None for a drawing with nothing in it."""
        if self.summary_text is not None:
            return self.summary_text
        nodes, arrows = self._parts()
        if not nodes and not arrows:
            return None
        said = [self._arrow_words(arrow) for arrow in arrows[:_LISTED_ARROWS]]
        if len(arrows) > _LISTED_ARROWS:
            said.append(f"and {len(arrows) - _LISTED_ARROWS} more arrows")
        counts = _count(len(self._node_names()), "node") + " and " + _count(len(arrows), "arrow")
        return f"A drawing of {counts}" + (": " + "; ".join(said) if said else "") + "."

    def describe(self):
        """The drawing in words, part by part. From draw_dot: value by value in drawing order
        (v0, v1, ...), each value's label, data and grad, and the operation that made it from
        which inputs. Any other drawing: node by node, the arrows that leave it."""
        words = self._words()
        if words is None:
            raise ValueError(
                "this drawing has nothing in it to describe: give it nodes and "
                "arrows first (drawing.node(...), drawing.edge(...))"
            )
        return Description(f"{self.summary()}\n{words}")

    def _words(self):
        """The text under the summary in `describe()`, or None for an empty drawing."""
        if self.description_text is not None:
            return self.description_text
        nodes, arrows = self._parts()
        lines = []
        for name in self._node_names():
            leaving = [self._arrow_words(arrow, tail=False) for arrow in arrows if arrow[0] == name]
            lines.append(
                f"{nodes.get(name, name)}: "
                + ("; ".join(leaving) if leaving else "no arrow leaves it")
                + "."
            )
        return "\n".join(lines) or None

    def _node_names(self):
        """Every node drawn, in the order it first appeared (an arrow draws its ends too)."""
        nodes, arrows = self._parts()
        return list(dict.fromkeys([*nodes, *(end for arrow in arrows for end in arrow[:2])]))

    def _arrow_words(self, arrow, tail=True):
        """One arrow in words: "from a to b, labelled c, dashed" ("to b, ..." without tail)."""
        nodes = self._parts()[0]
        start, end, label, style = arrow
        words = f"to {nodes.get(end, end)}"
        if tail:
            words = f"from {nodes.get(start, start)} " + words
        if label is not None:
            words += f", labelled {_spoken_label(label)}"
        return words + (f", {style}" if style else "")

    def _labelled(self, picture, format, renderer, formatter):
        """An SVG picture with the summary as its <title> and aria-label (role img)."""
        summary = self.summary()
        if summary is None or format != "svg" or renderer or formatter:
            return picture
        return screen.labelled_svg(picture.decode("utf-8"), summary).encode("utf-8")

    def _limits(self):
        return {"timeout": layout.check_timeout(self.timeout), "values": len(self.values) or None}

    def _parameters(self, engine, format, renderer, formatter):
        """The layout engine and output format to use: the given ones, checked as graphviz
        checks them, else the drawing's own (`self.engine`, `self.format`, ...)."""
        checks = (
            ("engine", engine, graphviz.ENGINES, ""),
            ("format", format, graphviz.FORMATS, ""),
            ("renderer", renderer, graphviz.RENDERERS, "None or "),
            ("formatter", formatter, graphviz.FORMATTERS, "None or "),
        )
        for kind, given, known, or_none in checks:
            if given is not None and given.lower() not in known:
                raise ValueError(
                    f"unknown {kind}: {given!r} (must be {or_none}one of {sorted(known)})"
                )
        engine = self.engine if engine is None else engine
        format = self.format if format is None else format
        renderer = self.renderer if renderer is None else renderer
        formatter = self.formatter if formatter is None else formatter
        return engine, format, renderer, formatter

    def pipe(
        self,
        format=None,
        renderer=None,
        formatter=None,
        neato_no_op=None,
        quiet=False,
        *,
        engine=None,
        encoding=None,
    ):
        """The drawing as a picture: bytes, or text decoded with `encoding` (SVG, say).

        `format` ("svg", "png", ...; None: `self.format`), `renderer`, `formatter`,
        `neato_no_op`, `quiet` (no warnings from the layout program) and `engine` (None:
        `self.engine`) mean what they mean in `graphviz.Digraph.pipe`.
        """
        engine, format, renderer, formatter = self._parameters(engine, format, renderer, formatter)
        picture = layout.run(
            engine,
            format,
            self.source.encode(self.encoding),
            renderer=renderer,
            formatter=formatter,
            neato_no_op=neato_no_op,
            quiet=quiet,
            **self._limits(),
        )
        picture = self._labelled(picture, format, renderer, formatter)
        return picture if encoding is None else picture.decode(encoding)

    def render(
        self,
        filename=None,
        directory=None,
        view=False,
        cleanup=False,
        format=None,
        renderer=None,
        formatter=None,
        neato_no_op=None,
        quiet=False,
        quiet_view=False,
        *,
        outfile=None,
        engine=None,
        raise_if_result_exists=False,
        overwrite_source=False,
    ):
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
        engine, format, renderer, formatter = self._parameters(engine, format, renderer, formatter)
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
        picture = layout.run(
            engine,
            format,
            filepath.read_bytes(),
            renderer=renderer,
            formatter=formatter,
            neato_no_op=neato_no_op,
            quiet=quiet,
            cwd=filepath.parent,
            **self._limits(),
        )
        outfile.write_bytes(self._labelled(picture, format, renderer, formatter))
        if cleanup:
            os.remove(filepath)
        if view or quiet_view:
            graphviz.view(os.fspath(outfile), quiet=quiet_view)
        return os.fspath(outfile)

    def view(self, filename=None, directory=None, cleanup=False, quiet=False, quiet_view=False):
        """`render(..., view=True)`: draw the graph into a file and open it in a viewer."""
        return self.render(
            filename, directory, view=True, cleanup=cleanup, quiet=quiet, quiet_view=quiet_view
        )

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
            bundle = {
                mimetype: self.pipe(format=format, encoding=encoding)
                for mimetype, (format, encoding) in _PICTURES.items()
                if mimetype in wanted
            }
            if "text/html" in wanted:
                svg = bundle.get("image/svg+xml") or self.pipe(format="svg", encoding="utf-8")
                bundle["text/html"] = screen.drawing_html(svg, words=self._words())
            return bundle
        except CANNOT_DRAW as error:
            return explain(error, self.source)


_LISTED_ARROWS = 12  # a summary names at most this many arrows; describe() names them all
_LINE_STYLES = ("dashed", "dotted", "bold")  # an arrow's line, when it is not plain
_HTML_TAG = re.compile(r"<[^<>]*>")


def _count(n, thing):
    return f"{n} {thing}{'s' * (n != 1)}"


def _spoken_label(label):
    """A node's or arrow's label as words: Graphviz's line breaks (a newline, \\n, \\l, \\r)
    and an HTML-like label's tags become spaces."""
    text = str(label)
    if text.startswith("<") and text.endswith(">"):  # an HTML-like label: <<b>x</b>>
        text = html.unescape(_HTML_TAG.sub(" ", text[1:-1]))
    text = re.sub(r"\\[nlr]|\n", " ", text)
    return " ".join(text.split())


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
        warnings.warn(
            f"unknown outfile suffix {outfile.suffix!r} (expected: {'.' + format!r})",
            category=graphviz.UnknownSuffixWarning,
            stacklevel=3,
        )
        return format
    if format is not None and format.lower() != suffix:
        warnings.warn(
            f"expected format {suffix!r} from outfile differs from given format: {format!r}",
            category=graphviz.FormatSuffixMismatchWarning,
            stacklevel=3,
        )
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
    picture = layout.run(
        getattr(graph, "engine", "dot"),
        kind,
        source.encode(encoding),
        options=options,
        timeout=timeout,
        values=len(getattr(graph, "values", ())) or None,
    )
    summary = graph.summary() if isinstance(graph, GraphDrawing) else None
    if kind == "svg" and summary:
        picture = screen.labelled_svg(picture.decode("utf-8"), summary).encode("utf-8")
    path.write_bytes(picture)
    return path
