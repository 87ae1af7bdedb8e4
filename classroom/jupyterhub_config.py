"""JupyterHub for a class on one machine: one instructor, the students of a list, nbgrader.

Start it as root from the repository's top folder, once the instructor's environment is made
(classroom/requirements.txt, see classroom/README.md) and the proxy installed:

    npm ci --prefix classroom
    .venv-class/bin/jupyterhub -f classroom/jupyterhub_config.py

Every student gets a JupyterLab of their own, run from `.venv-class` (which every student's
account must be able to run: the hub refuses to start otherwise). Students start from the
chapters the instructor releases, which they fetch from nbgrader's "Assignments" tab: the
students' copies, without solutions; the hub never gives them the repository's notebooks,
whose solution cells hold the answers. nbgrader's exchange, a folder every user can write to
with the sticky bit set (as /tmp: nobody can rename or remove what another put there), carries
the releases to the students and their submissions back. Only the instructor sees the
formgrader and the assignment creator.

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
import random
import socket
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub defines get_config in the files it loads)

ROOT = Path(__file__).resolve().parent.parent  # the repository's top folder
CLASSROOM = ROOT / "classroom"
ENVIRONMENT = ROOT / ".venv-class"

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
        raise SystemExit(
            f"the list of students {path} does not exist: write one user name a "
            f"line, or name another file in COURSE_STUDENTS"
        ) from None
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
def everyone_can_run(path):
    """Can every account run the program at `path`: it, and each folder above it, open to
    all? (A Python in root's home, mode 0700, is not.)"""
    path = Path(path).resolve()
    return all(os.stat(p).st_mode & 0o001 for p in [path, *path.parents])


def check_the_environment(environment):
    python = environment / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{environment} is missing: make it first (classroom/README.md)")
    if not everyone_can_run(python):
        raise SystemExit(
            f"the students' servers run {python}, which is {python.resolve()}: a Python the "
            "students' accounts cannot open (a folder on its way is closed to them, such as "
            "root's home). Make the environment again from a Python every account can run, "
            "for example the system's: rm -rf .venv-class && /usr/bin/python3 -m venv "
            ".venv-class && .venv-class/bin/pip install -r classroom/requirements.txt"
        )


check_the_environment(ENVIRONMENT)

# Each user's JupyterLab runs from the instructor's environment, as that user, in their home.
c.Spawner.cmd = [str(ENVIRONMENT / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"  # the Assignments tab (Nbgrader menu) holds the chapters
c.Spawner.http_timeout = 120  # a busy machine starting a whole class at once is slow
c.Spawner.start_timeout = 180


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
    home = getattr(spawner, "home_dir", "")  # a spawner that makes home folders of its own
    if home:
        Path(home).mkdir(parents=True, exist_ok=True)
    give_a_port(spawner)


c.Spawner.pre_spawn_hook = before_each_start

# ------------------------------------------------------------------------------ nbgrader
# The exchange: every user writes into it, and the sticky bit keeps each one's folders their
# own (the course's folder in it is the instructor's: no student can rename or replace it).
# A submission filed under another student's name is refused at collect (classroom/grader.py).
EXCHANGE.mkdir(parents=True, exist_ok=True)
EXCHANGE.chmod(0o1777)
_closed = [f for f in EXCHANGE.parents if not os.stat(f).st_mode & 0o001]
if _closed:  # a hub whose servers all run as one account (a test's) does not mind
    print(
        f"Warning: students' accounts cannot reach the exchange {EXCHANGE}: {_closed[0]} "
        "is closed to them; choose another COURSE_HUB_DATA",
        file=sys.stderr,
    )


# A kernel nobody has used for 30 minutes is shut down, so that a student who opens chapter
# after chapter keeps a few kernels running, not one a chapter (its notebook stays as it was).
KERNEL_CULLING = {"MappingKernelManager": {"cull_idle_timeout": 1800, "cull_interval": 300}}


def write_configuration(folder, nbgrader_lines, page_config=None, server_config=None):
    """A folder of Jupyter configuration the servers read first (JUPYTER_CONFIG_PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Written by classroom/jupyterhub_config.py each time the hub starts.",
        "c = get_config()  # noqa: F821",
        f"c.CourseDirectory.course_id = {COURSE_ID!r}",
        f"c.Exchange.root = {str(EXCHANGE)!r}",
        *nbgrader_lines,
    ]
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
    # (outside a server, `*` leaves it to nbgrader: the system's user name). Filed under a
    # name that is not its owner's, collect refuses it.
    ["import os", "c.CourseDirectory.student_id = os.environ.get('JUPYTERHUB_USER', '*')"],
    # Students fetch and submit; making and grading assignments is the instructor's.
    page_config={
        "disabledExtensions": {
            "@jupyter/nbgrader:formgrader": True,
            "@jupyter/nbgrader:create-assignment": True,
            "@jupyter/nbgrader:course-list": True,
        }
    },
    server_config={
        "ServerApp": {
            "jpserver_extensions": {
                "nbgrader.server_extensions.formgrader": False,
                "nbgrader.server_extensions.course_list": False,
            }
        }
    },
)
INSTRUCTOR_CONFIG = write_configuration(
    DATA / "instructor-config",
    # The course directory `python3 classroom/build.py ~/course` writes in the instructor's home.
    ["import os", "c.CourseDirectory.root = os.path.expanduser('~/course')"],
)

c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": lambda spawner: (
        INSTRUCTOR_CONFIG if spawner.user.name == INSTRUCTOR else STUDENT_CONFIG
    ),
    # `python`, `jupyter` and `nbgrader` in a terminal, and the tools nbgrader runs, are the
    # course environment's.
    "PATH": os.pathsep.join([str(ENVIRONMENT / "bin"), os.environ.get("PATH", os.defpath)]),
}
