"""Chapter 10 · Making it fast — checkpoint and exercise checks.

What the chapter asks for: a `FlatValue` class (the chapter's step 4) that stores each
operation's inputs in two slots, `_a` and `_b`, and the local derivatives d(out)/d(input) in
`_da` and `_db`, taken at forward time; keeps every attribute in `__slots__`; makes no node for
a plain number (`v * 2.5` has one input, `v`); builds no closure, so that no node sits in a
reference cycle; and exposes `_prev`, `+`, `*` (with numbers on either side), `relu`, `exp`
(the learner's exercise) and `backward()`. The checkpoint compares it with the reference
engine (`autograd.engine.Value`), which serves as an independent witness.

Exercise checks, each an `Exercise` of chapter 10 (see `exercise.py`), so that the checkpoint
lists them and fails when the learner's own answer failed, even where a solution stood in (the
first two in `ch10_objects.py`, the third in `ch10_flat_exp.py`; all offered here):

- `check_cycle_path(path, start)`: a list of objects from `start` back to `start`, in which
  each object refers to the next (as the garbage collector sees it): the reference cycle
  through a node's `_backward` closure. The check never asks an object for its `__dict__`
  (on Python 3.11 and later that would create one, and change what the learner sees).
- `check_object_predictions(predictions)`: for each class in the dict, the number of objects
  the collector tracks that one product `a * b` creates; measured on the running Python. The
  first wrong answer gets a hint, the second the measured counts.
- `check_flat_exp(FlatValue)`: an `exp` method that stores e^x as its output and as its local
  derivative, with no closure.
"""

import gc

from ..engine import Value as Reference
from ..profiling import collector_off
from .ch10_objects import (  # offered here too, as `ch10.check_cycle_path` and so on
    check_cycle_path,
    check_object_predictions,
    count_made_by_product,
)
from .ch10_flat_exp import (  # noqa: F401 (the chapter's given class, offered here too)
    GIVEN_FLAT_VALUE,
    check_flat_exp,
    given_flat_value,
)
from .toolbox import (
    ARITHMETIC,
    VISITED,
    chain_of_sums,
    check,
    declare_checkpoint,
    default_recursion_limit,
    expect,
    expect_close,
    make_program,
    run_steps,
    show,
)

__all__ = [
    "checkpoint",
    "check_cycle_path",
    "check_object_predictions",
    "check_flat_exp",
    "count_made_by_product",
    "DEPTH",
]

DEPTH = 20_000  # twenty times what a recursive sort survives
SEEDS = range(5)
# Time limits (see `check`): on a busy test machine, counting what a product makes (in
# `ch10_objects.py`) took up to 1.1 s, the collector's check and the deep chain up to 0.6 s;
# they may take 20 s and 15 s.


# --------------------------------------------------------------------- the checkpoint

# What FlatValue has: the arithmetic, relu and exp. Operands of exp are kept small so that
# nothing overflows.
OPERATIONS = {
    **ARITHMETIC,
    "relu": (1, lambda a: a.relu()),
    "exp": (1, lambda a: (a * 0.1).exp()),
}


def random_program(seed, n_inputs=3, n_steps=14):
    """A seeded random program: inputs, and steps (operation name, i, j) on earlier nodes.

    The first steps add the inputs up, one after another, so every input reaches the output;
    then each step uses the node just before it, and often an earlier one as well, so nodes
    are shared.
    """
    (inputs,), steps = make_program(
        seed,
        OPERATIONS,
        n_inputs=n_inputs,
        n_steps=n_steps,
        draw=lambda rng: rng.uniform(-1.5, 1.5),
    )
    return inputs, steps


def run_program(cls, inputs, steps):
    """Build a program with `cls`; return (leaves, output)."""
    leaves = [cls(x) for x in inputs]
    return leaves, run_steps(leaves, steps, OPERATIONS)


@check("no attribute dictionary: every attribute is declared in `__slots__`")
def uses_slots(cls):
    for what, v in (("a leaf", cls(1.0)), ("a product", cls(1.0) * cls(2.0))):
        expect(
            not hasattr(v, "__dict__"),
            f"{what} has a `__dict__`: list every attribute in `__slots__` (and do not "
            "inherit from a class without `__slots__`)",
        )


@check(
    "(a·b + c)·relu(a) + exp(c/2): the reference engine's value and gradients", timeout_hint=VISITED
)
def fixed_expression(cls):
    def f(a, b, c):
        return (a * b + c) * a.relu() + (c * 0.5).exp()

    ours, theirs = [cls(x) for x in (1.5, -2.0, 0.8)], [Reference(x) for x in (1.5, -2.0, 0.8)]
    out, witness = f(*ours), f(*theirs)
    expect_close(out.data, witness.data, "the value", tol=1e-12)
    out.backward()
    witness.backward()
    for name, v, w in zip("abc", ours, theirs):
        expect_close(v.grad, w.grad, f"d/d{name}", tol=1e-12)


@check(
    f"random expressions with plain numbers on both sides (seeds {SEEDS[0]} to "
    f"{SEEDS[-1]}): the reference engine's values and gradients",
    timeout_hint=VISITED,
)
def random_expressions(cls):
    for seed in SEEDS:
        inputs, steps = random_program(seed)
        leaves, out = run_program(cls, inputs, steps)
        witness_leaves, witness = run_program(Reference, inputs, steps)
        expect_close(out.data, witness.data, f"the value of program {seed}", tol=1e-12)
        out.backward()
        witness.backward()
        for k, (v, w) in enumerate(zip(leaves, witness_leaves)):
            expect_close(v.grad, w.grad, f"program {seed}: the gradient of input {k}", tol=1e-9)


@check(
    "a value used twice collects both paths: d(x·x)/dx = 2x, d(x + x)/dx = 2", timeout_hint=VISITED
)
def shared_value(cls):
    x = cls(3.0)
    (x * x).backward()
    expect_close(x.grad, 6.0, "d(x·x)/dx at x = 3", hint="add (`+=`) into each input's grad")
    x = cls(3.0)
    (x + x).backward()
    expect_close(x.grad, 2.0, "d(x + x)/dx", hint="add (`+=`) into each input's grad")


@check("calling backward() twice adds one more copy of every leaf's gradient", timeout_hint=VISITED)
def backward_twice(cls):
    a, b, c = cls(2.0), cls(-3.0), cls(10.0)
    out = (a * b + c) * a
    out.backward()
    first = [a.grad, b.grad, c.grad]
    out.backward()
    for name, v, once in zip("abc", (a, b, c), first):
        expect_close(
            v.grad,
            2 * once,
            f"`{name}.grad` after two calls",
            hint="reset the gradients of the intermediate nodes (those with inputs) "
            "at the start of `backward()`, and leave the leaves alone",
        )


@check("a plain number makes no node: `(v * 2.5)._prev` and `(1 + v)._prev` are `(v,)`")
def numbers_are_not_nodes(cls):
    v = cls(2.0)
    for text, out in (("v * 2.5", v * 2.5), ("1 + v", 1 + v)):
        prev = out._prev
        expect(
            isinstance(prev, tuple) and len(prev) == 1 and prev[0] is v,
            f"`({text})._prev` should be `(v,)` but holds {len(prev)} value(s): keep a "
            "plain number out of the graph, and use it only in the output and the local "
            "derivative",
        )


@check(
    "no reference cycles: a graph is freed without the garbage collector",
    seconds=15,
    timeout_hint=VISITED,
)
def no_cycles(cls):
    def build_and_drop():
        inputs, steps = random_program(0, n_steps=60)
        _, out = run_program(cls, inputs, steps)
        out.backward()

    gc.collect()
    flags, kept = gc.get_debug(), len(gc.garbage)
    with collector_off():
        build_and_drop()
    gc.set_debug(flags | gc.DEBUG_SAVEALL)  # what the collector frees, it keeps in gc.garbage
    try:
        gc.collect()
        left = sum(isinstance(obj, cls) for obj in gc.garbage[kept:])
    finally:
        del gc.garbage[kept:]
        gc.set_debug(flags)
    expect(
        left == 0,
        f"after a graph's last reference went, {left} of its values were still "
        "waiting for the garbage collector: something in a reference cycle holds "
        "them (a node that holds a function which uses the node? a nested function "
        "in `backward()` that calls itself?)",
    )


@check(
    f"backward() works on a chain {DEPTH:,} nodes deep at the default recursion limit",
    seconds=15,
    timeout_hint=VISITED,
)
def deep_chain(cls):
    x, step, chain = chain_of_sums(cls, DEPTH, 0.5, 1.0)
    with default_recursion_limit():
        chain[-1].backward()
    expect(
        x.grad == 1.0 and step.grad == DEPTH,
        f"`x.grad` should be 1.0 and `step.grad` {DEPTH:,}, but were {show(x.grad)} and "
        f"{show(step.grad)}",
    )


CHECKPOINT = [
    uses_slots,
    fixed_expression,
    random_expressions,
    shared_value,
    backward_twice,
    numbers_are_not_nodes,
    no_cycles,
    deep_chain,
]


@declare_checkpoint(10, "Chapter 10 · Making it fast: your FlatValue", CHECKPOINT)
def checkpoint(cls):
    """Chapter 10's specification, on a FlatValue-like class (see the module docstring)."""
