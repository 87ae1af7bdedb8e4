"""Chapter 13's checks, their tools for arrays: two compared in words, seeded ones made, and a
tensor's closure driven alone to read what it added (see `ch13`).
"""

import numpy as np

from .toolbox import call, expect, fail, show


TOL = 1e-9


def _same(got, expected):
    """Is `got` an array of `expected`'s shape and numbers (to TOL)?"""
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    return got.shape == np.shape(expected) and np.allclose(got, expected, rtol=TOL, atol=TOL)


def _first_difference(got, expected):
    """` (the first element that differs: [1, 2] is 0.31 where it should be 1.45)`, so that
    the learner need not compare two arrays column by column; empty when there is none to
    name (a different shape, or not an array)."""
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return ""
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return f" (its shape is {_shape(got.shape)}, where it should be {_shape(expected.shape)})"
    wrong = np.argwhere(~np.isclose(got, expected, rtol=TOL, atol=TOL))
    if not len(wrong):
        return ""
    at = tuple(int(k) for k in wrong[0])
    return (
        f" (the first element that differs: [{', '.join(map(str, at))}] is {got[at]:.6g} "
        f"where it should be {expected[at]:.6g}; {len(wrong)} of {got.size} differ)"
    )


def _shape(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _array(shape, seed):
    """A seeded array of `shape` whose numbers all differ and are not symmetric."""
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(-2.0, 2.0, shape), 2) + 0.01 * np.arange(
        int(np.prod(shape))
    ).reshape(shape)


# --------------------------------------------------------------------- driving a closure

_NO_UNBROADCAST = (
    "Forgetting to unbroadcast: {name} was broadcast from {small} to {big}, so its gradient "
    "must be summed back to {small} with `unbroadcast(..., {name}.shape)` before it is added"
)


def _leaf(Tensor, array, name):
    t = call(
        Tensor,
        array.copy(),
        raised=lambda e: f"`Tensor(array)` raised {type(e).__name__}: {e}",
        none="`Tensor(...)` gave None",
    )
    expect(
        hasattr(t, "data") and hasattr(t, "grad"),
        f"a Tensor needs `.data` and `.grad`, but `Tensor(...)` gave {show(t)}",
    )
    t.label = name
    return t


def _run_closure(out, upstream, leaves, what, *, product=False):
    """Seed `out.grad` with `upstream`, give each leaf a gradient it already holds (from
    another use), run `out._backward()`, and return {name: what it added}. A NumPy error about
    shapes is turned into the words that name the bug."""
    held = {}
    for name, leaf in leaves.items():
        held[name] = _array(leaf.data.shape, 40 + len(held))
        leaf.grad = held[name].copy()
    out.grad = np.array(upstream, dtype=float)
    try:
        out._backward()
    except ValueError as error:
        text = str(error)
        if not product and ("broadcast" in text or "operand" in text):
            for name, leaf in leaves.items():
                if leaf.data.shape != out.data.shape:
                    fail(
                        _NO_UNBROADCAST.format(
                            name=name, small=_shape(leaf.data.shape), big=_shape(out.data.shape)
                        )
                        + f". Seen in {what}: the backward pass raised ValueError ({text})"
                    )
        if product:
            fail(
                "One of the backward pass's products does not fit: a product that leaves out "
                "a transpose, or takes the factors in the wrong order, fits only square "
                "matrices; dA = dC @ B.T has A's shape, and dB = A.T @ dC has B's. Seen in "
                f"{what}: the backward pass raised ValueError ({text})"
            )
        raise
    added = {}
    for name, leaf in leaves.items():
        grad = np.asarray(leaf.grad, dtype=float)
        if grad.shape != leaf.data.shape:
            hint = (
                _NO_UNBROADCAST.format(
                    name=name, small=_shape(leaf.data.shape), big=_shape(out.data.shape)
                )
                if leaf.data.shape != out.data.shape and not product
                else "A gradient always has its tensor's shape"
            )
            fail(
                f"{hint}. Seen in {what}: `{name}.grad` came out with shape "
                f"{_shape(grad.shape)}, but {name} has shape {_shape(leaf.data.shape)}"
            )
        added[name] = grad - held[name]
    return added, held


def _expect_added(name, added, held, expected, what, mistakes):
    """`added` (what the closure added to `name`'s grad) should be `expected`; otherwise name
    the mistake from `mistakes`, [(the array that mistake adds, its words)]."""
    if _same(added, expected):
        return
    said = (
        f"Seen in {what}, with an upstream gradient that is not all ones and a gradient "
        f"{name} already held from another use: the closure should add {show(expected)} "
        f"to `{name}.grad` but added {show(added)}{_first_difference(added, expected)}"
    )

    def say(words):
        fail(f"{words[0].upper()}{words[1:]}. {said}")

    if _same(added + held, expected):  # the grad came out as `expected` alone
        say(
            f"it lost the gradient {name} already had from its other use: the closure "
            "assigned with `=` instead of adding with `+=`, which breaks a tensor used twice"
        )
    for wrong, words in mistakes:
        if wrong is not None and _same(added, wrong) and not _same(wrong, expected):
            say(words)
        if wrong is not None and _same(added + held, wrong) and not _same(wrong, expected):
            say(f"{words}; and it assigned with `=` instead of adding with `+=`")
    say(f"check the line that adds to `{name}.grad`")


def _method(name):
    return lambda Tensor: vars(Tensor).get(name)
