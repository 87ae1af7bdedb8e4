"""The tape: takes the graph of a trace, gives a `Trace`, its `Instruction`s as data.

`record` turns the graph of a trace into a `Trace`: the instructions in the order the engine
ran them, and the same instructions in the order `backward()` runs their closures. An
instruction's inputs are names (`p3` a parameter, `x0` an input, `t7` the result of the
instruction `t7`) or numbers (a constant of the trace). Nothing here writes code: the passes
(`passes`) read the tape, and each back end (`python`, `c`) writes it in its language.
"""

from typing import NamedTuple

from ..engine import Value
from ..graph import topological_order
from ..ops import find
from ..reading import REFERENCE_BACKWARD, exponent, require_engine_derivative


class Instruction(NamedTuple):
    """One line of the tape: `out = op(*args)`.

    `op` is the engine's operation label: `'+'`, `'*'`, `'/'`, `'**'` (a `Value` exponent),
    `'**n'` (a number exponent, which is then `args[1]`), or the name of a one-input row of
    `ops.OPS` (`'tanh'`, `'exp'`, `'log'`, `'relu'`, `'sigmoid'`, `'sin'`, `'cos'`, ...). `args` are names (`'p3'`, `'x0'`, `'t7'`) or numbers (`2.5`).
    """

    out: str
    op: str
    args: tuple


class Trace(NamedTuple):
    """What code generation needs: the tape in the order the engine ran it, the same
    instructions in the order `backward()` runs their closures, the name (or number) of the
    loss and of the auxiliary values, and how many parameters and inputs there are.

    `seed` is the gradient the backward pass starts the loss with: 1.0, or the name of an
    input that holds it. `accumulate`: the parameters' gradients hold a sum already, to which
    every contribution adds (a point's part of a batch, see `batch`)."""

    tape: list
    backward: list
    result: object
    aux: list
    has_aux: bool
    n_params: int
    n_inputs: int
    seed: object = 1.0
    accumulate: bool = False


def record(root, aux, has_aux, param_leaves, input_leaves, made, order=None):
    """Walk the graph into a `Trace` (`order`: `graph.topological_order(root)`, if known).

    A node's name is `p3`/`x0` for a parameter/input, its number for a constant (a leaf that
    is neither, or an operation on constants only), else `t<k>` for the k-th instruction.
    """
    names = {}
    for i, v in enumerate(param_leaves):
        names[id(v)] = f"p{i}"
    for i, v in enumerate(input_leaves):
        names.setdefault(id(v), f"x{i}")
    if order is None:  # reversed, the order backward() runs the closures
        order = topological_order(root)
    # Every value made during the trace, in the order the engine made them, after those made
    # before it (a value that `fn` closes over), in the graph's order.
    during = {id(n) for n in made}
    nodes = [n for n in order if id(n) not in during]
    walked = None  # the values of `order`, once an auxiliary value asks
    for a in aux:
        if isinstance(a, Value):
            walked = walked or {id(n) for n in order}
            if id(a) in walked:  # (all it depends on is in `order` already)
                continue
            more = topological_order(a)
            walked.update(id(n) for n in more)
            nodes.extend(n for n in more if id(n) not in during)
    nodes.extend(made)
    constant = set()
    tape, instruction_of = [], {}
    known = {}  # op label -> (the table's row, the code of its engine closure); '**2': '**n'
    new, get = tuple.__new__, names.get  # an Instruction, made without its __new__'s checks
    for node in nodes:
        key = id(node)
        if key in names:
            continue
        if type(node) is not Value and not isinstance(node, Value):
            raise TypeError(
                f"compile_loss traces autograd.engine.Value graphs, but the graph holds {node!r} "
                f"of type {type(node).__name__}"
            )
        prev = node._prev
        for child in prev:
            if id(child) not in constant:
                break
        else:  # no inputs, or only constants
            names[key] = node.data  # `2.5` in `a + 2.5`, or computed from constants
            constant.add(key)
            continue
        # (a child missing from `names` was made before the trace and reaches only operations
        # whose results do not reach the loss: it is a constant of the code, like a leaf)
        label = node._op
        if label in known:
            row, code = known[label]
        else:
            row = find(label)
            row, code = known[label] = (row, None if row is None else REFERENCE_BACKWARD[row.name])
        if row is None or getattr(node._backward, "__code__", None) is not code:
            # made by hand, or a `_backward` of its own: no derivative to compile (it raises)
            require_engine_derivative(node, "compile_loss")
        if row is None:
            raise NotImplementedError(
                f"compile_loss does not know the operation {node._op!r} of {node!r}"
            )
        if len(prev) == 2:  # each input a name, or a number
            a, b = prev
            args = (get(id(a), a.data), get(id(b), b.data))
        else:
            args = tuple([get(id(child), child.data) for child in prev])
        if row.parameters:  # a number exponent, as the engine was given it (2 or 2.0)
            args += (exponent(node),)
        names[key] = out = f"t{len(tape)}"
        instruction_of[key] = ins = new(Instruction, (out, row.name, args))
        tape.append(ins)
    closures = [ins for n in reversed(order) if (ins := instruction_of.get(id(n))) is not None]
    result = names[id(root)]
    aux = [names[id(a)] if isinstance(a, Value) else float(a) for a in aux]
    return Trace(tape, closures, result, aux, has_aux, len(param_leaves), len(input_leaves))


def is_name(arg):
    """Whether an argument of an instruction is a variable (`p3`, `x0`, `t7`), not a number."""
    return isinstance(arg, str)
