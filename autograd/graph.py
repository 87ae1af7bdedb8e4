"""Walking a graph of values: the one place that knows how.

A graph here is any object with `_prev`, the values it was computed from: the package's two
engines, every chapter's stage, and the class a learner writes in a notebook. The walks use an
explicit stack rather than recursion, so a chain a million nodes deep works at the default
recursion limit, and they track values by identity, so a learner's class that redefines `==`
or `hash` is walked correctly.

    >>> from autograd import Value
    >>> a = Value(2.0); b = a * a + 1
    >>> [v._op for v in topological_order(b)]      # inputs first, the root last
    ['', '*', '', '+']
    >>> count(b)
    4
"""

import contextlib
import gc
from operator import itemgetter

__all__ = [
    "topological_order",
    "backward_order",
    "breadth_first_order",
    "trace",
    "count",
    "require_value_like",
    "VALUE_ATTRIBUTES",
    "backward_by_hand",
    "cycle_message",
    "refuse_a_cycle",
    "operations_order",
    "operations_order_in_slots",
    "backward_operations",
    "reaches_all",
    "collector_paused",
]

# What a value has, for anything that shows it (a drawing, an explorer): not only `_prev`.
VALUE_ATTRIBUTES = ("data", "grad", "_prev", "_op")


def require_value_like(obj, context, attributes=VALUE_ATTRIBUTES):
    """Raise TypeError unless `obj` has every one of `attributes`; `context` says what it was."""
    missing = [name for name in attributes if not hasattr(obj, name)]
    if missing:
        raise TypeError(
            f"{context} must be a Value-like object (with {', '.join(attributes)}), but was "
            f"given {obj!r} of type {type(obj).__name__}, which has no {', '.join(missing)}"
        )


def _inputs(value):
    """The values `value` was computed from, in the order its `_prev` holds them."""
    try:
        prev = value._prev
    except AttributeError:
        require_value_like(value, "every value of a graph", ("_prev",))
        raise
    if not isinstance(prev, (tuple, list, set, frozenset)):
        raise TypeError(
            f"_prev of {value!r} must be a tuple, list or set of values, but is {prev!r} "
            f"of type {type(prev).__name__}"
        )
    return prev


def cycle_message(value):
    """What a sort says when it meets `value` again while still placing its inputs: `value`
    depends on itself, which no graph built by operations can (each node is made after its
    inputs), but one whose `_prev` was edited can."""
    try:
        shown = repr(value)
    except Exception:
        shown = f"a value with data {getattr(value, 'data', '?')!r}"
    label, op = getattr(value, "label", ""), getattr(value, "_op", "")
    return (
        f"the graph has a cycle: {shown}"
        + (f", label {label!r}," if label else "")
        + (f" made by {op!r}," if op else "")
        + " depends on itself (its _prev, or an "
        "input's, was edited to hold a value computed from it), so no order can pass every "
        "gradient back after all of it has arrived. Build the graph again with the operations"
    )


def topological_order(root, require=("_prev",)):
    """Every value `root` depends on, inputs before the values made from them, `root` last.

    The depth-first post-order that `Value.backward()` uses, inputs visited in `_prev` order.
    Each value must have the attributes in `require` (a drawing needs `data`, `grad` and
    `_op` as well), or TypeError says which one is missing where.
    """
    require_value_like(root, "the root of the graph", require)
    more = tuple(name for name in require if name != "_prev")  # _prev: _inputs checks it
    order = []
    placed = set()  # ids of the values in `order`
    stack = [(root, iter(_inputs(root)))]
    deepest = 4096
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in placed:  # in a graph without a cycle, never on the stack
                if more and not all(hasattr(child, name) for name in more):  # say where
                    require_value_like(child, f"every input in _prev of {node!r}", require)
                # (an engine's `_prev` is a tuple: `_inputs` checks anything else, and says
                # what is wrong, without slowing the common case)
                inputs = getattr(child, "_prev", None)
                stack.append((child, iter(inputs if type(inputs) is tuple else _inputs(child))))
                if len(stack) > deepest:  # a cycle would push the same values for ever
                    deepest = 8 * len(stack)
                    refuse_a_cycle(stack)
                break
        else:  # every input is placed, so the node itself can be
            stack.pop()
            placed.add(id(node))
            order.append(node)
    return order


def refuse_a_cycle(stack):
    """Raise ValueError if a value is on `stack` twice: it is among its own inputs' inputs.

    `stack` holds `(value, iterator)` pairs, as the depth-first sorts here and in
    `Value.backward()` keep them. Those sorts mark a value only once it is placed, which costs
    nothing more than marking it when first reached; a value met again before it is placed is
    then pushed again, which happens only on a cycle. They call this each time the stack grows
    past 8 times its depth at the last look (and first past 4,096), so the looks read at most
    8/7 of the deepest stack in all, and run in C until they find a repeat.
    """
    _refuse_a_repeat(list(map(itemgetter(0), stack)))


def _refuse_a_repeat(nodes):
    """Raise ValueError with `cycle_message` if a value is in the list `nodes` twice."""
    try:  # a quick look first, in C; exact for values hashed by identity, as the engines' are
        if len(set(nodes)) == len(nodes):
            return
    except TypeError:  # a learner's class that defines == without a hash
        pass
    seen = set()
    for node in nodes:
        if id(node) in seen:
            raise ValueError(cycle_message(node))
        seen.add(id(node))


def operations_order(root, placed=None):
    """`(operations, met)`: the values with inputs that `root` depends on, in
    `topological_order` (the leaves left out), and the set of every value met, leaves too.

    A quicker walk than `topological_order`, for the package's engines only: their values hash
    by identity and keep a tuple in `_prev`, so it keeps the values themselves in its set, and
    never pushes a leaf. `placed`, if given, is that set to start from: the walk stops at the
    values it holds, leaves them out, and adds the ones it meets (so a second walk from
    another root finds only what the first did not). ValueError on a cycle, as
    `Value.backward()` raises it.
    """
    order = []
    placed = set() if placed is None else placed
    stack = [(root, iter(root._prev))]
    deepest = 4096
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in placed:
                if child._prev:
                    stack.append((child, iter(child._prev)))
                    if len(stack) > deepest:  # a cycle would push the same values for ever
                        deepest = 8 * len(stack)
                        refuse_a_cycle(stack)
                    break
                placed.add(child)  # a leaf
        else:  # every input is placed, so the node itself can be
            stack.pop()
            placed.add(node)
            if node._prev:
                order.append(node)
    return order, placed


def backward_operations(root, value_class, leaf_backward):
    """The values whose `_backward` a backward pass from `root` runs, inputs first.

    For a graph of `value_class` values as its operations build them (`_prev` a tuple, and
    `leaf_backward`, which passes nothing back, the `_backward` of every leaf), that is
    `operations_order(root)[0]`: the quicker walk, the leaves left out. For any other graph (a
    `_prev` edited, a leaf given a `_backward`, a value of another class) it is
    `topological_order(root)`, leaves too, which raises what it always has (on a cycle, on a
    `_prev` that is not a tuple, list or set of values) or orders the graph as it always has.
    """
    try:
        operations, met = operations_order(root)
    except Exception:  # the full walk raises its own error here (or finds a good order)
        return topological_order(root)
    for value in met:
        if type(value) is not value_class or type(value._prev) is not tuple:
            return topological_order(root)
        if not value._prev and value._backward is not leaf_backward:
            return topological_order(root)
    return operations


def operations_order_in_slots(root):
    """`operations_order(root)[0]` for values that keep their inputs in two attributes rather
    than a tuple, as the fast engine does: `_a` (None on a leaf) and `_b` (None on a value with
    one input). Read without building a `_prev` tuple per value, so the walk costs little more
    than the fast engine's own sort, which marks `.grad` where this keeps a set.

    A node is visited first, and again after each input the walk goes down into. Coming back
    to it from its `_b` (or from an `_a` that is its `_b` too), the walk places it at once:
    both inputs are placed by then, so looking them up in the set again would find nothing."""
    order = []
    if root._a is None:
        return order
    placed = set()
    stack, node, deepest = [], root, 4096
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
                while True:  # place it, and each node waiting on the stack for it as its `_b`
                    placed.add(node)
                    order.append(node)
                    if not stack:
                        return order
                    waiting = stack.pop()
                    if waiting._b is not node:  # back from `_a`: `_b` is still to look at
                        break
                    node = waiting
                node = waiting
                continue
        if len(stack) > deepest:  # a cycle would push the same values for ever
            deepest = 8 * len(stack)
            _refuse_a_repeat(stack)


def backward_order(root, require=("_prev",)):
    """The values in the order `root.backward()` runs their `_backward`: `root` first.

    The reverse of `topological_order`, so each value comes after every value that uses it,
    and has received all of its gradient by its turn.
    """
    return topological_order(root, require)[::-1]


def backward_by_hand(root, seed=1.0, require=("_prev",)):
    """What `backward()` does, for a class that has no `backward` yet (chapters 2 to 4): set
    `root.grad = seed`, then run every value's `_backward` in `backward_order`."""
    root.grad = seed
    for node in backward_order(root, require):
        node._backward()


def trace(root, require=("_prev",)):
    """`(values, edges)` for the graph that ends at `root`.

    `values` lists each value once, in `topological_order` (the order a drawing names them
    in: `v0, v1, ...`). `edges` holds one `(input, output)` pair per use, so `y = x * x`
    gives `(x, y)` twice.
    """
    values = topological_order(root, require)
    edges = [(child, value) for value in values for child in _inputs(value)]
    return values, edges


def breadth_first_order(root):
    """Every value of the graph in the order a breadth-first search from `root` meets it: the
    root, then its inputs, then theirs, level by level (the order learners often expect
    backward() to take, and the checks and the stepper show why it is not)."""
    order, seen = [root], {id(root)}
    for node in order:  # the list grows as the search goes: it is its own queue
        for child in _inputs(node):
            if id(child) not in seen:
                seen.add(id(child))
                order.append(child)
    return order


def reaches_all(root, values):
    """Whether every one of `values` is in the graph of `root`: a breadth-first search, which
    stops as soon as it has met them all (a gradient's inputs are usually near its top)."""
    missing = {id(value) for value in values}
    seen, queue = {id(root)}, [root]
    for node in queue:  # the list grows as the search goes: it is its own queue
        missing.discard(id(node))
        if not missing:
            return True
        for child in _inputs(node):
            if id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    return False


def count(root):
    """How many distinct values the graph that ends at `root` holds, `root` included (a walk
    that keeps no order, so it is quicker than `topological_order` on a large graph)."""
    seen, stack = {id(root)}, [root]
    while stack:
        for child in _inputs(stack.pop()):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return len(seen)


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector switched off while a large graph is built (grad's
    gradients, a compile's trace), and back to what it was afterwards, even on an error. Building many nodes that live on
    would otherwise start a collection every few hundred objects, and each of the rarer full
    ones walks every object alive, the graph being read and the one being built included.
    What is made and dropped meanwhile is freed by the first collection after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
