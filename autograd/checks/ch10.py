"""Chapter 10 · Making it fast — checkpoint and exercise checks.

What the chapter asks for: a `FlatValue` class (the chapter's step 4) that stores each
operation's inputs in two slots, `_a` and `_b`, and the local derivatives d(out)/d(input) in
`_da` and `_db`, taken at forward time; keeps every attribute in `__slots__`; makes no node for
a plain number (`v * 2.5` has one input, `v`); builds no closure, so that no node sits in a
reference cycle; and exposes `_prev`, `+`, `*` (with numbers on either side), `relu`, `exp`
(the learner's exercise) and `backward()`. The checkpoint compares it with the reference
engine (`autograd.engine.Value`), which serves as an independent witness.

Exercise checks:

- `check_cycle_path(path, start)`: a list of objects from `start` back to `start`, in which
  each object refers to the next (as the garbage collector sees it): the reference cycle
  through a node's `_backward` closure.
- `check_object_predictions(predictions)`: for each class in the dict, the number of objects
  the collector tracks that one product `a * b` creates; measured on the running Python.
- `check_flat_exp(FlatValue)`: an `exp` method that stores e^x as its output and as its local
  derivative, with no closure.
"""

import gc
import math
import random
from collections import Counter
from numbers import Real

from ..engine import Value as Reference
from ..profiling import collector_off, new_tracked_objects
from . import check, expect, expect_close, fail, is_close, run_checks, show
from .ch05 import default_recursion_limit

__all__ = ["checkpoint", "check_cycle_path", "check_object_predictions", "check_flat_exp",
           "count_made_by_product", "DEPTH"]

DEPTH = 20_000  # twenty times what a recursive sort survives
SEEDS = range(5)


# --------------------------------------------------------------------- the cycle


def _holds(holder, held):
    """Does `holder` refer to `held` directly? As `gc.get_referents` sees it, or through one
    of the instance's own attributes (on Python 3.10 those sit in a separate dictionary)."""
    if any(obj is held for obj in gc.get_referents(holder)):
        return True
    if isinstance(holder, type) or type(holder).__name__ in ("module", "function"):
        return False
    try:
        attributes = vars(holder)
    except TypeError:  # no __dict__: a tuple, a cell, an instance with __slots__
        return False
    return any(obj is held for obj in attributes.values())


def _kind(obj):
    return f"a {type(obj).__name__}"


def check_cycle_path(path, start):
    """Exercise: `path` goes round a reference cycle from `start` back to `start`."""

    @check("`path` leads from `out` back to `out`, each object holding the next")
    def goes_round():
        if not isinstance(path, (list, tuple)):
            fail(f"`path` should be a list of objects, but was {show(path)}")
        expect(len(path) >= 1 and path[0] is start,
               "`path` should start with `out` itself: `path = [out, ...]`")
        if len(path) < 2 or path[-1] is not start:
            fail("`path` should end where it started, with `out` again: add the objects on the "
                 "way round, then `out` (try `gc.get_referrers(out)` to see who holds `out`)")
        for i, (holder, held) in enumerate(zip(path, path[1:])):
            if not _holds(holder, held):
                referents = ", ".join(sorted({type(r).__name__ for r in gc.get_referents(holder)}))
                fail(f"`path[{i}]` ({_kind(holder)}) does not hold `path[{i + 1}]` "
                     f"({_kind(held)}). `gc.get_referents(path[{i}])` lists only: {referents}. "
                     "Each object in the list must refer to the next one")

    return run_checks("Exercise: find the cycle", [goes_round])


# --------------------------------------------------------------------- counting objects


def count_made_by_product(value_class):
    """`(count, Counter of type names)`: the tracked objects one `a * b` creates and keeps."""
    a, b = value_class(2.0), value_class(-3.0)
    out, created = new_tracked_objects(lambda: a * b)
    kinds = Counter(type(obj).__name__ for obj in created)
    del out
    return len(created), kinds


def _closure_cells(value_class):
    a, b = value_class(2.0), value_class(-3.0)
    function = getattr(a * b, "_backward", None)
    closure = getattr(function, "__closure__", None)
    return len(closure) if closure else 0


def _prediction_check(value_class, answer):
    name = getattr(value_class, "__name__", repr(value_class))

    @check(f"tracked objects made by one `a * b` in `{name}`")
    def prediction():
        if answer is None:
            fail("no prediction yet: replace `None` with a whole number")
        if isinstance(answer, bool) or not isinstance(answer, Real):
            fail(f"your prediction should be a whole number, such as 4, but was {show(answer)}")
        count, kinds = count_made_by_product(value_class)
        if answer == count:
            return
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        message = f"you predicted {answer!r}; on this Python, one `a * b` makes {count}: {parts}"
        cells = _closure_cells(value_class)
        if cells > 1 and answer == count - cells + 1:
            message += (f". The closure uses {cells} variables of `__mul__` after it has "
                        "returned (self, other, out), and each gets a cell of its own")
        elif "__slots__" in vars(value_class) and answer < count:
            message += (". `__slots__` changes where an instance keeps its attributes, not how "
                        "many objects a product creates")
        fail(message)

    return prediction


def check_object_predictions(predictions):
    """Exercise: `predictions` maps each class to the predicted number of tracked objects that
    one product `a * b` of two existing values creates. Each count is measured live."""
    if not isinstance(predictions, dict) or not predictions:
        @check("your predictions")
        def a_dict():
            fail(f"`predictions` should be a dict of class -> number, but was {show(predictions)}")

        return run_checks("Your predictions", [a_dict])
    return run_checks("Your predictions",
                      [_prediction_check(cls, answer) for cls, answer in predictions.items()])


# --------------------------------------------------------------------- exp without a closure

EXP_POINTS = (-1.5, 0.0, 0.5, 2.0)


def _exp_of(cls, x):
    """`cls(x).exp()`, failing with a plain message if it does not give a new node."""
    v = cls(x)
    out = v.exp()
    call = f"`FlatValue({x:g}).exp()`"
    if out is None:
        fail(f"{call} gave None: did you `return` the new FlatValue?")
    expect(isinstance(out, cls), f"{call} should give a new FlatValue, but gave {show(out)}")
    expect(out is not v, f"{call} returned the very value it was called on: build and return "
                         "a new FlatValue, and leave the input as it was")
    return v, out


@check("`exp()` returns a new value whose data is e^x")
def exp_values(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x)
        expect_close(out.data, math.exp(x), f"`FlatValue({x:g}).exp().data`",
                     hint="use `math.exp(self.data)`")
        expect(v.data == x, f"`FlatValue({x:g}).exp()` changed its input's data to "
                            f"{show(v.data)}")


@check("its one input is `self`, with local derivative e^x: backward() gives d(e^x)/dx = e^x")
def exp_gradient(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x)
        prev = getattr(out, "_prev", None)
        expect(isinstance(prev, tuple) and len(prev) == 1 and prev[0] is v,
               f"`FlatValue({x:g}).exp()._prev` should be `(x,)`, its one input, but was "
               f"{show(prev)}: pass `self` as the input `a`")
        out.backward()
        e = math.exp(x)
        hint = "store e^x as the local derivative: the output is its own derivative"
        if is_close(v.grad, 1.0) and not is_close(e, 1.0):
            hint = "the local derivative of e^x is e^x, not 1"
        elif is_close(v.grad, x) and not is_close(e, x):
            hint = "the local derivative of e^x is e^x, not x"
        expect_close(v.grad, e, f"after `out = x.exp(); out.backward()` with x = {x:g}, `x.grad`",
                     hint=hint)


@check("through other operations: d e^(2x)/dx = 2e^(2x), d(x·e^x)/dx = (x + 1)e^x")
def exp_chain_rule(cls):
    for x in (-0.7, 0.3, 1.1):
        v = cls(x)
        (v * 2).exp().backward()
        expect_close(v.grad, 2 * math.exp(2 * x), f"d e^(2x)/dx at x = {x:g}",
                     hint="multiply the local derivative by the gradient that arrives")
        v = cls(x)
        (v.exp() * v).backward()
        expect_close(v.grad, (x + 1) * math.exp(x), f"d(x·e^x)/dx at x = {x:g}",
                     hint="a value used twice must collect gradient along both paths")


@check("no closure: the new node holds no function, so it is in no reference cycle")
def exp_no_closure(cls):
    out = cls(0.5).exp()
    functions = [obj for obj in gc.get_referents(out) if type(obj).__name__ == "function"]
    expect(not functions, "the node that `exp()` returns holds a function (a closure?): store "
                          "the local derivative as a number in `_da` instead")


def check_flat_exp(cls):
    """Exercise: `FlatValue.exp()`. An unfinished stub (which returns None) gets one message."""
    title = "Exercise: exp without a closure"
    try:
        unfinished = cls(0.5).exp() is None
    except Exception:  # the checks below report it, each in its own words
        unfinished = False
    if unfinished:
        return run_checks(title, [exp_values], cls)
    return run_checks(title, [exp_values, exp_gradient, exp_chain_rule, exp_no_closure], cls)


# --------------------------------------------------------------------- the checkpoint

# name -> (arity, operation written with what FlatValue has: + and * (numbers on either side),
# relu and exp). Operands of exp are kept small so that nothing overflows.
OPERATIONS = {
    "add": (2, lambda a, b: a + b),
    "mul": (2, lambda a, b: a * b),
    "add_number": (1, lambda a: a + 1.5),
    "number_add": (1, lambda a: -0.5 + a),
    "mul_number": (1, lambda a: a * -0.75),
    "number_mul": (1, lambda a: 2 * a),
    "relu": (1, lambda a: a.relu()),
    "exp": (1, lambda a: (a * 0.1).exp()),
}


def random_program(seed, n_inputs=3, n_steps=14):
    """A seeded random program: inputs, and steps (operation name, i, j) on earlier nodes.

    The first steps add the inputs up, one after another, so every input reaches the output;
    then each step uses the node just before it, and often an earlier one as well, so nodes
    are shared.
    """
    rng = random.Random(seed)
    inputs = [rng.uniform(-1.5, 1.5) for _ in range(n_inputs)]
    steps = [("add", n_inputs - 1 + k, k) for k in range(n_inputs - 1)]
    for _ in range(n_steps):
        last = n_inputs + len(steps) - 1
        steps.append((rng.choice(list(OPERATIONS)), last, rng.randrange(last + 1)))
    return inputs, steps


def run_program(cls, inputs, steps):
    """Build a program with `cls`; return (leaves, output)."""
    leaves = [cls(x) for x in inputs]
    nodes = list(leaves)
    for name, i, j in steps:
        arity, operation = OPERATIONS[name]
        nodes.append(operation(nodes[i], nodes[j]) if arity == 2 else operation(nodes[i]))
    return leaves, nodes[-1]


@check("no attribute dictionary: every attribute is declared in `__slots__`")
def uses_slots(cls):
    for what, v in (("a leaf", cls(1.0)), ("a product", cls(1.0) * cls(2.0))):
        expect(not hasattr(v, "__dict__"),
               f"{what} has a `__dict__`: list every attribute in `__slots__` (and do not "
               "inherit from a class without `__slots__`)")


@check("(a·b + c)·relu(a) + exp(c/2): the reference engine's value and gradients")
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


@check(f"random expressions with plain numbers on both sides (seeds {SEEDS[0]} to "
       f"{SEEDS[-1]}): the reference engine's values and gradients")
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


@check("a value used twice collects both paths: d(x·x)/dx = 2x, d(x + x)/dx = 2")
def shared_value(cls):
    x = cls(3.0)
    (x * x).backward()
    expect_close(x.grad, 6.0, "d(x·x)/dx at x = 3", hint="add (`+=`) into each input's grad")
    x = cls(3.0)
    (x + x).backward()
    expect_close(x.grad, 2.0, "d(x + x)/dx", hint="add (`+=`) into each input's grad")


@check("calling backward() twice adds one more copy of every leaf's gradient")
def backward_twice(cls):
    a, b, c = cls(2.0), cls(-3.0), cls(10.0)
    out = (a * b + c) * a
    out.backward()
    first = [a.grad, b.grad, c.grad]
    out.backward()
    for name, v, once in zip("abc", (a, b, c), first):
        expect_close(v.grad, 2 * once, f"`{name}.grad` after two calls",
                     hint="reset the gradients of the intermediate nodes (those with inputs) "
                          "at the start of `backward()`, and leave the leaves alone")


@check("a plain number makes no node: `(v * 2.5)._prev` and `(1 + v)._prev` are `(v,)`")
def numbers_are_not_nodes(cls):
    v = cls(2.0)
    for text, out in (("v * 2.5", v * 2.5), ("1 + v", 1 + v)):
        prev = out._prev
        expect(isinstance(prev, tuple) and len(prev) == 1 and prev[0] is v,
               f"`({text})._prev` should be `(v,)` but holds {len(prev)} value(s): keep a "
               "plain number out of the graph, and use it only in the output and the local "
               "derivative")


@check("no reference cycles: a graph is freed without the garbage collector")
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
    expect(left == 0, f"after a graph's last reference went, {left} of its values were still "
                      "waiting for the garbage collector: something in a reference cycle holds "
                      "them (a node that holds a function which uses the node? a nested function "
                      "in `backward()` that calls itself?)")


@check(f"backward() works on a chain {DEPTH:,} nodes deep at the default recursion limit")
def deep_chain(cls):
    x, step = cls(0.5), cls(1.0)
    y = x
    for _ in range(DEPTH):
        y = y + step
    with default_recursion_limit():
        y.backward()
    expect(x.grad == 1.0 and step.grad == DEPTH,
           f"`x.grad` should be 1.0 and `step.grad` {DEPTH:,}, but were {x.grad!r} and "
           f"{step.grad!r}")


def checkpoint(cls):
    """Chapter 10's specification, on a FlatValue-like class (see the module docstring)."""
    checks = [uses_slots, fixed_expression, random_expressions, shared_value, backward_twice,
              numbers_are_not_nodes, no_cycles, deep_chain]
    return run_checks("Chapter 10 · Making it fast: your FlatValue", checks, cls)
