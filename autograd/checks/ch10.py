"""Chapter 10 · Making it fast — checkpoint and exercise checks.

What the chapter asks for: a `FlatValue` class (the chapter's step 4) that stores each
operation's inputs in two slots, `_a` and `_b`, and the local derivatives d(out)/d(input) in
`_da` and `_db`, taken at forward time; keeps every attribute in `__slots__`; makes no node for
a plain number (`v * 2.5` has one input, `v`); builds no closure, so that no node sits in a
reference cycle; and exposes `_prev`, `+`, `*` (with numbers on either side), `relu`, `exp`
(the learner's exercise) and `backward()`. The checkpoint compares it with the reference
engine (`autograd.engine.Value`), which serves as an independent witness.

Exercise checks, each an `Exercise` of chapter 10 (see `exercise.py`), so that the checkpoint
lists them and fails when the learner's own answer failed, even where a solution stood in:

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
import itertools
import math
import sys
from collections import Counter
from numbers import Real

from ..engine import Value as Reference
from ..profiling import collector_off, new_tracked_objects
from .toolbox import (
    ARITHMETIC, VISITED, Exercise, chain_of_sums, check, declare_checkpoint,
    default_recursion_limit, expect, expect_close, fail, is_close, is_number, is_unwritten,
    make_program, returned, run_steps, show,
)

__all__ = ["checkpoint", "check_cycle_path", "check_object_predictions", "check_flat_exp",
           "count_made_by_product", "DEPTH"]

DEPTH = 20_000  # twenty times what a recursive sort survives
SEEDS = range(5)
# Time limits (see `check`): on a busy test machine, counting what a product makes took up to
# 1.1 s, the collector's check and the deep chain up to 0.6 s; they may take 20 s and 15 s.


# --------------------------------------------------------------------- the cycle


def _attribute_dict(holder, referents):
    """The dictionary among `referents` that holds `holder`'s attributes, if it has one already.

    On Python 3.10 every instance keeps its attributes in a dictionary of its own; from 3.11 an
    instance without `__slots__` keeps them inside itself, and a dictionary appears only once
    something asks for `__dict__` (or `vars()`). So this never asks: that would create the very
    dictionary it then reports, and change what `gc.get_referents` shows the learner.
    """
    for candidate in referents:
        if type(candidate) is not dict or not candidate:
            continue
        try:
            if all(isinstance(key, str) and getattr(holder, key) is value
                   for key, value in candidate.items()):
                return candidate
        except Exception:  # an attribute that cannot be read: not this one
            continue
    return None


def _holds(holder, held):
    """Does `holder` refer to `held` directly, as `gc.get_referents` sees it, or through the
    dictionary of its own attributes (a separate object on Python 3.10)?"""
    referents = gc.get_referents(holder)
    if any(obj is held for obj in referents):
        return True
    own = _attribute_dict(holder, referents)
    return own is not None and any(obj is held for obj in own.values())


def _what_it_holds(holder):
    """The kinds of objects `holder` refers to, for a message ("float, function, tuple")."""
    referents = gc.get_referents(holder)
    own = _attribute_dict(holder, referents)
    kinds = {type(r).__name__ for r in referents if r is not own}
    if own is not None:  # its attributes, as Python 3.11 and later list them
        kinds |= {type(v).__name__ for v in own.values()}
    return ", ".join(sorted(kinds)) or "nothing the collector tracks"


def _kind(obj):
    return f"a {type(obj).__name__}"


def _held_by(holder):
    """What `holder` refers to, as `_holds` sees it, other than a namespace (a module, a class,
    a dictionary that is not its own attributes) that happens to hold the learner's variables."""
    referents = gc.get_referents(holder)
    own = _attribute_dict(holder, referents)
    found = [r for r in referents if r is not own
             and type(r).__name__ not in ("dict", "module", "type")]
    if own is not None:
        found += list(own.values())
    return found


_MOST_MISSING = 3  # the cycle of `a * b` has four objects: at most three can be left out


def _missing_between(holder, held):
    """The fewest objects that lead from `holder` to `held`, each holding the next (without
    the two ends), or None when no chain of up to `_MOST_MISSING` objects does."""
    paths = {id(holder): []}
    frontier = [holder]
    for _ in range(_MOST_MISSING + 1):
        following = []
        for obj in frontier:
            for nxt in _held_by(obj):
                if nxt is held:
                    return paths[id(obj)]
                if id(nxt) not in paths and gc.is_tracked(nxt):
                    paths[id(nxt)] = paths[id(obj)] + [nxt]
                    following.append(nxt)
        frontier = following
    return None


_COUNTS = {1: "a link is", 2: "two links are", 3: "three links are"}


def _link_problem(path, i, start):
    """Why `path[i]` does not hold `path[i + 1]`, in words."""
    holder, held = path[i], path[i + 1]
    said = f"`path[{i}]` ({_kind(holder)}) does not hold `path[{i + 1}]` ({_kind(held)})"
    missing = _missing_between(holder, held)
    if missing and len(missing) == 1:
        return (f"{said} directly: a link is missing between them, {_kind(missing[0])} that "
                f"`path[{i}]` holds and that holds `path[{i + 1}]`. Put it in between")
    if missing:
        chain = ", which holds ".join(_kind(obj) for obj in missing)
        return (f"{said} directly: {_COUNTS[len(missing)]} missing between them. `path[{i}]` "
                f"holds {chain}, which holds `path[{i + 1}]`: put them in between, in that "
                f"order (`gc.get_referents` of each object shows what it holds)")
    if _holds(held, holder):
        return (f"{said}: it is the other way round, `path[{i + 1}]` holds `path[{i}]`. The "
                "order is wrong: `gc.get_referrers` finds the holders, so the way round it "
                "finds reads backwards; write the path forwards, each object holding the next")
    if type(holder).__name__ == "cell" and held is start:
        try:
            contents = holder.cell_contents
        except ValueError:
            contents = None
        return (f"{said}: this cell holds {_kind(contents)}, but not `out` (it is the cell of "
                "another variable of `__mul__`, an input). Only one of the closure's cells "
                "leads back to `out`: use `gc.get_referrers(out)` to find it")
    return (f"{said}. `path[{i}]` holds only: {_what_it_holds(holder)}. Each object in the list "
            "must refer to the next one")


@check("`path` leads from `out` back to `out`, each object holding the next")
def goes_round(path, start):
    if not isinstance(path, (list, tuple)):
        fail(f"`path` should be a list of objects, but was {show(path)}")
    expect(len(path) >= 1 and path[0] is start,
           "`path` should start with `out` itself: `path = [out, ...]`")
    if len(path) < 2 or path[-1] is not start:
        fail("`path` should end where it started, with `out` again: add the objects on the "
             "way round, then `out` (try `gc.get_referrers(out)` to see who holds `out`)")
    links = list(range(len(path) - 1))
    if all(_holds(path[i], path[i + 1]) for i in links):
        return
    if len(path) > 2 and all(_holds(path[i + 1], path[i]) for i in links):
        fail("every link of `path` points the wrong way: each object is held by the next one, "
             "not holding it, which is the order in which `gc.get_referrers` finds them. "
             "Reverse that order (keep `out` at both ends), so that each object holds the next")
    inner = path[1:-1]
    if 1 < len(inner) <= 6:
        for order in itertools.permutations(inner):
            ring = [start, *order, start]
            if all(_holds(ring[i], ring[i + 1]) for i in links):
                i = next(i for i in links if not _holds(path[i], path[i + 1]))
                fail(f"`path` holds the right objects, but the order is wrong: `path[{i}]` "
                     f"({_kind(path[i])}) does not hold `path[{i + 1}]` ({_kind(path[i + 1])}). "
                     "Order them so that each holds the next: start from `out`, and find each "
                     "next object in `gc.get_referents` of the one before")
    for i in links:
        if not _holds(path[i], path[i + 1]):
            fail(_link_problem(path, i, start))


def _unwritten_path(path):
    """The stub `[out]`, with nothing added yet."""
    return isinstance(path, list) and len(path) == 1


CYCLE = Exercise(10, "find the cycle", [goes_round], what="your `path`",
                 answer_of=lambda path, start: path, unanswered=_unwritten_path,
                 todo="add the objects on the way round to `path`, ending with `out`, then run "
                      "this check again")


def check_cycle_path(path, start):
    """Exercise: `path` goes round a reference cycle from `start` back to `start`."""
    return CYCLE.check(path, start)


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


_OBJECTS_HINT = ("count what `__mul__` leaves behind: the node, its `_prev` tuple, the "
                 "`_backward` function, the function's `__closure__` (a tuple), and a cell for "
                 "each variable of `__mul__` that `_backward` uses")


def _objects_wrong(value_class, answer, count, kinds, show_answer, predictions):
    """Why `answer` is not `count` for `value_class`: a hint, or with `show_answer` the count."""
    name = value_class.__name__
    cells = _closure_cells(value_class)
    slotted = "__slots__" in vars(value_class)
    # fewer for a class with __slots__ than for one without: slots were expected to remove some
    fewer_with_slots = any("__slots__" not in vars(other) and isinstance(said, Real)
                           and said > answer for other, said in predictions.items()
                           if isinstance(other, type))
    if cells > 1 and answer == count - cells + 1:
        why = (f"one cell is not enough: `_backward` uses {cells} variables of `__mul__` after "
               "it has returned (self, other, out), and each gets a cell of its own")
    elif slotted and answer < count and (fewer_with_slots or answer == count - 1):
        why = ("`__slots__` changes where an instance keeps its attributes, not how many "
               "objects a product creates")
    elif not slotted and answer == count + 1 and sys.version_info >= (3, 11):
        why = ("there is no attribute dictionary to count: since Python 3.11 an instance keeps "
               "its attributes inside itself, and makes a `__dict__` object only when someone "
               "asks for it")
    else:
        why = _OBJECTS_HINT
    if show_answer:
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        return (f"`{name}`: you predicted {answer:g}; on this Python, one `a * b` makes {count}: "
                f"{parts}. ({why[:1].upper() + why[1:]}.)")
    return f"`{name}`: {answer:g} is not it: {why}."


@check("tracked objects made by one `a * b` in each class", seconds=20)
def objects_predicted(predictions):
    if not isinstance(predictions, dict) or not predictions:
        fail(f"`predictions` should be a dict of class -> number, but was {show(predictions)}")
    problems = []
    for value_class, answer in predictions.items():
        if not isinstance(value_class, type):
            fail(f"the keys of `predictions` should be the classes themselves, such as "
                 f"`YourValue`, but one was {show(value_class)}")
        name = value_class.__name__
        if answer is None:
            problems.append(f"`{name}`: no prediction yet: replace `None` with a whole number.")
            continue
        if not is_number(answer):
            problems.append(f"`{name}`: your prediction should be a whole number, such as 4, "
                            f"but was {show(answer)}.")
            continue
        count, kinds = count_made_by_product(value_class)
        if answer != count:
            problems.append(_objects_wrong(value_class, answer, count, kinds,
                                           OBJECTS.wrong_tries >= 1, predictions))
    if problems:
        if OBJECTS.wrong_tries < 1:
            problems.append("Try again: after a second wrong try this check shows the counts "
                            "(or expand the solution below it).")
        fail("\n".join(problems))


def _unwritten_predictions(predictions):
    return (isinstance(predictions, dict) and bool(predictions)
            and all(answer is None for answer in predictions.values()))


OBJECTS = Exercise(10, "predict the objects", [objects_predicted],
                   what="your dict of predictions",
                   unanswered=_unwritten_predictions,
                   todo="replace each `None` with the number you expect, then run this check "
                        "again")


def check_object_predictions(predictions):
    """Exercise: `predictions` maps each class to the predicted number of tracked objects that
    one product `a * b` of two existing values creates. Each count is measured live; the first
    wrong answer gets a hint, the second the measured counts."""
    return OBJECTS.check(predictions)


# --------------------------------------------------------------------- exp without a closure

EXP_POINTS = (-1.5, 0.0, 0.5, 2.0)


def _exp_of(cls, x, *, first=False):
    """`cls(x).exp()`, failing with a plain message if it does not give a new node. Only the
    `first` check explains a missing node in full; the others point to it."""
    v = cls(x)
    call = f"`FlatValue({x:g}).exp()`"
    out = returned(
        v.exp(), kind=lambda out: isinstance(out, cls),
        none=(f"{call} gave None: the method has no `return`; end it with `return "
              "FlatValue(...)`, the new value") if first else
             f"{call} gave None: there is no new value to check (see the first line)",
        wrong=lambda out: (f"{call} should give a new FlatValue, but gave {show(out)}: build "
                           "it with `FlatValue(data, op, a, da)`") if first else
                          f"{call} gave {show(out)}, not a FlatValue (see the first line)")
    expect(out is not v, f"{call} returned the very value it was called on: build and return "
                         "a new FlatValue, and leave the input as it was")
    return v, out


@check("`exp()` returns a new value whose data is e^x")
def exp_values(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x, first=True)
        e = math.exp(x)
        if out.data is v:
            fail(f"`FlatValue({x:g}).exp().data` is the input itself: the arguments are mixed "
                 "up. `FlatValue(data, op, a, da)` takes the new data, the number e^x, first; "
                 "then the op's name; then the input `self`; then its local derivative")
        if is_close(out.data, x) and not is_close(x, e):
            fail(f"`FlatValue({x:g}).exp().data` should be e^x = {e:.6g} but was {x:g}, the "
                 "input's data: the first argument is the new value, `math.exp(self.data)`")
        expect_close(out.data, e, f"`FlatValue({x:g}).exp().data`",
                     hint="use `math.exp(self.data)`")
        expect(v.data == x, f"`FlatValue({x:g}).exp()` changed its input's data to "
                            f"{show(v.data)}")


def _exp_input_problem(v, out, x):
    """Why the new node's one input is not `v`, in words (or "" if it is)."""
    prev = getattr(out, "_prev", None)
    if isinstance(prev, tuple) and len(prev) == 1 and prev[0] is v:
        return ""
    order = ("`FlatValue(data, op, a, da)` takes the new data, the op's name, the input "
             "`self`, then its local derivative")
    if getattr(out, "_da", None) is v:
        held = getattr(out, "_a", None)
        held = f"{held:.6g}" if isinstance(held, float) else show(held)
        return (f"the input and its local derivative are the wrong way round: `_a` holds "
                f"{held} and `_da` holds the input. {order}")
    if getattr(out, "_op", None) is v:
        return (f"the input went where the op's name goes, and every argument after it moved "
                f"one place: {order}")
    if getattr(out, "_b", None) is v:
        return (f"the input went into the second slot, `b`: a node with one input keeps it in "
                f"`a`. {order}")
    return (f"`FlatValue({x:g}).exp()._prev` should be `(x,)`, its one input, but was "
            f"{show(prev)}: pass `self` as the input `a`. {order}")


@check("its one input is `self`, with local derivative e^x: backward() gives d(e^x)/dx = e^x")
def exp_gradient(cls):
    for x in EXP_POINTS:
        v, out = _exp_of(cls, x)
        problem = _exp_input_problem(v, out, x)
        if problem:
            fail(problem)
        out.backward()
        e = math.exp(x)
        wrong = [
            (1.0, "the local derivative of e^x is e^x, not 1 (1 is the derivative of x itself, "
                  "not of e^x)"),
            (x, "that is x, the input's data: the local derivative of e^x is e^x, the output "
                "itself"),
            (x * math.exp(x - 1), "that is the power rule, x·e^(x−1), but e^x is not a power of "
                                  "x: its derivative is e^x itself"),
            (math.exp(e), "that is e^(e^x), exp taken twice: the local derivative is e^x, "
                          "the new node's data"),
            (0.0, "no gradient reached x: store the local derivative e^x as `da`, the argument "
                  "after the input"),
        ]
        for value, meaning in wrong:
            if is_close(v.grad, value) and not is_close(value, e):
                fail(f"after `out = x.exp(); out.backward()` with x = {x:g}, `x.grad` should be "
                     f"e^x = {e:.6g} but was {v.grad:.6g}: {meaning}")
        expect_close(v.grad, e, f"after `out = x.exp(); out.backward()` with x = {x:g}, `x.grad`",
                     hint="store e^x as the local derivative: the output is its own derivative")


def _expect_given_backward(cls):
    """Fail, naming the given code, when `+`, `*` and `backward()` alone (the chapter's
    FlatValue, a cell above the exercise) give a wrong gradient: d(x·x + x)/dx = 2x + 1, with
    x used three times, two paths to add up at x."""
    x = 0.5
    v = cls(x)
    try:
        (v * v + v).backward()
    except Exception:  # the checks that follow say what went wrong
        return
    if isinstance(v.grad, (int, float)) and not is_close(v.grad, 2 * x + 1):
        fail(f"without `exp` at all, d(x·x + x)/dx at x = {x:g} should be {2 * x + 1:g} but was "
             f"{v.grad:.6g}: the given `FlatValue` (its `+`, `*` or `backward()`, a cell above "
             "this exercise) gives wrong gradients, so was that cell edited? `backward()` adds "
             "each path's part with `+=`; run that cell again as the chapter gives it")


@check("through other operations: d e^(2x)/dx = 2e^(2x), d(x·e^x)/dx = (x + 1)e^x")
def exp_chain_rule(cls):
    _expect_given_backward(cls)
    for x in (-0.7, 0.3, 1.1):
        _exp_of(cls, 2 * x)  # says so plainly if exp() gives no new node
        for what, build, expected in (
            ("d e^(2x)/dx", lambda v: (v * 2).exp(), 2 * math.exp(2 * x)),
            ("d(x·e^x)/dx", lambda v: v.exp() * v, (x + 1) * math.exp(x)),
        ):
            v = cls(x)
            build(v).backward()
            if not is_close(v.grad, expected):
                got = f"{v.grad:.6g}" if isinstance(v.grad, float) else show(v.grad)
                # backward() is the chapter's, not the learner's: only what exp() stores can
                # be at fault here
                fail(f"{what} at x = {x:g} should be {expected:.6g} but was {got}: `backward()` "
                     "multiplies the local derivative that `exp()` stored by the gradient that "
                     "arrives, and adds up the paths; so check what `exp()` stores as its local "
                     "derivative: e^x, the new node's data")


@check("no closure: the new node holds no function, so it is in no reference cycle")
def exp_no_closure(cls):
    _, out = _exp_of(cls, 0.5)
    functions = [obj for obj in gc.get_referents(out) if type(obj).__name__ == "function"]
    expect(not functions, "the node that `exp()` returns holds a function (a closure?): store "
                          "the local derivative as a number in `_da` instead")


# The chapter's `FlatValue`, as its cell gives it (tests/test_checks_core.py finds it, word for
# word, in the notebook): the class the `exp` solution builds on. When the solution fails its check
# in the learner's notebook, it runs again on a fresh copy of this (`Exercise.given`), so that an
# edited `backward` (`=` for `+=`) is told apart from a fault in the course.
GIVEN_FLAT_VALUE = """class FlatValue:
    __slots__ = ("data", "grad", "_a", "_da", "_b", "_db", "_op")

    def __init__(self, data, _op="", a=None, da=0.0, b=None, db=0.0):
        self.data = data
        self.grad = 0.0
        self._a, self._da = a, da  # the first input, and d(out)/d(a)
        self._b, self._db = b, db  # the second input (or None), and d(out)/d(b)
        self._op = _op

    @property
    def _prev(self):
        if self._b is not None:
            return (self._a, self._b)
        return () if self._a is None else (self._a,)

    def __add__(self, other):
        if isinstance(other, FlatValue):
            return FlatValue(self.data + other.data, "+", self, 1.0, other, 1.0)
        return FlatValue(self.data + other, "+", self, 1.0)  # a plain number: no node

    def __mul__(self, other):
        if isinstance(other, FlatValue):
            return FlatValue(self.data * other.data, "*", self, other.data, other, self.data)
        return FlatValue(self.data * other, "*", self, other)

    def relu(self):
        x = self.data
        return FlatValue(x if x > 0 else 0.0, "relu", self, 1.0 if x > 0 else 0.0)

    __radd__, __rmul__ = __add__, __mul__

    def backward(self):
        topo = topological_order(self)
        for node in topo:
            if node._a is not None:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            if node._a is not None:
                node._a.grad += node._da * node.grad
            if node._b is not None:
                node._b.grad += node._db * node.grad"""


def given_flat_value():
    """{"FlatValue": a fresh copy of the chapter's FlatValue class, without `exp`}."""
    from ..graph import topological_order

    namespace = {"topological_order": topological_order}
    exec(GIVEN_FLAT_VALUE, namespace)
    return {"FlatValue": namespace["FlatValue"]}


EXP = Exercise(10, "exp without a closure",
               [exp_values, exp_gradient, exp_chain_rule, exp_no_closure],
               what="your `exp`", answer_of=lambda cls: vars(cls).get("exp"),
               unanswered=is_unwritten,
               todo="replace `...` with `return FlatValue(...)`: the new data, the op's name, "
                    "the input and its local derivative; run the cell, then this check again",
               given=given_flat_value)


def check_flat_exp(cls):
    """Exercise: `FlatValue.exp()`, e^x stored as the output and as its local derivative."""
    return EXP.check(cls)


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
    (inputs,), steps = make_program(seed, OPERATIONS, n_inputs=n_inputs, n_steps=n_steps,
                                         draw=lambda rng: rng.uniform(-1.5, 1.5))
    return inputs, steps


def run_program(cls, inputs, steps):
    """Build a program with `cls`; return (leaves, output)."""
    leaves = [cls(x) for x in inputs]
    return leaves, run_steps(leaves, steps, OPERATIONS)


@check("no attribute dictionary: every attribute is declared in `__slots__`")
def uses_slots(cls):
    for what, v in (("a leaf", cls(1.0)), ("a product", cls(1.0) * cls(2.0))):
        expect(not hasattr(v, "__dict__"),
               f"{what} has a `__dict__`: list every attribute in `__slots__` (and do not "
               "inherit from a class without `__slots__`)")


@check("(a·b + c)·relu(a) + exp(c/2): the reference engine's value and gradients",
       timeout_hint=VISITED)
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
       f"{SEEDS[-1]}): the reference engine's values and gradients", timeout_hint=VISITED)
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


@check("a value used twice collects both paths: d(x·x)/dx = 2x, d(x + x)/dx = 2",
       timeout_hint=VISITED)
def shared_value(cls):
    x = cls(3.0)
    (x * x).backward()
    expect_close(x.grad, 6.0, "d(x·x)/dx at x = 3", hint="add (`+=`) into each input's grad")
    x = cls(3.0)
    (x + x).backward()
    expect_close(x.grad, 2.0, "d(x + x)/dx", hint="add (`+=`) into each input's grad")


@check("calling backward() twice adds one more copy of every leaf's gradient",
       timeout_hint=VISITED)
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


@check("no reference cycles: a graph is freed without the garbage collector", seconds=15,
       timeout_hint=VISITED)
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


@check(f"backward() works on a chain {DEPTH:,} nodes deep at the default recursion limit",
       seconds=15, timeout_hint=VISITED)
def deep_chain(cls):
    x, step, chain = chain_of_sums(cls, DEPTH, 0.5, 1.0)
    with default_recursion_limit():
        chain[-1].backward()
    expect(x.grad == 1.0 and step.grad == DEPTH,
           f"`x.grad` should be 1.0 and `step.grad` {DEPTH:,}, but were {show(x.grad)} and "
           f"{show(step.grad)}")


CHECKPOINT = [uses_slots, fixed_expression, random_expressions, shared_value, backward_twice,
              numbers_are_not_nodes, no_cycles, deep_chain]
@declare_checkpoint(10, "Chapter 10 · Making it fast: your FlatValue", CHECKPOINT)
def checkpoint(cls):
    """Chapter 10's specification, on a FlatValue-like class (see the module docstring)."""
