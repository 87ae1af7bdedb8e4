"""The class edition's referee: each graded cell's verdict, decided in a fresh interpreter.

A student's notebook runs in a kernel where every cell can change anything: replace the
course's checks, the `graded` that the graded cells call, or IPython itself. So no grade comes
from there. For each submitted notebook, the grader (classroom/grader.py, in nbgrader's
autograde) starts this script in a new `python -I`, as the unprivileged grading account, and
hands it, on its standard input, the chapter's code cells as the course wrote them (from the
course directory's source/) and the student's answer cells. It runs them and writes one verdict
per graded cell on its standard output, as JSON lines:

- the cells run as the course gives them, with the course's solution in each answer cell: a
  clean run that no student code touches;
- at each exercise, a copy of that run (`os.fork`) takes the student's answer instead and goes
  on to the exercise's check: so each exercise is graded on the student's answer alone, with
  the course's code around it, and an answer cannot change another exercise's check;
- a copy from the start runs every answer of the student's, then the checkpoint: its points
  need it to pass and every exercise to have passed on its own.

Before an answer runs, it is read (`ast`): an answer that reaches for what the exercise does not
need (the course's package or checks, `sys`, `eval`, `open`, a replacement for the class the
check is given, ...) is refused without running, and the refusal is flagged for the instructor.
A passing check's answer must be code from the answer cell itself: the package's finished
`Value` (`stage(4)`) standing in for the student's is refused too. Each copy runs under a time
limit per cell that the referee itself enforces from outside it, so a loop that never ends
costs seconds.

Standard library only (the course's package is imported from the folder named in the job).
"""

import ast
import io
import json
import linecache
import os
import select
import signal
import sys
import time
import traceback

ANSWER_SECONDS = 10  # an answer cell defines a function or sets a few names: this is plenty
GIVEN_SECONDS = 60  # one of the chapter's own cells (a drawing, a short training run)
CHECK_SECONDS = 150  # a check cell: the course's own time limits (seconds a check) act first
OUTPUT_LIMIT = 20000  # characters of a cell's printed text kept in a verdict
REPORT = None  # the course's Report class, taken before any student code runs (main)

# What an answer may reach only where the exercise's own solution does: the course's package,
# its checks and its finished engine; the interpreter's machinery; the file system.
RISKY_NAMES = {
    "autograd",
    "stage",
    "stages",
    "engine",
    "checks",
    "checkpoint",
    "graded",
    "NoPoints",
    "sys",
    "os",
    "gc",
    "builtins",
    "__builtins__",
    "importlib",
    "inspect",
    "ctypes",
    "subprocess",
    "signal",
    "threading",
    "_thread",
    "exec",
    "eval",
    "compile",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "__import__",
    "open",
    "breakpoint",
    "input",
    "exit",
    "quit",
    "memoryview",
    "get_ipython",
    "linecache",
} | {f"ch{n:02d}" for n in range(20)}
# Attributes that lead from an object to the frames and code around it (a generator's frame,
# its caller's, their variables): out of the answer, into the referee.
RISKY_ATTRIBUTES = {
    "gi_frame",
    "cr_frame",
    "ag_frame",
    "gi_code",
    "f_back",
    "f_locals",
    "f_globals",
    "f_builtins",
    "f_code",
    "tb_frame",
    "tb_next",
    "co_code",
    "modules",
}
SAFE_IMPORTS = {"math", "random", "itertools", "functools", "collections", "operator", "statistics"}
# The double-underscore names an answer may use: the engine's operators and the like. Others
# (`__class__`, `__globals__`, `__subclasses__`, `__dict__`, ...) lead out of the answer.
SAFE_DUNDERS = {
    "__init__",
    "__repr__",
    "__str__",
    "__name__",
    "__doc__",
    "__slots__",
    "__call__",
    "__len__",
    "__iter__",
    "__next__",
    "__getitem__",
    "__setitem__",
    "__contains__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__hash__",
    "__bool__",
    "__float__",
    "__int__",
    "__abs__",
    "__neg__",
    "__pos__",
    "__matmul__",
    "__rmatmul__",
} | {
    f"__{p}{op}__"
    for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
    for p in ("", "r", "i")
}


def names_in(tree):
    """(names used, names bound, attributes, modules imported) anywhere in `tree`."""
    used, bound, attributes, modules = set(), set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        elif isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0] or ".")
            bound.update(alias.asname or alias.name for alias in node.names)
    return used, bound, attributes, modules


def refusals(answer, solution, check):
    """What the class edition refuses in `answer` (the answer cell's source), each as a short
    phrase: what it reaches for that the exercise's own `solution` does not need, or a name the
    check is given (`Value` in `ch04.check_tanh(Value)`) that it replaces. [] if nothing.
    Raises SyntaxError if `answer` is not Python."""
    used, bound, attributes, modules = names_in(ast.parse(answer))
    s_used, s_bound, s_attributes, s_modules = names_in(ast.parse(solution or ""))
    found = [f"imports `{m}`" for m in sorted(modules - SAFE_IMPORTS - s_modules)]
    found += [f"uses `{n}`" for n in sorted((used | bound) & RISKY_NAMES - s_used - s_bound)]
    found += [
        f"reaches `.{a}`"
        for a in sorted(attributes - s_attributes)
        if a in RISKY_ATTRIBUTES
        or a.startswith("__")
        and a.endswith("__")
        and a not in SAFE_DUNDERS
    ]
    call = ast.parse(check, mode="eval").body
    given = {
        n.id for arg in getattr(call, "args", []) for n in ast.walk(arg) if isinstance(n, ast.Name)
    }
    found += [
        f"replaces `{n}`, which the check is given, instead of completing it"
        for n in sorted(given & bound - s_bound)
    ]
    return found


GRADED = (
    "from autograd.checks.grading import graded",  # the line that starts a graded cell
    "from autograd.checks.exercise import graded",
)


def _text(cell):
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def _nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def steps_of(source, submitted):
    """The job's steps for a notebook: its code cells as the course's `source` notebook (the
    course directory's source/) has them, with the answers of the `submitted` one (both as
    JSON dicts), each step a dict: a given cell {kind: given, cell, code}; an answer {kind:
    answer, cell, exercise, answer, solution, check, check_cell}; a graded check {kind: check,
    cell, exercise, before, expression, answer_cell}; the checkpoint {kind: checkpoint, cell,
    before, expression}. The graded cells are as classroom/build.py writes them."""
    answers = {
        _nbgrader(c).get("grade_id"): _text(c)
        for c in submitted["cells"]
        if _nbgrader(c).get("solution")
    }
    steps, pending = [], None
    for cell in source["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta, text, grade_id = _nbgrader(cell), _text(cell), _nbgrader(cell).get("grade_id")
        if meta.get("solution"):
            stub, _, rest = text.partition("### BEGIN SOLUTION\n")
            solution = rest.partition("\n### END SOLUTION")[0]
            pending = {
                "kind": "answer",
                "cell": grade_id,
                "solution": solution,
                "answer": answers.get(grade_id, stub),
            }
            steps.append(pending)
        elif meta.get("grade"):
            lines, hidden = [], False
            for line in text.split("\n"):
                if line.strip() in ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"):
                    hidden = line.strip().startswith("### BEGIN")
                elif not hidden and not line.startswith("# Graded:") and line not in GRADED:
                    lines.append(line)
            while lines and not lines[-1].strip():
                lines.pop()
            expression = lines.pop().strip()[len("graded(") : -1]
            if expression == "report":
                call = next(line for line in lines if line.startswith("report = "))
                lines.remove(call)
                steps.append(
                    {
                        "kind": "checkpoint",
                        "cell": grade_id,
                        "before": "\n".join(lines),
                        "expression": call[len("report = ") :],
                    }
                )
                continue
            exercise = expression.partition("(")[0].strip()
            steps.append(
                {
                    "kind": "check",
                    "cell": grade_id,
                    "exercise": exercise,
                    "before": "\n".join(lines),
                    "expression": expression,
                    "answer_cell": pending["cell"],
                }
            )
            pending.update(exercise=exercise, check=expression, check_cell=grade_id)
        else:
            steps.append({"kind": "given", "cell": grade_id, "code": text})
    return steps


def without_magics(code):
    """A cell's code with IPython's `%` and `!` lines made comments (`%xmode Minimal`)."""
    return "\n".join(
        "# " + line if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n")
    )


class Referee:
    """Runs one notebook's job (see the module's docstring) and writes the verdicts."""

    def __init__(self, job, protocol):
        self.steps = job["steps"]
        self.protocol = protocol  # the file descriptor the verdicts go out on
        self.namespace = {"__name__": "__main__", "display": lambda *a, **k: None}
        self.passed = {}  # exercise: did the student's answer pass on its own
        self.titles = {}  # exercise: its title, for messages

    def write(self, verdict):
        os.write(self.protocol, (json.dumps(verdict) + "\n").encode())

    # ---------------------------------------------------------------- running cells
    def run(self, code, name):
        """Run `code` in the namespace, compiled as `name` (linecache holds it, so that the
        checks can read an answer's source). The exception it raised, or None."""
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        try:
            exec(compile(without_magics(code), name, "exec"), self.namespace)
        except BaseException as error:  # noqa: BLE001  (a given cell meant to fail, or a student's)
            return error
        return None

    def copy(self, steps, answers, checkpoint=False):
        """Fork: the copy runs `steps` with the student's answers for the exercises in
        `answers` (see `child`) and sends back what it found; this process waits, enforcing
        each step's time limit from outside the copy, and returns what it found (a dict), or
        the time limit's verdict."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy
            os.close(read)
            os.close(self.protocol)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)  # what a cell prints at the level of files goes nowhere
            os.dup2(null, 2)
            out = os.fdopen(write, "w", buffering=1)
            try:
                result = self.child(steps, answers, out, checkpoint)
            except BaseException as error:  # noqa: BLE001
                result = {"crashed": f"{type(error).__name__}: {error}"}
            out.write(json.dumps({"result": result}) + "\n")
            out.flush()
            os._exit(0)
        os.close(write)
        return self.wait(pid, read, steps)

    def wait(self, pid, read, steps):
        step, result, buffer = None, None, b""
        deadline = time.monotonic() + GIVEN_SECONDS
        while result is None:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([read], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                kind = steps[step]["kind"] if step is not None else "given"
                seconds = {"answer": ANSWER_SECONDS, "given": GIVEN_SECONDS}.get(
                    kind, CHECK_SECONDS
                )
                result = {
                    "timeout": kind,
                    "seconds": seconds,
                    "exercise": steps[step].get("exercise") if step is not None else None,
                }
                break
            chunk = os.read(read, 65536)
            if not chunk:
                result = {"crashed": "the run ended without a verdict"}
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if "step" in message:
                    step = message["step"]
                    kind = steps[step]["kind"]
                    deadline = time.monotonic() + {
                        "answer": ANSWER_SECONDS,
                        "given": GIVEN_SECONDS,
                    }.get(kind, CHECK_SECONDS)
                elif "result" in message:
                    result = message["result"]
        os.close(read)
        os.waitpid(pid, 0)
        return result

    # ---------------------------------------------------------------- the copies
    def child(self, steps, answers, out, checkpoint):
        """In a copy: run `steps`, the student's answer where the exercise is in `answers`,
        up to the checkpoint if `checkpoint`, else up to the one exercise's check; return what
        it found."""
        sys.stdout = sys.stderr = printed = io.StringIO()
        found = {"answers": {}}
        for index, step in enumerate(steps):
            out.write(json.dumps({"step": index}) + "\n")
            out.flush()
            kind = step["kind"]
            if kind == "given":
                self.run(step["code"], f"<cell {step['cell']}>")
            elif kind == "answer":
                if step["exercise"] not in answers:
                    self.run(step["solution"], f"<solution {step['cell']}>")
                    continue
                said = self.answer(step)
                if said is not None:
                    found["answers"][step["exercise"]] = said
            elif kind == "check" and step["exercise"] in answers:
                if step["exercise"] in found["answers"]:  # refused, or did not run
                    if not checkpoint:
                        return found
                    continue
                self.run(step["before"], f"<cell {step['cell']}>")
                printed.seek(0)
                printed.truncate()
                verdict = self.check(step, printed)
                found["answers"][step["exercise"]] = verdict
                if not checkpoint:
                    return found
            elif kind == "checkpoint" and checkpoint:
                self.run(step["before"], f"<cell {step['cell']}>")
                printed.seek(0)
                printed.truncate()
                found["checkpoint"] = self.check(step, printed)
                return found
        return found

    def answer(self, step):
        """Run the student's answer for `step`; None if it ran, else its verdict."""
        code, name = step["answer"], f"<answer {step['cell']}>"
        try:
            refused = refusals(without_magics(code), step["solution"], step["check"])
        except SyntaxError as error:
            where = f"line {error.lineno}: " if error.lineno else ""
            return {
                "passed": False,
                "said": (
                    f"your answer has a syntax error, so it could not run ({where}{error.msg}): "
                    "fix it, then run it and its check again"
                ),
                "flags": [],
            }
        if refused:
            return {
                "passed": False,
                "flags": [f"answer {r}" for r in refused],
                "said": (
                    "the class edition does not accept this answer: it "
                    + "; it ".join(refused)
                    + " (answer with code of your own, which needs none of that)"
                ),
            }
        self.run(code, name)  # an answer that raises is checked on what it defined
        return None

    def check(self, step, printed):
        """Run a graded cell's check (or checkpoint) on what ran; its verdict."""
        name = f"<cell {step['cell']}>"
        linecache.cache[name] = (len(step["expression"]), None, [step["expression"]], name)
        try:
            report = eval(compile(step["expression"], name, "eval"), self.namespace)
        except BaseException as error:  # noqa: BLE001
            lines = traceback.format_exception_only(type(error), error)
            return {
                "passed": False,
                "flags": [],
                "printed": printed.getvalue()[:OUTPUT_LIMIT],
                "said": f"the check could not run: {''.join(lines).strip()}",
            }
        if type(report) is not REPORT:
            return {
                "passed": False,
                "flags": [f"the check returned {type(report).__name__}, not the course's report"],
                "said": "the check did not give the course's report",
            }
        flags = []
        exercise = getattr(report, "exercise", None)
        if report.passed and exercise is not None and step["kind"] == "check":
            flags = self.not_from_the_answer(exercise, report, step)
        passed = report.passed and not flags
        said = (
            ""
            if passed
            else report._failed_in_words()
            .removeprefix(f"{report.title}: ")
            .removesuffix(": see the report above")
        )
        if flags and report.passed:
            said = "the checks passed, but not on code from your answer cell: " + "; ".join(flags)
        if getattr(report, "unanswered", False):
            said = "not answered yet"
        return {
            "passed": passed,
            "flags": flags,
            "title": report.title,
            "printed": printed.getvalue()[:OUTPUT_LIMIT],
            "text": str(report),
            "html": report._repr_html_(),
            "said": said,
        }

    def not_from_the_answer(self, exercise, report, step):
        """The answer the check passed, when it is a function: is it code of the answer cell?"""
        try:
            answer = exercise.answer_of(*report.args)
        except Exception:  # noqa: BLE001
            return []
        code = getattr(answer, "__code__", None)
        if code is None or code.co_filename == f"<answer {step['answer_cell']}>":
            return []
        where = code.co_filename
        if where.startswith("<cell "):
            where = "a cell the course gives"
        return [f"{exercise.what} comes from {where}, not from the answer cell"]

    # ---------------------------------------------------------------- the whole notebook
    def referee(self):
        steps = self.steps
        exercises = [s["exercise"] for s in steps if s["kind"] == "answer"]
        checkpoint = next((s for s in steps if s["kind"] == "checkpoint"), None)
        every = None
        if checkpoint is not None:  # all the student's answers, from the start
            every = self.copy(steps, set(exercises), checkpoint=True)
        for index, step in enumerate(steps):
            if step["kind"] == "given":
                self.run(step["code"], f"<cell {step['cell']}>")
            elif step["kind"] == "check":
                self.run(step["before"], f"<cell {step['cell']}>")
            elif step["kind"] == "answer":
                found = self.copy(steps[index:], {step["exercise"]})
                self.exercise_verdict(step, found)
                self.run(step["solution"], f"<solution {step['cell']}>")
        if checkpoint is not None:
            self.checkpoint_verdict(checkpoint, every)

    def exercise_verdict(self, step, found):
        verdict = found.get("answers", {}).get(step["exercise"]) if "answers" in found else None
        if verdict is None:
            verdict = self.failure(found, "the check did not run")
        self.passed[step["exercise"]] = verdict["passed"]
        self.titles[step["exercise"]] = verdict.get("title", step["exercise"])
        self.write({"cell": step["check_cell"], **verdict})

    def checkpoint_verdict(self, step, found):
        verdict = found.get("checkpoint") if "answers" in found else None
        if verdict is None:
            verdict = self.failure(found, "the checkpoint did not run")
        failed = [
            self.titles[e].removeprefix("Exercise: ") for e, ok in self.passed.items() if not ok
        ]
        if verdict["passed"] and failed:
            verdict = {
                **verdict,
                "passed": False,
                "said": (
                    "its checks passed, but its points need every exercise answered right by "
                    "your own code, and these were not: " + ", ".join(failed)
                ),
            }
        self.write({"cell": step["cell"], **verdict})

    @staticmethod
    def failure(found, otherwise):
        if "timeout" in found:
            where = {"answer": "your answer's cell", "given": "a cell of the chapter"}.get(
                found["timeout"], "the check"
            )
            return {
                "passed": False,
                "flags": [],
                "said": (
                    f"{where} did not finish within {found['seconds']} s, so it was stopped: "
                    "is there a loop in your code that never ends?"
                ),
            }
        return {"passed": False, "flags": [], "said": found.get("crashed", otherwise)}


def main():
    job = json.loads(sys.stdin.read())
    sys.path.insert(0, job["package"])
    os.environ.setdefault("MPLBACKEND", "Agg")
    protocol = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # only the verdicts go out
    global REPORT
    import autograd.checks  # noqa: F401  (the course's checks, before any student code runs)
    from autograd.checks import exercise
    from autograd.checks.core import Report as REPORT

    exercise.Exercise.class_edition = True  # a prediction's answer is never shown
    Referee(job, protocol).referee()


if __name__ == "__main__":
    main()
