"""The build: takes a `passes.Program`, gives a loaded `Library` (built, cached, checked).

The build and the cache of the C back end: the C code built, cached, loaded, called.

`build(trace, opt_level)` writes the tape as C (`autograd.compile.c`), whose forward and
backward passes are split into functions of at most `CHUNK` statements (one function of a
hundred thousand lines takes a compiler many times longer than many short ones), builds it
with the system's C compiler into a shared library in a cache folder, named by a hash of the
code, the compiler and the command, and loads it with `ctypes`. Nothing is needed beyond the
standard library and a compiler; where there is none, or it fails, `CannotBuild` says why
(and `autograd.compile` falls back on Python, with a warning).

The C code computes what the Python code computes, in the same order: `+ - * /` are the same
IEEE operations, `pow`, `exp`, `log` and `tanh` the same C library functions that Python's
`**`, `math.exp`, `math.log` and `math.tanh` call. Three flags keep the compiler from doing
otherwise: `-ffp-contract=off` from fusing a multiply and an add into one rounding,
`-fno-fast-math` from reordering, and `-fno-builtin` from putting its own arithmetic in place
of a library call (gcc writes `pow(x, -1.0)` as `1 / x`, and `pow(x, 2.0)` as `x * x` from
-O1 up: the exact result correctly rounded, which the library's `pow` misses in the last bit
on about one point in a thousand, so the numbers were no longer the engine's). With gcc,
`-fexcess-precision=standard` also rounds every double as a double on x87 processors; where
the processor has AVX2, `-mavx2` gives the compiler wider vectors (`has_avx2`). C raises
no errors: a result that is not finite makes the function return 1 (as the Python code's
`return None`), and the careful Python code then redoes the step and raises the engine's error.

THE CACHE. A library is machine code that runs inside your Python, so the cache makes these
promises:

- Its folders are made 0700 and its files 0600 (only you may read or write them), whatever
  the umask.
- A cache folder, library or record owned by another user, or writable by its group or by
  other users, is refused with a `CacheWarning` that says why. For a folder, the library is
  built in a private temporary folder instead (made new for this process, deleted at exit);
  for a file, it is built again in its place.
- Beside each library, its build writes a record: the SHA-256 of the library file, and of
  the C code, the compiler and the flags it was built from. A library is loaded only if its
  record is there and matches, read and checked before the library is loaded, and it is
  loaded from a copy of the bytes just checked (in a folder of this process's own, inside
  the cache folder): what runs is what was checked, and a file damaged later, even while it
  is loaded, cannot reach the process.
- Every file is written whole or not at all: built in a temporary folder inside the cache
  folder, then renamed into place (the record first). A build that stops half-way leaves
  nothing under the final names, and two processes building the same library at once both
  get it (the build writes no path of the moment into the library, so two builds give the
  same bytes).
- The name of a library is a hash of everything that changes its bytes: the C code, the
  flags, the compiler's path and the file it leads to (its size and time), and what
  `compiler --version` prints. Another program, or another compiler, never finds its
  library under your name.
- A damaged, foreign or incomplete library (cut short, overwritten, another program's, one
  without `loss_and_grads`, one without its record) is built again, with one `CacheWarning`
  that says so. It never crashes the process, and it never makes the compiled loss fall back
  on Python without a word.

Where the files go: `$AUTOGRAD_CACHE` if set, else `$XDG_CACHE_HOME/autograd-from-scratch` (by
default `~/.cache/autograd-from-scratch`), in a folder `c`: `loss-<key>.so` (`.dll` on
Windows), `sha256-<key>.json` its record, and while a process runs, its folder `run-<pid>-...`
of the copies it loaded. Delete it at any time. (On Windows, files have no owner and mode to
check, and a loaded library cannot be changed: there the file itself is loaded.)
"""

import array
import atexit
import ctypes
import functools
import hashlib
import itertools
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from .c import c_program, fused_c_program
from .passes import Program

COMPILERS = ("cc", "gcc", "clang")
# IEEE arithmetic exactly as written: no fused multiply-add, no reassociation, and every
# pow, exp, log and tanh a call of the C library's function, as in Python (see the docstring).
FLAGS = ("-shared", "-ffp-contract=off", "-fno-fast-math", "-fno-builtin")

__all__ = ["build", "find_compiler", "cache_directory", "CannotBuild", "CacheWarning"]


class CannotBuild(RuntimeError):
    """No compiler, or the compiler failed: why, in words."""


def find_compiler():
    """The compiler to use: `$CC` if it names one on the PATH, else `cc`, `gcc` or `clang`."""
    wanted = os.environ.get("CC")
    for name in ((wanted,) if wanted else ()) + COMPILERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def cache_directory():
    """Where built libraries are kept (see the module's docstring)."""
    root = os.environ.get("AUTOGRAD_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "autograd-from-scratch")
    return Path(root) / "c"


class Library:
    """A built tape: `library(p, x)` is `(loss, grads)` (and the auxiliary values' numbers
    if the trace has them), or None where the careful Python code must redo the step."""

    def __init__(self, trace, source, path):
        self.source, self.path = source, path
        self._n_params, self._has_aux = trace.n_params, trace.has_aux
        library = ctypes.CDLL(str(path))
        self._function = library.loss_and_grads
        self._function.restype = ctypes.c_int
        self._descend = getattr(library, "descend", None)  # a batch's (`CompiledBatch.descend`)
        if self._descend is not None:
            self._descend.restype = ctypes.c_int
            doubles = ctypes.POINTER(ctypes.c_double)
            self._descend.argtypes = [doubles, doubles, ctypes.c_double, doubles]
        # what the library writes, in an array.array, which gives back lists at C speed
        self._numbers = array.array("d", bytes(8 * (1 + trace.n_params + len(trace.aux))))
        self._out = (ctypes.c_double * len(self._numbers)).from_buffer(self._numbers)
        self._params_type = ctypes.c_double * max(trace.n_params, 1)
        self._inputs_type = ctypes.c_double * max(trace.n_inputs, 1)
        with _LOCKS_LOCK:  # the same file loads as the same library, with the same arrays
            self._lock = _LOCKS.setdefault(str(path), threading.Lock())

    def __call__(self, p, x):
        numbers, n = self._numbers, self._n_params
        # the numbers as C doubles: an array.array makes them at C speed, ctypes reads its buffer
        p = self._params_type.from_buffer(array.array("d", p or [0.0]))
        x = self._inputs_type.from_buffer(array.array("d", x or [0.0]))
        with self._lock:
            if self._function(p, x, self._out):
                return None
            if self._has_aux:
                return numbers[0], numbers[1 : 1 + n].tolist(), numbers[1 + n :].tolist()
            return numbers[0], numbers[1 : 1 + n].tolist()

    def descend(self, p, x, lr):
        """`(loss, aux)` after the library's `descend` has made each number of `p` (an
        `array.array("d")` of the parameters, changed in place) p - lr * grad; or None,
        `p` untouched, where the careful Python code must redo the step."""
        numbers, n = self._numbers, self._n_params
        x = self._inputs_type.from_buffer(array.array("d", x or [0.0]))
        with self._lock:
            if self._descend(self._params_type.from_buffer(p), x, lr, self._out):
                return None
            return numbers[0], numbers[1 + n :].tolist()


_LOCKS, _LOCKS_LOCK = {}, threading.Lock()
SPLIT = 20_000  # statements: a larger program is compiled as several files, at once


class CacheWarning(UserWarning):
    """The cache held a library, or was a folder, that could not be trusted or loaded: the
    library was built again (in a private folder, for a folder), and the C code runs."""


class _Refused(Exception):
    """A cached library that must not be loaded: why, in words."""


def build(program: Program, opt_level=0, fuse=True):
    """The `Library` for a `passes.Program`, from the cache or built now; `CannotBuild` if it
    cannot be. `fuse`: the fused program (`autograd.compile.fusion`), else one statement per
    step."""
    _compiler()  # (before the code is written)
    code = fused_c_program(program) if fuse else c_program(program)
    return build_code(program.trace, code, opt_level)


def build_code(trace, code, opt_level=0):
    """The `Library` of the `CCode` `code`, whose `loss_and_grads` takes the parameters and
    inputs that `trace` counts and gives its loss, gradients and auxiliary values: from the
    cache or built now; `CannotBuild` if it cannot be."""
    compiler = _compiler()
    source = code.source
    identity = compiler_identity(compiler)
    flags = compiler_flags(identity, opt_level)
    key = _sha256("\0".join([identity, *flags, source]).encode())[:32]
    name = f"loss-{key}{'.dll' if sys.platform == 'win32' else '.so'}"
    record = {"source_sha256": _sha256(source.encode()), "compiler": identity, "flags": flags}
    folder = cache_directory()
    try:
        distrust = _private_folder_made(folder)
    except OSError as e:
        distrust = f"cannot be made ({e})"
    if distrust:
        _warn(
            f"the C cache folder {folder} {distrust}; the library was built in a private "
            "temporary folder instead, as it will be in every process until you fix that"
        )
        folder = _temporary_folder()
    path = folder / name
    damage = None
    if os.path.lexists(path):
        try:
            return _load(trace, source, path, key, record)
        except _Refused as why:
            damage = str(why)
    try:
        try:
            _build_into(folder, name, key, record, compiler, flags, code)
            library = _load(trace, source, path, key, record)
        except _Refused as why:  # e.g. the cache folder's file system forbids running code
            folder = _temporary_folder()
            _build_into(folder, name, key, record, compiler, flags, code)
            try:
                library = _load(trace, source, folder / name, key, record)
            except _Refused as again:
                raise CannotBuild(
                    f"the library built in {folder} {again} (and in {path.parent} {why})"
                ) from None
    except CannotBuild as failed:
        if damage:
            raise CannotBuild(
                f"the cached C library {path} was not loaded: {damage}; and "
                f"building it again failed: {failed}"
            ) from None
        raise
    except OSError as e:
        raise CannotBuild(f"could not build the C code in {folder}: {e}") from None
    if damage:
        _warn(f"the cached C library {path} was not loaded: {damage}; it was built again")
    return library


def _compiler():
    """The C compiler's path, or `CannotBuild` where there is none."""
    compiler = find_compiler()
    if compiler is None:
        raise CannotBuild(
            "backend='c' needs a C compiler (cc, gcc or clang) on the PATH, and none was found"
        )
    return compiler


def _warn(message):
    # _warn < build < CompiledLoss._trace_and_build < __init__ < compile_loss < the caller's line
    warnings.warn(message, CacheWarning, stacklevel=6)


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


_IDENTITIES = {}


def compiler_identity(compiler):
    """What the key of a library says of the compiler: its path, the file it leads to, that
    file's size and time, and what `compiler --version` prints. A new version of the compiler,
    or another compiler under the same name, so gives other names to its libraries."""
    real = os.path.realpath(compiler)
    try:
        st = os.stat(real)
        stamp = (compiler, real, st.st_size, st.st_mtime_ns)
    except OSError:
        stamp = (compiler, real, None, None)
    if stamp not in _IDENTITIES:
        try:
            done = subprocess.run(
                [compiler, "--version"],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=60,
            )
            version = done.stdout.strip()
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            version = ""
        _IDENTITIES[stamp] = "\n".join(map(str, [*stamp, version]))
    return _IDENTITIES[stamp]


def compiler_flags(identity, opt_level):
    """The command's flags for a compiler (its `compiler_identity`) at `-O{opt_level}`."""
    flags = [*FLAGS, f"-O{opt_level}"]
    gcc = "Free Software Foundation" in identity and "clang" not in identity
    if gcc:
        flags.append("-fexcess-precision=standard")  # each double rounded as a double, on x87
    if (gcc or "clang" in identity) and has_avx2():
        flags.append("-mavx2")  # vectors of 4 doubles: the same operations, the same bits
    if sys.platform != "win32":
        flags.append("-fPIC")
    return flags


@functools.cache
def has_avx2(cpuinfo="/proc/cpuinfo"):
    """Does this machine's processor have AVX2, as Linux reports it? Its vector registers hold
    4 doubles, where every x86-64 processor's hold 2. The library is then built with `-mavx2`,
    and the compiler pairs a batch's lanes (`autograd.compile.lanes`) four to a vector. The
    operations are the same IEEE operations, each rounded once (`-ffp-contract=off`: no fused
    multiply-add), so the bits are too. The flag is in the library's name, so a cache shared
    with a processor without AVX2 never gives it this library. False where Linux does not say."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as f:
            flags = next((line for line in f if line.startswith("flags")), "")
    except OSError:
        flags = ""
    return "avx2" in flags.partition(":")[2].split()


_POSIX = hasattr(os, "geteuid")


def _distrust(st, what):
    """Why a file or folder (its `os.stat`) may not be trusted, or None. (Only where files
    have owners and modes: on Windows there is nothing to check.)"""
    if not _POSIX:
        return None
    if st.st_uid != os.geteuid():
        return f"{what} owned by another user (uid {st.st_uid})"
    writers = [
        who for who, bit in (("its group", 0o020), ("other users", 0o002)) if st.st_mode & bit
    ]
    if writers:
        return (
            f"{what} writable by {' and '.join(writers)} (mode {oct(stat.S_IMODE(st.st_mode))[2:]})"
        )
    return None


def _private_folder_made(folder):
    """Make `folder` and the folders above it that are missing, each 0700 whatever the
    umask; None if `folder` can be trusted, else why not, in words."""
    missing, above = [], Path(folder)
    while not os.path.lexists(above) and above != above.parent:
        missing.append(above)
        above = above.parent
    for made in reversed(missing):
        try:
            os.mkdir(made, 0o700)
        except FileExistsError:
            continue  # another process made it at the same moment: checked below
        os.chmod(made, 0o700)
    st = os.stat(folder)
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    why = _distrust(st, "is")
    if why and "writable" in why:
        why += ": `chmod 700` it, or delete it"
    return why


_MINE = {}  # the folders this process made for itself, and removes when it exits


def _folder_of_this_process(prefix, inside=None):
    """A folder for this process alone: made new (0700, under a name no one else can take) in
    `inside`, or in the system's temporary folder, and deleted when Python exits."""
    with _LOCKS_LOCK:
        made = _MINE.get((prefix, inside))
        if made is None or made[0] != os.getpid() or not made[1].is_dir():
            made = os.getpid(), Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=inside))
            _MINE[prefix, inside] = made
            atexit.register(_remove_if_mine, *made)
            if inside is not None:
                _remove_left_behind(prefix, inside)
        return made[1]


def _remove_left_behind(prefix, inside):
    """Remove the folders `prefix<pid>-...` in `inside` of processes that have ended without
    removing theirs (killed, say)."""
    if not _POSIX:
        return
    for entry in os.scandir(inside):
        pid = entry.name[len(prefix) :].split("-")[0]
        if not (entry.name.startswith(prefix) and pid.isdigit()) or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)  # signal 0: only asks whether the process is there
        except ProcessLookupError:
            shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            pass


def _remove_if_mine(pid, folder):
    if os.getpid() == pid:  # not in a child made by fork, which inherits this hook
        shutil.rmtree(folder, ignore_errors=True)


def _temporary_folder():
    """The private folder a library is built in when the cache folder cannot be trusted."""
    return _folder_of_this_process("autograd-c-")


def _record_path(folder, key):
    return Path(folder) / f"sha256-{key}.json"


def _read_trusted(path, what):
    """(the bytes of the file `path`, its `os.stat`), if it is a file of ours that no one
    else may write."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise _Refused(f"{what} is not a file")
            why = _distrust(st, f"{what} is")
            if why:
                raise _Refused(why)
            return f.read(), st
    except FileNotFoundError:
        raise _Refused(
            f"{what} is missing (an interrupted build, or a file put there by hand)"
        ) from None
    except OSError as e:
        raise _Refused(f"{what} cannot be read ({e})") from None


def _load(trace, source, path, key, record):
    """The `Library` at `path`, only if its record (written beside it when it was built) is
    for this code, compiler and flags and holds the SHA-256 of the file as it is now; the
    file is read and checked before it is loaded, so a damaged one is never run."""
    data, _ = _read_trusted(path, "the library")
    written, _ = _read_trusted(_record_path(path.parent, key), "the record of its SHA-256")
    try:
        recorded = json.loads(written.decode())
        recorded_sha = recorded.pop("library_sha256")
    except (ValueError, KeyError, TypeError, AttributeError):
        raise _Refused("the record of its SHA-256 is damaged") from None
    if recorded != record:
        raise _Refused("it was built from other C code, or by another compiler or command")
    if _sha256(data) != recorded_sha:
        raise _Refused(
            "its SHA-256 is not the one recorded when it was built (the file is "
            "damaged, or another program's)"
        )
    # Loaded from a copy of the bytes just checked, in this process's own folder: what runs
    # is what was checked, and a later change to the cached file (truncated in place, say)
    # cannot reach a library this process has mapped. (Windows keeps a loaded file from
    # being changed, and from being deleted at exit: there, the file itself is loaded.)
    if _POSIX:
        try:
            path = _copy_to_load(data, path.parent, path.name)
        except OSError as e:
            raise _Refused(f"it could not be copied to be loaded ({e})") from None
    try:
        return Library(trace, source, path)
    except OSError as e:
        raise _Refused(f"it cannot be loaded ({e})") from None
    except AttributeError:
        raise _Refused("it has no function loss_and_grads") from None


_COPIES = itertools.count()


def _copy_to_load(data, folder, name):
    """`data` written as a new file named after `name`, in a folder of this process's own
    inside `folder` (not the system's temporary folder, which may forbid running code)."""
    path = _folder_of_this_process("run-", folder) / f"{next(_COPIES)}-{name}"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(descriptor, "wb") as f:
        f.write(data)
    return path


def _build_into(folder, name, key, record, compiler, flags, program):
    """Build `program` as `folder / name`, its record beside it. Both are written in a
    temporary folder inside `folder`, then renamed into place, the record first: a build
    that stops half-way leaves nothing under the final names, two builds at once each put
    a whole file there, and a library under its name always has its record."""
    with tempfile.TemporaryDirectory(dir=folder, prefix="build-") as work:
        work = Path(work)
        built = work / name
        _compile(compiler, flags, program, work, built)
        os.chmod(built, 0o600)
        entry = dict(record, library_sha256=_sha256(built.read_bytes()))
        written = work / "record.json"
        descriptor = os.open(written, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "w") as f:
            json.dump(entry, f)
        os.chmod(written, 0o600)
        os.replace(written, _record_path(folder, key))
        os.replace(built, Path(folder) / name)


def _compile(compiler, flags, program, work, built):
    """Compile `program` into the shared library `built`: one file by one command, or, for a
    large program, its functions in as many files as there are processors, all at once, then
    linked. (Names relative to `work`, so that no path of the moment is written into the
    library.)"""
    jobs = os.cpu_count() or 1
    total = sum(f.count("\n") for f in program.functions)
    groups = _groups(program.functions, min(jobs, -(-total // SPLIT)) if total > SPLIT else 0)
    if not groups:
        (work / "main.c").write_text(program.source)
        _run(_link(compiler, flags, built, ["main.c"]), work)
        return
    files = [(work / "main.c", "\n".join([program.header, program.main]))]
    files += [
        (work / f"part{i}.c", "\n".join([program.header, *group])) for i, group in enumerate(groups)
    ]
    compile_only = [f for f in flags if f != "-shared"]
    running = []
    for c_file, text in files:
        c_file.write_text(text)
        running.append(
            subprocess.Popen(
                [compiler, *compile_only, "-c", "-o", c_file.with_suffix(".o").name, c_file.name],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                cwd=work,
            )
        )
    outputs = [process.communicate()[0] for process in running]
    for process, output in zip(running, outputs):
        if process.returncode:
            _failed(process.args, output)
    _run(_link(compiler, flags, built, [f.with_suffix(".o").name for f, _ in files]), work)


def _link(compiler, flags, built, inputs):
    """The command that makes the library `built` of `inputs` (C files or objects)."""
    return [
        compiler,
        *flags,
        "-o",
        built.name,
        *inputs,
        *(["-lm"] if sys.platform != "win32" else []),
    ]


def _run(command, work):
    done = subprocess.run(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work
    )
    if done.returncode:
        _failed(command, done.stdout)


def _failed(command, output):
    raise CannotBuild(f"the C compiler failed on `{' '.join(command)}`: {output.strip()[-800:]}")


def _groups(functions, n):
    """`functions` in `n` runs of about the same number of lines, in order."""
    if n <= 1:
        return [functions] if n == 1 else []
    total = sum(f.count("\n") for f in functions)
    groups, current, size = [], [], 0
    for f in functions:
        current.append(f)
        size += f.count("\n")
        if size >= total * (len(groups) + 1) / n and len(groups) < n - 1:
            groups.append(current)
            current = []
    return groups + [current] if current else groups
