"""The benchmark runs, prints its table and targets, and refuses an engine whose step is wrong.

No timing is asserted anywhere: the numbers depend on the machine. What is tested is that the
script runs for the engines that are installed, each of its parts (the demo step, the wide
step, the digits epoch, grad against backward), that its correctness checks, which guard
every number it prints, really catch an engine (or a compiled step, or a digits epoch) whose
numbers are wrong, that the targets and the compile column report what they are given, and
that the numbers it stores, which chapter 11 plots, are those of a full run.

The C step needs a C compiler: without one its tests skip with a reason (and fail under
CI=true, where every test must run).
"""

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import require_module, skip_or_fail

BENCH_DIR = Path(__file__).resolve().parent.parent / "benchmarks"
BENCH = BENCH_DIR / "bench.py"
sys.path.insert(0, str(BENCH_DIR))

import bench  # noqa: E402
import contenders  # noqa: E402
import digits  # noqa: E402

from autograd.data import load_digits, make_moons  # noqa: E402
from autograd.plots import no_plots, plot_time_against_width, time_against_width  # noqa: E402

X, Y = make_moons(10, noise=0.1, seed=0)
# The C step is built afresh for each test, in seconds per point: it gets four points.
X4, Y4 = make_moons(4, noise=0.1, seed=0)


def run_bench(*args, prelude=""):
    code = (
        f"{prelude}import runpy, sys; sys.argv = ['bench.py', *{list(args)!r}]; "
        f"runpy.run_path({str(BENCH)!r}, run_name='__main__')"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)


def require_c_compiler():
    from autograd.compile import c_compiler

    if c_compiler() is None:
        skip_or_fail("no C compiler (cc, gcc or clang on PATH) for the compiled C step")


def target_line(stdout, group, what):
    """The line of target `what` in the group titled `group`."""
    lines = stdout.splitlines()
    start = lines.index(f"targets, {group}:")
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        if line.strip().startswith(what):
            return line
    raise AssertionError(f"no target {what!r} under {group!r} in:\n{stdout}")


def table_row(stdout, name):
    rows = [line for line in stdout.splitlines() if line.startswith(name)]
    assert len(rows) == 1, f"expected one row for {name!r} in:\n{stdout}"
    return rows[0].split()


COLUMNS = (
    "step ms",
    "vs micrograd",
    "vs torch 0-d",
    "vs batched",
    "/ floor",
    "compile s",
    "nodes",
    "bytes/node",
    "vs mg",
    "deepest chain",
)


def table_cells(stdout, name):
    """{column: cell} of the row of `name`, cut where the header's right-aligned titles end."""
    header = next(line for line in stdout.splitlines() if line.startswith("engine "))
    row = " ".join(table_row(stdout, name)[: len(name.split())])  # the name, as it was found
    line = next(line for line in stdout.splitlines() if line.startswith(row))
    cells, start = {}, bench.NAME
    for title in COLUMNS:
        end = header.index(title) + len(title)
        cells[title] = line[start:end].strip()
        start = end
    return cells


# ---------------------------------------------------------------- the script runs


def test_quick_run_prints_a_row_per_pure_python_engine_and_every_target_group():
    done = run_bench(
        "--quick", "--parts", "demo", "--engines", "micrograd,autograd,fast,compiled-py,floor"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "every engine matches the hand-written floor" in out, out
    for name in ("micrograd 0.1.0", "autograd.engine", "autograd.fast"):
        cells = table_cells(out, name)
        assert cells["deepest chain"] != "-", cells  # graph engines report a deepest chain
        assert cells["compile s"] == "-", cells  # and do not compile
    floor = table_row(out, "hand-written floor")
    assert floor[-5:] == ["-", "-", "-", "-", "-"], floor  # no compile, nodes, bytes, chain
    compiled = table_row(out, "compiled step, Python")
    assert compiled[-4:] == ["-", "-", "-", "-"], compiled  # no graph of its own
    assert float(compiled[-5]) > 0, compiled  # the seconds it took to compile
    assert table_cells(out, "compiled step, Python")["compile s"] == compiled[-5]
    assert out.index("compiling compiled step, Python") < out.index("step ms")

    # every group is named by what it measures; the micrograd ratio of the fast engine is gone
    assert "issue" not in out, out
    for group, what in [
        ("fast engine", "speed vs PyTorch 0-d"),
        ("fast engine", "time / floor"),
        ("fast engine", "bytes per node"),
        ("reference engine", "speed vs micrograd"),
        ("reference engine", "bytes per node vs micrograd"),
        ("tensor engine", "speed vs PyTorch batched"),
        ("compiled Python step", "time / floor"),
        ("compiled Python step", "compile time"),
        ("compiled Python step", "bit for bit with the engine"),
        ("compiled C step", "speed vs PyTorch batched"),
        ("compiled C step", "compile time"),
        ("compiled C step", "bit for bit with the engine"),
        ("grad, reference engine", "grad / backward"),
        ("grad, reference engine", "create_graph / backward"),
        ("grad, fast engine", "grad / backward"),
        ("grad, fast engine", "create_graph / backward"),
    ]:
        target_line(out, group, what)
    with pytest.raises(AssertionError):
        target_line(out, "fast engine", "speed vs micrograd")
    assert "<= 1.1x  " in target_line(out, "compiled Python step", "time / floor")
    line = target_line(out, "compiled Python step", "compile time")
    assert f"{float(compiled[-5]):.2f} s  <= 0.5 s (aim 0.25 s)" in line, line
    assert "met" in line.lower(), line
    # the wide step was not asked for, so the targets of growth say what they need
    line = target_line(out, "compiled Python step", "compile, wide / demo")
    assert "n/a (needs wide/compiled-py)" in line, line
    # 2-16-16-1 has 16*3 + 16*17 + 17 = 337 parameters; with the two losses, 339 numbers
    line = target_line(out, "compiled Python step", "bit for bit with the engine")
    assert "0 of 339 numbers differ" in line and line.endswith(" met"), line
    assert "n/a (needs tensor, torch-batched)" in target_line(
        out, "tensor engine", "speed vs PyTorch batched"
    )
    assert "n/a (needs grad/autograd" in target_line(
        out, "grad, reference engine", "grad / backward"
    )
    assert "wide step" not in out and "digits epoch" not in out  # parts not asked for
    # PyTorch and the C step were not chosen, so the targets that need them say so
    assert "n/a (needs torch-0d)" in target_line(out, "fast engine", "speed vs PyTorch 0-d")
    assert "n/a (needs compiled-c)" in target_line(out, "compiled C step", "compile time")
    # the pay-off of compiling, against the reference engine
    assert "compiling pays off after" in out and "against autograd.engine" in out, out


def test_a_baseline_checkout_is_timed_beside_this_one_in_the_same_run(tmp_path):
    # A copy of this checkout's package stands for another checkout: the same code, imported
    # under another name, with a row of its own and a ratio per timed engine.
    shutil.copytree(
        BENCH_DIR.parent / "autograd",
        tmp_path / "autograd",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    done = run_bench(
        "--quick",
        "--parts",
        "demo",
        "--no-chain",
        "--engines",
        "autograd,compiled-py,floor",
        "--baseline",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert float(table_cells(out, "engine (baseline)")["step ms"]) > 0
    assert float(table_cells(out, "compiled-py (baseline)")["compile s"]) > 0
    assert "fast (baseline)" not in out  # only the engines named get a baseline
    ratios = out.split("this checkout's step time / the baseline's")[1].splitlines()[1:3]
    assert [line.split()[0] for line in ratios] == ["autograd.engine", "compiled"], ratios
    assert all(float(line.split()[-3]) > 0 for line in ratios), ratios
    missing = run_bench(
        "--quick", "--parts", "demo", "--engines", "autograd", "--baseline", str(tmp_path / "no")
    )
    assert missing.returncode != 0 and "no autograd package in" in missing.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_numpy_computes_on_one_thread_as_pytorch_does():
    """A second thread of NumPy's linear algebra library spins after each product of matrices,
    and on the cpu clock that time counts against the next step timed, whatever it is: the
    benchmark keeps NumPy to the one thread it gives PyTorch. (The library starts its helper
    threads as NumPy loads, so the process ends with one thread, the main one.)"""
    require_module("numpy")
    count = "import atexit, os; atexit.register(lambda: print('threads', len(os.listdir('/proc/self/task')))); "
    done = run_bench("--quick", "--parts", "demo", "--engines", "tensor,floor", prelude=count)
    assert done.returncode == 0, done.stderr
    assert "autograd.tensor (NumPy)" in done.stdout
    assert done.stdout.rstrip().endswith("threads 1"), done.stdout[-300:]


def test_quick_run_with_pytorch_reports_0d_tensors_and_batched_tensors():
    require_module("torch")
    done = run_bench("--quick", "--parts", "demo", "--engines", "torch-0d,torch-batched,fast")
    assert done.returncode == 0, done.stderr
    scalars = table_row(done.stdout, "PyTorch, 0-d tensors")
    assert any(cell.endswith("*") for cell in scalars), scalars  # bytes from the resident size
    batched = table_row(done.stdout, "PyTorch, batched")
    assert batched[-5:] == ["-", "-", "-", "-", "-"], batched
    assert "x  >= 10x" in target_line(done.stdout, "fast engine", "speed vs PyTorch 0-d")


def test_quick_run_with_the_c_step_reports_its_compile_time_and_its_targets():
    require_c_compiler()
    require_module("torch")
    done = run_bench(
        "--quick",
        "--parts",
        "demo",
        "--points",
        "4",
        "--no-chain",
        "--engines",
        "torch-batched,compiled-c,floor",
    )
    assert done.returncode == 0, done.stderr
    level = (
        contenders.CompiledC.default_opt_level()
    )  # the row names the level compile_loss builds at
    row = table_row(done.stdout, f"compiled step, C -O{level}")
    assert row[-4:] == ["-", "-", "-", "-"] and float(row[-5]) > 0, row
    for what in ("speed vs PyTorch batched", "compile time"):
        line = target_line(done.stdout, "compiled C step", what)
        assert "n/a" not in line and "met" in line.lower(), line  # a verdict, whichever


def test_c_opt_times_a_row_per_level():
    require_c_compiler()
    done = run_bench(
        "--quick",
        "--parts",
        "demo",
        "--points",
        "4",
        "--no-chain",
        "--engines",
        "compiled-c,floor",
        "--c-opt",
        "0,1",
    )
    assert done.returncode == 0, done.stderr
    assert float(table_row(done.stdout, "compiled step, C -O0")[-5]) > 0
    assert float(table_row(done.stdout, "compiled step, C -O1")[-5]) > 0


def test_c_opt_refuses_what_is_not_a_level():
    done = run_bench("--quick", "--parts", "demo", "--engines", "fast", "--c-opt", "fast")
    assert done.returncode != 0 and "--c-opt" in done.stderr, done.stderr


def test_without_a_c_compiler_the_c_row_is_left_out_with_a_note_under_the_table():
    # works with or without a compiler: the prelude makes autograd.compile find none
    done = run_bench(
        "--quick",
        "--parts",
        "demo",
        "--no-chain",
        "--engines",
        "compiled-c,compiled-py,floor",
        prelude="import autograd.compile as c; c.c_compiler = lambda: None; ",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert not any(line.startswith("compiled step, C") for line in out.splitlines()), out
    table_row(out, "compiled step, Python")
    note = [line for line in out.splitlines() if line.startswith("(compiled-c")]
    assert len(note) == 1 and "no C compiler" in note[0], out
    assert out.index("step ms") < out.index(note[0]) < out.index("targets,"), out
    assert "n/a (needs compiled-c" in target_line(out, "compiled C step", "compile time")


def test_a_c_compiler_that_fails_leaves_the_c_row_out_with_its_reason():
    if shutil.which("false") is None:
        skip_or_fail("needs the `false` command to stand for a C compiler that fails")
    # compile_loss falls back on Python with a NoCompilerWarning; the benchmark says why
    done = run_bench(
        "--quick",
        "--parts",
        "demo",
        "--points",
        "4",
        "--no-chain",
        "--engines",
        "compiled-c,floor",
        prelude="import os; os.environ['CC'] = 'false'; ",
    )
    assert done.returncode == 0, done.stderr
    note = [line for line in done.stdout.splitlines() if line.startswith("(compiled-c")]
    assert len(note) == 1 and "could not build C" in note[0] and "failed" in note[0], done.stdout
    assert not any(line.startswith("compiled step, C") for line in done.stdout.splitlines())


def test_a_missing_pytorch_is_skipped_with_a_printed_line():
    # sys.modules["torch"] = None makes `import torch` fail as on a machine without it
    done = run_bench(
        "--quick",
        "--parts",
        "demo,digits",
        "--no-chain",
        "--engines",
        "torch-0d,torch-batched,fast",
        prelude="import sys; sys.modules['torch'] = None; ",
    )
    assert done.returncode == 0, done.stderr
    assert "skipping torch-0d" in done.stdout and "skipping torch-batched" in done.stdout
    table_row(done.stdout, "autograd.fast")
    assert "(digits: torch not run" in done.stdout  # the tensor epoch is timed alone
    assert "autograd.tensor (NumPy)" in done.stdout.split("digits epoch")[1]


def test_quick_run_of_every_part_prints_the_wide_step_the_digits_epoch_and_grad(tmp_path):
    require_module("torch")
    saved = tmp_path / "results.json"
    engines = "autograd,fast,tensor,torch-batched,compiled-py,floor"
    done = run_bench("--quick", "--no-chain", "--engines", engines, "--save", str(saved))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    demo, wide = out.split("\nwide step: MLP(2, 24, 24, 1) on 12 moons points")
    wide, rest = wide.split("\ndigits epoch:")
    names = [
        "autograd.engine",
        "autograd.fast",
        "autograd.tensor (NumPy)",
        "PyTorch, batched",
        "compiled step, Python",
        "hand-written floor",
    ]
    for name in names:
        assert float(table_cells(demo, name)["step ms"]) > 0, name
        row = [line for line in wide.splitlines() if line.startswith(name)]
        assert len(row) == 1, (name, wide)
        assert row[0][bench.NAME :].split()[-2].endswith("x"), row  # its time / its demo time
    # the arithmetic grew by (2*24 + 24*24 + 24) * 12 / ((2*16 + 16*16 + 16) * 10)
    assert f"the arithmetic grew {648 * 12 / (304 * 10):.1f}x" in wide, wide
    digits_part, grad_part = rest.split("\ngrad against backward():")
    assert "on 96 8x8 digits, minibatches of 32 (3 steps)" in digits_part, digits_part
    assert "the same loss and weights" in digits_part
    for name in (
        "autograd.tensor (NumPy)",
        "PyTorch (1 thread)",
        "PyTorch's epoch / autograd.tensor's",
    ):
        assert f"  {name} " in digits_part, digits_part
    assert "each of 337 parameters" in grad_part, grad_part
    for engine in ("autograd.engine", "autograd.fast"):
        for what in (
            "backward()",
            "grad()",
            "grad(create_graph=True)",
            "grad / backward",
            "create_graph / backward",
        ):
            assert f"  {what}, {engine} " in grad_part, (what, engine, grad_part)
    for group, what in [
        ("tensor engine", "speed vs PyTorch batched"),
        ("grad, reference engine", "grad / backward"),
        ("grad, reference engine", "create_graph / backward"),
        ("grad, fast engine", "grad / backward"),
        ("grad, fast engine", "create_graph / backward"),
    ]:
        line = target_line(out, group, what)
        assert "n/a" not in line and "met" in line.lower(), line
    assert "<= 2x" in target_line(out, "grad, fast engine", "grad / backward")
    assert "<= 10x" in target_line(out, "grad, fast engine", "create_graph / backward")
    assert ">= 1x (aim 3x)" in target_line(out, "tensor engine", "speed vs PyTorch batched")

    # the stored numbers: when, on what, and each step's medians, which chapter 11 plots
    assert f"numbers saved to {saved}" in out
    results = json.loads(saved.read_text())
    assert results["machine"]["cores"] == os.cpu_count() and results["date"]
    assert results["command"].endswith(f"--save {saved}")
    assert [(s["part"], s["width"], s["points"]) for s in results["steps"]] == [
        ("demo", 16, 10),
        ("wide", 24, 12),
    ]
    for step in results["steps"]:
        assert [r["name"] for r in step["contenders"].values()] == names
        for r in step["contenders"].values():
            assert len(r["times_ms"]) == 2
            assert r["median_ms"] == pytest.approx(sum(r["times_ms"]) / 2, rel=1e-12)
        # a compiled step's compile: the median of the compiles after its first (one, with
        # --quick), and on the wide step the demo step's compile of the same round beside it
        compiled = step["contenders"]["compiled-py"]
        assert compiled["first_compile_s"] > 0 and len(compiled["compile_times_s"]) == 1
        assert compiled["compile_s"] == compiled["compile_times_s"][0]
        paired = compiled["demo_compile_times_s"]
        assert (paired is None) == (step["part"] == "demo") and (paired is None or len(paired) == 1)
        floor = step["contenders"]["floor"]
        assert floor["compile_s"] is floor["compile_times_s"] is floor["first_compile_s"] is None
    growth = target_line(out, "compiled Python step", "compile, wide / demo")
    assert "x  <= 4x" in growth and "(middle half of rounds" in growth, growth
    lines = time_against_width(results)
    assert list(lines) == names and all([w for w, _, _ in v] == [16, 24] for v in lines.values())
    assert set(results["digits"]) == {"tensor", "torch"}
    assert len(results["grad"]["rows"]) == 6 and results["grad"]["nodes"]["fast"] > 0


def test_a_compiled_step_too_slow_to_compile_is_left_out_of_the_wide_step_with_a_note():
    done = run_bench(
        "--quick",
        "--parts",
        "demo,wide",
        "--no-chain",
        "--engines",
        "compiled-py,floor",
        "--compile-budget",
        "0",
    )
    assert done.returncode == 0, done.stderr
    demo, wide = done.stdout.split("\nwide step:")
    table_row(demo, "compiled step, Python")
    assert not any(line.startswith("compiled step") for line in wide.splitlines()), wide
    note = [line for line in wide.splitlines() if line.startswith("(compiled-py not run")]
    assert len(note) == 1 and "more than --compile-budget 0 s" in note[0], wide
    table_row(wide, "hand-written floor")


def test_wide_takes_a_width_and_a_number_of_points():
    done = run_bench("--quick", "--engines", "floor", "--wide", "64")
    assert done.returncode != 0 and "--wide takes WIDTHxPOINTS" in done.stderr, done.stderr


def test_an_unknown_engine_is_refused_with_the_choices():
    done = run_bench("--quick", "--parts", "demo", "--engines", "fast,tensorflow")
    assert done.returncode != 0
    assert "unknown engine 'tensorflow'" in done.stderr and "micrograd" in done.stderr


# ---------------------------------------------------------------- the correctness check


def test_agreement_check_accepts_the_scalar_engines_and_the_floor():
    engines = [
        contenders.Micrograd(),
        contenders.Reference(),
        contenders.Fast(),
        contenders.Floor(),
    ]
    assert bench.check_agreement(engines, X, Y) <= 1e-12


def test_agreement_check_accepts_the_compiled_python_step():
    compiled = contenders.CompiledPython()
    assert bench.check_agreement([compiled], X, Y) <= 1e-12
    assert compiled.compile_seconds > 0


def test_agreement_check_accepts_the_compiled_c_step():
    require_c_compiler()
    cache = os.environ.get("AUTOGRAD_CACHE")
    compiled = contenders.CompiledC()
    assert bench.check_agreement([compiled], X4, Y4) <= 1e-12
    assert compiled.compile_seconds > 0
    assert compiled.prepare(X4, Y4)[0].backend == "c"
    # built in a directory of its own (a full build, not a hit in an earlier run's cache),
    # and the cache setting is as it was
    assert list(Path(compiled._caches[-1].name).rglob("loss-*")), compiled._caches
    assert os.environ.get("AUTOGRAD_CACHE") == cache


def test_a_compiled_step_is_compiled_once_per_data_set():
    compiled = contenders.CompiledPython()
    first = compiled.prepare(X, Y)[0]
    assert compiled.prepare([list(row) for row in X], list(Y))[0] is first  # same numbers
    other_y = [-v for v in Y]
    assert compiled.prepare(X, other_y)[0] is not first  # the labels are compiled in


def test_agreement_check_accepts_the_tensor_step_on_both_sizes():
    require_module("numpy")
    assert bench.check_agreement([contenders.TensorBatched()], X, Y) <= 1e-12
    wide = contenders.TensorBatched()
    wide.sizes = (2, 24, 24, 1)
    record = {}
    assert bench.check_agreement([wide], X, Y, record=record) <= 1e-12
    assert len(record["tensor"][1]) == 24 * 3 + 24 * 25 + 25  # the wide model's parameters


def test_the_digits_epochs_agree_and_a_wrong_one_is_refused():
    require_module("torch")
    images, labels = load_digits()
    data = images[:64], labels[:64]
    assert bench.check_digits([digits.TensorDigits(), digits.TorchDigits()], data) <= 1e-12

    class ShiftedLabels(digits.TensorDigits):
        """Wrong: every label moved to the next class."""

        def prepare(self, images, labels):
            return super().prepare(images, [(t + 1) % 10 for t in labels])

    with pytest.raises(bench.EnginesDisagree, match="tensor: epoch loss"):
        bench.check_digits([digits.TorchDigits(), ShiftedLabels()], data)


def test_bits_differing_counts_each_number_off_by_even_one_bit():
    reference = contenders.Reference()
    exact = bench.run_steps(reference, X, Y)
    losses, weights = exact
    nudged = [*weights]
    nudged[5] = math.nextafter(nudged[5], math.inf)  # one weight, one bit off
    record = {"autograd": exact, "compiled-py": exact, "compiled-c": (losses, nudged)}
    assert bench.bits_differing(record, X, Y) == {"compiled-py": (0, 339), "compiled-c": (1, 339)}
    del record["autograd"]  # then the benchmark runs the reference engine itself
    assert bench.bits_differing(record, X, Y)["compiled-c"] == (1, 339)
    rows = {"compiled-c": {**fake_row("c", 0.001), "bits": (1, 339)}}
    line = bench.target_lines(rows, {"c": [bench.Target("bits", "compiled-c", "bits", "<=", 0)]})
    assert "1 of 339 numbers differ" in line and line.endswith("NOT MET"), line


class _Ticking:
    """A contender whose every step moves the shared fake clock on by `seconds`."""

    def __init__(self, key, seconds, clock):
        self.key, self.seconds, self.clock, self.steps = key, seconds, clock, 0

    def new_model(self, seed):
        return []

    def prepare(self, X, y):
        return None

    def step(self, model, data):
        self.steps += 1
        self.clock[0] += self.seconds


def test_a_step_faster_than_a_sample_is_timed_many_steps_in_a_row_and_counts_their_mean():
    # a millisecond's step timed alone, after another contender's step of seconds, is timed
    # cold; over a sample of bench.SAMPLE seconds, warm (times that are sums of powers of two,
    # so the fake clock adds them exactly)
    clock = [0.0]
    fast, slow = _Ticking("fast", 2**-10, clock), _Ticking("slow", 0.5, clock)
    times, repeat = bench.time_steps(
        [fast, slow], X, Y, 3, clock=lambda: clock[0], freeze=False, warmup=2
    )
    many = math.ceil(bench.SAMPLE / 2**-10)
    assert many > 1 and repeat == {"fast": many, "slow": 1}
    assert times == {"fast": [2**-10] * 3, "slow": [0.5] * 3}  # the mean of a sample's steps
    assert (fast.steps, slow.steps) == (2 + 3 * many, 2 + 3)
    # without a warm-up (the wide step's), a step expected to take under bench.PROBE seconds
    # is timed once first, which sizes its samples; the others are not
    clock[0] = 0.0
    fast.steps = slow.steps = 0
    times, repeat = bench.time_steps(
        [fast, slow],
        X,
        Y,
        2,
        clock=lambda: clock[0],
        freeze=False,
        warmup=0,
        expected={"fast": bench.PROBE / 2, "slow": bench.PROBE * 2},
    )
    assert repeat == {"fast": many, "slow": 1}
    assert (fast.steps, slow.steps) == (1 + 2 * many, 2)
    assert times == {"fast": [2**-10] * 2, "slow": [0.5] * 2}
    assert [bench.steps_per_sample(s) for s in (None, 0.0, bench.SAMPLE, 1.0)] == [1, 1, 1, 1]


def test_grad_and_backward_are_timed_on_each_engines_graph():
    graphs = bench.grad_graphs(3)
    assert {key: len(params) for key, (_, params, _) in graphs.items()} == {
        "autograd": 337,
        "fast": 337,
    }
    args = SimpleNamespace(grad_rounds=3, clock="cpu", no_freeze=False)
    rows = bench.measure_grad(graphs, args)
    assert sorted(rows) == sorted(
        f"{what}/{engine}"
        for what in ("backward", "grad", "grad-graph")
        for engine in ("autograd", "fast")
    )
    assert all(len(r["times"]) == 3 and r["step"] >= 0 for r in rows.values())
    assert rows["grad-graph/fast"]["name"] == "grad(create_graph=True), autograd.fast"


def test_agreement_check_accepts_pytorch_scalars_and_batched():
    require_module("torch")
    engines = [contenders.TorchScalars(), contenders.TorchBatched()]
    assert bench.check_agreement(engines, X, Y) <= 1e-12


class ClimbsTheGradient(contenders.Fast):
    """Wrong: steps up the gradient instead of down."""

    name = key = "climbs the gradient"

    def update(self, params, lr):
        for p in params:
            p.data += lr * p.grad


class NeverZeroes(contenders.Fast):
    """Wrong from the second step on: gradients of earlier steps pile up."""

    name = key = "never zeroes"

    def zero(self, params):
        pass


class LossOffByAHair(contenders.Fast):
    """Right weights, but a loss 1e-7 too high: more than the check's tolerance."""

    name = key = "loss off by a hair"

    def step(self, model, data):
        return super().step(model, data) + 1e-7


class TensorWrongLabels(contenders.TensorBatched):
    """Wrong: the tensor step trained with every label flipped."""

    name = key = "tensor with flipped labels"

    def prepare(self, X, y):
        return super().prepare(X, [-t for t in y])


class CompiledWithoutPenalty(contenders.CompiledPython):
    """Wrong: compiles the loss without its L2 term (so the weights decay by less, too)."""

    name = key = "compiled without the penalty"

    def _compile(self, X, y):
        alpha = contenders.ALPHA
        contenders.ALPHA = 0.0  # build_loss reads it when the trace runs
        try:
            return super()._compile(X, y)
        finally:
            contenders.ALPHA = alpha


class CompiledGradientsShifted(contenders.CompiledPython):
    """Wrong: right loss, but each weight is updated with its neighbour's gradient."""

    name = key = "compiled, gradients shifted"

    def step(self, model, data):
        compiled, points, _ = data
        loss, grads, _ = compiled(model, points)
        grads = grads[1:] + grads[:1]
        model[:] = [p - contenders.LR * g for p, g in zip(model, grads)]
        return loss


class CompiledFrozenLabels(contenders.CompiledPython):
    """Wrong: traced with every label +1, so the -1 points' hinge losses are compiled wrong."""

    name = key = "compiled with the wrong labels"

    def _compile(self, X, y):
        return super()._compile(X, [1] * len(y))


@pytest.mark.parametrize(
    "wrong, where",
    [
        (ClimbsTheGradient, "weight #"),
        (NeverZeroes, "weight #"),
        (LossOffByAHair, "loss of step 1"),
        (TensorWrongLabels, "loss of step 1"),
        (CompiledWithoutPenalty, "loss of step"),
        (CompiledGradientsShifted, "weight #"),
        (CompiledFrozenLabels, "loss of step 1"),
    ],
)
def test_agreement_check_refuses_an_engine_that_computes_a_different_step(wrong, where):
    with pytest.raises(bench.EnginesDisagree) as caught:
        bench.check_agreement([contenders.Reference(), wrong()], X, Y)
    message = str(caught.value)
    assert f"{wrong.name}: {where}" in message, message
    assert "autograd.engine" not in message, message  # the right engine is not blamed


def test_agreement_check_refuses_a_wrong_c_step():
    require_c_compiler()
    wrong = type(
        "CWithoutPenalty",
        (CompiledWithoutPenalty, contenders.CompiledC),
        {"name": "C without the penalty", "key": "c-without-penalty"},
    )
    with pytest.raises(bench.EnginesDisagree) as caught:
        bench.check_agreement([wrong()], X4, Y4)
    message = str(caught.value)
    level = contenders.CompiledC.default_opt_level()
    assert f"C without the penalty -O{level}: loss of step" in message, message


# ---------------------------------------------------------------- targets and the compile column


def fake_row(name, step, compiled=None, times=None):
    return {
        "name": name,
        "step": step,
        "compile": compiled,
        "times": times or [step] * 3,
        "micrograd": None,
        "torch-0d": None,
        "torch-batched": None,
        "floor": None,
        "nodes": None,
        "bytes": None,
        "chain": None,
    }


def test_compile_targets_judge_seconds_and_say_when_a_contender_does_not_compile():
    rows = {
        "floor": fake_row("floor", 0.010),
        "quick": fake_row("quick", 0.012, compiled=4.0),
        "slow": fake_row("slow", 0.020, compiled=6.5),
    }
    targets = {
        "compiling": [
            bench.Target("quick to compile", "quick", "compile", "<=", 5, 3),
            bench.Target("slow to compile", "slow", "compile", "<=", 5),
            bench.Target("the floor compiles", "floor", "compile", "<=", 5),
            bench.Target("quick / floor", "quick", "time", "<=", 1.5, 1.1, base="floor"),
            bench.Target("speed vs quick", "floor", "speed", ">=", 1.5, base="quick"),
        ]
    }
    out = bench.target_lines(rows, targets)
    line = target_line(out, "compiling", "quick to compile")
    assert "4.00 s  <= 5 s (aim 3 s)" in line and line.endswith("met, aim not met"), line
    assert target_line(out, "compiling", "slow to compile").endswith("NOT MET")
    assert "n/a (floor does not compile)" in target_line(out, "compiling", "the floor compiles")
    line = target_line(out, "compiling", "quick / floor")
    assert "1.20x  <= 1.5x (aim 1.1x)" in line and "met, aim not met" in line, line
    line = target_line(out, "compiling", "speed vs quick")
    assert "1.20x  >= 1.5x" in line and "NOT MET" in line, line


def test_a_compile_target_with_a_base_judges_the_ratio_of_the_two_compile_times():
    rows = {
        "quick": fake_row("quick", 0.012, compiled=0.5),
        "wide/quick": fake_row("quick", 0.4, compiled=3.0),
        "wide/slow": fake_row("slow", 0.5, compiled=30.0),
        "floor": fake_row("floor", 0.010),
    }
    targets = {
        "growth": [
            bench.Target("quick grows", "wide/quick", "compile", "<=", 4, base="quick"),
            bench.Target("slow grows", "wide/slow", "compile", "<=", 4, base="quick"),
            bench.Target("against the floor", "quick", "compile", "<=", 4, base="floor"),
        ]
    }
    out = bench.target_lines(rows, targets)
    line = target_line(out, "growth", "quick grows")
    assert "6.00x  <= 4x" in line and line.endswith("NOT MET"), line
    line = target_line(out, "growth", "slow grows")
    assert "60.00x  <= 4x" in line and line.endswith("NOT MET"), line
    assert "n/a (floor does not compile)" in target_line(out, "growth", "against the floor")
    rows["wide/quick"] = fake_row("quick", 0.4, compiled=1.5)
    line = target_line(bench.target_lines(rows, targets), "growth", "quick grows")
    assert "3.00x  <= 4x" in line and line.endswith("met"), line


def test_the_compile_column_is_the_median_of_the_interleaved_compiles_after_the_first():
    # on a fake clock: each compile takes the seconds of its list, in turn
    clock, order = [0.0], []

    def compiling(label, seconds):
        def compile_once():
            order.append(label)
            clock[0] += seconds.pop(0)

        return compile_once

    work = {"py": compiling("py", [1.0, 5.0, 2.0]), "c": compiling("c", [4.0, 3.0, 8.0])}
    runs = bench.time_compiles(work, 3, lambda: clock[0], collect=False)
    assert runs == {"py": [1.0, 5.0, 2.0], "c": [4.0, 3.0, 8.0]}
    assert order == ["py", "c", "c", "py", "py", "c"]  # the order rotates each round
    first = SimpleNamespace(compile_cpu_seconds=9.0, compile_seconds=7.0)
    columns = bench.compile_columns(first, "cpu", runs, "py")
    assert columns == {"compile": 2.0, "compile_times": [1.0, 5.0, 2.0], "compile_first": 9.0}
    assert bench.compile_columns(contenders.Floor(), "cpu", runs, "floor")["compile"] is None
    assert bench.time_compiles({}, 3, lambda: clock[0]) == {}


def test_the_compile_growth_is_the_median_of_the_ratios_of_compiles_in_the_same_round():
    rows = {
        "quick": fake_row("quick", 0.012, compiled=1.0),
        "wide/quick": fake_row("quick", 0.4, compiled=4.0),
        "floor": fake_row("floor", 0.010),
    }
    # the wide step's compiles, and the demo step's in the same rounds: ratios 2, 4 and 3
    rows["wide/quick"].update(compile_times=[2.0, 4.0, 6.0], compile_base_times=[1.0, 1.0, 2.0])
    targets = {
        "growth": [bench.Target("quick grows", "wide/quick", "compile", "<=", 4, base="quick")]
    }
    line = target_line(bench.target_lines(rows, targets), "growth", "quick grows")
    assert "3.00x  <= 4x" in line and "met  (middle half of rounds 2.50-3.50x)" in line, line
    # not paired with its base (another contender's demo step): the ratio of the medians
    rows["other"] = fake_row("other", 0.012, compiled=2.0)
    targets["growth"][0] = bench.Target("vs other", "wide/quick", "compile", "<=", 4, base="other")
    line = target_line(bench.target_lines(rows, targets), "growth", "vs other")
    assert "2.00x  <= 4x" in line and "middle half" not in line, line


def test_a_target_of_an_unknown_kind_is_refused():
    rows = {"floor": fake_row("floor", 0.01)}
    with pytest.raises(ValueError, match="unknown kind 'seconds'"):
        bench.target_lines(rows, {"g": [bench.Target("t", "floor", "seconds", "<=", 1)]})


def test_the_pay_off_is_compile_time_over_the_step_time_saved_against_the_reference_engine():
    rows = {
        "autograd": fake_row("autograd.engine", 0.010),
        "c": fake_row("compiled fast", 0.002, compiled=2.0),
        "py": fake_row("compiled slow", 0.011, compiled=1.0),
        "floor": fake_row("floor", 0.001),
    }
    lines = bench.pay_off_lines(rows)
    assert any(line.split()[:3] == ["compiled", "fast", "250"] for line in lines), lines
    assert any("compiled slow" in line and "never" in line for line in lines), lines
    assert not any("floor" in line for line in lines), lines  # it does not compile
    del rows["autograd"]
    assert bench.pay_off_lines(rows) == []  # nothing to pay off against


def test_benchmark_aborts_before_timing_when_an_engine_disagrees(capsys):
    registry = {**contenders.CONTENDERS, ClimbsTheGradient.key: ClimbsTheGradient}
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--quick", "--engines", f"fast,{ClimbsTheGradient.key}"], registry=registry)
    message = str(stopped.value.code)
    assert message.startswith("benchmark aborted:") and "climbs the gradient" in message, message
    assert "step ms" not in capsys.readouterr().out  # nothing was timed


# ---------------------------------------------------------------- the stored numbers and the plot

STORED = BENCH_DIR / "results" / "bench.json"


def test_the_stored_numbers_are_a_full_run_of_both_steps_for_every_contender():
    results = json.loads(STORED.read_text())
    assert results["machine"]["processor"] and results["machine"]["cores"] >= 1, results
    assert results["date"] and "--save" in results["command"], results["command"]
    assert "--quick" not in results["command"] and "--engines" not in results["command"]
    steps = {step["part"]: step for step in results["steps"]}
    assert (steps["demo"]["sizes"], steps["demo"]["points"]) == ([2, 16, 16, 1], 100)
    assert (steps["wide"]["sizes"], steps["wide"]["points"]) == ([2, 64, 64, 1], 256)
    # every contender on both steps, so that chapter 11 plots a line for each (a run that left
    # a compiled step out of the wide step, its compiling estimated too long, is not stored:
    # `--compile-budget inf` compiles whatever it takes)
    assert set(steps["demo"]["contenders"]) == set(contenders.CONTENDERS)
    assert set(steps["wide"]["contenders"]) == set(contenders.CONTENDERS), sorted(
        set(contenders.CONTENDERS) - set(steps["wide"]["contenders"])
    )
    for part, rounds in (("demo", results["rounds"]), ("wide", results["wide_rounds"])):
        for row in steps[part]["contenders"].values():
            times = row["times_ms"]
            assert len(times) == rounds and sorted(times)[rounds // 2] == row["median_ms"]
    assert set(results["digits"]) == {"tensor", "torch"} and len(results["grad"]["rows"]) == 6


def fake_results():
    def step(part, width, points, medians):
        return {
            "part": part,
            "width": width,
            "points": points,
            "contenders": {
                key: {"name": key.upper(), "median_ms": ms} for key, ms in medians.items()
            },
        }

    # stored widest first, and "c" did not run on the wide step
    return {
        "steps": [
            step("wide", 64, 256, {"a": 40.0, "b": 3.0}),
            step("demo", 16, 100, {"a": 1.0, "b": 2.0, "c": 0.5}),
        ]
    }


def test_time_against_width_gives_each_contender_its_times_narrowest_first():
    assert time_against_width(fake_results()) == {
        "A": [(16, 100, 1.0), (64, 256, 40.0)],
        "B": [(16, 100, 2.0), (64, 256, 3.0)],
        "C": [(16, 100, 0.5)],
    }


def test_the_plot_draws_a_line_per_contender_and_says_when_it_is_skipped(capsys):
    matplotlib = require_module("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plot_time_against_width(ax, fake_results())
    drawn = {line.get_label(): list(line.get_xdata()) for line in ax.get_lines()}
    assert drawn == {"A": [16, 64], "B": [16, 64], "C": [16]}
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "16 wide\n100 points",
        "64 wide\n256 points",
    ]
    assert ax.get_yscale() == "log"
    plt.close(fig)
    stand_in = no_plots()  # where matplotlib cannot load, nothing is drawn and show() says so
    _, ax = stand_in.subplots()
    plot_time_against_width(ax, fake_results())
    stand_in.show()
    assert "plot skipped" in capsys.readouterr().out
