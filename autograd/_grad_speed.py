"""grad's speed paths: the chain rule of `autograd.higher_order`, with fewer steps per node.

Nothing here is needed to understand grad; everything here gives what the chain rule gives
(tests/test_higher_order.py holds the two to each other, number for number and node for node).
Each path first checks that the graph is one it can vouch for, and returns None where it cannot
(a node made by hand, a `_backward` replaced, an operation not in the table, a fast node whose
inputs' data changed since, a class of another engine, a cycle): grad then runs the chain rule,
which finds the error to raise, or the same numbers. Only the exceptions such a graph can
raise here are caught; any other is a bug, and surfaces.

- `numbers`, without create_graph: backward()'s own arithmetic, each operation's row written
  out once as a Python function that adds its parts into a dictionary (`_accumulator`), or the
  fast engine's recorded slopes times the gradient, for every operation of the graph.
- `values`, with create_graph: the rules on Values, where the common operations (`+`, `*`,
  relu) build their parts in line, and where what each gradient's graph can reach is tracked
  as it is built (as the bits of a number per node), so that tying the results to the inputs
  needs no walk of their graphs; the gradients of "dead" nodes, which pass nothing on (a relu
  at or below 0), are kept as numbers and never built.
"""

import re
from typing import AbstractSet, NamedTuple, Optional

from . import engine, fast, grad_rules, ops, reading
from .graph import operations_order, operations_order_in_slots

__all__ = ["numbers", "values"]


# ------------------------------------------------------------------------- without create_graph


def numbers(output, wanted, value_class, allow_unused):
    """[d(output)/d(x) as a new leaf Value, for each x of `wanted`], bit for bit backward()'s
    numbers; or None where this path does not vouch for the graph, or an input is not in it
    and `allow_unused` is False (the chain rule then says which)."""
    if any(type(node) is not value_class for node in (output, *wanted)):
        return None  # (a subclass may hash otherwise)
    try:
        if value_class is fast.Value:
            found = _numbers_fast(output)
        else:
            found = _numbers_reference(output)
    except ValueError:  # a cycle, found by the sort: the chain rule's sort says where
        return None
    except ArithmeticError:  # a divisor or a base whose data was changed since: the chain rule
        return None  # raises it too if that node leads to an input
    if found is None:
        return None
    totals, met = found
    if not allow_unused and not all(x in met for x in wanted):
        return None
    return [value_class(totals.get(x, 0.0)) for x in wanted]


def _numbers_reference(output):
    """({node: d(output)/d(node)}, every node of the graph) on the reference engine: each
    operation's accumulator, on the nodes whose `_backward` is the engine's closure for their
    operation; None where one is not."""
    order, met = operations_order(output)
    if set(map(type, met)) != {engine.Value}:
        return None
    totals = {output: 1.0}
    get = totals.get
    known = {}  # op label -> (the closure's code, the accumulator): each label looked up once
    for node in reversed(order):
        op = node._op
        entry = known.get(op)
        if entry is None:
            entry = known[op] = _reference_entry(op)
        code, accumulate = entry
        try:
            if node._backward.__code__ is not code:  # made by hand, replaced, or not in the
                return None  # table
        except AttributeError:  # a `_backward` replaced by a callable that is no function
            return None
        accumulate(node, get(node, 0.0), totals, get)
    return totals, met


def _numbers_fast(output):
    """({node: d(output)/d(node)}, the same dictionary: every node of the graph receives a
    part, if only 0) on the fast engine: the recorded slope times the gradient, each recorded
    slope first checked against its inputs' data as `grad_rules.as_recorded` checks it (at a
    glance for the common operations); None where one does not fit."""
    order = operations_order_in_slots(output)
    totals = {output: 1.0}
    get = totals.get
    slopes_to_retake = _SLOPES_TO_RETAKE
    stop = ops._Stop
    for node in reversed(order):
        g = totals[node]  # every operation but the output is an input of one placed before
        a, b, da = node._a, node._b, node._da
        op = node._op
        if op == "*":  # a * c keeps c as its slope: nothing to check
            fits = b is None or (da == b.data and node._db == a.data)
        elif op == "+":
            fits = da == 1.0 and (b is None or node._db == 1.0)
        elif op == "relu":
            fits = da == 1.0 if node.data > 0 else type(da) is stop
        else:
            slope = slopes_to_retake.get(op)
            fits = slope is not None and b is None and da == slope(a.data, node.data)
        if not fits and not _fits_as_recorded(node, g):
            return None
        totals[a] = get(a, 0.0) + da * g
        if b is not None:
            totals[b] = get(b, 0.0) + node._db * g
    if set(map(type, totals)) != {fast.Value}:
        return None
    return totals, totals


def _fits_as_recorded(node, g):
    """Whether the chain rule would take this fast node's recorded slopes as they are: its
    rule runs on the numbers, and `grad_rules.as_recorded` compares."""
    needs = (True,) * len(node._prev)
    try:
        rule = grad_rules.rule_for(node, fast.Value)
        grad_rules.as_recorded(node, g, rule(node, g, grad_rules.read_number, needs), needs, False)
    except (NotImplementedError, ValueError, ArithmeticError):  # no rule, or no fit
        return False
    return True


def _accumulator(op):
    """The row `op` of the table as `accumulate(node, g, totals, get)`, which adds what a
    reference-engine node that has received the gradient `g` passes back to each input into
    `totals` (`get` is `totals.get`): the rule's float operations in the rule's order, which
    are the closure's (tests/test_ops.py holds each closure to its row), written out once as
    Python by the table (`ops.TEXT`). The function's `source` shows it; for `*`:

        def accumulate_product(node, g, totals, get):
            node_a, node_b = node._prev
            a, b = node_a.data, node_b.data
            totals[node_a] = get(node_a, 0.0) + b * g
            totals[node_b] = get(node_b, 0.0) + a * g
    """
    names = ops.argument_names(op)
    leaves = [ops.Expr.leaf(name) for name in names] + [ops.Expr.leaf("out"), ops.Expr.leaf("g")]
    spell = "_{}".format
    inputs = [f"node_{name}" for name in names[: op.arity]]
    body = []
    for node, rule in zip(inputs, op.backward):
        part = rule(ops.TEXT, *leaves)
        if part is None:
            continue
        condition = None
        if part.op == "if":  # k.when: where the condition fails, nothing passes back
            condition, part, _ = part.parts
            body.append(f"    if {condition.text(spell)}:")
        total = ops.Expr("+", (ops.Expr.leaf(f"get({node}, 0.0)"), part))
        body.append(("        " if condition else "    ") + f"totals[{node}] = {total.text(spell)}")
    used = set(re.findall(r"\w+", "\n".join(body)))
    sources = {
        **{name: f"{node}.data" for name, node in zip(names, inputs)},
        "n": "node._op.exponent",
        "out": "node.data",
    }  # n: the label holds it
    read = [name for name in (*names, "out") if name in used]
    name = f"accumulate_{_ACCUMULATOR_WORDS.get(op.name, op.name)}"
    lines = [
        f"def {name}(node, g, totals, get):",
        f"    {', '.join(inputs)}{',' if len(inputs) == 1 else ''} = node._prev",
    ]
    if read:
        lines.append(f"    {', '.join(read)} = {', '.join(sources[name] for name in read)}")
    return ops.python_function("\n".join(lines + body) + "\n", name)


_ACCUMULATOR_WORDS = {
    "+": "sum",
    "*": "product",
    "/": "quotient",
    "**n": "power",
    "**": "power_of_values",
}
_ACCUMULATORS = {name: _accumulator(op) for name, op in ops.OPS.items()}


def _reference_entry(label):
    """(the code of the closure the reference engine gives the op `label`, its accumulator),
    or (None, None) for a label that is no row of the table."""
    row = ops.find(label)
    if row is None:
        return None, None
    return reading.REFERENCE_BACKWARD[row.name], _ACCUMULATORS[row.name]


def _recorded_slope_times_g(op):
    """Whether the one-input row `op`'s rule is `slope * g`, with the very slope the fast
    engine records (`ops.slope_text`): then a recorded slope equal to the one the input's data
    gives now passes back what the rule does, and `grad_rules.as_recorded` would take it."""
    if op.arity != 1 or op.parameters or op.fast:
        return False
    g = ops.Expr.leaf("g")
    leaves = [ops.Expr.leaf(name) for name in ops.argument_names(op)] + [ops.Expr.leaf("out")]
    part = op.backward[0](ops.TEXT, *leaves, g)
    return (
        part is not None
        and part.op == "*"
        and part.parts[1] is g
        and part.parts[0].text("_{}".format) == ops.slope_text(op, 0)
    )


# The fast engine's one-input operations whose recorded slope `_numbers_fast` checks by taking
# it again from the input's data (tanh, exp, sigmoid; relu it checks by hand).
_SLOPES_TO_RETAKE = {
    name: op.slopes[0] for name, op in ops.OPS.items() if _recorded_slope_times_g(op)
}


# ------------------------------------------------------------------------- with create_graph


def values(output, wanted, value_class, allow_unused):
    """(the gradients as Values, one per x of `wanted`, each node for node the chain rule's
    own; for each, whether its graph reaches every wanted node, or None if that is left to the
    caller to find), or None where this path does not vouch for the graph, or an input is not
    in it and `allow_unused` is False."""
    found = _inputs_reached(output, wanted, value_class)
    if found is None:
        return None
    order, masks, bits, dead = found
    if not allow_unused and not all(x in masks for x in wanted):
        return None
    bounds = {} if len(bits) > 1 else None  # for one input, the caller looks for it at the top
    totals = _build(output, order, masks, dead, bounds, value_class)
    if totals is None:  # a dead node's gradient must be built after all: build them all
        bounds = {} if len(bits) > 1 else None
        totals = _build(output, order, masks, None, bounds, value_class)
    zero = value_class(0.0)
    results = [totals.get(x, zero) for x in wanted]
    if bounds is None:
        return results, None
    return results, _all_reached(results, masks, bits, [bounds.get(x, 0) for x in wanted])


def _inputs_reached(output, wanted, value_class):
    """(the operations in backward()'s order, {node: which wanted nodes it reaches, as the
    bits of a number}, {x: the bit of each wanted x}, (the dead nodes, the nodes that are or
    pass to one), or None if there are none) for the output's graph, or None where this path
    does not vouch for it. The dictionaries are keyed by the nodes themselves, whose hash is
    their identity: every node is checked to be of the engine's own class.

    A node is dead when it reaches a wanted node, but its gradient passes on to none: a relu
    at or below 0 passes nothing back, and a node whose inputs that reach one are all dead
    passes only to them. Their gradients are in no result's graph (`_build` need not build
    them). The output and the wanted nodes are never dead. Only the reference engine's dead
    nodes are found: the fast engine's Values, which hold no cycles, are freed as soon as they
    are dropped, and are cheaper to build than to leave out."""
    if any(type(node) is not value_class for node in (output, *wanted)):
        return None
    try:
        if value_class is fast.Value:
            order = operations_order_in_slots(output)
        else:
            order = operations_order(output)[0]
    except ValueError:  # a cycle: the chain rule's sort says where
        return None
    bits = {}
    for x in wanted:
        bits.setdefault(x, 1 << len(bits))
    masks = {output: bits.get(output, 0)}  # the output may be a leaf
    if value_class is fast.Value:
        kinds, dead = _masks_fast(order, masks, bits), None
    else:
        kinds, dead = _masks_reference(order, masks, bits)
    if len(kinds) > 1 or len(set(map(type, order))) > 1:
        return None
    return order, masks, bits, dead


def _masks_fast(order, masks, bits):
    """Fill `masks` for the fast engine's `order` (inputs first, so each input's mask is known
    before it is needed); the classes of the leaves met."""
    bit = bits.get
    kinds = set()
    for node in order:
        a, b = node._a, node._b
        mask = masks.get(a)
        if mask is None:  # a leaf, met for the first time
            mask = masks[a] = bit(a, 0)
            kinds.add(type(a))
        if b is not None:
            other = masks.get(b)
            if other is None:
                other = masks[b] = bit(b, 0)
                kinds.add(type(b))
            if other and other is not mask:
                mask |= other
        itself = bit(node, 0)
        masks[node] = mask | itself if itself else mask
    return kinds


def _masks_reference(order, masks, bits):
    """Fill `masks` for the reference engine's `order`; (the classes of the leaves met, (the
    dead nodes, the nodes that are or pass to one), or None if there are none)."""
    bit = bits.get
    kinds = set()
    dead, near = set(), set()
    for node in order:
        itself = mask = bit(node, 0)
        alive = passes_to_dead = False
        for child in node._prev:
            other = masks.get(child)
            if other is None:
                other = masks[child] = bit(child, 0)
                kinds.add(type(child))
            if other:
                mask = mask | other if mask else other
                if child in dead:
                    passes_to_dead = True
                else:
                    alive = True
        masks[node] = mask
        if mask and not itself and (not alive or (node._op == "relu" and not node.data > 0)):
            dead.add(node)
            near.add(node)
        elif passes_to_dead:
            near.add(node)
    output = order[-1] if order else None
    if not dead or output in dead:  # the output's gradient is 1: it is not dead; let alone
        return kinds, None
    return kinds, (dead, near)


def _build(output, order, masks, dead, bounds, value_class):
    """{node: d(output)/d(node), a Value} for the nodes whose mask is not 0 and that are not
    dead: the chain rule with create_graph, node for node, built with fewer steps per node;
    or None where a dead node's gradient cannot be left unbuilt (the caller builds them all).

    The parts of `+`, `*` and relu are built in line, as their rules build them (`b * g` and
    `a * g` for a product, of the nodes themselves; `g` itself for a sum and for relu where it
    passes), where the node is what grad knows at a glance: on the reference engine, its
    `_backward` is the engine's closure for its op; on the fast engine, its recorded slopes are
    the ones `grad_rules.as_recorded` would take (one walk for each engine, each with that test
    written in line). Any other node runs its rule (`_by_rule`). `dead`, unless None, is
    `_inputs_reached`'s (dead nodes, the nodes that are or pass to one): what is passed to a
    dead node is in no result's graph, so it is kept as a number only (`_numbers_for_dead`).
    `bounds`, unless None, is filled with {node: the wanted nodes that d(output)/d(node)'s
    graph can reach, at most, as bits}: a part's graph holds only gradients, constants and
    the nodes its rule reads (the other input of a product, nothing for `+` and relu, the
    node and its inputs otherwise)."""
    totals = {output: value_class(1.0)}
    walk = _build_fast if value_class is fast.Value else _build_reference
    building = _Building(
        masks, totals, bounds, *(dead or (frozenset(), frozenset())), {}, {}, value_class
    )
    return totals if walk(order, building) else None


class _Building(NamedTuple):
    """What `_build`'s walks share: `masks`; the gradients built, `totals`; `bounds` or None;
    the `dead` nodes and those `near` them (are or pass to one); `dead_numbers`, {dead node:
    its gradient as a number}; `known`, for `grad_rules.checked_rule`; the `value_class`."""

    masks: dict
    totals: dict
    bounds: Optional[dict]
    dead: AbstractSet
    near: AbstractSet
    dead_numbers: dict
    known: dict
    value_class: type


def _build_reference(order, building):
    """`_build`'s walk on the reference engine; False where it cannot leave a dead node be."""
    masks, totals, bounds, _, near = building[:5]
    zero, get, keep = building.value_class(0.0), totals.get, bounds is not None
    bound_of = bounds.get if keep else None
    product, total, relu = _CLOSURES["*"], _CLOSURES["+"], _CLOSURES["relu"]
    node = None
    try:
        for node in reversed(order):
            if not masks[node]:
                continue  # a node that leads to no input need not pass anything back
            g = get(node, zero)
            op, inputs = node._op, node._prev
            code = getattr(node._backward, "__code__", None)
            if op == "*" and code is product and len(inputs) == 2:
                a, b = inputs
                factor_a, factor_b = b, a  # the parts b * g and a * g
            elif op == "+" and code is total and len(inputs) == 2:
                a, b = inputs
                factor_a = factor_b = None  # the parts g and g
            elif op == "relu" and code is relu and len(inputs) == 1:
                a, b = inputs[0], None
                factor_a = factor_b = None
            elif _by_rule(node, g, building):
                continue
            else:
                return False
            mask_a, mask_b = masks[a], (0 if b is None else masks[b])
            to_a = mask_a != 0 and (op != "relu" or node.data > 0)
            to_b = mask_b != 0
            if node in near:  # a part for a dead node is a number, and a dead node's parts too
                passed = _numbers_for_dead(
                    node, g, (a, factor_a, to_a), (b, factor_b, to_b), building
                )
                if passed is None:
                    return False
                to_a, to_b = passed
            part_a = (g if factor_a is None else factor_a * g) if to_a else None
            part_b = (g if factor_b is None else factor_b * g) if to_b else None
            bound_a = bound_b = bound_of(node, 0) if keep else 0
            if keep and factor_a is b is not None:  # each part of a product reads the other
                bound_a, bound_b = bound_a | mask_b, bound_b | mask_a
            for child, part, part_bound in ((a, part_a, bound_a), (b, part_b, bound_b)):
                if part is not None:
                    before = get(child)
                    totals[child] = part if before is None else before + part
                    if keep:
                        known_bound = 0 if before is None else bound_of(child, 0)
                        if known_bound != part_bound:  # (equal is common: no new int)
                            bounds[child] = known_bound | part_bound
    except OverflowError as error:
        raise grad_rules.too_large(node, error) from error
    return True


_CLOSURES = {name: reading.REFERENCE_BACKWARD[name] for name in ("*", "+", "relu")}


def _build_fast(order, building):
    """`_build`'s walk on the fast engine, which finds no dead nodes (see `_inputs_reached`)."""
    masks, totals, bounds = building[:3]
    zero, get, keep = building.value_class(0.0), totals.get, bounds is not None
    bound_of = bounds.get if keep else None
    stop = ops._Stop
    node = None
    try:
        for node in reversed(order):
            if not masks[node]:
                continue  # a node that leads to no input need not pass anything back
            g = get(node, zero)
            op, a, b = node._op, node._a, node._b
            mask_a, mask_b = masks[a], (0 if b is None else masks[b])
            to_a, to_b = mask_a != 0, mask_b != 0
            if op == "*" and b is None:  # a * c: the part is c * g, c the recorded slope
                factor_a = factor_b = node._da
            elif op == "*" and (
                (not to_a or node._da == b.data) and (not to_b or node._db == a.data)
            ):
                factor_a, factor_b = b, a  # the parts b * g and a * g
            elif op == "+" and (not to_a or node._da == 1.0) and (not to_b or node._db == 1.0):
                factor_a = factor_b = None  # the parts g and g
            elif (
                op == "relu"
                and b is None
                and (not to_a or (node._da == 1.0 if node.data > 0 else isinstance(node._da, stop)))
            ):
                factor_a = factor_b = None
                to_a = to_a and node.data > 0
            elif _by_rule(node, g, building):
                continue
            else:
                return False
            part_a = (g if factor_a is None else factor_a * g) if to_a else None
            part_b = (g if factor_b is None else factor_b * g) if to_b else None
            bound_a = bound_b = bound_of(node, 0) if keep else 0
            if keep and factor_a is b is not None:  # each part of a product reads the other
                bound_a, bound_b = bound_a | mask_b, bound_b | mask_a
            for child, part, part_bound in ((a, part_a, bound_a), (b, part_b, bound_b)):
                if part is not None:
                    before = get(child)
                    totals[child] = part if before is None else before + part
                    if keep:
                        known_bound = 0 if before is None else bound_of(child, 0)
                        if known_bound != part_bound:  # (equal is common: no new int)
                            bounds[child] = known_bound | part_bound
    except OverflowError as error:
        raise grad_rules.too_large(node, error) from error
    return True


def _numbers_for_dead(node, g, to_a, to_b, building):
    """For a node that is or passes to a dead node, given (input, factor, whether a part
    passes to it) for each input: add each part for a dead node (every part, if the node is
    dead itself) as a number; (whether a part still passes to a, to b as a Value), or None
    where a number is not finite (building it as a Value might raise)."""
    dead, dead_numbers, value_class = building.dead, building.dead_numbers, building.value_class
    is_dead = node in dead
    g_number = dead_numbers.get(node, 0.0) if is_dead else g.data
    passes = []
    for child, factor, to_child in (to_a, to_b):
        if to_child and (is_dead or child in dead):
            if not _add_number(child, _part_as_number(factor, g_number, value_class), dead_numbers):
                return None
            to_child = False
        passes.append(to_child)
    return passes


def _part_as_number(factor, g_number, value_class):
    """The number the part `factor * g` (g itself where `factor` is None) would hold."""
    if factor is None:
        return g_number
    return (factor.data if type(factor) is value_class else factor) * g_number


def _add_number(child, part, dead_numbers):
    """Add the number `part` to the gradient the dead node `child` has received, as a Value's
    sum would; False, adding nothing, where the total is not finite (the Values might raise).
    (Each number is checked no later than the chain rule would build its Value, so an error
    the chain rule raises there is not met first in another Value.)"""
    before = dead_numbers.get(child)
    total = part if before is None else before + part
    if total - total:  # inf or NaN
        return False
    dead_numbers[child] = total
    return True


def _by_rule(node, g, building):
    """`_build` for a node not known at a glance: the node's rule (checked against the fast
    engine's recorded slopes), each part bounded by what the node and its inputs reach; a part
    for a dead node taken as its number. False where that is not enough: the node is dead (its
    rule might raise), or a part for a dead node is no Value or not finite."""
    masks, totals, bounds, dead = building[:4]
    value_class = building.value_class
    if node in dead:
        return False
    rule = grad_rules.checked_rule(node, value_class, building.known)
    inputs = node._prev
    needs = tuple(masks[child] != 0 for child in inputs)
    parts = rule(node, g, grad_rules.read_node, needs)
    if value_class is fast.Value:
        parts = grad_rules.as_recorded(node, g, parts, needs, True)
    bound = (bounds.get(node, 0) | masks[node]) if bounds is not None else 0
    for child, part, need in zip(inputs, parts, needs):
        if part is None or not need:
            continue
        if child in dead:
            if type(part) is not value_class or not _add_number(
                child, part.data, building.dead_numbers
            ):
                return False  # (a part that is not a Value: the chain rule adds it)
        else:  # the rule may read the node and its inputs
            before = totals.get(child)
            totals[child] = part if before is None else before + part
            if bounds is not None:
                bounds[child] = bounds.get(child, 0) | bound
    return True


def _all_reached(results, masks, bits, bounds):
    """Whether each result's graph holds every wanted node. `masks` holds, for each node of
    the graph grad walked, the wanted nodes it reaches (as bits); a walk from a result stops
    at those. A result whose bound (the wanted nodes it can reach at most) misses one is
    settled without a look. For the rest, first a short breadth-first look from each result,
    which usually settles one that reaches them all; then, for the others, one walk over the
    new nodes of their graphs, inputs first, each node's mask the union of its inputs' (walking
    each result's graph to its end on its own would walk their shared parts again and again)."""
    everything = (1 << len(bits)) - 1
    reach = [
        _reaches_all_soon(result, masks, everything) if bound == everything else False
        for result, bound in zip(results, bounds)
    ]
    walked = None  # the nodes with a mask, as a set the walks add to
    for result, known in zip(results, reach):
        if known is not None or result in masks:  # settled, or a result met before
            continue
        walked = set(masks) if walked is None else walked
        new, _ = operations_order(result, placed=walked)
        for node in new:
            mask = bits.get(node, 0)
            for child in node._prev:
                mask |= masks.get(child, 0)  # (a new leaf is a constant: it reaches none)
            masks[node] = mask
    return [
        masks.get(result, 0) == everything if known is None else known
        for result, known in zip(results, reach)
    ]


def _reaches_all_soon(root, masks, everything, budget=32):
    """True if a breadth-first look at no more than `budget` new nodes from `root` finds every
    wanted node (stopping at the nodes of `masks`, whose masks it takes); None if it cannot
    tell so soon."""
    if root in masks:
        return masks[root] == everything
    found, seen, queue = 0, {root}, [root]
    for node in queue:  # the list grows as the search goes: it is its own queue
        for child in node._prev:
            if child in masks:
                found |= masks[child]
                if found == everything:
                    return True
            elif child not in seen:
                seen.add(child)
                queue.append(child)
        if len(queue) > budget:
            return None
    return False  # its every new node looked at, and what they reach taken
