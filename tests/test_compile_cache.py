"""The cache of the C backend keeps its promises (see the docstring of autograd/compile/build.py).

A cached library is machine code that the process runs: a damaged one must not kill Python,
and one that another user, or another program, left under the expected name must not run.
Each test here damages or plants a library and checks that the numbers are still the
engine's, with one warning that says what happened. A library that could crash the process
is loaded in a child process, whose return code says whether a signal killed it.
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import pytest
from conftest import skip_or_fail

import autograd
from autograd.compile import CacheWarning, build, c_compiler, compile_loss
from autograd.engine import Value

ROOT = Path(autograd.__file__).resolve().parent.parent
OTHER_UID = 65534  # "nobody" on most systems: a user that is not us
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

FUNCTION = "lambda p, x: (p[0] * x[0]).tanh() * p[1] + p[0] ** 2 + (p[1] / x[0]).exp()"
fn = eval(FUNCTION)
PARAMS, INPUTS = [0.5, 2.0], [1.5]

CHILD = textwrap.dedent(f"""
    import json, warnings
    from autograd.compile import compile_loss
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = compile_loss({FUNCTION}, {PARAMS}, {INPUTS}, backend="c")
        loss, grads = step({PARAMS}, {INPUTS})
    print(json.dumps({{"backend": step.backend, "loss": loss, "grads": grads,
                      "warnings": [[w.category.__name__, str(w.message)] for w in caught]}}))
""")


def engine():
    ps, xs = [Value(p) for p in PARAMS], [Value(x) for x in INPUTS]
    root = fn(ps, xs)
    root.backward()
    return root.data, [p.grad for p in ps]


@pytest.fixture(scope="module")
def compiler():
    from conftest import skip_or_fail

    path = c_compiler()
    if path is None:
        skip_or_fail("no C compiler (cc, gcc or clang) on the PATH: the C backend cannot be tested")
    return path


@pytest.fixture(scope="module")
def pristine(compiler, tmp_path_factory):
    """A cache folder holding the library of `fn`, built once for all the tests."""
    root = tmp_path_factory.mktemp("pristine")
    with cache_at(root):
        step = compile_loss(fn, PARAMS, INPUTS, backend="c")
    assert step.backend == "c"
    return root


@pytest.fixture(scope="module")
def forty_two(compiler, tmp_path_factory):
    """The bytes of a library whose loss_and_grads gives a loss of 42.0 and gradients of 0."""
    work = tmp_path_factory.mktemp("forty-two")
    (work / "evil.c").write_text(
        "int loss_and_grads(const double *p, const double *x, double *out) {\n"
        "    out[0] = 42.0; out[1] = 0.0; out[2] = 0.0; return 0;\n}\n"
    )
    (work / "other.c").write_text("int another_function(void) { return 0; }\n")
    for name in ("evil", "other"):
        subprocess.run(
            [compiler, "-shared", "-fPIC", "-o", str(work / f"{name}.so"), str(work / f"{name}.c")],
            check=True,
            timeout=120,
        )
    return (work / "evil.so").read_bytes(), (work / "other.so").read_bytes()


class cache_at:
    """AUTOGRAD_CACHE set to `root` inside a `with` block."""

    def __init__(self, root):
        self.root = root

    def __enter__(self):
        self.saved = os.environ.get("AUTOGRAD_CACHE")
        os.environ["AUTOGRAD_CACHE"] = str(self.root)

    def __exit__(self, *exc):
        if self.saved is None:
            del os.environ["AUTOGRAD_CACHE"]
        else:
            os.environ["AUTOGRAD_CACHE"] = self.saved


def copy_cache(pristine, to):
    shutil.copytree(pristine, to)
    libraries = sorted((to / "c").glob("loss-*.so")) + sorted((to / "c").glob("loss-*.dll"))
    assert len(libraries) == 1, libraries
    return libraries[0]


def plant(library, contents):
    """Put `contents` in place of `library`, and in every other file of its folder (the
    record of its hash, whatever form it takes) the hash of `contents` in place of the
    library's: what someone who can write in the folder can do."""
    old = hashlib.sha256(library.read_bytes()).hexdigest()
    new = hashlib.sha256(contents).hexdigest()
    library.write_bytes(contents)
    for f in library.parent.iterdir():
        if f.is_file() and f != library:
            f.write_bytes(f.read_bytes().replace(old.encode(), new.encode()))


def reachable_by_all(path, bits=0o005):
    """Whether every user may read and run `path` (`bits` of its mode for others: 0o004 to
    read) and search every folder above it."""
    path = Path(path).resolve()
    return path.stat().st_mode & bits == bits and all(
        p.stat().st_mode & 0o001 for p in path.parents
    )


def interpreter_for_all():
    """A Python that another user may run: this one, or python3 on the PATH, or None."""
    on_path = [
        shutil.which("python3", path=folder)
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder
    ]
    for candidate in (sys.executable, *on_path):
        if candidate and reachable_by_all(candidate):
            return candidate
    return None


def run_child(root, *, user=None, script=CHILD, timeout=300):
    env = dict(os.environ, AUTOGRAD_CACHE=str(root), PYTHONPATH=str(ROOT))
    preexec, python = None, sys.executable
    if user is not None:
        env["HOME"] = env["TMPDIR"] = str(root.parent)
        python = interpreter_for_all()

        def preexec():
            os.setgid(user)
            os.setuid(user)

    done = subprocess.run(
        [python, "-c", script],
        env=env,
        cwd=str(root.parent),
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec,
    )
    assert done.returncode >= 0, (
        f"the child process was killed by signal {-done.returncode} loading the cache: "
        f"{done.stderr[-2000:]}"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def compile_here(root):
    """(the compiled loss, the warnings it gave) with the cache at `root`, in this process."""
    with cache_at(root), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = compile_loss(fn, PARAMS, INPUTS, backend="c")
    return step, [(w.category, str(w.message)) for w in caught]


def assert_engines_numbers(backend, loss, grads):
    assert backend == "c"
    assert loss != 42.0
    assert (loss, list(grads)) == engine()


# --------------------------------------------------------------------- a damaged library


def truncated(data, _):
    return data[: len(data) // 2]


def zeroed(data, _):
    return bytes(len(data))


def corrupted(data, _):
    middle = len(data) // 2
    flipped = bytes(b ^ 0xFF for b in data[middle : middle + 4096])
    return data[:middle] + flipped + data[middle + 4096 :]


def foreign(_, libraries):
    return libraries[0]  # another program's library, whose loss is 42.0


def no_entry_point(_, libraries):
    return libraries[1]  # a valid library without loss_and_grads


@pytest.mark.parametrize("damage", [truncated, zeroed, corrupted, foreign, no_entry_point])
def test_a_damaged_library_is_rebuilt_with_one_warning_and_never_kills_python(
    pristine, forty_two, tmp_path, damage
):
    library = copy_cache(pristine, tmp_path / "cache")
    library.write_bytes(damage(library.read_bytes(), forty_two))
    seen = run_child(tmp_path / "cache")
    assert_engines_numbers(seen["backend"], seen["loss"], seen["grads"])
    assert len(seen["warnings"]) == 1, seen["warnings"]
    category, message = seen["warnings"][0]
    assert category == CacheWarning.__name__, message  # never NoCompilerWarning
    assert library.name in message and "again" in message, message
    # rebuilt where it was: the next process loads it without a word
    step, caught = compile_here(tmp_path / "cache")
    assert caught == [] and step.backend == "c"
    assert_engines_numbers(step.backend, *step(PARAMS, INPUTS))


TWICE = textwrap.dedent(f"""
    import glob, json, os, warnings
    from autograd.compile import compile_loss
    first = compile_loss({FUNCTION}, {PARAMS}, {INPUTS}, backend="c")
    [library] = glob.glob(os.path.join(os.environ["AUTOGRAD_CACHE"], "c", "loss-*"))
    with open(library, "r+b") as f:  # cut in half, in place, while this process has it loaded
        f.truncate(os.path.getsize(library) // 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = compile_loss({FUNCTION}, {PARAMS}, {INPUTS}, backend="c")
    loss, grads = again({PARAMS}, {INPUTS})
    assert first({PARAMS}, {INPUTS}) == (loss, grads)
    print(json.dumps({{"backend": again.backend, "loss": loss, "grads": grads,
                      "warnings": [[w.category.__name__, str(w.message)] for w in caught]}}))
""")


def test_a_library_damaged_while_loaded_is_rebuilt_and_the_process_lives_on(compiler, tmp_path):
    seen = run_child(tmp_path / "cache", script=TWICE)
    assert_engines_numbers(seen["backend"], seen["loss"], seen["grads"])
    assert len(seen["warnings"]) == 1 and "again" in seen["warnings"][0][1], seen["warnings"]


def test_the_copies_a_killed_process_loaded_are_removed_by_the_next(compiler, tmp_path):
    """Each process loads copies of the libraries from a folder of its own in the cache,
    which it removes at exit; one that could not (killed) leaves it to the next process."""
    quit_at_once = CHILD.replace("print(json.dumps(", "import os; os._exit(0); print((")
    subprocess.run(
        [sys.executable, "-c", quit_at_once],
        check=True,
        timeout=300,
        env=dict(os.environ, AUTOGRAD_CACHE=str(tmp_path), PYTHONPATH=str(ROOT)),
    )
    left = {p.name for p in (tmp_path / "c").iterdir()}
    assert any(name.startswith("run-") for name in left), left
    step, caught = compile_here(tmp_path)
    assert caught == [] and step.backend == "c"
    now = {p.name for p in (tmp_path / "c").iterdir()}
    assert not {name for name in left if name.startswith("run-")} & now, now


# --------------------------------------------------------------------- who may write the cache


def modes(top):
    return {str(p.relative_to(top)): stat.S_IMODE(p.stat().st_mode) for p in [top, *top.rglob("*")]}


def test_under_umask_002_the_cache_folders_are_0700_and_its_files_0600(
    compiler, tmp_path, monkeypatch
):
    monkeypatch.delenv("AUTOGRAD_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    old = os.umask(0o002)
    try:
        step = compile_loss(fn, PARAMS, INPUTS, backend="c")
    finally:
        os.umask(old)
    assert step.backend == "c"
    found = modes(tmp_path / "xdg")
    assert any(name.endswith((".so", ".dll")) for name in found), found
    for name, mode in found.items():
        want = 0o700 if (tmp_path / "xdg" / name).is_dir() else 0o600
        assert mode == want, (name, oct(mode), found)


def other_owner(path):
    if not AS_ROOT:
        skip_or_fail("only root can give a folder to another user")
    for p in [path, *path.rglob("*")]:
        os.chown(p, OTHER_UID, OTHER_UID)


def make_writable_by(bits):
    def change(path):
        path.chmod(0o700 | bits)

    return change


@pytest.mark.parametrize(
    "wrong",
    [other_owner, make_writable_by(0o020), make_writable_by(0o002)],
    ids=["another-owner", "group-writable", "world-writable"],
)
def test_a_library_planted_in_a_folder_we_cannot_trust_is_not_loaded(
    pristine, forty_two, tmp_path, wrong
):
    library = copy_cache(pristine, tmp_path / "cache")
    plant(library, forty_two[0])
    before = modes(library.parent)
    wrong(library.parent)
    old = os.umask(0o002)
    try:
        step, caught = compile_here(tmp_path / "cache")
    finally:
        os.umask(old)
    assert_engines_numbers(step.backend, *step(PARAMS, INPUTS))
    assert len(caught) == 1, caught
    assert str(library.parent) in caught[0][1], caught
    assert sorted(modes(library.parent)) == sorted(before)  # nothing written there


def file_of_another_owner(path):
    if not AS_ROOT:
        skip_or_fail("only root can give a file to another user")
    os.chown(path, OTHER_UID, OTHER_UID)


def file_writable_by_others(path):
    path.chmod(0o666)


@pytest.mark.parametrize("wrong", [file_of_another_owner, file_writable_by_others])
def test_a_library_file_we_cannot_trust_is_not_loaded(pristine, forty_two, tmp_path, wrong):
    library = copy_cache(pristine, tmp_path / "cache")
    plant(library, forty_two[0])
    for f in library.parent.iterdir():
        wrong(f)
    step, caught = compile_here(tmp_path / "cache")
    assert_engines_numbers(step.backend, *step(PARAMS, INPUTS))
    assert len(caught) == 1 and library.name in caught[0][1], caught


def test_a_user_refuses_a_cache_that_another_user_planted(pristine, forty_two, tmp_path):
    if not AS_ROOT or not hasattr(os, "setuid"):
        skip_or_fail("only root can run a child process as another user")
    package = ROOT / "autograd" / "__init__.py"
    if interpreter_for_all() is None or not reachable_by_all(package, 0o004):
        # A plain skip, not skip_or_fail: nothing is missing; whether another user may run
        # this Python and this checkout depends on the folders they lie in (a checkout under
        # /root is out of another user's reach), which CI does not choose.
        pytest.skip("no Python, or no autograd, that another user may run")
    shared = Path(tempfile.mkdtemp())  # a folder both users can reach, as under /tmp
    try:
        library = copy_cache(pristine, shared / "cache")
        plant(library, forty_two[0])
        shared.chmod(0o777 | stat.S_ISVTX)
        (shared / "cache").chmod(0o755)
        seen = run_child(shared / "cache", user=OTHER_UID)
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    assert_engines_numbers(seen["backend"], seen["loss"], seen["grads"])
    assert len(seen["warnings"]) == 1 and "owned by" in seen["warnings"][0][1], seen["warnings"]


# --------------------------------------------------------------------- the key and the writes


def test_another_compiler_under_the_same_name_builds_its_own_library(compiler, tmp_path):
    wrapper = tmp_path / "mycc"

    def version(text):
        wrapper.write_text(
            f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "{text}"; '
            f'exit 0; fi\nexec "{compiler}" "$@"\n'
        )
        wrapper.chmod(0o755)

    saved = os.environ.get("CC")
    os.environ["CC"] = str(wrapper)
    try:
        version("mycc 1.0")
        first, _ = compile_here(tmp_path / "cache")
        version("mycc 2.0, which writes other machine code")
        second, _ = compile_here(tmp_path / "cache")
    finally:
        if saved is None:
            del os.environ["CC"]
        else:
            os.environ["CC"] = saved
    assert first.backend == second.backend == "c"
    assert len(list((tmp_path / "cache").rglob("loss-*"))) == 2


@pytest.mark.parametrize(
    "text, has",
    [
        ("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n", True),
        ("processor\t: 0\nflags\t\t: fpu sse2 avx fma\n", False),
        ("processor\t: 0\nflags\t\t: fpu sse2 avx2_whatever\n", False),  # a word, not a part
        ("processor\t: 0\nmodel name\t: avx2 in a name\n", False),  # only the flags line
    ],
    ids=["avx2", "no-avx2", "a-longer-word", "not-the-flags-line"],
)
def test_has_avx2_reads_the_processors_flags(tmp_path, text, has):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    assert build.has_avx2(str(cpuinfo)) is has
    assert build.has_avx2(str(tmp_path / "missing")) is False


@pytest.mark.parametrize("avx2", [True, False])
def test_the_avx2_flag_goes_to_gcc_and_clang_only_where_the_processor_has_it(avx2, monkeypatch):
    monkeypatch.setattr(build, "has_avx2", lambda: avx2)
    gcc = "gcc (Debian 12.2.0) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc."
    clang = "Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu"
    for identity in (gcc, clang):
        assert ("-mavx2" in build.compiler_flags(identity, 2)) is avx2
    assert "-mavx2" not in build.compiler_flags("tcc version 0.9.27", 2)  # another compiler


def test_a_processor_without_avx2_builds_its_own_library(compiler, tmp_path, monkeypatch):
    """`-mavx2` is in the library's name: a cache shared with a processor that has AVX2 never
    gives its library to one that has not, which would stop at its first AVX2 instruction."""
    names = []
    for avx2 in (True, False):
        monkeypatch.setattr(build, "has_avx2", lambda: avx2)
        step, caught = compile_here(tmp_path / "cache")
        assert step.backend == "c" and not caught
        assert_engines_numbers(step.backend, *step(PARAMS, INPUTS))
        names.append(sorted(p.name for p in (tmp_path / "cache").rglob("loss-*.so")))
    assert len(names[0]) == 1 and len(names[1]) == 2


def test_two_processes_building_into_one_cache_at_once_both_get_the_library(compiler, tmp_path):
    env = dict(os.environ, AUTOGRAD_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-2000:]
        seen = json.loads(out.strip().splitlines()[-1])
        assert_engines_numbers(seen["backend"], seen["loss"], seen["grads"])
        assert seen["warnings"] == []
    assert len(list((tmp_path / "cache").rglob("loss-*"))) == 1


def test_an_interrupted_build_leaves_no_library_under_the_final_name(compiler, tmp_path):
    """A compiler that dies half-way through writing its output (as on Ctrl-C, or a full
    disk) leaves nothing the next process could load."""
    broken = tmp_path / "halfcc"
    broken.write_text(
        '#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then '
        'head -c 5000 /dev/urandom > "$2"; fi; shift; done\nexit 1\n'
    )
    broken.chmod(0o755)
    saved = os.environ.get("CC")
    os.environ["CC"] = str(broken)
    try:
        step, caught = compile_here(tmp_path / "cache")
    finally:
        if saved is None:
            del os.environ["CC"]
        else:
            os.environ["CC"] = saved
    assert step.backend == "python" and len(caught) == 1
    assert list((tmp_path / "cache").rglob("*")) in ([], [tmp_path / "cache" / "c"])
