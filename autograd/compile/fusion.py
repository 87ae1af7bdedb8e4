"""Fusion: takes a `passes.Program` and a writer, gives the fused `Statement`s, in order.

Fusion: the tape's repeated work written as loops, the same operations in the same order.

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
2. **Statements as data** (`places`). Each statement is written as pieces of text and
   places, `d[40] += v[3] * d[12]` as a shape, `d[] += v[] * d[]`, and the indices 40, 3, 12;
   `loops` then rolls the blocks that repeat with their indices moving by fixed steps into
   loops, which run the statements in the order the straight-line code ran them.

This module takes a `passes.Program` and a writer (`places.Arrays`) and gives the `Fused`
statements, forward and backward, in the order the engine runs them.

Only the fast code is fused; the careful code, which runs on the rare call where a value is not
finite, keeps one line per operation.
"""

from typing import NamedTuple

from . import passes
from .loops import Statement, statement
from .places import Mark, Place
from .rules import RULES, write
from .statements import backward_step, forward
from .tape import Instruction


# --------------------------------------------------------------------- sums of products


def dot_statements(dot, lang, recipes=None):
    """The `Statement`s of a `Dot` in `lang` (a writer of `Arrays`): the running sum `s`
    (`lang.sum`), its terms, the result stored. Each product is written inside the sum that
    adds it, as one expression. Where the first sum is `c + m0`, the running sum starts at `c`
    and `m0` is a term like the others (the same addition); where it is `m0 + c`, it starts
    with that sum. `recipes`: a `Recipes` to write with (a new one by default)."""
    recipes = recipes or Recipes(lang)
    (m, s) = dot.head
    if s.args[1] == m.out:  # c + m0
        out = recipes.write(("start", kinds(s.args[:1])), _start, s.args[:1])
        terms = [(m, s), *dot.terms]
    else:
        out = recipes.write(("head", kinds(m.args), kinds(s.args[1:])), _head, (*m.args, s.args[1]))
        terms = dot.terms
    cache = recipes.cache
    for m, _ in terms:
        args = m.args
        key = ("term", type(args[0]) is str, type(args[1]) is str)
        recipe = cache.get(key)
        out += recipe(args) if recipe else recipes.write(key, _term, args)
    return out + recipes.write(("store",), _store, (dot.out,))


# How a Dot's lines are written, on the stand-ins of `Recipes` (slot k is `_slot(k)`).
def _start(lang, x):  # s = c
    return [lang.assign(lang.sum, lang.v(x[0]))]


def _head(lang, x):  # s = (a * b) + c
    product = Instruction(_slot("m"), "*", x[:2])
    total = Instruction(_slot("s"), "+", (product.out, x[2]))
    return [
        lang.assign(lang.sum, write(RULES["+"].forward, lang, total, _within(lang, product, None)))
    ]


def _term(lang, x):  # s = s + (a * b)
    product = Instruction(_slot("m"), "*", x[:2])
    total = Instruction(_slot("s"), "+", (_slot("p"), product.out))
    return [
        lang.assign(
            lang.sum, write(RULES["+"].forward, lang, total, _within(lang, product, _slot("p")))
        )
    ]


def _store(lang, x):  # the result, stored once
    return [lang.assign(lang.v(x[0]), lang.sum)]


def _within(lang, product, partial):
    """An operand of a Dot's sum: the product written inside it, the partial sum as `s`."""

    def name(x):
        if x == product.out:
            return lang.join("(", write(RULES["*"].forward, lang, product), ")")
        return lang.sum if x == partial else lang.v(x)

    return name


class Fused(NamedTuple):
    """What a back end writes for a fused trace: the forward and backward `Statement`s (see
    `roll`), the gradient flow, the writer, the `Dot`s."""

    forward: list
    backward: list
    flow: object
    lang: object
    dots: dict


def fused_statements(program, writer, fold=False):
    """The fast code's statements for a `passes.Program` (as `Statement`s), written by
    `writer(values, gradients)` (given the slots of `Program.places`), with every sum of
    products a `Dot`; with `fold` (C), each other result used once by a `+` or a `*` is
    written inside the expression that uses it."""
    trace, flow, ends, found = program.trace, program.flow, program.ends, program.dots
    folded = program.fused_folded if fold else set()
    lang = writer(*program.places("fused and folded" if fold else "fused"))
    recipes = Recipes(lang)
    expressions = recipes.expressions  # a folded result's (shape, places), by its name
    cache, write = recipes.cache, recipes.write  # (the loops below run once an instruction)
    lines, i, tape = [], 0, trace.tape
    while i < len(tape):
        if i in found:
            lines.extend(dot_statements(found[i], lang, recipes))
            i += 2 * (1 + len(found[i].terms))
            continue
        out, op, args = tape[i]
        i += 1
        given = (out, *args)
        if out in folded:
            key = (op, True, *map(recipes.kind, args))
            ((shape, places),) = write(key, _folded, given, op, raw=True)
            expressions[out] = ("(", *shape, ")"), places
            continue
        key = (
            op,
            False,
            *[
                ("@" if a not in expressions else expressions[a][0]) if type(a) is str else "#"
                for a in args
            ],
        )
        recipe = cache.get(key)
        lines += recipe(given) if recipe else write(key, _forward, given, op)
    lines.extend(statement(lang.guard(lang.v(name))) for name in ends)
    steps, of = [], flow.variable.get  # of(name, name): `flow.of(name)`
    for step in flow.steps:
        if type(step) is passes.Seed:
            steps += write(
                ("seed", type(step.value) is str), _seed, (of(step.name, step.name), step.value)
            )
            continue
        target, ins, expr, condition, first = step
        out, op, args = ins
        # (an instruction has one input or two: the first's kind and the last's say all)
        key = (expr, condition, first, op, type(args[0]) is str, type(args[-1]) is str)
        given = (of(out, out), of(target, target), out, *args)
        recipe = cache.get(key)
        steps += recipe(given) if recipe else write(key, _backward, given, step)
    return Fused(lines, steps, flow, lang, found)


def _forward(lang, x, op):
    return forward(Instruction(x[0], op, x[1:]), lang, lang.operand)


def _folded(lang, x, op):
    return [write(RULES[op].forward, lang, Instruction(x[0], op, x[1:]), lang.operand)]


def _seed(lang, x):
    return [lang.assign(lang.d(x[0]), lang.v(x[1]))]


def _backward(lang, x, step):
    ins = Instruction(x[2], step.ins.op, x[3:])
    return [backward_step(step._replace(ins=ins), lang, lang.d(x[0]), lang.d(x[1]))]


def kinds(args):
    """What a recipe's key says of arguments: each a name (`@`) or a number (`#`)."""
    return tuple(["@" if type(a) is str else "#" for a in args])


# --------------------------------------------------------------------- recipes
#
# A training step's tape repeats a few kinds of instruction tens of thousands of times, and
# each of them is written the same way but for its places. So each kind is written once, on
# stand-ins (`_slot(k)` for the k-th name or number it is given), by a writer that records
# what it is asked for (`_Recording`): that is its *recipe*, the shape of each line, and where
# each place of each line comes from. Every other instruction of that kind only looks its
# places up. The statements are the ones the writer itself would write, place for place.


class _Number(float):
    """A stand-in for a number, the `slot`-th thing a recipe is given."""

    slot = None


class _Name(str):
    """A stand-in for a name, the `slot`-th thing a recipe is given (a string, as names are)."""

    slot = None


def _slot(k):
    """The stand-in for the k-th name a recipe is given (`k` a number, or a letter for the
    product, the sum and the partial sum a `Dot`'s lines make)."""
    name = _Name(f"slot {k}")
    name.slot = k
    return name


class _Folded(NamedTuple):
    """A folded result in a recipe: the expression of the `slot`-th thing it is given."""

    slot: int


class _Recording:
    """A writer's statements, written on stand-ins: each name or number it is asked for is
    recorded (`calls`: (kind, slot), kind `v` a value's place, `d` a gradient's, `n` a number)
    and written as a `Mark` whose index is the number of the call; a folded result
    (`operand`) as a `_Folded` piece."""

    def __init__(self, shapes):
        self.calls, self.shapes = [], shapes  # shapes: slot -> a folded result's shape

    def _call(self, place, kind, slot):
        self.calls.append((kind, slot))
        return (Mark(place, len(self.calls) - 1),)

    def v(self, name):
        if type(name) is _Number:
            return self._call(_NUMBER, "n", name.slot)
        return self._call(_VALUE, "v", name.slot)

    def d(self, name):
        return self._call(_GRADIENT, "d", name.slot)

    def operand(self, name):
        slot = getattr(name, "slot", None)
        if type(slot) is int and slot in self.shapes:
            return (_Folded(slot),)
        return self.v(name)


_VALUE, _GRADIENT, _NUMBER = Place("@", "v"), Place("@", "d"), Place("#", "c")


class Recipes:
    """The recipes of a writer `lang` (an `Arrays`), and the folded results' expressions."""

    def __init__(self, lang):
        self.lang, self.cache, self.expressions = lang, {}, {}
        self.recording = type("Recording", (_Recording, type(lang)), {})
        self.place = {f"p{i}": i for i in range(lang.n_params)}
        self.place.update((f"x{i}", lang.n_params + i) for i in range(lang.n_inputs))
        first = lang.n_params + lang.n_inputs
        self.place.update((name, first + k) for name, k in lang.values.items())
        self.gradient = {f"p{i}": i for i in range(lang.n_params)}
        self.gradient.update((name, lang.n_params + k) for name, k in lang.gradients.items())

    def kind(self, arg):
        """A name (`@`), a number (`#`), or the shape of the expression of a folded result."""
        if type(arg) is not str:
            return "#"
        folded = self.expressions.get(arg)
        return "@" if folded is None else folded[0]

    def write(self, key, make, given, *extra, raw=False):
        """The `Statement`s that `make(lang, stand-ins, *extra)` writes for the names and
        numbers `given`, from the recipe under `key` (made now if there is none): with
        `raw`, each as (shape, places) without the `Statement`."""
        recipe = self.cache.get(key)
        if recipe is None:
            recipe = self.cache[key] = self._function(*self._recipe(make, given, extra), raw)
        return recipe(given)

    def _function(self, calls, lines, raw):
        """A recipe as a function of the names and numbers given, written for it: it looks
        each place up (a number's place is the next in `constants`, where it is appended)
        and returns the lines. (Written once for each kind of instruction, it saves the
        loop over the recipe's parts at each of the tens of thousands of instructions.)"""
        body = []
        for k, (kind, slot) in enumerate(calls):
            if kind == "n":
                body += [f"f{k} = len(constants)", f"constants.append(given[{slot}])"]
            else:
                body.append(f"f{k} = {'place' if kind == 'v' else 'gradient'}[given[{slot}]]")
        made, shapes = [], {}
        for j, (shape, parts, _) in enumerate(lines):
            shapes[f"shape{j}"] = shape
            places = "".join(
                f"f{p}, " if p >= 0 else f"*expressions[given[{~p}]][1], " for p in parts
            )
            count = sum(type(piece) is Place for piece in shape)
            shapes[f"still{j}"] = ((),) * count
            made.append(
                f"(shape{j}, ({places}))"
                if raw
                else f"new(Statement, (shape{j}, ({places}), still{j}))"
            )
        source = "def recipe(given):\n" + "".join(f"    {line}\n" for line in body)
        source += f"    return [{', '.join(made)}]\n"
        namespace = dict(
            shapes,
            place=self.place,
            gradient=self.gradient,
            constants=self.lang.constants,
            expressions=self.expressions,
            new=tuple.__new__,
            Statement=Statement,
        )
        exec(compile(source, "<a recipe of autograd.compile.fusion>", "exec"), namespace)
        return namespace["recipe"]

    def _recipe(self, make, given, extra):
        shapes = {
            k: self.expressions[x][0]
            for k, x in enumerate(given)
            if type(x) is str and x in self.expressions
        }
        writer = self.recording.__new__(self.recording)
        _Recording.__init__(writer, shapes)
        stand_ins = []
        for k, x in enumerate(given):
            if type(x) is str:
                stand_ins.append(_slot(k))
            else:
                stand_ins.append(_Number(0.0))
                stand_ins[-1].slot = k
        lines = []
        for code in make(writer, stand_ins, *extra):
            shape, parts = [], []
            for piece in code:
                if type(piece) is Mark:  # a call of the writer: its place, its call
                    shape.append(piece.place)
                    parts.append(piece.at)
                elif type(piece) is _Folded:  # a folded result: its shape, its places
                    shape.extend(shapes[piece.slot])
                    parts.append(~piece.slot)
                else:
                    shape.append(piece)
            lines.append((tuple(shape), tuple(parts), None))
        return writer.calls, lines
