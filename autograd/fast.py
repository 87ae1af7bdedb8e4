"""A second engine: the same `Value`, built for speed.

The reference engine (`autograd.engine`) gives every operation a closure that captures its
output, so every node sits in a reference cycle (`out._backward` holds `out`) and brings a
function, a cell and a tuple along. Python frees cyclic garbage only when its cyclic garbage
collector runs, and that collector keeps walking every live node while a graph is built.

This engine keeps the public API and changes how a node remembers its operation. At forward
time each operation stores its inputs in two flat slots, `_a` and `_b`, and the local
derivatives d(out)/d(input) in `_da` and `_db`:

    out = a * b   stores   out._a = a, out._da = b.data,   out._b = b, out._db = a.data

There are no closures and no cycles: a node is one object, and a graph is freed by reference
counting as soon as the last reference to it goes. `backward()` sorts the graph without
recursion, then, for each node in reverse order, adds `_da * grad` into `_a.grad` and
`_db * grad` into `_b.grad`: the chain rule, exactly as the closures did it. A plain number
used as an operand (`2 * v`, `v + 1`) is not wrapped in a `Value`; it only changes the output
and the local derivative.

Values, errors, accumulation, `repr` and the rules for numbers (see the reference engine's
docstring: a result too large for a float raises OverflowError; a slope of 0 passes back
nothing, even an infinite gradient) are the reference engine's, value for value. So are the
gradients, bit for bit, in a graph without a division or a log. Those two record the slope
1/b and pass back (1/b) * g, where the reference engine computes g / b: the two can differ in
the last bit, and later operations carry the difference on. Such a graph's gradients are
then the reference engine's to within a few units in the last place (on random programs of
up to 12 operations, about 1 in 15 of those that divide, by a value or by a number whose
reciprocal is not exact, or take a log differed, by at most a few dozen units in the last
place). What differs besides:
`(v * 2)._prev` is `(v,)`, since the 2 is no node; the derivatives are taken at forward
time, so changing an input's `data` before `backward()` does not change the gradients; a
node made by hand has at most two inputs; and values pickle with their whole graph (they are
plain objects, with no closures; pickle recurses, so a graph more than about a thousand nodes
deep raises RecursionError), and deep-copy with it at any depth.
"""

from . import _floats
from .graph import cycle_message, topological_order
from .ops import NAMESPACE, OPS, STOP, python_function, reciprocal, slope_text

__all__ = ["Value"]

_new = object.__new__  # an empty Value, without running __init__'s checks


def _node(data, op, a, da, b=None, db=0.0):
    """A new Value computed from `a` (and `b`), with the local derivatives `da` (and `db`)."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._a = a
    out._b = b
    out._da = da
    out._db = db
    out._op = op
    out.label = ""
    return out


def _one_input(name, doc):
    """The method `name` of a one-input row of the table of primitives: the row's forward on
    floats, and its local derivative written into the method as the row's own expression
    (`autograd.ops.slope_text`: for tanh, `(1.0 - out) * (1.0 + out)`), so that taking it costs
    no function call. `method.source` shows the method."""
    op = OPS[name]
    text = (
        f"def {name}(self):\n"
        f"    x = self.data\n"
        f"    out = forward(x)\n"
        f"    return _node(out, {name!r}, self, {slope_text(op, 0)})\n"
    )
    method = python_function(text, name, {**NAMESPACE, "forward": op.forward, "_node": _node})
    method.__doc__, method.__qualname__ = doc, f"Value.{name}"
    return method


class Value:
    """A number that remembers how it was computed: no closures, no reference cycles.

    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> c = a * b + a
    >>> c.backward()
    >>> a.grad, b.grad        # dc/da = b + 1, dc/db = a
    (-2.0, 2.0)
    """

    __slots__ = ("data", "grad", "_a", "_b", "_da", "_db", "_op", "label")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if type(data) is float else _floats.as_float(data)
        self.grad = 0.0
        self._a = self._b = None
        self._da = self._db = 0.0
        if _children:
            # A node made by hand records its inputs, for drawings, but as in the reference
            # engine it passes no gradient back to them: its local derivatives stay 0.
            children = tuple(_children)
            if len(children) > 2:
                raise ValueError(
                    f"a fast Value has at most two inputs, but was given {len(children)}"
                )
            for child in children:
                if not isinstance(child, Value):
                    raise TypeError(
                        f"the inputs of a fast Value must be fast Values, but was given "
                        f"{child!r} of type {type(child).__module__}.{type(child).__qualname__}"
                    )
            self._a = children[0]
            self._b = children[1] if len(children) == 2 else None
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    def __deepcopy__(self, memo):
        """`copy.deepcopy`: a copy of the whole graph, inputs first, without recursion."""
        for node in topological_order(self):
            if id(node) not in memo:
                twin = memo[id(node)] = _new(Value)
                twin.data, twin.grad, twin._op, twin.label = (
                    node.data,
                    node.grad,
                    node._op,
                    node.label,
                )
                twin._da, twin._db = node._da, node._db
                twin._a = None if node._a is None else memo[id(node._a)]
                twin._b = None if node._b is None else memo[id(node._b)]
        return memo[id(self)]

    @property
    def _prev(self):
        """The inputs, in order: `()` for a leaf, `(a,)` or `(a, b)` for an operation."""
        if self._a is None:
            return ()
        if self._b is None:
            return (self._a,)
        return (self._a, self._b)

    def _backward(self):
        """Pass `grad` back to the inputs, each scaled by its local derivative and added."""
        if self._a is not None:
            self._a.grad += self._da * self.grad
        if self._b is not None:
            self._b.grad += self._db * self.grad

    # ----------------------------------------------------------------- primitives
    # Each one computes its output and the output's derivative with respect to each input,
    # and stores them on a new node. `+` and `*` make almost every node of a network, so they
    # build their node in place; the others call `_node`, which costs a function call more.
    # tanh, exp, log and sigmoid are made from their rows of the table of primitives
    # (`autograd.ops`), which writes each derivative once; the others write their own,
    # and tests/test_ops.py holds them to the table, bit for bit.

    def __add__(self, other):
        """$f(a, b) = a + b$, so $\\partial f/\\partial a = 1$ and $\\partial f/\\partial b = 1$."""
        if isinstance(other, Value):
            b, term = other, other.data
        else:
            b, term = None, _floats.operand(other, "+", self)
        data = self.data + term
        if data - data:  # not a finite number: inf or NaN
            _floats.checked(data, "+", self.data, term)  # raises if the inputs were finite
        out = _new(Value)
        out.data = data
        out.grad = 0.0
        out._a = self
        out._b = b
        out._da = out._db = 1.0
        out._op = "+"
        out.label = ""
        return out

    def __mul__(self, other):
        """$f(a, b) = a b$, so $\\partial f/\\partial a = b$ and $\\partial f/\\partial b = a$."""
        if isinstance(other, Value):
            b, factor, db = other, other.data, self.data
        else:
            b, factor, db = None, _floats.operand(other, "*", self), 0.0
        data = self.data * factor
        if data - data:  # not a finite number: inf or NaN
            _floats.checked(data, "*", self.data, factor)  # raises if the inputs were finite
        out = _new(Value)
        out.data = data
        out.grad = 0.0
        out._a = self
        out._b = b
        out._da = factor
        out._db = db
        out._op = "*"
        out.label = ""
        return out

    def __truediv__(self, other):
        """$f(a, b) = a / b$, so $\\partial f/\\partial a = 1/b$ and $\\partial f/\\partial b = -a/b^2$.

        A primitive, correctly rounded, as in the reference engine; the slope in b is taken
        as $-(a/b)/b$, which does not overflow or underflow where $b^2$ would.
        """
        if isinstance(other, Value):
            b = other.data
            q = _floats.quotient(self.data, b)
            return _node(q, "/", self, reciprocal(b), other, -(q / b))
        c = _floats.operand(other, "/", self)
        return _node(_floats.quotient(self.data, c), "/", self, reciprocal(c))

    def __rtruediv__(self, other):  # n / a
        """$f(b) = c / b$ with a number $c$: $f'(b) = -c/b^2$, taken as $-(c/b)/b$."""
        b = self.data
        q = _floats.quotient(_floats.operand(other, "/", self), b)
        return _node(q, "/", self, -(q / b))

    def __pow__(self, other):
        """$f(a) = a^n$ with a number $n$: $f'(a) = n a^{n-1}$.

        With a `Value` exponent $b$: $\\partial f/\\partial a = b a^{b-1}$ and
        $\\partial f/\\partial b = a^b \\ln a$ (NaN where $a < 0$, as in PyTorch).
        """
        a = self.data
        if isinstance(other, Value):
            b = other.data
            out = _floats.power(a, b)
            return _node(
                out,
                "**",
                self,
                _floats.power_slope(a, b) if b != 0 else STOP,
                other,
                _floats.log_slope(a, b, out),
            )
        n = _floats.exponent_operand(other, self)
        out = _floats.power(a, n)
        slope = _floats.power_slope(a, n) if n != 0 else STOP
        return _node(out, _floats.PowerLabel(n), self, slope)

    def __rpow__(self, other):
        """$f(b) = c^b$ with a number $c$: $f'(b) = c^b \\ln c$ (0 at c = 0 with b >= 0)."""
        c = _floats.operand(other, "**", self)
        out = _floats.power(c, self.data)
        return _node(out, "**", self, _floats.log_slope(c, self.data, out))

    # tanh, exp, log and sigmoid: each its row of the table, as a method (see `_one_input`)
    tanh = _one_input(
        "tanh",
        """$f(x) = \\tanh x$, so $f'(x) = 1 - \\tanh^2 x$, as $(1 - t)(1 + t)$
        (see the reference).""",
    )
    exp = _one_input("exp", """$f(x) = e^x$, so $f'(x) = e^x$: the output is its own derivative.""")
    log = _one_input(
        "log",
        """$f(x) = \\ln x$ for $x > 0$, so $f'(x) = 1/x$, recorded as the
        reciprocal 1/x, where the reference engine divides.""",
    )

    def relu(self):
        """$f(x) = \\max(0, x)$, so $f'(x) = 1$ for $x > 0$ and $0$ at and below $0$."""
        x = self.data
        if x > 0:
            return _node(x, "relu", self, 1.0)
        return _node(0.0 if x < 0 else x, "relu", self, STOP)  # NaN stays NaN

    sigmoid = _one_input(
        "sigmoid",
        """$\\sigma(x) = 1/(1 + e^{-x})$, so
        $\\sigma'(x) = \\sigma(x)(1 - \\sigma(x))$.""",
    )

    # ----------------------------------------------------------------- the backward pass

    def backward(self):
        """Fill in `grad` of every value this one depends on: d(self)/d(value).

        Sorts the operations this value depends on so that each comes after its inputs,
        seeds `self.grad = 1.0`, then walks them in reverse: each adds its local
        derivatives times its own gradient into its inputs' gradients.

        Gradients accumulate as in the reference engine: leaves (values with no inputs,
        such as weights) add to the gradient they hold, so set their `grad` to 0 between
        training steps; intermediate values are reset at the start of each call. A graph
        edited into a cycle (a value that depends on itself) raises ValueError.
        """
        order = _topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            g = node.grad
            node._a.grad += node._da * g
            b = node._b
            if b is not None:
                b.grad += node._db * g

    # ----------------------------------------------------------------- by composition
    # As in the reference engine, these are built from the primitives above.

    def __neg__(self):  # -a
        return self * -1.0

    def __sub__(self, other):  # a - b
        if isinstance(other, Value):
            return self + (-other)
        return self + -_floats.operand(other, "-", self)

    __radd__ = __add__  # n + a
    __rmul__ = __mul__  # n * a

    def __rsub__(self, other):  # n - a
        return (-self) + _floats.operand(other, "-", self)


# Any other one-input row of the table (an activation added there) becomes a method the same
# way, so that the fast engine has it without a line here; tests/test_engine_parity.py checks
# that both engines have every method.
for _op in OPS.values():
    if _op.arity == 1 and not _op.parameters and not hasattr(Value, _op.method):
        setattr(
            Value,
            _op.method,
            _one_input(
                _op.name, f"{_op.name}: its row of the table of primitives (`autograd.ops`)."
            ),
        )
del _op


def _topological_order(root):
    """Every operation `root` depends on, each after its inputs, with `grad` reset to 0.

    Leaves are left out: they pass nothing back. A depth-first search with an explicit
    stack, so a graph a million nodes deep needs no recursion: a node is placed once both of
    its inputs are. To remember which nodes it has reached, the search writes a mark made
    for this call into their `grad`, which has to be reset afterwards anyway: cheaper than
    looking every node up in a set.
    """
    order = []
    if root._a is None:
        return order
    reached, placed = object(), object()  # on the stack; in `order`
    try:
        root.grad = reached
        stack = []
        node = root
        while True:
            a = node._a
            if a._a is not None and a.grad is not placed:
                if a.grad is reached:  # on the stack: it is among its own inputs' inputs
                    raise ValueError(cycle_message(a))
                a.grad = reached
                stack.append(node)
                node = a
                continue
            b = node._b
            if b is not None and b._a is not None and b.grad is not placed:
                if b.grad is reached:
                    raise ValueError(cycle_message(b))
                b.grad = reached
                stack.append(node)
                node = b
                continue
            node.grad = placed
            order.append(node)  # both inputs are placed (or are leaves)
            if not stack:
                break
            node = stack.pop()
        for node in order:
            node.grad = 0.0
    except BaseException:  # Ctrl-C, a cycle, or a graph that is not a fast engine's: take the
        _unmark(root, (reached, placed))  # marks back
        raise
    return order


def _unmark(root, marks):
    """Set every `grad` that still holds one of `marks` back to 0.0, after an interrupted sort.

    Each marked node was reached from a marked node, and the final reset runs inputs first,
    so every node still marked can be reached from the root through marked nodes.
    """
    stack = [root]
    while stack:
        node = stack.pop()
        if any(node.grad is mark for mark in marks):
            node.grad = 0.0
            stack.extend(child for child in (node._a, node._b) if child is not None)
