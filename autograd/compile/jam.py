"""Unroll and jam: takes a rolled loop whose turn runs statements and loops of statements, gives
its C with several turns run side by side, each place's additions in the order they were.

In the backward pass of a layer, a loop over the neurons runs, for each neuron, a loop over the
inputs: `dw[i][j] += x[j] * dz[i]` and `dx[j] += w[i][j] * dz[i]`. One neuron at a time, each
turn of the inner loop loads `x[j]`, `dz[i]` and `dx[j]` again, and stores `dx[j]` again. So
`UNROLL` turns of the outer loop run together: their statements before the inner loop, turn
by turn; then one inner loop, whose turn `j` runs turn `i`'s body, then turn `i + 1`'s, ...;
then their statements after it, turn by turn. `dx[j]` receives the same additions in the same
order (neuron `i`'s, then `i + 1`'s), and each other place the same ones, so every number is
the same, bit for bit. Inside the inner loop, a place that it does not move and no statement
of it writes (`dz[i]`) is read once, before it; a place that several statements of its turn
add to (`dx[j]`) is kept in a variable for the turn, and stored at its end.

That is only done where it changes no number (`_safe`): no place is written by one statement
and read or written by another whose order against it changes. Each place is an affine form
in the indices, so the places an access can reach are sets, which are compared exactly where
two accesses move alike with the loops, and by their ranges otherwise.
"""

from typing import NamedTuple

from . import interleave, loops
from .places import SUM, Place

UNROLL = 4  # the turns run side by side
LARGEST = 4096  # an inner loop's turns: a longer one is left as it is


def jammed(loop, number, names, counts, indent):
    """The C lines of `loop` with `UNROLL` turns jammed (see the module's docstring), or None
    where its body is not statements and loops of statements, or that would change a number."""
    blocks = _blocks(loop)
    if blocks is None or loop.count < UNROLL or not _safe(blocks, loop.count, counts):
        return None
    k = f"i{len(names)}"
    inner, group = (*names, k), (*counts, loop.count - UNROLL + 1)
    body = []
    for block in blocks:
        if type(block) is loops.Loop:
            body += _jammed_loop(block, number, inner, group, blocks)
            continue
        for u in range(UNROLL):
            body += [loops.fill(loops.shifted(s, 0, u), inner, group, number) for s in block]
    return interleave.in_groups(loop, body, number, names, counts, indent, UNROLL)


def _jammed_loop(block, number, names, counts, blocks):
    """The lines of an inner loop of the jammed turns: the places it keeps in variables read
    before it or at the start of its turn, then its body, turn after turn."""
    j = f"i{len(names)}"
    inner, its_counts = (*names, j), (*counts, block.count)
    statements = [loops.shifted(s, 1, u) for u in range(UNROLL) for s in block.body]
    fixed, running, written = _kept(statements, block.count)
    local = {form: f"g{i}" for i, form in enumerate(fixed)}
    local.update((form, f"a{i}") for i, form in enumerate(running))
    lines = ["{"]
    lines += [f"    const double {local[f]} = {_spell(f, inner)};" for f in fixed]
    lines.append(f"    for (int {j} = 0; {j} < {block.count}; {j}++) {{")
    lines += [f"        double {local[f]} = {_spell(f, inner)};" for f in running]

    def named(array, form):  # a place kept in a variable: the variable
        return local.get(place_form(array, *form))

    lines += [
        "        " + loops.fill(s, inner, its_counts, number, named=named) for s in statements
    ]
    lines += [f"        {_spell(f, inner)} = {local[f]};" for f in running if f in written]
    return lines + ["    }", "}"]


def place_form(array, c, steps):
    """A place of an inner loop's statements as (array, constant, the inner loop's step, the
    step of the loop around it, those of the loops around that, with no zeros at the end)."""
    steps = tuple(steps) + (0, 0)
    outer = steps[2:]
    while outer and not outer[-1]:
        outer = outer[:-1]
    return array, c, steps[0], steps[1], outer


def _spell(form, names):
    """An array's place, `d[4 + i1]`, from its form (see `place_form`)."""
    array, c, t, s, outer = form
    return f"{array}[{loops.index((c, (t, s, *outer)), names)}]"


def _kept(statements, count):
    """(the places the inner loop reads and does not move, which no statement of it writes;
    the places it moves that more than one of its statements reach, which no other place of
    any of its statements meets at the same turn; the places written), in order."""
    seen, written = {}, set()
    for statement in statements:
        for place, (c, steps) in zip(loops.places_of(statement), statement.places):
            if place.kind == "@":
                form = place_form(place.array, c, steps)
                seen[form] = seen.get(form, 0) + 1
                if place.written:
                    written.add(form)
    fixed = [f for f in seen if f[2] == 0 and f not in written]
    fixed = [f for f in fixed if not any(_same_turn(f, w, count, True) for w in written)]
    running = [f for f, times in seen.items() if f[2] != 0 and times > 1]
    running = [
        f for f in running if not any(o != f and _same_turn(f, o, count, False) for o in seen)
    ]
    return fixed, running, written


def _same_turn(a, b, count, any_turns):
    """Whether places a and b (forms, `place_form`) are one place at some turn j of
    the inner loop (a's turn j, b's any turn with `any_turns`); places that move otherwise
    with the loops around are apart here (`_safe` made sure of it)."""
    if a[0] != b[0] or a[3:] != b[3:]:
        return False
    (_, c, t, _, _), (_, c2, t2, _, _) = a, b
    if any_turns:  # a does not move (t == 0): does b reach c at any turn?
        if t2 == 0:
            return c == c2
        return (c - c2) % t2 == 0 and 0 <= (c - c2) // t2 < count
    if t == t2:
        return c == c2
    return (c2 - c) % (t - t2) == 0 and 0 <= (c2 - c) // (t - t2) < count


def _blocks(loop):
    """The loop's body as blocks: each a tuple of consecutive statements, or an inner loop of
    statements; None where it holds none of the latter, or a statement that is not plain (a
    running sum, or a guard, which writes no place)."""
    blocks, run = [], []
    for item in loop.body:
        if type(item) is loops.Statement:
            run.append(item)
            continue
        if run:
            blocks.append(tuple(run))
            run = []
        if item.count > LARGEST or any(type(s) is not loops.Statement for s in item.body):
            return None
        blocks.append(item)
    if run:
        blocks.append(tuple(run))
    statements = [s for b in blocks for s in (b.body if type(b) is loops.Loop else b)]
    if not any(type(b) is loops.Loop for b in blocks) or any(map(_not_plain, statements)):
        return None
    return blocks


def _not_plain(statement):
    """A running sum's statement, or one that writes no place: a guard, which may return."""
    return SUM in statement.shape or not any(
        type(p) is Place and p.written for p in statement.shape
    )


# --------------------------------------------------------------------- what may change order


class _Access(NamedTuple):
    """A place a statement of the turn reads or writes: in `block`, of `array`, at `c + s * k
    + t * j` (k the turn, j the inner loop's turn, `count` of them) plus `outer`, the steps of
    the loops around (innermost first), where they run up to `around`."""

    block: int
    array: str
    c: int
    s: int
    t: int
    outer: tuple
    written: bool
    count: int

    @property
    def key(self):
        """Accesses of the same key move alike with the turns and the loops around."""
        return self.array, self.s, self.outer

    def places(self):
        """{place, less `s * k` and the loops around: the (u, j) that reach it}, over the
        jammed turns `k + u` and the inner loop's turns j."""
        found = {}
        for u in range(UNROLL):
            for j in range(self.count):
                found.setdefault(self.c + self.s * u + self.t * j, []).append((u, j))
        return found

    def span(self, n, around):
        """(least, greatest) place over every turn of the loop and of the inner loop, and
        over every turn of the loops around where `around` is given."""
        low, high = loops.span(self.c, (self.t, self.s), (self.count, n))
        outer = loops.span(0, self.outer, around) if around else (0, 0)
        return low + outer[0], high + outer[1]


def _accesses(blocks):
    """Every `_Access` of the statements of `blocks`."""
    found = []
    for b, block in enumerate(blocks):
        inside = type(block) is loops.Loop
        level, count = (1, block.count) if inside else (0, 1)
        for statement in block.body if inside else block:
            for place, (c, steps) in zip(loops.places_of(statement), statement.places):
                if place.kind != "@":
                    continue
                outer = tuple(steps[level + 1 :])
                while outer and not outer[-1]:
                    outer = outer[:-1]
                t = steps[0] if inside and steps else 0
                access = _Access(
                    b,
                    place.array,
                    c,
                    loops.step_at(steps, level),
                    t,
                    outer,
                    bool(place.written),
                    count,
                )
                found.append(access)
    return found


def _safe(blocks, n, counts):
    """Whether running the turns jammed gives every place the same operations in the same
    order: turn u's block q now runs before turn u' > u's block p < q, and inside an inner
    loop, turn u's j-th turn after turn u''s j'-th (j' < j)."""
    accesses = _accesses(blocks)
    around = tuple(reversed(counts))
    keyed = {}
    for a in accesses:
        keyed.setdefault(a.key, []).append(a)
    for a in accesses:  # accesses that move otherwise: their ranges of places must not meet
        for b in accesses:
            if a.array == b.array and a.key != b.key and (a.written or b.written):
                every = around if a.outer != b.outer else ()  # else they move alike with those
                (low, high), (low2, high2) = a.span(n, every), b.span(n, every)
                if not (high < low2 or high2 < low):
                    return False
    for group in keyed.values():
        places = [a.places() for a in group]
        for x, (a, at_a) in enumerate(zip(group, places)):
            for b, at_b in zip(group[x:], places[x:]):
                if (a.written or b.written) and _meet(a, at_a, b, at_b, blocks):
                    return False
    return True


def _meet(a, at_a, b, at_b, blocks):
    """Whether accesses a and b reach a place in an order that jamming changes."""
    for place, reach in at_a.items():
        other = at_b.get(place)
        if other is None:
            continue
        for first, rx, second, ry in ((a, reach, b, other), (b, other, a, reach)):
            for u, j in rx:
                for u2, j2 in ry:
                    if u >= u2:
                        continue
                    if first.block > second.block:
                        return True
                    if first.block == second.block and type(blocks[first.block]) is loops.Loop:
                        if j > j2:
                            return True
    return False
