"""Side-by-side benchmark of autograd engines on micrograd's demo training step.

Contenders (see contenders.py): micrograd 0.1.0; PyTorch with one 0-d tensor per scalar;
PyTorch on whole matrices (batched); the course's reference engine (`autograd.engine`); its
fast engine (`autograd.fast`); its tensor engine on NumPy (`autograd.tensor`), batched; the
step traced once and compiled by `autograd.compile` to straight-line Python and, where a C
compiler exists, to C; and a hand-written forward/backward on plain floats, the floor for pure
Python (floor.py).

Four parts (--parts): "demo", micrograd's demo step (MLP 2-16-16-1 on 100 points), every
contender, with memory and the deepest chain; "wide", the same step on a wider network and
more points (MLP 2-64-64-1 on 256 points, --wide), every contender again, so that the time
against the width shows how each one scales; "digits", one epoch of an MLP 64-32-10 on the
1,797 handwritten digits (digits.py), autograd.tensor against PyTorch; "grad", `autograd.grad`
against `backward()` on the same graph of each engine, with and without `create_graph`.

Method. Before anything is timed, every contender takes two steps from the same initial
weights, and their losses and updated weights must agree (to 1e-9) with the floor's; if any
contender disagrees the benchmark stops and says which. Then all contenders run in one
process, interleaved, one sample each per round, the order rotating every round. A sample is
one step or, for a step faster than 0.1 s, as many steps in a row as take about 0.1 s, timed
together, their mean the step's time: a step of a millisecond timed alone, right after another
contender's step of seconds, is timed cold (`steps_per_sample`). `gc.collect()` runs before
each timed sample, outside the timing, so no contender pays for another's garbage;
what exists when timing starts (imported modules, models) is frozen with `gc.freeze()`, so no
contender pays for walking another library's objects either. Ratios are medians of the
per-round ratios. Memory is the memory held by one step's graph divided by that graph's
number of nodes (tracemalloc for the Python engines; the process's resident size for PyTorch,
whose tensors live outside Python's allocator). The deepest chain each engine can
differentiate is found in fresh subprocesses at the default recursion limit. The compiled
steps are compiled once before the agreement check; after the step times, each is compiled
again --compile-rounds times, interleaved as the steps are, and the median of those seconds
(trace, generate, build) is a column of its own: they are not in the step times. On the wide
step, each round compiles the demo step too, beside the wide one, so that the growth of the
compile time is the median of the per-round ratios, as for step times. The compiled steps
must also give the reference engine's losses and weights bit for bit (a target).

The wide step repeats the check (one step: the demo step's two caught an engine that does not
zero its gradients) and the interleaved rounds (fewer: --wide-rounds), without memory or
chains. A compiled step is compiled for it only if its demo-step compile time, times
the growth of the arithmetic, fits in --compile-budget; otherwise a note says what it would
take. The digits epochs are checked against each other (the same mean loss and weights after
one epoch from the same weights), then interleaved. The grad part builds the demo step's graph
on fewer points (about 50,000 nodes) in each engine, then times, interleaved, backward() and
`autograd.grad` of the loss with respect to every parameter, without and with create_graph.
Targets that are not met are printed as NOT MET: the benchmark reports, it does not fail.

Run:  python benchmarks/bench.py            (over ten minutes of CPU time, most of it the
          wide step, where a scalar engine takes seconds a step; far longer on a busy machine)
      python benchmarks/bench.py --parts demo   (about two minutes, the C build included)
      python benchmarks/bench.py --quick    (a smoke run with tiny sizes)
      python benchmarks/bench.py --clock cpu --save   (stores the numbers in
          benchmarks/results/bench.json, which chapter 11 plots)
      python benchmarks/bench.py --engines micrograd,fast,floor --rounds 31
      python benchmarks/bench.py --engines compiled-c,torch-batched,floor --c-opt 0,1
      python benchmarks/bench.py --engines autograd,compiled-py,floor --baseline ../main
          (times another checkout's engines and compiled Python step in the same run,
          interleaved with this one's, and prints each of this one's times / its
          baseline's, the median of the per-round ratios: a change and what it changed)
"""

import argparse
import datetime
import functools
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import NamedTuple, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import digits  # noqa: E402
from contenders import (  # noqa: E402
    CONTENDERS,
    SIZES,
    build_loss,
    cpu_seconds,
    loss_and_scores,
    multiply_adds,
)

from autograd.data import load_digits, make_moons  # noqa: E402
from autograd.graph import count  # noqa: E402
from autograd.profiling import compare  # noqa: E402

TOLERANCE = 1e-9
CHECK_STEPS = 2  # two steps, so an engine that forgets to zero its gradients is caught too
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
PARTS = ("demo", "wide", "digits", "grad")
# Every contender computes on one thread: PyTorch is told so (`torch.set_num_threads(1)`), and
# NumPy's linear algebra library by these variables, which `main` sets before NumPy loads. With a
# second thread, that library's helper thread keeps spinning for a while after each product of
# matrices, and on the cpu clock its time counts against whichever step runs next: the
# hand-written floor's wide step, timed right after autograd.tensor's, took 317 ms of CPU (212 ms
# on the wall clock) against 201 ms.
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
RESULTS = HERE / "results" / "bench.json"  # where --save writes, and chapter 11 reads
NAME = 26  # the width of the tables' first column, the contenders' names
WIDE_RECURSION_LIMIT = 20_000  # see `run_wide`
REFERENCE = "autograd"  # the engine whose numbers the compiled steps must give bit for bit


class Target(NamedTuple):
    """A bound on one measurement of one contender: `value <sense> bound`, and a tighter aim.

    `kind` says what is measured:
      "speed"    `base`'s step time / `key`'s (higher is faster), the median per-round ratio;
      "time"     `key`'s step time / `base`'s (lower is closer to `base`), the same way;
      "bytes"    bytes per node of `key`'s graph, or (with a `base`) its ratio to `base`'s;
      "compile"  seconds `key` took to compile (trace, generate and build), the median of
                 --compile-rounds compiles; with a `base`, those seconds / the seconds
                 `base` took, the median per-round ratio where the two were compiled in
                 the same rounds (a wide step and its demo step);
      "bits"     how many of `key`'s losses and weights after the check steps differ, in any
                 bit, from the reference engine's (`bound` 0: bit for bit).
    Keys are the contenders' on the demo step; "wide/<key>" on the wide step; on the graph
    of the grad part, "backward/<engine>", "grad/<engine>" and "grad-graph/<engine>" (with
    create_graph=True).
    """

    what: str
    key: str
    kind: str
    sense: str  # ">=" or "<="
    bound: float
    aim: Optional[float] = None
    base: Optional[str] = None


KINDS = ("speed", "time", "bytes", "compile", "bits")

TARGETS = {
    "fast engine": [
        Target("speed vs PyTorch 0-d", "fast", "speed", ">=", 10, base="torch-0d"),
        Target("time / floor", "fast", "time", "<=", 12, 10, base="floor"),
        Target("bytes per node", "fast", "bytes", "<=", 150),
    ],
    "reference engine": [
        Target("speed vs micrograd", "autograd", "speed", ">=", 1.3, base="micrograd"),
        Target("bytes per node vs micrograd", "autograd", "bytes", "<=", 0.75, base="micrograd"),
    ],
    "tensor engine": [
        Target("speed vs PyTorch batched", "tensor", "speed", ">=", 1, 3, base="torch-batched"),
    ],
    # Issue 39's: a compiled step pays for itself within a few engine steps, and its compile
    # grows with the program's shape (the wide step's 2-64-64-1 is the demo's 2-16-16-1 made
    # wider), not with its arithmetic (36 times the demo's).
    "compiled Python step": [
        Target("time / floor", "compiled-py", "time", "<=", 1.1, base="floor"),
        Target("time / floor, wide", "wide/compiled-py", "time", "<=", 1.1, base="wide/floor"),
        Target("compile time", "compiled-py", "compile", "<=", 0.5, 0.25),
        Target("compile, wide / demo", "wide/compiled-py", "compile", "<=", 4, base="compiled-py"),
        Target("bit for bit with the engine", "compiled-py", "bits", "<=", 0),
        Target("bit for bit, wide", "wide/compiled-py", "bits", "<=", 0),
    ],
    "compiled C step": [
        Target(
            "speed vs PyTorch batched", "compiled-c", "speed", ">=", 6, 20, base="torch-batched"
        ),
        Target(
            "speed vs batched, wide",
            "wide/compiled-c",
            "speed",
            ">=",
            1.5,
            base="wide/torch-batched",
        ),
        Target("compile time", "compiled-c", "compile", "<=", 0.5, 0.25),
        Target("compile, wide / demo", "wide/compiled-c", "compile", "<=", 4, base="compiled-c"),
        Target("bit for bit with the engine", "compiled-c", "bits", "<=", 0),
        Target("bit for bit, wide", "wide/compiled-c", "bits", "<=", 0),
    ],
    "grad, reference engine": [
        Target("grad / backward", "grad/autograd", "time", "<=", 2, base="backward/autograd"),
        Target(
            "create_graph / backward",
            "grad-graph/autograd",
            "time",
            "<=",
            10,
            base="backward/autograd",
        ),
    ],
    "grad, fast engine": [
        Target("grad / backward", "grad/fast", "time", "<=", 2, base="backward/fast"),
        Target(
            "create_graph / backward", "grad-graph/fast", "time", "<=", 10, base="backward/fast"
        ),
    ],
}


class EnginesDisagree(RuntimeError):
    """Raised when a contender's loss or weights after the check steps differ from the floor's."""


# ---------------------------------------------------------------- correctness, before any timing


def run_steps(contender, X, y, steps=CHECK_STEPS, seed=1):
    """(losses of `steps` steps from the weights of `seed`, the weights after them)."""
    model = contender.new_model(seed)
    data = contender.prepare(X, y)
    losses = [float(contender.step(model, data)) for _ in range(steps)]
    return losses, contender.weights(model)


def _worst(got, want):
    """(largest difference relative to max(1, |want|), its index); NaN counts as infinite."""
    worst, where = 0.0, None
    for i, (a, b) in enumerate(zip(got, want)):
        diff = abs(a - b) / max(1.0, abs(b))
        if not diff <= worst:  # also true for NaN
            worst, where = (diff if diff == diff else float("inf")), i
    return worst, where


def check_agreement(contenders, X, y, tolerance=TOLERANCE, steps=CHECK_STEPS, record=None):
    """Check every contender against the hand-written floor; return the largest difference.

    Each takes `steps` steps from the same initial weights (of the layer sizes of the first
    contender); the losses and the updated weights must match the floor's to `tolerance`
    (relative to max(1, |value|)). Raises EnginesDisagree, naming each contender that differs
    and where, if any does. `record`, a dict, receives each contender's (losses, weights).
    """
    floor = CONTENDERS["floor"]()
    floor.sizes = contenders[0].sizes if contenders else SIZES
    want_losses, want_weights = run_steps(floor, X, y, steps)
    problems, largest = [], 0.0
    for c in contenders:
        losses, weights = run_steps(c, X, y, steps)
        if record is not None:
            record[c.key] = losses, weights
        if len(weights) != len(want_weights) or len(losses) != len(want_losses):
            problems.append(
                f"{c.name}: {len(weights)} weights and {len(losses)} losses, "
                f"but the floor has {len(want_weights)} and {len(want_losses)}"
            )
            continue
        loss_diff, step = _worst(losses, want_losses)
        weight_diff, i = _worst(weights, want_weights)
        if loss_diff > tolerance:
            problems.append(
                f"{c.name}: loss of step {step + 1} is {losses[step]!r}, "
                f"the floor's is {want_losses[step]!r}"
            )
        if weight_diff > tolerance:
            problems.append(
                f"{c.name}: weight #{i} after {steps} steps is {weights[i]!r}, "
                f"the floor's is {want_weights[i]!r}"
            )
        largest = max(largest, loss_diff, weight_diff)
    if problems:
        raise EnginesDisagree(
            f"the engines do not compute the same step ({steps} steps from the same weights, "
            f"tolerance {tolerance:g}):\n  " + "\n  ".join(problems)
        )
    return largest


def bits_differing(record, X, y, sizes=SIZES, steps=CHECK_STEPS):
    """{key: (numbers that differ in any bit from the reference engine's, numbers compared)}
    for each compiled step in `record` (as check_agreement fills it): the losses and the
    weights after the check steps. Runs the reference engine if `record` lacks it."""
    compiled = [key for key in record if key.startswith("compiled-")]
    if not compiled:
        return {}
    if REFERENCE in record:
        want = record[REFERENCE]
    else:
        reference = CONTENDERS[REFERENCE]()
        reference.sizes = sizes
        want = run_steps(reference, X, y, steps)
    want = [*want[0], *want[1]]
    out = {}
    for key in compiled:
        got = [*record[key][0], *record[key][1]]
        same = sum(a.hex() == b.hex() for a, b in zip(map(float, got), map(float, want)))
        out[key] = (len(want) - same + abs(len(got) - len(want)), len(want))
    return out


# ---------------------------------------------------------------- measurements


SAMPLE = 0.1  # seconds: a step that takes less is timed over that long, many steps in a row
PROBE = 1.0  # seconds: a step guessed to take less is run once first, timed, to tell


def steps_per_sample(seconds, sample=SAMPLE):
    """How many steps in a row one timed sample runs, for a step of about `seconds` (None:
    not known): 1 for a step of `sample` or longer, else as many as take about `sample`.

    One step of a millisecond, timed alone right after another contender's steps of seconds,
    is timed cold: those steps have filled the processor's caches with their own memory. The
    full run timed PyTorch's wide step at 3.4-5.0 ms this way, against 1.0-1.7 ms when it ran
    warm. Over `sample` seconds, only the first few steps of a sample run cold."""
    if seconds is None or seconds <= 0 or seconds >= sample:
        return 1
    return math.ceil(sample / seconds)


def time_steps(
    contenders, X, y, rounds, clock=time.perf_counter, freeze=True, warmup=2, expected=None
):
    """({key: [seconds of one step, per round]}, {key: steps per sample}): interleaved by
    `autograd.profiling.compare` (the order rotating each round, garbage collected before each
    run, outside the timing), after `warmup` untimed steps of each. A contender's sample runs
    `steps_per_sample` steps in a row, of the time its last warm-up step took, and counts
    their mean. With no warm-up, `expected` ({key: seconds}, a guess) picks the contenders
    whose step may be short (under PROBE seconds): each takes one warm-up step, to tell.

    `freeze=False` leaves every imported module's objects to the collector, as in a notebook
    kernel: then each full collection of an engine that triggers them also walks what other
    libraries (PyTorch above all) imported, which flatters engines that collect less.
    """
    models = {c.key: c.new_model(seed=1) for c in contenders}
    data = {c.key: c.prepare(X, y) for c in contenders}
    took = {}
    for c in contenders:  # warm up: the interpreter specialises code on its first runs
        guess = (expected or {}).get(c.key, math.inf)
        for _ in range(warmup or int(guess < PROBE)):
            start = clock()
            c.step(models[c.key], data[c.key])
            took[c.key] = clock() - start
    repeat = {c.key: steps_per_sample(took.get(c.key)) for c in contenders}
    # Objects that exist before timing (imported modules, above all PyTorch's) would otherwise
    # be walked by every full garbage collection and slow each engine in proportion to what
    # *other* libraries imported; freezing them leaves each step paying for its own objects.
    gc.collect()
    if freeze:
        gc.freeze()
    try:
        steps = {
            c.key: functools.partial(_steps, c.step, models[c.key], data[c.key], repeat[c.key])
            for c in contenders
        }
        runs = compare(steps, rounds, warmup=False, clock=clock).runs
    finally:
        gc.unfreeze()
    return {key: [t / repeat[key] for t in times] for key, times in runs.items()}, repeat


def _steps(step, model, data, n):
    for _ in range(n):
        step(model, data)


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def graph_memory(engine, X, y):
    """(nodes in one step's graph, bytes that graph holds per node)."""
    model = engine.new_model(seed=1)
    loss, _ = build_loss(engine, model, X, y)
    nodes = engine.count_nodes(loss, X)
    del loss
    gc.collect()
    if engine.memory_method == "resident size":
        # Freed memory is reused before the process grows, so measure the growth from holding
        # one graph to holding five: each of the four extra graphs needs memory of its own.
        graphs = [build_loss(engine, model, X, y)]
        before = resident_bytes()
        graphs += [build_loss(engine, model, X, y) for _ in range(4)]
        used = (resident_bytes() - before) / 4
    else:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        graphs = [build_loss(engine, model, X, y)]
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
    del graphs
    return nodes, used / nodes


def chain_works(key, depth):
    code = (
        f"import sys; sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent)!r}]; import contenders; "
        f"g = contenders.CONTENDERS[{key!r}]().chain({depth}); assert g == 1.0, g"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def deepest_chain(key, limit):
    """(deepest chain that works, whether even `limit` worked): powers of ten, then bisection."""
    ok, depth = 0, 100
    while depth <= limit and chain_works(key, depth):
        ok, depth = depth, depth * 10
    if depth > limit:
        return ok, True
    lo, hi = ok, depth  # lo works, hi fails
    while hi - lo > max(10, lo // 50):
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if chain_works(key, mid) else (lo, mid)
    return lo, False


# ---------------------------------------------------------------- report


def ratio(times, top, bottom):
    """Per-round ratios times[top] / times[bottom]: (median, lower quartile, upper quartile)."""
    if top not in times or bottom not in times:
        return None
    rs = [a / b for a, b in zip(times[top], times[bottom])]
    if len(rs) < 2:
        return rs[0], rs[0], rs[0]
    q1, _, q3 = statistics.quantiles(rs, n=4, method="inclusive")
    return statistics.median(rs), q1, q3


def compile_time(contender, clock):
    """The seconds `contender` took to compile the first time, by `clock` (cpu: this process's
    CPU time and the C compiler's); None for a contender that does not compile."""
    return getattr(contender, "compile_cpu_seconds" if clock == "cpu" else "compile_seconds", None)


def compile_clock(clock):
    """What compiles are timed by, for the run's `clock`: on "cpu", this process's CPU time
    and the C compiler's (`contenders.cpu_seconds`)."""
    return cpu_seconds if clock == "cpu" else CLOCKS[clock]


def time_compiles(work, rounds, clock, collect=True):
    """{label: [seconds of each compile]}: `rounds` rounds, each running every compile of
    `work` ({label: a function that compiles}) once, interleaved and rotating as the steps
    are (`compare`, which collects the garbage before each unless `collect` is false), timed
    by `clock`. One compile timed alone is noisy: a wide compile took from 0.40 to 0.63 s
    within one run."""
    if not work:
        return {}
    return compare(work, rounds, warmup=False, collect=collect, clock=clock).runs


def compiles_of(contenders, X, y, clock):
    """{key: a function that compiles it again, for X and y}, for each of `contenders` that
    compiles (a compiled step, compiled once already)."""
    return {
        c.key: functools.partial(c._compile, X, y)
        for c in contenders
        if compile_time(c, clock) is not None
    }


def compile_columns(contender, clock, runs, label):
    """A row's compile entries: the median of `runs[label]`, the compiles after the first,
    those seconds, and the first's (all None for a contender that does not compile)."""
    first = compile_time(contender, clock)
    if first is None:
        return {"compile": None, "compile_times": None, "compile_first": None}
    times = runs[label]
    return {"compile": statistics.median(times), "compile_times": times, "compile_first": first}


def measure(contenders, X, y, args):
    """{key: row}: step time, ratios, nodes, bytes per node, deepest chain (None where n/a)."""
    clock = CLOCKS[args.clock]
    times, repeat = time_steps(contenders, X, y, args.rounds, clock, freeze=not args.no_freeze)
    compiles = time_compiles(
        compiles_of(contenders, X, y, args.clock), args.compile_rounds, compile_clock(args.clock)
    )
    rows = {}
    for c in contenders:
        row = {"name": c.name, "step": statistics.median(times[c.key]), "repeat": repeat[c.key]}
        # speed-ups: the baseline's time over this one's; the floor: this one's over the floor's
        row["micrograd"] = ratio(times, "micrograd", c.key)
        row["torch-0d"] = ratio(times, "torch-0d", c.key)
        row["torch-batched"] = ratio(times, "torch-batched", c.key)
        row["floor"] = ratio(times, c.key, "floor")
        row["times"] = times[c.key]
        row.update(compile_columns(c, args.clock, compiles, c.key))
        row["nodes"] = row["bytes"] = row["chain"] = None
        if c.has_nodes:
            row["nodes"], row["bytes"] = graph_memory(c, X, y)
            row["memory_method"] = c.memory_method
            if not args.no_chain and not hasattr(c, "baseline_of"):  # (a subprocess: ours)
                row["chain"] = deepest_chain(c.key, args.chain_limit)
        rows[c.key] = row
    return rows


def measure_wide(contenders, X, y, args, demo_rows, work_ratio, demo_compiles):
    """{"wide/<key>": row}: the step time of each contender on the wide step, its ratios to
    PyTorch batched and to the floor, and its time / its own time on the demo step.
    `demo_compiles` ({key: a function that compiles the demo step}) are timed in the same
    rounds as the wide step's compiles, each beside its own: their seconds are the row's
    `compile_base_times`."""
    clock = CLOCKS[args.clock]
    # no warm-up: the agreement check has just run a step of each at this size; but a step
    # that may be short is timed once, to size its samples. The guess, the demo step's time
    # grown as the arithmetic grows, overshoots where the time grows less than the arithmetic
    # (PyTorch batched: 0.7 ms x 36 against 1.2 ms measured)
    expected = {key: row["step"] * work_ratio for key, row in demo_rows.items() if row.get("step")}
    times, repeat = time_steps(
        contenders,
        X,
        y,
        args.wide_rounds,
        clock,
        freeze=not args.no_freeze,
        warmup=0,
        expected=expected,
    )
    work = compiles_of(contenders, X, y, args.clock)
    work.update((f"demo/{key}", compile) for key, compile in demo_compiles.items())
    compiles = time_compiles(work, args.compile_rounds, compile_clock(args.clock))
    rows = {}
    for c in contenders:
        demo = demo_rows.get(c.key)
        rows[f"wide/{c.key}"] = {
            "name": c.name,
            "step": statistics.median(times[c.key]),
            "repeat": repeat[c.key],
            "times": times[c.key],
            "torch-batched": ratio(times, "torch-batched", c.key),
            "floor": ratio(times, c.key, "floor"),
            "demo": None if demo is None else statistics.median(times[c.key]) / demo["step"],
            **compile_columns(c, args.clock, compiles, c.key),
            "compile_base_times": compiles.get(f"demo/{c.key}"),
        }
    return rows


def measure_digits(contenders, data, args):
    """{"digits/<key>": row}: the time of one epoch of each contender, interleaved."""
    models = {c.key: c.new_model(seed=1) for c in contenders}
    prepared = {c.key: c.prepare(*data) for c in contenders}
    for c in contenders:  # warm up
        c.epoch(models[c.key], prepared[c.key])
    gc.collect()
    if not args.no_freeze:
        gc.freeze()
    try:
        runs = compare(
            {c.key: functools.partial(c.epoch, models[c.key], prepared[c.key]) for c in contenders},
            args.rounds,
            warmup=False,
            clock=CLOCKS[args.clock],
        ).runs
    finally:
        gc.unfreeze()
    return {
        f"digits/{c.key}": {
            "name": c.name,
            "step": statistics.median(runs[c.key]),
            "times": runs[c.key],
        }
        for c in contenders
    }


def check_digits(contenders, data, tolerance=TOLERANCE):
    """One epoch of each from the same weights: the mean losses and the weights must agree to
    `tolerance`; returns the largest difference, or raises EnginesDisagree."""
    results = {}
    for c in contenders:
        model = c.new_model(seed=1)
        results[c.key] = [c.epoch(model, c.prepare(*data))], c.weights(model)
    largest, problems = 0.0, []
    (first, (want_loss, want_weights)), *others = results.items()
    for key, (loss, weights) in others:
        loss_diff, _ = _worst(loss, want_loss)
        weight_diff, i = _worst(weights, want_weights)
        if len(weights) != len(want_weights) or max(loss_diff, weight_diff) > tolerance:
            problems.append(
                f"{key}: epoch loss {loss[0]!r} against {want_loss[0]!r} ({first}); "
                f"largest weight difference {weight_diff:g}"
            )
        largest = max(largest, loss_diff, weight_diff)
    if problems:
        raise EnginesDisagree("the digits epochs differ:\n  " + "\n  ".join(problems))
    return largest


GRAD_ENGINES = {"autograd": "autograd.engine", "fast": "autograd.fast"}


def grad_graphs(points):
    """{engine key: (the demo step's loss on `points` moons points, its parameters, nodes)}."""
    X, y = make_moons(points, noise=0.1, seed=0)
    graphs = {}
    for key in GRAD_ENGINES:
        engine = CONTENDERS[key]()
        model = engine.new_model(seed=1)
        loss, _ = loss_and_scores(engine, model, X, y)
        graphs[key] = loss, model[1], count(loss)
    return graphs


def measure_grad(graphs, args):
    """{"backward/<e>", "grad/<e>", "grad-graph/<e>": row}: on each engine's graph, the time of
    `loss.backward()`, of `grad(loss, params)` and of `grad(loss, params, create_graph=True)`,
    all interleaved (the graphs are built before, and frozen with what exists, as for steps)."""
    from autograd import grad

    work = {}
    for key, (loss, params, _) in graphs.items():
        work[f"backward/{key}"] = loss.backward
        work[f"grad/{key}"] = functools.partial(grad, loss, params)
        work[f"grad-graph/{key}"] = functools.partial(grad, loss, params, create_graph=True)
    for run in work.values():  # warm up
        run()
    gc.collect()
    if not args.no_freeze:
        gc.freeze()
    try:
        runs = compare(work, args.grad_rounds, warmup=False, clock=CLOCKS[args.clock]).runs
    finally:
        gc.unfreeze()
    names = {"backward": "backward()", "grad": "grad()", "grad-graph": "grad(create_graph=True)"}
    return {
        k: {
            "name": f"{names[k.split('/')[0]]}, {GRAD_ENGINES[k.split('/')[1]]}",
            "step": statistics.median(v),
            "times": v,
        }
        for k, v in runs.items()
    }


def _x(r):
    """A ratio for the table: '' when not measured, two significant digits below 1."""
    if r is None:
        return ""
    return f"{r[0]:.2g}x" if r[0] < 1 else f"{r[0]:.1f}x"


def table(rows, reference="autograd"):
    mg_bytes = rows.get("micrograd", {}).get("bytes")
    head = (
        f"{'engine':<{NAME}}{'step ms':>9}{'vs micrograd':>14}{'vs torch 0-d':>14}"
        f"{'vs batched':>12}{'/ floor':>9}{'compile s':>11}{'nodes':>8}{'bytes/node':>12}"
        f"{'vs mg':>7}{'deepest chain':>15}"
    )
    lines = [head, "-" * len(head)]
    for key, r in rows.items():
        if r["nodes"] is None:
            nodes = bpn = vs_mg = deep = "-"
        else:
            nodes = f"{r['nodes']:,}"
            bpn = f"{r['bytes']:.0f}" + ("*" if r["memory_method"] == "resident size" else "")
            vs_mg = f"{r['bytes'] / mg_bytes:.2f}x" if mg_bytes else "n/a"
            if r["chain"] is None:
                deep = "not run"
            else:
                depth, beyond = r["chain"]
                deep = f">= {depth:,}" if beyond else f"~{depth:,}"
        compiled = "-" if r["compile"] is None else f"{r['compile']:.2f}"
        lines.append(
            f"{r['name']:<{NAME}}{r['step'] * 1e3:>9.2f}{_x(r['micrograd']):>14}"
            f"{_x(r['torch-0d']):>14}{_x(r['torch-batched']):>12}{_x(r['floor']):>9}"
            f"{compiled:>11}{nodes:>8}{bpn:>12}{vs_mg:>7}{deep:>15}"
        )
    lines += [
        "",
        "vs X: X's step time / this engine's, the median of the per-round ratios (higher is",
        "faster); / floor: this engine's step time / the hand-written floor's (lower is closer to",
        "plain Python).",
        "nodes: in each engine's own graph of one step (the fast engine and PyTorch make no node",
        "for a plain-number operand such as the 1 in 1 - y*score); bytes/node: what that graph",
        "holds, by tracemalloc, / its nodes; * by the growth of the resident size (PyTorch).",
        "compile s: seconds to trace the step, generate its code and build it (not in step",
        "ms), the median of the compiles after the first (--compile-rounds, interleaved), by",
        "the run's clock (cpu: this process's CPU time and the C compiler's); - for the",
        "engines that do not compile.",
        *sample_lines(rows),
    ]
    lines += pay_off_lines(rows, reference)
    return "\n".join(lines)


def _spread(times):
    """'[lower quartile, upper quartile]' of per-round seconds, in ms."""
    if len(times) < 2:
        return ""
    q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
    return (
        "["
        + ", ".join(f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}" for ms in (q1 * 1e3, q3 * 1e3))
        + "]"
    )


def wide_table(rows, work_ratio):
    """The wide step's table: each contender's time, its ratios, and its time / its time on the
    demo step, beside `work_ratio`, how many times the multiply-adds grew."""
    head = (
        f"{'engine':<{NAME}}{'step ms':>10}{'middle half':>20}{'vs batched':>12}{'/ floor':>9}"
        f"{'x demo step':>13}{'compile s':>11}"
    )
    lines = [head, "-" * len(head)]
    for r in rows.values():
        grown = "-" if r["demo"] is None else f"{r['demo']:.1f}x"
        compiled = "-" if r["compile"] is None else f"{r['compile']:.2f}"
        lines.append(
            f"{r['name']:<{NAME}}{r['step'] * 1e3:>10.2f}{_spread(r['times']):>20}"
            f"{_x(r['torch-batched']):>12}{_x(r['floor']):>9}{grown:>13}{compiled:>11}"
        )
    lines += [
        "",
        "middle half: the lower and upper quartile of the rounds' step times, in ms.",
        f"x demo step: this step time / the same engine's on the demo step; the arithmetic grew "
        f"{work_ratio:.1f}x",
        "(the multiply-adds of the forward pass): an engine that grows by less has a fixed cost "
        "per operation",
        "that the wider step spreads over more arithmetic.",
        "compile s: as on the demo step; each round compiled the demo step too, beside it.",
        *sample_lines(rows),
    ]
    return "\n".join(lines)


def sample_lines(rows):
    """The line that says which contenders were timed over several steps a sample, if any."""
    many = [f"{r['name']} {r['repeat']:,}" for r in rows.values() if r.get("repeat", 1) > 1]
    if not many:
        return []
    return [
        f"steps in a row per timed sample (steps under {SAMPLE} s; their mean is the step time): "
        + ", ".join(many)
    ]


def timing_lines(rows, pairs):
    """A line per row (median ms and the middle half), then `top / bottom` for each of `pairs`
    (title, top key, bottom key): the median of the per-round ratios and its middle half."""
    lines = [
        f"  {r['name']:<42} {r['step'] * 1e3:>10.2f} ms  middle half {_spread(r['times'])}"
        for r in rows.values()
    ]
    times = {k: r["times"] for k, r in rows.items()}
    for title, top, bottom in pairs:
        found = ratio(times, top, bottom)
        if found is not None:
            median, q1, q3 = found
            lines.append(f"  {title:<42} {median:>10.2f}x    middle half {q1:.2f}-{q3:.2f}x")
    return lines


def baseline_lines(rows, contenders):
    """With --baseline: each contender's step time / its baseline's, per round (median and
    quartiles), since the two ran interleaved in the same rounds."""
    lines = []
    for c in contenders:
        of = getattr(c, "baseline_of", None)
        if of in rows:
            times = {k: rows[k]["times"] for k in (of, c.key)}
            median, q1, q3 = ratio(times, of, c.key)
            if not lines:
                lines = [
                    "",
                    "this checkout's step time / the baseline's (median of the "
                    "per-round ratios, [quartiles]):",
                ]
            lines.append(f"  {rows[of]['name']:<22} {median:.3f}  [{q1:.3f}, {q3:.3f}]")
    return lines


def pay_off_lines(rows, reference="autograd"):
    """For each compiled step: after how many steps compiling has paid for itself, against the
    reference engine (compile seconds / the step time it saves, from medians)."""
    ref = rows.get(reference)
    compiled = [r for r in rows.values() if r["compile"] is not None]
    if ref is None or not compiled:
        return []
    lines = [
        "",
        f"compiling pays off after (compile time / the step time saved against {ref['name']}):",
    ]
    for r in compiled:
        saved = ref["step"] - r["step"]
        if saved <= 0:
            lines.append(f"  {r['name']:<22} never: its step is no faster")
        else:
            lines.append(
                f"  {r['name']:<22} {math.ceil(r['compile'] / saved):>7,} steps "
                f"({r['compile']:.2f} s / {saved * 1e3:.2f} ms saved per step)"
            )
    return lines


def target_lines(rows, targets=None):
    lines = []
    for title, group in (TARGETS if targets is None else targets).items():
        lines.append(f"targets, {title}:")
        for t in group:
            value, spread = _target_value(rows, t)
            if value is None:
                lines.append(f"  {t.what:<28} n/a ({spread})")
                continue
            if t.kind == "bits":
                (differ, total), spread = value, ""
                value = differ
                shown = f"{differ} of {total} numbers differ"
                goal = "0 differ" if t.bound == 0 else f"<= {t.bound:g} differ"
                verdict = "met" if differ <= t.bound else "NOT MET"
                lines.append(f"  {t.what:<28} {shown:<30} {goal:<10} {verdict}")
                continue
            unit = {"compile": " s", "bytes": ""}.get(t.kind, "x") if t.base is None else "x"
            ok = value >= t.bound if t.sense == ">=" else value <= t.bound
            goal = f"{t.sense} {t.bound:g}{unit}" + (f" (aim {t.aim:g}{unit})" if t.aim else "")
            verdict = "met" if ok else "NOT MET"
            if t.aim is not None:
                aimed = value >= t.aim if t.sense == ">=" else value <= t.aim
                verdict += ", aim met" if aimed else ", aim not met"
            shown = {"": f"{value:.0f}", " s": f"{value:.2f} s"}.get(unit, f"{value:.2f}x")
            lines.append(f"  {t.what:<28} {shown:>8}  {goal:<22} {verdict}{spread}")
    return "\n".join(lines)


def _target_value(rows, t):
    """(the measured value for target `t`, text on its spread) or (None, why it is missing)."""
    if t.kind not in KINDS:
        raise ValueError(f"target {t.what!r}: unknown kind {t.kind!r}, expected one of {KINDS}")
    missing = [k for k in (t.key, t.base) if k is not None and k not in rows]
    if missing:
        return None, f"needs {', '.join(missing)}"
    r = rows[t.key]
    if t.kind == "bits":
        if r.get("bits") is None:
            return None, f"{t.key} was not compared with {REFERENCE}"
        return r["bits"], ""
    if t.kind == "compile":
        compiled = [k for k in (t.key, t.base) if k is not None and rows[k].get("compile") is None]
        if compiled:
            return None, f"{compiled[0]} does not compile"
        if t.base is None:
            return r["compile"], ""
        paired = r.get("compile_base_times")
        if paired and t.key == f"wide/{t.base}":  # compiled in the same rounds as its base
            med, q1, q3 = ratio({"top": r["compile_times"], "base": paired}, "top", "base")
            return med, f"  (middle half of rounds {q1:.2f}-{q3:.2f}x)"
        return r["compile"] / rows[t.base]["compile"], ""
    if t.kind == "bytes":
        if t.base is None:
            return r["bytes"], ""
        return r["bytes"] / rows[t.base]["bytes"], ""
    top, bottom = (t.base, t.key) if t.kind == "speed" else (t.key, t.base)
    med, q1, q3 = ratio({k: rows[k]["times"] for k in (top, bottom)}, top, bottom)
    return med, f"  (middle half of rounds {q1:.2f}-{q3:.2f}x)"


def machine():
    """What ran the benchmark: the processor, the cores, the system, and the versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    versions = {"python": sys.version.split()[0]}
    for name in ("numpy", "torch"):
        module = sys.modules.get(name)
        if module is not None:
            versions[name] = module.__version__
    return {"processor": cpu, "cores": os.cpu_count(), "system": platform.platform(), **versions}


def _as_saved(rows, prefix=""):
    out = {}
    for key, r in rows.items():
        times = r["times"]
        quartiles = (
            statistics.quantiles(times, n=4, method="inclusive")
            if len(times) > 1
            else [times[0]] * 3
        )
        out[key[len(prefix) :]] = {
            "name": r["name"],
            "median_ms": r["step"] * 1e3,
            "middle_half_ms": [quartiles[0] * 1e3, quartiles[2] * 1e3],
            "times_ms": [t * 1e3 for t in times],
            "compile_s": r.get("compile"),
            "compile_times_s": r.get("compile_times"),
            "first_compile_s": r.get("compile_first"),
            "demo_compile_times_s": r.get("compile_base_times"),  # the wide rounds' own
            "steps_per_sample": r.get("repeat", 1),
        }
    return out


def save_results(path, args, argv, steps, rows, grad_nodes, targets, load_start):
    """Write the run's numbers as JSON to `path`: when, on what, how, and every median."""
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "command": " ".join(["python benchmarks/bench.py", *argv]),
        "clock": args.clock,
        "rounds": args.rounds,
        "wide_rounds": args.wide_rounds,
        "grad_rounds": args.grad_rounds,
        "imported_modules_frozen": not args.no_freeze,
        "load_average": {"start": list(load_start), "end": list(os.getloadavg())},
        "steps": [
            {
                "part": part,
                "sizes": list(sizes),
                "points": points,
                "width": max(sizes[1:-1]),
                "multiply_adds": multiply_adds(sizes, points),
                "contenders": _as_saved(
                    {
                        k: v
                        for k, v in rows.items()
                        if k.split("/")[0] == part or (part == "demo" and "/" not in k)
                    },
                    "" if part == "demo" else f"{part}/",
                ),
            }
            for part, sizes, points in steps
        ],
        "digits": _as_saved({k: v for k, v in rows.items() if k.startswith("digits/")}, "digits/"),
        "grad": {
            "nodes": grad_nodes,
            "rows": _as_saved(
                {
                    k: v
                    for k, v in rows.items()
                    if k.split("/")[0] in ("backward", "grad", "grad-graph")
                }
            ),
        },
        "targets": targets.splitlines(),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    return path


def make_contenders(makers, sizes, X, y):
    """The contenders that can run, each of layer `sizes` (compiled ones compiled now, for
    X and y), and a note for each that cannot."""
    contenders, skipped = [], []
    for key, make in makers:
        try:
            contender = make()
            contender.sizes, contender.maker_key = sizes, key
            if hasattr(contender, "compile_seconds"):  # a compiled step: compile it now, once
                print(f"compiling {contender.name} ...", flush=True)
                contender.prepare(X, y)
        except ImportError as e:  # also Unavailable: no C compiler
            skipped.append(f"{key} not run: {e}")
            print(f"skipping {key}: {e}", flush=True)
            continue
        contenders.append(contender)
    return contenders, skipped


def parse_wide(text):
    """'64x256' -> (64, 256): the wide step's width and points."""
    try:
        width, points = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--wide takes WIDTHxPOINTS, such as 64x256, not {text!r}"
        ) from None
    if width < 1 or points < 2:
        raise argparse.ArgumentTypeError(
            f"--wide needs a width of at least 1 and at least 2 points, got {text!r}"
        )
    return width, points


def argument_parser(registry=CONTENDERS):
    """The command line's options, each with its help."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--engines",
        default=",".join(registry),
        help=f"comma-separated, from: {', '.join(registry)} (default: all)",
    )
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated, from: {', '.join(PARTS)} (default: all)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=21,
        help="interleaved rounds of the demo step and the digits (default 21)",
    )
    parser.add_argument(
        "--wide-rounds",
        type=int,
        default=3,
        help="interleaved rounds of the wide step (default 3: on a loaded "
        "machine a round takes minutes, micrograd's step alone 30 s)",
    )
    parser.add_argument(
        "--grad-rounds",
        type=int,
        default=11,
        help="interleaved rounds of grad and backward (default 11)",
    )
    parser.add_argument("--points", type=int, help="moons points (default 100; 10 with --quick)")
    parser.add_argument(
        "--wide",
        type=parse_wide,
        metavar="WIDTHxPOINTS",
        help="the wide step: MLP 2-W-W-1 on P points (default 64x256; 24x12 with --quick)",
    )
    parser.add_argument(
        "--grad-points",
        type=int,
        help="moons points of the grad part's graph (default 76, about 50,000 "
        "nodes; 4 with --quick)",
    )
    parser.add_argument(
        "--compile-budget",
        type=float,
        default=60,
        metavar="SECONDS",
        help="compile a step for the wide step only if its demo-step compile "
        "time, scaled by the growth of the arithmetic, is at most this "
        "(default 60; inf compiles whatever it takes)",
    )
    parser.add_argument(
        "--compile-rounds",
        type=int,
        default=5,
        help="interleaved compiles of each compiled step after its first, whose median is "
        "its compile time (default 5; 1 with --quick)",
    )
    parser.add_argument("--chain-limit", type=int, default=1_000_000, help="deepest chain tried")
    parser.add_argument("--no-chain", action="store_true", help="skip the deepest-chain search")
    parser.add_argument(
        "--no-freeze",
        action="store_true",
        help="do not gc.freeze() the imported modules before timing (see time_steps)",
    )
    parser.add_argument(
        "--clock",
        choices=CLOCKS,
        default="wall",
        help="wall (perf_counter, default) or cpu (process_time: less noise "
        "from other work on a busy machine)",
    )
    parser.add_argument(
        "--c-opt",
        metavar="LEVELS",
        help="the C compiler's -O level(s) for compiled-c, comma-separated: "
        "--c-opt 0,1 times a row for each (default: compile_loss's own "
        "default, the one the targets name)",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="another checkout (the directory holding its autograd/): time its "
        "engines and compiled Python step too, in the same run",
    )
    parser.add_argument(
        "--save",
        nargs="?",
        const=str(RESULTS),
        metavar="FILE",
        help="write the numbers as JSON (default file: benchmarks/results/"
        "bench.json, which chapter 11 plots)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes (2 rounds, 10 points, chains up to 1,000): checks it runs",
    )
    return parser


def parse_arguments(argv, registry=CONTENDERS):
    """`(args, parts, makers)`: the options with their defaults filled in, the parts to run,
    and `(key, how to make the contender)` for each contender named; a usage error (SystemExit)
    for options that do not fit together."""
    parser = argument_parser(registry)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.wide_rounds, args.grad_rounds, args.chain_limit = 2, 2, 2, 1000
        args.compile_rounds = 1
    if args.points is None:
        args.points = 10 if args.quick else 100
    if args.wide is None:
        args.wide = (24, 12) if args.quick else (64, 256)
    if args.grad_points is None:
        args.grad_points = 4 if args.quick else 76
    if (
        min(args.rounds, args.wide_rounds, args.grad_rounds, args.compile_rounds) < 1
        or min(args.points, args.grad_points) < 2
    ):
        parser.error(
            f"need at least 1 round and 2 points, got {args.rounds}, "
            f"{args.wide_rounds}, {args.grad_rounds} and {args.compile_rounds} (compile) "
            f"rounds, {args.points} and {args.grad_points} points"
        )
    parts = args.parts.split(",")
    for part in parts:
        if part not in PARTS:
            parser.error(f"unknown part {part!r}; choose from {', '.join(PARTS)}")

    keys = args.engines.split(",")
    if args.baseline:
        from contenders import baseline_contenders

        try:
            extra = baseline_contenders(args.baseline)
        except FileNotFoundError as e:
            parser.error(str(e))
        registry = {**registry, **extra}
        keys += [key for key, c in extra.items() if c.baseline_of in keys]
    if len(set(keys)) != len(keys):
        parser.error(f"each engine may be named once, got {args.engines!r}")
    default_level = registry["compiled-c"].default_opt_level() if "compiled-c" in registry else 0
    try:
        levels = (
            [default_level]
            if args.c_opt is None
            else [int(level) for level in args.c_opt.split(",")]
        )
    except ValueError:
        parser.error(f"--c-opt takes -O levels such as 0,1, not {args.c_opt!r}")
    if len(set(levels)) != len(levels) or not all(0 <= level <= 3 for level in levels):
        parser.error(f"--c-opt takes distinct -O levels from 0 to 3, got {args.c_opt!r}")
    makers = []  # (key, how to make the contender)
    for key in keys:
        if key not in registry:
            parser.error(f"unknown engine {key!r}; choose from {', '.join(registry)}")
        if key == "compiled-c":
            makers += [
                (f"{key} -O{level}", functools.partial(registry[key], opt_level=level))
                for level in levels
            ]
        else:
            makers.append((key, registry[key]))

    return args, parts, makers


def run_demo(args, makers, run):
    """The demo part: micrograd's demo step, every contender, with memory and the deepest
    chain; the compiled steps' compile times are kept in `run` for the wide part."""
    frozen = "imported modules NOT frozen" if args.no_freeze else "imported modules frozen"
    X, y = make_moons(args.points, noise=0.1, seed=0)
    contenders, skipped = make_contenders(makers, SIZES, X, y)
    run["compiled_on_demo"] = {
        c.maker_key: compile_time(c, args.clock)
        for c in contenders
        if compile_time(c, args.clock) is not None
    }
    if not contenders:
        raise SystemExit("no engine to benchmark")
    record = {}
    try:
        largest = check_agreement(contenders, X, y, record=record)
    except EnginesDisagree as e:
        raise SystemExit(f"benchmark aborted: {e}") from None
    print(f"demo step: MLP{SIZES} on {args.points} moons points, hinge + L2, backward, SGD")
    print(
        f"agreement: {CHECK_STEPS} steps from the same weights, every engine matches the "
        f"hand-written floor (largest relative difference {largest:.1e})"
    )
    torch, numpy = sys.modules.get("torch"), sys.modules.get("numpy")
    versions = f"Python {sys.version.split()[0]}" + (
        f", torch {torch.__version__} ({torch.get_num_threads()} thread)" if torch else ""
    )
    if numpy:
        versions += f", NumPy {numpy.__version__}"
    load = os.getloadavg()
    print(
        f"{args.rounds} interleaved rounds, {args.clock} clock, {frozen}; {versions}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n",
        flush=True,
    )

    rows = measure(contenders, X, y, args)
    for key, bits in bits_differing(record, X, y).items():
        rows[key]["bits"] = bits
    print(table(rows))
    print("\n".join(baseline_lines(rows, contenders)))
    for note in skipped:
        print(f"({note})")
    run["rows"] = rows
    run["steps"].append(("demo", SIZES, args.points))


def within_compile_budget(makers, args, compiled_on_demo, grown):
    """`(makers, notes)`: the makers of the contenders to run on the wide step, and a note for
    each compiled step left out because compiling it would take more than --compile-budget."""
    wide_makers, budget_notes = [], []
    for key, make in makers:
        if key.startswith("compiled-"):  # what compiling would take, from the demo step's
            demo = compiled_on_demo.get(key)
            expected = None if demo is None else demo * grown
            why = None
            if expected is None and args.compile_budget != math.inf:
                why = (
                    "no demo-step compile time to predict its compile time from (run "
                    "the demo part too, or give --compile-budget inf)"
                )
            elif expected is not None and expected > args.compile_budget:
                why = (
                    f"compiling it would take about {expected:.0f} s (its demo-step "
                    f"compile time x {grown:.1f}, the growth of the arithmetic), more "
                    f"than --compile-budget {args.compile_budget:g} s"
                )
            if why is not None:
                print(f"skipping {key} on the wide step: {why}", flush=True)
                budget_notes.append(f"{key} not run on the wide step: {why}")
                continue
        wide_makers.append((key, make))
    return wide_makers, budget_notes


def demo_compiles(contenders, makers, args):
    """{key: a function that compiles the demo step}, for each compiled contender among
    `contenders` (made anew by its maker, at the demo step's sizes and on its points): what
    the wide step's rounds compile beside the wide step, to time the growth."""
    X, y = make_moons(args.points, noise=0.1, seed=0)
    make = dict(makers)
    found = {}
    for c in contenders:
        if compile_time(c, args.clock) is not None:
            demo = make[c.maker_key]()
            demo.sizes = SIZES
            found[c.key] = functools.partial(demo._compile, X, y)
    return found


def run_wide(args, makers, run):
    """The wide part: the same step on a wider network and more points, every contender that
    fits the compile budget, without memory or chains."""
    rows = run["rows"]
    width, points = args.wide
    sizes = (SIZES[0], width, width, SIZES[-1])
    grown = multiply_adds(sizes, points) / multiply_adds(SIZES, args.points)
    print(
        f"\nwide step: MLP{sizes} on {points} moons points, the same step; "
        f"{args.wide_rounds} interleaved rounds, {args.clock} clock",
        flush=True,
    )
    X, y = make_moons(points, noise=0.1, seed=0)
    wide_makers, budget_notes = within_compile_budget(makers, args, run["compiled_on_demo"], grown)
    contenders, wide_skipped = make_contenders(wide_makers, sizes, X, y)
    # micrograd's backward sorts the graph recursively, and the L2 penalty's sum over
    # every parameter is a chain of that many additions: deeper than Python's default limit
    limit = sys.getrecursionlimit()
    params = sum((nin + 1) * nout for nin, nout in zip(sizes, sizes[1:]))
    if params > limit / 2 and any(c.key == "micrograd" for c in contenders):
        sys.setrecursionlimit(max(limit, WIDE_RECURSION_LIMIT))
        print(
            f"(Python's recursion limit is raised from {limit:,} to "
            f"{sys.getrecursionlimit():,} for the wide step: micrograd sorts its graph "
            f"recursively, and the L2 penalty adds up {params:,} parameters in a chain)"
        )
    if contenders:
        record = {}
        try:
            largest = check_agreement(contenders, X, y, steps=1, record=record)
        except EnginesDisagree as e:
            raise SystemExit(f"benchmark aborted: {e}") from None
        print(
            f"agreement: one step from the same weights, every engine matches the floor "
            f"(largest relative difference {largest:.1e})\n",
            flush=True,
        )
        wide = measure_wide(
            contenders, X, y, args, rows, grown, demo_compiles(contenders, wide_makers, args)
        )
        for key, bits in bits_differing(record, X, y, sizes, steps=1).items():
            wide[f"wide/{key}"]["bits"] = bits
        print(wide_table(wide, grown))
        rows.update(wide)
        run["steps"].append(("wide", sizes, points))
    for note in budget_notes + wide_skipped:
        print(f"({note})")
    sys.setrecursionlimit(limit)


def run_digits(args, makers, run):
    """The digits part: one epoch on the handwritten digits, autograd.tensor against PyTorch
    (its own contenders: `makers` is not used)."""
    images, labels = load_digits()
    if args.quick:
        images, labels = images[:96], labels[:96]
    print(
        f"\ndigits epoch: MLP{digits.SIZES} on {len(images):,} 8x8 digits, minibatches of "
        f"{digits.BATCH} ({math.ceil(len(images) / digits.BATCH)} steps), cross-entropy, "
        f"SGD; {args.rounds} interleaved rounds, {args.clock} clock",
        flush=True,
    )
    contenders = []
    for key, make in digits.CONTENDERS.items():
        try:
            contenders.append(make())
        except ImportError as e:
            print(f"(digits: {key} not run: {e})")
    if contenders:
        try:
            largest = check_digits(contenders, (images, labels))
        except EnginesDisagree as e:
            raise SystemExit(f"benchmark aborted: {e}") from None
        print(
            f"agreement: one epoch from the same weights, the same loss and weights "
            f"(largest relative difference {largest:.1e})"
        )
        found = measure_digits(contenders, (images, labels), args)
        print(
            "\n".join(
                timing_lines(
                    found,
                    [("PyTorch's epoch / autograd.tensor's", "digits/torch", "digits/tensor")],
                )
            )
        )
        run["rows"].update(found)


def run_grad(args, makers, run):
    """The grad part: `autograd.grad` against backward() on the same graph of each engine,
    with and without create_graph (its own engines: `makers` is not used)."""
    graphs = grad_graphs(args.grad_points)
    grad_nodes = run["grad_nodes"] = {key: nodes for key, (_, _, nodes) in graphs.items()}
    shown = ", ".join(f"{nodes:,} nodes ({GRAD_ENGINES[key]})" for key, nodes in grad_nodes.items())
    params = len(next(iter(graphs.values()))[1])
    print(
        f"\ngrad against backward(): the demo step's loss on {args.grad_points} moons "
        f"points ({shown}), d(loss)/d(each of {params} parameters); "
        f"{args.grad_rounds} interleaved rounds, {args.clock} clock",
        flush=True,
    )
    found = measure_grad(graphs, args)
    del graphs
    pairs = []
    for key, name in GRAD_ENGINES.items():
        pairs += [
            (f"grad / backward, {name}", f"grad/{key}", f"backward/{key}"),
            (f"create_graph / backward, {name}", f"grad-graph/{key}", f"backward/{key}"),
        ]
    print("\n".join(timing_lines(found, pairs)))
    run["rows"].update(found)


# The parts in the order they run, whatever the order --parts names them in.
PART_RUNNERS = {"demo": run_demo, "wide": run_wide, "digits": run_digits, "grad": run_grad}
assert tuple(PART_RUNNERS) == PARTS


def main(argv=None, registry=CONTENDERS):
    os.environ.update(dict.fromkeys(ONE_THREAD, "1"))  # (NumPy reads them once, as it loads)
    argv = sys.argv[1:] if argv is None else list(argv)
    args, parts, makers = parse_arguments(argv, registry)
    load_start = os.getloadavg()
    run = {"rows": {}, "steps": [], "grad_nodes": {}, "compiled_on_demo": {}}
    for part, run_part in PART_RUNNERS.items():
        if part in parts:
            run_part(args, makers, run)
    rows, steps, grad_nodes = run["rows"], run["steps"], run["grad_nodes"]

    print()
    targets = target_lines(rows)
    print(targets)
    load = os.getloadavg()
    print(
        f"\nload average at the end (this run adds about 1): "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    if args.quick:
        print("(--quick: the sizes are too small for the targets to mean anything)")
    if args.save:
        path = save_results(args.save, args, argv, steps, rows, grad_nodes, targets, load_start)
        print(f"numbers saved to {path}")


if __name__ == "__main__":
    main()
