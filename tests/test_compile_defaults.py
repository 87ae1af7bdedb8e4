"""What `compile_loss` writes when it is not told: C fused always; Python fused from
`FUSE_PYTHON_FROM` instructions on (a training step), one line per operation below (a neuron,
which a chapter prints to be read); the same numbers every way; and a `fuse` that is not
True, False or None refused with a message."""

import pytest

from autograd.compile import compile_loss
from autograd.compile.front import FUSE_PYTHON_FROM
from autograd.engine import Value


def points_loss(ps, xs):
    """A weighted sum and a tanh for each point, summed: about 8 instructions a point."""
    total = 0
    for x in xs:
        total = total + (ps[0] * x[0] + ps[1] * x[1] + ps[2]).tanh()
    return total


def engine(params, inputs):
    ps = [Value(p) for p in params]
    loss = points_loss(ps, [[Value(a) for a in x] for x in inputs])
    loss.backward()
    return loss.data, [p.grad for p in ps]


PARAMS = [0.5, -0.25, 0.125]


def batch(n):
    return [[0.01 * k, 1.0 - 0.02 * k] for k in range(n)]


def smallest_batch_fused():
    """The fewest points whose tape has at least FUSE_PYTHON_FROM instructions."""
    n = 1
    while len(compile_loss(points_loss, PARAMS, batch(n), fuse=False).tape) < FUSE_PYTHON_FROM:
        n *= 2
    low, high = n // 2, n
    while high - low > 1:
        middle = (low + high) // 2
        tape = compile_loss(points_loss, PARAMS, batch(middle), fuse=False).tape
        low, high = (middle, high) if len(tape) < FUSE_PYTHON_FROM else (low, middle)
    return high


def test_python_is_fused_from_a_tape_of_fuse_python_from_instructions_on():
    n = smallest_batch_fused()
    below = compile_loss(points_loss, PARAMS, batch(n - 1))
    at = compile_loss(points_loss, PARAMS, batch(n))
    assert len(below.tape) < FUSE_PYTHON_FROM <= len(at.tape)
    assert not below.fused and "for " not in below.source
    assert at.fused and "for " in at.source
    assert at.source.count("\n") < below.source.count("\n") / 10  # far shorter
    for step, points in ((below, batch(n - 1)), (at, batch(n))):
        assert step(PARAMS, points) == engine(PARAMS, points)
        assert step(PARAMS, points) == compile_loss(
            points_loss, PARAMS, points, fuse=not step.fused
        )(PARAMS, points)


def test_asked_for_it_is_written_as_asked_whatever_the_length():
    small, large = batch(2), batch(smallest_batch_fused())
    assert compile_loss(points_loss, PARAMS, small, fuse=True).fused
    assert not compile_loss(points_loss, PARAMS, large, fuse=False).fused


@pytest.mark.parametrize("fuse", [1, "yes", 0.0])
def test_a_fuse_that_is_not_true_false_or_none_is_refused(fuse):
    with pytest.raises(TypeError, match="fuse must be True, False or None"):
        compile_loss(points_loss, PARAMS, batch(2), fuse=fuse)
