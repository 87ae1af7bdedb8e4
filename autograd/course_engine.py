"""The engine as the chapters write it: the course's part of every learner's `my_engine.py`.

Chapters 2 to 5 grow the engine one method per cell; the learner writes the heart of it, and
the chapter gives (or its collapsed solution stands in for) the rest. This module is that
engine, written exactly as those cells write it, in one file: closures that capture `self`,
`other` and `out`, division by composition, the iterative sort and `backward()`. It is the text
`autograd.yours` copies into a learner's `my_engine.py` for each part the learner has not (yet)
written, marked there as the course's, so that the file always runs and says whose each part
is. Its length is the length of the whole engine as the course teaches it.

It is not the package's engine (`autograd/engine.py`, which adds fast closures, exact float
rules and copying); tests/test_yours.py runs chapters 2 to 5's checkpoints on it, and checks
that each part is the chapters' own code. Standard library only.
"""

import math


# chapter 5: the iterative sort (the exercise "an iterative topological sort")
def iterative_topological_order(root):
    """Every value root depends on, each after its inputs, root last (no recursion)."""
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                break  # go deeper first
        else:  # the loop ran out without a break: every input is placed, so place the node
            stack.pop()
            order.append(node)
    return order


# chapter 5, section 6: the order backward() runs in, each node in between starting at 0
def topological_order(root):
    """Your iterative sort, then a fresh start for the nodes in between (backward() calls it)."""
    order = iterative_topological_order(root)
    for node in order:
        if node._prev:  # an intermediate node: its grad is scratch space for this pass
            node.grad = 0.0
    return order


class Value:
    """A number that remembers how it was computed."""

    # chapter 2: the constructor, refusing what is not a number
    def __init__(self, data, _children=(), _op="", label=""):
        # True is an int to Python (bool is a subclass of int), so bool is tested first
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(
                f"Value needs an int or a float, but was given {data!r} "
                f"of type {type(data).__name__}"
            )
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    # chapter 2
    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    # chapter 3: the worked example
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)  # a + 2: the 2 becomes a leaf
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad  # local derivative of a + b with respect to a: 1
            other.grad += 1.0 * out.grad  # ... and with respect to b: 1

        out._backward = _backward
        return out

    # chapter 3
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad  # ∂(a·b)/∂a = b
            other.grad += self.data * out.grad  # ∂(a·b)/∂b = a

        out._backward = _backward
        return out

    # chapter 3
    def __radd__(self, other):  # other + self
        return self + other

    # chapter 3
    def __rmul__(self, other):  # other * self, where other is a plain number
        return self * other

    # chapter 3
    def __neg__(self):  # -self
        return self * -1

    # chapter 3
    def __sub__(self, other):  # self - other
        return self + (-other)

    # chapter 3
    def __rsub__(self, other):  # other - self
        return -self + other

    # chapter 3
    def __pow__(self, other):  # self ** other
        if isinstance(other, Value):
            return self._pow_value(other)
        n = other
        out = Value(self.data**n, (self,), f"**{n}")

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad  # d(aⁿ)/da = n·aⁿ⁻¹

        out._backward = _backward
        return out

    # chapter 3
    def _pow_value(self, other):  # self ** other, both Values
        out = Value(self.data**other.data, (self, other), "**")

        def _backward():
            self.grad += other.data * self.data ** (other.data - 1) * out.grad
            other.grad += out.data * math.log(self.data) * out.grad

        out._backward = _backward
        return out

    # chapter 3
    def __truediv__(self, other):  # self / other
        return self * other**-1

    # chapter 3
    def __rtruediv__(self, other):  # other / self
        return other * self**-1

    # chapter 3
    def __rpow__(self, other):  # other ** self, where other is a plain number
        return Value(other) ** self

    # chapter 4
    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad  # d tanh(x)/dx = 1 − tanh²(x)

        out._backward = _backward
        return out

    # chapter 4
    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad  # d eˣ/dx = eˣ, the output itself

        out._backward = _backward
        return out

    # chapter 4
    def log(self):
        if self.data <= 0:
            raise ValueError(f"log({self.data!r}) is undefined: log needs a positive value")
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += (1 / self.data) * out.grad  # d ln(x)/dx = 1/x

        out._backward = _backward
        return out

    # chapter 4
    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def _backward():
            self.grad += (self.data > 0) * out.grad  # 1 above 0; 0 at and below 0

        out._backward = _backward
        return out

    # chapter 4
    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = Value(s, (self,), "sigmoid")

        def _backward():
            self.grad += s * (1 - s) * out.grad  # σ'(x) = σ(x)(1 − σ(x))

        out._backward = _backward
        return out

    # chapter 5
    def backward(self):
        """Seed this value's grad with 1.0, then every node's _backward in reverse order."""
        topo = topological_order(self)
        self.grad = 1.0  # dL/dL = 1: the seed, before any closure runs
        for node in reversed(topo):  # the output first, each node after every node that uses it
            node._backward()
