"""The rules for numbers on arrays, as `autograd._floats` holds them for one number: what
`autograd.tensor.Tensor` accepts as data, and the errors its operations raise, each with a
message that names the operation, the shapes and the first element at fault.

`autograd.tensor` is the only module that imports this one (it imports NumPy).
"""

import math
import numbers

import numpy as np

_FLOAT64 = np.dtype(np.float64)  # the dtype of every array NumPy makes of float64 numbers


def _shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def as_array(data, what="Tensor"):
    """`data` as a new float64 array, or a TypeError/ValueError that says what was wrong."""
    if isinstance(data, float) or (type(data) is np.ndarray and data.dtype is _FLOAT64):
        return np.array(data)  # the common cases (NumPy's float64 is a float): only the copy
    if type(data) is int and -(2**63) <= data < 2**63:  # as NumPy's int64, then float64
        return np.array(float(data))
    if data is None or isinstance(data, (str, bytes, bool, np.bool_)):
        raise TypeError(
            f"{what} needs a real number, a (nested) list of them or a NumPy array, but was "
            f"given {data!r} of type {type(data).__name__}"
        )
    try:
        array = np.asarray(data)
    except ValueError:  # a ragged list: rows of different lengths
        raise ValueError(
            f"{what} needs a rectangular (nested) list, one length per level, but was given "
            f"{data!r}, whose rows differ in length"
        ) from None
    if array.dtype.kind not in "iuf":
        kinds = {
            "b": "booleans",
            "c": "complex numbers",
            "U": "strings",
            "S": "bytes",
            "O": "objects that are not all real numbers",
        }
        raise TypeError(
            f"{what} needs real numbers, but {data!r} holds "
            f"{kinds.get(array.dtype.kind, f'values of dtype {array.dtype}')}"
        )
    return np.array(array, dtype=np.float64)  # always a copy: the tensor owns its data


def _first(mask):
    """The index of the first True element of `mask`, a tuple (() for a 0-d mask)."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _where(mask):
    """The index of the first True element of `mask`, written for a message."""
    return _shape(_first(mask))


def _broadcast(op, a, b):
    """The shape of `a op b`, or a ValueError that names both shapes."""
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"shapes do not broadcast: {_shape(a.shape)} {op} {_shape(b.shape)}. Matching "
            "from the right, each pair of dimensions must be equal or one of them 1"
        ) from None


def _overflow(out, shown, *inputs):
    """Raise OverflowError where `out` is not finite but the inputs (arrays broadcast
    against it, elementwise) are: finite numbers gave a result too large for a float."""
    bad = ~np.isfinite(out)
    for x in inputs:
        bad &= np.isfinite(x)
    if bad.any():
        index = _first(bad)
        values = " and ".join(repr(float(np.broadcast_to(x, out.shape)[index])) for x in inputs)
        raise OverflowError(
            f"{shown} is too large for a float at index {_where(bad)} (from {values})"
        )


def _finite(data):
    """Whether every element of `data` is finite, in one pass: their sum is finite if they
    are, and infinite or NaN if one is (or, rarely, if finite numbers sum past the largest
    float; the callers then look element by element). Called where NumPy's floating-point
    warnings are off."""
    return math.isfinite(data if data.ndim == 0 else np.add.reduce(data, axis=None))


def _shown(a, op, b):
    """`a op b` with both shapes, as a message shows it: `(3, 2) @ (3, 2)`."""
    return f"{_shape(a.shape)} {op} {_shape(b.shape)}"


_quietly = np.errstate(all="ignore")  # a decorator: no floating-point warnings in its call


@_quietly
def _combine(a, op, b, function):
    """`function(a.data, b.data)`, the data of `a op b` broadcast, or the error that names
    the operation and both shapes: shapes that do not fit, a division by zero, an overflow."""
    if op == "/" and (b.data == 0).any():
        _broadcast(op, a, b)  # shapes that do not fit are said first
        raise ZeroDivisionError(
            f"division by zero: {_shown(a, op, b)}, the divisor is 0 at index {_where(b.data == 0)}"
        )
    try:
        data = function(a.data, b.data)
    except ValueError:  # the shapes do not broadcast: say so with both of them
        _broadcast(op, a, b)
        raise
    if not _finite(data):
        _overflow(data, _shown(a, op, b), a.data, b.data)
    return data


class _Shown:
    """`a op b` with both shapes, as an error message shows it, written only if one does."""

    __slots__ = ("a", "op", "b")

    def __init__(self, a, op, b):
        self.a, self.op, self.b = a, op, b

    def __str__(self):
        return _shown(self.a, self.op, self.b)


@_quietly
def _matmul(a, b, shown):
    """`a @ b`, or OverflowError where finite matrices give a product too large for a float."""
    data = np.matmul(a, b)
    if (
        not _finite(data)
        and not np.isfinite(data).all()
        and np.isfinite(a).all()
        and np.isfinite(b).all()
    ):
        raise OverflowError(
            f"{shown} is too large for a float at index {_where(~np.isfinite(data))}"
        )
    return np.asarray(data, dtype=np.float64)


@_quietly
def _sum(x, axes, keepdims, count, axis, op):
    """The sum of `x` over `axes` (divided by `count`, for a mean) as a float64 array, or
    OverflowError where finite numbers sum past the largest float."""
    data = np.add.reduce(x, axis=axes, keepdims=keepdims)  # x.sum(...), without its wrapper
    if count is not None:
        data = data / count
    data = np.asarray(data, dtype=np.float64)
    if not _finite(data) and not np.isfinite(data).all() and np.isfinite(x).all():
        raise OverflowError(
            f"{op} over axis {axis!r} of a {_shape(x.shape)} tensor is too large for a float"
        )
    return data


_ALL_AXES = [tuple(range(n)) for n in range(8)]  # axis=None, for tensors of up to 7 dimensions
