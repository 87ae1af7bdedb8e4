"""Random programs: the one generator of smooth random expression graphs for the tests.

A *program* is `(inputs, steps)`: a few numbers, then steps `(op name, operand indices)`, each
applying one operation of `OPS` to earlier results (inputs or intermediate values), so later
steps reuse earlier ones and the graph has shared nodes. The same program runs on either
engine, on a learner-style class or on PyTorch tensors, which is how the tests compare them:

- tests/test_fast.py: the fast engine against the reference engine, value for value;
- tests/test_properties.py: `backward()` against central differences;
- tests/test_torch.py: the reference engine against PyTorch.

`OPS` holds every operator and method the engines share, with plain numbers (ints and floats)
on either side: one entry per row of the table of primitives (`autograd.ops`), made from the
row itself, so that a new operation is drawn without a line here, and by hand the operations
composed of them and the ways a plain number enters; tests/test_engine_parity.py fails when an
operation of the engines is missing from it. Operands are kept where every operation is defined (log of 1 + a*a, division by
1 + b*b, exp of a tanh...), so a program raises only where values grow too large for a float.
Every operation is smooth there except `relu`, whose kink at 0 hypothesis hits on purpose
(the engines must agree on it, and PyTorch's slope there is 0 too); `programs(smooth=True)`
leaves it out, for the comparison with central differences, and keeps `relu_shifted`.

tests/edge_programs.py is the deliberate opposite: raw operations at the edges of floating
point (zeros, subnormals, overflow), run against PyTorch.
"""

import math
from typing import Callable, NamedTuple

from hypothesis import strategies as st

from autograd import ops


class Op(NamedTuple):
    arity: int  # how many earlier results it takes
    function: Callable  # written only with the operators and methods the engines share
    smooth: bool = True  # differentiable wherever hypothesis can put its operands


# What each row's operands are made into first, where its own domain is narrower than
# hypothesis's numbers (a positive log, a divisor away from 0, a base above 0...).
_OPERANDS = {
    "/": (lambda a: a, lambda b: 1 + b * b),
    "**": (lambda a: 1.5 + a.tanh(), lambda b: b.tanh()),
    "exp": (lambda a: a.tanh(),),
    "log": (lambda a: 1 + a * a,),
}
_NAMES = {"+": "add", "*": "mul", "/": "div", "**": "vpow"}  # default: the row's method
_KINKED = {"relu"}  # a kink at 0, which hypothesis hits on purpose: not smooth


def _from_row(row):
    """The program operation of a row of the table: its method (for `**`, Python's `a ** b`)
    on the operands `_OPERANDS` makes."""
    method = "__pow__" if row.name == "**" else row.method
    shapes = _OPERANDS.get(row.name, (lambda x: x,) * row.arity)

    def function(*operands):
        first, *others = (shape(x) for shape, x in zip(shapes, operands))
        return getattr(first, method)(*others)

    return Op(row.arity, function, smooth=row.name not in _KINKED)


OPS = {
    # one per row of the table (`a ** n` with a number n is drawn below, with chosen n)
    **{
        _NAMES.get(row.name, row.method): _from_row(row)
        for row in ops.OPS.values()
        if not row.parameters
    },
    # composed of the rows
    "sub": Op(2, lambda a, b: a - b),
    "neg": Op(1, lambda a: -a),
    "relu_shifted": Op(1, lambda a: (a.tanh() + 0.5).relu()),  # kink at a = -0.549, hit ~never
    # a node and a plain number on its right
    "add_float": Op(1, lambda a: a + 2.5),
    "add_int": Op(1, lambda a: a + -1),
    "sub_float": Op(1, lambda a: a - 1.5),
    "sub_negative": Op(1, lambda a: a - -0.25),
    "mul_float": Op(1, lambda a: a * -0.75),
    "div_float": Op(1, lambda a: a / 4.0),
    "div_int": Op(1, lambda a: a / -3),
    "square": Op(1, lambda a: a**2),
    "cube": Op(1, lambda a: a**3),
    "sqrt": Op(1, lambda a: (1 + a * a) ** 0.5),
    "inverse": Op(1, lambda a: (2 + a.tanh()) ** -1),
    "inverse_square": Op(1, lambda a: (1.5 + a.tanh()) ** -2),
    # a plain number on its left
    "radd": Op(1, lambda a: -2.5 + a),
    "rsub": Op(1, lambda a: 1.5 - a),
    "rsub_int": Op(1, lambda a: -2 - a),
    "rmul": Op(1, lambda a: -0.5 * a),
    "rmul_int": Op(1, lambda a: 3 * a),
    "rdiv": Op(1, lambda a: -2.0 / (1.5 + a.tanh())),
    "rpow": Op(1, lambda a: 2.0 ** a.tanh()),
    "rpow_int": Op(1, lambda a: 3 ** a.tanh()),
}


@st.composite
def programs(draw, max_inputs=4, max_steps=12, smooth=False):
    """Draw (inputs, steps): 1 to `max_inputs` numbers in [-2, 2], then 1 to `max_steps`
    steps (op name, operand indices). `smooth=True` draws only operations marked smooth."""
    names = sorted(name for name, op in OPS.items() if op.smooth or not smooth)
    n_inputs = draw(st.integers(1, max_inputs))
    inputs = draw(
        st.lists(
            st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False),
            min_size=n_inputs,
            max_size=n_inputs,
        )
    )
    steps = []
    for k in range(draw(st.integers(1, max_steps))):
        name = draw(st.sampled_from(names))
        pool = n_inputs + k  # everything computed so far may be reused
        steps.append((name, tuple(draw(st.integers(0, pool - 1)) for _ in range(OPS[name].arity))))
    return inputs, steps


def evaluate(steps, leaves):
    """Run `steps` on `leaves` (engine values or tensors): (every value, leaves first; their sum).

    Summing every intermediate result makes each of them reach the output, so each has a
    gradient, and a gradient bug anywhere in the graph shows up in the inputs' gradients.
    """
    pool = list(leaves)
    for name, args in steps:
        pool.append(OPS[name].function(*(pool[i] for i in args)))
    total = pool[len(leaves)]
    for value in pool[len(leaves) + 1 :]:
        total = total + value
    return pool, total


def run(steps, leaves):
    """Run `steps` on `leaves`; return the sum of every result (see `evaluate`)."""
    return evaluate(steps, leaves)[1]


def run_or_error(program, value_class):
    """Build `program` with `value_class`: (every value, their sum, None), or, where building
    raises ArithmeticError or ValueError, (None, None, (exception type, message))."""
    inputs, steps = program
    try:
        pool, total = evaluate(steps, [value_class(x) for x in inputs])
    except (ArithmeticError, ValueError) as e:
        return None, None, (type(e), str(e))
    return pool, total, None


def central_differences(steps, inputs, value_class, h=1e-6):
    """d(program)/d(input) for each input by central differences on the forward values."""
    grads = []
    for i in range(len(inputs)):
        plus = [value_class(x + (h if j == i else 0.0)) for j, x in enumerate(inputs)]
        minus = [value_class(x - (h if j == i else 0.0)) for j, x in enumerate(inputs)]
        grads.append((run(steps, plus).data - run(steps, minus).data) / (2 * h))
    return grads


def close(a, b, rel, abs_):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
