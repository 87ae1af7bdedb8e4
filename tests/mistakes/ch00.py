"""Chapter 00's warm-up: the slope of the line through (1, 3) and (4, 9)."""

from . import Mistake

MISTAKES = [
    Mistake(
        "ch01.check_warm_up_slope", "run over rise", "slope = (4 - 1) / (9 - 3)", ("run over rise",)
    ),
    Mistake("ch01.check_warm_up_slope", "rise alone", "slope = 9 - 3", ("rise alone",)),
    Mistake("ch01.check_warm_up_slope", "sign", "slope = (9 - 3) / (1 - 4)", ("sign is off",)),
    Mistake(
        "ch01.check_warm_up_slope",
        "names never defined (the cell raises)",
        "slope = rise / run",
        ("raised NameError", "name 'rise' is not defined"),
        raises=True,
    ),
    Mistake(
        "ch01.check_warm_up_slope",
        "y over x of one point",
        "slope = 9 / 4",
        ("y over x of one point", "does not pass through (0, 0)"),
    ),
]
