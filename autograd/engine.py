"""A scalar reverse-mode automatic-differentiation engine.

Every arithmetic operation on a `Value` builds a new `Value` that remembers its inputs
(`_prev`), the operation that made it (`_op`) and a small closure, `_backward`, that knows
the operation's local derivative. `backward()` visits the graph in reverse topological
order and runs those closures, so each one passes `out.grad` back to its inputs by the
chain rule: upstream gradient times local derivative, *added* (`+=`) to what the input
already holds, because a value used twice receives gradient along both paths.
"""

import math

__all__ = ["Value"]


def _leaf_backward():
    """A leaf has no inputs, so it passes no gradient back."""


def _as_float(data):
    """Return `data` as a float, or raise TypeError for anything that is not a real number."""
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError(
            f"Value needs an int or a float, but was given {data!r} of type {type(data).__name__}"
        )
    return float(data)


class Value:
    """A number that remembers how it was computed, so that gradients can flow back through it.

    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> c = a * b + a
    >>> c.backward()
    >>> a.grad, b.grad        # dc/da = b + 1, dc/db = a
    (-2.0, 2.0)
    """

    __slots__ = ("data", "grad", "_backward", "_prev", "_op", "label")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if type(data) is float else _as_float(data)
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = _children if type(_children) is tuple else tuple(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    # ----------------------------------------------------------------- primitives
    # Each one reads the same way: compute `out`; define `_backward`, the closure that passes
    # `out.grad` back to the inputs, each scaled by its local derivative and *added*; attach
    # it to `out`; return `out`. The closure finds its inputs in `out._prev` instead of
    # capturing `self` and `other` too: one captured variable instead of three keeps every
    # node smaller, which matters because the garbage collector has to walk them all.

    def __add__(self, other):
        """$f(a, b) = a + b$, so $\\partial f/\\partial a = 1$ and $\\partial f/\\partial b = 1$."""
        other = other if isinstance(other, Value) else _operand(other, "+", self)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            a, b = out._prev
            a.grad += out.grad
            b.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        """$f(a, b) = a b$, so $\\partial f/\\partial a = b$ and $\\partial f/\\partial b = a$."""
        other = other if isinstance(other, Value) else _operand(other, "*", self)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            a, b = out._prev
            a.grad += b.data * out.grad
            b.grad += a.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        """$f(a) = a^n$ with a number $n$: $f'(a) = n a^{n-1}$.

        With a `Value` exponent $b$: $\\partial f/\\partial a = b a^{b-1}$ and
        $\\partial f/\\partial b = a^b \\ln a$ (NaN where $a < 0$, as in PyTorch).
        """
        if isinstance(other, Value):
            return self._pow_value(other)
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError(
                f"exponent of Value(data={self.data!r}) ** ... must be an int, a float or a "
                f"Value, but was given {other!r} of type {type(other).__name__}"
            )
        n = other
        out = Value(_power(self.data, n), (self,), f"**{_short(n)}")

        def _backward():
            a = out._prev[0]
            a.grad += _power_slope(a.data, n) * out.grad

        out._backward = _backward
        return out

    def _pow_value(self, other):
        out = Value(_power(self.data, other.data), (self, other), "**")

        def _backward():
            a, b = out._prev
            a.grad += _power_slope(a.data, b.data) * out.grad
            if a.data > 0:
                b.grad += out.data * math.log(a.data) * out.grad
            elif a.data == 0 and b.data > 0:
                b.grad += 0.0
            else:  # a**b is defined only at whole numbers b here, so it has no slope in b
                b.grad += math.nan

        out._backward = _backward
        return out

    def tanh(self):
        """$f(x) = \\tanh x$, so $f'(x) = 1 - \\tanh^2 x$."""
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward():
            a = out._prev[0]
            a.grad += (1.0 - out.data**2) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        """$f(x) = e^x$, so $f'(x) = e^x$: the output is its own derivative."""
        try:
            e = math.exp(self.data)
        except OverflowError:
            raise OverflowError(
                f"exp({self.data!r}) is too large for a float (it overflows above x = 709.78)"
            ) from None
        out = Value(e, (self,), "exp")

        def _backward():
            a = out._prev[0]
            a.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        """$f(x) = \\ln x$ for $x > 0$, so $f'(x) = 1/x$."""
        x = self.data
        if x <= 0:
            raise ValueError(f"log({x!r}) is undefined: log needs a positive value")
        out = Value(math.log(x), (self,), "log")

        def _backward():
            a = out._prev[0]
            a.grad += out.grad / a.data

        out._backward = _backward
        return out

    def relu(self):
        """$f(x) = \\max(0, x)$, so $f'(x) = 1$ for $x > 0$ and $0$ at and below $0$."""
        out = Value(0.0 if self.data < 0 else self.data, (self,), "relu")

        def _backward():
            a = out._prev[0]
            a.grad += (a.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        """$\\sigma(x) = 1/(1 + e^{-x})$, so $\\sigma'(x) = \\sigma(x)(1 - \\sigma(x))$."""
        x = self.data
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:  # the same function, written so that exp never overflows
            e = math.exp(x)
            s = e / (1.0 + e)
        out = Value(s, (self,), "sigmoid")

        def _backward():
            a = out._prev[0]
            a.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    # ----------------------------------------------------------------- the backward pass

    def backward(self):
        """Fill in `grad` of every value this one depends on: d(self)/d(value).

        Orders the graph so that a node passes gradient back only after every node that
        uses it has done so (a topological sort by depth-first search, with an explicit
        stack, so a graph a million nodes deep works), seeds `self.grad = 1.0`, and runs
        each node's `_backward` in reverse order.

        Gradients accumulate: leaves (values with no inputs, such as weights) add to the
        gradient they already hold, so set their `grad` to 0 between training steps.
        Intermediate values are reset at the start of each call, so calling `backward()`
        twice adds exactly one more copy of every leaf's gradient.
        """
        topo = []
        visited = {self}
        stack = [(self, iter(self._prev))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in visited:
                    visited.add(child)
                    stack.append((child, iter(child._prev)))
                    break
            else:  # every child is already placed, so the node itself can be
                stack.pop()
                topo.append(node)

        for node in topo:
            if node._prev:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()

    # ----------------------------------------------------------------- by composition
    # Everything below is built from the primitives above, so it needs no backward of its own.

    def __neg__(self):  # -a
        return self * -1

    def __sub__(self, other):  # a - b
        other = other if isinstance(other, Value) else _operand(other, "-", self)
        return self + (-other)

    def __truediv__(self, other):  # a / b
        other = other if isinstance(other, Value) else _operand(other, "/", self)
        if other.data == 0:
            raise ZeroDivisionError(f"division by zero: {self.data!r} / {other.data!r}")
        return self * other**-1

    def __radd__(self, other):  # n + a
        return self + other

    def __rmul__(self, other):  # n * a
        return self * other

    def __rsub__(self, other):  # n - a
        return _operand(other, "-", self) - self

    def __rtruediv__(self, other):  # n / a
        return _operand(other, "/", self) / self

    def __rpow__(self, other):  # n ** a
        return _operand(other, "**", self) ** self


def _operand(other, op, value):
    """Wrap a plain number met by an operator into a Value; refuse anything else."""
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(
            f"unsupported operand for {op}: Value(data={value.data!r}) and {other!r} "
            f"of type {type(other).__name__} (use a Value, an int or a float)"
        )
    return Value(other)


def _short(n):
    """Print an exponent compactly: 2 rather than 2.0, for the op label in drawings."""
    return int(n) if float(n).is_integer() else n


def _power(a, n):
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


def _power_slope(a, n):
    """The local derivative n * a**(n - 1); infinite at a = 0 when 0 < n < 1 (as for sqrt)."""
    if n == 0:
        return 0.0
    if a == 0 and n < 1:
        return math.inf
    try:
        return n * a ** (n - 1)
    except OverflowError:  # a**n fits in a float but a**(n-1) does not: the slope is infinite
        return n * (a**n / a)
