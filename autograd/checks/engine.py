"""The engine test suite, run on a learner's whole engine: `my_engine.py`.

    python -m autograd.checks.engine my_engine.py      # from a terminal (exit code 1 on failure)
    autograd.checks.engine.run("my_engine.py")         # from a notebook, the Lite edition too

It runs the learner's file as it is (every part, whoever wrote it) against the course's
specification: chapters 2 to 5's checkpoints and the checks of every exercise that builds the
engine (`autograd/checks/ch02.py` ... `ch05.py`, the very checks the chapters run), each failure
with its message in the course's words. Where PyTorch is installed, it also compares the
gradients of random programs (+, −, *, a number on either side, squares, tanh, relu and sigmoid,
nodes shared) with PyTorch's. It ends with the engine's length beside the course's own.
"""

import importlib
import math
import sys
import tempfile
from pathlib import Path

from .. import course_engine, engine_file as files
from ..engine_file import CHAPTER_OF, EXERCISE_OF, LAST, MODULE_PARTS, PARTS
from ..stages import stage
from .core import run_checks
from .toolbox import ARITHMETIC, RELU, TANH, make_program, run_steps

__all__ = [
    "run",
    "main",
    "length",
    "torch_programs",
    "check_parts",
    "checks_of",
    "exercise_of",
    "first_failure",
]

OPERATIONS = {
    **ARITHMETIC,
    "tanh": TANH,
    "relu": RELU,
    "sub": (2, lambda a, b: a - b),
    "square": (1, lambda a: a**2),
    "sigmoid": (1, lambda a: a.sigmoid()),
}
PROGRAMS = 25  # random programs compared with PyTorch


def length(text):
    """(lines, lines of code): all of the text's lines, and those neither blank nor a comment."""
    lines = text.splitlines()
    return len(lines), sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def torch_programs(Value, n=PROGRAMS):
    """Failures (strings) of gradients on `n` random programs against PyTorch's; None when
    PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    failures = []
    for seed in range(n):
        (inputs,), steps = make_program(
            seed,
            OPERATIONS,
            n_inputs=3,
            n_steps=14,
            draw=lambda rng: rng.uniform(-1.5, 1.5),
            every_operation=True,
        )
        try:
            leaves = [Value(x) for x in inputs]
            out = run_steps(leaves, steps, OPERATIONS)
            out.backward()
            ours = [leaf.grad for leaf in leaves]
        except Exception as error:  # the learner's engine: anything may go wrong
            failures.append(f"random program {seed} raised {type(error).__name__}: {error}")
            continue
        tensors = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in inputs]
        run_steps(tensors, steps, OPERATIONS).backward()
        theirs = [t.grad.item() if t.grad is not None else 0.0 for t in tensors]
        for k, (a, b) in enumerate(zip(ours, theirs)):
            if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9):
                ops = ", ".join(sorted({name for name, _, _ in steps}))
                failures.append(
                    f"random program {seed} ({len(steps)} operations: {ops}): "
                    f"x{k}.grad is {a!r}, PyTorch says {b!r}"
                )
                break
    return failures


def exercise_of(part):
    module, name = EXERCISE_OF[part]
    return getattr(importlib.import_module(f"autograd.checks.{module}"), name)


def checks_of(part, Value, sort=None):
    """[(title, checks, args)]: what the course checks a part with (its chapter's checkpoint and
    its exercise's checks), on class `Value`."""
    chapter = CHAPTER_OF[part]
    module = importlib.import_module(f"autograd.checks.ch{chapter:02d}")
    runs = []
    if part == "iterative_topological_order":
        return [(f"{part}", exercise_of(part).checks, (sort, Value))]
    runs.append((f"chapter {chapter}", module.CHECKPOINT, (Value,)))
    if part in EXERCISE_OF:
        runs.append((part, exercise_of(part).checks, (Value,)))
    return runs


def first_failure(runs):
    """The first failure of some runs of checks: "check name: message", or "" if all pass."""
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
            for title, checks, args in checks_of(part, whole, sort):
                runs.setdefault(title, (title, checks, args))
        if not first_failure(runs.values()):
            return {p: loaded.parts[p] for p in wanted}, {}
    good = {}
    for part in wanted:
        if part in problems or part == "topological_order":  # checked with backward()
            continue
        Value = stage(
            LAST if part in MODULE_PARTS else upto,
            **({} if part in MODULE_PARTS else {part: methods[part]}),
        )
        found = first_failure(checks_of(part, Value, sort))
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


def run(path=None, *, out=print, name=None):
    """Check the learner's whole engine in `path` (by default the learner's my_engine.py, see
    `autograd.yours.file_path`); print what passed and what failed; return True if everything
    passed."""
    if path is None:
        path = files.file_path()
        if path is None:
            out(
                f"my_engine.py is switched off here ({files.ENVIRONMENT}=off), so this is the "
                "suite run on the course's engine, as the file starts before you write a part:"
            )
            with tempfile.TemporaryDirectory() as folder:
                course = Path(folder) / files.FILE_NAME
                course.write_text(files.fresh_text(), encoding="utf-8")
                return run(course, out=out, name="the course's engine")
    loaded = files.load(Path(path))
    path = name or files.shown(Path(path).absolute())
    if loaded is None:
        out(f"✗ There is no {path}: chapters 2 to 5 write it as your answers pass their checks.")
        return False
    if loaded.error:
        out(f"✗ {path} does not run: {loaded.error}")
        return False
    Value = loaded.namespace.get("Value")
    if not isinstance(Value, type):
        out(f"✗ {path} defines no class Value")
        return False
    sort = loaded.namespace.get("iterative_topological_order")
    passed = True
    runs = {}
    for part in sorted(PARTS, key=CHAPTER_OF.get):
        for title, checks, args in checks_of(part, Value, sort):
            runs.setdefault(title, (title, checks, args))
    for title, checks, args in runs.values():
        name = (
            f"Chapter {title.split()[1]}'s specification"
            if title.startswith("chapter")
            else f"The exercise's checks for {title}"
        )
        report = run_checks(f"{name}, on {path}", checks, *args)
        passed = passed and report.passed
        if report.passed:
            out(f"✓ {report.title}: {report.summary()}")
        else:
            out(str(report))
    failures = torch_programs(Value)
    if failures is None:
        out(
            "• PyTorch is not installed, so no random programs were compared with it "
            "(pip install -r requirements-torch.txt to add them)."
        )
    elif failures:
        passed = False
        out(f"✗ Gradients on {PROGRAMS} random programs, against PyTorch:")
        out("\n".join(f"      {failure}" for failure in failures[:3]))
        if len(failures) > 3:
            out(f"      ... and {len(failures) - 3} more")
    else:
        out(f"✓ Gradients on {PROGRAMS} random programs agree with PyTorch's to 1e-9.")
    lines, code = length(loaded.text)
    course_lines, course_code = length(files.fresh_text())
    whose = sum(1 for w in loaded.whose.values() if w == "yours")
    out(
        f"Your engine is {lines} lines ({code} of them code), {whose} of its "
        f"{len(PARTS)} parts yours; the article's engine, as the course writes it "
        f"(autograd/{course_engine.__name__.split('.')[-1]}.py in the same layout), is "
        f"{course_lines} lines ({course_code} of them code)."
    )
    out(
        (
            "Everything passed: a working autograd engine, and every part of it yours."
            if whose == len(PARTS)
            else "Everything passed: a working autograd engine."
        )
        if passed
        else "Some checks failed: see the messages above, fix my_engine.py, and run this again."
    )
    return passed


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1 or argv[:1] in (["-h"], ["--help"]):
        print("usage: python -m autograd.checks.engine [my_engine.py]")
        return 2
    return 0 if run(argv[0] if argv else "my_engine.py") else 1


if __name__ == "__main__":
    sys.exit(main())
