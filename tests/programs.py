"""Random expression graphs for property tests.

A *program* is a list of steps; each step applies one operation to earlier results (inputs or
intermediate values), so later steps reuse earlier ones and the graph has shared nodes. The
same program can be run on the package's `Value`, on another engine, or on PyTorch tensors,
which is how the tests compare them. Every operation keeps its operands in a safe domain
(log of 1 + x*x, division by 1 + y*y, exp of a tanh...) so that every program is smooth
wherever hypothesis puts its inputs.
"""

import math

from hypothesis import strategies as st

# name -> (arity, function of operands written only with operators and methods the engines share)
OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / (1 + b * b)),
    "rdiv": (1, lambda a: 2.0 / (1.5 + a.tanh())),
    "radd": (1, lambda a: 3.0 + a),
    "rsub": (1, lambda a: 1.0 - a),
    "rmul": (1, lambda a: -0.5 * a),
    "neg": (1, lambda a: -a),
    "square": (1, lambda a: a**2),
    "cube": (1, lambda a: a**3),
    "sqrt": (1, lambda a: (1 + a * a) ** 0.5),
    "inv": (1, lambda a: (2 + a.tanh()) ** -1),
    "rpow": (1, lambda a: 2.0 ** a.tanh()),
    "vpow": (2, lambda a, b: (1.5 + a.tanh()) ** b.tanh()),
    "tanh": (1, lambda a: a.tanh()),
    "exp": (1, lambda a: a.tanh().exp()),
    "log": (1, lambda a: (1 + a * a).log()),
    "sigmoid": (1, lambda a: a.sigmoid()),
    "relu": (1, lambda a: (a.tanh() + 0.5).relu()),  # zero for a < -0.549, a kink hit with probability ~0
}

@st.composite
def programs(draw, max_inputs=4, max_steps=12):
    """Draw (inputs, steps): a few input numbers and steps (op name, operand indices)."""
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
        name = draw(st.sampled_from(sorted(OPS)))
        arity = OPS[name][0]
        pool = n_inputs + k  # everything computed so far may be reused
        steps.append((name, tuple(draw(st.integers(0, pool - 1)) for _ in range(arity))))
    return inputs, steps


def run(steps, leaves):
    """Run a program on `leaves` (engine values or tensors); return the sum of every result.

    Summing every intermediate result makes each of them reach the output, so a gradient bug
    anywhere in the graph shows up in the inputs' gradients.
    """
    pool = list(leaves)
    for name, args in steps:
        pool.append(OPS[name][1](*(pool[i] for i in args)))
    total = pool[len(leaves)]
    for value in pool[len(leaves) + 1 :]:
        total = total + value
    return total


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
