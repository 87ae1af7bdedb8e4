"""The table of primitives (`autograd.ops`) against everything that computes the same numbers or
writes the same code: the reference engine's closures, the fast engine's recorded slopes, and
the compiler's text for each operation, in Python and in C.

The closures are written by hand, so each is held to its row here, bit for bit, on random
numbers and on the edges of floating point (0, -0, subnormal, tiny, huge, negative, infinite
gradients). The compiler reads its rules from the table, as templates (`compile.rules`); the
text it writes from them is held to the text that tests/rows_as_text.py writes from the rows
directly.
"""

import itertools
import math
import random
import struct
from pathlib import Path

import pytest
import rows_as_text

from autograd import engine, fast, ops
from autograd.compile import rules, statements
from autograd.compile.c import C
from autograd.compile.python import Python
from autograd.compile.tape import Instruction, is_name

# Numbers at the edges of floating point, and around them.
EDGES = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-310,
    1e-300,
    1e-160,
    1e-10,
    0.25,
    -0.5,
    1.0,
    -1.0,
    2.0,
    -3.0,
    7.25,
    20.0,
    -20.0,
    709.5,
    -745.0,
    1e10,
    1e160,
    1e300,
    -1e300,
]
EXPONENTS = [0, 1, 2, 3, -1, -2, 0.0, 0.5, 1.5, -0.5, 2.0, 1e-3, 1e3]
GRADIENTS = [1.0, -2.5, 3e-300, 1e300, 0.0, math.inf]
BEFORE = (0.25, -0.75)  # what the inputs' grad holds before the closure adds to it


def bits(x):
    """A float's bits, NaN as one value: equal bits are the same number, zero signs too."""
    return "nan" if math.isnan(x) else struct.pack("<d", x)


def random_numbers(rng, count):
    """Numbers of every scale and sign, and a few everyday ones."""
    numbers = []
    for _ in range(count):
        if rng.random() < 0.5:
            numbers.append(rng.uniform(-5.0, 5.0))
        else:
            numbers.append(rng.choice((-1.0, 1.0)) * 10.0 ** rng.uniform(-320.0, 308.0))
    return numbers


def cases(op, seed=27):
    """(inputs, parameters, g) for `op`: every pair of edge numbers, and random ones."""
    rng = random.Random(seed)
    numbers = EDGES + random_numbers(rng, 25)
    if op.parameters:
        tuples = [((a,), (n,)) for a in numbers for n in EXPONENTS + random_numbers(rng, 5)]
    elif op.arity == 2:
        tuples = [((a, b), ()) for a, b in itertools.product(numbers, repeat=2)]
    else:
        tuples = [((a,), ()) for a in numbers]
    return [(xs, params, rng.choice(GRADIENTS)) for xs, params in tuples]


def ids(table):
    return [name for name in table]


def run_closure(op, xs, params, g):
    """The reference engine's node for `op` at these numbers, after its closure has run once
    with `g` arriving from above: (output, the inputs' grads), or the error it raised."""
    nodes = [engine.Value(x) for x in xs]
    try:
        out = getattr(nodes[0], op.method)(*nodes[1:], *params)
    except (ArithmeticError, ValueError) as error:
        return error
    for node, before in zip(nodes, BEFORE):
        node.grad = before
    out.grad = g
    out._backward()
    return out.data, [node.grad for node in nodes]


def by_the_table(op, xs, params, g):
    """What the row says the same node computes: (output, the inputs' grads), or the error."""
    try:
        out = op.forward(*xs, *params)
    except (ArithmeticError, ValueError) as error:
        return error
    grads = []
    for x, rule, before in zip(xs, op.backward, BEFORE):
        part = rule(ops.FLOATS, *xs, *params, out, g)
        grads.append(before if part is None else before + part)
    return out, grads


@pytest.mark.parametrize("name", ids(ops.OPS))
def test_each_closure_of_the_reference_engine_computes_its_row_bit_for_bit(name):
    op = ops.OPS[name]
    checked = 0
    for xs, params, g in cases(op):
        engine_says, table_says = run_closure(op, xs, params, g), by_the_table(op, xs, params, g)
        where = f"{name} at {xs} {params}, gradient {g}"
        if isinstance(table_says, Exception):
            assert type(engine_says) is type(table_says), where
            assert str(engine_says) == str(table_says), where
            continue
        assert not isinstance(engine_says, Exception), f"{where}: {engine_says}"
        (out, grads), (expected_out, expected_grads) = engine_says, table_says
        assert bits(out) == bits(expected_out), where
        assert [bits(x) for x in grads] == [bits(x) for x in expected_grads], where
        checked += 1
    assert checked > 20  # most cases have an answer


def test_the_closure_test_catches_a_closure_that_rounds_differently(monkeypatch):
    # tanh's slope as 1 - t**2: the same number in most places, but not in every bit
    def tanh(self):
        out = engine.Value(math.tanh(self.data), (self,), "tanh")

        def _backward():
            out._prev[0].grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    monkeypatch.setattr(engine.Value, "tanh", tanh)
    op = ops.OPS["tanh"]
    differ = [
        xs
        for xs, params, g in cases(op)
        if run_closure(op, xs, params, g) != by_the_table(op, xs, params, g)
    ]
    assert differ


FAST_METHOD = {"_pow_value": "__pow__"}  # the fast engine's name, where it differs


def same_slope(recorded, expected):
    """A recorded local derivative is the row's: the same float, or the same kind of slope
    that is no plain float (STOP, or a reciprocal too large for a float)."""
    if isinstance(expected, ops._Stop):
        return isinstance(recorded, ops._Stop)
    if isinstance(expected, ops._Divide):
        return isinstance(recorded, ops._Divide) and bits(recorded.divisor) == bits(
            expected.divisor
        )
    return type(recorded) is float and bits(recorded) == bits(expected)


@pytest.mark.parametrize("name", ids(ops.OPS))
def test_the_fast_engine_records_each_rows_slopes(name):
    op = ops.OPS[name]
    method = FAST_METHOD.get(op.method, op.method)
    for xs, params, _ in cases(op):
        nodes = [fast.Value(x) for x in xs]
        try:
            out = getattr(nodes[0], method)(*nodes[1:], *params)
        except (ArithmeticError, ValueError):
            continue
        for recorded, slope in zip((out._da, out._db), op.slopes):
            assert same_slope(recorded, slope(*xs, *params, out.data)), (name, xs, params)


@pytest.mark.parametrize(
    "build, name, position",
    [
        (lambda a, c: a + c, "+", 0),
        (lambda a, c: c + a, "+", 0),
        (lambda a, c: a * c, "*", 0),
        (lambda a, c: c * a, "*", 0),
        (lambda a, c: a / c, "/", 0),
        (lambda a, c: c / a, "/", 1),
        (lambda a, c: c**a, "**", 1),
    ],
)
def test_the_fast_engine_records_a_rows_slope_with_a_number_for_the_other_input(
    build, name, position
):
    op = ops.OPS[name]
    for a, c in itertools.product(EDGES, repeat=2):
        try:
            out = build(fast.Value(a), c)
        except (ArithmeticError, ValueError):
            continue
        args = (a, c) if position == 0 else (c, a)
        assert out._b is None
        assert same_slope(out._da, op.slopes[position](*args, out.data)), (name, a, c)


@pytest.mark.parametrize("name", [name for name, op in ops.OPS.items() if not op.fast])
def test_a_slope_times_the_gradient_is_the_rule_bit_for_bit(name):
    # so that the fast engine's gradients are the reference engine's, wherever the row does
    # not give the fast engine a slope of its own
    op = ops.OPS[name]
    for xs, params, g in cases(op):
        try:
            out = op.forward(*xs, *params)
        except (ArithmeticError, ValueError):
            continue
        for rule, slope in zip(op.backward, op.slopes):
            part = rule(ops.FLOATS, *xs, *params, out, g)
            recorded = slope(*xs, *params, out)
            if part is None:
                assert recorded is ops.STOP
            else:
                assert bits(recorded * g) == bits(part), (name, xs, params, g)


def test_a_slope_of_nothing_passes_back_nothing_even_an_infinite_gradient():
    assert ops.STOP * math.inf == 0.0 and math.inf * ops.STOP == 0.0
    assert ops.OPS["relu"].slopes[0](-1.0, 0.0) is ops.STOP
    assert ops.OPS["**n"].slopes[0](3.0, 0, 1.0) is ops.STOP
    assert ops.OPS["relu"].slopes[0](2.0, 2.0) == 1.0


def test_a_reciprocal_too_large_for_a_float_divides_instead():
    slope = ops.reciprocal(5e-324)
    assert slope == math.inf and 1e-320 * slope == 1e-320 / 5e-324
    assert ops.reciprocal(4.0) == 0.25 and type(ops.reciprocal(4.0)) is float


def test_the_fast_engines_slopes_are_the_rules_written_out():
    assert ops.OPS["tanh"].slopes[0].source.splitlines()[1].strip() == (
        "return (1.0 - out) * (1.0 + out)"
    )
    assert ops.OPS["/"].slopes[1].source.splitlines()[1].strip() == "return -(out / b)"
    assert ops.OPS["relu"].slopes[0].source.splitlines()[1].strip() == (
        "return 1.0 if out > 0 else STOP"
    )


def test_find_reads_an_engines_op_label():
    from autograd import engine, fast, reading

    for Value in (engine.Value, fast.Value):
        x = Value(3.0)
        square, root, twice = x**2, x**-0.5, x**2.0
        assert ops.find(square._op) is ops.OPS["**n"] and ops.find(root._op) is ops.OPS["**n"]
        # the label shows 2 for both; the exponent itself is data, as the engine was given it
        assert square._op == twice._op == "**2" and root._op == "**-0.5"
        assert type(reading.exponent(square)) is int and type(reading.exponent(twice)) is float
        assert reading.exponent(root) == -0.5 and reading.exponent(x.tanh()) is None
        assert ops.find((x**x)._op) is ops.OPS["**"] and ops.find("tanh") is ops.OPS["tanh"]
    # a label that only looks like a power (a node made by hand) names no row
    assert ops.find("**2") is None and ops.find("**x") is None and ops.find("") is None


# ------------------------------------------------------------------ the text the compiler writes


def literal_number(arg):
    return None if is_name(arg) else arg


ARGUMENTS = ["p0", "x1", "t2", 2.5, -3.0, 0.0, -0.0, 0, math.nan, math.inf, -math.inf]
# C keeps results and gradients in arrays, at places the passes number
C_WRITER = C({"t2": 2, "t9": 5}, {"t2": 1, "t4": 3, "t9": 7})


def instructions():
    """Every operation of the table on every mix of variables and numbers the tape holds."""
    for name, op in ops.OPS.items():
        for args in itertools.product(ARGUMENTS, repeat=op.arity + op.parameters):
            if op.parameters and is_name(args[-1]):
                continue  # a number exponent is always a number
            if not any(is_name(a) for a in args[: op.arity]):
                continue  # an operation on constants is a constant, not an instruction
            yield Instruction("t9", name, args)


def compilers_backward(ins, lang, gradient):
    """What the compiler writes for the closure of `ins`: (input, expression, condition)."""
    g = (gradient or lang.d)(ins.out)
    return [
        (
            target,
            rules.write(expr, lang, ins, g=g),
            condition and rules.write(condition, lang, ins, g=g),
        )
        for target, expr, condition in rules.shares(ins)
    ]


@pytest.mark.parametrize("lang", [Python, C_WRITER], ids=["python", "c"])
def test_the_table_writes_exactly_the_compilers_text_for_every_operation(lang):
    shared = lambda name: lang.d("t4")  # a gradient variable shared with another value
    written = 0
    for ins in instructions():
        for gradient in (None, shared):
            text = rows_as_text.source(ins, lang, literal_number, gradient)
            if not ops.OPS[ins.op].statement:
                assert text.expression == rules.write(rules.RULES[ins.op].forward, lang, ins), ins
            assert text.forward == statements.forward(ins, lang), ins
            assert text.backward == compilers_backward(ins, lang, gradient), ins
            written += 1
    assert {name for _, name, _ in instructions()} == set(ops.OPS) == set(rules.RULES)
    assert written > 400


def test_the_compiler_reads_a_new_row_from_the_table_alone(monkeypatch):
    # softplus, log(1 + e^x), whose slope is another row's operation: no file of the compiler
    # changes for it (but C's prelude, where C's library lacks the helper)
    row = ops.Op(
        "softplus",
        1,
        lambda x: math.log1p(math.exp(x)),
        (lambda k, x, out, g: k.call("sigmoid", x) * g,),
        "softplus",
        helper="softplus",
        guard="inputs",
    )
    monkeypatch.setitem(ops.OPS, "softplus", row)
    rule = rules._rule(row)
    monkeypatch.setitem(rules.RULES, "softplus", rule)  # as the module makes it on loading
    assert rule.forward == "{softplus}({a})" and rule.guard == "inputs"
    assert rule.backward == (rules.Share(0, "{sigmoid}({a}) * {g}"),)
    assert not rule.checked and not rule.folds  # a helper: the engine's own function
    ins = Instruction("t3", "softplus", ("t1",))
    assert rules.write(rule.forward, Python, ins) == "_softplus(t1)"
    assert statements.forward(ins, Python) == ["if t1 - t1: return None", "t3 = _softplus(t1)"]


def test_no_derivative_is_written_in_the_compiler():
    # the compiler's rules are the table's, run on its expression type: none is typed again
    source = "".join(
        path.read_text(encoding="utf-8") for path in Path(rules.__file__).parent.glob("*.py")
    )
    templates = {share.expr for rule in rules.RULES.values() for share in rule.backward}
    assert len(templates) > 5
    for template in templates - {rules.GRADIENT}:
        assert template not in source
        assert template.replace("{", "").replace("}", "") not in source


def test_source_text_of_a_few_operations_by_hand():
    # independent of the compiler: what the generated Python should read
    ins = ("t3", "tanh", ("t2",))
    text = rows_as_text.source(ins, Python, literal_number)
    assert text.forward == ["if t2 - t2: return None", "t3 = _tanh(t2)"]
    assert text.backward == [("t2", "(1.0 - t3) * (1.0 + t3) * dt3", None)]
    text = rows_as_text.source(("t3", "/", ("p0", "x1")), C({"t3": 3}, {"t3": 3}), literal_number)
    assert text.backward == [("p0", "dt[3] / x[1]", None), ("x1", "-dt[3] * (t[3] / x[1])", None)]
    text = rows_as_text.source(("t3", "relu", ("t1",)), Python, literal_number)
    assert text.backward == [("t1", "dt3", "t3 > 0")]
    assert rows_as_text.source(("t3", "**n", ("t1", 0)), Python, literal_number).backward == []


def test_expressions_write_the_brackets_their_operators_need():
    a, b, c = (ops.Expr.leaf(name) for name in "abc")
    f = str
    assert ((a + b) * c).text(f) == "(a + b) * c"
    assert (a + b * c).text(f) == "a + b * c"
    assert (a - (b - c)).text(f) == "a - (b - c)"
    assert ((a - b) - c).text(f) == "a - b - c"
    assert (a / (b * c)).text(f) == "a / (b * c)"
    assert (-(a / b)).text(f) == "-(a / b)" and (-a * b).text(f) == "-a * b"
    assert (1.0 - a).text(f) == "1.0 - a" and (a * 2).text(f) == "a * 2"


def test_a_rule_can_use_another_rows_operation_on_each_kind_of_number():
    from autograd import _floats
    from autograd.grad_rules import VALUES as _VALUES

    def rule(k, x, out, g):  # a slope that is another function, such as softplus's sigmoid
        return k.call("sigmoid", x) * k.call("*", g, out)

    assert bits(rule(ops.FLOATS, 0.3, 2.0, -1.5)) == bits(_floats.sigmoid(0.3) * (-1.5 * 2.0))
    x, out, g = (ops.Expr.leaf(name) for name in ("x", "out", "g"))
    assert rule(ops.TEXT, x, out, g).text(lambda helper: "_" + helper) == "_sigmoid(x) * (g * out)"
    value = rule(_VALUES, engine.Value(0.3), engine.Value(2.0), engine.Value(-1.5))
    assert isinstance(value, engine.Value)
    assert bits(value.data) == bits(_floats.sigmoid(0.3) * (-1.5 * 2.0))
