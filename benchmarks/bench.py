"""Side-by-side benchmark of scalar autograd engines on micrograd's demo training step.

The step: an MLP with layer sizes 2-16-16-1 (ReLU hidden layers, linear output) scores 100
points of the moons data set; the loss is the mean hinge loss max(0, 1 - y*score) plus an L2
penalty 1e-4 * sum(p*p); then backward() and one SGD update. Every engine runs the very same
Python code below (one scalar per node), so the differences are the engines.

Method: all engines run in one process, interleaved (the order rotates every round), and
`gc.collect()` runs before each timed step, outside the timing, so no engine pays for another's
garbage; what exists before timing starts (imported modules) is frozen with `gc.freeze()`, so no
engine pays for walking another library's objects either. We report the median step time and the median of the per-round ratios. Memory is the
memory held by one step's graph divided by its number of nodes (tracemalloc for the pure-Python
engines; the process's resident size for PyTorch, whose tensors live outside Python's
allocator). The deepest chain is found in fresh subprocesses at the default recursion limit.

Run:  python benchmarks/bench.py            (about a minute)
      python benchmarks/bench.py --quick    (a smoke run with tiny sizes)
"""

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograd.data import make_moons  # noqa: E402

SIZES = (2, 16, 16, 1)
ALPHA = 1e-4


# ---------------------------------------------------------------- engines


class Engine:
    """How one engine makes parameters and inputs, and how it zeroes and updates them."""

    name = "?"
    note = ""

    def param(self, x):
        return self.V(x)

    def inp(self, x):
        return self.V(x)

    def data(self, v):
        return v.data

    def zero(self, params):
        for p in params:
            p.grad = 0.0

    def update(self, params, lr):
        for p in params:
            p.data -= lr * p.grad

    def chain(self, depth):
        """Differentiate v = x + 1 + 1 + ... (depth additions); return x's gradient."""
        x = self.param(0.5)
        v = x
        for _ in range(depth):
            v = v + 1.0
        v.backward()
        return x.grad


class Reference(Engine):
    name = "autograd (this course)"
    key = "autograd"

    def __init__(self):
        from autograd import Value

        self.V = Value


class Micrograd(Engine):
    name = "micrograd 0.1.0"
    key = "micrograd"

    def __init__(self):
        from micrograd.engine import Value

        self.V = Value


class TorchScalars(Engine):
    name = "PyTorch, 0-d tensors"
    key = "torch"
    note = "bytes from resident size"

    def __init__(self):
        import torch

        self.torch = torch
        torch.set_num_threads(1)

    def param(self, x):
        return self.torch.tensor(x, dtype=self.torch.float64, requires_grad=True)

    def inp(self, x):
        return self.torch.tensor(x, dtype=self.torch.float64)

    def data(self, v):
        return v.item()

    def zero(self, params):
        for p in params:
            p.grad = None

    def update(self, params, lr):
        with self.torch.no_grad():
            for p in params:
                p -= lr * p.grad

    def chain(self, depth):
        x = self.param(0.5)
        v = x
        for _ in range(depth):
            v = v + 1.0
        v.backward()
        return x.grad.item()


ENGINES = {e.key: e for e in (Reference, Micrograd, TorchScalars)}


# ---------------------------------------------------------------- the demo step, engine-agnostic


def make_mlp(engine, seed):
    rng = random.Random(seed)
    layers = []
    for nin, nout in zip(SIZES, SIZES[1:]):
        layers.append(
            [([engine.param(rng.uniform(-1, 1)) for _ in range(nin)], engine.param(0.0)) for _ in range(nout)]
        )
    params = [p for layer in layers for w, b in layer for p in (*w, b)]
    return layers, params


def forward(layers, x):
    last = len(layers) - 1
    for i, layer in enumerate(layers):
        out = []
        for w, b in layer:
            act = sum((wi * xi for wi, xi in zip(w, x)), b)
            out.append(act.relu() if i < last else act)
        x = out
    return x[0]


def build_loss(engine, model, X, y):
    layers, params = model
    inputs = [[engine.inp(a) for a in row] for row in X]
    scores = [forward(layers, row) for row in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in params)
    accuracy = sum((yi > 0) == (engine.data(si) > 0) for yi, si in zip(y, scores)) / len(y)
    return data_loss + reg_loss, accuracy


def train_step(engine, model, X, y, lr=0.05):
    params = model[1]
    loss, _ = build_loss(engine, model, X, y)
    engine.zero(params)
    loss.backward()
    engine.update(params, lr)
    return engine.data(loss)


def count_nodes(root):
    """Nodes in a graph of an engine whose nodes have `_prev` (iteratively, for deep graphs)."""
    seen, stack = {id(root)}, [root]
    while stack:
        for child in stack.pop()._prev:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return len(seen)


# ---------------------------------------------------------------- measurements


def time_steps(engines, X, y, rounds):
    models = {e.key: make_mlp(e, seed=1) for e in engines}
    times = {e.key: [] for e in engines}
    for e in engines:  # warm up once each
        train_step(e, models[e.key], X, y)
    # Objects that exist before timing (imported modules, above all PyTorch's) would otherwise
    # be walked by every full garbage collection and slow each engine in proportion to what
    # *other* libraries imported; freezing them leaves each step paying for its own objects.
    gc.collect()
    gc.freeze()
    for r in range(rounds):
        order = engines[r % len(engines):] + engines[: r % len(engines)]
        for e in order:
            gc.collect()
            t0 = time.perf_counter()
            train_step(e, models[e.key], X, y)
            times[e.key].append(time.perf_counter() - t0)
    return times


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def bytes_per_node(engine, X, y, nodes):
    model = make_mlp(engine, seed=1)
    gc.collect()
    if isinstance(engine, TorchScalars):
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
    return used / nodes


def chain_works(key, depth):
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench; "
        f"g = bench.ENGINES[{key!r}]().chain({depth}); assert g == 1.0, g"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def deepest_chain(key, limit):
    """The deepest chain that works, searching powers of ten then bisecting the last gap."""
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    parser.add_argument("--points", type=int, default=100, help="moons points (default 100)")
    parser.add_argument("--chain-limit", type=int, default=1_000_000, help="deepest chain tried")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engine keys")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, to check the script runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.points, args.chain_limit = 2, 10, 1000

    engines = []
    for key in args.engines.split(","):
        try:
            engines.append(ENGINES[key]())
        except ImportError as e:
            print(f"skipping {key}: {e}")
    X, y = make_moons(args.points, noise=0.1, seed=0)

    loss, _ = build_loss(engines[0], make_mlp(engines[0], seed=1), X, y)
    nodes = count_nodes(loss) if hasattr(loss, "_prev") else None
    print(f"demo step: MLP{SIZES} on {args.points} moons points, hinge + L2, backward, SGD")
    print(f"graph of one step: {nodes:,} nodes; {args.rounds} interleaved rounds; Python {sys.version.split()[0]}\n")

    times = time_steps(engines, X, y, args.rounds)
    base = "micrograd" if "micrograd" in times else engines[0].key
    rows = []
    for e in engines:
        med = statistics.median(times[e.key])
        speed = statistics.median(b / t for b, t in zip(times[base], times[e.key]))
        bpn = bytes_per_node(e, X, y, nodes)
        depth, beyond = deepest_chain(e.key, args.chain_limit)
        rows.append((e, med, speed, bpn, depth, beyond))
    base_bpn = next(r[3] for r in rows if r[0].key == base)

    header = f"{'engine':<26} {'step (ms)':>10} {'speed vs ' + base:>20} {'bytes/node':>11} {'vs ' + base:>14} {'deepest chain':>15}"
    print(header)
    print("-" * len(header))
    for e, med, speed, bpn, depth, beyond in rows:
        deep = f">= {depth:,}" if beyond else f"~{depth:,}"
        note = f"  ({e.note})" if e.note else ""
        print(f"{e.name:<26} {med * 1e3:>10.1f} {speed:>19.2f}x {bpn:>11.0f} {bpn / base_bpn:>13.2f}x {deep:>15}{note}")

    ours = next((r for r in rows if r[0].key == "autograd"), None)
    if ours and base == "micrograd":
        print(
            f"\ntargets for autograd: speed >= 1.30x micrograd: {ours[2]:.2f}x "
            f"{'met' if ours[2] >= 1.3 else 'NOT MET'}; bytes/node <= 0.75x micrograd: "
            f"{ours[3] / base_bpn:.2f}x {'met' if ours[3] / base_bpn <= 0.75 else 'NOT MET'}"
        )


if __name__ == "__main__":
    main()
