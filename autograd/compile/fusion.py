"""Fusion: the tape's repeated work written as loops, the same operations in the same order.

A neuron's weighted sum `b + w1*x1 + w2*x2 + ... + wn*xn` is 2n instructions on the tape, and
a training step holds thousands of neurons. Written one line per instruction, that is tens of
thousands of lines, which a C compiler takes many seconds to read and which no longer fits in
the processor's caches when it runs. Two moves make it small:

1. **Sums of products** (`dots`). A run of the tape `m0 = a0 * b0; s0 = c + m0; m1 = a1 * b1;
   s1 = s0 + m1; ...`, in which each product and each partial sum is used once, by the next
   sum, and by nothing else (no guard, no backward closure reads it), is one `Dot`: a running
   sum `s` kept in a local variable, `s = c + a0 * b0`, then `s = s + ak * bk` for each further
   term, then the result stored once. The same multiplications and additions, in the same
   order, so the same number, bit for bit; only the partial results are no longer stored.
2. **Runs of the same statements** (`roll`). Each statement is written with its array places
   marked, `d[@12@] += v[@3@] * d[@40@]`; its *shape* is the text without the numbers. Where
   a block of statements repeats with the same shapes and numbers that move by a fixed step
   each time (`v[3], v[4], v[5], ...`), the repetitions become one loop over an index,
   `for k in range(16): d[12 + k] += v[3 + k] * d[40]`. Blocks of loops repeat in turn (the
   neurons of a layer, the points of a batch), and become loops of loops. A loop runs its
   statements in the order the straight-line code ran them, so the gradients are accumulated
   in the engine's order, and every number is the engine's, bit for bit.

Only the fast code is fused; the careful code, which runs on the rare call where a value is not
finite, keeps one line per operation.
"""

import re
from itertools import chain, repeat
from operator import itemgetter, sub
from typing import NamedTuple

from . import passes
from .rules import RULES, write
from .statements import backward, forward, gradients
from .tape import is_name


# --------------------------------------------------------------------- sums of products


class Dot(NamedTuple):
    """A sum of products on the tape: `head` (the product `m0` and the sum `s0` that adds it
    to another operand), then `terms`, each a product `mk` and the sum `sk = s(k-1) + mk`.
    `out` is the last sum, the one result kept; `inside` are the others."""

    head: tuple
    terms: list

    @property
    def out(self):
        return (self.terms[-1] if self.terms else self.head)[1].out

    @property
    def inside(self):
        pairs = [self.head, *self.terms]
        return {m.out for m, _ in pairs} | {s.out for _, s in pairs[:-1]}

    @property
    def operands(self):
        """The names and numbers the sum reads."""
        m, s = self.head
        return [*m.args, *(a for a in s.args if a != m.out),
                *(a for m, _ in self.terms for a in m.args)]


def dots(trace, kept, least=2):
    """{the tape index of its first instruction: `Dot`} for every sum of at least `least`
    products whose products and partial sums are used once, by the next sum, and are not in
    `kept` (read by the backward pass, a guard, or a result)."""
    count = passes.users(trace)
    tape = trace.tape

    def once(name):
        return is_name(name) and count.get(name) == 1 and name not in kept

    def product(i):
        return tape[i].op == "*" and tape[i + 1].op == "+" and once(tape[i].out)

    found, i = {}, 0
    while i + 1 < len(tape):
        m, s = tape[i], tape[i + 1]
        if not (product(i) and m.out in s.args and s.args[0] != s.args[1]):
            i += 1
            continue
        terms, j = [], i + 2
        while j + 1 < len(tape) and product(j) and tape[j + 1].args == (
                (terms[-1] if terms else (m, s))[1].out, tape[j].out) and once(tape[j + 1].args[0]):
            terms.append((tape[j], tape[j + 1]))
            j += 2
        if 1 + len(terms) >= least:
            found[i] = Dot((m, s), terms)
            i = j
        else:
            i += 1
    return found


def dot_statements(dot, lang, operand=None):
    """The statements of a `Dot` in `lang`: the running sum `s` (`lang.sum`), its terms, the
    result stored. Each product is written inside the sum that adds it, as one expression.
    Where the first sum is `c + m0`, the running sum starts at `c` and `m0` is a term like
    the others (the same addition); where it is `m0 + c`, it starts with that sum."""
    operand = operand or lang.v
    (m, s), total = dot.head, lang.sum

    def within(product, partial):
        def name(x):
            if x == product.out:
                return f"({write(RULES['*'].forward, lang, product, operand)})"
            return total if x == partial else operand(x)
        return name

    if s.args[1] == m.out:  # c + m0
        lines = [lang.assign(total, operand(s.args[0]))]
        terms = [(m, s), *dot.terms]
    else:
        lines = [lang.assign(total, write(RULES["+"].forward, lang, s, within(m, None)))]
        terms = dot.terms
    for m, s in terms:
        lines.append(lang.assign(total, write(RULES["+"].forward, lang, s, within(m, s.args[0]))))
    return lines + [lang.assign(lang.v(dot.out), total)]


class Fused(NamedTuple):
    """What a back end writes for a fused trace: the forward and backward statements (with
    their array places marked, see `roll`), the gradient flow, the writer, the `Dot`s."""

    forward: list
    backward: list
    flow: object
    lang: object
    dots: dict


def fused_statements(trace, writer, fold=False):
    """The fast code's statements for `trace`, written by `writer(values, gradients)` (given
    the slots of `passes.slots`), with every sum of products a `Dot`; with `fold` (C), each
    other result used once by a `+` or a `*` is written inside the expression that uses it."""
    flow = passes.gradient_flow(trace)
    ends = passes.ends(trace)
    kept = passes.backward_reads(flow) | set(ends)
    found = dots(trace, kept)
    inside = set().union(*(d.inside for d in found.values())) if found else set()
    outs = {d.out for d in found.values()}
    operands = {a for d in found.values() for a in d.operands if is_name(a)}
    folded = passes.folded(trace, kept | inside | outs | operands) if fold else set()
    lang = writer(*passes.slots(trace, flow, folded | inside))
    expressions, lines, i = {}, [], 0

    def operand(name):
        return expressions.get(name) or lang.v(name)

    tape = trace.tape
    while i < len(tape):
        if i in found:
            lines.extend(dot_statements(found[i], lang))
            i += 2 * (1 + len(found[i].terms))
            continue
        ins = tape[i]
        if ins.out in folded:
            expressions[ins.out] = f"({write(RULES[ins.op].forward, lang, ins, operand)})"
        else:
            lines.extend(forward(ins, lang, operand))
        i += 1
    lines.extend(lang.guard(lang.v(name)) for name in ends)
    return Fused(lines, backward(flow, lang), flow, lang, found)


# --------------------------------------------------------------------- places


class Arrays:
    """What a fused writer (`c.FusedC`, `python.FusedPython`) writes for names: every value in
    one array `v` (the parameters, then the inputs, then the results kept), every gradient in
    `d` (the parameters', then the others), each place marked for `roll`; a number as a place
    of its own (see `number`); `s` is the running sum of a `Dot`. Put it first among the
    writer's bases."""

    sum = "s"

    def __init__(self, trace, values, gradients):
        self.values, self.gradients = values, gradients
        self.n_params, self.n_inputs = trace.n_params, trace.n_inputs
        self.constants = []  # the numbers written, in order

    def v(self, name):
        if not is_name(name):
            return number(self.constants, name)
        return f"v[{mark(value_place(self, name))}]"

    def d(self, name):
        return f"d[{mark(gradient_place(self, name))}]"


def value_place(lang, name):
    """The place of a name in the one array of values: parameters, inputs, then results."""
    kind, number = name[0], int(name[1:])
    if kind == "p":
        return number
    if kind == "x":
        return lang.n_params + number
    return lang.n_params + lang.n_inputs + lang.values[name]


def gradient_place(lang, name):
    """The place of a name's gradient in the one array of gradients: parameters, then results."""
    return int(name[1:]) if name[0] == "p" else lang.n_params + lang.gradients[name]


def results(trace, flow, lang, target, first):
    """The marked statements that write the loss, each gradient and each auxiliary value into
    the array `target`, from place `first` on."""
    grads = gradients(flow, lang)
    lines = [f"{target}[{mark(first)}] = {lang.v(trace.result)}"]
    lines += [f"{target}[{mark(first + 1 + i)}] = {g}" for i, g in enumerate(grads)]
    lines += [f"{target}[{mark(first + 1 + trace.n_params + i)}] = {lang.v(name)}"
              for i, name in enumerate(trace.aux)]
    return lines


# --------------------------------------------------------------------- loops


class Statement(NamedTuple):
    """One statement: `shape`, its text with each array place a `@`, and `places`, each an
    affine form `(c, steps)`: the number `c + steps[0] * k0 + steps[1] * k1 + ...`, where k0
    is the index of the innermost loop around it (within the item it belongs to), k1 the
    next one out, and so on."""

    shape: str
    places: tuple

    @property
    def signature(self):
        return self.shape


class Loop(NamedTuple):
    """`body` run `count` times, its index going 0, 1, ..., count - 1."""

    count: int
    body: tuple
    signature: tuple


MARK = re.compile(r"([@#])(\d+)[@#]")
LEAST = 3  # repetitions: two are clearer written out


def mark(index):
    """An array place as a writer writes it, for `statement` to find: `@12@`."""
    return f"@{index}@"


def number(constants, x):
    """The number x as a place, `#5#`: its place in `constants`, where it is appended. Each
    number written has a place of its own, so that the numbers of repeated blocks (a label
    for each point) move with a step like the other places; a loop over numbers that are all
    the same writes the number itself (see `constant`)."""
    constants.append(x)
    return f"#{len(constants) - 1}#"


_SPLIT = re.compile(r"([@#])(\d+)[@#]")


def statement(text):
    """The `Statement` of a line written with marked places (`v[@3@] = v[@1@] * v[@2@]`)."""
    if "#" not in text:  # array places only: a split finds them
        parts = text.split("@")
        return Statement("@".join(parts[::2]), tuple(zip(map(int, parts[1::2]), repeat(()))))
    parts = _SPLIT.split(text)
    shape = "".join(part for i, part in enumerate(parts) if i % 3 != 2)
    return Statement(shape, tuple((int(n), ()) for n in parts[2::3]))


def _flat(item):
    """(the constants of an item's places, in order; their steps), as two tuples."""
    if isinstance(item, Statement):
        return tuple(map(itemgetter(0), item.places)), tuple(map(itemgetter(1), item.places))
    parts = [_flat(part) for part in item.body]
    return (tuple(chain.from_iterable(c for c, _ in parts)),
            tuple(chain.from_iterable(s for _, s in parts)))


def _stepped(item, steps, outer):
    """`item` inside one more loop: the i-th place moves by `steps[i]` with its index. The
    item is inside `outer` loops already (their steps last in each form): the new one goes
    inside those."""
    return _step(item, iter(steps), outer)


def _step(item, steps, outer):
    if isinstance(item, Statement):
        return Statement(item.shape, tuple(
            (c, s[:len(s) - outer] + (next(steps),) + s[len(s) - outer:])
            for c, s in item.places))
    return Loop(item.count, tuple(_step(part, steps, outer) for part in item.body),
                item.signature)


def _loop(count, body):
    return Loop(count, tuple(body), ("loop", count, tuple(b.signature for b in body)))


def roll(lines, window=4096, candidates=4):
    """The statements `lines` (marked, see `mark`) as `Statement`s and `Loop`s: every block
    that repeats, with places moving by fixed steps, rolled into a loop; then blocks of those,
    until nothing more repeats. The statements run in the same order as `lines`."""
    return _roll([statement(line) for line in lines], window, candidates, 0)


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
    signatures = [item.signature for item in items]
    flat = [_flat(item) for item in items]
    constants = [c for c, _ in flat]
    moves = [m for _, m in flat]
    later = {}  # signature -> the positions where it occurs, in order
    for i, s in enumerate(signatures):
        later.setdefault(s, []).append(i)
    seen = dict.fromkeys(later, 0)  # how many of each signature's positions are behind us
    out, i, n = [], 0, len(items)

    def block(at, size):
        return (tuple(chain.from_iterable(constants[at:at + size])),
                tuple(chain.from_iterable(moves[at:at + size])))

    while i < n:
        s = signatures[i]
        positions = later[s]
        while positions[seen[s]] < i:
            seen[s] += 1
        best = None
        for j in positions[seen[s] + 1:seen[s] + 1 + candidates]:
            size = j - i
            if size > window:
                break
            if j + size > n or signatures[i:j] != signatures[j:j + size]:
                continue
            (first, how), (second, how_next) = block(i, size), block(j, size)
            if how != how_next:
                continue
            steps = tuple(map(sub, second, first))
            times, previous = 2, second
            while i + (times + 1) * size <= n:
                at = i + times * size
                if signatures[i:j] != signatures[at:at + size]:
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
            body.append(_stepped(items[k], steps[at:at + len(constants[k])], outer))
            at += len(constants[k])
        inner = _roll(body, window, candidates, outer + 1) if size > 1 else body
        out.append(_loop(times, inner))
        i += times * size
    return out


def index(form, names):
    """A place's number as an expression in the loop indices `names` (outermost first)."""
    c, steps = form
    text = str(c) if c else ""
    for step, name in zip(steps, reversed(names[len(names) - len(steps):])):
        if step:
            term = name if abs(step) == 1 else f"{abs(step)}*{name}"
            text += (" - " if step < 0 else " + " if text else "") + term
    return text if text and not text.startswith(" - ") else (text and "-" + text[3:]) or "0"


def fill(item, names, counts, number):
    """The text of a `Statement` with its places written in the loop indices `names` (which
    run up to `counts`), each number by `number(form)` (see `constant`)."""
    parts = re.split("([@#])", item.shape)
    text, forms = [parts[0]], iter(item.places)
    for kind, rest in zip(parts[1::2], parts[2::2]):
        form = next(forms)
        text.append((index(form, names) if kind == "@" else number(form, names, counts)) + rest)
    return "".join(text)


def values(form, counts, most=4096):
    """Every number a place takes, over all turns of the loops around it (which run up to
    `counts`, outermost first); None if more than `most`."""
    c, steps = form
    found = {c}
    for step, n in zip(steps, reversed(counts[len(counts) - len(steps):])):
        if step:
            found = {v + step * k for v in found for k in range(n)}
            if len(found) > most:
                return None
    return found


def constant(form, names, counts, constants, literal, table):
    """A number's place (see `number`) as code: the number itself, `literal(x)`, where it is
    the same at every turn of the loops around it, else `table[index]`."""
    places = values(form, counts)
    texts = {literal(constants[v]) for v in places} if places is not None else ()
    return texts.pop() if len(texts) == 1 else f"{table}[{index(form, names)}]"


def count_statements(items):
    """How many statements the items run (each loop's body as many times as it runs)."""
    return sum(1 if isinstance(i, Statement) else i.count * count_statements(i.body)
               for i in items)
