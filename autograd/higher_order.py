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

This module is grad's algorithm, as chapter 12 builds it: walk the graph in backward()'s order,
run each operation's rule, add the parts (`_by_the_chain_rule`). Beside it, never inside it:
the rules (`autograd.grad_rules`), how to read a node (`autograd.reading`), and the speed paths
(`autograd._grad_speed`), which give the same numbers and the same graphs with fewer steps,
and leave to the chain rule every graph they cannot vouch for.
"""

from . import _floats, _grad_speed, fast
from .grad_rules import ENGINES, as_recorded, checked_rule, read_node, read_number, too_large
from .graph import collector_paused, reaches_all, topological_order
from .reading import show

__all__ = ["grad"]


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
    that mix the engines; NotImplementedError for an operation grad has no rule for (one of
    your own); ValueError for an input the output does not depend on (see above) and for a
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
        with collector_paused():
            results = _gradients(output, wanted, single, value_class, True, allow_unused)
    else:
        results = _gradients(output, wanted, single, value_class, False, allow_unused)
    return results[0] if single else results


def _gradients(output, wanted, single, value_class, create_graph, allow_unused):
    """The gradients, by a speed path where it vouches for the graph (`autograd._grad_speed`:
    the same numbers, and with create_graph the same graphs, node for node), else by the chain
    rule, which also finds the error to raise."""
    if create_graph:
        found = _grad_speed.values(output, wanted, value_class, allow_unused)
        if found is not None:
            results, reach = found
            return _tied(results, wanted, reach)
    else:
        results = _grad_speed.numbers(output, wanted, value_class, allow_unused)
        if results is not None:
            return results
    return _by_the_chain_rule(output, wanted, single, value_class, create_graph, allow_unused)


def _by_the_chain_rule(output, wanted, single, value_class, create_graph, allow_unused):
    """grad as chapter 12 writes it: walk the graph, check every node, then run each needed
    node's rule, in backward()'s order (`_chain_rule`)."""
    order = topological_order(output)
    for node in order:
        if not isinstance(node, value_class):
            raise TypeError(
                f"the graph of the output, a Value of {ENGINES[value_class]}, holds "
                f"{show(node)}, a value of {_class_name(node)}: a graph is built by one engine, "
                f"so grad cannot walk this one"
            )
    needed = _leading_to(order, {id(x) for x in wanted})
    if not allow_unused:
        for position, x in enumerate(wanted):
            if id(x) not in needed:
                which = "the input" if single else f"inputs[{position}],"
                raise ValueError(
                    f"the output does not depend on {which} {show(x)}: it is not in the "
                    f"output's graph, so it has no gradient. Pass allow_unused=True to get 0 "
                    f"for such an input instead"
                )

    totals = _chain_rule(output, order, needed, value_class, create_graph)
    if create_graph:
        zero = value_class(0.0)
        return _tied([totals.get(id(x), zero) for x in wanted], wanted)
    return [value_class(totals.get(id(x), 0.0)) for x in wanted]


def _chain_rule(output, order, needed, value_class, create_graph):
    """{id(node): d(output)/d(node)} for the nodes in `needed`: backward(), without `.grad`.

    Every node that leads to an input runs its rule, in reverse topological order, with the
    gradient it has received (0 if none, as backward() does, since 0 times an infinite slope
    is NaN there too), and each part it passes back is added to what its input holds. The
    rules read the nodes' numbers (`read_number`), or with create_graph the nodes themselves
    (`read_node`), so that each part is a Value computed from the graph's own nodes.
    """
    read = read_node if create_graph else read_number
    zero = value_class(0.0) if create_graph else 0.0
    totals = {id(output): value_class(1.0) if create_graph else 1.0}
    known = {}  # op label -> (its rule, the reference engine's closure code for it)
    for node in reversed(order):
        inputs = node._prev
        if not inputs or id(node) not in needed:
            continue  # a leaf passes nothing back; a node that leads to no input need not
        rule = checked_rule(node, value_class, known)
        g = totals.get(id(node), zero)
        needs = tuple(id(child) in needed for child in inputs)
        try:
            parts = rule(node, g, read, needs)
            if value_class is fast.Value:  # the parts must be what the engine recorded
                parts = as_recorded(node, g, parts, needs, create_graph)
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
            raise too_large(node, error) from error
    return totals


def _leading_to(order, wanted_ids):
    """The ids of the nodes of `order` (inputs first) from which some wanted node is reached
    through `_prev`: only they have a gradient that matters."""
    needed = set()
    for node in order:
        if id(node) in wanted_ids or any(id(child) in needed for child in node._prev):
            needed.add(id(node))
    return needed


def _tied(results, inputs, reach=None):
    """Each result, or, where its graph misses an input, `result * x**0 * y**0 ...`: the same
    number (times 1.0), with a graph that reaches every input, whose slope there is 0.
    `reach`, if given, says for each result whether its graph reaches every input (a speed
    path tracks that as it builds); else a search from each result finds out."""
    distinct = list({id(x): x for x in inputs}.values())
    if reach is None:
        reach = [reaches_all(result, distinct) for result in results]
    anchor = None
    tied = []
    for result, reaches in zip(results, reach):
        if not reaches:
            if anchor is None:
                anchor = distinct[0] ** 0
                for x in distinct[1:]:
                    anchor = anchor * x**0
            result = result * anchor
        tied.append(result)
    return tied


# ------------------------------------------------------------------------- checking inputs


def _engine_of(output):
    """The engine class of `output`, or a TypeError that says what it is instead."""
    for value_class in ENGINES:
        if isinstance(output, value_class):
            return value_class
    looks_like_a_value = all(hasattr(output, name) for name in ("data", "_prev", "_op"))
    raise TypeError(
        f"grad needs the output as a Value of autograd.engine or autograd.fast, but was given "
        f"{_floats.show(output)} of type {_class_name(output)}"
        + (
            ". It looks like a value of another class (your own, or a chapter's stage): grad "
            "knows only the operations of the package's two engines, whose derivatives it can "
            "build again as Values"
            if looks_like_a_value
            else ""
        )
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
                f"{where}, {show(x)}, is a Value of {_engine_name(x)}, but the output is a "
                f"Value of {ENGINES[value_class]}: a graph is built by one engine, so the output "
                f"and every input must be values of the same one"
            )
        raise TypeError(
            f"{where} is {_floats.show(x)} of type {_class_name(x)}, not a Value: grad "
            f"differentiates with respect to Values of the output's graph"
        )
    return items


def _engine_name(value):
    """The module of the engine that made `value`: 'autograd.engine' or 'autograd.fast'."""
    return next(name for value_class, name in ENGINES.items() if isinstance(value, value_class))


def _class_name(obj):
    """`obj`'s class, with its module, for a message."""
    return f"{type(obj).__module__}.{type(obj).__qualname__}"
