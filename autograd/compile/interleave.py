"""Interleaved sums: takes a rolled loop whose turns each run a sum of products, gives its C
with the sums of several turns side by side, each in a variable of its own.

A layer's neurons are a loop whose turn is a running sum, `s = b; s = s + w0 * x0; ...;
v[9] = s`, then what reads its result (relu). Each addition waits for the one before it, so
one neuron's sum keeps the processor waiting; the next neuron's sum, which does not wait for
it, could run meanwhile. So `UNROLL` turns run together: `s0`, `s1`, `s2`, `s3` each receive
exactly the additions `s` received in its turn, in the same order (the same numbers, bit for
bit), then each result is stored and the rest of its turn runs, in turn order. That is only
done where it changes no number: no place that a turn's store or the rest of its turn writes
is one that another turn's sum reads (`_apart`).
"""

from . import loops
from .places import SUM

UNROLL = 4  # the turns whose sums run side by side


def interleaved(loop, number, names, counts, indent):
    """The C lines of `loop` with `UNROLL` turns' sums side by side, or None where its body is
    not a sum of products and what follows it (see the module's docstring)."""
    parts = _parts(loop)
    if parts is None or loop.count < UNROLL or not _apart(parts, loop.count, counts):
        return None
    start, terms, store, rest = parts
    n, k = loop.count, f"i{len(names)}"
    inner = (*names, k)
    group = (*counts, n - UNROLL + 1)  # the values `k` takes at the start of a group
    sums = [f"s{u}" for u in range(UNROLL)]

    def spelled(item, level, u, its_names=inner, its_counts=group):
        return loops.fill(loops.shifted(item, level, u), its_names, its_counts, number, sums[u])

    body = [spelled(start, 0, u) for u in range(UNROLL)]
    for term in terms:
        if type(term) is loops.Statement:
            body += [spelled(term, 0, u) for u in range(UNROLL)]
            continue
        j = f"i{len(inner)}"
        body.append(f"for (int {j} = 0; {j} < {term.count}; {j}++) {{")
        body += [
            "    " + spelled(term.body[0], 1, u, (*inner, j), (*group, term.count))
            for u in range(UNROLL)
        ]
        body.append("}")
    for u in range(UNROLL):
        body += [spelled(item, 0, u) for item in (store, *rest)]
    return in_groups(
        loop, body, number, names, counts, indent, UNROLL, [f"double {', '.join(sums)};"]
    )


def in_groups(loop, body, number, names, counts, indent, unroll, declared=()):
    """The C of `loop` run `unroll` turns at a time: the lines `body` once a group (the turns
    `k` to `k + unroll - 1`), in a block that declares the index and `declared`; then the turns
    left over, one at a time, as written."""
    n, k = loop.count, f"i{len(names)}"
    lines = [f"{indent}{{", f"{indent}    int {k};", *(f"{indent}    {d}" for d in declared)]
    lines.append(f"{indent}    for ({k} = 0; {k} + {unroll} <= {n}; {k} += {unroll}) {{")
    lines += [f"{indent}        {line}" for line in body]
    lines.append(f"{indent}    }}")
    if n % unroll:  # the turns left over, one at a time, as written
        lines.append(f"{indent}    for (; {k} < {n}; {k}++) {{")
        for item in loop.body:
            lines += plain(item, number, (*names, k), (*counts, n), indent + "        ")
        lines.append(f"{indent}    }}")
    return lines + [f"{indent}}}"]


def plain(item, number, names, counts, indent):
    """The C lines of an item, each loop a `for` over its index."""
    if type(item) is loops.Statement:
        yield indent + loops.fill(item, names, counts, number)
        return
    k = f"i{len(names)}"
    yield f"{indent}for (int {k} = 0; {k} < {item.count}; {k}++) {{"
    for part in item.body:
        yield from plain(part, number, (*names, k), (*counts, item.count), indent + "    ")
    yield indent + "}"


def _is_term(item):
    """Whether an item is a term of a running sum, `s = s + ...`, or a loop of one."""
    if type(item) is loops.Loop:
        return (
            len(item.body) == 1 and type(item.body[0]) is loops.Statement and _is_term(item.body[0])
        )
    return item.shape[:4] == (SUM, " = ", SUM, " + ") and SUM not in item.shape[4:]


def _parts(loop):
    """(the sum's start, its terms, the store of its result, the rest of the turn) of a loop
    whose turn is a sum of products and then statements that do not touch the sum, or None."""
    body = loop.body
    if len(body) < 3 or type(body[0]) is not loops.Statement:
        return None
    start = body[0].shape
    if start[:2] != (SUM, " = ") or SUM in start[2:]:
        return None
    end = 1
    while end < len(body) and _is_term(body[end]):
        end += 1
    if end == 1 or end >= len(body) or type(body[end]) is not loops.Statement:
        return None
    store, rest = body[end], body[end + 1 :]
    if (
        store.shape[1:3] != (" = ", SUM)
        or SUM in store.shape[3:]
        or type(store.shape[0]) is not loops.Place
    ):
        return None
    if any(type(item) is not loops.Statement or SUM in item.shape for item in rest):
        return None
    return body[0], body[1:end], store, rest


def _accesses(item, level):
    """(array, constant, the steps of the turn's loops, the steps of the loops around) of
    every place of `item` (a statement, or a loop of one), and whether it is written."""
    statement = item if type(item) is loops.Statement else item.body[0]
    counts = () if type(item) is loops.Statement else (item.count,)
    for place, (c, steps) in zip(loops.places_of(statement), statement.places):
        if place.kind == "@":
            yield (
                place.array,
                c,
                steps[: level + 1],
                counts,
                steps[level + 1 :],
                bool(place.written),
            )


def _apart(parts, n, counts):
    """Whether no place written by a turn's store or the rest of its turn is one that the sum
    of another turn reads: each read and each write (affine in the loops' indices) spans a
    range of places, and the ranges do not meet; where both move alike with the loops around,
    at any one turn of those, else over all of them."""
    start, terms, store, rest = parts
    reads = [
        a
        for item in (start, *terms)
        for a in _accesses(item, int(item is not start and type(item) is loops.Loop))
    ]
    writes = [a for item in (store, *rest) for a in _accesses(item, 0) if a[5]]
    around = tuple(reversed(counts))  # innermost first, as the steps
    for array, c, steps, inner, outer, _ in writes:
        for other, c2, steps2, inner2, outer2, _ in reads:
            if other != array:
                continue
            ends = (loops.span(c, steps, (n,)), loops.span(c2, steps2, (*inner2, n)))
            if outer != outer2:  # they move apart with the loops around: every turn of those
                ends = (
                    (
                        ends[0][0] + loops.span(0, outer, around)[0],
                        ends[0][1] + loops.span(0, outer, around)[1],
                    ),
                    (
                        ends[1][0] + loops.span(0, outer2, around)[0],
                        ends[1][1] + loops.span(0, outer2, around)[1],
                    ),
                )
            if not (ends[0][1] < ends[1][0] or ends[1][1] < ends[0][0]):
                return False
    return True
