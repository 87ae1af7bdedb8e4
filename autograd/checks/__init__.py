"""Chapter checkpoints: run a chapter's specification on what the learner built.

Each chapter module (`ch01` ... `ch08`) lists the checks that make up its specification, as
small functions decorated with `@check("what it protects")`, and exposes `checkpoint(obj)`,
plus a few exercise checks. A check passes by returning; it fails by calling `fail(...)` (or a
helper such as `expect_close`) with a message that says, in words, what was expected and what
happened. An exception inside a check fails that check only, with the exception's type and
message; the other checks still run.

    from autograd.checks import checkpoint
    checkpoint(3, Value)        # in a notebook: a pass/fail list, ticks and crosses

A `Report` is true when every check passed, prints as plain text, and shows as HTML in Jupyter.
"""

import html
import importlib
import math
import re
from collections import namedtuple
from numbers import Real

__all__ = [
    "CheckFailed",
    "CheckResult",
    "Report",
    "check",
    "run_checks",
    "fail",
    "expect",
    "expect_close",
    "check_answer",
    "show",
    "is_close",
    "describe_nodes",
    "expect_children",
    "reverse_topological_order",
    "backprop_by_hand",
    "checkpoint",
    "CHAPTERS",
]

CHAPTERS = range(1, 9)  # the chapters that have a checkpoint


class CheckFailed(AssertionError):
    """Raised inside a check to fail it; its message is shown to the learner."""


CheckResult = namedtuple("CheckResult", ["name", "passed", "message"])


def check(name):
    """Decorator: mark a function as a check, with the name a report shows for it."""

    def mark(function):
        function.check_name = name
        return function

    return mark


def run_checks(title, checks, *args):
    """Run each check on `args` and collect the outcomes into a `Report` titled `title`."""
    results = []
    for function in checks:
        name = getattr(function, "check_name", function.__name__)
        try:
            function(*args)
        except CheckFailed as failure:
            results.append(CheckResult(name, False, str(failure)))
        except Exception as error:  # a crash in the learner's code fails this check only
            said = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            results.append(CheckResult(name, False, f"raised {said}"))
        else:
            results.append(CheckResult(name, True, ""))
    return Report(title, results)


# --------------------------------------------------------------------- failing a check


def fail(message):
    raise CheckFailed(message)


def expect(condition, message):
    """Fail with `message` unless `condition` holds."""
    if not condition:
        fail(message)


def show(x):
    """`repr(x)`, or a plain description when the learner's `__repr__` itself fails (say, on
    a Value that was allowed to hold a string), so that a message never crashes a check."""
    try:
        return repr(x)
    except Exception as error:
        return f"a {type(x).__name__} object (whose repr raised {type(error).__name__})"


def is_close(got, expected, tol=1e-9):
    return (
        isinstance(got, Real)
        and not isinstance(got, bool)
        and math.isclose(got, expected, rel_tol=tol, abs_tol=tol)
    )


def expect_close(got, expected, what, *, tol=1e-9, hint=""):
    """Fail unless `got` is a number within `tol` (relative or absolute) of `expected`.

    The message reads "`what` should be `expected` but was `got`", then the hint.
    """
    if not is_close(got, expected, tol):
        message = f"{what} should be {show(expected)} but was {show(got)}"
        fail(f"{message}: {hint}" if hint else message)


def check_answer(question, answer, expected, *, tol=1e-6, hint=""):
    """A one-check report for a number the learner predicted or computed by hand."""

    @check(question)
    def answer_matches():
        expect_close(answer, expected, "your answer", tol=tol, hint=hint)

    return run_checks("Your answer", [answer_matches])


def describe_nodes(nodes, names):
    """`nodes` written with the names a check gave them: `(a, b)`, `[b, a]`, `a set {a, b}`."""
    try:
        parts = ", ".join(names.get(id(node), repr(node)) for node in nodes)
    except TypeError:  # not a collection at all
        return repr(nodes)
    if isinstance(nodes, tuple):
        return f"({parts},)" if len(nodes) == 1 else f"({parts})"
    if isinstance(nodes, list):
        return f"[{parts}]"
    if isinstance(nodes, (set, frozenset)):
        return f"a set {{{parts}}}"
    return f"{type(nodes).__name__} of {parts}"


def expect_children(node, children, names, what):
    """Fail unless `node._prev` is the tuple `children`, the same objects in the same order."""
    prev = node._prev
    expected = describe_nodes(tuple(children), names)
    if not isinstance(prev, tuple):
        fail(f"`{what}._prev` should be the tuple `{expected}` (a tuple keeps the order, so a "
             f"graph draws the same way every time), but was {describe_nodes(prev, names)}")
    if len(prev) != len(children) or any(p is not c for p, c in zip(prev, children)):
        fail(f"`{what}._prev` should be `{expected}` in that order, but was "
             f"`{describe_nodes(prev, names)}`")


# --------------------------------------------------------------------- driving a graph


def reverse_topological_order(root):
    """Every node `root` depends on, each one before the nodes it was computed from.

    An explicit stack rather than recursion, so that the checks work on deep chains whatever
    the learner's own sort does.
    """
    order, visited = [], {id(root)}
    stack = [(root, iter(root._prev))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    return order[::-1]


def backprop_by_hand(root):
    """Run the graph's `_backward` closures ourselves: seed `root.grad = 1.0`, then call each
    node's `_backward` after every node that uses it. Needs no `backward()` method."""
    root.grad = 1.0
    for node in reverse_topological_order(root):
        node._backward()


# --------------------------------------------------------------------- the report

_CODE = re.compile(r"`([^`]+)`")


def _html_message(text):
    """Escape `text` for HTML; `code` in backticks becomes <code>; newlines become breaks."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text)).replace("\n", "<br>")


class Report:
    """The outcome of a specification: named checks, each passed or failed with a message."""

    def __init__(self, title, results):
        self.title = title
        self.results = list(results)

    @property
    def failures(self):
        return [r for r in self.results if not r.passed]

    @property
    def passed(self):
        return not self.failures

    def __bool__(self):
        return self.passed

    def summary(self):
        n_passed = sum(r.passed for r in self.results)
        return f"{n_passed} of {len(self.results)} checks passed"

    def raise_if_failed(self):
        """Raise AssertionError with the whole report if any check failed; else return self."""
        if not self.passed:
            raise AssertionError(str(self))
        return self

    def __str__(self):
        lines = [self.title]
        for r in self.results:
            lines.append(f"  {'✓' if r.passed else '✗'} {r.name}")
            if not r.passed:
                lines.extend(f"      {line}" for line in r.message.splitlines())
        lines.append(self.summary())
        return "\n".join(lines)

    def __repr__(self):
        return f"<Report {self.title!r}: {self.summary()}>"

    def _repr_html_(self):
        items = []
        for r in self.results:
            if r.passed:
                mark = '<span style="color:#1a7f37;font-weight:bold">&#10004;</span>'
                detail = ""
            else:
                mark = '<span style="color:#cf222e;font-weight:bold">&#10008;</span>'
                detail = (
                    '<div class="check-message" style="margin:0.2em 0 0.4em 1.6em;color:#57606a">'
                    f"{_html_message(r.message)}</div>"
                )
            items.append(f"<li>{mark} {_html_message(r.name)}{detail}</li>")
        colour = "#1a7f37" if self.passed else "#cf222e"
        return (
            '<div class="autograd-report">'
            f"<p><b>{_html_message(self.title)}</b></p>"
            f'<ul style="list-style:none;padding-left:0.5em">{"".join(items)}</ul>'
            f'<p style="color:{colour}"><b>{self.summary()}</b></p>'
            "</div>"
        )


# --------------------------------------------------------------------- the checkpoints


def checkpoint(chapter, obj):
    """Run chapter `chapter`'s specification on `obj` (what that chapter asks the learner to
    build: a function, a Value class, a namespace of classes; see the chapter's module)."""
    if not isinstance(chapter, int) or isinstance(chapter, bool):
        raise TypeError(f"chapter must be a whole number such as 3, but was given {chapter!r}")
    if chapter not in CHAPTERS:
        raise ValueError(
            f"chapter {chapter} has no checkpoint: chapters {CHAPTERS[0]} to {CHAPTERS[-1]} do"
        )
    module = importlib.import_module(f"{__name__}.ch{chapter:02d}")
    return module.checkpoint(obj)
