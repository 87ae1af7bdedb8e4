"""Rolling: takes `Statement`s, gives `Statement`s and `Loop`s, each repeated block a loop.

Each statement is a *shape* (pieces of text and `places.Place`s: `d[] += v[] * d[]`) and the
indices of its places (12, 3, 40). Where a block of statements repeats with the same shapes
and indices that move by a fixed step each time (`v[3], v[4], v[5], ...`), the repetitions
become one loop over an index, `for k in range(16): d[12 + k] += v[3 + k] * d[40]`. Blocks
of loops repeat in turn (the neurons of a layer, the points of a batch), and become loops of
loops. A loop runs its statements in the order the straight-line code ran
them, so every number is the engine's, bit for bit. `index`, `fill`, `values` and `Numbers`
are what the writers (`python_fused`, `c`) need to spell a place inside loops.
"""

from itertools import accumulate, chain
from operator import sub
from typing import NamedTuple

from .places import SUM, Mark, Place


class Statement(NamedTuple):
    """One statement: `shape`, its pieces (text, `places.Place`s and `places.SUM`), and its
    places' indices, each an affine form `(c, steps)`: the number `c + steps[0] * k0 +
    steps[1] * k1 + ...`, where k0 is the index of the innermost loop around it (within the
    item it belongs to), k1 the next one out, and so on; kept as `constants` (each form's c)
    and `moves` (each form's steps)."""

    shape: tuple
    constants: tuple
    moves: tuple

    @property
    def signature(self):
        return self.shape

    @property
    def places(self):
        """The affine forms `(c, steps)`, in the order the shape's places come."""
        return tuple(zip(self.constants, self.moves))


class Loop(NamedTuple):
    """`body` run `count` times, its index going 0, 1, ..., count - 1. `constants` and
    `moves`: those of its body's places, in order (see `Statement`)."""

    count: int
    body: tuple
    signature: tuple
    constants: tuple
    moves: tuple


LEAST = 3  # repetitions: two are clearer written out


def statement_of(shape, places):
    """A `Statement` from its shape and its places' affine forms `(c, steps)`, in order."""
    return Statement(shape, tuple(c for c, _ in places), tuple(s for _, s in places))


_NO_STEPS = ((),) * 64


def _new_statement(shape, constants):
    """A `Statement` not inside any loop yet: its places do not move."""
    n = len(constants)
    return tuple.__new__(Statement, (shape, constants, _NO_STEPS[:n] if n <= 64 else ((),) * n))


def statement(code):
    """The `Statement` of a statement written as `places.Code` (its places `Mark`s)."""
    return _new_statement(
        tuple(p.place if type(p) is Mark else p for p in code),
        tuple(p.at for p in code if type(p) is Mark),
    )


def _stepped(item, steps, outer):
    """`item` inside one more loop: the i-th place moves by `steps[i]` with its index. The
    item is inside `outer` loops already (their steps last in each form): the new one goes
    inside those."""
    return _step(item, iter(steps), outer)


def _step(item, steps, outer):
    if type(item) is Statement:
        return Statement(
            item.shape,
            item.constants,
            tuple(s[: len(s) - outer] + (next(steps),) + s[len(s) - outer :] for s in item.moves),
        )
    return _loop(item.count, [_step(part, steps, outer) for part in item.body])


def _loop(count, body):
    body = tuple(body)
    return Loop(
        count,
        body,
        ("loop", count, tuple(b.signature for b in body)),
        tuple(chain.from_iterable(b.constants for b in body)),
        tuple(chain.from_iterable(b.moves for b in body)),
    )


def roll(lines, window=4096, candidates=4):
    """The statements `lines` (`Statement`s, or `places.Code`) as `Statement`s
    and `Loop`s: every block that repeats, with places moving by fixed steps, rolled into a
    loop; then blocks of those, until nothing more repeats. The statements run in the same
    order as `lines`."""
    items = [line if type(line) is Statement else statement(line) for line in lines]
    return _roll(items, window, candidates, 0)


def _roll(items, window, candidates, outer):
    while True:
        rolled = _roll_once(items, window, candidates, outer)
        if len(rolled) == len(items):
            return rolled
        items = rolled


def _roll_once(items, window, candidates, outer):
    """One pass of `roll` over `items`, which are inside `outer` loops already: at each item,
    the block (up to `window` items, ending before one of the next `candidates` items of the
    same signature) whose repetitions cover the most items becomes a loop."""
    n = len(items)
    signatures, numbered = _numbered_signatures(items)
    constants = [item.constants for item in items]
    # next_same[i]: the next position with the signature of position i (n where none)
    next_same, latest = [n] * n, [n] * numbered
    for i in range(n - 1, -1, -1):
        s = signatures[i]
        next_same[i], latest[s] = latest[s], i
    out, i = [], 0
    # every item's constants and moves, one after the other: a block's are one slice
    flat_constants = list(chain.from_iterable(constants))
    flat_moves = list(chain.from_iterable(item.moves for item in items))
    starts = [0, *accumulate(map(len, constants))]

    def block(at, size):
        first, last = starts[at], starts[at + size]
        return flat_constants[first:last], flat_moves[first:last]

    while i < n:
        best, j = None, i
        for _ in range(candidates):
            j = next_same[j]
            if j == n:
                break
            size = j - i
            if size > window:
                break
            if j + size > n or signatures[i:j] != signatures[j : j + size]:
                continue
            (first, how), (second, how_next) = block(i, size), block(j, size)
            if how != how_next:
                continue
            steps = tuple(map(sub, second, first))
            times, previous = 2, second
            while i + (times + 1) * size <= n:
                at = i + times * size
                if signatures[i:j] != signatures[at : at + size]:
                    break
                following, how_next = block(at, size)
                if how != how_next or tuple(map(sub, following, previous)) != steps:
                    break
                times, previous = times + 1, following
            if times >= LEAST and (best is None or times * size > best[0] * best[1]):
                best = (times, size, steps)
        if best is None:
            out.append(items[i])
            i += 1
            continue
        times, size, steps = best
        body, at = [], 0
        for k in range(i, i + size):
            body.append(_stepped(items[k], steps[at : at + len(constants[k])], outer))
            at += len(constants[k])
        inner = _roll(body, window, candidates, outer + 1) if size > 1 else body
        out.append(_loop(times, inner))
        i += times * size
    return out


def _numbered_signatures(items):
    """Each item's signature as a small number, and how many there are. (The statements of
    one recipe share one shape object, so a shape is hashed once, not at every statement.)"""
    numbered, by_id, signatures = {}, {}, []
    for item in items:
        signature = item[0] if type(item) is Statement else item.signature
        k = by_id.get(id(signature))
        if k is None:
            k = by_id[id(signature)] = numbered.setdefault(signature, len(numbered))
        signatures.append(k)
    return signatures, len(numbered)


def shifted(item, level, u):
    """A statement of its loop's turn `k + u` instead of `k`: each place moved by `u` steps of
    that loop, whose steps come `level`-th in each form (0 where a place has none there)."""
    return item._replace(
        constants=tuple(
            c + step_at(steps, level) * u for c, steps in zip(item.constants, item.moves)
        )
    )


def step_at(steps, level):
    """A place's step with the loop `level`-th around it (0 where it has none there)."""
    return steps[level] if level < len(steps) else 0


def span(c, steps, counts):
    """(the least, the greatest) of `c + steps[0] * k0 + ...` for each `kj` below `counts[j]`:
    the places an affine form reaches."""
    low = high = c
    for step, n in zip(steps, counts):
        low, high = low + min(0, step * (n - 1)), high + max(0, step * (n - 1))
    return low, high


def index(form, names):
    """A place's number as an expression in the loop indices `names` (outermost first)."""
    c, steps = form
    text = [str(c)] if c else []
    for step, name in zip(steps, reversed(names[len(names) - len(steps) :])):
        if step:
            term = name if abs(step) == 1 else f"{abs(step)}*{name}"
            sign = ("-" if step < 0 else "") if not text else (" - " if step < 0 else " + ")
            text += [sign, term]
    return "".join(text) or "0"


def fill(item, names, counts, number, running="s", named=None):
    """The text of a `Statement` with its places written in the loop indices `names` (which
    run up to `counts`): an array's place `v[3 + i0]` (or the variable `named(array, form)`
    gives for it, where it gives one), a number's by `number(form)` (see `Numbers`), the
    running sum by its name, `running`."""
    text, forms = [], iter(item.places)
    for piece in item.shape:
        if type(piece) is str:
            text.append(piece)
        elif piece is SUM:
            text.append(running)
        elif piece.kind == "@":
            form = next(forms)
            name = named(piece.array, form) if named else None
            text.append(name or f"{piece.array}[{index(form, names)}]")
        else:
            text.append(number(next(forms), names, counts))
    return "".join(text)


def places_of(item):
    """The `Place`s of a statement's shape, in order (one for each of its forms)."""
    return [piece for piece in item.shape if type(piece) is Place]


def values(form, counts, most=4096):
    """Every number a place takes, over all turns of the loops around it (which run up to
    `counts`, outermost first); None if more than `most`."""
    c, steps = form
    found = {c}
    for step, n in zip(steps, reversed(counts[len(counts) - len(steps) :])):
        if step:
            found = {v + step * k for v in found for k in range(n)}
            if len(found) > most:
                return None
    return found


class Numbers:
    """How a writer spells the place of a number (`places.Arrays.number`): `literal(x)`, the
    number itself, where it is the same at every turn of the loops around (`same`), else a
    read of the table of numbers, `table[index]`; `tabled` says whether one was."""

    def __init__(self, constants, literal, table):
        self.constants, self.literal, self.table = constants, literal, table
        self.tabled = False

    def same(self, form, counts):
        """The number's text where it is the same at every turn of the loops `counts`, else
        None."""
        places = values(form, counts)
        texts = {self.literal(self.constants[v]) for v in places} if places is not None else ()
        return texts.pop() if len(texts) == 1 else None

    def __call__(self, form, names, counts):
        same = self.same(form, counts)
        if same is not None:
            return same
        self.tabled = True
        return f"{self.table}[{index(form, names)}]"


def count_statements(items):
    """How many statements the items run (each loop's body as many times as it runs)."""
    return sum(1 if isinstance(i, Statement) else i.count * count_statements(i.body) for i in items)
