"""The class edition's grading, as nbgrader runs it: loaded by the course directory's
nbgrader_config.py (classroom/build.py writes it), so that the instructor's own `nbgrader
autograde` grades this way, with nothing to remember.

- The grade of each graded cell comes from the referee (classroom/referee.py): the student's
  answer cells run in a fresh `python -I` with the course's own cells and checks around them,
  out of reach of anything the student's notebook did in its kernel. nbgrader still runs the
  notebook in a kernel, for the feedback's outputs; then `Referee` replaces each graded cell's
  outputs with the referee's verdict, from which nbgrader gives the points.
- Student code never runs with the grader's rights: run as root, the kernel and the referee
  start as the grading account (`nobody` unless the course names another), each in a private
  folder of their own, with no way into the course directory (mode 0700) or its gradebook.
  Run as another user (an instructor's laptop), they run as that user: the fresh interpreter,
  the time limits and the refusals still hold, but not the separation; nbgrader says so.
- A cell that never ends is stopped: an answer cell after ANSWER_CELL_SECONDS, any other after
  CELL_SECONDS (the course's own checks stop a slow check within seconds, with their message).
- What the referee refused or found (an answer that reaches for the course's package or
  checks, a checked answer that is not the answer cell's code, a graded cell that passed in the
  student's kernel but not in the fresh interpreter) is flagged: a warning in nbgrader's log
  and a row in the course directory's flagged.csv (student, assignment, cell, what was found).
- `collect` refuses a submission filed under a name that is not its owner's, and lists it in
  refused.csv; nbgrader itself only warns.
- nbgrader's warning that a graded cell's checksum changed is left out where the only change is
  the hidden part nbgrader itself removed from the students' copy, so a real change stands out.
"""

import csv
import fcntl
import glob
import json
import os
import pwd
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import NbGraderPreprocessor
from nbformat.notebooknode import NotebookNode
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.preprocessors import OverwriteCells

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import referee  # noqa: E402  (beside this file; standard library only)

ANSWER_CELL_SECONDS = 10  # an answer cell defines a function or sets a few names
CELL_SECONDS = 60  # any other cell, in the kernel run for the feedback
REFEREE_SECONDS = 900  # the referee's whole run on one notebook, at most

SETTINGS = {"course": None, "grading_user": "nobody"}  # set by configure()
_said = set()  # the notices already given once


def configure(c, course, grading_user="nobody"):
    """Set up nbgrader's configuration `c` for the course directory `course`."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        Execute,
        IgnorePattern,
        LimitOutput,
        OverwriteKernelspec,
        SaveAutoGrades,
    )

    SETTINGS.update(course=Path(course).resolve(), grading_user=grading_user)
    protect(SETTINGS["course"])
    c.Execute.timeout = CELL_SECONDS
    c.Execute.timeout_func = cell_timeout
    c.Execute.kernel_manager_class = GradingKernelManager
    c.Autograde.sanitize_preprocessors = [
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        QuietOverwriteCells,
        CheckCellMetadata,
    ]
    c.Autograde.autograde_preprocessors = [
        Execute,
        Referee,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        AssignLatePenalties,
        CheckCellMetadata,
    ]
    c.ExchangeFactory.collect = OwnSubmissionsCollect
    quiet_sqlalchemy()


def protect(course):
    """The course directory open to its owner alone: students, and the grading account, have
    no way into it (its solutions, its gradebook, every student's work)."""
    if course.is_dir() and course.stat().st_uid == os.geteuid():
        course.chmod(0o700)


def quiet_sqlalchemy():
    """nbgrader's gradebook uses SQLAlchemy in a way its newer versions warn about on every
    run (nothing a course can change); those warnings are left out."""
    import warnings

    try:
        from sqlalchemy.exc import SADeprecationWarning, SAWarning
    except ImportError:
        return
    warnings.filterwarnings("ignore", category=SAWarning)
    warnings.filterwarnings("ignore", category=SADeprecationWarning)


def cell_timeout(cell):
    """nbgrader's time limit for one cell of the kernel run: short for an answer cell."""
    if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
        return ANSWER_CELL_SECONDS
    return CELL_SECONDS


# ------------------------------------------------------------------ the grading account


def account(log=None):
    """(uid, gid) of the account student code runs as, or None when nbgrader does not run
    as root (it cannot change to another account then; `log` is told once)."""
    if os.geteuid() != 0:
        if log is not None and "not root" not in _said:
            _said.add("not root")
            log.warning(
                "nbgrader runs as %s, not as root, so the students' code runs as you: "
                "the fresh interpreter, the time limits and the refusals still hold, but "
                "it could read and change what you can. Run autograde as root to run it as "
                "the grading account '%s'.",
                pwd.getpwuid(os.geteuid()).pw_name,
                SETTINGS["grading_user"],
            )
        return None
    try:
        entry = pwd.getpwnam(SETTINGS["grading_user"])
    except KeyError:
        raise SystemExit(
            f"the grading account '{SETTINGS['grading_user']}' does not exist: make it "
            f"(useradd --system --no-create-home {SETTINGS['grading_user']}), or build the "
            "course again naming another (classroom/build.py --grading-user)"
        ) from None
    if entry.pw_uid == 0:
        raise SystemExit("the grading account must not be root")
    return entry.pw_uid, entry.pw_gid


def as_account(ids):
    """The command prefix that runs a program as the grading account (nothing if None)."""
    if ids is None:
        return []
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [
        setpriv,
        f"--reuid={ids[0]}",
        f"--regid={ids[1]}",
        "--clear-groups",
        "--no-new-privs",
        "--",
    ]


def private_folder(ids):
    """A new folder of the grading account's own, for one kernel or one referee run."""
    folder = tempfile.mkdtemp(prefix="autograde-")
    if ids is not None:
        os.chown(folder, *ids)
    return folder


def environment(folder):
    """The environment student code runs in: nothing of the grader's but its PATH and the
    place the course's package is found; its home is its private folder. The learner's engine
    file (`my_engine.py`, see `autograd.engine_file`) is switched off: a grade never rests on
    a file the student could have edited, and every chapter runs on the course's copy."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": folder,
        "LANG": "C.UTF-8",
        "AUTOGRAD_MY_ENGINE": "off",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": folder,
        "IPYTHONDIR": f"{folder}/.ipython",
        "JUPYTER_RUNTIME_DIR": folder,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def limits():
    """In the child, before the program starts: no core files."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class GradingKernelManager(AsyncKernelManager):
    """The kernel of autograde's run, started as the grading account in a private folder (its
    connection file there too, readable by it alone)."""

    _folder = None

    async def _async_pre_start_kernel(self, **kw):
        ids = account(self.log)
        self._folder = private_folder(ids)
        self.connection_file = os.path.join(self._folder, "kernel.json")
        self.transport, self.ip = "ipc", os.path.join(self._folder, "kernel")  # no TCP port
        kw["cwd"] = self._folder
        kw["env"] = environment(self._folder)
        cmd, kw = await super()._async_pre_start_kernel(**kw)
        if ids is not None:
            os.chown(self.connection_file, *ids)
        kw.setdefault("preexec_fn", limits)
        return [*as_account(ids), *cmd], kw

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if self._folder is not None and not restart:
            shutil.rmtree(self._folder, ignore_errors=True)


# ------------------------------------------------------------------ the verdicts


def package_folder():
    """The folder the course's package `autograd` is imported from, for the referee."""
    import importlib.util

    return str(Path(importlib.util.find_spec("autograd").origin).parent.parent)


def run_referee(steps, log=None):
    """The referee's verdicts on a notebook's `steps`: {graded cell id: verdict}."""
    ids = account(log)
    folder = private_folder(ids)
    job = json.dumps({"steps": steps, "package": package_folder()})
    try:
        done = subprocess.run(
            [*as_account(ids), sys.executable, "-I", str(HERE / "referee.py")],
            input=job,
            capture_output=True,
            text=True,
            cwd=folder,
            env=environment(folder),
            timeout=REFEREE_SECONDS,
            preexec_fn=limits,
        )
        out, problem = done.stdout, done.stderr.strip()[-2000:] if done.returncode else ""
    except subprocess.TimeoutExpired as timeout:
        out, problem = timeout.stdout or "", f"it took more than {REFEREE_SECONDS} s"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    verdicts = {}
    for line in (out.decode() if isinstance(out, bytes) else out).splitlines():
        verdict = json.loads(line)
        verdicts[verdict["cell"]] = verdict
    if problem and log is not None:
        log.error("The referee failed: %s", problem)
    return verdicts


def outputs(verdict):
    """A graded cell's outputs, from the referee's verdict."""
    made = [
        NotebookNode(
            output_type="stream",
            name="stdout",
            text=("Graded in a fresh Python, on your answer cells as you submitted them.\n"),
        )
    ]
    if verdict.get("printed"):
        made.append(NotebookNode(output_type="stream", name="stdout", text=verdict["printed"]))
    if verdict.get("text"):
        made.append(
            NotebookNode(
                output_type="display_data",
                metadata=NotebookNode(),
                data=NotebookNode(
                    {"text/plain": verdict["text"], "text/html": verdict.get("html", "")}
                ),
            )
        )
    if not verdict["passed"]:
        title = verdict.get("title")
        said = f"{title}: {verdict['said']}" if title else verdict["said"]
        message = f"{said.rstrip('.')}, so this cell gives no points"
        made.append(
            NotebookNode(
                output_type="error",
                ename="NoPoints",
                evalue=message,
                traceback=[f"NoPoints: {message}"],
            )
        )
    return made


class Referee(NbGraderPreprocessor):
    """After nbgrader's kernel run: each graded cell's outputs become the referee's verdict,
    and what it found is flagged."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        assignment, notebook, student = info["assignment"], info["notebook"], info["student"]
        course = SETTINGS["course"]
        source = json.loads(
            (course / "source" / assignment / f"{notebook}.ipynb").read_text(encoding="utf-8")
        )
        verdicts = run_referee(referee.steps_of(source, nb), self.log)
        flags, refused = [], any(v.get("flags") for v in verdicts.values())
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            grade_id = meta["grade_id"]
            verdict = verdicts.get(grade_id) or {
                "passed": False,
                "flags": ["the referee gave no verdict"],
                "said": "the grader could not decide this cell",
            }
            in_kernel = not any(o.get("output_type") == "error" for o in cell.get("outputs", []))
            if in_kernel and not verdict["passed"] and not refused:
                flags.append(
                    (
                        grade_id,
                        "passed in the student's kernel but not on the answer "
                        "cells alone, in a fresh Python: the notebook changed "
                        "the course's checks, or an answer needs a cell the "
                        "student added",
                    )
                )
            flags += [(grade_id, flag) for flag in verdict.get("flags", [])]
            cell.outputs = outputs(verdict)
        for grade_id, flag in flags:
            self.log.warning("Flagged: %s, %s, cell %s: %s", student, assignment, grade_id, flag)
        record(
            course / "flagged.csv",
            ("student", "assignment", "notebook", "cell", "found"),
            [(student, assignment, notebook, g, f) for g, f in flags],
            replacing=lambda row: row[:3] == [student, assignment, notebook],
        )
        return nb, resources


def record(path, header, rows, replacing):
    """Rewrite the CSV file `path`: its rows for which `replacing(row)` holds give way to
    `rows`. Locked, so that two nbgrader processes at once keep each other's rows."""
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = []
        if path.exists():
            with open(path, newline="", encoding="utf-8") as f:
                kept = [row for row in list(csv.reader(f))[1:] if not replacing(row)]
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(kept + [list(row) for row in rows])


# ------------------------------------------------------------------ quiet logs, collect


class QuietOverwriteCells(OverwriteCells):
    """nbgrader's OverwriteCells, without its warning that a graded cell's checksum changed
    when the only change is the hidden part that nbgrader removed from the students' copy."""

    def preprocess_cell(self, cell, resources, cell_index):
        self._cell = cell
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name, attr, old, new):
        if attr == "checksum":
            source = self.gradebook.find_source_cell(name, self.notebook_id, self.assignment_id)
            if _without_hidden(source.source).strip() == _without_hidden(self._cell.source).strip():
                return
        super().report_change(name, attr, old, new)


def _without_hidden(text):
    lines, hidden = [], False
    for line in text.split("\n"):
        if line.strip() in ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"):
            hidden = line.strip().startswith("### BEGIN")
        elif not hidden:
            lines.append(line)
    return "\n".join(lines)


class OwnSubmissionsCollect(ExchangeCollect):
    """nbgrader's collect, refusing a submission filed under a name that is not the name of
    the account that owns it (someone submitting as another student); each refused one is
    listed in the course directory's refused.csv and in the log. A submission owned by the
    account that collects was filed by the instructor (or on a hub where everyone is one
    account, as on Zero to JupyterHub, where this cannot tell students apart)."""

    def init_src(self):
        super().init_src()  # checks the course's folders, finds the due date
        # Choose again among the files themselves, leaving out first those filed under a name
        # not their owner's: a later one of those must not hide the student's own.
        name = self.coursedir.student_id or "*"
        pattern = os.path.join(self.inbound_path, f"{name}+{self.coursedir.assignment_id}+*")
        by_student, refused = {}, []
        for path in glob.glob(pattern):
            record_ = self._path_to_record(path)
            uid = os.stat(path).st_uid
            try:
                owner = pwd.getpwuid(uid).pw_name
            except KeyError:
                owner = f"uid {uid}"
            if owner == record_["username"] or uid == os.geteuid():
                by_student.setdefault(record_["username"], []).append(record_)
            else:
                refused.append((record_["username"], owner, record_["filename"]))
                self.log.warning(
                    "Refused: %s is filed under the name %s but belongs to %s, "
                    "so it was not collected",
                    record_["filename"],
                    record_["username"],
                    owner,
                )
        due = getattr(self, "duedate", None) if self.before_duedate else None
        self.src_records = []
        for records in by_student.values():
            records.sort(key=lambda r: r["timestamp"], reverse=True)
            in_time = [r for r in records if due is not None and r["timestamp"] <= due]
            self.src_records.append((in_time or records)[0])
        rows = [[self.coursedir.assignment_id, *row] for row in refused]
        record(
            Path(self.coursedir.root) / "refused.csv",
            ("assignment", "filed as", "owner", "submission"),
            rows,
            replacing=lambda row: row in rows,
        )
