"""Chapter 03's exercises: `__mul__`'s closure, predict the diamond, `__sub__`, `__pow__`."""

from . import Mistake

_POW_HEAD = """@add_to_class(Value)
def __pow__(self, other):  # self ** other
    if isinstance(other, Value):  # a Value exponent: see _pow_value below
        return self._pow_value(other)
    n = other
"""


def _pow(body):
    return _POW_HEAD + body


_MUL = """@add_to_class(Value)
def __mul__(self, other):
    other = other if isinstance(other, Value) else Value(other)  # a * 2: the 2 becomes a leaf
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad

    out._backward = _backward
    return out"""


def _mul(old, new):
    """The solution's `__mul__` with one piece of it written wrong."""
    assert old in _MUL, old
    return _MUL.replace(old, new)


_LINES = """        self.grad += other.data * out.grad
        other.grad += self.data * out.grad
"""
_CHECK_MUL = "ch03.check_mul"


MISTAKES = [
    # the closure of a * b: each factor's local derivative is the other factor
    Mistake(
        _CHECK_MUL,
        "self.data and other.data swapped",
        _mul(
            _LINES,
            """\
        self.grad += self.data * out.grad
        other.grad += other.data * out.grad
""",
        ),
        ("`self.data` and `other.data` are swapped",),
    ),
    Mistake(
        _CHECK_MUL,
        "= instead of +=",
        _mul(
            _LINES,
            """\
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad
""",
        ),
        ("`=` instead of", "`+=`"),
    ),
    Mistake(
        _CHECK_MUL,
        "missing * out.grad",
        _mul(
            _LINES,
            """\
        self.grad += other.data
        other.grad += self.data
""",
        ),
        ("`* out.grad`",),
    ),
    Mistake(
        _CHECK_MUL,
        "= and no * out.grad",
        _mul(
            _LINES,
            """\
        self.grad = other.data
        other.grad = self.data
""",
        ),
        ("two bugs at once",),
    ),
    Mistake(
        _CHECK_MUL,
        "the gradients .grad, not the values .data",
        _mul(
            _LINES,
            """\
        self.grad += other.grad * out.grad
        other.grad += self.grad * out.grad
""",
        ),
        ("reads a gradient (`.grad`) where it needs a value (`.data`)",),
    ),
    Mistake(
        _CHECK_MUL,
        "only the line for self",
        _mul(
            _LINES,
            """\
        self.grad += other.data * out.grad
""",
        ),
        ("passes gradient to a only", "Add the second line"),
    ),
    Mistake(
        _CHECK_MUL,
        "only the line for other",
        _mul(
            _LINES,
            """\
        other.grad += self.data * out.grad
""",
        ),
        ("passes gradient to b only",),
    ),
    Mistake(
        _CHECK_MUL,
        "both lines for self",
        _mul(
            _LINES,
            """\
        self.grad += other.data * out.grad
        self.grad += self.data * out.grad
""",
        ),
        ("passes gradient to a only",),
    ),
    Mistake(
        _CHECK_MUL,
        "pass instead of the two lines",
        _mul(
            _LINES,
            """\
        pass
""",
        ),
        ("adds nothing to `self.grad` or `other.grad`",),
    ),
    Mistake(
        _CHECK_MUL,
        "the local derivative 1, as in +",
        _mul(
            _LINES,
            """\
        self.grad += 1.0 * out.grad
        other.grad += 1.0 * out.grad
""",
        ),
        ("the local derivative of a sum",),
    ),
    Mistake(
        _CHECK_MUL,
        "out.data for out.grad",
        _mul(
            _LINES,
            """\
        self.grad += other.data * out.data
        other.grad += self.data * out.grad
""",
        ),
        ("a's line multiplies by `out.data`", "where it needs `out.grad`"),
    ),
    Mistake(
        _CHECK_MUL,
        "a Value, not its number",
        _mul(
            _LINES,
            """\
        self.grad += other * out.grad
        other.grad += self.data * out.grad
""",
        ),
        ("multiplies by a Value", "`self.grad += other.data * out.grad`"),
    ),
    Mistake(_CHECK_MUL, "missing return", _mul("\n    return out", ""), ("no `return`",)),
    Mistake(
        _CHECK_MUL,
        "a colon missing (the cell raises SyntaxError)",
        _mul("    def _backward():", "    def _backward()"),
        ("raised SyntaxError", "Python could not read the cell"),
        raises=True,
    ),
    Mistake(
        _CHECK_MUL,
        "closure never attached",
        _mul("    out._backward = _backward\n", ""),
        ("passed nothing back", "never attached"),
    ),
    Mistake(
        _CHECK_MUL,
        "a number on the right not wrapped",
        _mul(
            "    other = other if isinstance(other, Value) else Value(other)  # a * 2: the 2 "
            "becomes a leaf\n",
            "",
        ),
        ("a plain number has no `.data`",),
    ),
    Mistake(
        "ch03.check_diamond_prediction",
        "only the path through b",
        "my_prediction = 6",
        ("path through b alone",),
    ),
    Mistake(
        "ch03.check_diamond_prediction",
        "only the path through c",
        "my_prediction = 8.0",
        ("path through c alone",),
    ),
    Mistake(
        "ch03.check_diamond_prediction",
        "paths multiplied",
        "my_prediction = 48",
        ("multiplies the two paths",),
    ),
    Mistake(
        "ch03.check_diamond_prediction",
        "a number nobody explains",
        "my_prediction = 12",
        ("each path's product",),
    ),
    Mistake(
        "ch03.check_sub",
        "missing return",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    self + (-other)""",
        ("no `return`",),
    ),
    Mistake(
        "ch03.check_sub",
        "calls itself",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self - other""",
        ("calls itself",),
    ),
    Mistake(
        "ch03.check_sub",
        "forgot to negate",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self + other""",
        ("b was added, not subtracted",),
    ),
    Mistake(
        "ch03.check_sub",
        "operands mixed up (b - a)",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return other + (-self)""",
        ("the operands are the wrong way round",),
    ),
    Mistake(
        "ch03.check_sub",
        "plain floats, not a Value",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self.data - other.data""",
        ("not a Value", "`+` and unary `-`"),
    ),
    Mistake(
        "ch03.check_sub",
        "a new Value from the numbers inside",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return Value(self.data - other.data)""",
        ("made from the numbers inside a and b", "`+` and unary `-`"),
    ),
    Mistake(
        "ch03.check_sub",
        "minus the number inside b",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self + (-other.data)""",
        ("does not remember b", "`-other.data`"),
    ),
    Mistake(
        "ch03.check_sub",
        "a node of its own, no closure",
        """@add_to_class(Value)
def __sub__(self, other):  # self - other
    return Value(self.data - other.data, (self, other), "-")""",
        ("no closure was ever attached",),
    ),
    Mistake(
        "ch03.check_pow",
        "= instead of +=",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad = n * self.data ** (n - 1) * out.grad

    out._backward = _backward
    return out"""),
        ("`=` instead of", "`+=`"),
    ),
    Mistake(
        "ch03.check_pow",
        "missing * out.grad",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1)

    out._backward = _backward
    return out"""),
        ("`* out.grad`",),
    ),
    Mistake(
        "ch03.check_pow",
        "exponent not lowered",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data**n * out.grad

    out._backward = _backward
    return out"""),
        ("local derivative is wrong", "n·aⁿ"),
    ),
    Mistake(
        "ch03.check_pow",
        "missing factor n",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += self.data ** (n - 1) * out.grad

    out._backward = _backward
    return out"""),
        ("local derivative is wrong", "factor n is missing"),
    ),
    Mistake(
        "ch03.check_pow",
        "out.data for self.data",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * out.data ** (n - 1) * out.grad

    out._backward = _backward
    return out"""),
        ("raises `out.data`", "where it needs `self.data`"),
    ),
    Mistake(
        "ch03.check_pow",
        "missing return",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad

    out._backward = _backward"""),
        ("no `return`",),
    ),
    Mistake(
        "ch03.check_pow",
        "closure never attached",
        _pow("""    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad

    return out"""),
        ("passed nothing back",),
    ),
]
