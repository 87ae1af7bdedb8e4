"""JupyterHub for a class on one machine: one instructor, the students of a list, nbgrader.

Start it as root from the repository's top folder, once the instructor's environment is made
(classroom/requirements.txt, see classroom/README.md) and the proxy installed:

    npm ci --prefix classroom
    .venv-class/bin/jupyterhub -f classroom/jupyterhub_config.py

Every student gets a JupyterLab of their own, run from `.venv-class`, which opens on chapter 00
of a copy of the course's notebooks in their home folder (`~/autograd-from-scratch/notebooks`,
copied on their first start and never overwritten). nbgrader's exchange, a folder every user
can write to, carries the assignments the instructor releases to the students and the
students' submissions back. Students see nbgrader's "Assignments" tab; only the instructor sees
the formgrader and the assignment creator.

Everything a class changes is read from environment variables, each with a default that suits
The Littlest JupyterHub's kind of machine (one server, system accounts, the hub run as root):

    COURSE_STUDENTS         a file of student user names, one a line, `#` starts a comment
                            (default: classroom/students.txt beside this file)
    COURSE_INSTRUCTOR       the instructor's user name, the hub's one admin (default: instructor)
    COURSE_ID               nbgrader's course id (default: autograd-from-scratch)
    COURSE_HUB_DATA         the hub's own folder: its database, its cookie secret, the exchange
                            and the configuration it gives the servers
                            (default: /srv/autograd-from-scratch)
    COURSE_HUB_BIND_URL     where the hub listens (default: http://:8000, every address)
    COURSE_HUB_AUTHENTICATOR
                            how people log in (default: pam, the machine's own accounts and
                            passwords: make an account for each student first, e.g. with
                            `adduser`). Any authenticator JupyterHub knows by name works, such
                            as `firstuseauthenticator` or `nativeauthenticator` once its
                            package is installed into .venv-class.

The students of the list and the instructor are the only people the hub lets in.
"""

import json
import os
import pwd
import random
import shutil
import socket
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub defines get_config in the files it loads)

ROOT = Path(__file__).resolve().parent.parent  # the repository's top folder
CLASSROOM = ROOT / "classroom"
ENVIRONMENT = ROOT / ".venv-class"
NOTEBOOKS = ROOT / "notebooks"
COURSE_FOLDER = "autograd-from-scratch"  # the course's folder in each home folder
FIRST_PAGE = f"{COURSE_FOLDER}/notebooks/00_start_here.ipynb"

STUDENTS_FILE = Path(os.environ.get("COURSE_STUDENTS", CLASSROOM / "students.txt"))
INSTRUCTOR = os.environ.get("COURSE_INSTRUCTOR", "instructor")
COURSE_ID = os.environ.get("COURSE_ID", "autograd-from-scratch")
DATA = Path(os.environ.get("COURSE_HUB_DATA", "/srv/autograd-from-scratch"))
EXCHANGE = DATA / "exchange"


def read_students(path):
    """The user names in `path`, one a line; blank lines and `#` comments are left out."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise SystemExit(f"the list of students {path} does not exist: write one user name a "
                         f"line, or name another file in COURSE_STUDENTS") from None
    names = [line.split("#", 1)[0].strip() for line in lines]
    names = [name for name in names if name]
    if not names:
        raise SystemExit(f"the list of students {path} names nobody")
    if INSTRUCTOR in names:
        raise SystemExit(f"{INSTRUCTOR} is the instructor and cannot also be a student in {path}")
    return names


STUDENTS = read_students(STUDENTS_FILE)

# ------------------------------------------------------------------------------ the hub itself
c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_BIND_URL", "http://:8000")
c.JupyterHub.authenticator_class = os.environ.get("COURSE_HUB_AUTHENTICATOR", "pam")
c.Authenticator.allowed_users = set(STUDENTS) | {INSTRUCTOR}
c.Authenticator.admin_users = {INSTRUCTOR}
# The hub's database and cookie secret in a folder only the hub's user can read.
_PRIVATE = DATA / "hub"
_PRIVATE.mkdir(parents=True, exist_ok=True)
_PRIVATE.chmod(0o700)
c.JupyterHub.db_url = f"sqlite:///{_PRIVATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(_PRIVATE / "jupyterhub_cookie_secret")

# The proxy is the one `npm ci --prefix classroom` installs (classroom/package.json pins it).
_PROXY = CLASSROOM / "node_modules" / ".bin" / "configurable-http-proxy"
if _PROXY.exists():
    c.ConfigurableHTTPProxy.command = [str(_PROXY)]

# ------------------------------------------------------------------------------ the servers
# Each user's JupyterLab runs from the instructor's environment, as that user, in their home.
c.Spawner.cmd = [str(ENVIRONMENT / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = f"/lab/tree/{FIRST_PAGE}"
c.Spawner.http_timeout = 120  # a busy machine starting a whole class at once is slow
c.Spawner.start_timeout = 180


def home_folder(spawner):
    """The home folder the user's server runs in (the spawner's own, if it sets one)."""
    return Path(getattr(spawner, "home_dir", "") or pwd.getpwnam(spawner.user.name).pw_dir)


def copy_the_course(spawner):
    """Give the user their own copy of the notebooks on their first start; keep it after."""
    home = home_folder(spawner)
    course = home / COURSE_FOLDER
    if course.exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    shutil.copytree(NOTEBOOKS, course / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    try:
        account = pwd.getpwnam(spawner.user.name)
    except KeyError:  # no system account (a test's spawner): the hub's own user keeps it
        return
    for folder, _, files in os.walk(course):
        for path in [folder, *(os.path.join(folder, name) for name in files)]:
            os.chown(path, account.pw_uid, account.pw_gid)


# Each server gets a port of its own. When a whole class starts at once, the system's "any free
# port" can give the same port to two servers before either is listening, and the second then
# fails to start; so the hub hands out ports itself, below the range Linux gives out, never
# one it gave another user's server.
_PORTS = {}  # user name: the port their server was last given


def give_a_port(spawner):
    taken = {port for name, port in _PORTS.items() if name != spawner.user.name}
    while True:
        port = random.randrange(20000, 32768)
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:  # something else listens there
                continue
        _PORTS[spawner.user.name] = spawner.port = port
        return


def before_each_start(spawner):
    copy_the_course(spawner)
    give_a_port(spawner)


c.Spawner.pre_spawn_hook = before_each_start

# ------------------------------------------------------------------------------ nbgrader
# The exchange: every user writes into it (nbgrader keeps submissions apart by user name).
if not EXCHANGE.exists():
    EXCHANGE.mkdir(parents=True)
    EXCHANGE.chmod(0o777)


# A kernel nobody has used for 30 minutes is shut down, so that a student who opens chapter
# after chapter keeps a few kernels running, not one a chapter (its notebook stays as it was).
KERNEL_CULLING = {"MappingKernelManager": {"cull_idle_timeout": 1800, "cull_interval": 300}}


def write_configuration(folder, nbgrader_lines, page_config=None, server_config=None):
    """A folder of Jupyter configuration the servers read first (JUPYTER_CONFIG_PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["# Written by classroom/jupyterhub_config.py each time the hub starts.",
             "c = get_config()  # noqa: F821",
             f"c.CourseDirectory.course_id = {COURSE_ID!r}",
             f"c.Exchange.root = {str(EXCHANGE)!r}",
             *nbgrader_lines]
    (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    server_config = {**KERNEL_CULLING, **(server_config or {})}
    (folder / "jupyter_server_config.json").write_text(json.dumps(server_config, indent=1))
    if page_config is not None:
        (folder / "labconfig").mkdir(exist_ok=True)
        (folder / "labconfig" / "page_config.json").write_text(json.dumps(page_config, indent=1))
    return str(folder)


STUDENT_CONFIG = write_configuration(
    DATA / "student-config",
    # A submission is filed under the hub's user name, whatever the system calls the process
    # (outside a server, `*` leaves it to nbgrader: the system's user name).
    ["import os",
     "c.CourseDirectory.student_id = os.environ.get('JUPYTERHUB_USER', '*')"],
    # Students fetch and submit; making and grading assignments is the instructor's.
    page_config={"disabledExtensions": {"@jupyter/nbgrader:formgrader": True,
                                        "@jupyter/nbgrader:create-assignment": True,
                                        "@jupyter/nbgrader:course-list": True}},
    server_config={"ServerApp": {"jpserver_extensions": {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.course_list": False}}},
)
INSTRUCTOR_CONFIG = write_configuration(
    DATA / "instructor-config",
    # The course directory `python3 classroom/build.py ~/course` writes in the instructor's home.
    ["import os",
     "c.CourseDirectory.root = os.path.expanduser('~/course')"],
)

c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH":
        lambda spawner: INSTRUCTOR_CONFIG if spawner.user.name == INSTRUCTOR else STUDENT_CONFIG,
    # `python`, `jupyter` and `nbgrader` in a terminal, and the tools nbgrader runs, are the
    # course environment's.
    "PATH": os.pathsep.join([str(ENVIRONMENT / "bin"), os.environ.get("PATH", os.defpath)]),
}
