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

import contextvars
import copy
import math
import types

from . import _floats
from .graph import refuse_a_cycle, topological_order

__all__ = ["Value"]


def _leaf_backward():
    """A leaf has no inputs, so it passes no gradient back."""


# Not part of the course: while `autograd.compile` traces a function, the list in which it
# keeps every Value made, in order. A context variable, so each thread (and each trace) sees
# its own; None at all other times, when `__init__` pays one lookup for it.
_tracing = contextvars.ContextVar("autograd_tracing", default=None)


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
        self.data = data if type(data) is float else _floats.as_float(data)
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = _children if type(_children) is tuple else tuple(_children)
        self._op = _op
        self.label = label
        made = _tracing.get()
        if made is not None:  # autograd.compile is tracing: it keeps this Value
            made.append(self)

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    # ----------------------------------------------------------------- primitives
    # Each one reads the same way: compute `out`; define `_backward`, the closure that passes
    # `out.grad` back to the inputs, each scaled by its local derivative and *added*; attach
    # it to `out`; return `out`. The closure finds its inputs in `out._prev` instead of
    # capturing `self` and `other` too: one captured variable instead of three keeps every
    # node smaller, which matters because the garbage collector has to walk them all.
    # The rules for numbers (errors, overflow, powers at 0) live in `_floats`, shared with the
    # fast engine: `_floats.checked` turns a result too large for a float into an
    # OverflowError that says so (`x - x` is 0 for every finite x, and NaN, true, otherwise).

    def __add__(self, other):
        """$f(a, b) = a + b$, so $\\partial f/\\partial a = 1$ and $\\partial f/\\partial b = 1$."""
        other = other if isinstance(other, Value) else _operand(other, "+", self)
        out = Value(self.data + other.data, (self, other), "+")
        if out.data - out.data:  # not finite: an error, unless an input already was not
            _floats.checked(out.data, "+", self, other)

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
            _floats.checked(out.data, "*", self, other)

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
        out = Value(_floats.quotient(self.data, other.data), (self, other), "/")

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
        n = _floats.exponent_operand(other, self)
        out = Value(_floats.power(self.data, n), (self,), _floats.PowerLabel(n))

        def _backward():
            a = out._prev[0]
            if n != 0:  # a**0 = 1 has slope 0, which passes back nothing, even an infinite grad
                a.grad += _floats.power_slope(a.data, n) * out.grad

        out._backward = _backward
        return out

    def _pow_value(self, other):
        out = Value(_floats.power(self.data, other.data), (self, other), "**")

        def _backward():
            a, b = out._prev
            if b.data != 0:  # as above: slope 0 in a, which passes back nothing
                a.grad += _floats.power_slope(a.data, b.data) * out.grad
            b.grad += _floats.log_slope(a.data, b.data, out.data) * out.grad

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
        out = Value(_floats.exp(self.data), (self,), "exp")

        def _backward():
            a = out._prev[0]
            a.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        """$f(x) = \\ln x$ for $x > 0$, so $f'(x) = 1/x$."""
        out = Value(_floats.log(self.data), (self,), "log")

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
        out = Value(_floats.sigmoid(self.data), (self,), "sigmoid")

        def _backward():
            a = out._prev[0]
            a.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    # ----------------------------------------------------------------- package operations
    # Not built in any chapter (`stages.PACKAGE_ONLY`), but written the same way.

    def sin(self):
        """$f(x) = \\sin x$, so $f'(x) = \\cos x$."""
        out = Value(_floats.sin(self.data), (self,), "sin")

        def _backward():
            a = out._prev[0]
            a.grad += _floats.cos(a.data) * out.grad

        out._backward = _backward
        return out

    def cos(self):
        """$f(x) = \\cos x$, so $f'(x) = -\\sin x$."""
        out = Value(_floats.cos(self.data), (self,), "cos")

        def _backward():
            a = out._prev[0]
            a.grad += -_floats.sin(a.data) * out.grad

        out._backward = _backward
        return out

    # ----------------------------------------------------------------- the backward pass

    def backward(self):
        """Fill in `grad` of every value this one depends on: d(self)/d(value).

        Orders the graph so that a node passes gradient back only after every node that
        uses it has done so (a topological sort by depth-first search, with an explicit
        stack, so a graph a million nodes deep works), seeds `self.grad = 1.0`, and runs
        each node's `_backward` in reverse order.

        Two things differ from chapter 5's last `backward()`, and neither changes a gradient.
        The intermediate nodes' `grad` is reset as each is placed, not in a loop of its own
        after the sort. And a value is marked when it is placed, not when first reached: in a
        graph made by operations that is the same, because nothing below a value on the stack
        leads back to it. In a graph whose `_prev` was edited into a cycle (a value that
        depends on itself) the stack would grow for ever instead, so each time it grows past
        8 times its depth at the last look (and first past 4,096), `backward()` looks for a
        value on it twice and raises ValueError naming it. The looks read at most 8/7 of
        the deepest stack in all, and nothing on a graph less than 4,096 deep.

        Gradients accumulate: leaves (values with no inputs, such as weights) add to the
        gradient they already hold, so set their `grad` to 0 between training steps.
        Intermediate values are reset at the start of each call, so calling `backward()`
        twice adds exactly one more copy of every leaf's gradient.
        """
        topo = []
        placed = set()
        stack = [(self, iter(self._prev))]
        deepest = 4096
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in placed:
                    stack.append((child, iter(child._prev)))
                    if len(stack) > deepest:  # a cycle would push the same values for ever
                        deepest = 8 * len(stack)
                        refuse_a_cycle(stack)
                    break
            else:  # every child is already placed, so the node itself can be
                stack.pop()
                placed.add(node)
                topo.append(node)
                if node._prev:  # an intermediate node: its grad is scratch space for this pass
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
        for node in topological_order(self):
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
                f"cannot pickle or shallow-copy {_floats.show(self)}, computed by {self._op!r}: its "
                "_backward is a closure, which pickle cannot store and a shallow copy would "
                "share with the original. Use copy.deepcopy to copy its graph, pickle the "
                "numbers (v.data), or build the graph with autograd.fast, whose values pickle"
            )
        return _unpickle, (type(self), self.data, self.grad, self._prev, self._op, self.label)


def _operand(other, op, value):
    """Wrap a plain number met by an operator into a Value; refuse anything else."""
    return Value(other if type(other) is float else _floats.operand(other, op, value))


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
    twin = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        tuple(cells),
    )
    twin.__kwdefaults__ = function.__kwdefaults__
    twin.__qualname__ = function.__qualname__
    return twin


def _unpickle(cls, data, grad, children, op, label):
    value = cls(data, children, op, label)
    value.grad = grad
    return value
