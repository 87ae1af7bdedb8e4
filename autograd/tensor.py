"""The scalar engine's design on NumPy arrays: a `Tensor` that remembers how it was computed.

A `Tensor` holds `data`, a float64 `numpy.ndarray`, and `grad`, an array of the same shape.
Every operation builds a new tensor in the same four beats as `autograd.engine.Value`: compute
`out`; define `_backward`, the closure that passes `out.grad` back to the inputs, each scaled by
its local derivative and *added* (`+=`); attach it; return `out`. `backward()` walks the graph
with `autograd.graph.backward_operations` (an explicit stack, so deep graphs work; leaves,
whose `_backward` passes nothing back, left out), seeds the one-element output with 1, resets
the intermediate gradients and accumulates into the leaves, exactly as the scalar engine does.

    >>> x = Tensor([[1.0, 2.0], [3.0, 4.0]], label="x")
    >>> w = Tensor([0.5, -1.0], label="w")
    >>> loss = (x * w).sum()        # w is broadcast over the rows of x
    >>> loss.backward()
    >>> w.grad                      # summed back to w's shape by `unbroadcast`
    array([4., 6.])

Broadcasting. `+ - * /` broadcast as NumPy does. An operand that was broadcast received the
same value in many places, so its gradient is the sum over those places: `unbroadcast(grad,
shape)` sums the gradient back to the operand's shape, the one helper every binary operation
calls.

The local derivatives are written by hand in each closure, as in `autograd.engine`, in the
same float operations and the same order: the slope of tanh is `(1 - t)(1 + t)`, the slope of
`a / b` in b is `-g * (out / b)`, log passes back `g / x`, relu and `x ** 0` pass back nothing
where their slope is exactly 0. They are not read from the table of primitives (`autograd.ops`),
whose rules are written for one number at a time (a rule's `k.when(condition, ...)` decides
for one value whether anything passes), while here each closure decides for a whole array at
once with `numpy.where`. Keeping them by hand keeps this module NumPy and the engine's
arithmetic, readable side by side with `engine.py`.

Numbers follow the scalar engines' rules (`autograd._floats`): an operation on finite numbers
gives finite numbers or raises, `ZeroDivisionError` for a division by zero and for zero to a
negative power, `ValueError` for the log of a number at or below zero and for a negative base
with a fractional exponent, `OverflowError` for a result too large for a float, each with a
message that names the operation, the shapes and the first element at fault. Inputs that are
already infinite or NaN give what NumPy gives. A shape that does not fit names the operation
and both shapes, `(3, 2) @ (3, 2)`. An operation that raises builds nothing, and `backward()`
on a tensor of more than one element raises before it touches any gradient.

Memory. Each closure holds its output weakly, `out = out_ref()`, where the scalar engine's
holds `out` itself. The output holds its closure, so holding it back would make a cycle, and a
graph nobody needs any more would wait for Python's cycle collector instead of being freed as
soon as the last name for its output goes; with arrays in every node, that wait costs memory
and time. A closure runs only while its output is alive (`backward()` holds every node of the
graph), so the weak reference always finds it.

This module and `autograd._arrays`, where its rules for numbers live (what it accepts as data,
the errors it raises), import NumPy; `import autograd` imports neither.
NumPy is not listed on its own in requirements.txt: matplotlib, which is, requires it.
"""

import math
import numbers
import weakref

import numpy as np

from ._arrays import (
    _ALL_AXES,
    _FLOAT64,
    _Shown,
    _broadcast,
    _combine,
    _first,
    _is_real,
    _matmul,
    _overflow,
    _shape,
    _sum,
    _where,
    as_array,
)
from .graph import backward_operations

__all__ = ["Tensor", "unbroadcast", "cross_entropy"]


def _leaf_backward():
    """A leaf has no inputs, so it passes no gradient back."""


def _as_array(data, what="Tensor"):
    """`data` as a new float64 array, or a TypeError/ValueError that says what was wrong."""
    if isinstance(data, Tensor):
        raise TypeError(f"{what} needs numbers, not a Tensor: use its .data ({data!r})")
    return as_array(data, what)


def unbroadcast(grad, shape):
    """Sum `grad` back to `shape`, the shape of an operand that NumPy broadcast to grad's.

    Broadcasting adds leading dimensions and stretches dimensions of size 1; an operand so
    stretched was used in every place it reached, so its gradient is the sum over them.
    """
    if grad.shape == shape:  # not broadcast (the usual case): nothing to sum
        return grad
    shape = tuple(shape)
    extra = grad.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, grad.shape[extra:])):
        raise ValueError(
            f"cannot unbroadcast a gradient of shape {_shape(grad.shape)} to {_shape(shape)}: "
            f"{_shape(shape)} does not broadcast to {_shape(grad.shape)}"
        )
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad


def _constant(array):
    """A leaf around `array`, a float64 array made for it by `_as_array`: what `Tensor(array)`
    gives, without checking and copying it a second time."""
    out = object.__new__(Tensor)
    out.data, out.grad, out._backward = array, np.zeros(array.shape), _leaf_backward
    out._prev, out._op, out.label = (), "", ""
    return out


class Tensor:
    """An array of numbers that remembers how it was computed, so gradients flow back through it.

    >>> a = Tensor([1.0, 2.0, 3.0])
    >>> (a * a).sum().backward()
    >>> a.grad
    array([2., 4., 6.])
    """

    __slots__ = ("data", "grad", "_backward", "_prev", "_op", "label", "__weakref__")
    __array_ufunc__ = None  # `array + tensor` calls Tensor.__radd__, not NumPy's loop

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = (
            data
            if type(data) is np.ndarray and data.dtype is _FLOAT64 and _children
            else _as_array(data)
        )
        self.grad = np.zeros(self.data.shape)
        self._backward = _leaf_backward
        self._prev = _children if type(_children) is tuple else tuple(_children)
        self._op = _op
        self.label = label

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def size(self):
        return self.data.size

    def item(self):
        """The number of a one-element tensor, as a float."""
        self._one_element("item()")
        return float(self.data.reshape(-1)[0])

    def __repr__(self):
        if self.data.size <= 8:
            data, grad = (
                np.array2string(x, precision=4, separator=", ") for x in (self.data, self.grad)
            )
            return f"Tensor(data={data}, grad={grad})"
        return f"Tensor(shape={_shape(self.shape)})"

    def _operand(self, other, op):
        if isinstance(other, Tensor):
            return other
        if _is_real(other) or isinstance(other, (list, tuple, np.ndarray)):
            return _constant(_as_array(other, f"the right operand of {op}"))
        raise TypeError(
            f"unsupported operand for {op}: a Tensor of shape {_shape(self.shape)} and {other!r} "
            f"of type {type(other).__name__} (use a Tensor, a real number, a list or an array)"
        )

    # ----------------------------------------------------------------- primitives

    def __add__(self, other):
        other = self._operand(other, "+")
        out = Tensor(_combine(self, "+", other, np.add), (self, other), "+")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a, b = out._prev
            a.grad += unbroadcast(out.grad, a.shape)
            b.grad += unbroadcast(out.grad, b.shape)

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._operand(other, "*")
        out = Tensor(_combine(self, "*", other, np.multiply), (self, other), "*")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a, b = out._prev
            a.grad += unbroadcast(b.data * out.grad, a.shape)
            b.grad += unbroadcast(a.data * out.grad, b.shape)

        out._backward = _backward
        return out

    def __truediv__(self, other):
        """Division is a primitive, as in the scalar engine: one rounding for the value, and
        the slope in b computed as -(out/b), finite wherever the answer is."""
        other = self._operand(other, "/")
        out = Tensor(_combine(self, "/", other, np.true_divide), (self, other), "/")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a, b = out._prev
            a.grad += unbroadcast(out.grad / b.data, a.shape)
            b.grad += unbroadcast(-out.grad * (out.data / b.data), b.shape)

        out._backward = _backward
        return out

    def __pow__(self, n):
        """$x^n$ with a number n, elementwise: slope $n x^{n-1}$ (infinite at 0 for 0 < n < 1)."""
        if isinstance(n, Tensor) or not _is_real(n):
            raise TypeError(
                f"the exponent of Tensor ** ... must be a real number such as 2 or 0.5, but was "
                f"given {n!r} of type {type(n).__name__}"
            )
        n = int(n) if isinstance(n, numbers.Integral) else float(n)
        x = self.data
        shown = f"{_shape(self.shape)} ** {n!r}"
        if not float(n).is_integer() and np.isfinite(n) and (x < 0).any():
            raise ValueError(
                f"{shown} is not a real number at index {_where(x < 0)} "
                f"(a negative base needs a whole-number exponent)"
            )
        if n < 0 and (x == 0).any():
            raise ZeroDivisionError(
                f"division by zero: {shown} at index {_where(x == 0)} (zero cannot be raised "
                "to a negative power)"
            )
        with np.errstate(all="ignore"):
            data = np.power(x, float(n))
        if not np.isfinite(data).all():
            _overflow(data, shown, x)
        label = int(n) if float(n).is_integer() else n
        out = Tensor(data, (self,), f"**{label}")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            if n == 0:  # x**0 = 1 has slope 0, which passes back nothing
                return
            a = out._prev[0]
            slope = n * np.power(a.data, n - 1.0)
            lost = ~np.isfinite(slope) & np.isfinite(out.data) & (a.data != 0)
            if lost.any():  # x**(n-1) overflows where x**n does not: n * (x**n / x)
                slope = np.where(lost, n * (out.data / a.data), slope)
            if n < 1:
                slope = np.where(a.data == 0, np.inf, slope)
            a.grad += slope * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other):
        """The matrix product, for 1-D, 2-D and batched operands (as NumPy's `@`).

        Its backward, for C = A @ B with 2-D operands: dA = dC @ B.T and dB = A.T @ dC. A 1-D
        operand is a row (on the left) or a column (on the right) for the same rule, and a
        batch dimension that was broadcast is summed back by `unbroadcast`.
        """
        other = self._operand(other, "@")
        a, b = self.data, other.data
        shown = _Shown(a, "@", b)
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(f"@ needs tensors of at least one dimension: {shown}")
        left = a.shape[-1]
        right = b.shape[-2] if b.ndim > 1 else b.shape[0]
        if left != right:
            raise ValueError(
                f"shapes do not fit for the matrix product: {shown}. The last dimension of the "
                f"left ({left}) must equal the {'first' if b.ndim == 1 else 'second-to-last'} "
                f"dimension of the right ({right})"
            )
        if a.ndim > 2 or b.ndim > 2:
            try:
                np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            except ValueError:
                raise ValueError(f"the batch dimensions do not broadcast: {shown}") from None
        out = Tensor(_matmul(a, b, shown), (self, other), "@")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            x, y = out._prev
            if x.ndim == 2 and y.ndim == 2:  # the rule itself, for two matrices
                x.grad += out.grad @ y.data.T
                y.grad += x.data.T @ out.grad
                return
            a2 = x.data if x.ndim > 1 else x.data[None, :]  # a row
            b2 = y.data if y.ndim > 1 else y.data[:, None]  # a column
            g = out.grad.reshape(
                np.matmul(a2[..., :1, :], b2[..., :, :1]).shape[:-2] + (a2.shape[-2], b2.shape[-1])
            )
            x.grad += unbroadcast(g @ np.swapaxes(b2, -1, -2), a2.shape).reshape(x.shape)
            y.grad += unbroadcast(np.swapaxes(a2, -1, -2) @ g, b2.shape).reshape(y.shape)

        out._backward = _backward
        return out

    def _axes(self, axis, op):
        """`axis` (None, an int or a tuple of ints) as a tuple of axes counted from 0."""
        if axis is None:
            return _ALL_AXES[self.ndim] if self.ndim < len(_ALL_AXES) else tuple(range(self.ndim))
        axes = axis if isinstance(axis, tuple) else (axis,)
        found = []
        for k in axes:
            if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
                raise TypeError(
                    f"{op}(axis=...) takes None, an int or a tuple of ints, but was given {axis!r}"
                )
            if not -self.ndim <= k < self.ndim:
                raise ValueError(
                    f"{op}(axis={axis!r}) is out of range for a tensor of shape "
                    f"{_shape(self.shape)}, which has {self.ndim} dimension(s)"
                )
            found.append(int(k) % self.ndim)
        if len(set(found)) != len(found):
            raise ValueError(f"{op}(axis={axis!r}) names an axis twice")
        return tuple(found)

    def _reduce(self, axis, keepdims, op):
        axes = self._axes(axis, op)
        if axis is None:  # every axis, the usual case: the count and keepdims' shape at once
            count, kept = self.data.size, (1,) * self.ndim
        else:
            count = math.prod([self.shape[k] for k in axes])
            kept = tuple(1 if k in axes else n for k, n in enumerate(self.shape))
        if op == "mean" and count == 0:
            over = "" if axis is None else f" over axis {axis!r}"
            raise ValueError(
                f"mean of an empty tensor (shape {_shape(self.shape)}){over}: "
                "there are no numbers to average"
            )
        out = Tensor(
            _sum(self.data, axes, keepdims, count if op == "mean" else None, axis, op), (self,), op
        )
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            g = out.grad.reshape(kept)
            if op == "mean":
                g = g / count
            a.grad += g  # broadcast over the axes summed: each element's slope is 1 (or 1/count)

        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        """The sum over `axis` (None: all of them); each input element's slope is 1."""
        return self._reduce(axis, keepdims, "sum")

    def mean(self, axis=None, keepdims=False):
        """The mean over `axis` (None: all of them); each input element's slope is 1/count."""
        return self._reduce(axis, keepdims, "mean")

    def reshape(self, *shape):
        """The same numbers in another shape: `t.reshape(2, 3)` or `t.reshape((2, 3))`."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        try:
            data = self.data.reshape(shape)
        except (ValueError, TypeError):
            raise ValueError(
                f"cannot reshape a tensor of shape {_shape(self.shape)} ({self.size} elements) "
                f"into {shape!r}"
            ) from None
        out = Tensor(data.copy(), (self,), "reshape")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.grad.reshape(a.shape)

        out._backward = _backward
        return out

    @property
    def T(self):
        """The transpose: the axes in reverse order (rows and columns swapped for a matrix)."""
        out = Tensor(self.data.T.copy(), (self,), "T")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.grad.T

        out._backward = _backward
        return out

    def tanh(self):
        """Elementwise tanh; the slope is (1 - t)(1 + t), which keeps its digits near t = ±1."""
        out = Tensor(np.tanh(self.data), (self,), "tanh")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a, t = out._prev[0], out.data
            a.grad += (1.0 - t) * (1.0 + t) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        """Elementwise e**x; the output is its own slope."""
        with np.errstate(all="ignore"):
            data = np.exp(self.data)
        if not np.isfinite(data).all():
            bad = ~np.isfinite(data) & np.isfinite(self.data)
            if bad.any():
                raise OverflowError(
                    f"exp of a {_shape(self.shape)} tensor is too large for a float at index "
                    f"{_where(bad)}: exp({float(self.data[_first(bad)])!r}) overflows above "
                    "x = 709.78"
                )
        out = Tensor(data, (self,), "exp")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        """Elementwise natural log, for positive elements only; the slope passes back g / x."""
        bad = self.data <= 0
        if bad.any():
            raise ValueError(
                f"log of a {_shape(self.shape)} tensor is undefined at index {_where(bad)}: "
                f"log({float(self.data[_first(bad)])!r}) needs a positive value"
            )
        out = Tensor(np.log(self.data), (self,), "log")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.grad / a.data

        out._backward = _backward
        return out

    def relu(self):
        """Elementwise max(0, x); slope 1 above 0, and at and below 0 nothing passes back."""
        out = Tensor(np.where(self.data < 0, 0.0, self.data), (self,), "relu")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += np.where(out.data > 0, out.grad, 0.0)

        out._backward = _backward
        return out

    def sigmoid(self):
        """Elementwise 1 / (1 + e**-x), computed so that exp never overflows; slope s(1 - s)."""
        e = np.exp(-np.abs(self.data))  # e**-x above 0, e**x below
        data = np.where(self.data >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        out = Tensor(data, (self,), "sigmoid")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = _backward
        return out

    def log_softmax(self, axis=-1):
        """log(softmax(x)) along `axis`, computed as (x - max) - log(sum(exp(x - max))), so no
        exp overflows. Its slope: dx = g - softmax * sum(g) along the axis."""
        (axis,) = self._axes(axis, "log_softmax")
        if self.shape[axis] == 0:
            raise ValueError(f"log_softmax over an empty axis of a {_shape(self.shape)} tensor")
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        data = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        out = Tensor(data, (self,), "log_softmax")
        out_ref = weakref.ref(out)  # weakly: "Memory", in the module docstring

        def _backward():
            out = out_ref()
            a = out._prev[0]
            a.grad += out.grad - np.exp(out.data) * out.grad.sum(axis=axis, keepdims=True)

        out._backward = _backward
        return out

    # ----------------------------------------------------------------- the backward pass

    def _one_element(self, what):
        if self.data.size != 1:
            raise ValueError(
                f"{what} needs a tensor of one element (a loss), but this one has shape "
                f"{_shape(self.shape)}: reduce it first, for example with .sum() or .mean()"
            )

    def backward(self):
        """Fill in `grad` of every tensor this one depends on: d(self)/d(tensor).

        As `Value.backward()`: order the graph (inputs before the tensors made from them, the
        leaves left out: `graph.backward_operations`), reset the intermediate tensors'
        gradients, seed this one with 1, and run each node's `_backward` in reverse order.
        Leaves accumulate: set their `grad` to zeros between training steps.
        """
        self._one_element("backward()")
        topo = backward_operations(self, Tensor, _leaf_backward)
        for node in topo:
            if node._prev:  # an intermediate node: its grad is scratch space for this pass
                node.grad = np.zeros(node.data.shape)
        self.grad = np.ones(self.data.shape)
        with np.errstate(all="ignore"):  # gradients are plain floats: they may be infinite
            for node in reversed(topo):
                node._backward()

    # ----------------------------------------------------------------- by composition

    def __neg__(self):  # -a
        return self * -1

    def __sub__(self, other):  # a - b
        other = self._operand(other, "-")
        if self.shape != other.shape:
            _broadcast("-", self, other)  # so that a shape error names the operation written
        return self + (-other)

    def __radd__(self, other):  # n + a
        return self._operand(other, "+") + self

    def __rmul__(self, other):  # n * a
        return self._operand(other, "*") * self

    def __rsub__(self, other):  # n - a
        other = self._operand(other, "-")
        if self.shape != other.shape:
            _broadcast("-", other, self)
        return other + (-self)

    def __rtruediv__(self, other):  # n / a
        return self._operand(other, "/") / self

    def __rmatmul__(self, other):  # array @ a
        return self._operand(other, "@") @ self


def cross_entropy(logits, labels):
    """The mean over the rows of -log softmax(logits)[row, label]: the loss of a classifier.

    `logits` is an (N, C) Tensor, one row of scores per example; `labels` N whole numbers in
    0..C-1, the right class of each row.
    """
    if not isinstance(logits, Tensor) or logits.ndim != 2:
        raise ValueError(
            "cross_entropy needs logits as a 2-D Tensor (one row of class scores per example), "
            f"but was given {logits!r}"
        )
    n, classes = logits.shape
    if n == 0:
        raise ValueError(
            "cross_entropy of an empty batch: the logits have no rows "
            f"(shape {_shape(logits.shape)}), so there is no loss to average"
        )
    array = np.asarray(labels)
    if array.dtype.kind not in "iu" or array.shape != (n,):
        raise ValueError(
            f"cross_entropy needs {n} whole-number label{'s' if n != 1 else ''}, one per row of the "
            f"{_shape(logits.shape)} logits, but was given {labels!r}"
        )
    if ((array < 0) | (array >= classes)).any():
        raise ValueError(
            f"cross_entropy: every label must be a class between 0 and {classes - 1}, but "
            f"{labels!r} holds {int(array[(array < 0) | (array >= classes)][0])}"
        )
    one_hot = np.zeros(logits.shape)
    one_hot[np.arange(n), array] = 1.0
    return -(logits.log_softmax(axis=1) * one_hot).sum(axis=1).mean()
