"""The rules for numbers that both engines share, and the messages that go with them.

A `Value` holds a float. These functions turn what a learner passes into floats, compute the
operations whose edge cases need care (powers, quotients, exp, log, the sigmoid), and raise a
built-in exception with a message that names the operation and its inputs where a float has
no answer. `autograd.engine` and `autograd.fast` both use them, so the two engines give the
same values, the same errors and the same words. (The rule itself is written out in
`autograd.engine`'s docstring.)
"""

import math
import numbers


def is_real(x):
    """Is `x` a real number (an int, a float, a Fraction, a NumPy float)? A bool is not one:
    Python counts True as the int 1, but a learning rate or a tolerance of True is a mistake."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def is_int(x):
    """Is `x` an int, and not a bool?"""
    return isinstance(x, int) and not isinstance(x, bool)


def as_float(data):
    """Return `data` as a float, or raise TypeError for anything that is not a real number."""
    if type(data) is not int and not is_real(data):
        raise TypeError(
            f"Value needs a real number such as an int or a float, but was given {data!r} "
            f"of type {type(data).__name__}"
        )
    try:
        return float(data)
    except OverflowError:
        raise OverflowError(f"{data!r} is too large for a float") from None


def operand(other, op, value):
    """A plain number met by an operator, as a float; anything else is refused."""
    if type(other) is float:
        return other
    if type(other) is not int and not is_real(other):
        raise unsupported(op, value, other)
    return as_float(other)


def exponent_operand(n, value):
    """A number exponent of `value ** n` as an int or a float; refuse anything else."""
    if type(n) is int or type(n) is float:
        return n
    if not is_real(n):
        if hasattr(n, "_prev"):  # a Value of another engine
            raise unsupported("**", value, n)
        raise TypeError(
            f"exponent of Value(data={value.data!r}) ** ... must be a real number such as an "
            f"int or a float, or a Value, but was given {n!r} of type {type(n).__name__}"
        )
    return float(n)


def unsupported(op, value, other):
    """The TypeError for `value op other` when `other` is neither a number nor a Value of
    `value`'s class."""
    mine, theirs = type(value), type(other)
    if all(hasattr(other, name) for name in ("data", "grad", "_prev")):  # a Value of another class
        mine_name = f"{mine.__module__}.{mine.__qualname__}"
        theirs_name = f"{theirs.__module__}.{theirs.__qualname__}"
        which = (
            f"two different classes that are both called {mine_name}"
            if mine_name == theirs_name
            else f"two different engines: {mine_name} and {theirs_name}"
        )
        return TypeError(
            f"cannot combine {show(value)} and {show(other)} with {op}: they are values of "
            f"{which}. A graph is built by one engine: make every value with the same class "
            f"(for example {mine.__qualname__}(x.data))"
        )
    return TypeError(
        f"unsupported operand for {op}: Value(data={value.data!r}) and {other!r} of type "
        f"{theirs.__name__} (use a Value or a real number such as an int or a float)"
    )


def show(value):
    """`repr(value)`, or a plain description if that repr fails."""
    try:
        return repr(value)
    except Exception:
        return f"Value(data={getattr(value, 'data', '?')!r})"


def checked(result, op, a, b):
    """`result` of `a op b` (two Values or numbers): an OverflowError if finite inputs gave
    an infinite result. Inputs that are already infinite or NaN give what floats give."""
    if result - result == 0:  # finite: the everyday case, decided in one subtraction
        return result
    x = a.data if hasattr(a, "data") else a
    y = b.data if hasattr(b, "data") else b
    if math.isfinite(x) and math.isfinite(y):
        raise OverflowError(f"{x!r} {op} {y!r} is too large for a float")
    return result


def quotient(a, b):
    """`a / b` for floats, with errors that name the division."""
    if b == 0:
        raise ZeroDivisionError(f"division by zero: {a!r} / {b!r}")
    return checked(a / b, "/", a, b)


def short(n):
    """Print an exponent compactly: 2 rather than 2.0, for the op label in drawings."""
    return int(n) if float(n).is_integer() else n


class PowerLabel(str):
    """The op label of `a ** n` with a number n: the string `'**2'` that drawings show (and a
    learner's class writes), which also holds the exponent itself as data, `exponent`: `2` or
    `2.0`, exactly as given, where the text shows both as `2`. Readers of a graph (grad, the
    compiler) take n from here, never from the text."""

    def __new__(cls, n):
        label = super().__new__(cls, f"**{short(n)}")
        label.exponent = n
        return label

    def __reduce__(self):  # pickle and copy by the exponent, not by the text
        return PowerLabel, (self.exponent,)


def power(a, n):
    """`a ** n` for floats, with an error that names the operation instead of a complex result."""
    if a < 0 and math.isfinite(n) and not float(n).is_integer():
        raise ValueError(
            f"{a!r} ** {n!r} is not a real number: a negative base needs a whole-number exponent"
        )
    try:
        return a**n
    except ZeroDivisionError:
        raise ZeroDivisionError(
            f"division by zero: {a!r} ** {n!r} (zero cannot be raised to a negative power)"
        ) from None
    except OverflowError:
        raise OverflowError(f"{a!r} ** {n!r} is too large for a float") from None


def power_slope(a, n):
    """The local derivative n * a**(n - 1); infinite at a = 0 when 0 < n < 1 (as for sqrt)."""
    if n == 0:
        return 0.0
    if a == 0 and n < 1:
        return math.inf
    try:
        return n * a ** (n - 1)
    except OverflowError:  # a**n fits in a float but a**(n-1) does not: the slope is infinite
        return n * (a**n / a)


def log_slope(a, b, out):
    """d(a**b)/db = a**b ln a; 0 at a = 0 with b >= 0 (as in PyTorch); NaN for a < 0, where
    a**b is defined only at whole numbers b and so has no slope in b."""
    if a > 0:
        return out * math.log(a)
    if a == 0 and b >= 0:
        return 0.0
    return math.nan


def exp(x):
    """e**x, with an OverflowError that says where exp stops fitting in a float."""
    try:
        return math.exp(x)
    except OverflowError:
        raise OverflowError(
            f"exp({x!r}) is too large for a float (it overflows above x = 709.78)"
        ) from None


def log(x):
    """ln x for x > 0, with a ValueError that names the value elsewhere."""
    if x <= 0:
        raise ValueError(f"log({x!r}) is undefined: log needs a positive value")
    return math.log(x)


def sigmoid(x):
    """1 / (1 + e**-x), written so that exp never overflows, whatever x is."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)  # for x < 0, the same function as e**x / (1 + e**x)
    return e / (1.0 + e)


def sin(x):
    """sin x; NaN for an infinite x, as IEEE arithmetic, C's `sin` and PyTorch give it (Python's
    `math.sin` raises there). A finite x gives a number in [-1, 1]."""
    return math.sin(x) if x - x == 0 else math.nan


def cos(x):
    """cos x; NaN for an infinite x (see `sin`)."""
    return math.cos(x) if x - x == 0 else math.nan
