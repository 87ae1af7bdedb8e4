"""Random programs at the edges of floating point, run on an engine and on PyTorch (float64).

`tests/programs.py` keeps every operation in a safe domain, so its programs are smooth. The
programs here do the opposite: every step applies one *raw* operation to earlier results, so
the engines meet 0 and -0.0, subnormals, overflow, division by zero, the log of a negative,
`0 ** 0`, `(a - a) ** (a - a)`, and infinite or NaN gradients above a slope of 0.
`tests/test_torch_edges.py` runs thousands of them. This file also runs as a script that
counts the disagreements and sorts them by cause:

    python tests/edge_programs.py --programs 6000 --engine both
    python tests/edge_programs.py --programs 4000 --inputs moderate
    python tests/edge_programs.py --show 1234       # program 1234, and each engine's verdict

OPERATIONS. Every operation and reflected operation of the engines, applied raw: `a + b`,
`a - b`, `a * b`, `a / b` and `a ** b` on two nodes, which may be the same node (one binary
step in four uses one operand twice, so `a * a`, `a - a`, `a / a` and `(a - a) ** (a - a)`
all occur); `a + n`, `a - n`, `a * n`, `a / n` and the reflected `n + a`, `n - a`, `n * a`,
`n / a` with a plain number n from `NUMBERS`; `a ** n` with n from `EXPONENTS`; `n ** a` with
n from `BASES`; and `-a` and every method of the table of primitives (`autograd.ops`: `tanh`,
`exp`, `log`, `relu`, `sigmoid`, `sin`, `cos`), each drawn from its row. PyTorch runs the same
expression on tensors, except `n / a`: PyTorch computes `n / tensor` as
`tensor.reciprocal() * n`, which rounds twice and whose gradient overflows early (`1e-10 / t`
at t = 1e-155 has gradient -inf there, for a true -1e300), so the reference for `n / a` is
`torch.div(n, a)`, PyTorch's own division.

INPUTS. A program has 1 to 4 inputs, each drawn from a mix: the values in `EDGE_VALUES` (zeros
of both signs, subnormals, the smallest and the largest normal float, where `exp` overflows
and `sigmoid` underflows...), whole numbers, numbers between -3 and 3, and numbers of any
magnitude from 1e-323 to 1e308. `inputs="moderate"` draws every input with a magnitude
between 1e-3 and 3 instead, to compare with programs that stay away from the extremes.

OUTPUT. 1 to 10 random steps; then, in half of the programs, the sum of two to four earlier
results, written as more `+` steps, so several branches reach the output and gradients add
up several paths. Otherwise the last random step is the output. Nothing keeps values tame, so
about a third of the programs stop at an error (the log of a negative, a division by zero):
the script reports how many run to the end.

ACCEPTANCE. A program passes when
- the engine raises ValueError, ZeroDivisionError or OverflowError, with a message, at a step
  where PyTorch's value is not finite (NaN or an infinity): the "clear error where PyTorch's
  result is not finite". Any other exception, a raise where PyTorch's value is finite, and any
  exception in `backward()` fail;
- or it runs to the end, and the value of every node and the gradient of the output with
  respect to every node (the inputs *and* every step's result; a tensor whose `.grad` is None
  has gradient 0) agree with PyTorch's: both NaN, the same infinity, or

      |ours - theirs| <= 1e-9 * max(|ours|, |theirs|)   or   |ours - theirs| <= 2**-1022.

  The absolute tolerance is the smallest normal float. Below it floats are subnormal and have
  fewer than 53 significant bits (5e-324 has one), so one rounding there is a large relative
  error: two numbers that both lie below it agree. Above it, only the relative tolerance
  counts. Signs of zeros are not compared (-0.0 == 0.0).

That is the literal rule (`strict=True`, the script's `--strict`). Applied to whole programs,
it also blames an operation for differences it did not make, which the default rule tells
apart. Each of these is counted in the script's report, never accepted silently:

- Inherited differences. Once a value agrees with PyTorch's but is not identical (a last-bit
  difference of `tanh`, a subnormal), the next operation may amplify it: `x - y` cancels,
  `log` of 1e-322 is -741.6 and of 0 is -inf. So a value that differs is also compared with
  PyTorch's result *from the engine's own operands*; if those agree, the operation did its
  part. Likewise, a gradient is a sum of shares, one per use of the node (and 1 for the output
  itself), each share an operation's slope times the gradient above it; a share that differs
  from PyTorch's is compared with PyTorch's share from the engine's own operands and gradient
  above, and an error is accepted where PyTorch's value from the engine's own operands is not
  finite. `tanh`, `exp` and `sigmoid` compute their slope from their output (1 - y**2, y,
  y(1 - y)) in the engines as in PyTorch, so a difference in y moves the slope by
  |dslope/dy| times that difference, which is allowed as well.
- Summation order. The engines and PyTorch add a node's shares in different orders; under
  cancellation (`a / a` gives the shares 1/a and -1/a) two sums, each as accurate as float64
  allows, can differ by much more than 1e-9 of the small result. When every share agrees, the
  sum may differ by 1e-9 of the sum of the shares' magnitudes (plus the differences of the
  inherited shares, if any). Measured differences are at most about 2e-16 of that scale
  (float64 rounding), 6e-14 where a share carries an earlier rounding difference of its own:
  far inside the tolerance, which still catches a wrong or missing share.
- A subnormal slope: a share whose slope (the step's local derivative, taken in the engine
  and in PyTorch at the engine's operands) lies at or below 2**-1022 in both, such as
  PyTorch's 0 for an engine's 1.4e-310, times a finite gradient above: as for values,
  subnormals agree. (A slope of 0 times an infinite gradient above is no excuse: that is
  where relu and `x ** 0` must pass back 0.)
- The sign of zero. The slope of `x ** 0.5` at x = -0.0 is -inf in PyTorch (it takes the
  square root, whose slope 1/(2 sqrt(x)) is 1/-0.0) and +inf in the engines; `x ** b` at
  x = -0.0 with b - 1 rounding to -1 is alike. An infinite share whose sign differs from
  PyTorch's at a -0.0 operand is excused (the shares further back then differ too, and are
  compared with PyTorch's from the engine's own gradients, as inherited).

CAUSES. The first value that differs (in program order) or, when all values agree, the first
gradient that differs from the output back, is explained: every gradient it is made from
agrees. For a gradient, each use of the node is split off in turn (run again with a fresh
leaf of the same value in its place, whose gradient is then that one share) in the engine and
in PyTorch; the first share that differs names the operation at fault and the circumstance
(a zero base, a subnormal operand, an infinite gradient above...).

Every program has a number: program i comes from `random.Random(f"{inputs}-{i}")`, so a
failure can be reproduced from its number, and prints the program as Python.
"""

import argparse
import math
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass

from autograd import ops

# ---------------------------------------------------------------------------- operations

EXPONENTS = (0, 1, 2, 3, -1, -2, 0.5, -0.5, 1.5)  # for a ** n
BASES = (2.0, 0.5, 0.0, -2.0, 1.0, 10.0)  # for n ** a
NUMBERS = (0.0, -0.0, 1.0, -1.0, 2, 0.5, 3.0, -3, 1e-300, 1e300)  # for a + n, n / a, ...


def _torch_divide(a, n):
    """`n / a` as PyTorch's division (see the module's docstring)."""
    import torch

    return torch.div(n, a)


@dataclass(frozen=True)
class Op:
    """One operation: how it reads, and what it needs to run on engines and on PyTorch."""

    text: str  # a Python expression in the operands a, b and the plain number n
    nodes: int  # how many operands are nodes (1 or 2)
    numbers: tuple = ()  # the plain numbers n it is drawn with, if it takes one
    torch: object = None  # PyTorch's version, a function of (a, n), when the text will not do
    slope_drift: object = None  # |d slope / d y| for a slope computed from the output y


def _from_row(row):
    """The raw operation of a row of the table of primitives (`autograd.ops`): a two-input
    row's name is its operator (`a + b`), a number exponent takes its n from `EXPONENTS`, and
    any other row is its method (`a.tanh()`)."""
    if row.arity == 2:
        return Op(f"a {row.name} b", 2)
    if row.parameters:
        return Op("a ** n", 1, EXPONENTS)
    return Op(f"a.{row.method}()", 1, slope_drift=_SLOPE_DRIFTS.get(row.name))


# For a slope computed from the output y, |d slope / d y|: how far a difference in y moves it.
_SLOPE_DRIFTS = {
    "tanh": lambda y: 2 * abs(y),  # slope 1 - y**2
    "exp": lambda y: 1.0,  # slope y
    "sigmoid": lambda y: abs(1 - 2 * y),  # slope y (1 - y)
}
_NAMES = {"+": "add", "*": "mul", "/": "div", "**": "pow", "**n": "pow_n"}  # else the method

OPS = {
    # one per row of the table, so that a new operation is drawn without a line here
    **{_NAMES.get(row.name, row.method): _from_row(row) for row in ops.OPS.values()},
    # composed of the rows, and the other ways a plain number enters
    "sub": Op("a - b", 2),
    "add_n": Op("a + n", 1, NUMBERS),
    "sub_n": Op("a - n", 1, NUMBERS),
    "mul_n": Op("a * n", 1, NUMBERS),
    "div_n": Op("a / n", 1, NUMBERS),
    "radd": Op("n + a", 1, NUMBERS),
    "rsub": Op("n - a", 1, NUMBERS),
    "rmul": Op("n * a", 1, NUMBERS),
    "rdiv": Op("n / a", 1, NUMBERS, torch=_torch_divide),
    "rpow": Op("n ** a", 1, BASES),
    "neg": Op("-a", 1),
}

# Each operation's text compiled into a function of (a, b, n): the text is the one place
# that says what an operation does, for the engines, for PyTorch and in a printed program.
_FUNCTIONS = {name: eval(f"lambda a, b, n: {op.text}") for name, op in OPS.items()}


def apply(name, operands, n, torch=False):
    """Operation `name` on its operands (engine values or tensors) and plain number n."""
    op = OPS[name]
    if torch and op.torch is not None:
        return op.torch(operands[0], n)
    return _FUNCTIONS[name](operands[0], operands[-1], n)


# ---------------------------------------------------------------------------- programs

EDGE_VALUES = (
    0.0, -0.0,
    5e-324, -5e-324, 1e-310, -1e-310,  # subnormals
    2.2250738585072014e-308,  # the smallest normal float
    1e-200, 1e-10, 0.5, 1.0, -1.0, 2.0, 3.0, 49.0,
    709.0, 710.0, -745.0,  # exp overflows above 709.78; exp(-745) is the smallest subnormal
    1e10, 1e150, 1e300, -1e300,
    1.7976931348623157e308,  # the largest float
)  # fmt: skip


@dataclass(frozen=True)
class Step:
    op: str  # a key of OPS
    args: tuple  # the indices of its operand nodes
    n: object = None  # the plain number, for the operations that take one


@dataclass(frozen=True)
class Program:
    """Inputs, then steps. Node i is input i, or step i - len(inputs); the last is the output."""

    inputs: tuple
    steps: tuple

    def expression(self, k):
        """Step k as Python: `v3 / v1`, `(-2.0) ** v4`, `v2.tanh()`."""
        step = self.steps[k]
        names = {"a": f"v{step.args[0]}", "b": f"v{step.args[-1]}", "n": _number(step.n)}
        return _substitute(OPS[step.op].text, names)

    def __str__(self):
        lines = [f"v{i} = Value({x!r})" for i, x in enumerate(self.inputs)]
        start = len(self.inputs)
        lines += [f"v{start + k} = {self.expression(k)}" for k in range(len(self.steps))]
        lines.append(f"v{start + len(self.steps) - 1}.backward()")
        return "\n".join(lines)


def _number(x):
    """A number as Python reads it back, a negative one in parentheses: `(-2.0) ** v1`."""
    text = repr(x)
    return f"({text})" if text.startswith("-") else text


def _substitute(text, names):
    """An operation's text with the letters a, b and n replaced by `names`."""
    return re.sub(r"\b[abn]\b", lambda match: names[match.group()], text)


def random_input(rng, inputs="edges"):
    """One input: an edge value, a whole number, a number near 0, or any magnitude."""
    if inputs == "moderate":
        return rng.choice((-1.0, 1.0)) * 10 ** rng.uniform(-3, math.log10(3))
    kind = rng.random()
    if kind < 0.4:
        return rng.choice(EDGE_VALUES)
    if kind < 0.55:
        return float(rng.randint(-10, 10))
    if kind < 0.8:
        return rng.uniform(-3.0, 3.0)
    return rng.choice((-1.0, 1.0)) * 10 ** rng.uniform(-323, 308)


def random_program(rng, inputs="edges", max_inputs=4, max_steps=10):
    """A random program, made only from the draws of `rng`."""
    values = tuple(random_input(rng, inputs) for _ in range(rng.randint(1, max_inputs)))
    steps = []
    names = sorted(OPS)
    for _ in range(rng.randint(1, max_steps)):
        name = rng.choice(names)
        op = OPS[name]
        nodes = len(values) + len(steps)  # every earlier result may be reused
        a = rng.randrange(nodes)
        if op.nodes == 2:
            args = (a, a if rng.random() < 0.25 else rng.randrange(nodes))
        else:
            args = (a,)
        steps.append(Step(name, args, rng.choice(op.numbers) if op.numbers else None))
    if rng.random() < 0.5:  # the output is a sum of a few results
        nodes = len(values) + len(steps)
        terms = rng.sample(range(nodes), min(nodes, rng.randint(2, 4)))
        total = terms[0]
        for term in terms[1:]:
            steps.append(Step("add", (total, term)))
            total = len(values) + len(steps) - 1
    return Program(values, tuple(steps))


def program(i, inputs="edges"):
    """Program number i."""
    return random_program(random.Random(f"{inputs}-{i}"), inputs)


# ---------------------------------------------------------------------------- running


@dataclass
class Run:
    """What one run gave: a value and a gradient per node, or where it stopped and why."""

    values: list  # the value of every node computed (all of them, unless it stopped early)
    grads: list = None  # d(output)/d(node) for every node, when it ran to the end
    error: BaseException = None
    error_step: int = None  # the step that raised; None for an error in backward()
    split_grad: float = None  # with `split`: the gradient of the split-off leaf


def run_engine(prog, Value, split=None):
    """Run `prog` on an engine's `Value`, then `backward()` from its output.

    With `split=(k, p)`, operand p of step k is a fresh leaf with the same value instead of
    the node it names: that leaf's gradient (`split_grad`) is the share of the node's
    gradient that flows back along this one use.
    """
    nodes = [Value(x) for x in prog.inputs]
    leaf = None
    for k, step in enumerate(prog.steps):
        operands = [nodes[j] for j in step.args]
        if split is not None and split[0] == k:
            leaf = operands[split[1]] = Value(operands[split[1]].data)
        try:
            nodes.append(apply(step.op, operands, step.n))
        except Exception as error:  # judged by `compare`
            return Run([node.data for node in nodes], error=error, error_step=k)
    try:
        nodes[-1].backward()
    except Exception as error:
        return Run([node.data for node in nodes], error=error)
    grads = [node.grad for node in nodes]
    return Run([node.data for node in nodes], grads, split_grad=None if leaf is None else leaf.grad)


def _leaf(x):
    import torch

    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


def _grad(tensor):
    """A tensor's gradient as a float: 0 where PyTorch left it None (nothing flowed back)."""
    return 0.0 if tensor.grad is None else tensor.grad.item()


def run_torch(prog, split=None):
    """Run `prog` on float64 tensors, keeping every step's gradient; `split` as for engines."""
    nodes = [_leaf(x) for x in prog.inputs]
    leaf = None
    for k, step in enumerate(prog.steps):
        operands = [nodes[j] for j in step.args]
        if split is not None and split[0] == k:
            leaf = operands[split[1]] = _leaf(operands[split[1]].item())
        out = apply(step.op, operands, step.n, torch=True)
        out.retain_grad()
        nodes.append(out)
    nodes[-1].backward()
    values, grads = [t.item() for t in nodes], [_grad(t) for t in nodes]
    return Run(values, grads, split_grad=None if leaf is None else _grad(leaf))


def torch_step(step, operands, upstream=None):
    """PyTorch's value of one step from the given operand values; with the gradient above
    it, `upstream`, also each operand's share (one per position, so `a * a` has two)."""
    leaves = [_leaf(x) for x in operands]
    out = apply(step.op, leaves, step.n, torch=True)
    if upstream is None:
        return out.item(), None
    out.backward(_leaf(upstream).detach())
    return out.item(), [_grad(leaf) for leaf in leaves]


def engine_step(Value, step, operands):
    """An engine's slopes of one step at the given operand values, one per position."""
    leaves = [Value(x) for x in operands]
    apply(step.op, leaves, step.n).backward()
    return [leaf.grad for leaf in leaves]


# ---------------------------------------------------------------------------- comparing

REL_TOL = 1e-9
ABS_TOL = sys.float_info.min  # 2**-1022, the smallest normal float
ACCEPTED_ERRORS = (ValueError, ZeroDivisionError, OverflowError)

# What a program needed, beyond the literal rule, to pass (see the module's docstring).
INHERITED = "a value that PyTorch computes alike from the engine's operands"
INHERITED_SHARE = "a gradient share that PyTorch computes alike from the engine's operands"
SUMMATION = "cancellation: the shares agree, their sum does not"
SUBNORMAL_SLOPE = "a share whose slope is subnormal"
SIGN_OF_ZERO = "an infinite slope at -0.0, whose sign is the sign of a zero"


def agree(ours, theirs):
    """Both NaN, the same infinity, or within REL_TOL relative or ABS_TOL absolute."""
    if math.isnan(ours) or math.isnan(theirs):
        return math.isnan(ours) and math.isnan(theirs)
    if math.isinf(ours) or math.isinf(theirs):
        return ours == theirs
    difference = abs(ours - theirs)
    return difference <= REL_TOL * max(abs(ours), abs(theirs)) or difference <= ABS_TOL


@dataclass
class Mismatch:
    """The first quantity in which an engine and PyTorch disagree, and why we think they do."""

    prog: Program
    what: str  # "the value of v5 = v3 / v1", "the gradient of v2", "v4 = v3.log() raised"
    ours: object
    theirs: object
    cause: str  # a short phrase that groups mismatches

    def summary(self):
        return f"{self.what}: ours {self.ours!r}, PyTorch's {self.theirs!r}\ncause: {self.cause}"

    def __str__(self):
        return f"{self.summary()}\nthe program:\n{self.prog}"


@dataclass
class Verdict:
    completed: bool  # the engine ran the program to the end, backward() included
    mismatch: Mismatch = None  # None when the program passes
    notes: frozenset = frozenset()  # what it needed beyond the literal rule
    cancellation: float = 0.0  # the largest accepted |ours - theirs| / (sum of |shares|)


def check(prog, Value, strict=False, theirs=None):
    """Run `prog` on `Value` and on PyTorch (or take PyTorch's run, `theirs`) and compare."""
    return compare(prog, Value, run_engine(prog, Value), theirs or run_torch(prog), strict)


def compare(prog, Value, ours, theirs, strict=False):
    """The verdict on one program, by the rule of the module's docstring."""
    start = len(prog.inputs)
    notes = set()
    for i, value in enumerate(ours.values):
        if agree(value, theirs.values[i]):
            continue
        step = prog.steps[i - start]  # (an input is the same float in both runs)
        if not strict and agree(value, torch_step(step, _operands(ours, step))[0]):
            notes.add(INHERITED)
            continue
        return Verdict(ours.error is None, _value_mismatch(prog, i, ours, theirs))

    if ours.error is not None and ours.error_step is None:
        what, cause = "backward() raised", f"{type(ours.error).__name__} in backward()"
        return Verdict(False, Mismatch(prog, what, _error(ours.error), None, cause))
    if ours.error is not None:
        return _judge_error(prog, ours, theirs, strict, notes)

    # Gradients, from the output back: the first one that differs is the one to explain,
    # since the gradients it is made from (those of later nodes) agree.
    cancellation = 0.0
    for i in reversed(range(len(ours.grads))):
        grad, theirs_grad = ours.grads[i], theirs.grads[i]
        if agree(grad, theirs_grad):
            continue
        cause, found, allowance, scale = _shares(prog, Value, i, ours, theirs, strict)
        if cause is None and not strict:
            if SIGN_OF_ZERO in found:
                notes |= found
                continue
            difference = _gap(grad, theirs_grad)
            if difference <= allowance + REL_TOL * scale:
                notes |= found or {SUMMATION}
                if not found and 0 < scale < math.inf:
                    cancellation = max(cancellation, difference / scale)
                continue
            cause = "the shares agree, their sum differs beyond the tolerance"
        what = f"the gradient of v{i}"
        return Verdict(True, Mismatch(prog, what, grad, theirs_grad, cause or SUMMATION))
    return Verdict(True, notes=frozenset(notes), cancellation=cancellation)


def _operands(run, step):
    return [run.values[j] for j in step.args]


def _judge_error(prog, ours, theirs, strict, notes):
    """An error at step k passes if it is clear and PyTorch's value there is not finite."""
    k = ours.error_step
    step, node, error = prog.steps[k], len(prog.inputs) + k, ours.error
    theirs_value = theirs.values[node]
    if not strict and math.isfinite(theirs_value):  # from the engine's own operands?
        value = torch_step(step, _operands(ours, step))[0]
        if not math.isfinite(value):
            theirs_value = value
            notes.add(INHERITED)
    name = _op_name(step) + _circumstance(step, _operands(theirs, step))
    kind = type(error).__name__
    if not isinstance(error, ACCEPTED_ERRORS):
        cause = f"{name}: {kind} is not one of the arithmetic errors"
    elif not str(error):
        cause = f"{name}: {kind} without a message"
    elif math.isfinite(theirs_value):
        cause = f"{name} raises {kind} where PyTorch's value is finite"
    else:
        return Verdict(False, notes=frozenset(notes))  # a clear error, and PyTorch's not finite
    what = f"v{node} = {prog.expression(k)} raised"
    return Verdict(False, Mismatch(prog, what, _error(error), theirs_value, cause))


def _error(error):
    return f"{type(error).__name__}({str(error)!r})"


def _uses(prog, i):
    """The (step, operand position) pairs that use node i."""
    return [(k, p) for k, step in enumerate(prog.steps) for p, j in enumerate(step.args) if j == i]


def _shares(prog, Value, i, ours, theirs, strict):
    """Node i's gradient, share by share: (cause, notes, allowance, scale).

    `cause` names the first share that differs (None if none does); `allowance` adds up the
    differences of the shares excused as inherited or subnormal; `scale` is the sum of the
    magnitudes of PyTorch's shares, the output's own share of 1 included.
    """
    start = len(prog.inputs)
    notes, allowance = set(), 0.0
    scale = 1.0 if i == len(ours.grads) - 1 else 0.0
    for k, p in _uses(prog, i):
        split = run_engine(prog, Value, split=(k, p))
        if split.error is not None:
            return f"{type(split.error).__name__} in a run split at v{start + k}", notes, 0, 0
        share, theirs_share = split.split_grad, run_torch(prog, split=(k, p)).split_grad
        scale += _gap(theirs_share, 0.0)
        if agree(share, theirs_share):
            continue
        step, node = prog.steps[k], start + k
        if not strict:
            operands, upstream = _operands(ours, step), ours.grads[node]
            at_negative_zero = any(_negative_zero(x) for x in operands + _operands(theirs, step))
            if math.isinf(share) and share == -theirs_share and at_negative_zero:
                return None, {SIGN_OF_ZERO}, math.inf, scale
            y, shares = torch_step(step, operands, upstream)
            slack = 0.0
            if OPS[step.op].slope_drift is not None:  # the slope moves with the output y
                slack = abs(upstream) * OPS[step.op].slope_drift(y) * abs(ours.values[node] - y)
            if agree(share, shares[p]) or _gap(share, shares[p]) <= slack:
                notes.add(INHERITED_SHARE)
                allowance += _gap(share, theirs_share)
                continue
            # A finite gradient above times a slope known only as well as subnormals are:
            slopes = engine_step(Value, step, operands), torch_step(step, operands, 1.0)[1]
            if math.isfinite(upstream) and all(abs(s[p]) <= ABS_TOL for s in slopes):
                notes.add(SUBNORMAL_SLOPE)
                allowance += _gap(share, theirs_share)
                continue
        return _share_cause(step, p, share, theirs_share, ours, theirs, node), notes, 0, 0
    return None, notes, allowance, scale


def _gap(a, b):
    """|a - b|, and infinite where that is NaN (a NaN against a number, or inf - inf)."""
    gap = abs(a - b)
    return math.inf if math.isnan(gap) else gap


def _negative_zero(x):
    return x == 0 and math.copysign(1.0, x) < 0


# ---------------------------------------------------------------------------- causes
# A cause is a short phrase that groups mismatches: the operation that first disagrees, and
# the circumstance (a zero base, a subnormal operand, an infinite gradient above...).


def _op_name(step):
    """The operation as a reader names it: `a / b`, `n / a`, `tanh`, and `a ** 0` (for
    powers the number matters)."""
    text = OPS[step.op].text
    if step.op in ("pow_n", "rpow"):
        return _substitute(text, {"a": "a", "b": "b", "n": _number(step.n)})
    return text[2:-2] if text.startswith("a.") else text


def _circumstance(step, operands):
    """What is unusual about a step's operands, as a phrase (or '')."""
    base = {"pow": operands[0], "pow_n": operands[0], "rpow": step.n}.get(step.op)
    if base == 0:
        return " at base 0"
    if step.op == "pow" and operands[-1] == 0:
        return " at exponent 0"
    if any(x == 0 for x in operands):
        return " with a zero operand"
    if any(0 < abs(x) < ABS_TOL for x in operands):
        return " with a subnormal operand"
    if not all(math.isfinite(x) for x in operands):
        return " with a non-finite operand"
    if any(abs(x) > 1e150 for x in operands):
        return " with a huge operand"
    if any(abs(x) < 1e-150 for x in operands):
        return " with a tiny operand"
    return ""


def _inherited(ours, theirs, nodes):
    """' after a rounding difference' when a step's inputs are not exactly PyTorch's."""
    for j in nodes:
        a, b = ours[j], theirs[j]
        if a != b and not (math.isnan(a) and math.isnan(b)):
            return " after a rounding difference"
    return ""


def _kind(x):
    return "NaN" if math.isnan(x) else "infinite" if math.isinf(x) else "finite"


def _differs(what, ours, theirs):
    """`value differs`, or `value NaN, PyTorch's finite` when they differ in kind."""
    if _kind(ours) == _kind(theirs):
        return f"{what} differs"
    return f"{what} {_kind(ours)}, PyTorch's {_kind(theirs)}"


def _value_mismatch(prog, i, ours, theirs):
    k = i - len(prog.inputs)
    step = prog.steps[k]
    value, theirs_value = ours.values[i], theirs.values[i]
    name = _op_name(step) + _circumstance(step, _operands(theirs, step))
    name += _inherited(ours.values, theirs.values, step.args)
    what = f"the value of v{i} = {prog.expression(k)}"
    cause = f"{name}: {_differs('value', value, theirs_value)}"
    return Mismatch(prog, what, value, theirs_value, cause)


def _share_cause(step, p, share, theirs_share, ours, theirs, node):
    name = _op_name(step)
    if OPS[step.op].nodes == 2:
        name += " (share of a)" if p == 0 else " (share of b)"
    name += _circumstance(step, _operands(theirs, step))
    name += _inherited(ours.values, theirs.values, (*step.args, node))
    name += _inherited(ours.grads, theirs.grads, (node,))
    upstream = theirs.grads[node]
    if math.isinf(upstream):
        return f"{name} with an infinite gradient above"
    if math.isnan(upstream):
        return f"{name} with a NaN gradient above"
    return f"{name}: {_differs('gradient', share, theirs_share)}"


# ---------------------------------------------------------------------------- the script


@dataclass
class Report:
    """The verdicts of one engine on many programs, counted."""

    engine: str
    programs: int = 0
    completed: int = 0
    stopped: int = 0  # stopped at an accepted error
    cancellation: float = 0.0

    def __post_init__(self):
        self.causes = Counter()
        self.notes = Counter()
        self.examples = {}  # cause -> (number, mismatch) of its first program

    def add(self, i, verdict):
        self.programs += 1
        self.completed += verdict.completed
        self.notes.update(verdict.notes)
        self.cancellation = max(self.cancellation, verdict.cancellation)
        if verdict.mismatch is None:
            self.stopped += not verdict.completed
            return
        cause = verdict.mismatch.cause
        self.causes[cause] += 1
        self.examples.setdefault(cause, (i, verdict.mismatch))

    @property
    def mismatches(self):
        return sum(self.causes.values())

    def __str__(self):
        n = self.programs
        lines = [
            f"{self.engine}: {self.mismatches} of {n} programs disagree with PyTorch "
            f"({100 * self.mismatches / n:.2f}%)",
            f"  ran to the end: {self.completed} ({100 * self.completed / n:.1f}%); "
            f"stopped at an accepted error: {self.stopped}",
        ]
        for note, count in self.notes.most_common():
            lines.append(f"  passed, needing {note}: {count}")
        if self.cancellation:
            lines.append(
                f"  the largest accepted cancellation: {self.cancellation:.2g} of the sum of "
                f"the shares' magnitudes"
            )
        for cause, count in self.causes.most_common():
            lines.append(f"  {count:6d}  {cause}  (e.g. program {self.examples[cause][0]})")
        return "\n".join(lines)


def survey(engines, count, inputs="edges", strict=False, first=0):
    """Programs first .. first + count - 1 on each engine: a Report per engine."""
    reports = {name: Report(name) for name in engines}
    for i in range(first, first + count):
        prog = program(i, inputs)
        theirs = run_torch(prog)
        for name, Value in engines.items():
            reports[name].add(i, check(prog, Value, strict, theirs))
    return reports


def _engines(which):
    from autograd.engine import Value as Reference
    from autograd.fast import Value as Fast

    engines = {"engine": Reference, "fast": Fast}
    return engines if which == "both" else {which: engines[which]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=6000, help="how many programs")
    parser.add_argument("--first", type=int, default=0, help="the number of the first one")
    parser.add_argument("--engine", choices=("engine", "fast", "both"), default="both")
    parser.add_argument(
        "--inputs", choices=("edges", "moderate"), default="edges",
        help="edge values and every magnitude, or magnitudes from 1e-3 to 3 only",
    )  # fmt: skip
    parser.add_argument("--strict", action="store_true", help="the literal rule, no excuses")
    parser.add_argument("--show", type=int, metavar="I", help="program I and its verdicts")
    args = parser.parse_args(argv)

    import autograd

    print(f"autograd from {autograd.__file__}")
    engines = _engines(args.engine)
    if args.show is not None:
        prog = program(args.show, args.inputs)
        print(prog)
        for name, Value in engines.items():
            verdict = check(prog, Value, args.strict)
            if verdict.mismatch is not None:
                print(f"{name}: {verdict.mismatch.summary()}")
            else:
                how = "runs to the end" if verdict.completed else "stops at an accepted error"
                print(f"{name}: passes ({'; '.join([how, *sorted(verdict.notes)])})")
        return 0

    rule = "the literal rule" if args.strict else "the default rule"
    print(f"{args.programs} programs from {args.first}, inputs: {args.inputs}, {rule}")
    for report in survey(engines, args.programs, args.inputs, args.strict, args.first).values():
        print(report)
        for cause, (i, mismatch) in report.examples.items():
            print(f"\n--- {report.engine}, program {i}:\n{mismatch}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
