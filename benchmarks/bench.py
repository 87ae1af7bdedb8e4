"""Side-by-side benchmark of autograd engines on micrograd's demo training step.

Contenders (see contenders.py): micrograd 0.1.0; PyTorch with one 0-d tensor per scalar;
PyTorch on whole matrices (batched); the course's reference engine (`autograd.engine`); its
fast engine (`autograd.fast`); the step traced once and compiled by `autograd.compile` to
straight-line Python and, where a C compiler exists, to C; and a hand-written forward/backward
on plain floats, the floor for pure Python (floor.py).

Method. Before anything is timed, every contender takes two steps from the same initial
weights, and their losses and updated weights must agree (to 1e-9) with the floor's; if any
contender disagrees the benchmark stops and says which. Then all contenders run in one
process, interleaved, one step each per round, the order rotating every round. `gc.collect()`
runs before each timed step, outside the timing, so no contender pays for another's garbage;
what exists when timing starts (imported modules, models) is frozen with `gc.freeze()`, so no
contender pays for walking another library's objects either. Ratios are medians of the
per-round ratios. Memory is the memory held by one step's graph divided by that graph's
number of nodes (tracemalloc for the Python engines; the process's resident size for PyTorch,
whose tensors live outside Python's allocator). The deepest chain each engine can
differentiate is found in fresh subprocesses at the default recursion limit. The compiled
steps are compiled once, before the agreement check, and the seconds that took (trace,
generate, build) are a column of their own: they are not in the step times.

Run:  python benchmarks/bench.py            (about two minutes, the C build included)
      python benchmarks/bench.py --quick    (a smoke run with tiny sizes)
      python benchmarks/bench.py --engines micrograd,fast,floor --rounds 31
      python benchmarks/bench.py --engines compiled-c,torch-batched,floor --c-opt 0,1
      python benchmarks/bench.py --engines autograd,compiled-py,floor --baseline ../main
          (times another checkout's engines and compiled Python step in the same run,
          interleaved with this one's, and prints each of this one's times / its
          baseline's, the median of the per-round ratios: a change and what it changed)
"""

import argparse
import functools
import gc
import math
import os
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

from contenders import CONTENDERS, SIZES, build_loss  # noqa: E402

from autograd.data import make_moons  # noqa: E402
from autograd.profiling import compare  # noqa: E402

TOLERANCE = 1e-9
CHECK_STEPS = 2  # two steps, so an engine that forgets to zero its gradients is caught too
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


class Target(NamedTuple):
    """A bound on one measurement of one contender: `value <sense> bound`, and a tighter aim.

    `kind` says what is measured:
      "speed"    `base`'s step time / `key`'s (higher is faster), the median per-round ratio;
      "time"     `key`'s step time / `base`'s (lower is closer to `base`), the same way;
      "bytes"    bytes per node of `key`'s graph, or (with a `base`) its ratio to `base`'s;
      "compile"  seconds `key` took to compile (trace, generate and build), once.
    """

    what: str
    key: str
    kind: str
    sense: str  # ">=" or "<="
    bound: float
    aim: Optional[float] = None
    base: Optional[str] = None


KINDS = ("speed", "time", "bytes", "compile")

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
    "compiled Python step": [
        Target("time / floor", "compiled-py", "time", "<=", 1.5, 1.2, base="floor"),
        Target("compile time", "compiled-py", "compile", "<=", 5),
    ],
    "compiled C step": [
        Target("speed vs PyTorch batched", "compiled-c", "speed", ">=", 1, 3,
               base="torch-batched"),
        Target("compile time", "compiled-c", "compile", "<=", 15),
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


def check_agreement(contenders, X, y, tolerance=TOLERANCE, steps=CHECK_STEPS):
    """Check every contender against the hand-written floor; return the largest difference.

    Each takes `steps` steps from the same initial weights; the losses and the updated weights
    must match the floor's to `tolerance` (relative to max(1, |value|)). Raises EnginesDisagree,
    naming each contender that differs and where, if any does.
    """
    want_losses, want_weights = run_steps(CONTENDERS["floor"](), X, y, steps)
    problems, largest = [], 0.0
    for c in contenders:
        losses, weights = run_steps(c, X, y, steps)
        if len(weights) != len(want_weights) or len(losses) != len(want_losses):
            problems.append(f"{c.name}: {len(weights)} weights and {len(losses)} losses, "
                            f"but the floor has {len(want_weights)} and {len(want_losses)}")
            continue
        loss_diff, step = _worst(losses, want_losses)
        weight_diff, i = _worst(weights, want_weights)
        if loss_diff > tolerance:
            problems.append(f"{c.name}: loss of step {step + 1} is {losses[step]!r}, "
                            f"the floor's is {want_losses[step]!r}")
        if weight_diff > tolerance:
            problems.append(f"{c.name}: weight #{i} after {steps} steps is {weights[i]!r}, "
                            f"the floor's is {want_weights[i]!r}")
        largest = max(largest, loss_diff, weight_diff)
    if problems:
        raise EnginesDisagree(
            f"the engines do not compute the same step ({steps} steps from the same weights, "
            f"tolerance {tolerance:g}):\n  " + "\n  ".join(problems)
        )
    return largest


# ---------------------------------------------------------------- measurements


def time_steps(contenders, X, y, rounds, clock=time.perf_counter, freeze=True):
    """{key: [seconds of one step, per round]}: interleaved by `autograd.profiling.compare`
    (the order rotating each round, garbage collected before each run, outside the timing).

    `freeze=False` leaves every imported module's objects to the collector, as in a notebook
    kernel: then each full collection of an engine that triggers them also walks what other
    libraries (PyTorch above all) imported, which flatters engines that collect less.
    """
    models = {c.key: c.new_model(seed=1) for c in contenders}
    data = {c.key: c.prepare(X, y) for c in contenders}
    for c in contenders:  # warm up: the interpreter specialises code on its first runs
        for _ in range(2):
            c.step(models[c.key], data[c.key])
    # Objects that exist before timing (imported modules, above all PyTorch's) would otherwise
    # be walked by every full garbage collection and slow each engine in proportion to what
    # *other* libraries imported; freezing them leaves each step paying for its own objects.
    gc.collect()
    if freeze:
        gc.freeze()
    try:
        steps = {c.key: functools.partial(c.step, models[c.key], data[c.key]) for c in contenders}
        return compare(steps, rounds, warmup=False, clock=clock).runs
    finally:
        gc.unfreeze()


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


def measure(contenders, X, y, args):
    """{key: row}: step time, ratios, nodes, bytes per node, deepest chain (None where n/a)."""
    clock = CLOCKS[args.clock]
    times = time_steps(contenders, X, y, args.rounds, clock, freeze=not args.no_freeze)
    rows = {}
    for c in contenders:
        row = {"name": c.name, "step": statistics.median(times[c.key])}
        # speed-ups: the baseline's time over this one's; the floor: this one's over the floor's
        row["micrograd"] = ratio(times, "micrograd", c.key)
        row["torch-0d"] = ratio(times, "torch-0d", c.key)
        row["torch-batched"] = ratio(times, "torch-batched", c.key)
        row["floor"] = ratio(times, c.key, "floor")
        row["times"] = times[c.key]
        row["compile"] = getattr(c, "compile_seconds", None)
        row["nodes"] = row["bytes"] = row["chain"] = None
        if c.has_nodes:
            row["nodes"], row["bytes"] = graph_memory(c, X, y)
            row["memory_method"] = c.memory_method
            if not args.no_chain and not hasattr(c, "baseline_of"):  # (a subprocess: ours)
                row["chain"] = deepest_chain(c.key, args.chain_limit)
        rows[c.key] = row
    return rows


def _x(r):
    """A ratio for the table: '' when not measured, two significant digits below 1."""
    if r is None:
        return ""
    return f"{r[0]:.2g}x" if r[0] < 1 else f"{r[0]:.1f}x"


def table(rows, reference="autograd"):
    mg_bytes = rows.get("micrograd", {}).get("bytes")
    head = (f"{'engine':<22}{'step ms':>9}{'vs micrograd':>14}{'vs torch 0-d':>14}"
            f"{'vs batched':>12}{'/ floor':>9}{'compile s':>11}{'nodes':>8}{'bytes/node':>12}"
            f"{'vs mg':>7}{'deepest chain':>15}")
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
            f"{r['name']:<22}{r['step'] * 1e3:>9.2f}{_x(r['micrograd']):>14}"
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
        "compile s: seconds to trace the step, generate its code and build it, once, before",
        "any step is timed (not in step ms); - for the engines that do not compile.",
    ]
    lines += pay_off_lines(rows, reference)
    return "\n".join(lines)


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
                lines = ["", "this checkout's step time / the baseline's (median of the "
                             "per-round ratios, [quartiles]):"]
            lines.append(f"  {rows[of]['name']:<22} {median:.3f}  [{q1:.3f}, {q3:.3f}]")
    return lines


def pay_off_lines(rows, reference="autograd"):
    """For each compiled step: after how many steps compiling has paid for itself, against the
    reference engine (compile seconds / the step time it saves, from medians)."""
    ref = rows.get(reference)
    compiled = [r for r in rows.values() if r["compile"] is not None]
    if ref is None or not compiled:
        return []
    lines = ["", f"compiling pays off after (compile time / the step time saved against "
                 f"{ref['name']}):"]
    for r in compiled:
        saved = ref["step"] - r["step"]
        if saved <= 0:
            lines.append(f"  {r['name']:<22} never: its step is no faster")
        else:
            lines.append(f"  {r['name']:<22} {math.ceil(r['compile'] / saved):>7,} steps "
                         f"({r['compile']:.2f} s / {saved * 1e3:.2f} ms saved per step)")
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
            unit = {"compile": " s", "bytes": "" if t.base is None else "x"}.get(t.kind, "x")
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
    if t.kind == "compile":
        if r["compile"] is None:
            return None, f"{t.key} does not compile"
        return r["compile"], ""
    if t.kind == "bytes":
        if t.base is None:
            return r["bytes"], ""
        return r["bytes"] / rows[t.base]["bytes"], ""
    top, bottom = (t.base, t.key) if t.kind == "speed" else (t.key, t.base)
    med, q1, q3 = ratio({k: rows[k]["times"] for k in (top, bottom)}, top, bottom)
    return med, f"  (middle half of rounds {q1:.2f}-{q3:.2f}x)"


def main(argv=None, registry=CONTENDERS):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default=",".join(registry),
                        help=f"comma-separated, from: {', '.join(registry)} (default: all)")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (default 21)")
    parser.add_argument("--points", type=int, help="moons points (default 100; 10 with --quick)")
    parser.add_argument("--chain-limit", type=int, default=1_000_000, help="deepest chain tried")
    parser.add_argument("--no-chain", action="store_true", help="skip the deepest-chain search")
    parser.add_argument("--no-freeze", action="store_true",
                        help="do not gc.freeze() the imported modules before timing (see time_steps)")
    parser.add_argument("--clock", choices=CLOCKS, default="wall",
                        help="wall (perf_counter, default) or cpu (process_time: less noise "
                             "from other work on a busy machine)")
    parser.add_argument("--c-opt", default="0", metavar="LEVELS",
                        help="the C compiler's -O level(s) for compiled-c, comma-separated: "
                             "--c-opt 0,1 times a row for each (default 0, the one the "
                             "targets name)")
    parser.add_argument("--baseline", metavar="DIR",
                        help="another checkout (the directory holding its autograd/): time its "
                             "engines and compiled Python step too, in the same run")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes (2 rounds, 10 points, chains up to 1,000): checks it runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.chain_limit = 2, 1000
    if args.points is None:
        args.points = 10 if args.quick else 100
    if args.rounds < 1 or args.points < 2:
        parser.error(f"need at least 1 round and 2 points, got {args.rounds} and {args.points}")

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
    try:
        levels = [int(level) for level in args.c_opt.split(",")]
    except ValueError:
        parser.error(f"--c-opt takes -O levels such as 0,1, not {args.c_opt!r}")
    if len(set(levels)) != len(levels) or not all(0 <= level <= 3 for level in levels):
        parser.error(f"--c-opt takes distinct -O levels from 0 to 3, got {args.c_opt!r}")
    makers = []  # (key, how to make the contender)
    for key in keys:
        if key not in registry:
            parser.error(f"unknown engine {key!r}; choose from {', '.join(registry)}")
        if key == "compiled-c":
            makers += [(f"{key} -O{level}", functools.partial(registry[key], opt_level=level))
                       for level in levels]
        else:
            makers.append((key, registry[key]))
    X, y = make_moons(args.points, noise=0.1, seed=0)
    contenders, skipped = [], []
    for key, make in makers:
        try:
            contender = make()
            if hasattr(contender, "compile_seconds"):  # a compiled step: compile it now, once
                print(f"compiling {contender.name} ...", flush=True)
                contender.prepare(X, y)
        except ImportError as e:  # also Unavailable: no C compiler
            skipped.append(f"{key} not run: {e}")
            print(f"skipping {key}: {e}", flush=True)
            continue
        contenders.append(contender)
    if not contenders:
        raise SystemExit("no engine to benchmark")

    try:
        largest = check_agreement(contenders, X, y)
    except EnginesDisagree as e:
        raise SystemExit(f"benchmark aborted: {e}") from None
    print(f"demo step: MLP{SIZES} on {args.points} moons points, hinge + L2, backward, SGD")
    print(f"agreement: {CHECK_STEPS} steps from the same weights, every engine matches the "
          f"hand-written floor (largest relative difference {largest:.1e})")
    torch = sys.modules.get("torch")
    versions = f"Python {sys.version.split()[0]}" + (
        f", torch {torch.__version__} ({torch.get_num_threads()} thread)" if torch else "")
    load = os.getloadavg()
    frozen = "imported modules NOT frozen" if args.no_freeze else "imported modules frozen"
    print(f"{args.rounds} interleaved rounds, {args.clock} clock, {frozen}; {versions}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n", flush=True)

    rows = measure(contenders, X, y, args)
    print(table(rows))
    print("\n".join(baseline_lines(rows, contenders)))
    for note in skipped:
        print(f"({note})")
    print()
    print(target_lines(rows))
    load = os.getloadavg()
    print(f"\nload average at the end (this run adds about 1): "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.quick:
        print("(--quick: the sizes are too small for the targets to mean anything)")


if __name__ == "__main__":
    main()
