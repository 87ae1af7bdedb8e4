"""Chapter 00's warm-up: the slope of the line through (1, 3) and (4, 12)."""

from . import Mistake

MISTAKES = [
    Mistake("ch01.check_warm_up_slope", "run over rise", "slope = (4 - 1) / (12 - 3)",
            ("run over rise",)),
    Mistake("ch01.check_warm_up_slope", "rise alone", "slope = 12 - 3", ("rise alone",)),
    Mistake("ch01.check_warm_up_slope", "sign", "slope = (12 - 3) / (1 - 4)",
            ("sign is off",)),
]
