"""A scalar reverse-mode automatic-differentiation engine.

Every arithmetic operation on a `Value` builds a new `Value` that remembers its inputs
(`_prev`), the operation that made it (`_op`) and a small closure, `_backward`, that knows
the operation's local derivative. `backward()` visits the graph in reverse topological
order and runs those closures, so each one passes `out.grad` back to its inputs by the
chain rule: upstream gradient times local derivative, *added* (`+=`) to what the input
already holds, because a value used twice receives gradient along both paths.

Numbers. A `Value` holds a float; any real number (int, float, or another `numbers.Real` such
as NumPy's float32 and int64, but not bool) is accepted and converted. Every operation on
finite numbers gives a finite number or raises: `ZeroDivisionError` for a division by zero
and for zero to a negative power, `ValueError` for the log of a number at or below zero and for
a negative base with a fractional exponent, and `OverflowError` for a result too large for a
float (`Value(1e200) * 1e200` raises, as `Value(1e200) ** 2` does), each with a message that
names the operation and its inputs. Gradients are plain floating-point arithmetic, as in
PyTorch: they may be infinite (the slope of `x ** 0.5` at 0 is), and a local derivative of
exactly 0 (relu below 0, `x ** 0`) passes back 0 even when the gradient above it is infinite.

Copying. `copy.deepcopy` of a value copies its whole graph, and every copied closure refers to
the copied nodes, so `backward()` on the copy fills in the copy's gradients and leaves the
original alone. Pickling works for leaves (a model's parameters) and refuses, with a
`TypeError`, a value computed by an operation: its `_backward` is a closure, which pickle
cannot store (`autograd.fast` values pickle whole graphs).
"""

import copy
import math
import numbers
import types

__all__ = ["Value"]


def _leaf_backward():
    """A leaf has no inputs, so it passes no gradient back."""


def _as_float(data):
    """Return `data` as a float, or raise TypeError for anything that is not a real number."""
    if type(data) is not int and (isinstance(data, bool) or not isinstance(data, numbers.Real)):
        raise TypeError(
            f"Value needs a real number such as an int or a float, but was given {data!r} "
            f"of type {type(data).__name__}"
        )
    try:
        return float(data)
    except OverflowError:
        raise OverflowError(f"{data!r} is too large for a float") from None


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
    # `_checked` turns a result too large for a float into an OverflowError that says so.
    # (`x - x` is 0 for every finite x, and NaN, which counts as true, for inf and NaN.)

    def __add__(self, other):
        """$f(a, b) = a + b$, so $\\partial f/\\partial a = 1$ and $\\partial f/\\partial b = 1$."""
        other = other if isinstance(other, Value) else _operand(other, "+", self)
        out = Value(self.data + other.data, (self, other), "+")
        if out.data - out.data:  # not finite: an error, unless an input already was not
            _checked(out.data, "+", self, other)

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
        if out.data - out.data:  # not finite: an error, unless an input already was not
            _checked(out.data, "*", self, other)

        def _backward():
            a, b = out._prev
            a.grad += b.data * out.grad
            b.grad += a.data * out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        """$f(a, b) = a / b$, so $\\partial f/\\partial a = 1/b$ and $\\partial f/\\partial b = -a/b^2$.

        Chapter 3 builds division from `*` and `**`, as $a \\cdot b^{-1}$, and that is a fine
        way to learn it; but it rounds twice, so `49 / 49` would give 0.9999999999999999. Here
        division is a primitive: the value is Python's correctly rounded `a / b`, and the slope
        in b is computed as $-(a/b)/b$, which stays finite wherever the answer is, where
        $b^2$ on its own would overflow or underflow first.
        """
        other = other if isinstance(other, Value) else _operand(other, "/", self)
        out = Value(_quotient(self.data, other.data), (self, other), "/")

        def _backward():
            a, b = out._prev
            a.grad += out.grad / b.data
            b.grad += -out.grad * (out.data / b.data)

        out._backward = _backward
        return out

    def __pow__(self, other):
        """$f(a) = a^n$ with a number $n$: $f'(a) = n a^{n-1}$.

        With a `Value` exponent $b$: $\\partial f/\\partial a = b a^{b-1}$ and
        $\\partial f/\\partial b = a^b \\ln a$ (NaN where $a < 0$, as in PyTorch).
        """
        if isinstance(other, Value):
            return self._pow_value(other)
        n = _exponent(other, self)
        out = Value(_power(self.data, n), (self,), f"**{_short(n)}")

        def _backward():
            a = out._prev[0]
            if n != 0:  # a**0 = 1 has slope 0, which passes back nothing, even an infinite grad
                a.grad += _power_slope(a.data, n) * out.grad

        out._backward = _backward
        return out

    def _pow_value(self, other):
        out = Value(_power(self.data, other.data), (self, other), "**")

        def _backward():
            a, b = out._prev
            if b.data != 0:  # as above: slope 0 in a, which passes back nothing
                a.grad += _power_slope(a.data, b.data) * out.grad
            b.grad += _log_slope(a.data, b.data, out.data) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        """$f(x) = \\tanh x$, so $f'(x) = 1 - \\tanh^2 x$.

        The slope is computed as $(1 - t)(1 + t)$ with $t = \\tanh x$: the same number, but
        where $t$ is close to $\\pm 1$, rounding $t^2$ first would lose most of its digits.
        """
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward():
            a, t = out._prev[0], out.data
            a.grad += (1.0 - t) * (1.0 + t) * out.grad

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
            if out.data > 0:  # slope 1; at and below 0 the slope is 0, which passes back
                a.grad += out.grad  # nothing, even when out.grad is infinite (0 * inf is nan)

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

    # ----------------------------------------------------------------- copying and pickling
    # Not part of the course: they keep a graph's closures pointing at the right nodes.

    def __deepcopy__(self, memo):
        """`copy.deepcopy`: a copy of the whole graph behind this value, independent of it.

        Each copied node gets a copy of its `_backward` closure that refers to the copied
        nodes, so `backward()` on the copy fills in the copy's gradients. Nodes are copied
        inputs first, without recursion, so a graph of any depth can be copied.
        """
        for node in _inputs_first(self):
            if id(node) in memo:
                continue
            twin = object.__new__(type(node))
            memo[id(node)] = twin
            twin.data, twin.grad, twin._op, twin.label = node.data, node.grad, node._op, node.label
            twin._prev = tuple(memo[id(child)] for child in node._prev)
            twin._backward = _rebound(node._backward, memo)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        """Pickle (and `copy.copy`) a leaf; refuse a value computed by an operation."""
        if self._backward is not _leaf_backward:
            raise TypeError(
                f"cannot pickle or shallow-copy {_show(self)}, computed by {self._op!r}: its "
                "_backward is a closure, which pickle cannot store and a shallow copy would "
                "share with the original. Use copy.deepcopy to copy its graph, pickle the "
                "numbers (v.data), or build the graph with autograd.fast, whose values pickle"
            )
        return _unpickle, (type(self), self.data, self.grad, self._prev, self._op, self.label)


def _operand(other, op, value):
    """Wrap a plain number met by an operator into a Value; refuse anything else."""
    if type(other) is float or type(other) is int:
        return Value(other)
    if isinstance(other, bool) or not isinstance(other, numbers.Real):
        raise _unsupported(op, value, other)
    return Value(other)


def _exponent(n, value):
    """A number exponent of `value ** n` as an int or a float; refuse anything else."""
    if type(n) is int or type(n) is float:
        return n
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        if hasattr(n, "_prev"):  # a Value of another engine
            raise _unsupported("**", value, n)
        raise TypeError(
            f"exponent of Value(data={value.data!r}) ** ... must be a real number such as an int or a "
            f"float, or a Value, but was given {n!r} of type {type(n).__name__}"
        )
    return float(n)


def _unsupported(op, value, other):
    """The TypeError for `value op other` when `other` is neither a number nor a Value of its class."""
    mine, theirs = type(value), type(other)
    if all(hasattr(other, name) for name in ("data", "grad", "_prev")):  # a Value of another class
        mine_name = f"{mine.__module__}.{mine.__qualname__}"
        theirs_name = f"{theirs.__module__}.{theirs.__qualname__}"
        which = (f"two different classes that are both called {mine_name}" if mine_name == theirs_name
                 else f"two different engines: {mine_name} and {theirs_name}")
        return TypeError(
            f"cannot combine {_show(value)} and {_show(other)} with {op}: they are values of "
            f"{which}. A graph is built by one engine: make every value with the same class "
            f"(for example {mine.__qualname__}(x.data))"
        )
    return TypeError(
        f"unsupported operand for {op}: Value(data={value.data!r}) and {other!r} of type "
        f"{theirs.__name__} (use a Value or a real number such as an int or a float)"
    )


def _show(value):
    """`repr(value)`, or a plain description if that repr fails."""
    try:
        return repr(value)
    except Exception:
        return f"Value(data={getattr(value, 'data', '?')!r})"


def _checked(result, op, a, b):
    """`result` of `a op b` (two Values or numbers): an OverflowError if finite inputs gave
    an infinite result. Inputs that are already infinite or NaN give what floats give."""
    if result - result == 0:  # finite: the everyday case, decided in one subtraction
        return result
    x = a.data if hasattr(a, "data") else a
    y = b.data if hasattr(b, "data") else b
    if math.isfinite(x) and math.isfinite(y):
        raise OverflowError(f"{x!r} {op} {y!r} is too large for a float")
    return result


def _quotient(a, b):
    """`a / b` for floats, with errors that name the division."""
    if b == 0:
        raise ZeroDivisionError(f"division by zero: {a!r} / {b!r}")
    return _checked(a / b, "/", a, b)


def _inputs_first(root):
    """Every node of `root`'s graph once, each after its inputs (no recursion)."""
    order, seen, stack = [], {id(root)}, [(root, iter(root._prev))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _rebound(function, memo):
    """`function` again, with every variable it captured replaced by its deep copy in `memo`
    (so a closure that captured `out` now captures `out`'s copy). Plain functions are kept."""
    if not function.__closure__:
        return function
    cells = []
    for cell in function.__closure__:
        try:
            cells.append(types.CellType(copy.deepcopy(cell.cell_contents, memo)))
        except ValueError:  # a variable not yet assigned when the closure was made
            cells.append(types.CellType())
    twin = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, tuple(cells))
    twin.__kwdefaults__ = function.__kwdefaults__
    twin.__qualname__ = function.__qualname__
    return twin


def _unpickle(cls, data, grad, children, op, label):
    value = cls(data, children, op, label)
    value.grad = grad
    return value


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


def _log_slope(a, b, out):
    """d(a**b)/db = a**b ln a; 0 at a = 0 with b >= 0 (as in PyTorch); NaN for a < 0, where
    a**b is defined only at whole numbers b and so has no slope in b."""
    if a > 0:
        return out * math.log(a)
    if a == 0 and b >= 0:
        return 0.0
    return math.nan


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
