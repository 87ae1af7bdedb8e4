"""Chapter 11's checks, their common ground: the chapter's compiler, the checks' own copy with
switches that plant each classic mistake, and the engine as the witness (see `ch11`).
"""

import math
import re

from ..engine import Value
from ..graph import topological_order


OPS = ("+", "*", "tanh", "relu")  # what the chapter's compiler knows
SEEDS = range(5)
UPSTREAM = 2.5  # the gradient arriving from above in the exercise's graphs: not 1


# --------------------------------------------------------------------- the chapter's compiler
# The check's own copy of the compiler the chapter builds, with switches that plant each
# classic mistake: the checkpoint runs it to name the mistake whose numbers it sees.

# Each operation's local slopes, d(out)/d(input), as Python text in `out`, `a` and `b`.
_SLOPES = {
    "+": ("1.0", "1.0"),
    "*": ("{b}", "{a}"),
    "tanh": ("(1 - {out}**2)",),
    "relu": ("({out} > 0)",),
}
_FORWARD = {
    "+": "{out} = {a} + {b}",
    "*": "{out} = {a} * {b}",
    "tanh": "{out} = math.tanh({a})",
    "relu": "{out} = {a} if {a} > 0 else 0.0",
}


def _trace(root, inputs):
    """(tape, constants): `root`'s graph inputs first, one (out, op, args) per operation."""
    names = {id(leaf): name for name, leaf in inputs.items()}
    tape, constants = [], {}
    for node in topological_order(root):
        if id(node) in names:
            continue
        if not node._prev:
            name = f"c{len(constants)}"
            constants[name] = node.data
        else:
            name = f"t{len(tape)}"
            tape.append((name, node._op, [names[id(child)] for child in node._prev]))
        names[id(node)] = name
    return tape, constants


def _right_lines(out, op, args, *, slopes=None, assign=False, upstream=True):
    """The backward lines of one instruction, or with one of the classic mistakes."""
    a, b = args[0], args[-1]
    lines = []
    for target, slope in zip(args, (slopes or _SLOPES)[op]):
        slope = slope.format(out=out, a=a, b=b)
        added = f"{slope} * d{out}" if upstream else slope
        lines.append(f"d{target} {'=' if assign else '+='} {added}")
    return lines


def _source(tape, constants, inputs, *, backward=None, reverse=True, seed=1.0, twice=False):
    """The source of `compiled(<inputs>)`. `backward` maps an op to a function (out, *args) ->
    lines (the right lines where it has none); `reverse=False` runs the backward lines in
    forward order; `seed` is what the result's gradient starts at; `twice` is a tape that
    holds each instruction two times, as a tracer that records each one twice writes it."""
    backward = backward or {}
    if twice:
        tape = [instruction for instruction in tape for _ in range(2)]
    result = tape[-1][0]
    lines = [f"def compiled({', '.join(inputs)}):"]
    lines += [f"{name} = {number!r}" for name, number in constants.items()]
    lines += [_FORWARD[op].format(out=out, a=args[0], b=args[-1]) for out, op, args in tape]
    lines += [f"d{name} = 0.0" for name in [*inputs, *constants, *(t[0] for t in tape)]]
    lines.append(f"d{result} = {seed!r}")
    for out, op, args in reversed(tape) if reverse else tape:
        if op in backward:
            lines += list(backward[op](out, *args))
        else:
            lines += _right_lines(out, op, args)
    lines.append(f"return {result}, dict({', '.join(f'{n}=d{n}' for n in inputs)})")
    return "\n    ".join(lines) + "\n"


def _function(source):
    namespace = {"math": math}
    exec(compile(source, "<compiled by the check>", "exec"), namespace)
    return namespace["compiled"]


def reference_compile(root, inputs, **mistakes):
    """The chapter's compiler (with `mistakes` planted, see `_source`): the compiled function."""
    tape, constants = _trace(root, inputs)
    return _function(_source(tape, constants, inputs, **mistakes))


def _witness(build, names, numbers):
    """The engine's (value, {name: gradient}) for `build(*leaves)` at `numbers`."""
    leaves = [Value(x) for x in numbers]
    out = build(*leaves)
    out.backward()
    return out.data, {name: leaf.grad for name, leaf in zip(names, leaves)}


def _name_in(error):
    """The variable a NameError (or UnboundLocalError) is about."""
    found = re.search(r"'(\w+)'", str(error))
    return found.group(1) if found else str(error)
