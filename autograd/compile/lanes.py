"""Lanes: takes a point's fused statements, gives its C with `LANES` points run side by side.

`compile_batch` runs one point's program for every point of the batch, with the same
parameters. One point at a time, each of its statements reads the weights again, and adds to
their gradients again; the work of one point is a chain of additions that keeps the processor
waiting. Written with lanes, every value of a point (`v[9]`) is a row of `LANES` numbers, one
for each of `LANES` points (`v[9][l]`), and each statement runs for each lane in turn:

    for (int l = 0; l < LANES; l++) v[9][l] = point_p[3] * v[4][l];

which the C compiler runs as a few vector operations: one weight read serves `LANES` points,
and their arithmetic runs side by side. Every lane runs the engine's operations on its point in
the engine's order, so each of its numbers is the engine's, bit for bit.

The parameters (`point_p`) are shared by the lanes, and so are their gradients (`point_g`),
which every point adds to: a statement that adds to a parameter's gradient adds each lane's
term in turn, lane 0 first, and the lanes of a group are points in the order `backward()`
reaches them. So a gradient receives the same additions in the same order as one point at a
time would give it, provided each point adds to it at most once, and nothing of the point's
program reads it or writes it otherwise (`check`); where that does not hold, `NoLanes` says so
and the batch is written a point at a time.
"""

from . import loops

LANES = 8  # points side by side
# The operations of a batch (its points times a point's instructions) from which it is written in
# lanes: they make a step of the wide benchmark's batch (256 points of 2-64-64-1) about a third
# faster, but its C takes the compiler about half as long again, which a small batch never
# gets back (the demo's 100 points of 2-16-16-1 gain 0.005 ms a step for 0.2 s more compiling).
WORTH = 1_000_000


class NoLanes(Exception):
    """The point's program cannot run in lanes with the engine's numbers: why, in words."""


def check(forward, backward, n_params):
    """NoLanes unless the parameters' places are only read (`v`), or only added to, at most
    once each (`d`), in the `Statement`s of the point's forward and backward passes."""
    added = set()
    for item in (*forward, *backward):
        for place, at in zip(loops.places_of(item), item.constants):
            if place.kind != "@" or at >= n_params:  # a number, or a point's own place
                continue
            if place.array == "v" and place.written:
                raise NoLanes(f"the point's program writes parameter {at}")
            if place.array == "d":
                if place.written != "+=":
                    raise NoLanes(f"the point's program reads the gradient of parameter {at}")
                if at in added:
                    raise NoLanes(f"a point adds to the gradient of parameter {at} twice")
                added.add(at)
            elif place.array != "v":
                raise NoLanes(f"the point's program uses the array {place.array!r}")


def lane_lines(items, number, n_params, names=(), counts=(), indent="    "):
    """The C lines of rolled items (`loops.roll`) in lanes, one list for each item: a loop is
    a `for` over its index, a statement a `for` over the lanes."""
    for item in items:
        yield list(_item(item, number, n_params, names, counts, indent))


def _item(item, number, n_params, names, counts, indent):
    if isinstance(item, loops.Statement):
        shared = []  # for each array place, whether it is the parameters' (the lanes share it)
        adds = False  # whether the statement adds to a parameter's gradient
        for place, form in zip(loops.places_of(item), item.places):
            if place.kind != "@":
                continue
            low, high = _span(form, counts)
            if low < n_params <= high:
                raise NoLanes("a loop reaches both parameters and a point's own values")
            shared.append(high < n_params)
            adds = adds or (high < n_params and place.array == "d")
        spelled = iter(shared)

        def named(array, form):
            if next(spelled):
                return f"{'point_p' if array == 'v' else 'point_g'}[{loops.index(form, names)}]"
            return f"{array}[{loops.index(form, names)}][l]"

        text = loops.fill(item, names, counts, number, running="s[l]", named=named)
        # Written out lane by lane, so that the compiler pairs the lanes' operations into
        # vector operations (-O2 leaves a loop of 8 turns a loop); inside a loop only, since a
        # statement run once a group is not worth the compile time.
        if names:
            yield f"{indent}#pragma GCC unroll {LANES}"
        # A parameter's gradient: only the lanes that are points of the group add, in turn.
        yield f"{indent}for (int l = 0; l < {'lanes' if adds else 'LANES'}; l++) {text}"
        return
    k = f"i{len(names)}"
    yield f"{indent}for (int {k} = 0; {k} < {item.count}; {k}++) {{"
    for part in item.body:
        yield from _item(
            part, number, n_params, (*names, k), (*counts, item.count), indent + "    "
        )
    yield indent + "}"


def _span(form, counts):
    """The least and the greatest number a place takes over the loops `counts` around it."""
    c, steps = form
    low = high = c
    for step, n in zip(steps, reversed(counts[len(counts) - len(steps) :])):
        low += min(0, step * (n - 1))
        high += max(0, step * (n - 1))
    return low, high
