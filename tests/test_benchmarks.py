"""The benchmark runs, prints its table and targets, and refuses an engine whose step is wrong.

No timing is asserted anywhere: the numbers depend on the machine. What is tested is that the
script runs for the engines that are installed, and that its correctness check, which guards
every number in the table, really catches an engine whose step is wrong.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_module

BENCH_DIR = Path(__file__).resolve().parent.parent / "benchmarks"
BENCH = BENCH_DIR / "bench.py"
sys.path.insert(0, str(BENCH_DIR))

import bench  # noqa: E402
import contenders  # noqa: E402

from autograd.data import make_moons  # noqa: E402

X, Y = make_moons(10, noise=0.1, seed=0)


def run_bench(*args, prelude=""):
    code = f"{prelude}import runpy, sys; sys.argv = ['bench.py', *{list(args)!r}]; " \
           f"runpy.run_path({str(BENCH)!r}, run_name='__main__')"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)


def table_row(stdout, name):
    rows = [line for line in stdout.splitlines() if line.startswith(name)]
    assert len(rows) == 1, f"expected one row for {name!r} in:\n{stdout}"
    return rows[0].split()


# ---------------------------------------------------------------- the script runs


def test_quick_run_prints_a_row_per_pure_python_engine_and_both_issues_targets():
    done = run_bench("--quick", "--engines", "micrograd,autograd,fast,floor")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "every engine matches the hand-written floor" in out, out
    for name in ("micrograd 0.1.0", "autograd.engine", "autograd.fast"):
        row = table_row(out, name)
        assert row[-1] != "-", row  # graph engines report a deepest chain
    floor = table_row(out, "hand-written floor")
    assert floor[-4:] == ["-", "-", "-", "-"], floor  # no nodes, no bytes, no chain
    for target in ("speed vs micrograd", "speed vs PyTorch 0-d", "time / floor", "bytes per node",
                   "bytes per node vs micrograd"):
        assert any(line.strip().startswith(target) for line in out.splitlines()), (target, out)
    assert "targets, issue 6, fast engine:" in out and "targets, issue 2, reference engine:" in out
    # PyTorch was not chosen, so the target that needs it says so instead of a verdict
    assert any("speed vs PyTorch 0-d" in line and "n/a (needs torch-0d)" in line
               for line in out.splitlines()), out


def test_quick_run_with_pytorch_reports_0d_tensors_and_batched_tensors():
    require_module("torch")
    done = run_bench("--quick", "--engines", "torch-0d,torch-batched,fast")
    assert done.returncode == 0, done.stderr
    scalars = table_row(done.stdout, "PyTorch, 0-d tensors")
    assert any(cell.endswith("*") for cell in scalars), scalars  # bytes from the resident size
    batched = table_row(done.stdout, "PyTorch, batched")
    assert batched[-4:] == ["-", "-", "-", "-"], batched
    assert "targets, issue 6" in done.stdout


def test_a_missing_pytorch_is_skipped_with_a_printed_line():
    # sys.modules["torch"] = None makes `import torch` fail as on a machine without it
    done = run_bench("--quick", "--no-chain", "--engines", "torch-0d,torch-batched,fast",
                     prelude="import sys; sys.modules['torch'] = None; ")
    assert done.returncode == 0, done.stderr
    assert "skipping torch-0d" in done.stdout and "skipping torch-batched" in done.stdout
    table_row(done.stdout, "autograd.fast")


def test_an_unknown_engine_is_refused_with_the_choices():
    done = run_bench("--quick", "--engines", "fast,tensorflow")
    assert done.returncode != 0
    assert "unknown engine 'tensorflow'" in done.stderr and "micrograd" in done.stderr


# ---------------------------------------------------------------- the correctness check


def test_agreement_check_accepts_the_scalar_engines_and_the_floor():
    engines = [contenders.Micrograd(), contenders.Reference(), contenders.Fast(),
               contenders.Floor()]
    assert bench.check_agreement(engines, X, Y) <= 1e-12


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


@pytest.mark.parametrize("wrong, where", [
    (ClimbsTheGradient, "weight #"),
    (NeverZeroes, "weight #"),
    (LossOffByAHair, "loss of step 1"),
])
def test_agreement_check_refuses_an_engine_that_computes_a_different_step(wrong, where):
    with pytest.raises(bench.EnginesDisagree) as caught:
        bench.check_agreement([contenders.Reference(), wrong()], X, Y)
    message = str(caught.value)
    assert f"{wrong.name}: {where}" in message, message
    assert "autograd.engine" not in message, message  # the right engine is not blamed


def test_benchmark_aborts_before_timing_when_an_engine_disagrees(capsys):
    registry = {**contenders.CONTENDERS, ClimbsTheGradient.key: ClimbsTheGradient}
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--quick", "--engines", f"fast,{ClimbsTheGradient.key}"], registry=registry)
    message = str(stopped.value.code)
    assert message.startswith("benchmark aborted:") and "climbs the gradient" in message, message
    assert "step ms" not in capsys.readouterr().out  # nothing was timed
