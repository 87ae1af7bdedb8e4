"""Chapter 10 · the objects a node keeps: the exercises on what the garbage collector sees.

- `check_cycle_path(path, start)`: the reference cycle through a node's `_backward` closure,
  each object of `path` holding the next. Never asks an object for its `__dict__` (on Python
  3.11 and later that would create one, and change what the learner sees).
- `check_object_predictions(predictions)`: the number of tracked objects one product `a * b`
  creates in each class, measured on the running Python (`count_made_by_product`).

`ch10` offers both, with the chapter's checkpoint.
"""

import gc
import itertools
import sys
from collections import Counter
from numbers import Real

from ..profiling import new_tracked_objects
from .toolbox import Exercise, check, expect, fail, is_number, show

__all__ = ["check_cycle_path", "check_object_predictions", "count_made_by_product"]


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
            if all(
                isinstance(key, str) and getattr(holder, key) is value
                for key, value in candidate.items()
            ):
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
    found = [
        r for r in referents if r is not own and type(r).__name__ not in ("dict", "module", "type")
    ]
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
        return (
            f"{said} directly: a link is missing between them, {_kind(missing[0])} that "
            f"`path[{i}]` holds and that holds `path[{i + 1}]`. Put it in between"
        )
    if missing:
        chain = ", which holds ".join(_kind(obj) for obj in missing)
        return (
            f"{said} directly: {_COUNTS[len(missing)]} missing between them. `path[{i}]` "
            f"holds {chain}, which holds `path[{i + 1}]`: put them in between, in that "
            f"order (`gc.get_referents` of each object shows what it holds)"
        )
    if _holds(held, holder):
        return (
            f"{said}: it is the other way round, `path[{i + 1}]` holds `path[{i}]`. The "
            "order is wrong: `gc.get_referrers` finds the holders, so the way round it "
            "finds reads backwards; write the path forwards, each object holding the next"
        )
    if type(holder).__name__ == "cell" and held is start:
        try:
            contents = holder.cell_contents
        except ValueError:
            contents = None
        return (
            f"{said}: this cell holds {_kind(contents)}, but not `out` (it is the cell of "
            "another variable of `__mul__`, an input). Only one of the closure's cells "
            "leads back to `out`: use `gc.get_referrers(out)` to find it"
        )
    return (
        f"{said}. `path[{i}]` holds only: {_what_it_holds(holder)}. Each object in the list "
        "must refer to the next one"
    )


@check("`path` leads from `out` back to `out`, each object holding the next")
def goes_round(path, start):
    if not isinstance(path, (list, tuple)):
        fail(f"`path` should be a list of objects, but was {show(path)}")
    expect(
        len(path) >= 1 and path[0] is start,
        "`path` should start with `out` itself: `path = [out, ...]`",
    )
    if len(path) < 2 or path[-1] is not start:
        fail(
            "`path` should end where it started, with `out` again: add the objects on the "
            "way round, then `out` (try `gc.get_referrers(out)` to see who holds `out`)"
        )
    links = list(range(len(path) - 1))
    if all(_holds(path[i], path[i + 1]) for i in links):
        return
    if len(path) > 2 and all(_holds(path[i + 1], path[i]) for i in links):
        fail(
            "every link of `path` points the wrong way: each object is held by the next one, "
            "not holding it, which is the order in which `gc.get_referrers` finds them. "
            "Reverse that order (keep `out` at both ends), so that each object holds the next"
        )
    inner = path[1:-1]
    if 1 < len(inner) <= 6:
        for order in itertools.permutations(inner):
            ring = [start, *order, start]
            if all(_holds(ring[i], ring[i + 1]) for i in links):
                i = next(i for i in links if not _holds(path[i], path[i + 1]))
                fail(
                    f"`path` holds the right objects, but the order is wrong: `path[{i}]` "
                    f"({_kind(path[i])}) does not hold `path[{i + 1}]` ({_kind(path[i + 1])}). "
                    "Order them so that each holds the next: start from `out`, and find each "
                    "next object in `gc.get_referents` of the one before"
                )
    for i in links:
        if not _holds(path[i], path[i + 1]):
            fail(_link_problem(path, i, start))


def _unwritten_path(path):
    """The stub `[out]`, with nothing added yet."""
    return isinstance(path, list) and len(path) == 1


CYCLE = Exercise(
    10,
    "find the cycle",
    [goes_round],
    what="your `path`",
    answer_of=lambda path, start: path,
    unanswered=_unwritten_path,
    todo="add the objects on the way round to `path`, ending with `out`, then run this check again",
)


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


_OBJECTS_HINT = (
    "count what `__mul__` leaves behind: the node, its `_prev` tuple, the "
    "`_backward` function, the function's `__closure__` (a tuple), and a cell for "
    "each variable of `__mul__` that `_backward` uses"
)


def _objects_wrong(value_class, answer, count, kinds, show_answer, predictions):
    """Why `answer` is not `count` for `value_class`: a hint, or with `show_answer` the count."""
    name = value_class.__name__
    cells = _closure_cells(value_class)
    slotted = "__slots__" in vars(value_class)
    # fewer for a class with __slots__ than for one without: slots were expected to remove some
    fewer_with_slots = any(
        "__slots__" not in vars(other) and isinstance(said, Real) and said > answer
        for other, said in predictions.items()
        if isinstance(other, type)
    )
    if cells > 1 and answer == count - cells + 1:
        why = (
            f"one cell is not enough: `_backward` uses {cells} variables of `__mul__` after "
            "it has returned (self, other, out), and each gets a cell of its own"
        )
    elif slotted and answer < count and (fewer_with_slots or answer == count - 1):
        why = (
            "`__slots__` changes where an instance keeps its attributes, not how many "
            "objects a product creates"
        )
    elif not slotted and answer == count + 1 and sys.version_info >= (3, 11):
        why = (
            "there is no attribute dictionary to count: since Python 3.11 an instance keeps "
            "its attributes inside itself, and makes a `__dict__` object only when someone "
            "asks for it"
        )
    else:
        why = _OBJECTS_HINT
    if show_answer:
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        return (
            f"`{name}`: you predicted {answer:g}; on this Python, one `a * b` makes {count}: "
            f"{parts}. ({why[:1].upper() + why[1:]}.)"
        )
    return f"`{name}`: {answer:g} is not it: {why}."


@check("tracked objects made by one `a * b` in each class", seconds=20)
def objects_predicted(predictions):
    if not isinstance(predictions, dict) or not predictions:
        fail(f"`predictions` should be a dict of class -> number, but was {show(predictions)}")
    problems = []
    for value_class, answer in predictions.items():
        if not isinstance(value_class, type):
            fail(
                f"the keys of `predictions` should be the classes themselves, such as "
                f"`YourValue`, but one was {show(value_class)}"
            )
        name = value_class.__name__
        if answer is None:
            problems.append(f"`{name}`: no prediction yet: replace `None` with a whole number.")
            continue
        if not is_number(answer):
            problems.append(
                f"`{name}`: your prediction should be a whole number, such as 4, "
                f"but was {show(answer)}."
            )
            continue
        count, kinds = count_made_by_product(value_class)
        if answer != count:
            problems.append(
                _objects_wrong(
                    value_class, answer, count, kinds, OBJECTS.wrong_tries >= 1, predictions
                )
            )
    if problems:
        if OBJECTS.wrong_tries < 1:
            problems.append(
                "Try again: after a second wrong try this check shows the counts "
                "(or expand the solution below it)."
            )
        fail("\n".join(problems))


def _unwritten_predictions(predictions):
    return (
        isinstance(predictions, dict)
        and bool(predictions)
        and all(answer is None for answer in predictions.values())
    )


OBJECTS = Exercise(
    10,
    "predict the objects",
    [objects_predicted],
    what="your dict of predictions",
    unanswered=_unwritten_predictions,
    todo="replace each `None` with the number you expect, then run this check again",
)


def check_object_predictions(predictions):
    """Exercise: `predictions` maps each class to the predicted number of tracked objects that
    one product `a * b` of two existing values creates. Each count is measured live; the first
    wrong answer gets a hint, the second the measured counts."""
    return OBJECTS.check(predictions)
