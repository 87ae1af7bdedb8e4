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
    "expect_closure",
    "expect_gradients",
    "GradientFailed",
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


def run_checks(title, checks, *args, chapter=None):
    """Run each check on `args` and collect the outcomes into a `Report` titled `title`.

    With `chapter`, the report is that chapter's checkpoint: it also lists the chapter's
    exercises, each answered by the learner or by its solution (see `exercise.py`).
    """
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
    report = Report(title, results)
    if chapter is not None:
        from .exercise import answers_for

        answers = answers_for(chapter)
        if any(outcome is not None for _, outcome in answers):  # run from the chapter's notebook
            report.answers = answers
    return report


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


def backprop_by_hand(root, seed=1.0):
    """Run the graph's `_backward` closures ourselves: seed `root.grad` (1.0 unless a check
    wants an upstream gradient that a missing `* out.grad` cannot pass), then call each node's
    `_backward` after every node that uses it. Needs no `backward()` method."""
    root.grad = seed
    for node in reverse_topological_order(root):
        node._backward()


def expect_closure(x, out, expected_local, expression, *, seed=2.5, wrong_rules=(), rule=None):
    """Check the closure of a one-input operation the learner wrote: `out` was built from the
    leaf `x` by `expression` (such as "a ** 3"), whose local derivative at x is
    `expected_local` (`rule` says it in words). See `expect_gradients`."""
    expect_gradients([x], out, [expected_local], expression, names="x", seed=seed,
                     wrong_rules=[wrong_rules], rules=[rule] if rule else None)


def expect_gradients(leaves, out, expected_locals, expression, *, names="abc", seed=2.5,
                     wrong_rules=None, rules=None):
    """Check the gradients an operation passes back, in the setting that exposes its bugs.

    `out` was built from `leaves` by `expression`; `expected_locals` are its local derivatives
    with respect to each leaf. The check uses every leaf a second time, `y = out + a + b`, and
    backpropagates from y with an upstream gradient `seed` (not 1), so that each leaf should
    end with `seed · (local + 1)`. Each classic bug leaves its own number, and the failure
    names the bug the number shows: `=` for `+=` erases the `seed` the `+` passed first
    (`seed · local`); a missing `* out.grad` gives `local + seed`; a wrong local derivative
    from `wrong_rules` (for each leaf, (rule in words, its value) pairs) gives
    `seed · (wrong + 1)`. `rules` says each correct local derivative in words, for the hint.
    """
    y = out
    for leaf in leaves:
        y = y + leaf
    backprop_by_hand(y, seed)
    reuse = " + ".join(["(" + expression + ")", *names[: len(leaves)]])
    for i, (name, leaf, local) in enumerate(zip(names, leaves, expected_locals)):
        got, expected = leaf.grad, seed * (local + 1)
        if is_close(got, expected):
            continue
        where = (f"with every input used twice, as `y = {reuse}`, and an upstream gradient "
                 f"y.grad = {seed:g}, `{name}.grad`")
        diagnoses = [
            (seed * local,
             f"it lost the gradient {name} already had from its other use: the closure "
             "assigned with `=` instead of adding with `+=`"),
            (local + seed,
             "the closure passed its local derivative alone: multiply it by the gradient "
             "arriving from above, `* out.grad`"),
            (local, "two bugs at once: `=` instead of `+=`, and no `* out.grad`"),
            (seed, f"the closure passed nothing back to {name}: did you attach it with "
                   "`out._backward = _backward`?"),
        ]
        for rule, value in (wrong_rules[i] if wrong_rules else ()):
            diagnoses += [
                (seed * (value + 1), f"the local derivative is wrong: it looks like {rule}"),
                (seed * value, f"`=` instead of `+=`, and the local derivative looks like {rule}"),
                (value + seed, f"no `* out.grad`, and the local derivative looks like {rule}"),
            ]
        shown = f"{got:.6g}" if is_close(got, got) else show(got)
        said = f"`{name}.grad` came out {shown} instead of {expected:.6g}"
        for value, why in diagnoses:
            if is_close(got, value) and not is_close(value, expected):
                _fail_gradient(f"{where} should be {expected:.6g} but was {got:.6g}: {why}", said)
        rule = f", {rules[i]}" if rules else ""
        _fail_gradient(
            f"{where} should be {expected:.6g}, that is {seed:g} × ({local:.6g} + 1): the local "
            f"derivative{rule}, plus 1 for the second use, times the upstream gradient; but it "
            f"was {show(got)}: check the local derivative in `_backward`", said)


class GradientFailed(CheckFailed):
    """A gradient check failed; `numbers` says what came out, without the diagnosis."""


def _fail_gradient(message, numbers):
    failure = GradientFailed(message)
    failure.numbers = numbers
    raise failure


# --------------------------------------------------------------------- the report

_CODE = re.compile(r"`([^`]+)`")


def _html_message(text):
    """Escape `text` for HTML; `code` in backticks becomes <code>; newlines become breaks."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text)).replace("\n", "<br>")


def _outcome(exercise):
    from .exercise import _OUTCOMES

    return _OUTCOMES.get(exercise)


class Report:
    """The outcome of a specification: named checks, each passed or failed with a message.

    A checkpoint's report also lists the chapter's exercises (`answers`): whose answer each
    one is, the learner's or the solution's, and why. An answer the learner wrote that failed
    its check fails the checkpoint too, even where the solution replaced it.
    """

    def __init__(self, title, results):
        self.title = title
        self.results = list(results)
        self.note = ""  # a sentence shown under the title
        self.answers = []  # [(exercise, outcome or None)] for a checkpoint

    @property
    def failures(self):
        return [r for r in self.results if not r.passed]

    @property
    def wrong_answers(self):
        """The exercises whose answer the learner wrote and got wrong: [(exercise, outcome)]."""
        return [(e, o) for e, o in self.answers if o is not None and o.status == "wrong"]

    @property
    def passed(self):
        return not self.failures and not self.wrong_answers

    def __bool__(self):
        return self.passed

    def summary(self):
        if getattr(self, "unanswered", False):
            return "not answered yet"
        n_passed = sum(r.passed for r in self.results)
        text = f"{n_passed} of {len(self.results)} checks passed"
        if self.answers:
            text += f"; {self._whose()}"
        return text

    def _whose(self):
        """Whose code the checks ran on, in one sentence."""
        n = len(self.answers)
        by_status = {}
        for exercise, outcome in self.answers:
            status = outcome.status if outcome is not None else "unchecked"
            if status == "unanswered" and outcome.by_solution:
                status = "filled in"
            by_status.setdefault(status, []).append(exercise)
        yours = len(by_status.get("yours", []))
        if yours == n:
            return f"all on your code: {n} of {n} of your answers passed"
        parts = [f"{yours} of {n} of your answers passed"]
        for exercise in by_status.get("wrong", []):
            outcome = _outcome(exercise)
            by = "came from the solution" if outcome.by_solution else "is still yours"
            parts.append(f"{exercise.what} {by} because yours failed its check (see above)")
        for status, said in (("filled in", "not answered yet, so the solution stood in"),
                             ("unanswered", "not answered yet"),
                             ("unchecked", "not checked yet (run their cells)")):
            if by_status.get(status):
                parts.append(f"{said}: " + ", ".join(e.title for e in by_status[status]))
        return "; ".join(parts)

    def raise_if_failed(self):
        """Raise AssertionError with the whole report if any check failed; else return self."""
        if not self.passed:
            raise AssertionError(str(self))
        return self

    def _answer_lines(self):
        """(mark, name, text) for each of a checkpoint's exercises: ✓ yours, ✗ wrong, • else."""
        for exercise, outcome in self.answers:
            name = f"{exercise.title} ({exercise.what})"
            if outcome is None:
                yield "•", name, "not checked yet; run the exercise's cells"
            elif outcome.status == "yours":
                yield "✓", name, ""
            elif outcome.status == "unanswered":
                used = "; the solution's answer was used" if outcome.by_solution else ""
                yield "•", name, f"not answered yet{used}"
            else:
                used = ("\nThe checks above ran with the solution's answer instead."
                        if outcome.by_solution else "")
                yield "✗", name, f"yours failed its check: {outcome.message}{used}"

    def __str__(self):
        lines = [self.title]
        if self.note:
            lines.append(self.note)
        neutral = "•" if getattr(self, "unanswered", False) else "✗"
        for r in self.results:
            lines.append(f"  {'✓' if r.passed else neutral} {r.name}")
            if not r.passed:
                lines.extend(f"      {line}" for line in r.message.splitlines())
        if self.answers:
            lines.append("Your answers to the chapter's exercises:")
            for mark, name, text in self._answer_lines():
                lines.append(f"  {mark} {name}")
                lines.extend(f"      {line}" for line in text.splitlines())
        lines.append(self.summary())
        return "\n".join(lines)

    def __repr__(self):
        return f"<Report {self.title!r}: {self.summary()}>"

    def _repr_html_(self):
        marks = {
            "✓": '<span style="color:#1a7f37;font-weight:bold">&#10004;</span>',
            "✗": '<span style="color:#cf222e;font-weight:bold">&#10008;</span>',
            "•": '<span style="color:#57606a;font-weight:bold">&#8226;</span>',
        }

        def item(mark, name, message=""):
            detail = (
                '<div class="check-message" style="margin:0.2em 0 0.4em 1.6em;color:#57606a">'
                f"{_html_message(message)}</div>" if message else ""
            )
            return f"<li>{marks[mark]} {_html_message(name)}{detail}</li>"

        def listing(items):
            return f'<ul style="list-style:none;padding-left:0.5em">{"".join(items)}</ul>'

        parts = [f"<p><b>{_html_message(self.title)}</b></p>"]
        if self.note:
            parts.append(f"<p>{_html_message(self.note)}</p>")
        neutral = "•" if getattr(self, "unanswered", False) else "✗"
        parts.append(listing(item("✓" if r.passed else neutral, r.name,
                                  "" if r.passed else r.message) for r in self.results))
        if self.answers:
            parts.append("<p>Your answers to the chapter's exercises:</p>")
            answer_items = []
            for mark, name, message in self._answer_lines():
                answer_items.append(item(mark, name, message))
            parts.append(listing(answer_items))
        colour = "#1a7f37" if self.passed else "#cf222e"
        if getattr(self, "unanswered", False):
            colour = "#57606a"
        parts.append(f'<p style="color:{colour}"><b>{_html_message(self.summary())}</b></p>')
        return '<div class="autograd-report">' + "".join(parts) + "</div>"


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


from .exercise import register_magic as _register_magic  # noqa: E402  (needs the names above)

_register_magic()  # `%%solution` cells work as soon as a notebook imports the checks
