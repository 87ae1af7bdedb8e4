"""Your engine, your file: `my_engine.py`, beside the notebooks.

Chapters 2 to 5 have the learner write the engine. Each part of it that passes its check is
kept in one file of the learner's own, `my_engine.py`, in the notebook's folder (in the Lite
edition, in the browser's storage, with the notebooks): an exercise's check says "kept your
`__mul__` in my_engine.py", and a cell near each chapter's end, `keep(Value, N)`, keeps
the chapter's worked parts as the learner ran them. A part not written yet, or whose answer
failed, is the course's (`autograd/course_engine.py`, the engine as the chapters write it),
marked so in the file: a comment above each part says whose it is. So the file always imports
and runs, and a wrong answer is never kept.

Chapters 4 to 7 start from it: `Value = my_engine(N)` loads the file, checks every part
with the course's own checks for it (`autograd/checks/ch02.py` ... `ch05.py`), and builds the
chapter's class from the parts that pass, printing one line that says whose parts run. A part
that fails (say, edited by hand) is named with what its check found, and the course's part runs
in its place; without the file, the chapter starts from the course's copy (`autograd.stages`),
and says so.

The file can be switched off: `AUTOGRAD_MY_ENGINE=off` in the environment (the class edition's
grading and the website's build use it) or `switch_off()`; then nothing is read or
written, and every chapter runs on the course's copy. `AUTOGRAD_MY_ENGINE=some/path.py` keeps
the file elsewhere (the tests use it).
"""

import ast
import builtins
import inspect
import linecache
import os
import tempfile
import textwrap
from pathlib import Path

from . import course_engine
from .stages import CHAPTER_METHODS, methods_up_to, stage

__all__ = ["my_engine", "keep", "keep_in_file", "switch_off", "file_path", "load", "check_parts",
           "FILE_NAME", "PARTS", "Loaded"]

FILE_NAME = "my_engine.py"
ENVIRONMENT = "AUTOGRAD_MY_ENGINE"
LAST = max(CHAPTER_METHODS)  # chapter 5: the engine is complete

# The parts of the file: the sorts at module level, then Value's methods, in teaching order.
MODULE_PARTS = ("iterative_topological_order", "topological_order")
PARTS = MODULE_PARTS + methods_up_to(LAST)
CHAPTER_OF = {name: ch for ch, names in CHAPTER_METHODS.items() for name in names}
CHAPTER_OF.update({name: LAST for name in MODULE_PARTS})

# The exercise whose answer each part is: (module of autograd.checks, exercise's name there).
EXERCISE_OF = {
    "__init__": ("ch02", "REJECT"), "__mul__": ("ch03", "MUL"), "__sub__": ("ch03", "SUB"),
    "__pow__": ("ch03", "POW"), "tanh": ("ch04", "TANH"), "sigmoid": ("ch04", "SIGMOID"),
    "backward": ("ch05", "BACKWARD"), "iterative_topological_order": ("ch05", "SORT"),
}

YOURS, COURSE = "# yours", "# the course's"
HEADER = '''"""Your engine: the Value class you wrote in chapters 2 to 5 of Autograd from Scratch.

The course keeps each part here once your answer passes its check. The comment above each part
says whose it is: "yours", or "the course's" where you have not written it yet or your answer
did not pass. The file always runs on its own (import my_engine); check all of it with

    python -m autograd.checks.engine my_engine.py

You may edit it: chapters 4 to 7 check each part before they use it, and say which is wrong.
"""

import math
'''

_switched_off = False
_keeping = False


# --------------------------------------------------------------------- where the file is


def switch_off():
    """Never read or write my_engine.py in this kernel: every chapter runs on the course's copy
    (the class edition's grading does this, or sets AUTOGRAD_MY_ENGINE=off)."""
    global _switched_off
    _switched_off = True


def file_path():
    """The learner's file: my_engine.py in the working directory (the notebook's folder), or
    where AUTOGRAD_MY_ENGINE says; None when the file is switched off."""
    setting = os.environ.get(ENVIRONMENT, "").strip()
    if _switched_off or setting.lower() in ("off", "0", "no", "false"):
        return None
    return Path(setting) if setting else Path.cwd() / FILE_NAME


def _shown(path):
    return FILE_NAME if path == Path.cwd() / FILE_NAME else str(path)


# --------------------------------------------------------------------- the course's text


def _course_texts():
    """{part: its source in autograd/course_engine.py, dedented, from its `def` line}."""
    source = inspect.getsource(course_engine)
    tree = ast.parse(source)
    lines = source.splitlines()
    texts = {}
    nodes = list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Value":
            nodes += node.body
    for node in nodes:
        if isinstance(node, ast.FunctionDef) and node.name in PARTS:
            texts[node.name] = textwrap.dedent("\n".join(lines[node.lineno - 1:node.end_lineno]))
    return texts


COURSE_TEXT = _course_texts()


def _same_code(a, b):
    """Do two sources say the same thing (comments and layout aside)?"""
    try:
        return ast.dump(ast.parse(textwrap.dedent(a))) == ast.dump(ast.parse(textwrap.dedent(b)))
    except SyntaxError:
        return False


# --------------------------------------------------------------------- reading the file


class Loaded:
    """The learner's file, read and run: `parts` {name: function}, `whose` {name: "yours" or
    "the course's"}, `error` (why it does not run, or ""), `text`."""

    def __init__(self, path):
        self.path, self.parts, self.whose, self.error, self.text = path, {}, {}, "", ""
        self.namespace = {}


def _blocks(text):
    """{part: (first line, last line, marker)} of a file's text (1-based, inclusive; the first
    line is that of the comments right above the part); raises SyntaxError."""
    tree = ast.parse(text)
    lines = text.splitlines()
    nodes = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in MODULE_PARTS:
            nodes.append(node)
        elif isinstance(node, ast.ClassDef) and node.name == "Value":
            nodes += [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name in PARTS]
    blocks = {}
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        while first > 1 and lines[first - 2].strip().startswith("#"):
            first -= 1
        comments = [line.strip() for line in lines[first - 1:node.lineno - 1]]
        marker = next((c for c in comments if c.startswith((YOURS, COURSE))), "")
        blocks[node.name] = (first, node.end_lineno, marker)
    return blocks


def load(path=None):
    """Read and run the learner's file (a fresh module each time): a `Loaded`, or None when
    there is no file (or it is switched off)."""
    path = file_path() if path is None else Path(path)
    if path is None or not path.exists():
        return None
    loaded = Loaded(path)
    try:
        loaded.text = path.read_text(encoding="utf-8")
        blocks = _blocks(loaded.text)
        name = str(path.resolve())
        linecache.cache[name] = (len(loaded.text), None, loaded.text.splitlines(True), name)
        namespace = {"__name__": "my_engine", "__file__": name, "__builtins__": builtins}
        exec(compile(loaded.text, name, "exec"), namespace)
    except SyntaxError as error:
        loaded.error = f"SyntaxError at line {error.lineno}: {error.msg}"
        return loaded
    except Exception as error:  # the learner's file: anything may go wrong as it runs
        loaded.error = f"running it raised {type(error).__name__}: {error}"
        return loaded
    loaded.namespace = namespace
    value = namespace.get("Value")
    for part in PARTS:
        where = namespace if part in MODULE_PARTS else vars(value) if isinstance(value, type) else {}
        function = where.get(part)
        if callable(function) and hasattr(function, "__code__"):
            loaded.parts[part] = function
            first, last, marker = blocks.get(part, (0, 0, ""))
            mine = marker.startswith(YOURS)
            if not mine and part in blocks:
                text = "\n".join(loaded.text.splitlines()[first - 1:last])
                mine = not _same_code(_def_only(text), COURSE_TEXT[part])  # edited by hand
            loaded.whose[part] = "yours" if mine else "the course's"
    return loaded


def _def_only(text):
    """A part's text from its `def` line on (without the comments and decorators above it)."""
    lines = textwrap.dedent(text).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    return textwrap.dedent("\n".join(lines[start:]))


# --------------------------------------------------------------------- checking the parts


def _exercise(part):
    import importlib

    module, name = EXERCISE_OF[part]
    return getattr(importlib.import_module(f"autograd.checks.{module}"), name)


def _checks_of(part, Value, sort=None):
    """[(title, checks, args)]: what the course checks a part with (its chapter's checkpoint and
    its exercise's checks), on class `Value`."""
    import importlib

    chapter = CHAPTER_OF[part]
    module = importlib.import_module(f"autograd.checks.ch{chapter:02d}")
    runs = []
    if part == "iterative_topological_order":
        return [(f"{part}", _exercise(part).checks, (sort, Value))]
    runs.append((f"chapter {chapter}", module.CHECKPOINT, (Value,)))
    if part in EXERCISE_OF:
        runs.append((part, _exercise(part).checks, (Value,)))
    return runs


def _first_failure(runs):
    """The first failure of some runs of checks: "check name: message", or "" if all pass."""
    from .checks.core import run_checks

    for title, checks, args in runs:
        report = run_checks(title, checks, *args)
        if report.failures:
            first = report.failures[0]
            return f"{first.name}: {first.message}"
    return ""


def check_parts(loaded, upto):
    """Check the file's parts of chapters 2 to `upto` with the course's checks for each.

    Returns (good, problems): {part: function} that passed, {part: what is wrong} that did not.
    The whole class is checked first; only if something fails is each part checked alone, in
    the course's engine with that one part swapped in, so that a failure names its part."""
    wanted = [p for p in PARTS if CHAPTER_OF[p] <= upto]
    problems = {p: "it is missing from the file" for p in wanted if p not in loaded.parts}
    methods = {p: f for p, f in loaded.parts.items() if p in wanted and p not in MODULE_PARTS}
    sort = loaded.parts.get("iterative_topological_order")
    if not problems:
        whole = stage(upto, **methods)
        runs = {}
        for part in wanted:
            for title, checks, args in _checks_of(part, whole, sort):
                runs.setdefault(title, (title, checks, args))
        if not _first_failure(runs.values()):
            return {p: loaded.parts[p] for p in wanted}, {}
    good = {}
    for part in wanted:
        if part in problems or part == "topological_order":  # checked with backward()
            continue
        Value = stage(LAST if part in MODULE_PARTS else upto,
                      **({} if part in MODULE_PARTS else {part: methods[part]}))
        found = _first_failure(_checks_of(part, Value, sort))
        if found:
            problems[part] = found
        else:
            good[part] = loaded.parts[part]
    if "backward" in good and "topological_order" in loaded.parts:
        good["topological_order"] = loaded.parts["topological_order"]
    if "backward" not in good or "iterative_topological_order" not in good:
        for part in ("backward", "topological_order"):  # the course's backward() and its sort
            good.pop(part, None)
    return good, problems


# --------------------------------------------------------------------- a chapter's engine


def _names(parts):
    return ", ".join(f"{p}()" if p == "backward" else p for p in parts)


def my_engine(chapter):
    """The class chapter `chapter` starts from: the learner's my_engine.py (chapters 2 to
    chapter − 1), each part checked, or the course's copy; prints whose parts run. From here
    on, the learner's passing answers are kept in the file (`keep_in_file`)."""
    upto = min(chapter - 1, LAST)
    keep_in_file(quiet=True)
    path = file_path()
    course = f"the course's engine as chapter {upto} leaves it (autograd.stages)"
    if path is None:
        print(f"my_engine.py is switched off here ({ENVIRONMENT}=off), so chapter {chapter} "
              f"runs on {course}.")
        return stage(upto)
    loaded = load(path)
    if loaded is None:
        print(f"No {_shown(path)} beside this notebook (a chapter opened on its own, on Binder, "
              f"or before chapter 2), so chapter {chapter} runs on {course}.")
        return stage(upto)
    if loaded.error:
        print(f"✗ {_shown(path)} does not run: {loaded.error}. So chapter {chapter} runs on "
              f"{course}. Fix the file, then run this cell again.")
        return stage(upto)
    good, problems = check_parts(loaded, upto)
    for part, found in problems.items():
        print(f"✗ {part} in {_shown(path)} is wrong: {found}\n  So this chapter runs on the "
              f"course's {part} instead. Fix it in the file, then run this cell again.")
    wanted = [p for p in PARTS[len(MODULE_PARTS):] + MODULE_PARTS if CHAPTER_OF[p] <= upto]
    mine = [p for p in wanted if p in good and loaded.whose.get(p) == "yours"]
    theirs = [p for p in wanted if p not in MODULE_PARTS and p not in mine]
    said = f"your {_names(mine)}" if mine else "none of your parts yet"
    if theirs:
        said += f"; the course's {_names(theirs)}"
    print(f"Chapter {chapter} runs on your engine, {_shown(path)}: {said}.")
    return stage(upto, **{p: f for p, f in good.items() if p not in MODULE_PARTS})


# --------------------------------------------------------------------- writing the file


def keep_in_file(quiet=False):
    """From now on, every answer that builds the engine and passes its check is kept in the
    learner's file (the check says so)."""
    global _keeping
    if not _keeping:
        from .checks import exercise

        exercise.AFTER_CHECK.append(_after_check)
    _keeping = True
    path = file_path()
    if not quiet:
        if path is None:
            print(f"my_engine.py is switched off here ({ENVIRONMENT}=off): nothing is kept.")
        else:
            print(f"Each part of the engine you write is kept in {_shown(path)}, beside this "
                  "notebook, once it passes its check: open the file to read your engine grow.")


def _source_of(function, part):
    """The source of `function` from its `def` line, named `part`; None if it cannot be read."""
    try:
        text = textwrap.dedent(inspect.getsource(function))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    node = tree.body[0]
    lines = text.splitlines()[node.lineno - 1:node.end_lineno]
    if node.name != part:
        lines[0] = lines[0].replace(f"def {node.name}(", f"def {part}(", 1)
    return textwrap.dedent("\n".join(lines))


def _block(part, marker, source):
    indent = "" if part in MODULE_PARTS else "    "
    return [indent + marker] + [indent + line if line else "" for line in source.splitlines()]


def _fresh_text():
    why = "not written by you yet"
    lines = HEADER.splitlines() + ["", ""]
    for part in MODULE_PARTS:
        lines += _block(part, f"{COURSE} · chapter {LAST} · {why}", COURSE_TEXT[part]) + ["", ""]
    lines += ["class Value:", '    """A number that remembers how it was computed."""', ""]
    for part in PARTS[len(MODULE_PARTS):]:
        lines += _block(part, f"{COURSE} · chapter {CHAPTER_OF[part]} · {why}",
                        COURSE_TEXT[part]) + [""]
    return "\n".join(lines).rstrip() + "\n"


def _write(path, changes):
    """Put `changes` {part: (marker, source or None to keep the part's code)} into the file,
    creating it from the course's parts if it is missing; everything else in it is left as it
    is. Written atomically (a new file, then renamed over the old one)."""
    text = path.read_text(encoding="utf-8") if path.exists() else _fresh_text()
    for part, (marker, source) in changes.items():
        blocks = _blocks(text)
        lines = text.splitlines()
        if part in blocks:
            first, last, _ = blocks[part]
            old = "\n".join(lines[first - 1:last])
            lines[first - 1:last] = _block(part, marker, source or _def_only(old))
        else:
            new = _block(part, marker, source or COURSE_TEXT[part]) + [""]
            tree = ast.parse(text)
            value = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Value")
            where = value.lineno - 1 if part in MODULE_PARTS else value.end_lineno
            lines[where:where] = ([""] if part not in MODULE_PARTS else []) + new
        text = "\n".join(lines) + "\n"
    compile(text, str(path), "exec")  # never write a file that does not parse
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".my_engine-", suffix=".py")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def _after_check(exercise, outcome, report):
    """Exercise.check's hook: keep a passing answer that builds the engine; never a wrong one."""
    part = next((p for p in EXERCISE_OF if _exercise(p) is exercise), None)
    path = file_path()
    if part is None or path is None or not _keeping:
        return
    try:
        if outcome.status == "yours":
            source = _source_of(outcome.answer, part)
            if source is None:
                said = f"Could not read the source of your `{part}`, so it is not kept."
            else:
                _write(path, {part: (f"{YOURS} · chapter {CHAPTER_OF[part]} · your answer to "
                                     f"\"{exercise.title}\", which passed its check", source)})
                said = (f"Kept your `{part}` in {_shown(path)}, beside this notebook: open it "
                        "to read your engine so far.")
        elif outcome.status == "wrong":
            loaded = load(path)
            if loaded is None or loaded.whose.get(part) != "yours":
                _write(path, {part: (f"{COURSE} · chapter {CHAPTER_OF[part]} · yours did not "
                                     "pass its check yet", None)})
            said = (f"Not kept in {_shown(path)}: an answer is kept only once it passes its "
                    "check.")
        else:
            return
    except (OSError, SyntaxError) as error:
        said = f"Could not write {_shown(path)}: {error}"
    report.note = f"{report.note}\n{said}".strip()


def keep(Value, chapter, namespace=None):
    """Keep chapter `chapter`'s part of the engine in the learner's file, and say whose each
    part is: an exercise's answer if it passed its check, each worked part as the learner ran
    it if the course's checks pass on it, the course's part otherwise. `namespace` (the
    notebook's `globals()`) holds chapter 5's sort functions."""
    keep_in_file(quiet=True)
    path = file_path()
    if path is None:
        print(f"my_engine.py is switched off here ({ENVIRONMENT}=off): nothing is kept.")
        return
    namespace = namespace or {}
    changes, lines = {}, []
    worked = [p for p in PARTS if CHAPTER_OF[p] == chapter and p not in EXERCISE_OF]
    notebook_ok = not _first_failure(_checks_of(worked[0], Value)) if worked else True
    for part in (p for p in PARTS if CHAPTER_OF[p] == chapter):
        where = "worked through in the chapter, as you ran it"
        if part in EXERCISE_OF:
            outcome = _exercise(part).outcome()
            status = "unchecked" if outcome is None else outcome.status
            if status == "yours" and not outcome.by_solution:
                source = _source_of(outcome.answer, part)
                if source is not None:
                    changes[part] = (f"{YOURS} · chapter {chapter} · your answer to "
                                     f"\"{_exercise(part).title}\", which passed its check", source)
                    lines.append(f"  ✓ {part}: yours")
                    continue
            why = {"wrong": "yours did not pass its check"}.get(status, "not written by you yet")
            changes[part] = (f"{COURSE} · chapter {chapter} · {why}", COURSE_TEXT[part])
            lines.append(f"  • {part}: the course's ({why})")
            continue
        function = namespace.get(part) if part in MODULE_PARTS else vars(Value).get(part)
        source = _source_of(function, part) if function is not None else None
        package = os.path.dirname(course_engine.__file__)
        from_course = function is None or getattr(getattr(function, "__code__", None),
                                                  "co_filename", "").startswith(package)
        ok = notebook_ok or (part not in MODULE_PARTS and not _first_failure(
            _checks_of(part, stage(chapter, **{part: function}))))
        if source is None or from_course or not ok:
            why = ("not in this notebook" if source is None or from_course
                   else "the course's checks failed on yours")
            changes[part] = (f"{COURSE} · chapter {chapter} · {why}", COURSE_TEXT[part])
            lines.append(f"  • {part}: the course's ({why})")
        else:
            changes[part] = (f"{YOURS} · chapter {chapter} · {where}", source)
            lines.append(f"  ✓ {part}: yours")
    try:
        _write(path, changes)
    except (OSError, SyntaxError) as error:
        print(f"Could not write {_shown(path)}: {error}")
        return
    print(f"Kept chapter {chapter}'s part of your engine in {_shown(path)} "
          f"({len(path.read_text(encoding='utf-8').splitlines())} lines now):")
    print("\n".join(lines))
