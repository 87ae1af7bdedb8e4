"""Chapter 04's exercises: `tanh`, predict tanh's slope at 0 and at 3, and `sigmoid`."""

from . import Mistake

_TANH = """@add_to_class(Value)
def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward():
        self.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out"""


def _tanh(old, new):
    """The solution's `tanh` with one piece of it written wrong."""
    assert old in _TANH, old
    return _TANH.replace(old, new)


_SIGMOID = """@add_to_class(Value)
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = Value(s, (self,), "sigmoid")

    def _backward():
        self.grad += s * (1 - s) * out.grad

    out._backward = _backward
    return out"""


def _sigmoid(old, new):
    """The solution's `sigmoid` with one piece of it written wrong."""
    assert old in _SIGMOID, old
    return _SIGMOID.replace(old, new)


def _slopes(at_zero, at_three):
    return f"slope_at_0 = {at_zero}\nslope_at_3 = {at_three}"


_TANH_CHECK = "ch04.check_tanh"
_SLOPE = "(1 - t**2) * out.grad"
_PREDICT = "ch04.check_tanh_slope_prediction"
_CHECK = "ch04.check_sigmoid"

MISTAKES = [
    # tanh, one node whose closure adds (1 − t²)·out.grad, t the output
    Mistake(
        _TANH_CHECK,
        "1 - t, the square missing",
        _tanh(_SLOPE, "(1 - t) * out.grad"),
        ("1 − tanh(x), without the square",),
    ),
    Mistake(
        _TANH_CHECK,
        "the input squared, 1 - x**2",
        _tanh(_SLOPE, "(1 - self.data**2) * out.grad"),
        ("1 − x², which squares the input x", "squares the output t = tanh(x)"),
    ),
    Mistake(_TANH_CHECK, "t**2 alone", _tanh(_SLOPE, "t**2 * out.grad"), ("tanh²(x) alone",)),
    Mistake(
        _TANH_CHECK, "1 + t**2", _tanh(_SLOPE, "(1 + t**2) * out.grad"), ("the sign is wrong",)
    ),
    Mistake(
        _TANH_CHECK,
        "t itself, the value",
        _tanh(_SLOPE, "t * out.grad"),
        ("tanh(x) itself, the value rather than its slope",),
    ),
    Mistake(_TANH_CHECK, "missing * out.grad", _tanh(_SLOPE, "(1 - t**2)"), ("`* out.grad`",)),
    Mistake(
        _TANH_CHECK,
        "brackets missing: 1 - t**2 * out.grad",
        _tanh(_SLOPE, "1 - t**2 * out.grad"),
        ("without brackets",),
    ),
    Mistake(
        _TANH_CHECK,
        "= instead of +=",
        _tanh("self.grad +=", "self.grad ="),
        ("`=` instead of", "`+=`"),
    ),
    Mistake(
        _TANH_CHECK,
        "tanh never applied",
        _tanh("math.tanh(self.data)", "self.data"),
        ("that is x itself",),
    ),
    Mistake(
        _TANH_CHECK,
        "math.tanh of the Value",
        _tanh("math.tanh(self.data)", "math.tanh(self)"),
        ("`self.data`, not the Value `self`",),
    ),
    Mistake(
        _TANH_CHECK,
        "the article's fraction, overflowing at 1000",
        _tanh(
            "math.tanh(self.data)", "(math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)"
        ),
        ("overflowed",),
    ),
    Mistake(
        _TANH_CHECK,
        "e^x where e^2x belongs",
        _tanh("math.tanh(self.data)", "(math.exp(self.data) - 1) / (math.exp(self.data) + 1)"),
        ("that is tanh(x/2)",),
    ),
    Mistake(
        _TANH_CHECK,
        "the fraction without brackets",
        _tanh(
            "math.tanh(self.data)", "(math.exp(2 * self.data) - 1) / math.exp(2 * self.data) + 1"
        ),
        ("the fraction lost its brackets",),
    ),
    Mistake(_TANH_CHECK, "missing return", _tanh("\n    return out", ""), ("no `return`",)),
    Mistake(
        _TANH_CHECK,
        "closure never attached",
        _tanh("    out._backward = _backward\n", ""),
        ("passed nothing back",),
    ),
    Mistake(
        _TANH_CHECK,
        "no (self,) input",
        _tanh('out = Value(t, (self,), "tanh")', "out = Value(t)"),
        ("has no input", "`(self,)`"),
    ),
    # predict tanh'(0) = 1 and tanh'(3) ≈ 0.0099: the numbers people give instead
    Mistake(
        _PREDICT, "tanh(0) for the slope at 0", _slopes(0, 0.0099), ("tanh(0) itself, the value",)
    ),
    Mistake(
        _PREDICT, "tanh(3) for the slope at 3", _slopes(1, 0.995), ("tanh(3) itself, the value",)
    ),
    Mistake(
        _PREDICT,
        "tanh squared, without 1 minus",
        _slopes(1, 0.99),
        ("that is tanh²(3); the slope is 1 minus that",),
    ),
    Mistake(_PREDICT, "the square missing", _slopes(1.0, "1 - 0.995"), ("the square is missing",)),
    Mistake(_PREDICT, "exactly flat", _slopes(1, 0), ("nearly flat at 3, but not quite",)),
    Mistake(_PREDICT, "the slope at 0 everywhere", _slopes(1, 1), ("that is the slope at 0",)),
    Mistake(
        _PREDICT,
        "x squared, not tanh squared",
        _slopes(1, "1 - 3**2"),
        ("1 − 3², which squares x",),
    ),
    Mistake(
        _PREDICT, "the sigmoid's slope at 0", _slopes(0.25, 0.0099), ("the sigmoid's slope at 0",)
    ),
    Mistake(
        _PREDICT, "a number nobody explains", _slopes(1, 0.1), ("square it, then take that from 1",)
    ),
    Mistake(
        _PREDICT, "only the first number", _slopes(1.0, None), ("no prediction yet for tanh'(3)",)
    ),
    # sigmoid, one node with local derivative s(1 − s)
    Mistake(
        _CHECK,
        "= instead of +=",
        _sigmoid("self.grad += s", "self.grad = s"),
        ("`=` instead of", "`+=`"),
    ),
    Mistake(
        _CHECK,
        "missing * out.grad",
        _sigmoid("s * (1 - s) * out.grad", "s * (1 - s)"),
        ("`* out.grad`",),
    ),
    Mistake(
        _CHECK,
        "= and no * out.grad",
        _sigmoid("self.grad += s * (1 - s) * out.grad", "self.grad = s * (1 - s)"),
        ("two bugs at once",),
    ),
    Mistake(
        _CHECK,
        "s instead of s(1 - s)",
        _sigmoid("s * (1 - s) * out.grad", "s * out.grad"),
        ("σ(x) alone",),
    ),
    Mistake(
        _CHECK,
        "1 - s instead of s(1 - s)",
        _sigmoid("s * (1 - s) * out.grad", "(1 - s) * out.grad"),
        ("1 − σ(x) alone",),
    ),
    Mistake(
        _CHECK,
        "tanh's rule 1 - s**2",
        _sigmoid("s * (1 - s) * out.grad", "(1 - s**2) * out.grad"),
        ("tanh's rule",),
    ),
    Mistake(
        _CHECK,
        "x(1 - x) instead of s(1 - s)",
        _sigmoid("s * (1 - s) * out.grad", "self.data * (1 - self.data) * out.grad"),
        ("x(1 − x), with the input x where σ(x) belongs",),
    ),
    Mistake(_CHECK, "missing return", _sigmoid("\n    return out", ""), ("no `return`",)),
    Mistake(
        _CHECK,
        "closure never attached",
        _sigmoid("    out._backward = _backward\n", ""),
        ("passed nothing back",),
    ),
    Mistake(
        _CHECK,
        "no (self,) input",
        _sigmoid('out = Value(s, (self,), "sigmoid")', "out = Value(s)"),
        ("has no input", "`(self,)`"),
    ),
    Mistake(
        _CHECK,
        "the op where the inputs go",
        _sigmoid('out = Value(s, (self,), "sigmoid")', 'out = Value(s, "sigmoid")'),
        ("not a Value: the second argument of `Value(...)` is the tuple of inputs",),
    ),
    Mistake(
        _CHECK,
        "built from other operations",
        """@add_to_class(Value)
def sigmoid(self):
    return 1 / (1 + (-self).exp())""",
        ("built from other operations",),
    ),
    Mistake(
        _CHECK,
        "minus sign of the exponent lost",
        _sigmoid("math.exp(-self.data)", "math.exp(self.data)"),
        ("σ(−x)",),
    ),
    Mistake(
        _CHECK,
        "1 / 1 + e^-x",
        _sigmoid("1 / (1 + math.exp(-self.data))", "1 / 1 + math.exp(-self.data)"),
        ("divides before it adds",),
    ),
]
