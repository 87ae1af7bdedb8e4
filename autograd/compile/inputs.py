"""Inputs: takes what `compile_loss` and a call are given, gives their numbers and shape.

Where they are not numbers, or not shaped as at the trace, a TypeError or ValueError says how.

A batch of points, each a list of floats, is read at C speed (`batch_of_floats`); anything
else goes the general way (`flatten`, `numbers`), which accepts any real number and nesting
and refuses the rest with a message.
"""

from itertools import chain

from .. import _floats
from ..engine import Value


def leaves(params, inputs):
    """(the inputs flattened, their shape), once every parameter and input is checked to be a
    number or a leaf `Value`, and no `Value` is given twice."""
    for i, p in enumerate(params):
        require_leaf_or_number(p, f"parameter {i}")
    if len({id(p) for p in params if isinstance(p, Value)}) != sum(
        isinstance(p, Value) for p in params
    ):
        raise ValueError("the same Value appears twice in params: list each parameter once")
    flat_inputs, shape = flatten(inputs)
    seen = {id(p): f"parameter {i}" for i, p in enumerate(params) if isinstance(p, Value)}
    for i, x in enumerate(flat_inputs):
        require_leaf_or_number(x, f"input {i}")
        if isinstance(x, Value):
            if id(x) in seen:  # one Value holds one number: the trace would keep one
                raise ValueError(
                    f"input {i}, {_floats.show(x)}, is also {seen[id(x)]}: a Value holds "
                    "one number, so the compiled code could not take two for it. Give each "
                    "parameter and each input its own Value (or a number)"
                )
            seen[id(x)] = f"input {i}"
    return flat_inputs, shape


def require_leaf_or_number(x, what):
    if isinstance(x, Value):
        if x._prev:
            raise ValueError(
                f"{what} must be a number or a leaf Value, but {x!r} was computed by {x._op!r}"
            )
        return
    if type(x) is not float and not _floats.is_real(x):
        raise TypeError(
            f"{what} must be a real number or a leaf Value (the inputs a number, or lists and "
            f"tuples of them), but was given {_floats.show(x)} of type {type_name(x)}"
            + (": pass a list, e.g. array.tolist()" if hasattr(x, "tolist") else "")
        )
    _floats.as_float(x)  # an OverflowError for an int too large for a float


def numbers(values, what):
    try:
        values = list(values)
    except TypeError:
        raise TypeError(
            f"the {what}s must be a sequence of numbers, but were given "
            f"{_floats.show(values)} of type {type_name(values)}"
        ) from None
    if set(map(type, values)) <= {float}:  # the common case, checked at C speed
        return values
    for i, x in enumerate(values):
        if type(x) is not float and not _floats.is_real(x):
            raise TypeError(
                f"{what} {i} must be a real number, but was given "
                f"{_floats.show(x)} of type {type_name(x)}"
            )
    return [x if type(x) is float else _floats.as_float(x) for x in values]


def type_name(x):
    """`float`, `str`, or `numpy.ndarray`: the type of x, with its module unless a built-in."""
    kind = type(x)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else (f"{kind.__module__}.{kind.__qualname__}")
    )


_SEQUENCES = (list, tuple)


def point_lengths(shape):
    """[how many numbers each point holds] where the inputs are a batch of points (a list or
    tuple of lists or tuples of numbers), else None."""
    if type(shape) is tuple and all(type(s) is tuple and s.count(None) == len(s) for s in shape):
        return list(map(len, shape))
    return None


def batch_of_floats(inputs, lengths):
    """The numbers of a batch of points shaped by `lengths` (see `point_lengths`), each a list
    or tuple of floats, in order; None for any other inputs, which `flatten` and `numbers`
    then read (and refuse with a message where they must)."""
    if (
        lengths is None
        or type(inputs) not in _SEQUENCES
        or not set(map(type, inputs)) <= {list, tuple}
        or list(map(len, inputs)) != lengths
    ):
        return None
    flat = list(chain.from_iterable(inputs))
    return flat if set(map(type, flat)) <= {float} else None


def flatten(obj):
    """(the numbers of a nesting of lists and tuples, in order; its shape). The shape of a number
    is None, of a sequence the tuple of its items' shapes."""
    if type(obj) in _SEQUENCES:  # a list of numbers, or of lists of numbers, at C speed:
        kinds = set(map(type, obj))  # the shapes a batch of points comes in
        if not _any_sequence(kinds):
            return list(obj), (None,) * len(obj)
        if kinds <= set(_SEQUENCES) and not _any_sequence(set(map(type, chain(*obj)))):
            return list(chain(*obj)), tuple([(None,) * len(item) for item in obj])
    if isinstance(obj, _SEQUENCES):
        flat, shapes = [], []
        for item in obj:
            f, s = flatten(item)
            flat.extend(f)
            shapes.append(s)
        return flat, tuple(shapes)
    return [obj], None


def _any_sequence(kinds):
    """Whether any of the types `kinds` is a list or a tuple (or a subclass of one)."""
    return any(issubclass(kind, _SEQUENCES) for kind in kinds)


def unflatten(flat, shape):
    """The nesting `shape` (as lists) filled with the items of `flat`, in order."""
    items = iter(flat)

    def build(s):
        return next(items) if s is None else [build(child) for child in s]

    return build(shape)


def shape_text(shape):
    """`shape` in words: 'a number', '3 numbers', '100 × (2 numbers)', or a ragged list."""
    if shape is None:
        return "a number"
    if all(s is None for s in shape):
        return f"{len(shape)} number{'s' * (len(shape) != 1)}"
    if len(set(shape)) == 1:
        return f"{len(shape)} × ({shape_text(shape[0])})"
    return "[" + ", ".join(shape_text(s) for s in shape) + "]"
