"""A class of ten on one machine: classroom/jupyterhub_config.py, run for real.

The test starts a real JupyterHub on 127.0.0.1 from the instructor's environment (`.venv-class`,
see tests/class_environment.py) with the proxy classroom/package.json pins (`npm ci`), loading
classroom/jupyterhub_config.py as an instructor would and changing only what a test machine
needs: a password-only authenticator instead of the system's accounts, a spawner that runs
every server as the test's own user with a home folder under the test's temporary folder
(neither is for a real class), free ports, and an admin token for the test.

Ten students from a list log in through the hub's REST API with their password, start their
servers at once, and each runs chapter 00, every code cell, in a kernel of their own server
through the server's REST API and its kernel websocket: no cell may fail. The test prints the
seconds until all ten servers answered and each student's memory (the resident memory, from
/proc, of their server process and everything it started: the kernel), and checks that it fits
in the memory classroom/zero-to-jupyterhub.yaml guarantees a student.

Then the instructor, in a kernel of their own server, builds the course directory
(classroom/build.py), generates chapter 04 and releases it to nbgrader's exchange; three
students list, fetch and submit it through their servers' Assignments API (what JupyterLab's
Assignments tab calls), one with every answer, one with none and one with all but the first;
the instructor collects and autogrades, and the gradebook gives full marks to the first only
and more to the third than to the second. Only the instructor's server offers the formgrader.

Everything the hub started (proxy, servers, kernels) is stopped at the end, whether the tests
passed or not, and the tests fail if any of it is still running then.

It installs the proxy and, the first time, the instructor's environment, and starts ten
JupyterLab servers, so it runs in CI (`CI=true`) and, on your own computer, only when you ask:
`COURSE_CLASS_HUB=1 .venv/bin/python -m pytest tests/test_classroom_hub.py -s`.
"""

import concurrent.futures
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import class_environment
import nbformat
import pytest
import requests
import websocket
from conftest import IN_CI, skip_or_fail
from test_classroom_helm import guaranteed_bytes

ROOT = Path(__file__).resolve().parent.parent
CLASSROOM = ROOT / "classroom"
CHAPTER_00 = (
    "00_start_here"  # fetched into each student's home, as 00_start_here/00_start_here.ipynb
)
STUDENTS = [f"student{n:02d}" for n in range(1, 11)]
INSTRUCTOR = "teacher"
PASSWORD = "a-test-password"  # the one password the test's authenticator accepts

ASKED_FOR = IN_CI or os.environ.get("COURSE_CLASS_HUB") == "1"
RECONNECTS = 2  # a student's kernel connections lost and opened again, at most
RESTARTS = 1  # a student's kernels lost, and chapter 00 run again from the top, at most
HANDSHAKE_PAUSES = (0.5, 1, 2, 4)  # seconds between tries to open a kernel's socket
ALL_RUNNING_WITHIN = 240  # seconds for ten servers to start on a loaded 2-core machine
CELL_TIMEOUT = 120  # seconds for one cell of chapter 00 while ten kernels share the machine
COMMANDS_TIMEOUT = 600  # seconds for the instructor's nbgrader commands (autograde runs chapter 04)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not ASKED_FOR,
        reason="starts a JupyterHub with ten JupyterLab servers, which takes a minute or two: "
        "set COURSE_CLASS_HUB=1 to run it (CI always does)",
    ),
]


def before_the_tests():
    """Called by conftest once the tests are collected: start making .venv-class then."""
    if ASKED_FOR:
        class_environment.start_building()


# ------------------------------------------------------------------ processes, from /proc


def children_by_parent():
    """{parent pid: [child pids]} for every process this user can see."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                parent = int(stat[stat.rindex(")") + 2 :].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    return children


def with_descendants(pid):
    """`pid` and every process it started, and they started, still running."""
    children, found, todo = children_by_parent(), [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found


def start_time(pid):
    """When `pid` started (clock ticks since boot), or None if it is gone: a pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])


def memory_mib(pid, field):
    """A memory figure of a process, in MiB: from /proc/<pid>/status, VmRSS (resident now) or
    VmHWM (its peak); from /proc/<pid>/smaps_rollup, Pss (resident, each page shared with other
    processes counted as its share)."""
    source = "smaps_rollup" if field == "Pss" else "status"
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/{source}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # /proc's kB are KiB
    return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ the hub


class Hub:
    """A JupyterHub started from classroom/jupyterhub_config.py in `folder`."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin_token = uuid.uuid4().hex
        self.tokens = {}  # user name: the token they got by logging in
        self.process = None
        self.started = {}  # pid: start time, of every process the hub started
        self.log = folder / "jupyterhub.log"
        # The hub's folder (the exchange in it) where every account can reach it, as under /srv
        self.data = Path(tempfile.mkdtemp(prefix="class-hub-"))
        self.data.chmod(0o755)

    def api(self, method, path, token=None, **kwargs):
        headers = {"Authorization": f"token {token or self.admin_token}"}
        return requests.request(
            method, f"{self.url}/hub/api{path}", headers=headers, timeout=60, **kwargs
        )

    def write_configuration(self):
        (self.folder / "students.txt").write_text(
            "# the test's class\n" + "\n".join(STUDENTS) + "\n\n", encoding="utf-8"
        )
        config = self.folder / "jupyterhub_config.py"
        allow_root = ["--allow-root"] if os.geteuid() == 0 else []  # CI runs as root
        config.write_text(
            f"""\
c = get_config()
load_subconfig({str(CLASSROOM / "jupyterhub_config.py")!r})
# For the test only: any listed user with the one password, no system accounts.
c.DummyAuthenticator.password = {PASSWORD!r}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(self.folder / "home" / "{username}")!r}
c.Spawner.args = {allow_root!r}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.JupyterHub.services = [{{"name": "course-test", "api_token": {self.admin_token!r}}}]
c.JupyterHub.load_roles = [{{"name": "admin", "services": ["course-test"]}}]
""",
            encoding="utf-8",
        )
        return config

    def start(self, python):
        config = self.write_configuration()
        env = {
            **os.environ,
            "COURSE_STUDENTS": str(self.folder / "students.txt"),
            "COURSE_INSTRUCTOR": INSTRUCTOR,
            "COURSE_HUB_DATA": str(self.data),
            "COURSE_HUB_BIND_URL": self.url,
            "COURSE_HUB_AUTHENTICATOR": "dummy",
        }
        env.pop("JUPYTER_CONFIG_PATH", None)
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(python.parent / "jupyterhub"), "-f", str(config)],
                cwd=self.folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            self.remember_processes()
            if self.process.poll() is not None:
                raise AssertionError(
                    f"the hub stopped (exit {self.process.returncode}):\n{self.log_tail()}"
                )
            with contextlib.suppress(requests.ConnectionError):
                if self.api("GET", "/").status_code == 200:
                    return
            time.sleep(0.5)
        raise AssertionError(f"the hub did not answer within 90 s:\n{self.log_tail()}")

    def log_tail(self, characters=6000):
        return self.log.read_text(errors="replace")[-characters:]

    def log_about(self, word, lines=20):
        """The last lines of the log (the hub's and every server's) that mention `word`."""
        found = [line for line in self.log.read_text(errors="replace").splitlines() if word in line]
        return "\n".join(found[-lines:])

    def remember_processes(self):
        """Note every process the hub has started so far, to stop it at the end if need be."""
        if self.process is not None:
            for pid in with_descendants(self.process.pid):
                self.started.setdefault(pid, start_time(pid))

    def still_running(self):
        return [
            pid
            for pid, started in self.started.items()
            if started is not None and start_time(pid) == started
        ]

    def stop(self):
        """Stop the hub as an instructor does (it stops every server and the proxy), then end
        whatever is left of what it started. Returns the pids that had to be killed."""
        if self.process is None:
            return []
        self.remember_processes()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=60)
        deadline = time.monotonic() + 10
        while self.still_running() and time.monotonic() < deadline:
            time.sleep(0.2)
        killed = self.still_running()
        for pid in killed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        return killed


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub for the class of the test; stopped at the end of the module."""
    if shutil.which("npm") is None:
        skip_or_fail("no `npm` on PATH, which installs the proxy (Debian: apt-get install npm)")
    python = class_environment.python()
    installed = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=CLASSROOM,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, f"npm ci in classroom/ failed:\n{installed.stderr[-3000:]}"
    running = Hub(tmp_path_factory.mktemp("hub"))
    try:
        running.start(python)
        yield running
    finally:
        killed = running.stop()
        shutil.rmtree(running.data, ignore_errors=True)
        assert not killed, (
            f"processes the hub started were still running after it stopped "
            f"and had to be killed: {killed}\n{running.log_tail()}"
        )


# ------------------------------------------------------------------ a student's server


class KernelGone(Exception):
    """The student's server says it has no such kernel any more (it died, or was shut down)."""


class Server:
    """One student's JupyterLab, reached through the hub's proxy with the student's token."""

    def __init__(self, hub, name, token):
        self.hub, self.name, self.token = hub, name, token
        self.base = f"{hub.url}/user/{name}"
        self.session_id = uuid.uuid4().hex  # JupyterLab's client session, one per page
        self.reconnects = 0
        self.restarts = 0

    def api(self, method, path, **kwargs):
        return requests.request(
            method,
            f"{self.base}{path}",
            timeout=60,
            headers={"Authorization": f"token {self.token}"},
            **kwargs,
        )

    def connect(self, kernel, timeout=CELL_TIMEOUT):
        """A websocket to the kernel's channels, as JupyterLab opens one: with this page's
        session_id, so that while the socket is down Jupyter server keeps the kernel's
        messages for it, and sends them when the same session connects again. `timeout`
        seconds without a message from the kernel fail the test."""
        url = (
            self.base.replace("http://", "ws://")
            + f"/api/kernels/{kernel}/channels?session_id={self.session_id}"
        )
        return websocket.create_connection(
            url, header=[f"Authorization: token {self.token}"], timeout=timeout
        )

    def reconnect(self, kernel, timeout=CELL_TIMEOUT):
        """The socket again, after the server closed it, as JupyterLab reconnects ("Kernel
        connection lost, reconnecting"): at most RECONNECTS times for this student. Where the
        handshake fails, the server is asked whether it still has the kernel: if it says it
        has not, raises KernelGone; else the handshake is tried again after each pause of
        HANDSHAKE_PAUSES."""
        self.reconnects += 1
        assert self.reconnects <= RECONNECTS, (
            f"{self.name}'s kernel connection was lost {self.reconnects} times "
            f"(RECONNECTS = {RECONNECTS})\nthe hub's log:\n{self.hub.log_tail()}"
        )
        tried = []
        for pause in (*HANDSHAKE_PAUSES, None):
            try:
                return self.connect(kernel, timeout)
            except (websocket.WebSocketException, OSError) as refused:
                status = getattr(refused, "status_code", None)
                tried.append(
                    f"handshake {status} {refused.status_message}"
                    if status
                    else f"handshake {type(refused).__name__}: {refused}"
                )
            asked = self.kernel_status(kernel)
            tried.append(f"asked the server for the kernel: {asked}")
            if asked == "404 from the server":
                raise KernelGone(
                    f"{self.name}'s server no longer has kernel {kernel}; tried: "
                    + "; ".join(tried)
                    + f"\nwhat the log says about the kernel:\n{self.hub.log_about(kernel)}"
                )
            if pause is not None:
                time.sleep(pause)
        raise AssertionError(
            f"{self.name} could not open the socket of kernel {kernel} again; tried: "
            + "; ".join(tried)
            + f"\nthe hub's log:\n{self.hub.log_tail()}"
        )

    def kernel_status(self, kernel):
        """What the server answers when asked for the kernel, in a few words. "404 from the
        server" is Jupyter server's own answer that it has no such kernel (JSON naming it);
        the proxy's or the hub's answers (an error page, a redirect to the hub) are not."""
        try:
            answer = self.api("GET", f"/api/kernels/{kernel}", allow_redirects=False)
        except requests.RequestException as failed:
            return f"failed: {type(failed).__name__}"
        if answer.status_code == 404:
            with contextlib.suppress(ValueError):
                if kernel in answer.json().get("message", ""):
                    return "404 from the server"
        return f"{answer.status_code} {answer.reason}"

    def run_notebook(self, path):
        """Run every code cell of the notebook at `path` (in the server's folder) in a new
        kernel started in its folder, as Run All does. Returns [(cell index, error)] and the
        session, which keeps the kernel running until `end(session)`. If the server loses the
        kernel meanwhile, the student does what JupyterLab's "Kernel died" leaves them to: a
        new kernel, and Run All again from the top; at most RESTARTS times."""
        saved = self.api("GET", f"/api/contents/{path}")
        assert saved.status_code == 200, f"{self.name} has no {path}: {saved.status_code}"
        notebook = nbformat.from_dict(saved.json()["content"])
        while True:
            try:
                return self.run_cells(path, notebook)
            except KernelGone as gone:
                self.restarts += 1
                assert self.restarts <= RESTARTS, (
                    f"{self.name}'s kernel was lost {self.restarts} times ({path} run again "
                    f"from the top in a new kernel, RESTARTS = {RESTARTS}): {gone}\n"
                    f"the hub's log:\n{self.hub.log_tail()}"
                )
                print(f"\n{gone}\n{self.name} runs {path} again, in a new kernel")
                self.session_id = uuid.uuid4().hex  # a new kernel, a new connection to it

    def run_cells(self, path, notebook):
        """`run_notebook`'s Run All, once, in a new session."""
        session = self.api(
            "POST",
            "/api/sessions",
            json={
                "path": path,
                "type": "notebook",
                "name": Path(path).name,
                "kernel": {"name": "python3"},
            },
        )
        assert session.status_code == 201, (
            f"{self.name}: POST /api/sessions {session.status_code} {session.text}"
        )
        errors = []
        kernel = session.json()["kernel"]["id"]
        connection = self.connect(kernel)
        try:
            for index, cell in enumerate(notebook.cells):
                if cell.cell_type != "code":
                    continue
                error, _, connection = execute(
                    connection, cell.source, reconnect=lambda: self.reconnect(kernel)
                )
                graded = cell.metadata.get("nbgrader", {}).get("grade")  # no answer: no points
                if error and not graded and "raises-exception" not in cell.metadata.get("tags", []):
                    errors.append((index, error))
        finally:
            connection.close()
        return errors, session.json()["id"]

    def end(self, session):
        assert self.api("DELETE", f"/api/sessions/{session}").status_code == 204

    def run_code(self, code):
        """Run `code` in a new kernel of this server (its environment, its home folder); the
        text it printed. Fails with the error it raised, if it did."""
        kernel = self.api("POST", "/api/kernels", json={"name": "python3"})
        assert kernel.status_code == 201, kernel.text
        connection = self.connect(kernel.json()["id"], timeout=COMMANDS_TIMEOUT)
        try:
            error, printed, connection = execute(connection, code, timeout=COMMANDS_TIMEOUT)
        finally:
            connection.close()
            self.api("DELETE", f"/api/kernels/{kernel.json()['id']}")
        assert error is None, f"in {self.name}'s kernel: {error}\n{printed}"
        return printed


def _message(frame):
    """A kernel message from one websocket frame: text is the message's JSON; a binary frame
    (a message with buffers, such as a widget's) is Jupyter server's layout of it: the number
    of parts n as a 4-byte big-endian integer, n offsets, then the JSON and the buffers."""
    if isinstance(frame, str):
        return json.loads(frame)
    parts = int.from_bytes(frame[:4], "big")
    offsets = [int.from_bytes(frame[4 + 4 * i : 8 + 4 * i], "big") for i in range(parts)]
    end = offsets[1] if parts > 1 else len(frame)
    return json.loads(bytes(frame[offsets[0] : end]).decode("utf-8"))


def execute(connection, code, reconnect=None, timeout=CELL_TIMEOUT):
    """Run `code` in the kernel behind the websocket `connection`, wait until the kernel is
    idle again, and return its error ("Name: message") or None, the text it printed, and the
    connection. Where the server closes the socket meanwhile, `reconnect()` (if given) opens
    it again and the wait goes on: the server sends what the kernel said in between. A kernel
    the server reports dead raises KernelGone; no answer within `timeout` seconds fails (the
    server's pings, every 30 s, would otherwise keep a socket's own timeout from running out)."""
    msg_id = uuid.uuid4().hex
    connection.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "",
                    "session": uuid.uuid4().hex,
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "buffers": [],
                "channel": "shell",
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
            }
        )
    )
    error, printed, replied, idle = None, [], False, False
    deadline = time.monotonic() + timeout
    while not (replied and idle):
        assert time.monotonic() < deadline, (
            f"the kernel did not finish within {timeout} s, running:\n{code[:300]}"
        )
        try:
            opcode, frame = connection.recv_data(control_frame=True)  # a ping returns too
        except websocket.WebSocketConnectionClosedException:
            if reconnect is None:
                raise
            connection = reconnect()
            continue
        if opcode not in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
            continue
        message = _message(frame.decode("utf-8") if opcode == websocket.ABNF.OPCODE_TEXT else frame)
        kind = message.get("msg_type")
        if kind == "status" and message["content"].get("execution_state") == "dead":
            raise KernelGone(f"the server reports the kernel dead, running:\n{code[:300]}")
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if kind == "stream":
            printed.append(message["content"]["text"])
        elif kind == "error":
            error = f"{message['content']['ename']}: {message['content']['evalue']}"
        elif kind == "execute_reply":
            replied = True
            if message["content"]["status"] == "error" and error is None:
                error = f"{message['content'].get('ename')}: {message['content'].get('evalue')}"
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            idle = True
    return error, "".join(printed), connection


def log_in(hub, name, password=PASSWORD):
    """Log `name` in through the hub's REST API with a password; the token it gives back."""
    answer = requests.post(
        f"{hub.url}/hub/api/users/{name}/tokens",
        timeout=60,
        json={"auth": {"username": name, "password": password}, "note": "the class test"},
    )
    return answer.status_code, (answer.json().get("token") if answer.ok else None)


def running_servers(hub, names):
    """The servers of `names`, each logged in and started first if need be, all at once."""
    for name in names:
        if name not in hub.tokens:
            status, hub.tokens[name] = log_in(hub, name)
            assert status == 201, f"{name} could not log in ({status})"

    def start(name):
        token = hub.tokens[name]
        if not (hub.api("GET", f"/users/{name}", token=token).json()["servers"].get("") or {}).get(
            "ready"
        ):
            answer = hub.api("POST", f"/users/{name}/server", token=token)
            assert answer.status_code in (201, 202), f"{name}: {answer.status_code} {answer.text}"
            wait_until_running(hub, name, token, time.monotonic() + ALL_RUNNING_WITHIN)
        return Server(hub, name, token)

    with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
        servers = list(pool.map(start, names))
    hub.remember_processes()
    return servers


def wait_until_running(hub, name, token, deadline):
    """Wait until the hub says `name`'s server is ready and it answers through the proxy (the
    hub adds its route a moment after it calls it ready)."""
    status = f"{hub.url}/user/{name}/api/status"
    while time.monotonic() < deadline:
        server = hub.api("GET", f"/users/{name}", token=token).json()["servers"].get("")
        if (
            server
            and server["ready"]
            and requests.get(
                status, headers={"Authorization": f"token {token}"}, timeout=60
            ).status_code
            == 200
        ):
            return
        time.sleep(0.5)
    raise AssertionError(f"{name}'s server did not start in time:\n{hub.log_tail()}")


# ------------------------------------------------------------------ the tests


def test_only_the_listed_students_with_the_password_log_in(hub):
    assert log_in(hub, "student01", "a-wrong-password")[0] == 403
    assert log_in(hub, "somebody-not-on-the-list")[0] == 403


def test_ten_students_start_their_servers_at_once_and_each_runs_chapter_00(hub, released):
    tokens = hub.tokens
    for name in STUDENTS:
        status, tokens[name] = log_in(hub, name)
        assert status == 201 and tokens[name], f"{name} could not log in ({status})"

    # All ten ask at once (the hub answers a request when the server is up, or after 10 s).
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(STUDENTS)) as pool:
        answers = pool.map(
            lambda name: hub.api("POST", f"/users/{name}/server", token=tokens[name]), STUDENTS
        )
        for name, answer in zip(STUDENTS, answers):
            assert answer.status_code in (201, 202), f"{name}: {answer.status_code} {answer.text}"
    deadline = started + ALL_RUNNING_WITHIN
    for name in STUDENTS:
        wait_until_running(hub, name, tokens[name], deadline)
    servers = [Server(hub, name, tokens[name]) for name in STUDENTS]
    seconds_to_all_running = time.monotonic() - started
    hub.remember_processes()

    for server in servers:  # from the Assignments tab: the students' copy the instructor released
        assert (CHAPTER_00, "fetched") in assignment_action(server, "fetch", CHAPTER_00)
    path = f"{CHAPTER_00}/{CHAPTER_00}.ipynb"
    with concurrent.futures.ThreadPoolExecutor(len(servers)) as pool:
        runs = dict(zip(STUDENTS, pool.map(lambda s: s.run_notebook(path), servers)))
    seconds_to_all_run = time.monotonic() - started
    failed = {name: errors for name, (errors, _) in runs.items() if errors}
    assert not failed, f"chapter 00 failed in some students' kernels: {failed}"

    # Each student's memory: their server process and everything it started (the kernel).
    rows = []
    for name in STUDENTS:
        pid = hub.api("GET", f"/users/{name}").json()["servers"][""]["state"]["pid"]
        started_by_server = with_descendants(pid)[1:]
        assert started_by_server, f"{name}'s kernel is not running under their server"
        server_mib = memory_mib(pid, "VmRSS")
        kernel_mib = sum(memory_mib(p, "VmRSS") for p in started_by_server)
        peak_mib = sum(memory_mib(p, "VmHWM") for p in [pid, *started_by_server])
        shared_mib = sum(memory_mib(p, "Pss") for p in [pid, *started_by_server])
        rows.append((name, server_mib, kernel_mib, server_mib + kernel_mib, peak_mib, shared_mib))
    for server in servers:
        server.end(runs[server.name][1])
    print(
        f"\n{len(STUDENTS)} students logged in; all servers running after "
        f"{seconds_to_all_running:.1f} s; chapter 00 run in each after {seconds_to_all_run:.1f} s; "
        f"kernel connections lost and opened again: {sum(s.reconnects for s in servers)}; "
        f"kernels lost and chapter 00 run again: {sum(s.restarts for s in servers)}"
    )
    print(
        "Resident memory (RSS) in MiB. peak: each process's own peak, added up; "
        "pss: both, with the pages the servers share counted as each one's share"
    )
    columns = ("student", "server", "kernel", "both", "peak", "pss")
    print("".join(f"{title:>10}" for title in columns))
    for row in rows:
        print(f"{row[0]:>10}" + "".join(f"{mb:>10.0f}" for mb in row[1:]))
    for label, combine in (("mean", lambda xs: sum(xs) / len(xs)), ("largest", max)):
        print(
            f"{label:>10}"
            + "".join(f"{combine([row[i] for row in rows]):>10.0f}" for i in range(1, 6))
        )
    # What Kubernetes guarantees each student (classroom/zero-to-jupyterhub.yaml) covers this.
    guarantee = guaranteed_bytes() / 2**20
    over = [row[0] for row in rows if row[3] > guarantee]
    assert not over, f"{over} used more than the {guarantee:.0f} MiB the Helm values guarantee"


# ------------------------------------------------------------------ nbgrader through the hub

ASSIGNMENT = "04_activations"
COURSE_ID = "autograd-from-scratch"  # classroom/jupyterhub_config.py's and build.py's default

# Run by the instructor, in a kernel of their own server (their home, their configuration).
INSTRUCTOR_RUNS = """
import json, subprocess, sys
from pathlib import Path

course = Path.home() / "course"
nbgrader = str(Path(sys.executable).parent / "nbgrader")

def run(*command, cwd=course):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    print("$", *command[1:], "-> exit", done.returncode)
    if done.returncode != 0:
        raise RuntimeError(done.stdout[-3000:] + done.stderr[-3000:])
"""
RELEASE = """
if not course.exists():
    run(sys.executable, {build!r}, str(course), cwd=Path.home())
run(nbgrader, "generate_assignment", {assignment!r})
run(nbgrader, "release_assignment", {assignment!r})
"""
COLLECT_AND_GRADE = """
run(nbgrader, "collect", {assignment!r})
run(nbgrader, "autograde", {assignment!r})
from nbgrader.api import Gradebook
with Gradebook("sqlite:///" + str(course / "gradebook.db")) as gradebook:
    assignment = gradebook.find_assignment({assignment!r})
    scores = {{s.student.id: s.score for s in assignment.submissions}}
    print("GRADEBOOK", json.dumps({{"max": assignment.max_score, "scores": scores}}))
"""


@pytest.fixture(scope="module")
def released(hub):
    """The instructor, in a kernel of their own server, builds the course directory in their
    home (classroom/build.py) and releases chapters 00 and 04; what their commands printed."""
    if not (CLASSROOM / "build.py").is_file():
        skip_or_fail("classroom/build.py, which writes the course directory, is missing")
    (teacher,) = running_servers(hub, [INSTRUCTOR])
    return teacher.run_code(
        INSTRUCTOR_RUNS
        + "".join(
            RELEASE.format(build=str(CLASSROOM / "build.py"), assignment=a)
            for a in (CHAPTER_00, ASSIGNMENT)
        )
    )


def test_no_student_finds_a_solution_in_their_home(hub, released):
    """Students start from the released copies: neither the repository's notebooks (whose
    `%%solution` cells hold the answers) nor the course directory's sources reach them."""
    students = running_servers(hub, STUDENTS[:2])
    for student in students:
        assert (CHAPTER_00, "fetched") in assignment_action(student, "fetch", CHAPTER_00)
        home = hub.folder / "home" / student.name
        notebooks = list(home.rglob("*.ipynb"))
        assert notebooks, f"{student.name} has fetched nothing"
        found = [str(p) for p in notebooks if solution_cells(p)]
        assert found == [], f"{student.name} has solutions in {found}"
        assert not [
            p
            for p in home.rglob("*")
            if p.is_file() and "BEGIN SOLUTION" in p.read_text(errors="replace")
        ]
    # and the check can fail: the repository's chapter holds them
    assert solution_cells(ROOT / "notebooks" / f"{CHAPTER_00}.ipynb")


def solution_cells(path):
    """The code cells of the notebook at `path` that are a `%%solution` cell."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [
        c
        for c in notebook["cells"]
        if c["cell_type"] == "code" and "".join(c["source"]).lstrip().startswith("%%solution")
    ]


def without_solution_markers(text):
    return "\n".join(
        line
        for line in text.splitlines()
        if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")
    )


def assignment_action(server, action, assignment=ASSIGNMENT):
    """What the Assignments tab of a student's JupyterLab does: list, fetch or submit."""
    arguments = {"course_id": COURSE_ID, "assignment_id": assignment}
    if action == "list":
        answer = server.api("GET", "/assignments", params={"course_id": COURSE_ID})
    else:
        answer = server.api("POST", f"/assignments/{action}", params=arguments)
    assert answer.status_code == 200, f"{server.name} {action}: {answer.status_code} {answer.text}"
    listing = answer.json()
    assert listing.get("success"), f"{server.name} {action}: {listing}"
    return {(item["assignment_id"], item["status"]) for item in listing["value"]}


def test_the_instructor_releases_chapter_04_three_students_submit_and_it_is_graded(hub, released):
    teacher, *students = running_servers(hub, [INSTRUCTOR, *STUDENTS[:3]])
    # Only the instructor has the formgrader; students have the assignment list.
    assert teacher.api("GET", "/formgrader").status_code == 200
    assert students[0].api("GET", "/formgrader").status_code == 404
    printed = released
    source = teacher.api("GET", f"/api/contents/course/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    assert source.status_code == 200, f"the build wrote no {ASSIGNMENT}:\n{printed}"
    solutions = {
        cell["metadata"]["nbgrader"]["grade_id"]: cell["source"]
        for cell in source.json()["content"]["cells"]
        if cell["metadata"].get("nbgrader", {}).get("solution")
    }
    assert solutions, f"{ASSIGNMENT} has no answer cells"

    # student01 answers every exercise, student02 none, student03 all but the first.
    answered = {
        students[0].name: list(solutions),
        students[1].name: [],
        students[2].name: list(solutions)[1:],
    }
    for student in students:
        assert (ASSIGNMENT, "released") in assignment_action(student, "list")
        assert (ASSIGNMENT, "fetched") in assignment_action(student, "fetch")
        path = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"  # where nbgrader puts it, in their home
        fetched = student.api("GET", f"/api/contents/{path}")
        assert fetched.status_code == 200, f"{student.name} has no {path} after fetching"
        notebook = fetched.json()["content"]
        assert "BEGIN SOLUTION" not in json.dumps(notebook), "a solution reached a student"
        for cell in notebook["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if grade_id in answered[student.name]:
                cell["source"] = without_solution_markers(solutions[grade_id])
        saved = student.api(
            "PUT",
            f"/api/contents/{path}",
            json={"type": "notebook", "format": "json", "content": notebook},
        )
        assert saved.status_code == 200, saved.text
        assert (ASSIGNMENT, "submitted") in assignment_action(student, "submit")

    printed = teacher.run_code(INSTRUCTOR_RUNS + COLLECT_AND_GRADE.format(assignment=ASSIGNMENT))
    gradebook = json.loads(printed.split("GRADEBOOK ", 1)[1])
    scores, total = gradebook["scores"], gradebook["max"]
    print(f"\n{ASSIGNMENT} released by {INSTRUCTOR}, submitted by three students, autograded:")
    for name in answered:
        print(
            f"{name:>10}  {len(answered[name])} of {len(solutions)} answers  "
            f"{scores.get(name)} of {total} points"
        )
    assert sorted(scores) == sorted(answered), f"the gradebook has {sorted(scores)}"
    assert scores[students[0].name] == total > 0, "every answer right is full marks"
    assert scores[students[1].name] < scores[students[2].name] < total


# ------------------------------------------------------------------ the exchange, as students
# The hub of this test runs every server as the test's own account, so what one student can do
# to another's files is tried with two real accounts of the machine's (made for the test and
# removed after it; only root can), using nbgrader's own commands on the hub's exchange.

PAIR = ("agfs-test-ada", "agfs-test-alan")
TAKE_THE_COURSE = """
import os, sys
course = os.path.join(sys.argv[1], sys.argv[2])
try:
    os.rename(course, course + "-mine")
    print("RENAMED")
except OSError as error:
    print("REFUSED", type(error).__name__)
"""


@pytest.fixture(scope="module")
def two_accounts(hub):
    """Two accounts of the machine's, each with a home folder of its own: {name: home}."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("making the machine's accounts needs root and useradd (CI runs as root)")
    homes = {}
    try:
        for name in PAIR:
            subprocess.run(
                ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                check=True,
                capture_output=True,
            )
            home = hub.data / "homes" / name
            home.mkdir(parents=True)
            entry = pwd.getpwnam(name)
            os.chown(home, entry.pw_uid, entry.pw_gid)
            homes[name] = home
        yield homes
    finally:
        for name in PAIR:
            subprocess.run(["userdel", name], capture_output=True)


def as_student(name, home, *command):
    """Run `command` as the account `name`, in its home folder, with the class environment's
    tools first on PATH; what it printed."""
    entry = pwd.getpwnam(name)
    env = {
        "PATH": f"{class_environment.VENV / 'bin'}:{os.environ['PATH']}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={entry.pw_uid}",
            f"--regid={entry.pw_gid}",
            "--clear-groups",
            "--",
            *map(str, command),
        ],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMANDS_TIMEOUT,
    )
    return done.returncode, done.stdout + done.stderr


def test_no_student_can_take_the_exchange_or_submit_as_another(hub, released, two_accounts):
    exchange = hub.data / "exchange"
    assert exchange.stat().st_mode & 0o7777 == 0o1777, "the exchange has the sticky bit"
    ada, alan = PAIR
    exchange_options = [f"--Exchange.root={exchange}", f"--course={COURSE_ID}"]
    # ada tries to rename the instructor's course folder, to put her own in its place
    code, said = as_student(
        ada,
        two_accounts[ada],
        class_environment.VENV / "bin" / "python",
        "-c",
        TAKE_THE_COURSE,
        exchange,
        COURSE_ID,
    )
    assert "REFUSED PermissionError" in said, said
    assert (exchange / COURSE_ID).is_dir()
    # alan submits his own; then ada submits hers under alan's name
    for name, filed_as in ((alan, alan), (ada, alan)):
        for step in (["fetch_assignment", ASSIGNMENT], ["submit", ASSIGNMENT]):
            code, said = as_student(
                name,
                two_accounts[name],
                "nbgrader",
                *step,
                *exchange_options,
                f"--CourseDirectory.student_id={filed_as}",
            )
            assert code == 0, f"{name}: nbgrader {step[0]}:\n{said}"
    inbound = sorted(
        p.name
        for p in (exchange / COURSE_ID / "inbound").iterdir()
        if p.name.startswith(f"{alan}+{ASSIGNMENT}")
    )
    assert len(inbound) == 2, inbound  # both filed under alan's name
    # the instructor collects: alan's own submission is collected, ada's refused and listed
    course = hub.folder / "home" / INSTRUCTOR / "course"
    done = subprocess.run(
        ["nbgrader", "collect", ASSIGNMENT, *exchange_options],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=COMMANDS_TIMEOUT,
        env={**os.environ, "PATH": f"{class_environment.VENV / 'bin'}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"belongs to {ada}, so it was not collected" in done.stdout + done.stderr
    refused = (course / "refused.csv").read_text()
    assert f"{ASSIGNMENT},{alan},{ada}," in refused
    (his,) = [
        name
        for name in inbound
        if pwd.getpwuid((exchange / COURSE_ID / "inbound" / name).stat().st_uid).pw_name == alan
    ]
    collected = course / "submitted" / alan / ASSIGNMENT
    assert (collected / "timestamp.txt").read_text().strip() in his, "alan's own was collected"
