"""Chapter 10's exercises: find the cycle, predict the objects, `exp` without a closure.

Each entry costs a run of the rest of the chapter (its timing cells included, about 7 s after
the `exp` exercise and 13 s after the other two), so the catalogue keeps one entry per kind of
mistake; tests/test_checks_ch10.py covers more wrong answers, check by check.
"""

import sys

from . import Mistake

# The objects round the cycle of `out = a * b` in YourValue, found the way the chapter suggests.
_FOUND = """cell = next(r for r in gc.get_referrers(out) if type(r).__name__ == "cell")
closure = next(r for r in gc.get_referrers(cell) if isinstance(r, tuple))
function = next(r for r in gc.get_referrers(closure) if callable(r))
"""

_EXP_HEAD = """@add_to_class(FlatValue)
def exp(self):
    e = math.exp(self.data)
"""


def _exp(body):
    return _EXP_HEAD + body


MISTAKES = [
    # find the cycle: out -> out._backward -> its __closure__ (a tuple) -> a cell -> out
    Mistake(
        "ch10.check_cycle_path",
        "a link missing (no closure tuple)",
        _FOUND + "path = [out, function, cell, out]",
        ("a link is missing",),
    ),
    Mistake(
        "ch10.check_cycle_path",
        "two links missing (only the cell)",
        _FOUND + "path = [out, cell, out]",
        ("two links are missing", "holds a function, which holds a tuple"),
    ),
    Mistake(
        "ch10.check_cycle_path",
        "wrong order",
        _FOUND + "path = [out, closure, function, cell, out]",
        ("the order is wrong",),
    ),
    Mistake(
        "ch10.check_cycle_path",
        "backwards, as get_referrers found it",
        _FOUND + "path = [out, cell, closure, function, out]",
        ("points the wrong way", "Reverse that order"),
    ),
    Mistake(
        "ch10.check_cycle_path",
        "the cell of an input",
        "closure = out._backward.__closure__\n"
        "cell = next(c for c in closure if c.cell_contents is a)\n"
        "path = [out, out._backward, closure, cell, out]",
        ("the cell of another variable of `__mul__`",),
    ),
    # predict the objects: 7 in both (node, _prev tuple, function, closure tuple, three cells)
    Mistake(
        "ch10.check_object_predictions",
        "one cell instead of three",
        "predictions = {YourValue: 5, SlottedValue: 5}",
        ("one cell is not enough",),
    ),
    Mistake(
        "ch10.check_object_predictions",
        "__slots__ expected to remove an object",
        "predictions = {YourValue: 7, SlottedValue: 6}",
        ("`__slots__` changes where an instance keeps its attributes",),
    ),
    # exp without a closure: FlatValue(e, "exp", self, e)
    Mistake(
        "ch10.check_flat_exp",
        "local derivative 1",
        _exp('    return FlatValue(e, "exp", self, 1.0)'),
        ("e^x, not 1",),
    ),
    Mistake(
        "ch10.check_flat_exp",
        "derivative of the wrong thing (x)",
        _exp('    return FlatValue(e, "exp", self, self.data)'),
        ("that is x, the input's data",),
    ),
    Mistake(
        "ch10.check_flat_exp",
        "power rule",
        _exp('    return FlatValue(e, "exp", self, self.data * math.exp(self.data - 1))'),
        ("the power rule",),
    ),
    Mistake(
        "ch10.check_flat_exp",
        "missing return",
        _exp('    FlatValue(e, "exp", self, e)'),
        ("gave None", "no `return`"),
    ),
    Mistake(
        "ch10.check_flat_exp",
        "input and derivative swapped",
        _exp('    return FlatValue(e, "exp", e, self)'),
        ("the wrong way round",),
    ),
    Mistake(
        "ch10.check_flat_exp",
        "op name left out",
        _exp("    return FlatValue(e, self, e)"),
        ("where the op's name goes",),
    ),
]

if sys.version_info >= (3, 11):  # on 3.10 an instance's attribute dictionary is a real object
    MISTAKES.append(
        Mistake(
            "ch10.check_object_predictions",
            "a __dict__ counted on 3.11+",
            "predictions = {YourValue: 8, SlottedValue: 7}",
            ("no attribute dictionary to count",),
        )
    )
