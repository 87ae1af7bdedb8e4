"""Chapter 3 · Operators with local backward hooks — checkpoint and exercise checks.

What the chapter asks for: `+ - * / **` and unary `-` on the Value class, each building a new
value whose `_prev` holds the operands in order and whose `_backward` passes `out.grad` back to
them, times the local derivative, with `+=` (a value used twice collects gradient from both
uses); a plain number on either side (`a * 2`, `2 * a`, `1 - a`, `1 / a`, `2 ** a`,
`sum([a, b])`); a Value exponent (`a ** b`); a TypeError for an operand that is not a number.

The class need not have `backward()` yet: the checks run the `_backward` closures themselves,
in an order they compute (`backprop_by_hand`).

The checkpoint's checks live in `ch03_operators`, the exercises' in `ch03_exercises`; this
module lists the checkpoint and offers every check by its old name.
"""

from .toolbox import declare_checkpoint
from .ch03_operators import (  # noqa: F401  (passed on: every name keeps `ch03.x`)
    A,
    B,
    C,
    AT,
    LN2,
    LN3,
    PRIMITIVES,
    add_and_mul,
    sub_and_neg,
    truediv,
    pow_number,
    pow_value,
    number_on_the_right,
    REFLECTED,
    number_on_the_left,
    builtin_sum,
    reuse_accumulates,
    diamond,
    children_in_order,
    bad_operand,
    SEED,
)
from .ch03_exercises import (  # noqa: F401
    multiplication,
    multiplication_by_a_number,
    MUL,
    check_mul,
    DIAMOND,
    check_diamond_prediction,
    subtraction,
    SUB,
    check_sub,
    pow_against_central_difference,
    pow_node,
    POW,
    check_pow,
    hand_gradients,
    check_backprop_by_hand,
)

__all__ = [
    "checkpoint",
    "check_mul",
    "check_sub",
    "check_pow",
    "check_backprop_by_hand",
    "check_diamond_prediction",
]


CHECKPOINT = [
    add_and_mul,
    sub_and_neg,
    truediv,
    pow_number,
    pow_value,
    number_on_the_right,
    number_on_the_left,
    builtin_sum,
    reuse_accumulates,
    diamond,
    children_in_order,
    bad_operand,
]


@declare_checkpoint(3, "Chapter 3 checkpoint: operators with local backward hooks", CHECKPOINT)
def checkpoint(Value):
    """Chapter 3's specification, run on the learner's Value class (no `backward()` needed)."""
