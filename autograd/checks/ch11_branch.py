"""Chapter 11 · exercise: a leaky ReLU with no branch, `leaky(s)`, checked (see `ch11`)."""

import ast
import inspect
import textwrap

from ..compile import TraceMismatch, compile_loss
from ..engine import Value
from .toolbox import Exercise, check, expect, fail, is_close, is_number, is_unwritten, _said, show


# --------------------------------------------------------------------- exercise: no frozen branch

LEAKY_SLOPE = 0.1
LEAKY_POINTS = (-3.0, -0.5, 0.25, 2.0)  # both sides of 0, never 0 itself (a kink's slope there
# is a convention, and two right answers may differ on it)


def _leaky(s):
    """The leaky ReLU's value and slope at the number s."""
    return (s, 1.0) if s > 0 else (LEAKY_SLOPE * s, LEAKY_SLOPE)


def _choices_in_python(function):
    """How `function` decides in Python on numbers: 'if' (it branches on .data: an `if`
    statement, or `x if ... .data ... else y` choosing its result), 'data' (it computes a
    number from .data, such as a factor `(1.0 if s.data > 0 else 0.1)`), or '' (neither, or
    the source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return ""

    def reads_data(node):
        return any(isinstance(n, ast.Attribute) and n.attr == "data" for n in ast.walk(node))

    in_arithmetic = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call))
        for child in ast.iter_child_nodes(node)
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and reads_data(node.test):
            return "if"
        if isinstance(node, ast.IfExp) and reads_data(node.test) and id(node) not in in_arithmetic:
            return "if"
    return "data" if reads_data(tree) else ""


def _leaky_out(leaky, s, *, first=False):
    """`leaky(Value(s))`: (the input, the output), failing with a plain message unless the
    output is a new Value. Only the `first` check explains a problem in full."""
    v = Value(s)
    call = f"`leaky(Value({s:g}))`"

    def problem(message):
        fail(message if first else f"{call}: no value to compile (see the first line)")

    try:
        out = leaky(v)
    except TypeError as error:
        text = str(error)
        if "not supported between" in text or "abs()" in text:
            problem(
                f"{call} raised {_said(error)}: `max`, `min`, `abs` and comparisons "
                "(`>`, `<`) choose in Python, and the engine's `Value` has none of them. "
                "Make the choice an operation of the graph: `s.relu()` is s above 0 and 0 "
                "below, decided again on every call"
            )
        problem(f"{call} raised {_said(error)}")
    except Exception as error:
        problem(f"{call} raised {_said(error)}")
    if out is None:
        problem(
            f"{call} gave None: the function has no `return`; end it with `return ...`, "
            "the new value"
        )
    if is_number(out):
        problem(
            f"{call} gave the number {show(out)}, not a Value: computed from `.data`, it "
            "has left the graph, so it has no gradient, and a trace would write it into "
            "the compiled code as a constant. Build the answer from `s` with operations"
        )
    if not isinstance(out, Value):
        problem(f"{call} should give a Value, but gave {show(out)}")
    return v, out


@check("leaky(s) is s above 0 and 0.1·s below, with slopes 1 and 0.1, as the branching version")
def leaky_numbers(leaky):
    for s in LEAKY_POINTS:
        v, out = _leaky_out(leaky, s, first=True)
        expected, slope = _leaky(s)
        if not is_close(out.data, expected):
            said = (
                f"at s = {s:g} your function gives {out.data:.6g}, but the branching "
                f"version gives {expected:.6g}"
            )
            if s > 0 and is_close(out.data, (1 + LEAKY_SLOPE) * s):
                fail(
                    f"{said}: above 0 your two parts add up to 1.1·s. The 0.1·s part is "
                    "there on both sides, so the relu part should add only what it lacks "
                    "above 0: 0.9·s"
                )
            if s < 0 and is_close(out.data, 0.0):
                fail(
                    f"{said}: below 0 the leaky version is 0.1·s, not 0 (that is the plain "
                    "relu): keep a 0.1·s part that is there on both sides"
                )
            fail(f"{said}: above 0 it is s, below 0 it is 0.1·s")
        out.backward()
        expect(
            is_close(v.grad, slope),
            f"at s = {s:g} the slope of your function is {show(v.grad)}, but the branching "
            f"version's is {slope:g}",
        )


@check(
    "compiled once, on either side of 0, it gives the engine's numbers on both sides: "
    "no branch was frozen"
)
def leaky_not_frozen(leaky):
    _leaky_out(leaky, 1.0)  # says so plainly if there is no Value to compile
    for traced_at in (2.0, -3.0):
        compiled = compile_loss(lambda p, x: leaky(p[0] * x[0]), [traced_at], [1.0], check=True)
        for s in LEAKY_POINTS:
            try:
                compiled([s], [1.0])
            except TraceMismatch:
                side = "above" if traced_at > 0 else "below"
                said = (
                    f"compiled at s = {traced_at:g} ({side} 0), your function gives "
                    f"another answer than the engine at s = {s:g}: the compiled code "
                    "replays the operations of the trace, and some choice your function "
                    "made in Python was frozen at trace time"
                )
                how = _choices_in_python(leaky)
                if how == "if":
                    said += (
                        ". It still branches on `.data` (an `if`): the trace took the "
                        f"branch for s = {traced_at:g}, and the compiled code always "
                        "takes it"
                    )
                elif how == "data":
                    said += (
                        ". It computes a number from `.data` (such as `1.0 if s.data > 0 "
                        "else 0.1`): to the trace that number is a constant, frozen at "
                        f"its value for s = {traced_at:g}"
                    )
                fail(
                    said + ". Make the choice an operation of the graph: `s.relu()` is s "
                    "above 0 and 0 below, decided again on every call"
                )


BRANCH = Exercise(
    11,
    "a leaky ReLU with no branch",
    [leaky_numbers, leaky_not_frozen],
    what="your `leaky`",
    unanswered=is_unwritten,
    todo="replace `...` with `return ...`, the leaky ReLU built from `s` with "
    "operations only (no `if`, nothing computed from `.data`); run the "
    "cell, then this check again",
)


def check_branch_free(leaky):
    """Exercise: `leaky(s)`, s above 0 and 0.1·s below, with no choice made in Python."""
    return BRANCH.check(leaky)
