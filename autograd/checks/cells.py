"""An answer cell that raises is a wrong answer, not the end of the chapter.

A learner's answer cell may raise: a name not defined (`my_order = [a, b, e]` where no cell
defined `e`), a syntax error, a TypeError while it runs. Left alone, the cells after it crash
too: the check cell and the `%%solution` cell name the answer (`my_order`), which the cell
never defined, so they raise NameError in turn, the solution never stands in, and the
checkpoint can only say "not checked yet".

So the course watches the notebook's cells run (IPython's `pre_run_cell` and `post_run_cell`
events; `watch` registers them when a notebook imports `autograd.checks`):

- a cell that raises, runs no check and defines a name (an answer cell always does) may be an
  answer cell: what it raised is kept (`pending`), and each name the cell was to define and
  did not gets a stand-in, a `RaisedAnswer`, so that the check cell and the solution cell can
  still run;
- the next exercise check that runs takes the error as that exercise's answer: the check
  fails and says what raised; the exercise's solution cell then stands in for the rest of the
  chapter, and the checkpoint fails and names the exercise;
- a cell that runs cleanly without a check forgets the error: the learner has moved on (or
  fixed the cell and run it again).

Outside IPython nothing here runs, and the checks behave as before.
"""

import ast
import re
import sys

from .core import _said, fail

__all__ = [
    "RaisedAnswer",
    "Raised",
    "pending",
    "take",
    "forget",
    "watch",
    "defined_names",
    "explain",
    "said",
    "raised_for",
    "failing_check",
]


class Raised:
    """What an answer cell raised, and which exercise's check took it (None until one did)."""

    def __init__(self, error, names=()):
        self.error = error
        self.names = tuple(names)
        self.exercise = None

    def __repr__(self):
        return f"<Raised {_said(self.error)}>"


class RaisedAnswer:
    """Stands in for a name whose answer cell raised before it could define it."""

    def __init__(self, name, raised):
        self.name = name
        self.raised = raised

    def __repr__(self):
        return f"<no value: the cell that defines {self.name} raised {_said(self.raised.error)}>"


_pending = None  # the Raised of the latest cell that raised without running a check
_checked = False  # a check or a solution ran in the cell now running


def pending():
    return _pending


def forget():
    """Forget the raised cell (the solution stood in, or a test starts afresh)."""
    global _pending
    _pending = None


def note_check():
    """A check or a solution is running in this cell: it is no answer cell."""
    global _checked
    _checked = True


def take(exercise):
    """The `Raised` that `exercise`'s answer cell raised, or None. The first exercise whose
    check runs after the raise takes it; an other exercise's check leaves it alone."""
    raised = _pending
    if raised is None:
        return None
    if raised.exercise is None:
        raised.exercise = exercise
    return raised if raised.exercise is exercise else None


def raised_for(exercise, args):
    """The `Raised` that stands for `exercise`'s answer, or None: its answer cell raised just
    before this check ran, or an argument is the stand-in for a name whose cell raised."""
    raised = take(exercise)
    if raised is not None:
        return raised
    stand_in = next((a for a in args if isinstance(a, RaisedAnswer)), None)
    return stand_in.raised if stand_in is not None else None


def failing_check(title, raised):
    """A check that fails, saying what the answer's cell raised."""

    def answer_cell_ran():
        fail(explain(raised))

    answer_cell_ran.check_name = f"{title}: your answer's cell runs without an error"
    return answer_cell_ran


def said(error):
    """`NameError: name 'e' is not defined`; a syntax error with its line in the cell."""
    if isinstance(error, SyntaxError) and getattr(error, "msg", None):
        where = f" (line {error.lineno})" if getattr(error, "lineno", None) else ""
        return f"{type(error).__name__}: {error.msg}{where}"
    return _said(error)


def explain(raised, what="your answer's cell"):
    """The failure in the course's words: what raised, and what to do."""
    error = raised.error
    if isinstance(error, SyntaxError):
        why = (
            "Python could not read the cell, so none of it ran: look for a missing "
            "bracket, colon or quote, or a line indented differently from its neighbours"
        )
    elif isinstance(error, NameError):
        why = (
            "It uses a name that no cell has defined: a typo, a name from another "
            "chapter, or a cell above that has not run yet"
        )
    else:
        why = "It stopped there, so it left no answer to check"
    return (
        f"{what} raised {said(error)}. {why}. Fix the cell and run it again, without an "
        "error, then this check."
    )


_ASSIGNED = re.compile(
    r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*"
    r"(?::[^=]*)?=(?!=)",
    re.MULTILINE,
)


def defined_names(source):
    """The names a cell defines at its top level (assignments, `def`, `class`, imports). A
    cell Python cannot read is searched line by line instead."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        found = []
        for match in _ASSIGNED.finditer(source):
            name = match.group(1) or match.group(2)
            if name not in found:
                found.append(name)
        return found
    names = []

    def add(target):
        if isinstance(target, ast.Name) and target.id not in names:
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                add(element)
        elif isinstance(target, ast.Starred):
            add(target.value)

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(ast.Name(node.name))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                add(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            add(node.target)
    return names


def _before(info):
    global _checked
    _checked = False


def _after(result):
    """After every cell: keep what an answer cell raised, forget it when the learner moved on."""
    global _pending
    if _checked:
        return  # a check cell or a solution cell, never an answer cell
    error = result.error_before_exec or result.error_in_exec
    if error is None:
        _pending = None
        return
    info = getattr(result, "info", None)
    source = getattr(info, "raw_cell", "") or ""
    if source.lstrip().startswith("%"):  # a magic, never an answer cell
        _pending = None
        return
    names = defined_names(source)
    if not names:  # an answer cell defines the answer; this one defines nothing (a cell meant
        _pending = None  # to raise, or the line after a checkpoint that stops Run All)
        return
    _pending = Raised(error, names)
    shell = _shell()
    if shell is not None:
        for name in names:
            if name not in shell.user_ns:
                shell.user_ns[name] = RaisedAnswer(name, _pending)


def _shell():
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def watch(shell=None):
    """Watch the cells of the running IPython shell (once, however often it is called)."""
    shell = shell or _shell()
    if shell is None:
        return
    events = shell.events
    for name, callback in (("pre_run_cell", _before), ("post_run_cell", _after)):
        registered = events.callbacks.get(name, [])
        for old in list(registered):  # a reloaded module's callbacks give way to the new ones
            if (
                getattr(old, "__qualname__", "") == callback.__qualname__
                and getattr(old, "__module__", "") == __name__
                and old is not callback
            ):
                events.unregister(name, old)
        if callback not in events.callbacks.get(name, []):
            events.register(name, callback)
