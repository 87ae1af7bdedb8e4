"""The learner's engine file, `my_engine.py`: where it is, how it reads, how it is written.

The file holds the engine of chapters 2 to 5, one part after another (the two sorts at module
level, then `Value`'s methods in teaching order), each under a comment that says whose it is:
"# yours · chapter 3 · ..." or "# the course's · chapter 3 · ...". The course's parts are the
chapters' own code (`autograd/course_engine.py`), so the file always runs on its own.

This module reads the file (`load`: run as a fresh module, each part found and its owner read
from its comment, a course's part edited by hand counting as the learner's), and writes it
(`write`: one part replaced at a time, everything else the learner wrote left as it is, the
new file renamed over the old one so that it is never half written). Checking the parts is
`autograd.checks.engine`'s job; keeping answers and starting chapters from the file,
`autograd.yours`'s.

The file can be switched off: `AUTOGRAD_MY_ENGINE=off` in the environment, or `switch_off()`;
`AUTOGRAD_MY_ENGINE=some/path.py` keeps it elsewhere.
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
from ._platform import IN_BROWSER
from .stages import CHAPTER_METHODS, methods_up_to

__all__ = [
    "FILE_NAME",
    "ENVIRONMENT",
    "PARTS",
    "MODULE_PARTS",
    "CHAPTER_OF",
    "EXERCISE_OF",
    "COURSE_TEXT",
    "YOURS",
    "COURSE",
    "Loaded",
    "load",
    "write",
    "file_path",
    "shown",
    "switch_off",
    "source_of",
    "fresh_text",
    "blocks",
]

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
    "__init__": ("ch02", "REJECT"),
    "__mul__": ("ch03", "MUL"),
    "__sub__": ("ch03", "SUB"),
    "__pow__": ("ch03", "POW"),
    "tanh": ("ch04", "TANH"),
    "sigmoid": ("ch04", "SIGMOID"),
    "backward": ("ch05", "BACKWARD"),
    "iterative_topological_order": ("ch05", "SORT"),
}

YOURS, COURSE = "# yours", "# the course's"
HEADER = '''"""Your engine: the Value class you wrote in chapters 2 to 5 of Autograd from Scratch.

The course keeps each part here once your answer passes its check. The comment above each part
says whose it is: "yours", or "the course's" where you have not written it yet or your answer
did not pass. The file always runs on its own (import my_engine); check all of it with

    python -m autograd.checks.engine my_engine.py

You may edit it: chapters 3 to 7 check each part before they use it, and say which is wrong.
"""

import math
'''

_switched_off = False
_switched_off = False


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


def shown(path):
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
            texts[node.name] = textwrap.dedent("\n".join(lines[node.lineno - 1 : node.end_lineno]))
    return texts


COURSE_TEXT = _course_texts()


def same_code(a, b):
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
        self.why = {}  # {part: why it is the course's, as its comment says}


def blocks(text):
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
        comments = [line.strip() for line in lines[first - 1 : node.lineno - 1]]
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
        found = blocks(loaded.text)
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
        where = (
            namespace if part in MODULE_PARTS else vars(value) if isinstance(value, type) else {}
        )
        function = where.get(part)
        if callable(function) and hasattr(function, "__code__"):
            loaded.parts[part] = function
            first, last, marker = found.get(part, (0, 0, ""))
            mine = marker.startswith(YOURS)
            if not mine and part in found:
                text = "\n".join(loaded.text.splitlines()[first - 1 : last])
                mine = not same_code(def_only(text), COURSE_TEXT[part])  # edited by hand
            loaded.whose[part] = "yours" if mine else "the course's"
            if not mine:
                loaded.why[part] = marker.rsplit(" · ", 1)[-1] if " · " in marker else ""
    return loaded


def def_only(text):
    """A part's text from its `def` line on (without the comments and decorators above it)."""
    lines = textwrap.dedent(text).splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    return textwrap.dedent("\n".join(lines[start:]))


def source_of(function, part):
    """The source of `function` from its `def` line, named `part`; None if it cannot be read."""
    try:
        text = textwrap.dedent(inspect.getsource(function))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    node = tree.body[0]
    lines = text.splitlines()[node.lineno - 1 : node.end_lineno]
    if node.name != part:
        lines[0] = lines[0].replace(f"def {node.name}(", f"def {part}(", 1)
    return textwrap.dedent("\n".join(lines))


def _block(part, marker, source):
    indent = "" if part in MODULE_PARTS else "    "
    return [indent + marker] + [indent + line if line else "" for line in source.splitlines()]


def fresh_text():
    why = "not written by you yet"
    lines = HEADER.splitlines() + ["", ""]
    for part in MODULE_PARTS:
        lines += _block(part, f"{COURSE} · chapter {LAST} · {why}", COURSE_TEXT[part]) + ["", ""]
    lines += ["class Value:", '    """A number that remembers how it was computed."""', ""]
    for part in PARTS[len(MODULE_PARTS) :]:
        lines += _block(
            part, f"{COURSE} · chapter {CHAPTER_OF[part]} · {why}", COURSE_TEXT[part]
        ) + [""]
    return "\n".join(lines).rstrip() + "\n"


def write(path, changes):
    """Put `changes` {part: (marker, source or None to keep the part's code)} into the file,
    creating it from the course's parts if it is missing; everything else in it is left as it
    is. Written atomically (a new file, then renamed over the old one)."""
    text = path.read_text(encoding="utf-8") if path.exists() else fresh_text()
    for part, (marker, source) in changes.items():
        found = blocks(text)
        lines = text.splitlines()
        if part in found:
            first, last, _ = found[part]
            old = "\n".join(lines[first - 1 : last])
            lines[first - 1 : last] = _block(part, marker, source or def_only(old))
        else:
            new = _block(part, marker, source or COURSE_TEXT[part]) + [""]
            tree = ast.parse(text)
            value = next(
                (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Value"), None
            )
            if value is None:
                raise ValueError(f"{shown(path)} has no `class Value` to put {part} in")
            where = value.lineno - 1 if part in MODULE_PARTS else value.end_lineno
            lines[where:where] = ([""] if part not in MODULE_PARTS else []) + new
        text = "\n".join(lines) + "\n"
    compile(text, str(path), "exec")  # never write a file that does not parse
    if IN_BROWSER:  # one thread, and a file system in the page: a plain write is whole
        path.write_text(text, encoding="utf-8")
        return
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".my_engine-", suffix=".py")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
