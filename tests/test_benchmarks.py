"""The benchmark script still runs and prints its table (a smoke run; no timing is asserted)."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def test_benchmark_quick_run_prints_a_row_per_engine_and_the_targets():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--engines", "autograd,micrograd"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("autograd (this course)") for line in lines), done.stdout
    assert any(line.startswith("micrograd 0.1.0") for line in lines), done.stdout
    assert any(line.startswith("targets for autograd") for line in lines), done.stdout
