"""The table of primitives: each operation's forward on floats and its local derivatives, once.

Every operation the engines build a node for is one row of `OPS`, an `Op`:

- `name`: the engine's `_op` label (`'**n'` stands for every power by a number, which the
  engine labels `'**2'`, `'**0.5'`, a label that holds the exponent: see `find`); `arity`:
  how many inputs are values; `parameters`: how many numbers follow them (the exponent of `'**n'`).
- `forward(*numbers)`: the output on floats, through `autograd._floats`, so that the errors
  and the overflow are the engines' own, message for message.
- `backward`: one rule per input, `rule(k, *args, out, g)`: what passes back to that input
  when the output `out` (made from `args`, the inputs and then the parameters) has received the
  gradient `g`, or None where nothing passes. A rule is written once, over an abstract number
  type `k`, in the float operations, and in the order, of the reference engine's `_backward`
  closure: so run on floats it gives the closure's numbers, bit for bit (tests/test_ops.py holds
  every closure to its row); run on Values it gives gradients that are Values (`grad` with
  `create_graph=True`); run on `Expr` it writes source text (the compiled Python and C). A
  rule uses `+ - * /` and unary `-` on the numbers, and these of `k`:
    `k.when(condition, part)`  `part()` where the condition holds, else nothing passes (a slope
                               of exactly 0 passes back nothing, not 0 * g: `0 * inf` is NaN);
    `k.positive(x)`, `k.nonzero(x)`  the conditions `x > 0` and `x != 0`;
    `k.power_slope(a, n)`, `k.log_slope(a, b, out)`  the slopes of `a ** n` in a and in b, as
                               `autograd._floats` computes them;
    `k.call(name, *args)`      another row's operation (a slope that is another function:
                               sin's is `k.call("cos", x)`), as its forward, a node, or its
                               helper.
  `FLOATS` is `k` for floats, `TEXT` for `Expr`s; `grad` has its own for Values
  (`autograd.grad_rules.VALUES`).
- `method`: the reference engine's method whose closure the row describes (`autograd.engine`).
- `slopes`: the fast engine's local derivatives, one function per input, `slope(*args, out)`
  on floats: what `autograd.fast` records at forward time and multiplies by the gradient later.
  Each is the rule with `g = 1` (the one gradient that changes no product), written out as a
  Python function from the rule itself (`slope_text` gives the expression, `slope.source` the
  function), except where a row gives its own in `fast`, `rule(k, *args, out)`: `/` and `log`
  record the reciprocal 1/x (`k.reciprocal`), where the reference engine divides. A slope of
  nothing is `STOP`, a 0 that passes back nothing.
- For the compiler: `helper`, the function compiled code calls (`None` for an infix operator:
  `+ * /`); `guard`, which inputs compiled code checks first, because an infinite or NaN value
  could vanish in this operation (`"inputs"`: each variable input; `"divisor"`: the divisor;
  `""`: none); `statement`, where the forward is no single expression, the name of the writer's
  own statement for it (`relu`: `lang.relu(out, x)`).

The compiler (`autograd.compile.rules`) runs each row once, when it loads, on `TEXT` with
placeholders for the numbers (`{a}`, `{b}`, `{out}`, `{g}`; a helper written `{h}`), which
gives its forward expression and backward parts as templates, filled in per instruction; it
finds a node's row with `find`, runs `OPS[op].forward` to find where a run of the tape on
floats first fails, and starts compiled Python's namespace from `NAMESPACE`: each row's
`forward` as `'_' + helper`, and `_power_slope`, `_log_slope` (it adds its own checks,
`_checked` and `_quotient`). A row's `statement` (relu) is each writer's own. C needs a helper
in its prelude only for a `helper` that C's library lacks (today `sigmoid`, `power_slope`,
`log_slope`; `power` is spelled `pow`). The compiler's text is held to text written straight
from the rows by a writer the tests keep (tests/rows_as_text.py, both languages).

Other readers: `grad` runs the rules on Values, the fast engine makes a method of each one-input
row (`slope_text` written into it), and `python_function` makes a function from generated text.

A new operation: a row here (its forward, one rule per input, the method, the helper), the
engine's method and closure, and the tests; see CONTRIBUTING.md, "Where things go".
"""

import math
from typing import Callable, NamedTuple, Optional

from . import _floats

__all__ = [
    "Op",
    "OPS",
    "FLOATS",
    "TEXT",
    "Expr",
    "NAMESPACE",
    "STOP",
    "find",
    "slope_text",
    "argument_names",
    "python_function",
    "reciprocal",
]


# ----------------------------------------------------------------------- slopes as numbers
# What the fast engine records for two kinds of local derivative that a plain float cannot be.


class _Stop(float):
    """The local derivative 0 of relu at and below 0 and of `x ** 0`: it passes back nothing.

    A plain 0.0 would not do: the backward pass multiplies it by the gradient from above,
    and `0.0 * inf` is NaN. Multiplying this one gives 0.0 whatever the other factor, as
    PyTorch does for these two operations. It costs a Python call, but only on these nodes.
    """

    __slots__ = ()

    def __mul__(self, other):
        return 0.0

    __rmul__ = __mul__


STOP = _Stop(0.0)


class _Divide(float):
    """A local derivative 1/x too large for a float, because x is tiny (subnormal).

    Its value is 1/x, infinite; multiplying a gradient by it divides the gradient by x
    instead, as the reference engine and PyTorch do, so a small enough gradient still gives a
    finite answer (and a zero gradient gives 0, where 0 * inf would be NaN).
    """

    __slots__ = ("divisor",)

    def __new__(cls, divisor):
        slope = super().__new__(cls, 1.0 / divisor)
        slope.divisor = divisor
        return slope

    def __mul__(self, other):
        return other / self.divisor

    __rmul__ = __mul__

    def __reduce__(self):  # pickle and copy by the divisor
        return _Divide, (self.divisor,)


def reciprocal(x):
    """1/x as a local derivative (x is not 0): a float, or `_Divide(x)` if 1/x overflows."""
    slope = 1.0 / x
    return slope if slope - slope == 0 else _Divide(x)


# ----------------------------------------------------------------------- the rules on floats


class _Floats:
    """`k` for floats: the rules compute what the reference engine's closures compute."""

    @staticmethod
    def when(condition, part):
        return part() if condition else None

    @staticmethod
    def positive(x):
        return x > 0

    @staticmethod
    def nonzero(x):
        return x != 0

    power_slope = staticmethod(_floats.power_slope)
    log_slope = staticmethod(_floats.log_slope)

    @staticmethod
    def call(name, *args):
        return OPS[name].forward(*args)


FLOATS = _Floats()


# ----------------------------------------------------------------------- the rules as text
# An `Expr` is a number that writes itself: `a * g` of two Exprs is the Expr `a * g`, which
# prints as `t1 * dt3` in Python and `t[1] * dt[3]` in C, with the brackets its operators need.

_RANK = {
    "if": 1,
    ">": 2,
    "!=": 2,
    "+": 3,
    "-": 3,
    "*": 4,
    "/": 4,
    "neg": 5,
    "call": 6,
    "atom": 6,
}  # how tightly each binds: a higher rank needs no brackets


def _operator(symbol, reflected=False):
    """An Expr's method for the operator `symbol` (`x + y`, or reflected, `2 + x`)."""

    def method(self, other):
        return _binary(symbol, other, self) if reflected else _binary(symbol, self, other)

    return method


class Expr:
    """Source text of a number: a name (`leaf`), a number, a call of a helper, an operator on
    two Exprs, a negation, a comparison, or a choice; `text(f)` writes it, `f` spelling the
    helpers' names (`lang.f`). Python and C write these the same way, but for `choice`, which
    only the fast engine's slopes hold (as Python)."""

    __slots__ = ("op", "parts", "value")

    def __init__(self, op, parts, value=None):
        self.op, self.parts, self.value = op, parts, value

    @classmethod
    def leaf(cls, text, value=None):
        """A name as the language writes it; `value` is the float a literal stands for."""
        return cls("atom", (text,), value)

    __add__, __radd__ = _operator("+"), _operator("+", reflected=True)
    __sub__, __rsub__ = _operator("-"), _operator("-", reflected=True)
    __mul__, __rmul__ = _operator("*"), _operator("*", reflected=True)
    __truediv__, __rtruediv__ = _operator("/"), _operator("/", reflected=True)

    def __neg__(self):
        return Expr("neg", (self,))

    def __repr__(self):
        return f"Expr({self.text(lambda helper: helper)!r})"

    def text(self, f):
        """The expression as source text; `f(helper)` spells a helper's name."""
        op, parts = self.op, self.parts
        if op == "atom":
            return parts[0]
        if op == "call":
            return f"{f(parts[0])}({', '.join(part.text(f) for part in parts[1:])})"
        if op == "neg":
            return "-" + _inside(parts[0], _RANK["neg"], f)
        if op == "if":
            condition, then, otherwise = parts
            return f"{_inside(then, 2, f)} if {condition.text(f)} else {_inside(otherwise, 1, f)}"
        left, right = parts
        rank = _RANK[op]
        return f"{_inside(left, rank, f)} {op} {_inside(right, rank + 1, f)}"


def _as_expr(x):
    """`x` as an Expr: itself, or a plain number written as a literal."""
    return x if isinstance(x, Expr) else Expr.leaf(repr(x), x)


def _inside(expr, rank, f):
    """`expr`'s text, in brackets if its operator binds less tightly than `rank`."""
    text = expr.text(f)
    return f"({text})" if _RANK[expr.op] < rank else text


UNIT = Expr.leaf("1.0", 1.0)  # the gradient 1, in the fast engine's slopes: `x * UNIT` is x
_NOTHING = Expr.leaf("STOP")  # what passes back nothing, as the fast engine records it


def _binary(op, a, b):
    a, b = _as_expr(a), _as_expr(b)
    if op == "*":  # times the gradient 1: exactly the other factor, in floats too
        for this, that in ((a, b), (b, a)):
            if this is UNIT:
                return that
            if this.op == "neg" and this.parts[0] is UNIT:
                return Expr("neg", (that,))
    return Expr(op, (a, b))


class _Text:
    """`k` for Exprs: conditions known from literals are decided here, others are written."""

    @staticmethod
    def when(condition, part):
        if condition is True or condition is False:
            return part() if condition else None
        return Expr("if", (condition, part(), _NOTHING))

    @staticmethod
    def positive(x):
        return Expr(">", (x, _as_expr(0)))

    @staticmethod
    def nonzero(x):
        if x.value is not None:  # a literal: known now
            return x.value != 0
        return Expr("!=", (x, _as_expr(0)))

    @staticmethod
    def power_slope(a, n):
        return Expr("call", ("power_slope", a, n))

    @staticmethod
    def log_slope(a, b, out):
        return Expr("call", ("log_slope", a, b, out))

    @staticmethod
    def reciprocal(x):
        return Expr("call", ("reciprocal", x))

    @staticmethod
    def call(name, *args):
        op = OPS[name]
        return Expr(name, args) if op.helper is None else Expr("call", (op.helper, *args))


TEXT = _Text()


# ----------------------------------------------------------------------- the table


class Op(NamedTuple):
    """One primitive operation (see the module's docstring for each field)."""

    name: str
    arity: int
    forward: Callable
    backward: tuple
    method: str
    helper: Optional[str] = None
    guard: str = ""
    statement: Optional[str] = None
    fast: Optional[tuple] = None
    parameters: int = 0
    slopes: tuple = ()


def _add(a, b):
    return _floats.checked(a + b, "+", a, b)


def _mul(a, b):
    return _floats.checked(a * b, "*", a, b)


def _relu(x):
    return 0.0 if x < 0 else x  # and NaN stays NaN


def _power_in_base(k, a, n, out, g):
    """n a^(n-1) in a; at n = 0 the slope is 0, which passes back nothing."""
    return k.when(k.nonzero(n), lambda: k.power_slope(a, n) * g)


_ROWS = [
    Op("+", 2, _add, (lambda k, a, b, out, g: g, lambda k, a, b, out, g: g), "__add__"),
    Op("*", 2, _mul, (lambda k, a, b, out, g: b * g, lambda k, a, b, out, g: a * g), "__mul__"),
    # the slope in b, -a/b^2, as -(out/b): finite wherever the answer is, where b^2 may not be
    Op(
        "/",
        2,
        _floats.quotient,
        (lambda k, a, b, out, g: g / b, lambda k, a, b, out, g: -g * (out / b)),
        "__truediv__",
        guard="divisor",
        fast=(lambda k, a, b, out: k.reciprocal(b), None),
    ),
    Op(
        "**n",
        1,
        _floats.power,
        (_power_in_base,),
        "__pow__",
        helper="power",
        guard="inputs",
        parameters=1,
    ),
    Op(
        "**",
        2,
        _floats.power,
        (_power_in_base, lambda k, a, b, out, g: k.log_slope(a, b, out) * g),
        "_pow_value",
        helper="power",
        guard="inputs",
    ),
    # 1 - t^2 as (1 - t)(1 + t): rounding t^2 first would lose digits where t is near +-1
    Op(
        "tanh",
        1,
        math.tanh,
        (lambda k, x, out, g: (1.0 - out) * (1.0 + out) * g,),
        "tanh",
        helper="tanh",
        guard="inputs",
    ),
    Op("exp", 1, _floats.exp, (lambda k, x, out, g: out * g,), "exp", helper="exp", guard="inputs"),
    # g / x, as the closure divides: not (1/x) * g, which may differ in the last bit, and
    # which as a Value has a slope of its own, -(1/x)/x, that overflows below about 1e-154
    Op(
        "log",
        1,
        _floats.log,
        (lambda k, x, out, g: g / x,),
        "log",
        helper="log",
        fast=(lambda k, x, out: k.reciprocal(x),),
    ),
    Op(
        "relu",
        1,
        _relu,
        (lambda k, x, out, g: k.when(k.positive(out), lambda: g),),
        "relu",
        helper="relu",
        statement="relu",
    ),
    Op(
        "sigmoid",
        1,
        _floats.sigmoid,
        (lambda k, x, out, g: out * (1.0 - out) * g,),
        "sigmoid",
        helper="sigmoid",
        guard="inputs",
    ),
    # package operations, which no chapter teaches: the slope of each is the other row's
    # function, which a rule names with `k.call` (an infinite input gives NaN: nothing vanishes)
    Op("sin", 1, _floats.sin, (lambda k, x, out, g: k.call("cos", x) * g,), "sin", helper="sin"),
    Op("cos", 1, _floats.cos, (lambda k, x, out, g: -k.call("sin", x) * g,), "cos", helper="cos"),
]


def argument_names(op):
    """The names a slope's text gives the row's arguments (then `out`): x; a, b; or a, n."""
    n = op.arity + op.parameters
    return ("x",) if n == 1 else ("a", "n") if op.parameters else ("a", "b")


def slope_text(op, i):
    """The fast engine's slope of `op` in its input `i`, as a Python expression in the
    `argument_names` and `out`: its own (`op.fast`), or the rule at g = 1, which is the rule's
    own float operations without the last product by g (exact: x * 1.0 is x)."""
    leaves = [Expr.leaf(name) for name in argument_names(op)] + [Expr.leaf("out")]
    if op.fast and op.fast[i] is not None:
        part = op.fast[i](TEXT, *leaves)
    else:
        part = op.backward[i](TEXT, *leaves, UNIT)
    return "STOP" if part is None else _as_expr(part).text(lambda helper: "_" + helper)


# What a slope's text, or code made from it, may call: the helpers of the slopes, and the
# rows' own forward functions under their helpers' names.
NAMESPACE = {
    "_power_slope": _floats.power_slope,
    "_log_slope": _floats.log_slope,
    "_reciprocal": reciprocal,
    "STOP": STOP,
    **{"_" + op.helper: op.forward for op in _ROWS if op.helper},
}


def python_function(text, name, namespace=NAMESPACE):
    """The function `name` that the Python source `text` defines, over `namespace`; its
    `source` attribute keeps the text, for a reader (`inspect.getsource` cannot find it)."""
    namespace = dict(namespace)
    exec(compile(text, f"<autograd.ops: {name}>", "exec"), namespace)
    function = namespace[name]
    function.__module__, function.source = __name__, text
    return function


_WORDS = {"+": "sum", "*": "product", "/": "quotient", "**n": "power", "**": "power"}


def _slope(op, i):
    """`slope_text` as a Python function of the arguments and the output, on floats."""
    names = argument_names(op)
    name = f"slope_of_{_WORDS.get(op.name, op.name)}_in_{names[i]}"
    text = f"def {name}({', '.join(names)}, out):\n    return {slope_text(op, i)}\n"
    return python_function(text, name)


OPS = {op.name: op for op in _ROWS}  # first without slopes: a slope may call another row
OPS.update(
    (op.name, op._replace(slopes=tuple(_slope(op, i) for i in range(op.arity)))) for op in _ROWS
)


def find(label):
    """The row for an engine's op label, or None if there is none. A power by a number is
    labelled `'**2'`, `'**0.5'` by a `_floats.PowerLabel`, which holds the exponent: that
    label finds `'**n'`; the same text in a plain string (a node made by hand) finds none."""
    if type(label) is _floats.PowerLabel:
        return OPS["**n"]
    return OPS.get(label)
