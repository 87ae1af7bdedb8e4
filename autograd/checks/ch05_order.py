"""Chapter 5 · predict an order: the learner's prediction of the depth-first sort's order,
checked (see `ch05`).
"""

import operator

from ..graph import breadth_first_order
from .toolbox import Exercise, check, diagnose, fail, show
from .ch05_graphs import _depth_first


def _wrong_orders(root):
    """(order, hint) for the orders learners really predict instead of the depth-first one."""
    order = _depth_first(root)
    root_inputs = ", ".join(child.label for child in root._prev)
    first = root._prev[0].label if root._prev else root.label
    return [
        (
            order[::-1],
            f"that lists the output first, the order `backward()` runs the closures "
            f"in. The sort lists each value after everything it was computed from, "
            f"so the output, {show(root.label)}, comes last.",
        ),
        (
            _depth_first(root, post=False),
            "that lists each value when the search first reaches it, before its inputs. The sort "
            "lists a value only when it leaves it, once all of its inputs are listed.",
        ),
        (
            _depth_first(root, inputs=lambda node: tuple(node._prev)[::-1]),
            f"that follows `_prev` from right to left. The sort takes the inputs in `_prev`'s "
            f"order: `{root.label}._prev` is `({root_inputs})`, so it goes into {show(first)} first.",
        ),
        (
            [node for node in order if not node._prev] + [node for node in order if node._prev],
            "that lists all the leaves first. A depth-first search finishes one branch before it "
            "starts the next: as soon as all of a value's inputs are listed, the value itself "
            "comes next.",
        ),
        (
            breadth_first_order(root)[::-1],
            "that is a breadth-first search from the output, read backwards: level by level. "
            "This search goes deep first, as far as it can along the first input, before it looks "
            "at the second.",
        ),
    ]


def _reveal(root):
    """The answer, for the second wrong try."""
    labels = ", ".join(show(node.label) for node in _depth_first(root))
    return (
        f" The sort lists [{labels}]: it starts at the output, goes into its first input "
        "and on as deep as it can, lists a value as soon as everything it was computed from "
        "is listed, then goes back up to the next input."
    )


def _second_try():
    return ORDER.wrong_tries >= 1


def _fail_order(message, root):
    message = message if message.endswith(".") else message + "."
    if _second_try():
        fail(message + _reveal(root))
    fail(
        message + " Try again: after a second wrong try this check shows the answer (or "
        "expand the solution below it)."
    )


def _order_problem(prediction, root):
    """What makes `prediction` not a valid order of `root`'s graph, in words; None if it is."""
    order = _depth_first(root)
    by_label = {node.label: node for node in order}
    if isinstance(prediction, str):
        return "write a list of strings, one label each, such as `['a', 'b', ...]`, not one string"
    if not isinstance(prediction, (list, tuple)):
        return f"the prediction should be a list of labels, but was {show(prediction)}"
    if any(hasattr(p, "_prev") for p in prediction):
        return (
            "write each value's label as a string, such as `'a'`, not the value itself "
            "(a value is named by its label in the drawing)"
        )
    odd = [p for p in prediction if not isinstance(p, str)]
    if odd:
        return f"each label should be a string, such as `'a'`, but {show(odd[0])} is not"
    unknown = [p for p in prediction if p not in by_label]
    if unknown:
        return (
            f"there is no value labelled {show(unknown[0])} in the graph; its labels are "
            f"{', '.join(sorted(by_label))}"
        )
    seen = {}
    for k, label in enumerate(prediction):
        if label in seen:
            return (
                f"{show(label)} appears twice in your list: the sort lists each value once, "
                "however many times it is used"
            )
        seen[label] = k
    missing = [node for node in order if node.label not in seen]
    if missing:
        parts = []
        if root in missing:
            parts.append(
                f"{show(root.label)}, the output itself: the sort lists it too, last, "
                "after everything it depends on"
            )
        leaves = [node.label for node in missing if not node._prev]
        if leaves:
            parts.append(
                f"the lea{'ves' if len(leaves) > 1 else 'f'} "
                f"{', '.join(map(show, leaves))}: the sort lists "
                f"{'them' if len(leaves) > 1 else 'it'} too (no inputs of "
                f"{'their' if len(leaves) > 1 else 'its'} own, but the output "
                f"depends on {'them' if len(leaves) > 1 else 'it'})"
            )
        middle = [node.label for node in missing if node._prev and node is not root]
        if middle:
            parts.append(
                f"{', '.join(map(repr, middle))}: the sort lists every value the output depends on"
            )
        return "your list misses " + "; and ".join(parts)
    for label in prediction:
        for child in by_label[label]._prev:
            if seen[child.label] > seen[label]:
                return (
                    f"you listed {show(label)} before {show(child.label)}, but "
                    f"{show(label)} was computed from {show(child.label)}: a value comes "
                    "after its inputs"
                )
    return None


def _known_wrong(prediction, root):
    if not isinstance(prediction, (list, tuple)):
        return None
    return diagnose(
        list(prediction),
        (([node.label for node in order], hint) for order, hint in _wrong_orders(root)),
        same=operator.eq,
    )


def _labels_of(root):
    order = _depth_first(root)
    labels = [getattr(node, "label", "") for node in order]
    if "" in labels or len(set(labels)) != len(labels):
        raise ValueError(
            "check_order_prediction needs a graph whose values all have different labels"
        )
    return order


@check("every value once, each after the values it was computed from")
def valid_order(prediction, root):
    _labels_of(root)
    hint = _known_wrong(prediction, root)
    problem = _order_problem(prediction, root)
    if problem is not None:
        _fail_order(hint or problem, root)


@check("the very order the depth-first sort gives")
def same_as_depth_first(prediction, root):
    order = _labels_of(root)
    if _order_problem(prediction, root) is not None:
        fail("not checked yet: the list must be a valid order first (see above)")
    got = [node.label for node in order]
    if list(prediction) == got:
        return
    hint = _known_wrong(prediction, root)
    if hint is None:
        k = next(k for k, (mine, sorts) in enumerate(zip(prediction, got)) if mine != sorts)
        hint = (
            f"a valid order (every value after its inputs), but not the one this search "
            f"gives: yours parts from it at position {k}, {show(prediction[k])}. Trace it "
            "again: start at the output, go into its first input and on as deep as you "
            "can; list a value as soon as all of its inputs are listed, then go back up."
        )
    _fail_order(hint, root)


ORDER = Exercise(
    5,
    "predict an order",
    [valid_order, same_as_depth_first],
    what="your predicted order",
    unanswered=lambda prediction: (
        prediction is None or (isinstance(prediction, (list, tuple)) and not prediction)
    ),
    todo="replace `None` with the labels as a list of strings, such as `['a', 'b', ...]`, in "
    "the order you expect the sort to list the values, then run this check again",
)


def check_order_prediction(prediction, root):
    """Exercise: predict, as a list of labels, the order in which the depth-first sort (the
    article's `build_topo`, children taken in `_prev` order) lists the graph of `root`. The
    first wrong try gets a hint; the second shows the order."""
    return ORDER.check(prediction, root)
