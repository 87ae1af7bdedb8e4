"""The compiled loss reads its inputs the same way however they nest: the quick way it takes
for the usual shapes (a list of numbers, a list of points) gives the numbers and the shape the
general way gives, for every nesting, including tuples and their subclasses."""

from collections import namedtuple

from hypothesis import given
from hypothesis import strategies as st

from autograd.compile import compile_loss
from autograd.compile.inputs import flatten

Point = namedtuple("Point", "x y")


def flatten_slowly(obj):
    """The general way, one item at a time: (numbers in order, shape)."""
    if isinstance(obj, (list, tuple)):
        parts = [flatten_slowly(item) for item in obj]
        return [x for numbers, _ in parts for x in numbers], tuple(shape for _, shape in parts)
    return [obj], None


leaves = st.one_of(st.floats(allow_nan=False), st.integers(-5, 5), st.booleans())
nestings = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.tuples(inner, inner).map(lambda pair: Point(*pair)),
    ),
    max_leaves=20,
)


@given(nestings)
def test_every_nesting_flattens_as_item_by_item(obj):
    assert flatten(obj) == flatten_slowly(obj)


def test_the_usual_shapes_and_their_neighbours_flatten_as_item_by_item():
    cases = [
        [],
        [1.0, 2.0],
        [[1.0, 2.0], [3.0, 4.0]],
        [(1.0, 2.0), [3.0]],
        [[], []],
        [Point(1.0, 2.0), Point(3.0, 4.0)],
        [[1.0, [2.0]], [3.0]],
        [[Point(1.0, 2.0)]],
        ([1.0], (2.0,)),
        [1.0, [2.0, 3.0]],
        4.0,
    ]
    for obj in cases:
        assert flatten(obj) == flatten_slowly(obj), obj


def test_a_point_shaped_otherwise_than_at_the_trace_is_refused():
    step = compile_loss(lambda ps, xs: ps[0] * xs[0][0] + xs[1][1], [2.0], [[1.0, 2.0], [3.0, 4.0]])
    assert step([2.0], [[1.0, 2.0], [3.0, 4.0]])[0] == 6.0
    assert step([2.0], [Point(1.0, 2.0), (3.0, 4.0)])[0] == 6.0  # the same shape, other types
    for wrong in ([[1.0, 2.0], [3.0]], [[1.0, 2.0, 3.0], [4.0]], [1.0, 2.0, 3.0, 4.0]):
        try:
            step([2.0], wrong)
        except ValueError as e:
            assert "shaped" in str(e), e
        else:
            raise AssertionError(f"{wrong} was accepted")
