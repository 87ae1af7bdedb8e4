"""Vector lanes: takes the statements of a jammed inner loop, gives the C of a loop that runs
`WIDTH` of its turns at once, each in a lane of GCC's vector types, or None where it may not.

A lane does what its turn did, with the same IEEE operations (`+`, `-`, `*`, `/` on vectors
are those of each lane), in the same order, so every number is the same, bit for bit; what
changes is that turn j + 1's statements run beside turn j's rather than after them. That is
only done where no place that one turn writes is one that another turn of the same vector
reads or writes (`_lanes_apart`). The lanes' places are loaded and stored as one vector where
they are side by side in memory (the lanes run up or down the loop, whichever puts more of
them side by side), else lane by lane. Where the compiler has no vector types, or does not
optimise (`VECTORS` is not defined), the plain loop that follows runs every turn.
"""

from . import loops
from .places import Place

WIDTH = 2  # turns at once: the doubles of a 16-byte vector, which every x86-64 and ARM64 has

PRELUDE = r"""
/* Vectors of doubles, with gcc and clang; not at -O0, where each would be a call (the plain
   loops are quicker there). */
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define VECTORS 1
typedef double vecd __attribute__((vector_size(SIZE)));
static inline vecd loadv(const double *p) { vecd r; __builtin_memcpy(&r, p, sizeof r); return r; }
static inline void storev(double *p, vecd r) { __builtin_memcpy(p, &r, sizeof r); }
static inline vecd splatv(double x) { return (vecd){SPLAT}; }
#endif
""".replace("SIZE", str(8 * WIDTH)).replace("SPLAT", ", ".join(["x"] * WIDTH))

_ARITHMETIC = frozenset(" +-*/().;0123456789")  # a shape's text: no calls, no tests


def vector_loop(statements, j, count, names, counts, number, local=None):
    """The lines of a loop over `j` (declared before, starting where it is) that runs the
    `statements` (shifted `loops.Statement`s, their places written `local`'s variables
    where it says so, each a form of `place_form`) `WIDTH` turns at a time, up to `count`;
    None where a statement is not plain arithmetic or the lanes would meet."""
    local = local or {}
    if count < WIDTH or not all(map(_plain, statements)):
        return None
    forms = [f for s in statements for f in _forms(s)]
    if not _lanes_apart(forms, count) or not _spans_apart(forms, (*counts, count)):
        return None
    ts = [f[2] for f, _ in forms]
    down = -1 if ts.count(-1) > ts.count(1) else 1  # the lanes' order: up, or down the loop
    inner = (*names, j)
    # j runs up to count - WIDTH: each lane's number moved by its turn stays below count
    spell = _Lanes(inner, (*counts, count - WIDTH + 1), number, local, down)
    lines = [f"for (; {j} + {WIDTH} <= {count}; {j} += {WIDTH}) {{"]
    kept = list(dict.fromkeys(f for f, _ in forms if f in local))
    lines += [f"    vecd v{local[f]} = {spell.load(f)};" for f in kept if local[f][0] == "a"]
    lines += ["    " + spell.statement(s) for s in statements]
    written = list(dict.fromkeys(f for f, w in forms if w and f in kept))
    lines += ["    " + spell.store(f, f"v{local[f]}") for f in written]
    return ["#if VECTORS", "{", *lines, "}", "}", "#endif"]


def place_form(array, c, steps):
    """A place of an inner loop's statements as (array, constant, the inner loop's step, the
    step of the loop around it, those of the loops around that, with no zeros at the end)."""
    steps = tuple(steps) + (0, 0)
    outer = steps[2:]
    while outer and not outer[-1]:
        outer = outer[:-1]
    return array, c, steps[0], steps[1], outer


def _plain(statement):
    shape = statement.shape
    if any(type(p) not in (str, Place) for p in shape):  # a running sum
        return False
    if len(shape) < 3 or type(shape[0]) is str or shape[1] not in (" += ", " = "):
        return False
    if not shape[0].written or any(type(p) is not str and p.written for p in shape[1:]):
        return False
    return all(set(p) <= _ARITHMETIC for p in shape[2:] if type(p) is str)


def _forms(statement):
    """((form, written), ...) of each array's place of a statement."""
    for place, (c, steps) in zip(loops.places_of(statement), statement.places):
        if place.kind == "@":
            yield place_form(place.array, c, steps), bool(place.written)


def _lanes_apart(forms, count):
    """Whether no place written at one turn j is read or written at another turn of the same
    vector: for WIDTH 2, at j + 1 or j - 1 (both below `count`)."""
    for x, (a, written) in enumerate(forms):
        for b, written2 in forms[x:]:
            if not (written or written2) or a[0] != b[0] or a[3:] != b[3:]:
                continue  # (places that move otherwise are apart: `_spans_apart`)
            (_, c, t, _, _), (_, c2, t2, _, _) = a, b
            for delta in range(1 - WIDTH, WIDTH):  # a at j, b at j + delta
                if delta and _meet(c, t, c2 + t2 * delta, t2, count, delta):
                    return False
    return True


def _spans_apart(forms, counts):
    """Whether places that move otherwise with the loops (their steps past the inner loop's
    differ), one of them written, are apart: their ranges over every turn of the loops (all
    but the inner loop's two, where those around move both alike) do not meet."""
    around = tuple(reversed(counts))  # the inner loop's first
    for x, (a, written) in enumerate(forms):
        for b, written2 in forms[x + 1 :]:
            if not (written or written2) or a[0] != b[0] or a[3:] == b[3:]:
                continue
            alike = a[4] == b[4]
            ends = [_span(f[1], f[2:4] if alike else (*f[2:4], *f[4]), around) for f in (a, b)]
            if not (ends[0][1] < ends[1][0] or ends[1][1] < ends[0][0]):
                return False
    return True


def _span(c, steps, counts):
    """(the least, the greatest) of `c + steps[0] * k0 + ...` for each `kj` below `counts[j]`."""
    low = high = c
    for step, n in zip(steps, counts):
        low, high = low + min(0, step * (n - 1)), high + max(0, step * (n - 1))
    return low, high


def _meet(c, t, c2, t2, count, delta):
    """Whether c + t*j == c2 + t2*j for some j with j and j + delta in [0, count)."""
    low, high = max(0, -delta), min(count, count - delta)
    if t == t2:
        return c == c2 and low < high
    if (c2 - c) % (t - t2):
        return False
    return low <= (c2 - c) // (t - t2) < high


class _Lanes:
    """How a vector loop spells places and statements: lane l is the turn j + l (`down` 1)
    or j + WIDTH - 1 - l (`down` -1)."""

    def __init__(self, names, counts, number, local, down):
        self.names, self.counts, self.number, self.local = names, counts, number, local
        self.down = down

    def _shift(self, lane):
        return lane if self.down == 1 else WIDTH - 1 - lane

    def _place(self, form, lane):
        array, c, t, s, outer = form
        index = loops.index((c + t * self._shift(lane), (t, s, *outer)), self.names)
        return f"{array}[{index}]"

    def _whole(self, form):
        """Whether the lanes' places are side by side, lane 0's first."""
        return form[2] * self.down == 1

    def operand(self, form):
        """A place's value at the lanes: its variable, where it is kept in one."""
        if form in self.local:
            name = self.local[form]
            return f"v{name}" if name[0] == "a" else name
        return self.load(form)

    def load(self, form):
        """A place's value at the lanes, read from its array."""
        if form[2] == 0:
            return self._place(form, 0)  # the same at every lane: a double, spread by C
        if self._whole(form):
            return f"loadv(&{self._place(form, 0)})"
        return "((vecd){" + ", ".join(self._place(form, u) for u in range(WIDTH)) + "})"

    def _number(self, c, steps, lane):
        moved = c + (steps[0] * self._shift(lane) if steps else 0)
        return self.number((moved, steps), self.names, self.counts)

    def store(self, form, value):
        if self._whole(form):
            return f"storev(&{self._place(form, 0)}, {value});"
        return " ".join(f"{self._place(form, u)} = {value}[{u}];" for u in range(WIDTH))

    def statement(self, statement):
        """A statement of lanes: `target op expression;`, each place a vector (or a double,
        where it does not move)."""
        pieces, forms, vector = [], iter(statement.places), False
        target = None
        for piece in statement.shape:
            if type(piece) is str:
                pieces.append(piece)
                continue
            c, steps = next(forms)
            if piece.kind != "@":
                texts = [self._number(c, steps, u) for u in range(WIDTH)]
                if len(set(texts)) == 1:
                    pieces.append(texts[0])
                else:
                    pieces.append("((vecd){" + ", ".join(texts) + "})")
                    vector = True
                continue
            form = place_form(piece.array, c, steps)
            if target is None:
                target = form
                pieces.append("")
                continue
            text = self.operand(form)
            vector = vector or text.startswith(("loadv", "((vecd)", "va"))
            pieces.append(text)
        op, expression = pieces[1].strip(), "".join(pieces[2:]).rstrip().rstrip(";")
        if not vector:
            expression = f"splatv({expression})"
        if target in self.local:
            return f"v{self.local[target]} {op} {expression};"
        value = f"({self.load(target)} + ({expression}))" if op == "+=" else expression
        return "{ vecd r = " + value + "; " + self.store(target, "r") + " }"
