"""Higher-order gradients: derivatives that are Values, so that they can be differentiated again.

`backward()` runs the chain rule on numbers: each operation passes back its local derivative
times the gradient from above, as a float, into `.grad`. `grad(y, x)` walks the same graph in
the same order, but can build every local derivative from `Value` operations on the graph's own
nodes (the slope of `t = x.tanh()` is `(1 - t) * (1 + t)`, with `t` the tanh node itself). The
gradient is then a Value with a graph of its own, which reaches back to `x`, so grad can walk it
in turn: `grad(grad(y, x, create_graph=True), x)` is the second derivative.

    >>> from autograd import Value, grad
    >>> x = Value(3.0, label="x")
    >>> y = x ** 3
    >>> dy = grad(y, x, create_graph=True)      # 3 x^2
    >>> d2y = grad(dy, x, create_graph=True)    # 6 x
    >>> d3y = grad(d2y, x)                      # 6
    >>> dy.data, d2y.data, d3y.data
    (27.0, 18.0, 6.0)
    >>> x.grad                                  # grad leaves .grad alone
    0.0

Neither engine changes for this. grad reads a graph (`_prev`, `_op`, `data`, and the fast
engine's recorded local derivatives) and builds new nodes with the engine's own operators. Each
operation's rule is its row of the table of primitives (`autograd.ops`), written the way the
engine computes the derivative, so that the rule run on numbers gives backward()'s gradients
bit for bit, and run on Values gives Values that hold the same numbers; the operations grad
knows are the table's.
"""

import contextlib
import gc
import math
import operator
import re
import types

from . import _floats, engine, fast, ops
from .graph import topological_order

__all__ = ["grad"]

ENGINES = {engine.Value: "autograd.engine", fast.Value: "autograd.fast"}


def grad(output, inputs, *, create_graph=False, allow_unused=False):
    """d(output)/d(input) for each of `inputs`, without touching any `.grad`.

    `output` is a Value of either engine (`autograd.engine` or `autograd.fast`); `inputs` is one
    Value of the same engine, which gives one gradient back, or a list or tuple of them, which
    gives a list in the same order. Inputs may be leaves or values computed along the way.

    grad visits the graph in backward()'s order (reverse topological order, the same walk) and
    adds up what each operation passes back, so a value used twice gets the sum over both paths.
    It is functional: it reads no `.grad`, writes none, and changes nothing in the graph.

    - `create_graph=False` (the default): each gradient is a new leaf Value (no inputs, no
      history) holding exactly the number `output.backward()` would put into the input's `.grad`
      on a graph whose gradients start at 0, bit for bit. It costs the same order as
      backward(): grad runs backward()'s own arithmetic, adding into a dictionary of its own.
    - `create_graph=True`: each gradient is a Value computed from the graph's own nodes by the
      engine's operations (the slope of `exp` is the exp node, that of `x ** n` is
      `n * x ** (n - 1)`, that of relu the constant 0 or 1), so grad can be applied to it again,
      to any order. It holds backward()'s number too (equal with `==`; a zero may differ in
      sign). Its graph reaches every input of the call: where the derivative does not depend on
      an input (d(3x)/dx = 3), grad ties it to the input through `x ** 0`, whose value is 1 and
      whose slope is 0, so the next derivative is 0 rather than an error.
      While it builds, grad pauses Python's cyclic garbage collector, and then leaves it as it
      found it.
    - `allow_unused`: an input that is not in the output's graph has no gradient. By default
      grad raises ValueError and names it (as PyTorch does); with `allow_unused=True` its
      gradient is a Value of 0 (not None: every gradient here is a number).

    Conventions, as in the engines (and PyTorch): relu's slope at 0 is 0; `x ** 0` passes
    nothing back, and neither does `a ** b` to `a` where b = 0; the slope of `x ** n` with
    0 < n < 1 at x = 0 is infinite. With `create_graph=True`, every local derivative is built
    so that its own derivative is right, except a power's slope where it is infinite or NaN
    (`x ** 0.5` at 0, `a ** b` in b where a <= 0): that one is a constant, there being nothing
    further to differentiate. So at b = 0, where `a ** b` passes nothing back to a, grad keeps
    the zero slope as `b * a ** (b - 1)`, whose slope in b, 1/a, a second derivative needs
    (PyTorch drops it and gives 0 there). Any other number too large for a float, a gradient
    or a step on the way to one, raises OverflowError with `create_graph=True`, as every
    operation of the engines does, where backward() gives inf.

    Errors: TypeError for an output that is not a Value of the two engines (a class of your
    own, or a chapter's stage), for inputs that are not such Values, and for a graph or inputs
    that mix the engines; NotImplementedError for an operation grad has no rule for (your own,
    such as `sin`); ValueError for an input the output does not depend on (see above) and for a
    node whose derivative grad cannot know: made by hand (`Value(data, children, op)`), with a
    `_backward` that is not its engine's, or, on the fast engine, whose recorded derivative no
    longer fits its inputs' data.
    """
    value_class = _engine_of(output)
    single = not isinstance(inputs, (list, tuple))
    wanted = _checked_inputs(inputs, single, value_class)
    for name, flag in (("create_graph", create_graph), ("allow_unused", allow_unused)):
        if type(flag) is not bool:
            raise TypeError(f"{name} must be True or False, but was given {flag!r}")

    if create_graph:
        with _collector_paused():
            return _as_values(output, wanted, single, value_class, allow_unused)
    quick = _quickly(output, wanted, value_class)
    if quick is not None:
        totals, nodes = quick
        if allow_unused or all(x in nodes for x in wanted):
            results = [value_class(totals.get(x, 0.0)) for x in wanted]
            return results[0] if single else results
    # A graph the quick way does not vouch for, or an input it does not reach: the careful
    # way finds the error to raise (or, where there is none, the same numbers).
    return _carefully(output, wanted, single, value_class, False, allow_unused)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector switched off while grad builds a gradient's graph,
    and back to what it was afterwards, even on an error. Building many nodes that live on
    would otherwise start a collection every few hundred objects, and each of the rarer full
    ones walks every object alive, the graph grad reads and the one it builds included. What
    grad makes and drops is freed by the first collection after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _as_values(output, wanted, single, value_class, allow_unused):
    """grad with create_graph: the careful way's rules, on the quick way's sort, with what
    each node's gradient reaches found once for all the results (`_built_quickly`); the
    careful way itself where the quick sort does not vouch for the graph or an input is not
    in it."""
    found = _inputs_reached(output, wanted, value_class)
    if found is None or not (allow_unused or all(x in found[1] for x in wanted)):
        return _carefully(output, wanted, single, value_class, True, allow_unused)
    order, masks, bits, dead = found
    bounds = {} if len(bits) > 1 else None  # for one input, `_tied` looks for it at the top
    try:
        totals = _built_quickly(output, order, masks, dead, bounds, value_class)
    except _BuildThemAll:
        bounds = {} if len(bits) > 1 else None
        totals = _built_quickly(output, order, masks, None, bounds, value_class)
    zero = value_class(0.0)
    results = [totals.get(x, zero) for x in wanted]
    if bounds is not None:
        results = _tied(results, wanted, (masks, bits, [bounds.get(x, 0) for x in wanted]))
    else:
        results = _tied(results, wanted)
    return results[0] if single else results


def _inputs_reached(output, wanted, value_class):
    """(the operations in backward()'s order, {node: which wanted nodes it reaches, as the
    bits of a number}, {x: the bit of each wanted x}, (the dead nodes, the nodes that are or
    pass to one), or None if there are none) for the output's graph, or None where the quick
    sort does not vouch for it (then the careful way walks it). The
    dictionaries are keyed by the nodes themselves, whose hash is their identity: every node
    is checked to be of the engine's own class.

    A node is dead when it reaches a wanted node, but its gradient passes on to none: a relu
    at or below 0 passes nothing back, and a node whose inputs that reach one are all dead
    passes only to them. Their gradients are in no result's graph (`_built_quickly` need not
    build them). The output and the wanted nodes are never dead. Only the reference engine's
    dead nodes are found: the fast engine's Values, which hold no cycles, are freed as soon
    as they are dropped, and are cheaper to build than to leave out."""
    if any(type(node) is not value_class for node in (output, *wanted)):
        return None
    try:
        if value_class is fast.Value:
            order = _sorted_fast(output)
        else:
            order = _sorted_reference(output)
            order = order and order[0]  # the operations, without the set of every node
        if order is None:
            return None
        bits = {}
        for x in wanted:
            bits.setdefault(x, 1 << len(bits))
        bit = bits.get
        masks = {output: bit(output, 0)}  # the output may be a leaf
        kinds = {value_class}
        dead, near = set(), set()  # the dead nodes; the nodes that are or pass to one
        if value_class is fast.Value:
            for node in order:  # inputs first: each input's mask is known before it is needed
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
        else:
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
                if mask and not itself and (not alive or (
                        node._op == "relu" and not node.data > 0)):
                    dead.add(node)
                    near.add(node)
                elif passes_to_dead:
                    near.add(node)
        if output in dead:
            dead, near = set(), set()  # the output's gradient is 1: it is not dead; let alone
        if len(kinds) > 1 or len(set(map(type, order))) > 1:
            return None
    except Exception:  # the careful way raises it again, or finds that it should not
        return None
    return order, masks, bits, (dead, near) if dead else None


def _carefully(output, wanted, single, value_class, create_graph, allow_unused):
    """grad's careful way: walk the graph, check every node, then run each needed node's
    rule from the table, in backward()'s order."""
    order = topological_order(output)
    for node in order:
        if not isinstance(node, value_class):
            raise TypeError(
                f"the graph of the output, a Value of {ENGINES[value_class]}, holds "
                f"{_show(node)}, a value of {_class_name(node)}: a graph is built by one engine, "
                f"so grad cannot walk this one"
            )
    needed = _leading_to(order, {id(x) for x in wanted})
    if not allow_unused:
        for position, x in enumerate(wanted):
            if id(x) not in needed:
                which = "the input" if single else f"inputs[{position}],"
                raise ValueError(
                    f"the output does not depend on {which} {_show(x)}: it is not in the "
                    f"output's graph, so it has no gradient. Pass allow_unused=True to get 0 "
                    f"for such an input instead"
                )

    totals = _chain_rule(output, order, needed, value_class, create_graph)
    if create_graph:
        zero = value_class(0.0)
        results = _tied([totals.get(id(x), zero) for x in wanted], wanted)
    else:
        results = [value_class(totals.get(id(x), 0.0)) for x in wanted]
    return results[0] if single else results


def _chain_rule(output, order, needed, value_class, create_graph):
    """{id(node): d(output)/d(node)} for the nodes in `needed`: backward(), without `.grad`.

    Every node that leads to an input runs its rule, in reverse topological order, with the
    gradient it has received (0 if none, as backward() does, since 0 times an infinite slope
    is NaN there too), and each part it passes back is added to what its input holds.
    """
    rules = RULES[value_class]
    v = _node if create_graph else _number
    zero = value_class(0.0) if create_graph else 0.0
    totals = {id(output): value_class(1.0) if create_graph else 1.0}
    known = {}  # op label -> (its rule, the reference engine's closure code for it)
    for node in reversed(order):
        inputs = node._prev
        if not inputs or id(node) not in needed:
            continue  # a leaf passes nothing back; a node that leads to no input need not
        rule = _checked_rule(node, value_class, rules, known)
        g = totals.get(id(node), zero)
        needs = tuple(id(child) in needed for child in inputs)
        try:
            parts = rule(node, g, v, needs)
            if value_class is fast.Value:
                parts = _as_recorded(node, g, parts, needs, create_graph)
            for child, part, need in zip(inputs, parts, needs):
                if part is None or not need:
                    continue
                key = id(child)
                before = totals.get(key)
                if before is None:  # backward() adds to a .grad that starts at 0.0
                    totals[key] = part if create_graph else 0.0 + part
                else:
                    totals[key] = before + part
        except OverflowError as error:
            if not create_graph:
                raise
            raise _too_large(node, error) from error
    return totals


def _checked_rule(node, value_class, rules, known):
    """The rule for `node`, looked up once for each op label in `known` ({label: (its rule,
    the reference engine's closure code for it)}) and checked against the node's `_backward`;
    or the error that says why grad cannot differentiate the node."""
    rule, code = known.get(node._op, (None, None))
    if rule is None or (code is not None
                        and getattr(node._backward, "__code__", None) is not code):
        rule = _rule_for(node, value_class, rules)  # the first of its kind, or an error
        known[node._op] = rule, _closure_code(node._op, value_class)
    return rule


def _too_large(node, error):
    """The OverflowError for a gradient built as a Value that is too large for a float."""
    return OverflowError(
        f"grad(..., create_graph=True): the gradient through {_show(node)}, made by "
        f"{node._op!r}, is too large for a float ({error}). backward() gives an "
        f"infinite gradient here; a gradient that is a Value follows the engine's rule "
        f"for numbers and raises"
    )


def _built_quickly(output, order, masks, dead, bounds, value_class):
    """{node: d(output)/d(node), a Value} for the nodes whose mask (`_inputs_reached`) is
    not 0 and that are not dead: `_chain_rule` with create_graph, node for node, built with
    fewer steps per node.

    The parts of `+`, `*` and relu are built in line, as their rules build them (`b * g` and
    `a * g` for a product, of the nodes themselves; `g` itself for a sum and for relu where it
    passes), where the node is what grad knows at a glance: on the reference engine, its
    `_backward` is the engine's closure for its op; on the fast engine, its recorded slopes
    are the ones `_as_recorded` would take. Any other node runs its rule (`_by_rule`).
    `dead`, unless None, is `_inputs_reached`'s (dead nodes, the nodes that are or pass to
    one): what is passed to a dead node is in no result's graph, so it is kept as a number
    only, a dead node's gradient being such a number (0 if none came); `_BuildThemAll` is
    raised where that is not enough. (A dead node passes only to dead nodes, or to none.)
    `bounds`, unless None, is filled with {node: the wanted nodes that d(output)/d(node)'s
    graph can reach, at most, as bits}: a part's graph holds only gradients, constants and
    the nodes its rule reads (the other input of a product, nothing for `+` and relu, the
    node and its inputs otherwise)."""
    zero = value_class(0.0)
    totals = {output: value_class(1.0)}
    get = totals.get
    keep = bounds is not None
    bound_of = bounds.get if keep else None
    known = {}  # for `_checked_rule`
    dead, near = dead or (frozenset(), frozenset())
    numbers = {}  # {dead node: its gradient, a number}
    fast_engine = value_class is fast.Value
    if fast_engine:
        product = total = relu = None
    else:
        product, total, relu = (_REFERENCE_BACKWARD[name] for name in ("*", "+", "relu"))
    stop = ops._Stop
    node = None
    try:
        for node in reversed(order):
            mask = masks[node]
            if not mask:
                continue  # a node that leads to no input need not pass anything back
            op = node._op
            g = get(node, zero)
            # what the node passes to each input: `factor * g`, or g itself where it is None
            if fast_engine:
                a, b = node._a, node._b
                mask_a, mask_b = masks[a], (0 if b is None else masks[b])
                to_a, to_b = mask_a != 0, mask_b != 0
                if op == "*" and b is None:  # a * c: the part is c * g, c the recorded slope
                    factor_a = factor_b = node._da
                elif op == "*" and ((not to_a or node._da == b.data)
                                    and (not to_b or node._db == a.data)):
                    factor_a, factor_b = b, a
                elif op == "+" and (not to_a or node._da == 1.0) and (
                        not to_b or node._db == 1.0):
                    factor_a = factor_b = None
                elif op == "relu" and b is None and (not to_a or (
                        node._da == 1.0 if node.data > 0 else isinstance(node._da, stop))):
                    factor_a = factor_b = None
                    to_a = to_a and node.data > 0
                else:
                    _by_rule(node, g, masks, totals, bounds, value_class, known, dead, numbers)
                    continue
            else:
                inputs = node._prev
                code = getattr(node._backward, "__code__", None)
                if op == "*" and code is product and len(inputs) == 2:
                    a, b = inputs
                    factor_a, factor_b = b, a
                elif op == "+" and code is total and len(inputs) == 2:
                    a, b = inputs
                    factor_a = factor_b = None
                elif op == "relu" and code is relu and len(inputs) == 1:
                    a, b = inputs[0], None
                    factor_a = factor_b = None
                else:
                    _by_rule(node, g, masks, totals, bounds, value_class, known, dead, numbers)
                    continue
                mask_a, mask_b = masks[a], (0 if b is None else masks[b])
                to_a = mask_a != 0 and (op != "relu" or node.data > 0)
                to_b = mask_b != 0
            if node in near:  # a part for a dead node is a number, and a dead node's parts too
                is_dead = node in dead
                g_number = numbers.get(node, 0.0) if is_dead else g.data
                if to_a and (is_dead or a in dead):
                    _add_number(a, _part_as_number(factor_a, g_number, value_class), numbers)
                    to_a = False
                if to_b and (is_dead or b in dead):
                    _add_number(b, _part_as_number(factor_b, g_number, value_class), numbers)
                    to_b = False
            part_a = (g if factor_a is None else factor_a * g) if to_a else None
            part_b = (g if factor_b is None else factor_b * g) if to_b else None
            if keep:
                bound = bound_of(node, 0)
                if factor_a is b is not None:  # each part of a product reads the other input
                    bound_a = bound | mask_b if mask_b else bound
                    bound_b = bound | mask_a if mask_a else bound
                else:
                    bound_a = bound_b = bound
            else:
                bound_a = bound_b = 0
            for child, part, part_bound in ((a, part_a, bound_a), (b, part_b, bound_b)):
                if part is None:
                    continue
                before = get(child)
                if before is None:
                    totals[child] = part
                    if keep:
                        bounds[child] = part_bound
                else:
                    totals[child] = before + part
                    if keep:
                        known_bound = bound_of(child, 0)
                        if known_bound != part_bound:  # (equal is common: no new int)
                            bounds[child] = known_bound | part_bound
    except OverflowError as error:
        raise _too_large(node, error) from error
    return totals


class _BuildThemAll(Exception):
    """`_built_quickly` cannot leave a dead node's gradient unbuilt: a number passed to one
    is not finite (building it as a Value might raise), or a dead node is not one it knows at
    a glance (its rule might raise). It starts again, building them all, as the careful way
    does. (It checks each number no later than the careful way would build its Value, so an
    error the careful way would raise there is not met first in another Value.)"""


def _part_as_number(factor, g_number, value_class):
    """The number the part `factor * g` (g itself where `factor` is None) would hold."""
    if factor is None:
        return g_number
    return (factor.data if type(factor) is value_class else factor) * g_number


def _add_part(child, part, bound, totals, bounds):
    """Add the Value `part` to the gradient `child` has received, and `bound` to its bound."""
    before = totals.get(child)
    totals[child] = part if before is None else before + part
    if bounds is not None:
        bounds[child] = bounds.get(child, 0) | bound


def _add_number(child, part, numbers):
    """Add the number `part` to the gradient the dead node `child` has received, as a Value's
    sum would, if that is a finite number (else the Values might raise: `_BuildThemAll`)."""
    before = numbers.get(child)
    total = part if before is None else before + part
    if total - total:  # inf or NaN
        raise _BuildThemAll
    numbers[child] = total


def _by_rule(node, g, masks, totals, bounds, value_class, known, dead, numbers):
    """`_built_quickly` for a node it does not know at a glance: the node's rule (checked
    against the fast engine's recorded slopes), each part bounded by what the node and its
    inputs reach; a part for a dead node taken as its number."""
    if node in dead:
        raise _BuildThemAll
    rule = _checked_rule(node, value_class, RULES[value_class], known)
    inputs = node._prev
    needs = tuple(masks[child] != 0 for child in inputs)
    parts = rule(node, g, _node, needs)
    if value_class is fast.Value:
        parts = _as_recorded(node, g, parts, needs, True)
    bound = (bounds.get(node, 0) | masks[node]) if bounds is not None else 0
    for child, part, need in zip(inputs, parts, needs):
        if part is None or not need:
            continue
        if child in dead:
            if type(part) is not value_class:
                raise _BuildThemAll  # (a part that is not a Value: the careful way adds it)
            _add_number(child, part.data, numbers)
        else:  # the rule may read the node and its inputs
            _add_part(child, part, bound, totals, bounds)


def _closure_code(label, value_class):
    """The code of the closure the reference engine gives the operation `label` (a node that
    has it needs no other check), or None on the fast engine, which has no closures."""
    return _reference_entry(label)[0] if value_class is engine.Value else None


# ------------------------------------------------------------------------- the quick way
# Without create_graph a gradient is a number, and grad need build nothing: it runs what
# backward() runs, operation by operation in backward()'s order, but adds each part into a
# dictionary of its own, {node: gradient}, instead of into `.grad`. It visits every operation
# of the graph, not only those that lead to an input (the others change no input's gradient),
# and checks as it goes that each is what grad knows: where one is not (a node made by hand, a
# `_backward` replaced, an operation not in the table, a fast node whose inputs' data changed,
# a class of another engine, a cycle), or anything raises, it gives up, and grad takes the
# careful way above, which finds the error (or the number) the way it always has.


def _quickly(output, wanted, value_class):
    """({node: d(output)/d(node)}, every node of the output's graph), as backward() computes
    them, bit for bit; or None, and grad takes the careful way."""
    exact = (output, *wanted)
    if any(type(node) is not value_class for node in exact):  # a subclass may hash otherwise
        return None
    try:
        if value_class is fast.Value:
            return _quickly_fast(output)
        return _quickly_reference(output)
    except Exception:  # the careful way raises it again, or finds that it should not
        return None


def _quickly_reference(output):
    """The quick way on the reference engine: each operation's row of the table, written out
    as a function that adds its parts into the dictionary (`_accumulator`), on the nodes whose
    `_backward` is the engine's closure for their operation."""
    sorted_ = _sorted_reference(output)
    if sorted_ is None:
        return None
    order, placed = sorted_
    if set(map(type, placed)) != {engine.Value}:
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
        if node._backward.__code__ is not code:  # made by hand, replaced, or not in the table
            return None
        accumulate(node, get(node, 0.0), totals, get)
    return totals, placed


def _sorted_reference(output):
    """The reference engine's nodes with inputs that `output` depends on, inputs first, as
    backward() sorts them (a depth-first post-order, inputs in `_prev` order), and the set of
    every node met, leaves too; None on a cycle. An explicit stack: no recursion."""
    order, placed = [], set()
    stack = [(output, iter(output._prev))]
    deepest = 4096
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in placed:
                if child._prev:
                    stack.append((child, iter(child._prev)))
                    if len(stack) > deepest:  # a cycle would push the same nodes for ever
                        deepest = 8 * len(stack)
                        if len({id(value) for value, _ in stack}) < len(stack):
                            return None
                    break
                placed.add(child)  # a leaf
        else:  # every input is placed, so the node itself can be
            stack.pop()
            placed.add(node)
            if node._prev:
                order.append(node)
    return order, placed


def _quickly_fast(output):
    """The quick way on the fast engine: backward()'s own products, the recorded local
    derivative times the gradient, each recorded derivative first checked against its
    inputs' data as `_as_recorded` checks it (at a glance for the common operations)."""
    order = _sorted_fast(output)
    if order is None:
        return None
    totals = {output: 1.0}
    get = totals.get
    quick_slopes = _QUICK_SLOPES
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
            slope = quick_slopes.get(op)
            fits = slope is not None and b is None and da == slope(a.data, node.data)
        if not fits and not _fits_as_recorded(node, g):
            return None
        totals[a] = get(a, 0.0) + da * g
        if b is not None:
            totals[b] = get(b, 0.0) + node._db * g
    if set(map(type, totals)) != {fast.Value}:
        return None
    return totals, totals  # every node of the graph has received a part, if only 0


def _sorted_fast(output):
    """The fast engine's nodes with inputs that `output` depends on, in backward()'s order,
    found as its sort finds them, but marked in a set of its own rather than in `.grad`; None
    on a cycle."""
    order = []
    if output._a is None:
        return order
    placed = set()
    stack, node, deepest = [], output, 4096
    while True:
        a = node._a
        if a._a is not None and a not in placed:
            stack.append(node)
            node = a
        else:
            b = node._b
            if b is not None and b._a is not None and b not in placed:
                stack.append(node)
                node = b
            else:  # both inputs are placed (or are leaves)
                placed.add(node)
                order.append(node)
                if not stack:
                    return order
                node = stack.pop()
                continue
        if len(stack) > deepest:  # a cycle would push the same nodes for ever
            deepest = 8 * len(stack)
            if len(set(stack)) < len(stack):
                return None


def _fits_as_recorded(node, g):
    """Whether the careful way would take this fast node's recorded derivatives, as they are:
    its rule runs on the numbers, and `_as_recorded` compares."""
    try:
        needs = (True,) * len(node._prev)
        rule = _rule_for(node, fast.Value, RULES[fast.Value])
        _as_recorded(node, g, rule(node, g, _number, needs), needs, False)
    except Exception:
        return False
    return True


def _number(node):
    """create_graph=False: a local derivative is a float, computed from the nodes' numbers."""
    return node.data


def _node(node):
    """create_graph=True: a local derivative is a Value, computed from the nodes themselves."""
    return node


# ------------------------------------------------------------------------------------ rules
# A rule takes an operation's output node `out`, the gradient `g` it has received, `v`
# (`_number` or `_node`) and `needs`, whether each input needs a gradient (as PyTorch's
# `ctx.needs_input_grad`: a constant's gradient is not built, and cannot overflow). It returns
# one part per input in `out._prev` order: the gradient it passes to that input, or None where
# it passes nothing or the input needs none. Each runs its operation's row of the table of
# primitives (`autograd.ops`), whose derivatives are written as the reference engine's closures
# compute them (the same float expression, in the same order): so run on numbers it gives
# backward()'s floats, and run on Values it gives Values that hold them, with graphs whose own
# derivatives are right. What is grad's own is how it reads the fast engine's nodes, which keep
# a number operand as their recorded slope, and the reciprocal 1/x where the reference divides.


class _Values:
    """The table's `k` for Values: the operations of the graph's own engine, and the slopes of a
    power as Values, except where they are infinite or NaN: a constant, with nothing further
    to differentiate."""

    @staticmethod
    def when(condition, part):
        return part() if condition else None

    @staticmethod
    def positive(x):
        return x.data > 0

    @staticmethod
    def nonzero(x):
        return (x.data if isinstance(x, tuple(ENGINES)) else x) != 0

    @staticmethod
    def power_slope(a, n):
        """n a^(n-1), the slope of a ** n in a, as `_floats.power_slope` computes it (n a
        number or an exponent node). An infinite slope (x ** 0.5 at 0) stays a number."""
        exponent_is_node = isinstance(n, tuple(ENGINES))
        slope = _floats.power_slope(a.data, n.data if exponent_is_node else n)
        return n * a ** (n - 1) if math.isfinite(slope) else slope

    @staticmethod
    def log_slope(a, b, out):
        """a^b ln a, the slope of a ** b in b, as `_floats.log_slope` computes it: a constant 0
        at a = 0 and NaN for a < 0, where there is no logarithm to differentiate."""
        slope = _floats.log_slope(a.data, b.data, out.data)
        return out * a.log() if a.data > 0 and math.isfinite(slope) else slope

    @staticmethod
    def call(name, *args):
        """Another row's operation on Values: its operator, or its method."""
        if name in _OPERATORS:
            return _OPERATORS[name](*args)
        return getattr(args[0], ops.OPS[name].method)(*args[1:])


_OPERATORS = {"+": operator.add, "*": operator.mul, "/": operator.truediv, "**": operator.pow,
              "**n": operator.pow}


_VALUES = _Values()


def _table_parts(op, out, g, v, needs, args, positions=None):
    """The parts the row `op` passes back to the inputs at `positions` (all, by default), the
    node's inputs (and parameters) being `args`, numbers or Values as `v` makes them."""
    k = _VALUES if v is _node else ops.FLOATS
    o = v(out)
    return tuple(op.backward[i](k, *args, o, g) if need else None
                 for i, need in zip(positions or range(op.arity), needs))


def _by_table(name):
    """grad's rule for the table's operation `name`, on a node that holds all its inputs.
    (Written out for one input, a number exponent, and two inputs: grad runs one per node.)"""
    op = ops.OPS[name]
    if op.parameters:  # '**n': the number exponent, as the op label holds it
        (rule_a,) = op.backward

        def rule(out, g, v, needs):
            k = _VALUES if v is _node else ops.FLOATS
            n = ops.exponent(out._op)
            return (rule_a(k, v(out._prev[0]), n, v(out), g) if needs[0] else None,)
    elif op.arity == 1:
        (rule_a,) = op.backward

        def rule(out, g, v, needs):
            k = _VALUES if v is _node else ops.FLOATS
            return (rule_a(k, v(out._prev[0]), v(out), g) if needs[0] else None,)
    else:
        rule_a, rule_b = op.backward

        def rule(out, g, v, needs):
            k = _VALUES if v is _node else ops.FLOATS
            a, b = out._prev
            a, b, o = v(a), v(b), v(out)
            return (rule_a(k, a, b, o, g) if needs[0] else None,
                    rule_b(k, a, b, o, g) if needs[1] else None)

    rule.__name__ = rule.__qualname__ = f"rule_for_{name}"
    rule.__doc__ = f"The table's rule for {name!r} (see `autograd.ops`)."
    return rule


_BY_TABLE = {name: _by_table(name) for name in ops.OPS}


def _power_of_values(out, g, v, needs):
    """a ** b with a Value b, by the table; but at b = 0, where it passes nothing back to a,
    grad keeps the zero slope as a Value: its own slope in b, a^-1, a second derivative needs."""
    to_a, to_b = _BY_TABLE["**"](out, g, v, needs)
    a, b = out._prev
    if (needs[0] and v is _node and b.data == 0 and a.data > 0 and 1.0 / a.data < math.inf
            and math.isfinite(g.data)):
        to_a = v(b) * v(a) ** (v(b) - 1) * g
    return (to_a, to_b)


def _sum_fast(out, g, v, needs):
    """Fast engine, '+': a + b, or a + c with a number c that the node does not keep."""
    if out._b is not None:
        return _BY_TABLE["+"](out, g, v, needs)
    return _table_parts(ops.OPS["+"], out, g, v, needs, (v(out._a), None), positions=[0])


def _product_fast(out, g, v, needs):
    """Fast engine, '*': a * b, or a * c with a number c, which the node keeps as its slope."""
    if out._b is not None:
        return _BY_TABLE["*"](out, g, v, needs)
    return _table_parts(ops.OPS["*"], out, g, v, needs, (v(out._a), out._da), positions=[0])


def _divide_fast(out, g, v, needs):
    """Fast engine, a / b: slopes 1/b (recorded) and the table's in b; a / c and c / a keep
    one input."""
    a, b = out._a, out._b
    divide = ops.OPS["/"]
    if b is not None:
        to_a = _times_reciprocal(out._da, g, b, v) if needs[0] else None
        return (to_a,) + _table_parts(divide, out, g, v, needs[1:], (v(a), v(b)), positions=[1])
    if _is_number_over_input(out):  # c / a: the table's slope in the divisor
        return _table_parts(divide, out, g, v, needs, (None, v(a)), positions=[1])
    return (out._da * g,)  # a / c: the recorded slope 1/c is a number


def _log_fast(out, g, v, needs):
    """Fast engine, log a: slope 1/a (recorded)."""
    return (_times_reciprocal(out._da, g, out._a, v),)


def _power_fast(out, g, v, needs):
    """Fast engine, '**': a ** b with a Value b, or c ** a with a number c (one input)."""
    if out._b is not None:
        return _power_of_values(out, g, v, needs)
    return (_slope_of_number_to_power(out, v) * g,)


RULES = {
    engine.Value: {**_BY_TABLE, "**": _power_of_values},
    fast.Value: {**_BY_TABLE, "+": _sum_fast, "*": _product_fast, "/": _divide_fast,
                 "log": _log_fast, "**": _power_fast},
}


def _times_reciprocal(slope, g, x, v):
    """g times the fast engine's recorded slope 1/x, as backward() computes it (`slope * g`).

    As a Value it is built as g / x, the way the reference engine writes it: built as
    (1/x) * g, its own slope in x, -(1/x)/x, would overflow for |x| below about 1e-154, where
    the next derivative is still a finite number. g / x may differ from (1/x) * g in the last
    bit; then the difference, exact (the two are that close), is added as a constant, so the
    Value holds backward()'s number. (Each is computed from x's data now, so that
    `_as_recorded` sees it if that data changed since the node was made.)"""
    if v is _number:
        return g / v(x) if isinstance(slope, ops._Divide) else (1.0 / v(x)) * g
    quotient = g / v(x)
    if isinstance(slope, ops._Divide):  # 1/x overflows: backward() divides too
        return quotient
    recorded = (1.0 / x.data) * g.data
    if quotient.data != recorded and abs(quotient.data - recorded) <= 4 * math.ulp(recorded):
        return quotient + (recorded - quotient.data)
    return quotient


def _is_number_over_input(out):
    """Whether a one-input '/' node of the fast engine is c / a (slope -(out / a)) rather than
    a / c (slope 1/c): only c / a records exactly -(out / a), since 1/c has the other sign."""
    slope, a = out._da, out._a.data
    if type(slope) is not float or a == 0:
        return False
    expected = -(out.data / a)
    return _same(slope, expected) and math.copysign(1.0, slope) == math.copysign(1.0, expected)


def _slope_of_number_to_power(out, v):
    """The slope out * ln c of c ** a, a number c to a Value power, on the fast engine, which
    keeps only the slope: ln c is taken back as slope / out, made exact if rounding was not."""
    slope, y = float(out._da), out.data
    if v is _number or not (math.isfinite(slope) and math.isfinite(y) and y != 0):
        return slope  # c <= 0: a constant 0 or NaN, as _floats.log_slope gives
    log_c = slope / y
    if y * log_c == slope:
        return v(out) * log_c
    return v(out) * log_c + (slope - y * log_c)  # the correction is exact: the two are so close


# ------------------------------------------------------------------------ reading a graph


def _backward_code(method):
    """The code of the `_backward` closure that a reference-engine method defines."""
    return next(const for const in method.__code__.co_consts
                if isinstance(const, types.CodeType) and const.co_name == "_backward")


# What backward() runs for each operation of the reference engine: a node whose `_backward`
# runs other code would get other gradients from backward() than from grad.
_REFERENCE_BACKWARD = {name: _backward_code(getattr(engine.Value, op.method))
                       for name, op in ops.OPS.items()}


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
    inputs = [f"node_{name}" for name in names[:op.arity]]
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
    numbers = {**{name: f"{node}.data" for name, node in zip(names, inputs)},
               "n": "_exponent(node._op)", "out": "node.data"}  # n: as the op label holds it
    read = [name for name in (*names, "out") if name in used]
    name = f"accumulate_{_ACCUMULATOR_WORDS.get(op.name, op.name)}"
    lines = [f"def {name}(node, g, totals, get):",
             f"    {', '.join(inputs)}{',' if len(inputs) == 1 else ''} = node._prev"]
    if read:
        lines.append(f"    {', '.join(read)} = {', '.join(numbers[name] for name in read)}")
    return ops.python_function("\n".join(lines + body) + "\n", name,
                               {**ops.NAMESPACE, "_exponent": ops.exponent})


_ACCUMULATOR_WORDS = {"+": "sum", "*": "product", "/": "quotient", "**n": "power",
                      "**": "power_of_values"}
_ACCUMULATORS = {name: _accumulator(op) for name, op in ops.OPS.items()}


def _reference_entry(label):
    """(the code of the closure the reference engine gives the op `label`, its accumulator),
    or (None, None) for a label that is no row of the table."""
    row = ops.find(label)
    if row is None:
        return None, None
    return _REFERENCE_BACKWARD[row.name], _ACCUMULATORS[row.name]


def _recorded_slope_times_g(op):
    """Whether the one-input row `op`'s rule is `slope * g`, with the very slope the fast
    engine records (`ops.slope_text`): then a recorded slope equal to the one the input's data
    gives now passes back what the rule does, and `_as_recorded` would take it."""
    if op.arity != 1 or op.parameters or op.fast:
        return False
    g = ops.Expr.leaf("g")
    leaves = [ops.Expr.leaf(name) for name in ops.argument_names(op)] + [ops.Expr.leaf("out")]
    part = op.backward[0](ops.TEXT, *leaves, g)
    return (part is not None and part.op == "*" and part.parts[1] is g
            and part.parts[0].text("_{}".format) == ops.slope_text(op, 0))


# The fast engine's one-input operations whose recorded slope the quick way checks by taking it
# again from the input's data (tanh, exp, sigmoid; relu it checks by hand).
_QUICK_SLOPES = {name: op.slopes[0] for name, op in ops.OPS.items() if _recorded_slope_times_g(op)}


def _known_operations():
    """The table's operations, in words: '+, *, /, ** (a number or a Value exponent), ...'."""
    names = [("** (a number or a Value exponent)" if name == "**" else name)
             for name in ops.OPS if name != "**n"]
    return ", ".join(names[:-1]) + " and " + names[-1]


def require_engine_derivative(node, who="grad"):
    """Raise ValueError unless `node`, a reference-engine Value with inputs, has the
    `_backward` its operation gives: it was not made by hand, as `Value(data, children, op)`
    (which records no derivative at all), nor given another `_backward` since. `grad` and
    `compile_loss` both differentiate by the operation's rule, so both refuse such a node;
    `who` names the one asking."""
    if not node._op or node._backward is engine._leaf_backward:
        raise ValueError(_made_by_hand(node, who))
    row = ops.find(node._op)
    if row is not None and (
            getattr(node._backward, "__code__", None) is not _REFERENCE_BACKWARD[row.name]):
        raise ValueError(
            f"{who} cannot differentiate {_show(node)}: its _backward is not the engine's "
            f"closure for {node._op!r} (it was replaced), so {who} cannot know what backward() "
            f"does through it"
        )


def _made_by_hand(node, who):
    return (f"{who} cannot differentiate {_show(node)} (op {node._op!r}): it was made by hand, "
            f"as Value(data, children, op), which records its inputs for drawing but no "
            f"derivative, so backward() passes nothing through it. Compute it with the engine's "
            f"operations")


def _rule_for(node, value_class, rules):
    """The rule for `node`'s operation, or the error that says why there is none."""
    op = node._op
    if not op or (value_class is engine.Value and node._backward is engine._leaf_backward):
        raise ValueError(_made_by_hand(node, "grad"))
    row = ops.find(op)
    rule = None if row is None else rules.get(row.name)
    if rule is None:
        raise NotImplementedError(
            f"grad has no rule for the operation {op!r} of {_show(node)}. It knows the "
            f"operations of {ENGINES[value_class]}: {_known_operations()} (-, negation and the "
            f"rest are made of these). Write your own operation from these, or use backward() "
            f"for its first derivative"
        )
    if value_class is engine.Value:
        require_engine_derivative(node)  # a _backward replaced since
    return rule


def _as_recorded(node, g, parts, needs, create_graph):
    """Check a fast node's rule against the local derivatives the engine recorded when it made
    the node (`_da`, `_db`), and return what backward() passes: the same numbers, unless the
    node was made by hand or an input's data has changed since."""
    g_number = g.data if create_graph else g
    for stored, part, need in zip((node._da, node._db), parts, needs):
        if not need:
            continue
        if part is None:
            fits = isinstance(stored, ops._Stop)  # STOP, or a copy of it from pickle
        else:
            fits = _same(part.data if create_graph else part, stored * g_number)
        if not fits:
            raise ValueError(
                f"grad cannot differentiate {_show(node)}, made by {node._op!r}: the fast "
                f"engine recorded a local derivative ({float(stored)!r}) that is not the one "
                f"{node._op!r} gives for the numbers its inputs hold now. The node was made by "
                f"hand, or an input's data changed after it was computed (the fast engine takes "
                f"its derivatives then): build the graph again"
            )
    if create_graph:
        return parts
    return tuple(stored * g for stored, _ in zip((node._da, node._db), node._prev))


def _leading_to(order, wanted_ids):
    """The ids of the nodes of `order` (inputs first) from which some wanted node is reached
    through `_prev`: only they have a gradient that matters."""
    needed = set()
    for node in order:
        if id(node) in wanted_ids or any(id(child) in needed for child in node._prev):
            needed.add(id(node))
    return needed


def _tied(results, inputs, known=None):
    """Each result, or, where its graph misses an input, `result * x**0 * y**0 ...`: the same
    number (times 1.0), with a graph that reaches every input, whose slope there is 0.
    `known`, if given, is `_inputs_reached`'s masks and bits for the graph grad walked, and
    for each result the wanted nodes its graph can reach at most (`_built_quickly`'s bounds)."""
    distinct = list({id(x): x for x in inputs}.values())
    if known is None or len(distinct) == 1:
        reach = [_reaches_all(result, distinct) for result in results]
    else:
        reach = _all_reached(results, *known)
    anchor = None
    tied = []
    for result, reaches in zip(results, reach):
        if not reaches:
            if anchor is None:
                anchor = distinct[0] ** 0
                for x in distinct[1:]:
                    anchor = anchor * x ** 0
            result = result * anchor
        tied.append(result)
    return tied


def _all_reached(results, masks, bits, bounds):
    """Whether each result's graph holds every wanted node. `masks` holds, for each node of
    the graph grad walked, the wanted nodes it reaches (as bits); a walk from a result stops
    at those. A result whose bound (the wanted nodes it can reach at most) misses one is
    settled without a look. For the rest, first a short breadth-first look from each result,
    which usually settles one that reaches them all; then, for the others, one depth-first
    walk over the new nodes of all their graphs together, each node's mask the union of its
    inputs' (walking each result's graph to its end on its own would walk their shared parts
    again and again)."""
    everything = (1 << len(bits)) - 1
    reach = [_reaches_all_soon(result, masks, everything) if bound == everything else False
             for result, bound in zip(results, bounds)]
    for result in (result for result, known in zip(results, reach) if known is None):
        if result in masks:  # a result met before
            continue
        stack = [(result, iter(result._prev))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in masks:
                    stack.append((child, iter(child._prev)))
                    break
            else:
                stack.pop()
                mask = bits.get(node, 0)
                for child in node._prev:
                    mask |= masks[child]
                masks[node] = mask
    return [masks[result] == everything if known is None else known
            for result, known in zip(results, reach)]


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


def _reaches_all(root, nodes):
    """Whether every one of `nodes` is in the graph of `root`: a breadth-first search, which
    stops as soon as it has met them all (a gradient's inputs are usually near its top)."""
    missing = {id(node) for node in nodes}
    seen, queue = {id(root)}, [root]
    for node in queue:  # the list grows as the search goes: it is its own queue
        missing.discard(id(node))
        if not missing:
            return True
        for child in node._prev:
            if id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    return False


def _same(x, y):
    """Equal floats, NaN equal to NaN."""
    return x == y or (x != x and y != y)


# ------------------------------------------------------------------------- checking inputs


def _engine_of(output):
    for value_class in ENGINES:
        if isinstance(output, value_class):
            return value_class
    looks_like_a_value = all(hasattr(output, name) for name in ("data", "_prev", "_op"))
    raise TypeError(
        f"grad needs the output as a Value of autograd.engine or autograd.fast, but was given "
        f"{_floats.show(output)} of type {_class_name(output)}"
        + (". It looks like a value of another class (your own, or a chapter's stage): grad "
           "knows only the operations of the package's two engines, whose derivatives it can "
           "build again as Values" if looks_like_a_value else "")
    )


def _checked_inputs(inputs, single, value_class):
    """`inputs` as a list of Values of `value_class`, or a TypeError that says what is wrong."""
    if single and not isinstance(inputs, tuple(ENGINES)):
        raise TypeError(
            f"inputs must be a Value or a list or tuple of Values, but was given "
            f"{_floats.show(inputs)} of type {_class_name(inputs)}"
        )
    items = [inputs] if single else list(inputs)
    for position, x in enumerate(items):
        where = "the input" if single else f"inputs[{position}]"
        if isinstance(x, value_class):
            continue
        if isinstance(x, tuple(ENGINES)):
            raise TypeError(
                f"{where}, {_show(x)}, is a Value of {_engine_name(x)}, but the output is a "
                f"Value of {ENGINES[value_class]}: a graph is built by one engine, so the output "
                f"and every input must be values of the same one"
            )
        raise TypeError(
            f"{where} is {_floats.show(x)} of type {_class_name(x)}, not a Value: grad "
            f"differentiates with respect to Values of the output's graph"
        )
    return items


def _show(node):
    """A value in a message: its data, and its label if it has one (never its `.grad`)."""
    data, label = getattr(node, "data", "?"), getattr(node, "label", "")
    return f"Value(data={data!r}, label={label!r})" if label else f"Value(data={data!r})"


def _engine_name(value):
    return next(name for value_class, name in ENGINES.items() if isinstance(value, value_class))


def _class_name(obj):
    return f"{type(obj).__module__}.{type(obj).__qualname__}"
