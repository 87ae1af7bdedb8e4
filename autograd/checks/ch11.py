"""Chapter 11 · Trace once, run many — checkpoint and exercise checks.

What the chapter asks for: a small compiler, `my_compile(root, inputs)`. `root` is a value of
the reference engine (`autograd.engine.Value`) and `inputs` a dict that gives each input leaf
of its graph a name (`{"x1": x1, "w1": w1, ...}`). The compiler traces the graph once, inputs
first, into a *tape* (one instruction per operation; every other leaf is a constant), then
writes from the tape the source of one Python function and runs it with `exec`: the forward
pass, one assignment per instruction; then every gradient set to 0.0, the result's set to 1.0,
and the backward pass, instruction by instruction in reverse order, each adding
`local slope * d_out` into its inputs' gradients (`+=`: a value used twice gets two
contributions). The compiled function takes the inputs' numbers in the order of `inputs` and
returns `(value, {name: gradient})` for every input, computed with plain floats. Operations:
`+`, `*`, `tanh` and `relu` (with plain numbers on either side of `+` and `*`).

The checkpoint compares it with the reference engine, which serves as the witness, on the
article's neuron, on values used twice, on constants, and on random expressions, each compiled
once and run on several sets of numbers. Where the numbers are wrong, it runs the chapter's
compiler with each classic mistake planted (backward lines in forward order, `=` for `+=`, a
missing `* d_out`, a wrong slope of tanh, no seed of 1.0, an input written down as a constant)
and names the mistake whose numbers the learner's compiler reproduces.

Exercise checks, each an `Exercise` of chapter 11 (see `exercise.py`), so that the checkpoint
lists them and fails when the learner's own answer failed, even where a solution stood in:

- `check_mul_backward(mul_backward)`: `mul_backward(out, a, b)` returns the backward lines of
  one product `out = a * b`: `d{a} += {b} * d{out}` and `d{b} += {a} * d{out}`. The check
  compiles code with them, on graphs where both factors are used again and the gradient
  arriving from above is not 1, and compares with the engine.
- `check_branch_free(leaky)`: a leaky ReLU (s above 0, 0.1·s below) written with operations
  only, no choice in Python on `.data`: the same numbers as the branching version, and the
  same as the engine's when compiled once and run on numbers on either side of 0.
"""

import ast
import inspect
import math
import random
import re
import textwrap

from ..compile.tracing import creations
from ..article import NEURON, neuron_output
from ..compile import TraceMismatch, compile_loss
from ..engine import Value
from ..graph import topological_order
from .toolbox import (
    ARITHMETIC, RELU, TANH, Exercise, call, check, declare_checkpoint, diagnoses, expect, fail,
    is_close, is_number, is_unwritten, make_program, run_steps, _said, show,
)

__all__ = ["checkpoint", "check_mul_backward", "check_branch_free", "OPS", "SEEDS",
           "random_program", "run_program", "reference_compile"]

OPS = ("+", "*", "tanh", "relu")  # what the chapter's compiler knows
SEEDS = range(5)
UPSTREAM = 2.5  # the gradient arriving from above in the exercise's graphs: not 1


# --------------------------------------------------------------------- the chapter's compiler
# The check's own copy of the compiler the chapter builds, with switches that plant each
# classic mistake: the checkpoint runs it to name the mistake whose numbers it sees.

# Each operation's local slopes, d(out)/d(input), as Python text in `out`, `a` and `b`.
_SLOPES = {"+": ("1.0", "1.0"), "*": ("{b}", "{a}"), "tanh": ("(1 - {out}**2)",),
           "relu": ("({out} > 0)",)}
_FORWARD = {"+": "{out} = {a} + {b}", "*": "{out} = {a} * {b}", "tanh": "{out} = math.tanh({a})",
            "relu": "{out} = {a} if {a} > 0 else 0.0"}


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
    for out, op, args in (reversed(tape) if reverse else tape):
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


# --------------------------------------------------------------------- exercise: `*` backward

_MUL_NAMES = ("t5", "x", "w")  # out, a, b: not the parameters' own names, so that lines that
# write "a" or "dout" instead of the names they are given show up


def _mul_lines(mul_backward, out, a, b, *, first=False):
    """`mul_backward(out, a, b)`, failing with a plain message unless it gives a list of
    Python statements, one a line. Only the `first` check explains a problem in full; the
    others point to it."""
    call = f"`mul_backward({out!r}, {a!r}, {b!r})`"

    def problem(message):
        fail(message if first else f"{call}: no lines to compile (see the first line)")

    try:
        lines = mul_backward(out, a, b)
    except Exception as error:  # the learner's code: say what it raised
        problem(f"{call} raised {_said(error)}")
    if lines is None:
        problem(f"{call} gave None: the function has no `return`; end it with `return [...]`, "
                "the list of lines")
    if isinstance(lines, str):
        problem(f"{call} gave one string, {show(lines)}: return a list of lines, one string "
                "for each gradient the product adds to: `[f\"d{a} += ...\", f\"d{b} += ...\"]`")
    if not isinstance(lines, (list, tuple)) or not all(isinstance(x, str) for x in lines):
        problem(f"{call} should give a list of strings (lines of Python), but gave "
                f"{show(lines)}")
    if not lines:
        problem(f"{call} gave an empty list: a product passes gradient back to both of its "
                "factors, one line each")
    for line in lines:
        if line != line.strip():
            problem(f"the line {show(line)} starts or ends with spaces: give each line without "
                    "indentation (the code generator indents it)")
        try:
            compile(line, "<line>", "exec")
        except SyntaxError as error:
            problem(f"the line {show(line)} is not a Python statement ({error.msg}): write it "
                    f"as you would write it in the function, such as `d{a} += ...`")
        if "\n" in line or ";" in line:
            problem(f"the line {show(line)} holds more than one statement: give one line per "
                    "gradient, in a list")
    return list(lines)


@check("`mul_backward(out, a, b)` gives a list of lines of Python, one statement each")
def mul_lines_are_python(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES, first=True)


def _run_product_graph(mul_backward, build, names, numbers, seed):
    """Compile `build` with the learner's `*` lines (the right ones for everything else);
    return (value, gradients) at `numbers` with `seed` as d(result)."""
    leaves = [Value(x) for x in numbers]
    root = build(*leaves)
    tape, constants = _trace(root, dict(zip(names, leaves)))
    source = _source(tape, constants, names, backward={"*": mul_backward}, seed=seed)
    try:
        function = _function(source)
    except SyntaxError as error:
        fail(f"the compiled code is not valid Python ({error.msg}) in the line "
             f"{show((error.text or '').strip())}: check the lines `mul_backward` gives")
    try:
        return function(*numbers)
    except NameError as error:  # UnboundLocalError too: a name that is only ever added to
        name = _name_in(error)
        fail(f"the compiled code raised {_said(error)}: `{name}` is no variable of the compiled "
             "code. `out`, `a` and `b` hold the *names* of its variables (strings such as 't0' "
             "and 'x1'): put them into each line with an f-string, f\"d{a} += {b} * d{out}\", "
             "rather than typing a name yourself")
    except Exception as error:
        fail(f"the compiled code raised {_said(error)}: check the lines `mul_backward` gives")


def _name_in(error):
    """The variable a NameError (or UnboundLocalError) is about."""
    found = re.search(r"'(\w+)'", str(error))
    return found.group(1) if found else str(error)


def _written_to_a_value(mul_backward, out, a, b):
    """Words for a line that adds to a factor's *value* (`{a} += ...`) instead of its gradient
    (`d{a} += ...`), or ''. Such a line changes the number the forward pass computed, and
    `d{a}` gets nothing from the product. `out`, `a`, `b`: the names the graph gives them."""
    for line in _mul_lines(mul_backward, out, a, b):
        statement = ast.parse(line).body[0]
        targets = (statement.targets if isinstance(statement, ast.Assign) else
                   [statement.target] if isinstance(statement, ast.AugAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and target.id in (a, b, out):
                role = {out: "out", b: "b", a: "a"}[target.id]
                return (f"the line {show(line)} adds to `{target.id}`, the *value* of "
                        f"{role}, not to `d{target.id}`, its gradient: write the target as "
                        f"`d{{{role}}}`, as in f\"d{{a}} += {{b}} * d{{out}}\"")
    return ""


def _diagnose_factor(got, name, own, other, out, expected, seed):
    """What the number `got` for d(name) says about the lines: the wrong things learners write,
    each with the number it gives when the factor is also used once more on its own."""
    candidates = [
        (seed * other, "it lost the gradient `{n}` already had from its other use: the line "
                       "assigns with `=` instead of adding with `+=`, and a value used twice "
                       "keeps only its last contribution"),
        (other + seed, "the line passes the local slope alone: multiply it by `d{{out}}`, the "
                       "gradient arriving from above (here {seed:g}, not 1)"),
        (other, "two mistakes at once: `=` instead of `+=`, and no `* d{{out}}`"),
        (seed * (own + 1), "the line multiplies by `{n}`'s own value; each factor of a "
                           "product gets the *other* factor times d_out: d(a·b)/da = b"),
        (seed * own, "`=` instead of `+=`, and `{n}`'s own value instead of the other factor's"),
        (seed, "no line passed anything back to `{n}`: a product sends gradient to both of "
               "its factors, one line each"),
        (seed * (other + own + 1), "both lines add to `d{n}`: a product sends gradient to "
                                   "both of its factors, one line to `d{{a}}` and one to "
                                   "`d{{b}}`"),
        (seed + other * out, "the line multiplies by `{{out}}`, the output's *value*; the "
                             "gradient arriving from above is `d{{out}}`"),
        (other * out, "`=` instead of `+=`, and `{{out}}` (the output's value) instead of "
                      "`d{{out}}` (its gradient)"),
    ]
    for value, why in candidates:
        if is_close(got, value) and not is_close(value, expected):
            return why.format(n=name, seed=seed)
    return ""


@check(f"y = u·v + u + v, every factor used twice, d(y) = {UPSTREAM:g}: the engine's gradients")
def mul_reused_factors(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    u, v = 1.5, -4.0
    _, grads = _run_product_graph(mul_backward, lambda p, q: p * q + p + q,
                                  ["u", "v"], [u, v], UPSTREAM)
    for name, own, other in (("u", u, v), ("v", v, u)):
        got, expected = grads[name], UPSTREAM * (other + 1)
        if is_close(got, expected):
            continue
        why = (_written_to_a_value(mul_backward, "t0", "u", "v")
               or _diagnose_factor(got, name, own, other, u * v, expected, UPSTREAM))
        said = (f"in y = u·v + u + v at u = {u:g}, v = {v:g}, with {UPSTREAM:g} arriving at y, "
                f"`d{name}` should be {UPSTREAM:g} × ({other:g} + 1) = {expected:g} (the "
                f"other factor, plus 1 for the second use, times the gradient from above), but "
                f"was {got:.6g}" if is_close(got, got) else f"was {show(got)}")
        fail(f"{said}: {why}" if why else f"{said}: check the line that adds to `d{name}`")


@check(f"y = x·x, one value as both factors, d(y) = {UPSTREAM:g}: d(y)/dx = 2x·{UPSTREAM:g}")
def mul_square(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    x = 3.0
    _, grads = _run_product_graph(mul_backward, lambda v: v * v, ["x"], [x], UPSTREAM)
    expected = UPSTREAM * 2 * x
    if is_close(grads["x"], expected):
        return
    said = (f"for y = x·x at x = {x:g}, with {UPSTREAM:g} arriving at y, `dx` should be "
            f"{expected:g} (x·d_out once for each factor) but was {show(grads['x'])}")
    wrong_target = _written_to_a_value(mul_backward, "t0", "x", "x")
    if wrong_target:
        fail(f"{said}: {wrong_target}")
    if is_close(grads["x"], UPSTREAM * x):
        fail(f"{said}: the two lines both write `dx`, and with `=` the second erases the "
             "first; add with `+=`")
    if is_close(grads["x"], 2 * x):
        fail(f"{said}: each line passes the local slope alone: multiply it by `d{{out}}`, the "
             "gradient arriving from above")
    fail(said)


@check("the article's neuron, compiled with your lines: the engine's gradients at its numbers "
       "and at new ones")
def mul_in_the_neuron(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    names = list(NEURON)
    for numbers in (list(NEURON.values()), [0.5, -1.5, 2.0, 0.75, -0.3]):
        _, grads = _run_product_graph(mul_backward, neuron_output, names, numbers, 1.0)
        _, witness = _witness(neuron_output, names, numbers)
        for name in names:
            expect(is_close(grads[name], witness[name]),
                   f"at {', '.join(f'{n} = {x:g}' for n, x in zip(names, numbers))}, `d{name}` "
                   f"should be {witness[name]:.6g} (the engine's) but was {show(grads[name])}")


MUL = Exercise(11, "the backward lines of `*`",
               [mul_lines_are_python, mul_reused_factors, mul_square, mul_in_the_neuron],
               what="your `mul_backward`", unanswered=is_unwritten,
               todo="replace `...` with `return [...]`, the two lines that pass `d{out}` back "
                    "to `a` and to `b`; run the cell, then this check again")


def check_mul_backward(mul_backward):
    """Exercise: `mul_backward(out, a, b)`, the backward lines of `out = a * b`."""
    return MUL.check(mul_backward)


# --------------------------------------------------------------------- exercise: no frozen branch

LEAKY_SLOPE = 0.1
LEAKY_POINTS = (-3.0, -0.5, 0.25, 2.0)  # both sides of 0, never 0 itself (a kink's slope there
# is a convention, and two right answers may differ on it)


def _leaky(s):
    """The leaky ReLU's value and slope at the number s."""
    return (s, 1.0) if s > 0 else (LEAKY_SLOPE * s, LEAKY_SLOPE)


def _choices_in_python(function):
    """How `function` decides in Python on numbers: 'if' (it branches on .data: an `if`
    statement, or `x if ... .data ... else y` choosing its result), 'data' (it computes a
    number from .data, such as a factor `(1.0 if s.data > 0 else 0.1)`), or '' (neither, or
    the source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return ""

    def reads_data(node):
        return any(isinstance(n, ast.Attribute) and n.attr == "data" for n in ast.walk(node))

    in_arithmetic = {id(child) for node in ast.walk(tree)
                     if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call))
                     for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and reads_data(node.test):
            return "if"
        if (isinstance(node, ast.IfExp) and reads_data(node.test)
                and id(node) not in in_arithmetic):
            return "if"
    return "data" if reads_data(tree) else ""


def _leaky_out(leaky, s, *, first=False):
    """`leaky(Value(s))`: (the input, the output), failing with a plain message unless the
    output is a new Value. Only the `first` check explains a problem in full."""
    v = Value(s)
    call = f"`leaky(Value({s:g}))`"

    def problem(message):
        fail(message if first else f"{call}: no value to compile (see the first line)")

    try:
        out = leaky(v)
    except TypeError as error:
        text = str(error)
        if "not supported between" in text or "abs()" in text:
            problem(f"{call} raised {_said(error)}: `max`, `min`, `abs` and comparisons "
                    "(`>`, `<`) choose in Python, and the engine's `Value` has none of them. "
                    "Make the choice an operation of the graph: `s.relu()` is s above 0 and 0 "
                    "below, decided again on every call")
        problem(f"{call} raised {_said(error)}")
    except Exception as error:
        problem(f"{call} raised {_said(error)}")
    if out is None:
        problem(f"{call} gave None: the function has no `return`; end it with `return ...`, "
                "the new value")
    if is_number(out):
        problem(f"{call} gave the number {show(out)}, not a Value: computed from `.data`, it "
                "has left the graph, so it has no gradient, and a trace would write it into "
                "the compiled code as a constant. Build the answer from `s` with operations")
    if not isinstance(out, Value):
        problem(f"{call} should give a Value, but gave {show(out)}")
    return v, out


@check("leaky(s) is s above 0 and 0.1·s below, with slopes 1 and 0.1, as the branching version")
def leaky_numbers(leaky):
    for s in LEAKY_POINTS:
        v, out = _leaky_out(leaky, s, first=True)
        expected, slope = _leaky(s)
        if not is_close(out.data, expected):
            said = (f"at s = {s:g} your function gives {out.data:.6g}, but the branching "
                    f"version gives {expected:.6g}")
            if s > 0 and is_close(out.data, (1 + LEAKY_SLOPE) * s):
                fail(f"{said}: above 0 your two parts add up to 1.1·s. The 0.1·s part is "
                     "there on both sides, so the relu part should add only what it lacks "
                     "above 0: 0.9·s")
            if s < 0 and is_close(out.data, 0.0):
                fail(f"{said}: below 0 the leaky version is 0.1·s, not 0 (that is the plain "
                     "relu): keep a 0.1·s part that is there on both sides")
            fail(f"{said}: above 0 it is s, below 0 it is 0.1·s")
        out.backward()
        expect(is_close(v.grad, slope),
               f"at s = {s:g} the slope of your function is {show(v.grad)}, but the branching "
               f"version's is {slope:g}")


@check("compiled once, on either side of 0, it gives the engine's numbers on both sides: "
       "no branch was frozen")
def leaky_not_frozen(leaky):
    _leaky_out(leaky, 1.0)  # says so plainly if there is no Value to compile
    for traced_at in (2.0, -3.0):
        compiled = compile_loss(lambda p, x: leaky(p[0] * x[0]), [traced_at], [1.0],
                                check=True)
        for s in LEAKY_POINTS:
            try:
                compiled([s], [1.0])
            except TraceMismatch:
                side = "above" if traced_at > 0 else "below"
                said = (f"compiled at s = {traced_at:g} ({side} 0), your function gives "
                        f"another answer than the engine at s = {s:g}: the compiled code "
                        "replays the operations of the trace, and some choice your function "
                        "made in Python was frozen at trace time")
                how = _choices_in_python(leaky)
                if how == "if":
                    said += (". It still branches on `.data` (an `if`): the trace took the "
                             f"branch for s = {traced_at:g}, and the compiled code always "
                             "takes it")
                elif how == "data":
                    said += (". It computes a number from `.data` (such as `1.0 if s.data > 0 "
                             "else 0.1`): to the trace that number is a constant, frozen at "
                             f"its value for s = {traced_at:g}")
                fail(said + ". Make the choice an operation of the graph: `s.relu()` is s "
                            "above 0 and 0 below, decided again on every call")


BRANCH = Exercise(11, "a leaky ReLU with no branch", [leaky_numbers, leaky_not_frozen],
                  what="your `leaky`", unanswered=is_unwritten,
                  todo="replace `...` with `return ...`, the leaky ReLU built from `s` with "
                       "operations only (no `if`, nothing computed from `.data`); run the "
                       "cell, then this check again")


def check_branch_free(leaky):
    """Exercise: `leaky(s)`, s above 0 and 0.1·s below, with no choice made in Python."""
    return BRANCH.check(leaky)


# --------------------------------------------------------------------- the checkpoint

# name -> (arity, operation written with + * tanh relu, numbers on either side)
OPERATIONS = {
    **ARITHMETIC,
    "tanh": TANH,
    "relu": RELU,
}
_INPUT_NAMES = ("x", "y", "z")


def random_program(seed, n_inputs=3, n_steps=10):
    """A seeded random program: the numbers to trace at, three more sets of numbers to run at,
    and steps (operation name, i, j) on earlier nodes.

    The inputs are added up first, so each reaches the output. Then every operation comes
    once, in a shuffled order, and a few more at random; each uses the node before it, and a
    two-input one often an earlier node as well, so nodes are shared. A one-input operation
    (relu, say) is followed by adding an earlier node, so that paths stay open whatever relu
    does; the numbers, from −2 to 2, put relu's input on either side of 0 from run to run.
    """
    numbers, steps = make_program(seed, OPERATIONS, n_inputs=n_inputs, n_steps=n_steps,
                                       draw=lambda rng: rng.uniform(-2.0, 2.0), runs=4,
                                       every_operation=True)
    return numbers[0], numbers[1:], steps


def run_program(leaves, steps):
    """The output of `steps` built on `leaves` (values of any class)."""
    return run_steps(leaves, steps, OPERATIONS)


_MISTAKES = (
    # (what the compiler does wrong, in words; the planted mistake)
    ("the backward pass did not start from 1: after setting every gradient to 0.0, set the "
     "result's own gradient to 1.0 (d result / d result), or every gradient stays 0",
     {"seed": 0.0}),
    ("every instruction's backward lines ran twice, so each gradient got every contribution "
     "two times (and twice that again for each operation further up): the tape holds each "
     "instruction twice. Look at the tracer (`trace`): it should append one instruction per "
     "operation node, once; is `tape.append` reached twice for one node?", {"twice": True}),
    ("the backward lines ran in the tape's own order, first instruction first, so a value "
     "passed its gradient on before the values that use it had added theirs: go through the "
     "tape in reverse, `reversed(tape)`", {"reverse": False}),
    *((f"the backward lines of `{op}` assign with `=` instead of adding with `+=`: a value "
       "used twice keeps only its last contribution", {"backward": {
           op: lambda out, *args, op=op: _right_lines(out, op, args, assign=True)}})
      for op in OPS),
    *((f"the backward lines of `{op}` pass the local slope alone: multiply it by `d_out`, the "
       "gradient arriving from above", {"backward": {
           op: lambda out, *args, op=op: _right_lines(out, op, args, upstream=False)}})
      for op in OPS),
    ("the backward lines of every operation assign with `=` instead of adding with `+=`",
     {"backward": {op: lambda out, *args, op=op: _right_lines(out, op, args, assign=True)
                   for op in OPS}}),
    ("the backward lines of every operation pass the local slope alone, without `* d_out`",
     {"backward": {op: lambda out, *args, op=op: _right_lines(out, op, args, upstream=False)
                   for op in OPS}}),
    ("the slope of tanh is 1 − tanh² (`1 - out**2`), not 1 − tanh",
     {"backward": {"tanh": lambda out, a: _right_lines(
         out, "tanh", [a], slopes={"tanh": ("(1 - {out})",)})}}),
    ("the slope of tanh is 1 − tanh² of the *output* (`out`), not 1 − (the input)²",
     {"backward": {"tanh": lambda out, a: _right_lines(
         out, "tanh", [a], slopes={"tanh": ("(1 - {a}**2)",)})}}),
    ("each factor of a product gets the *other* factor times d_out (d(a·b)/da = b), not its "
     "own value", {"backward": {"*": lambda out, a, b: _right_lines(
         out, "*", [a, b], slopes={"*": ("{a}", "{b}")})}}),
)


def _same_answer(x, y, tol=1e-9):
    (v, g), (w, h) = x, y
    return is_close(v, w, tol) and set(g) == set(h) and all(is_close(g[k], h[k], tol) for k in g)


def _numbers_text(names, numbers):
    return ", ".join(f"{n} = {x:.4g}" for n, x in zip(names, numbers))


def _compile_theirs(my_compile, root, inputs):
    """The learner's compiled function for `root`, failing with words if compiling fails."""

    def raised(error):
        op = error.args[0] if isinstance(error, KeyError) and error.args else None
        if op in OPS:
            return (f"`my_compile` raised KeyError: {op!r}: your compiler has no line for the "
                    f"operation {op!r}: give it one in FORWARD and in BACKWARD")
        if isinstance(error, SyntaxError):
            return (f"the code `my_compile` wrote is not valid Python ({error.msg}) in the line "
                    f"{show((error.text or '').strip())}")
        return f"`my_compile` raised {_said(error)}"

    return call(my_compile, root, inputs, raised=raised, kind=callable,
                wrong=lambda compiled: f"`my_compile` should return the compiled function, "
                                       f"but returned {show(compiled)}")


def _call_theirs(compiled, names, numbers):
    """(value, {name: gradient}) from the learner's compiled function, failing with words."""

    def raised(error):
        said = f"the compiled code raised {_said(error)}"
        if isinstance(error, UnboundLocalError):
            return (f"{said}: a gradient was added to (`+=`) before it had a value. Set every "
                    "gradient to 0.0 before the backward lines run")
        if isinstance(error, NameError):
            return (f"{said}: it uses `{_name_in(error)}`, which nothing in it defines. Is it "
                    "a constant (a plain number such as the 2.5 of `x + 2.5`)? Write its "
                    "number into the code")
        if isinstance(error, TypeError) and "argument" in str(error):
            return (f"calling the compiled function with the {len(names)} input(s) "
                    f"{', '.join(names)} raised {_said(error)}: it should take exactly the "
                    "inputs, in order. A constant (a plain number such as the 2.5 of "
                    "`x + 2.5`) is no input: write its number into the code")
        return said

    answer = call(compiled, *numbers, raised=raised,
                  kind=lambda answer: (isinstance(answer, tuple) and len(answer) == 2
                                       and isinstance(answer[1], dict)),
                  wrong=lambda answer: f"the compiled function should return (value, {{input "
                                       f"name: gradient}}), but returned {show(answer)}")
    value, grads = answer
    extra = sorted(map(str, set(grads) - set(names)))
    if extra:
        fail(f"the compiled function returned gradients for {', '.join(extra)}, which are no "
             f"inputs (the inputs are {', '.join(names)}): a constant, such as the 2.5 of "
             "`x + 2.5`, is part of the code, and nobody asks for its gradient")
    missing = [n for n in names if n not in grads]
    expect(not missing, f"the compiled function returned no gradient for {', '.join(missing)}")
    return value, grads


def _explain(root, inputs, names, numbers, got):
    """The planted mistake whose numbers `got` reproduces, in words, or ''. Where two mistakes
    give the same numbers on this graph (in a chain, backward lines in forward order and a
    missing seed both leave every gradient 0), it names both."""
    right = reference_compile(root, inputs)(*numbers)
    tape, constants = _trace(root, inputs)

    def planted(mistake):
        return lambda: _function(_source(tape, constants, names, **mistake))(*numbers)

    found = [words for _, words in diagnoses(got, ((planted(mistake), words)
                                                   for words, mistake in _MISTAKES),
                                             same=_same_answer, right=right)]
    if len(found) > 1:
        return ("two different mistakes give exactly these numbers here. Either "
                + "; or ".join(found[:2]))
    return found[0] if found else ""


def _compare(my_compile, build, names, traced, runs, what):
    """Compile `build` at `traced` with the learner's compiler, then run it at `traced` and at
    each of `runs`, comparing with the engine (and naming a planted mistake it reproduces)."""
    leaves = [Value(x) for x in traced]
    root = build(*leaves)
    inputs = dict(zip(names, leaves))
    compiled = _compile_theirs(my_compile, root, inputs)
    every = [list(traced), *map(list, runs)]
    answers = [_call_theirs(compiled, names, numbers) for numbers in every]
    witnesses = [_witness(build, names, numbers) for numbers in every]
    if (len({value for value, _ in answers}) == 1
            and len({value for value, _ in witnesses}) > 1):
        fail(f"{what}, compiled at {_numbers_text(names, traced)}, gives {show(answers[0][0])} "
             f"whatever numbers it is given: the inputs were written into the code as the "
             "numbers they had at trace time, like constants. The tracer should give each "
             "input leaf the name `inputs` gives it, and the compiled function should take "
             "those names as its arguments")
    for numbers, got, witness in zip(every, answers, witnesses):
        if _same_answer(got, witness):
            continue
        at = f"{what}, compiled at {_numbers_text(names, traced)}"
        if numbers != list(traced):
            at += f" and run at {_numbers_text(names, numbers)}"
        value, grads = got
        if not is_close(value, witness[0]):
            wrong = f"the value should be {witness[0]:.6g} (the engine's) but was {show(value)}"
        else:
            name = next(n for n in names if not is_close(grads[n], witness[1][n]))
            wrong = (f"`d{name}` should be {witness[1][name]:.6g} (the engine's) but was "
                     f"{show(grads[name])}")
        why = _explain(root, inputs, names, numbers, got)
        if not why and not is_close(value, witness[0]):
            why = "check the forward lines (FORWARD) and the order of the tape"
        fail(f"{at}: {wrong}" + (f": {why}" if why else ""))


@check("the article's neuron, compiled once: the engine's value and gradients at its numbers, "
       "and the engine's numbers at three new sets of numbers")
def neuron_compiled(my_compile):
    names = list(NEURON)
    traced = list(NEURON.values())
    rng = random.Random(11)
    runs = [[rng.uniform(-2.0, 2.0) for _ in names] for _ in range(3)]
    _compare(my_compile, neuron_output, names, traced, runs, "the neuron tanh(x1·w1 + x2·w2 + b)")


@check("a value used twice collects both paths: x·x + x, tanh(x)·x, (x + y)·(x + y)")
def shared_values(my_compile):
    for what, build, names in (
        ("x·x + x", lambda x: x * x + x, ["x"]),
        ("tanh(x)·x", lambda x: x.tanh() * x, ["x"]),
        ("(x + y)·(x + y)", lambda x, y: (x + y) * (x + y), ["x", "y"]),
    ):
        traced = [1.5, -0.5][: len(names)]
        runs = [[-0.75, 2.0][: len(names)]]
        _compare(my_compile, build, names, traced, runs, what)


@check("plain numbers on either side are constants: 2.5 + x·(−3) + relu(1 − y)·0.5, gradients "
       "for the inputs only")
def constants_stay_constants(my_compile):
    _compare(my_compile, lambda x, y: 2.5 + x * -3 + (1 - y).relu() * 0.5, ["x", "y"],
             [0.5, -1.0], [[2.0, 3.0], [-1.0, 0.25]], "2.5 + x·(−3) + relu(1 − y)·0.5")


@check(f"random expressions with +, ·, tanh and relu, numbers on either side and shared values "
       f"(seeds {SEEDS[0]} to {SEEDS[-1]}), each compiled once and run at three more sets of "
       "numbers: the engine's values and gradients")
def random_expressions(my_compile):
    for seed in SEEDS:
        traced, runs, steps = random_program(seed)
        _compare(my_compile, lambda *leaves, steps=steps: run_program(leaves, steps),
                 list(_INPUT_NAMES), traced, runs, f"random expression {seed}")


@check("the compiled function computes with plain numbers: calling it builds no Value")
def plain_numbers(my_compile):
    leaves = [Value(x) for x in (0.5, -1.0)]
    compiled = _compile_theirs(my_compile, (leaves[0] * leaves[1] + 2.0).tanh(),
                               dict(zip("xy", leaves)))
    with creations() as made:  # every Value the engine makes while the compiled code runs
        _call_theirs(compiled, ["x", "y"], [1.5, 2.0])
    expect(not made, f"calling the compiled function built {len(made)} Value(s): it should "
                     "run the generated code on plain floats, not the engine")


CHECKPOINT = [neuron_compiled, shared_values, constants_stay_constants, random_expressions,
              plain_numbers]
@declare_checkpoint(11, "Chapter 11 · Trace once, run many: your compiler", CHECKPOINT,
                    takes="your compiler, the function `my_compile(root, inputs)`")
def checkpoint(my_compile):
    """Chapter 11's specification, on a compiler `my_compile(root, inputs)` (see the module
    docstring)."""
