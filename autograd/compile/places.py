"""Statements as data: take a writer and the tape's names, give `Code` whose places are data.

The fused code keeps every value in one array `v` and every gradient in one array `d` (see
`Arrays`), so that the statements of repeated work differ only in the indices of their places,
which `loops` then rolls into loops. A statement such as `d[40] += v[3] * d[12]` is written as
the pieces `(Mark(d, 40, "+="), " += ", Mark(v, 3), " * ", Mark(d, 12))`: its *shape*, the
pieces with each mark's index left out, says what the statement does, and its indices where.
The writers (`python_fused`, `c`) spell a shape with the indices of its places only at the end.
"""

import string
from typing import NamedTuple

from .statements import gradients
from .tape import is_name


class Place(NamedTuple):
    """A place of a statement's shape: `kind` "@" an element of the array `array` (`v`, `d`,
    `out`), "#" a number of the program (its index in the table of numbers); `written` "="
    where the statement assigns it, "+=" where it adds to it, "" where it only reads it."""

    kind: str
    array: str
    written: str = ""


class Mark(NamedTuple):
    """A `Place` while a statement is being written, with its index `at`."""

    place: Place
    at: object


class _RunningSum:
    """The running sum `s` of a sum of products (`fusion.dot_statements`), a piece of its own."""

    def __repr__(self):
        return "SUM"


SUM = _RunningSum()
VALUE, GRADIENT, NUMBER = Place("@", "v"), Place("@", "d"), Place("#", "c")


def join(*parts):
    """The `Code` of `parts` in order: each a string, a `Mark`, `SUM`, or a `Code`."""
    out = []
    for part in parts:
        if type(part) is tuple:
            out.extend(part)
        elif part != "":
            out.append(part)
    return tuple(out)


def spell(form, written=None):
    """A writer's statement `form` (a format string, `"{} = {}"`) as a function of `Code`s
    that gives `Code`; with `written` ("=" or "+="), its first argument is the place the
    statement writes."""
    parsed, auto = [], 0
    for literal, field, _, _ in string.Formatter().parse(form):
        if field is None:
            parsed.append((literal, None))
            continue
        if field == "":
            field, auto = str(auto), auto + 1
        parsed.append((literal, int(field)))

    def spelled(*args):
        pieces = []
        for literal, field in parsed:
            if literal:
                pieces.append(literal)
            if field is not None:
                arg = args[field]
                if written and field == 0:
                    arg = _written(arg, written)
                pieces.extend(arg if type(arg) is tuple else (arg,))
        return tuple(pieces)

    return spelled


def _written(code, how):
    """The `Code` of a place a statement writes: its mark says so."""
    if type(code) is tuple and len(code) == 1:
        code = code[0]
    if type(code) is Mark:
        return (Mark(code.place._replace(written=how), code.at),)
    return code


# The statements of the writers (`python.Python`, `c.C`) that write a place, and how.
_WRITING = {"assign": "=", "add": "+=", "relu": "=", "add_if": "+="}
_STATEMENTS = ("assign", "add", "guard", "divisor_guard", "select", "relu", "add_if")


class Arrays:
    """What a fused writer (`c.FusedC`, `python_fused.FusedPython`) writes: `Code`, with every
    value a place of one array `v` (the parameters, then the inputs, then the results kept),
    every gradient a place of `d` (the parameters', then the others), and every number a place
    of its own (see `number`); `sum` is the running sum of a `Dot`. Put it first among the
    writer's bases: its statements are the language's (`"{} = {}"`), spelled as `Code`."""

    sum = (SUM,)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        mro = cls.__mro__
        language = mro[mro.index(Arrays) + 1]  # the writer's language: `Python`, `C`
        for name in _STATEMENTS:
            form = getattr(language, name).__self__  # its format string: `"{} = {}"`
            setattr(cls, name, staticmethod(spell(form, _WRITING.get(name))))

    def __init__(self, trace, values, gradients):
        self.values, self.gradients = values, gradients
        self.n_params, self.n_inputs = trace.n_params, trace.n_inputs
        self.constants = []  # the numbers written, in order

    join = staticmethod(join)

    def v(self, name):
        if not is_name(name):
            return (self.number(name),)
        return (Mark(VALUE, value_place(self, name)),)

    def d(self, name):
        return (Mark(GRADIENT, gradient_place(self, name)),)

    def number(self, x):
        """The number x as a place: its index in `constants`, where it is appended. Each
        number written has a place of its own, so that the numbers of repeated blocks (a
        label for each point) move with a step like the other places; a loop over numbers
        that are all the same writes the number itself (see `loops.Numbers`)."""
        self.constants.append(x)
        return Mark(NUMBER, len(self.constants) - 1)


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
    """The statements (`Code`) that write the loss, each gradient and each auxiliary value
    into the array `target`, from place `first` on."""
    place = Place("@", target)
    values = [lang.v(trace.result), *gradients(flow, lang), *map(lang.v, trace.aux)]
    return [
        lang.assign((Mark(place, first + i),), value if type(value) is tuple else value)
        for i, value in enumerate(values)
    ]
