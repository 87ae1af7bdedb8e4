"""autograd.compile.fusion's recipes: each kind of instruction is written once, on stand-ins,
and every other instruction of its kind only looks its places up. The statements that come out
must be the ones the writer writes line by line: the same text, place for place, number for
number. Here they are compared, statement by statement, on random batched programs, in both
languages, and a recipe that mixes up two places is caught."""

import random

import pytest

from autograd.compile import c, fusion, loops, passes, places, python_fused
from autograd.compile.statements import backward, forward
from autograd.compile.tracing import creations
from autograd.compile.tape import record
from autograd.engine import Value
from test_compile_fusion import _batch

WRITERS = {"python": python_fused.FusedPython, "c": c.FusedC}


def trace_of(fn, params, inputs):
    ps = [Value(p) for p in params]
    xs = [[Value(x) for x in point] for point in inputs]
    with creations() as made:
        root = fn(ps, xs)
    return record(root, [], False, ps, [x for point in xs for x in point], made)


def readable(statement, constants):
    """A statement as text with its places filled in, each number by its value."""
    forms = iter(zip(statement.constants, statement.moves))
    out = []
    for piece in statement.shape:
        if type(piece) is str:
            out.append(piece)
        elif piece is places.SUM:
            out.append("s")
        elif piece.kind == "@":
            out.append(f"{piece.array}{piece.written}[{next(forms)[0]}]")
        else:
            out.append(repr(constants[next(forms)[0]]))
    return "".join(out)


def by_hand(trace, lang, fused):
    """The writer's own lines, one instruction at a time: the forward lines of each
    instruction outside a sum of products (`fused.dots`), the guards, and the backward pass."""
    inside = {
        ins.out for dot in fused.dots.values() for pair in (dot.head, *dot.terms) for ins in pair
    }
    lines = [line for ins in trace.tape if ins.out not in inside for line in forward(ins, lang)]
    lines += [lang.guard(lang.v(name)) for name in passes.Program(trace).ends]
    return lines, backward(fused.flow, lang)


def in_a_sum(statement):
    """Whether a statement is a line of a sum of products: `s = ...`, or `... = s`."""
    return statement.shape[0] is places.SUM or places.SUM in statement.shape[-2:]


@pytest.mark.parametrize("language", WRITERS)
def test_recipes_write_what_the_writer_writes_line_by_line(language):
    rng = random.Random(7)
    compared = 0
    for _ in range(25):
        fn, params, inputs = _batch(rng)
        try:
            trace = trace_of(fn, params, inputs)
        except (ArithmeticError, ValueError):
            continue  # the engine raises on these numbers: nothing to write
        program = passes.Program(trace)
        slots = passes.slots(trace, program.flow, set())
        # one writer for the recipes, one for the lines by hand, on the same slots
        made, hand = (WRITERS[language](trace, *slots) for _ in range(2))
        fused = fusion.fused_statements(program, lambda *_: made)
        forward_lines, backward_lines = by_hand(trace, hand, fused)
        want = [readable(loops.statement(line), hand.constants) for line in backward_lines]
        got = [readable(s, made.constants) for s in fused.backward]
        assert got == want
        compared += len(got)
        want = [readable(loops.statement(line), hand.constants) for line in forward_lines]
        got = [readable(s, made.constants) for s in fused.forward if not in_a_sum(s)]
        assert got == want
        assert any(in_a_sum(s) for s in fused.forward)  # the sums of products were there
        compared += len(got) + len(want)
    assert compared > 1000, compared  # the programs were not all refused


def test_a_recipe_that_mixes_up_two_places_is_caught(monkeypatch):
    """The comparison above sees a recipe whose places come in another order than its
    shape's: the first two places of every line with two or more swapped."""
    original = fusion.Recipes._recipe

    def swapped(self, make, given, extra):
        calls, lines = original(self, make, given, extra)
        return calls, [
            (shape, (parts[1], parts[0], *parts[2:]) if len(parts) > 1 else parts, simple)
            for shape, parts, simple in lines
        ]

    monkeypatch.setattr(fusion.Recipes, "_recipe", swapped)
    with pytest.raises(AssertionError, match="diff"):
        test_recipes_write_what_the_writer_writes_line_by_line("python")
