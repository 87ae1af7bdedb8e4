"""Chapter 11's exercises: the backward lines of `*`, and a leaky ReLU with no branch.

Each entry costs a run of the rest of the chapter after its exercise (the timing cells
included, a few seconds), so the catalogue keeps one entry per kind of mistake;
tests/test_checks_ch11.py covers more wrong answers, check by check, and the
mistakes a learner can make in the compiler itself (the checkpoint's).
"""

from . import Mistake


def _mul(*lines):
    body = ", ".join(lines)
    return f"def mul_backward(out, a, b):\n    return [{body}]\n"


def _leaky(body):
    return f"def leaky(s):\n{body}\n"


MISTAKES = [
    # the backward lines of `*`: [f"d{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]
    Mistake(
        "ch11.check_mul_backward",
        "= for +=",
        _mul('f"d{a} = {b} * d{out}"', 'f"d{b} = {a} * d{out}"'),
        ("assigns with `=` instead of adding with `+=`",),
    ),
    Mistake(
        "ch11.check_mul_backward",
        "missing * d_out",
        _mul('f"d{a} += {b}"', 'f"d{b} += {a}"'),
        ("passes the local slope alone", "multiply it by `d{out}`"),
    ),
    Mistake(
        "ch11.check_mul_backward",
        "its own factor instead of the other",
        _mul('f"d{a} += {a} * d{out}"', 'f"d{b} += {b} * d{out}"'),
        ("gets the *other* factor",),
    ),
    Mistake(
        "ch11.check_mul_backward",
        "names typed instead of given",
        _mul('"da += b * dout"', '"db += a * dout"'),
        ("is no variable of the compiled code", "with an f-string"),
    ),
    Mistake(
        "ch11.check_mul_backward",
        "written to {a}, not d{a}",
        _mul('f"{a} += {b} * d{out}"', 'f"d{b} += {a} * d{out}"'),
        ("adds to `u`, the *value* of a, not to `du`", "`d{a}`"),
    ),
    Mistake(
        "ch11.check_mul_backward",
        "missing return",
        'def mul_backward(out, a, b):\n    [f"d{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]\n',
        ("gave None", "no `return`"),
    ),
    # a leaky ReLU with no branch: 0.1 * s + 0.9 * s.relu()
    Mistake(
        "ch11.check_branch_free",
        "the if kept",
        _leaky("    if s.data > 0:\n        return s\n    return 0.1 * s"),
        ("frozen at trace time", "It still branches on `.data`"),
    ),
    Mistake(
        "ch11.check_branch_free",
        "a factor computed from .data",
        _leaky("    return s * (1.0 if s.data > 0 else 0.1)"),
        ("It computes a number from `.data`", "frozen at its value"),
    ),
    Mistake(
        "ch11.check_branch_free",
        "max of two values",
        _leaky("    return max(s, 0.1 * s)"),
        ("choose in Python",),
    ),
    Mistake(
        "ch11.check_branch_free",
        "the relu part adds all of s",
        _leaky("    return s.relu() + 0.1 * s"),
        ("add up to 1.1·s",),
    ),
    Mistake(
        "ch11.check_branch_free",
        "a number from .data",
        _leaky("    return s.data if s.data > 0 else 0.1 * s.data"),
        ("not a Value", "left the graph"),
    ),
]
