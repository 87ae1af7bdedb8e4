"""The fused Python writer: takes a `passes.Program`, gives the fused Python source.

The fast `loss_and_grads(p, x)`, with every sum of products a running sum and every repeated
block a loop (`fusion`, then `loops`), spelled as Python: a loop zips slices of its lists, and a short
innermost loop is written out with no `for` at all.
"""

import itertools
from typing import NamedTuple

from . import fusion, loops, places
from .python import Python, literal


class FusedPython(places.Arrays, Python):
    """How the fused Python writes names and statements: `Python`'s, as `places.Code`."""


class FusedPythonParts(NamedTuple):
    """A program's fused Python before it is put in a function: the `forward` and `backward`
    lines, the line that defines its table of numbers (`table`, or "" where no loop reads
    one), and the writer `lang`, which knows each name's place."""

    forward: list
    backward: list
    table: str
    lang: object


def fused_python_parts(program, table="c", results=True, indent="    "):
    """The `FusedPythonParts` of a `passes.Program`, on the lists `v` and `d`, indented by
    `indent`; its numbers' table is named `table`; with `results`, the backward lines end by
    writing the loss, the gradients and the auxiliary values into the list `out`."""
    trace = program.trace
    fused = fusion.fused_statements(
        program, lambda values, grads: FusedPython(trace, values, grads)
    )
    lang = fused.lang
    ends = places.results(trace, fused.flow, lang, "out", 0) if results else []
    forward_items = loops.roll(fused.forward)
    backward_items = loops.roll(fused.backward + ends)
    number = loops.Numbers(lang.constants, literal, table)
    forward = list(python_lines(forward_items, number, indent=indent))
    backward = list(python_lines(backward_items, number, indent=indent))
    numbers = ", ".join(map(literal, lang.constants)) + "," * (len(lang.constants) == 1)
    return FusedPythonParts(
        forward, backward, f"{table} = ({numbers})" if number.tabled else "", lang
    )


def fused_python_source(program):
    """The source of the fast `loss_and_grads(p, x)`, fused (see `autograd.compile.fusion`):
    the statements of `python_source`, in the same order, on lists instead of names, with
    every sum of products a running sum and every repeated block a loop. A short innermost
    loop is written out (`_written_out`): CPython spends longer on a turn of a loop than on
    the arithmetic in it, and a whole slice read or written at once costs about one turn."""
    trace = program.trace
    parts = fused_python_parts(program)
    n_out = 1 + trace.n_params + len(trace.aux)
    lines = [
        "def loss_and_grads(p, x):",
        f"    v = [*p, *x] + [0.0] * {len(parts.lang.values)}",
        f"    d = [0.0] * {trace.n_params + len(parts.lang.gradients)}",
        "    # forward: each sum of products a running sum s, each repeated block a loop",
        *parts.forward,
        "    # backward: the engine's _backward closures, in the order backward() runs them",
        f"    out = [0.0] * {n_out}",
        *parts.backward,
    ]
    n = trace.n_params
    aux = f", out[{1 + n}:]" if trace.has_aux else ""
    lines.append(f"    return out[0], out[1:{1 + n}]{aux}")
    if parts.table:  # the numbers that a loop reads from a table
        lines = [parts.table, "", "", *lines]
    return "\n".join(lines) + "\n"


def python_lines(items, number, names=(), counts=(), indent="    "):
    """The Python lines of rolled items (`loops.roll`): a loop is a `for` over its index,
    or over the numbers it reads (see `_loop`), or, innermost and short, written out with no
    `for` at all (see `_written_out`); `number` writes a number's place (`loops.Numbers`)."""
    for item in items:
        if isinstance(item, loops.Statement):
            yield indent + loops.fill(item, names, counts, number)
        else:
            yield from _loop(item, number, names, counts, indent)


def _parse(item):
    """(a statement's shape, and for each place: its kind, its list, whether written)."""
    return item.shape, [
        (place.kind, place.array if place.kind == "@" else None, bool(place.written))
        for place in loops.places_of(item)
    ]


def _statements(items, counts):
    """Every statement in `items`, with the counts of the loops around it (outermost first)."""
    for item in items:
        if isinstance(item, loops.Statement):
            yield item, counts
        else:
            yield from _statements(item.body, (*counts, item.count))


def _loop(loop, number, names, counts, indent, ahead=None):
    """A loop in Python, which runs fastest with no arithmetic on indices: each list that
    its statements read at places that move with its index (and that it does not write) is
    sliced once and zipped (`for r0, r1 in zip(v[3:19], v[40:72:2])`), a place that does not
    move is read once before the loop, and a place written that moves is a `range` zipped
    alongside. Every read sees what the statements one by one would see: a list that the loop
    writes is read by index, as before, wherever the loop could have written the place. A
    loop written out inside (`_written_out`) has the numbers it reads at every turn of this
    one unpacked once, before it (`ahead`, given to it: see `unpack_ahead`)."""
    if loop.count <= WRITTEN_OUT and all(isinstance(item, loops.Statement) for item in loop.body):
        lines = _written_out(loop, number, names, counts, indent, ahead)
        if lines is not None:
            yield from lines
            return
    n, k = loop.count, f"i{len(names)}"
    inner, around = (*names, k), (*counts, n)
    depth = f"_{len(names)}" if names else ""  # a loop inside keeps its own names
    written = _written_places(loop.body, around)
    parsed = [_parse(item) if isinstance(item, loops.Statement) else None for item in loop.body]
    before_loop, zipped, names_of = _names_in_loop(
        loop.body, parsed, written, names, counts, n, indent
    )
    by_index = any(
        parts is None
        or any(  # a place read where the loop writes it: its `w`
            form[1][0]
            and (
                kind == "#"
                or not ((array, form, writes) in names_of or (array, form, True) in names_of)
            )
            for form, (kind, array, writes) in zip(item.places, parts[1])
        )
        for item, parts in zip(loop.body, parsed)
    )
    if by_index or not zipped:
        zipped.insert(0, (k, f"range({n})"))
    unpacked, unpacking = {}, []  # (array, form) -> names unpacked before the loop; the lines

    def unpack_ahead(array, form, m, its_names):
        """The names of the m numbers that a loop of m turns inside reads at `form` (which
        moves with its index only), unpacked before this loop; None where this loop may
        write one of them."""
        if form[1][1] or not _unwritten(written, array, form, (*around, m)):
            return None
        if (array, form) not in unpacked:
            slot = len(unpacked)
            unpacked[(array, form)] = [f"q{slot}{depth}_{j}" for j in range(m)]
            unpacking.append(f"{indent}{_unpack(unpacked[(array, form)], array, form, its_names)}")
        return unpacked[(array, form)]

    body = []
    for item, parts in zip(loop.body, parsed):
        if parts is None:
            body += _loop(item, number, inner, around, indent + "    ", unpack_ahead)
            continue
        body.append(f"{indent}    {_in_loop(item, parts[1], names_of, number, inner, around)}")
    yield from before_loop
    yield from unpacking
    targets = ", ".join(name for name, _ in zipped)
    sources = zipped[0][1] if len(zipped) == 1 else f"zip({', '.join(s for _, s in zipped)})"
    yield f"{indent}for {targets} in {sources}:"
    yield from body


def _in_loop(item, holes, names_of, number, names, counts):
    """The text of a statement in a loop over the indices `names` (which run up to `counts`):
    a place read through a name of `names_of` is that name (`r0`), a place written through
    one is indexed by it (`d[w0]`), another place by its index (`v[3 + i0]`), a number by
    `number`."""
    text, forms = [], iter(zip(item.places, holes))
    for piece in item.shape:
        if type(piece) is str:
            text.append(piece)
            continue
        if piece is places.SUM:
            text.append("s")
            continue
        form, (kind, array, writes) = next(forms)
        name = names_of.get((array, form, writes))
        if kind == "#":
            text.append(number(form, names, counts))
        elif name is None:  # by index: the written place's name, if the loop writes it
            text.append(f"{array}[{names_of.get((array, form, True)) or loops.index(form, names)}]")
        elif writes:  # a place written: `d[w0]`
            text.append(f"{array}[{name}]")
        else:  # a number read: the name holds it
            text.append(name)
    return "".join(text)


def _written_places(body, around):
    """{list: every place the statements of `body` write in it, over all turns of the loops
    `around` (None: too many to list)}."""
    written = {}
    for item, its_counts in _statements(body, around):
        for form, (kind, array, writes) in zip(item.places, _parse(item)[1]):
            if writes:
                found = loops.values(form, its_counts, most=1 << 16)
                known = written.get(array, set())
                written[array] = None if found is None or known is None else known | found
    return written


def _names_in_loop(body, parsed, written, names, counts, n, indent):
    """(the lines reading the places that do not move, before the loop; the (name, range or
    slice) pairs the loop zips; {(list, form, whether written): its name}) for a loop over
    `body`, of `n` turns, inside the loops `names` (which run up to `counts`): see `_loop`."""
    depth = f"_{len(names)}" if names else ""  # a loop inside keeps its own names
    before_loop, zipped, names_of = [], [], {}
    for item, parts in zip(body, parsed):
        if parts is None:
            continue
        for form, (kind, array, writes) in zip(item.places, parts[1]):
            key = (array, form, writes)
            if kind != "@" or key in names_of:
                continue
            c, steps = form
            start, step = loops.index((c, steps[1:]), names), steps[0]
            if writes:
                if step:
                    names_of[key] = f"w{len(zipped)}{depth}"
                    stop = loops.index((c + step * n, steps[1:]), names)
                    zipped.append((names_of[key], f"range({start}, {stop}, {step})"))
                continue
            if not _unwritten(written, array, form, (*counts, n)):
                continue  # the loop may write it: read by index
            if step:
                names_of[key] = f"r{len(zipped)}{depth}"
                stop = loops.values((c + step * n, steps[1:]), counts, most=1 << 16)
                zipped.append(
                    (
                        names_of[key],
                        _slice(
                            array,
                            (c, steps[1:]),
                            names,
                            step,
                            n,
                            stop is not None and min(stop) >= 0,
                        ),
                    )
                )
            else:
                names_of[key] = f"h{len(before_loop)}{depth}"
                before_loop.append(f"{indent}{names_of[key]} = {array}[{start}]")
    return before_loop, zipped, names_of


def _unwritten(written, array, form, counts):
    """Whether a loop that writes `written` (list -> its places, None if too many to list)
    writes none of the places `form` takes in the loops `counts` around it."""
    if array not in written:
        return True
    read = loops.values(form, counts, most=1 << 16)
    return written[array] is not None and read is not None and written[array].isdisjoint(read)


def _slice(array, start, names, step, n, stops=True):
    """The `n` items of `array` from the place `start` (a form `(c, steps)` in the loops
    `names`) on, every `step`-th (also backwards: `stops` if the place after the last is
    never below 0, which a slice would read from the end)."""
    c, steps = start

    def at(amount):
        return loops.index((c + amount, steps), names)

    if step > 0 or stops:
        return f"{array}[{at(0)}:{at(step * n)}{f':{step}' if step != 1 else ''}]"
    return f"{array}[{at(step * (n - 1))}:{at(1)}{f':{-step}' if step != -1 else ''}][::-1]"


# --------------------------------------------------------------------- loops written out

WRITTEN_OUT = 64  # the most turns an innermost loop is written out for (see `_written_out`)


def _written_out(loop, number, names, counts, indent, ahead=None):
    """An innermost loop without its `for`, which runs faster: the numbers each statement reads
    at a place that moves are unpacked from one slice into names (`u0_0, u0_1, ... =
    v[3:19]`); each statement is then one slice assignment of a list written out
    (`d[40:56] = [u1_0 + u0_0 * h0, ...]`), and a running sum one line (`s = s + (u0_0 *
    u1_0) + ...`), the same operations in the same order, element by element.

    The statements run one after the other, each over all turns, instead of turn by turn, and
    each reads all its numbers before it writes any: so this is done only where that changes
    no number. Every statement writes a place that moves (no sum into one place), and no list
    place is written by one statement and touched by another (or by itself) at another turn:
    the places of two different forms (`d[40 + k]`, `d[72 - k]`) never meet, and places of the
    same form meet only at the same turn. Otherwise (and for statements that return or test:
    a guard, an `if`) None: the loop stays a loop. Numbers that are the same at every turn of
    the loop around are unpacked before it, by `ahead` (see `_loop`), where it can."""
    n = loop.count
    around = (*counts, n)
    depth = f"_{len(names)}" if names else ""
    found = {}

    def places_of(form):
        if form not in found:
            found[form] = loops.values(form, around, most=1 << 16)
        return found[form]

    body = loop.body if len(loop.body) == 1 else _sums_as_expressions(loop.body)
    if body is None:
        return None
    planned = _statements_written_out(body)
    if planned is None:
        return None
    statements, accesses = planned
    if not _apart(accesses, places_of):
        return None

    lines, held, unpacked = [], {}, {}  # (array, form) -> the name read first; -> the names
    slots = itertools.count()

    def read(array, form):
        """The names of a place's n numbers (in turn order), unpacking them if need be."""
        if not form[1][0]:  # the same place at every turn: read once, first
            if (array, form) not in held:
                held[(array, form)] = f"h{len(held)}{depth}"
                lines.insert(
                    len(held) - 1,
                    f"{indent}{held[(array, form)]} = "
                    f"{array}[{loops.index((form[0], form[1][1:]), names)}]",
                )
            return [held[(array, form)]] * n
        if (array, form) not in unpacked:
            before = ahead and ahead(array, form, n, names)
            if before:
                return before
            slot = next(slots)
            unpacked[(array, form)] = [f"u{slot}_{k}" for k in range(n)]
            lines.append(f"{indent}{_unpack(unpacked[(array, form)], array, form, names)}")
        return unpacked[(array, form)]

    for target, expr, reads in statements:
        terms = _terms(expr, reads, n, read, number, around)
        if not _simple(expr) and (target is None or target[2] == "+="):  # a right operand of +
            terms = [f"({term})" for term in terms]
        if target is None:
            lines.append(f"{indent}s = s + {' + '.join(terms)}")
            continue
        array, form, operator = target
        if operator == "+=":
            terms = [f"{old} + {term}" for old, term in zip(read(array, form), terms)]
        run, down = _run(array, form, n, names)
        lines.append(f"{indent}{run} = [{', '.join(terms[::-1] if down else terms)}]")
        for key in [
            key
            for key in unpacked
            if key[0] == array
            and (key[1] == form or not places_of(form).isdisjoint(places_of(key[1])))
        ]:
            del unpacked[key]  # written: read again where read again
    return lines


def _terms(expr, reads, n, read, number, counts):
    """The n texts of an expression written out, one for each turn: its pieces with each
    place of `reads` filled by the name that holds its number at that turn (`read(list,
    form)`: the n names), and each number the same at every turn by itself (`number.same`:
    see `loops.Numbers`)."""
    terms = [[] for _ in range(n)]
    forms = iter(reads)
    for piece in expr:
        if type(piece) is str:
            for term in terms:
                term.append(piece)
            continue
        form, (kind, array, _) = next(forms)
        if kind == "#":
            same = number.same(form, counts)
            number.tabled = number.tabled or same is None
            names_read = read("c", form) if same is None else [same] * n
        else:
            names_read = read(array, form)
        for term, name in zip(terms, names_read):
            term.append(name)
    return ["".join(term) for term in terms]


def _is_term(shape):
    """Whether a statement is a term of a running sum, `s = s + ...`."""
    return shape[:4] == (places.SUM, " = ", places.SUM, " + ")


def _statements_written_out(body):
    """(for each statement of `body`: its target (list, form, `=` or `+=`; None for a term of
    a running sum), the pieces of its expression, its reads; every access, as (list, form,
    whether written)), or None where `_written_out` cannot write the loop out."""
    statements, accesses = [], []
    for item in body:
        shape, holes = _parse(item)
        reads = list(zip(item.places, holes))
        if _is_term(shape) and len(body) == 1:
            target, expr = None, shape[4:]
        else:
            first = shape[0]
            if (
                not (
                    type(first) is loops.Place
                    and first.written
                    and reads[0][0][1][0]
                    and shape[1] == f" {first.written} "
                )
                or places.SUM in shape
                or any(w for _, _, w in holes[1:])
            ):
                return None  # not `place = ...` or `place += ...`, a place that moves
            array, form = first.array, reads[0][0]
            target, expr, reads = (array, form, first.written), shape[2:], reads[1:]
            accesses.append((array, form, True))
            if first.written == "+=":
                accesses.append((array, form, False))
        for form, (kind, array, _) in reads:
            if kind == "@":
                accesses.append((array, form, False))
        statements.append((target, expr, reads))
    return statements, accesses


def _sums_as_expressions(body):
    """The statements `body` with each running sum that starts and ends in it (`s = a`, `s = s
    + b`, ..., `v[9] = s`) one statement (`v[9] = a + b + ...`: the same additions, in the same
    order); None if `s` is read or written otherwise."""
    out, total, forms = [], None, ()
    for item in body:
        shape = item.shape
        if _is_term(shape) and total is not None:
            total, forms = (*total, " + ", *shape[4:]), forms + item.places
        elif shape[:2] == (places.SUM, " = ") and places.SUM not in shape[2:]:
            if total is not None:
                return None
            start = shape[2:]
            total = start if len(start) == 1 else ("(", *start, ")")
            forms = item.places
        elif (
            len(shape) == 3
            and shape[1:] == (" = ", places.SUM)
            and total is not None
            and type(shape[0]) is loops.Place
        ):
            out.append(loops.statement_of((shape[0], " = ", *total), item.places + forms))
            total = None
        elif places.SUM in shape:
            return None
        else:
            out.append(item)
    return out if total is None else None


def _apart(accesses, places_of):
    """Whether statements whose accesses are `accesses` ((list, form, whether written), see
    `_written_out`) may run one after the other over all turns: every place written is
    touched at another form by no statement (`places_of(form)`: the places a form takes, over
    all turns of the loops around; None if too many to list)."""
    for array, form, writes in accesses:
        if writes:
            written = places_of(form)
            for other, its_form, _ in accesses:
                if (
                    other == array
                    and its_form != form
                    and (
                        written is None
                        or places_of(its_form) is None
                        or not written.isdisjoint(places_of(its_form))
                    )
                ):
                    return False
    return True


def _simple(expr):
    """Whether the expression `expr` (pieces) may be the right operand of `+` as it is: one
    place, a product of two, or one pair of brackets around pieces that hold none."""
    if len(expr) == 1 or (len(expr) == 3 and expr[1] == " * "):
        return all(type(piece) is not str for piece in expr[::2])
    return (
        expr[0] == "("
        and expr[-1] == ")"
        and not any(type(piece) is str and ("(" in piece or ")" in piece) for piece in expr[1:-1])
    )


def _unpack(targets, array, form, names):
    """The line unpacking the numbers of a moving place `form` (one for each of `targets`, in
    turn order) from one slice of `array`."""
    run, down = _run(array, form, len(targets), names)
    return f"{', '.join(targets[::-1] if down else targets)}{',' * (len(targets) == 1)} = {run}"


def _run(array, form, n, names):
    """(the slice of `array` holding the n places of `form` in increasing order, and whether
    the places go down as the loop turns)."""
    c, steps = form
    step = steps[0]
    low = c + min(0, step * (n - 1))
    first = loops.index((low, steps[1:]), names)
    stop = loops.index((low + abs(step) * (n - 1) + 1, steps[1:]), names)
    return f"{array}[{first}:{stop}{f':{abs(step)}' if abs(step) != 1 else ''}]", step < 0
