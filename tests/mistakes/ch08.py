"""Chapter 08's exercises: three broken classes, and your own gradient checker."""

from . import Mistake

_MYSTERIES = "ch08.check_mysteries"
_CHECKER = "ch08.check_gradient_checker"


def _names(a, b, c):
    return f"broken_in_A = {a!r}\nbroken_in_B = {b!r}\nbroken_in_C = {c!r}"


def _checker(
    *,
    nudge="up[i] += h\n        down[i] -= h",
    slope="(f_up - f_down) / (2 * h)",
    grad="v.grad",
    tol="1e-5",
    rest="            return False\n    return True",
    down="        f_down = f(*[value_class(x) for x in down]).data\n",
):
    """The solution's checker with one piece of it written wrong."""
    return f"""def check_gradients(f, inputs, value_class, h=1e-6, tol={tol}):
    values = [value_class(x) for x in inputs]
    out = f(*values)
    out.backward()
    for i, v in enumerate(values):
        up, down = list(inputs), list(inputs)
        {nudge}
        f_up = f(*[value_class(x) for x in up]).data
{down}        numerical = {slope}
        if abs({grad} - numerical) > tol * max(1.0, abs({grad}), abs(numerical)):
{rest}"""


_FORWARD = "(f_up - out.data) / h"

MISTAKES = [
    # the mysteries: the names people give instead of __mul__, __pow__, __add__
    Mistake(
        _MYSTERIES,
        "a composed operator (subtraction)",
        _names("__sub__", "__pow__", "__add__"),
        ("no closure of its own", "`a - b` is built as `a + (-b)`"),
    ),
    Mistake(
        _MYSTERIES,
        "a composed operator (division)",
        _names("__mul__", "__truediv__", "__add__"),
        ("no closure of its own", "`a / b` is built as `a * b**-1`"),
    ),
    Mistake(
        _MYSTERIES,
        "a method that is fine",
        _names("__mul__", "__pow__", "tanh"),
        ("that method of mystery C is fine",),
    ),
    Mistake(
        _MYSTERIES,
        "A and C swapped",
        _names("__add__", "__pow__", "__mul__"),
        ("that method of mystery A is fine",),
    ),
    Mistake(
        _MYSTERIES,
        "a method that does not exist",
        _names("multiply", "__pow__", "__add__"),
        ("has no method named 'multiply'",),
    ),
    Mistake(
        _MYSTERIES,
        "only one answered",
        _names("__mul__", None, None),
        ("no answer yet", "broken_in_B"),
    ),
    # the gradient checker
    Mistake(
        _CHECKER,
        "nudges every input at once",
        _checker(nudge="up = [x + h for x in inputs]\n        down = [x - h for x in inputs]"),
        ("nudges every input at once",),
    ),
    Mistake(
        _CHECKER,
        "forward difference, tolerance too tight",
        _checker(nudge="up[i] += h", down="", slope=_FORWARD, tol="1e-10"),
        ("forward difference", "tighter than"),
    ),
    Mistake(
        _CHECKER,
        "forward difference, tolerance too loose",
        _checker(nudge="up[i] += h", down="", slope=_FORWARD, tol="0.05"),
        ("forward difference", "too loose"),
    ),
    Mistake(
        _CHECKER, "tolerance too tight", _checker(tol="1e-12"), ("tighter than float64 allows",)
    ),
    Mistake(_CHECKER, "tolerance too loose", _checker(tol="0.05"), ("tolerance is too loose",)),
    Mistake(
        _CHECKER,
        "compares to the output's gradient",
        _checker(grad="out.grad"),
        ("the output's own `grad`",),
    ),
    Mistake(
        _CHECKER,
        "compares to the first input's gradient",
        _checker(grad="values[0].grad"),
        ("the first input's gradient",),
    ),
    Mistake(
        _CHECKER,
        "missing division by 2h",
        _checker(slope="f_up - f_down"),
        ("without the division by 2h",),
    ),
    Mistake(
        _CHECKER,
        "divides by h, not 2h",
        _checker(slope="(f_up - f_down) / h"),
        ("twice too large",),
    ),
    Mistake(_CHECKER, "/ 2 * h", _checker(slope="(f_up - f_down) / 2 * h"), ("`/ 2 * h`",)),
    Mistake(
        _CHECKER,
        "returns True always",
        "def check_gradients(f, inputs, value_class, h=1e-6, tol=1e-5):\n    return True",
        ("compared nothing",),
    ),
    Mistake(
        _CHECKER,
        "never returns False",
        _checker(rest="            pass\n    return True"),
        ("it never says False",),
    ),
    Mistake(
        _CHECKER,
        "return inside the loop",
        _checker(rest="            return False\n        return True"),
        ("only ever compares the first input",),
    ),
    Mistake(
        _CHECKER,
        "missing return",
        _checker(rest="            return False"),
        ("forget to `return`",),
    ),
]
