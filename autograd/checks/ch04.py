"""Chapter 4 · Non-linear activations — checkpoint and exercise checks.

What the chapter asks for: methods `tanh`, `exp`, `log`, `relu` and `sigmoid` on the Value
class, each a new node whose only input is `self` and whose `_backward` adds the local
derivative times `out.grad`:

    tanh'(x) = 1 − tanh²(x)     exp'(x) = eˣ     log'(x) = 1/x
    relu'(x) = 1 for x > 0, 0 at and below 0     sigmoid'(x) = σ(x)(1 − σ(x))

`log` of a value ≤ 0 raises ValueError; `exp` of a value too large for a float raises
OverflowError; `tanh` of a large value is ±1, not an overflow.
The class need not have `backward()` yet: the checks run `_backward` themselves, with an
upstream gradient of 2.5 and the input used a second time (`expect_gradients`), so that `=`
for `+=` and a missing `* out.grad` cannot pass, and each is named only when the numbers show it.
"""

import math

from .. import _floats
from .ch04_predictions import PredictNumbers, _Number
from .toolbox import (
    CheckFailed,
    Exercise,
    GradientFailed,
    backprop_by_hand,
    call,
    check,
    declare_checkpoint,
    diagnose,
    expect,
    expect_close,
    expect_gradients,
    fail,
    is_close,
    is_node,
    is_unwritten,
    show,
    _text,
)

__all__ = ["checkpoint", "check_tanh", "check_sigmoid", "check_tanh_slope_prediction"]

SEED = 2.5  # the upstream gradient every closure check sends back: not 1


_sigmoid = _floats.sigmoid  # the package's own, stable for every x


# name -> (the function, its derivative, the derivative in words, points to test)
ACTIVATIONS = {
    "tanh": (
        math.tanh,
        lambda x: 1.0 - math.tanh(x) ** 2,
        "1 − tanh²(x)",
        (-2.0, -0.5, 0.0, 0.5, 3.0),
    ),
    "exp": (math.exp, math.exp, "eˣ", (-2.0, 0.0, 1.5)),
    "log": (math.log, lambda x: 1.0 / x, "1/x", (0.5, 1.0, 3.0)),
    "relu": (
        lambda x: max(0.0, x),
        lambda x: 1.0 if x > 0 else 0.0,
        "1 for x > 0, 0 at and below 0",
        (-1.5, -0.2, 0.7, 2.0),
    ),
    "sigmoid": (
        _sigmoid,
        lambda x: _sigmoid(x) * (1.0 - _sigmoid(x)),
        "σ(x)(1 − σ(x))",
        (-3.0, 0.0, 2.0),
    ),
}


def _wrong_rules(name, x):
    """The wrong local derivatives learners really write for `name`, as (rule in words, its
    value at x): a gradient that matches one of them gets a message naming it."""
    if name == "tanh":
        t = math.tanh(x)
        return [
            ("1 − tanh(x), without the square", 1.0 - t),
            (
                "1 − x², which squares the input x; the local derivative of tanh squares "
                "the output t = tanh(x): 1 − tanh²(x)",
                1.0 - x * x,
            ),
            ("tanh(x) itself, the value rather than its slope", t),
            ("tanh²(x) alone; the local derivative is 1 minus that, 1 − tanh²(x)", t * t),
            ("1 + tanh²(x); the sign is wrong, the local derivative is 1 − tanh²(x)", 1.0 + t * t),
            # `1 - t**2 * out.grad` adds 1 − t²·SEED, which is SEED times this
            (
                "1 − tanh²(x)·out.grad: without brackets only t² is multiplied by the "
                "upstream gradient; write `(1 - t**2) * out.grad`",
                1.0 / SEED - t * t,
            ),
        ]
    if name == "exp":
        return [("x·eˣ⁻¹, the power rule, which is for xⁿ, not eˣ", x * math.exp(x - 1.0))]
    if name == "log":
        return [
            ("ln x itself, the value rather than its slope", math.log(x)),
            ("x, where 1/x belongs", x),
        ]
    if name == "relu":
        return [("relu(x) itself, the value rather than its slope", max(0.0, x))]
    s = _sigmoid(x)
    return [
        ("σ(x) alone: the factor (1 − σ(x)) is missing", s),
        ("1 − σ(x) alone: the factor σ(x) is missing", 1.0 - s),
        ("1 − σ²(x), which is tanh's rule, not the sigmoid's", 1.0 - s * s),
        ("x(1 − x), with the input x where σ(x) belongs", x * (1.0 - x)),
        ("−σ(x)(1 − σ(x)): the sign is wrong", -s * (1.0 - s)),
    ]


def _wrong_values(name, x):
    """Forward values learners really compute instead of `name`(x), and what each one is."""
    if name == "tanh":
        e = math.exp(2.0 * x)
        brackets = (
            "the fraction lost its brackets: written with exponentials, tanh x is "
            "(e^(2x) − 1) / (e^(2x) + 1), and `math.tanh` computes it for you"
        )
        return [
            (x, "that is x itself: t should be tanh of the number inside, `math.tanh(self.data)`"),
            (
                math.tanh(x / 2.0),
                "that is tanh(x/2): the fraction needs e^(2x) where it "
                "has eˣ; `math.tanh(self.data)` computes it for you",
            ),
            (
                _sigmoid(x),
                "that is σ(x), the sigmoid 1 / (1 + e^(−x)), not tanh: use `math.tanh(self.data)`",
            ),
            ((e - 1.0) / e + 1.0, brackets),
            (e - 1.0 / (e + 1.0), brackets),
        ]
    if name != "sigmoid":
        return []
    return [
        (
            _sigmoid(-x),
            "that is σ(−x) = 1 − σ(x): check the sign of the exponent, "
            "1 / (1 + e^(−x)), and that the top of the fraction is 1",
        ),
        (
            1.0 + math.exp(-x),
            "that is 1 + e^(−x): `1 / 1 + math.exp(-x)` divides before it "
            "adds; put the bottom of the fraction in brackets",
        ),
    ]


H = 1e-6  # step of the central difference; its error is far below the tolerance
TOL = 1e-6


def _new_node(Value, name, x):
    """`Value(x).name()`, failing with a message that says why when it is not a new node
    (None from a method without `return`, a number, a method that calls itself)."""
    v = Value(x)
    said = f"`Value({x:g}).{name}()`"

    def raised(error):
        if isinstance(error, RecursionError):
            return (
                f"{said} never finished: the method calls itself. Compute the number with "
                "`math`, and build the node with `Value(..., (self,), ...)`"
            )
        if isinstance(error, TypeError) and type(v).__name__ in _text(error):
            return (
                f"{said} raised TypeError ({_text(error)}): `math`'s functions and "
                "comparisons such as `> 0` work on plain numbers, so give them the number "
                "inside the node, `self.data`, not the Value `self`"
            )
        return None

    out = call(
        getattr(v, name),
        raised=raised,
        none=f"{said} gave None, not a Value: the method has no `return`; it must end "
        "with `return out`",
        kind=is_node,
        wrong=lambda out: (
            f"{said} gave {show(out)}, a {type(out).__name__}, not a "
            "Value: the method must build the new node `out = Value(..., "
            "(self,), ...)`, attach its `_backward`, and end with "
            "`return out`"
        ),
    )
    return v, out


_OUTPUT = {"tanh": "t"}  # the name the chapter gives an activation's output number (else s)


def _expect_one_node(v, out, name, x):
    """Fail unless `out` is one new node whose only input is `v`."""
    prev = out._prev
    call = f"`Value({x:g}).{name}()`"
    number = _OUTPUT.get(name, "s")
    try:
        inputs = tuple(prev)
    except TypeError:
        fail(f"{call}'s `_prev` should be the tuple `(self,)`, but was {show(prev)}")
    if not inputs:
        fail(
            f"{call} has no input: its `_prev` is empty, so the graph does not know it was "
            f'computed from x. Build it with `Value({number}, (self,), "{name}")`: without '
            "`(self,)`, `backward()` (chapter 5) never reaches x"
        )
    if not all(hasattr(p, "_prev") for p in inputs):
        fail(
            f"{call}'s `_prev` holds {show(inputs[0])}, not a Value: the second argument of "
            f"`Value(...)` is the tuple of inputs, `(self,)`, and the op comes third: "
            f'`Value({number}, (self,), "{name}")`'
        )
    if len(inputs) == 1 and inputs[0] is v:
        return
    if any(p is v for p in inputs):
        fail(
            f"{call}'s `_prev` should be `(self,)`, the input alone, but it holds "
            f"{len(inputs)} values"
        )
    fail(
        f"{call} was built from other operations (the last one is {show(out._op)}, and x is "
        "further down): that gives the right numbers, with several nodes. This exercise asks "
        f"for one node with its own closure, as `{'exp' if name == 'tanh' else 'tanh'}` is: "
        f'`out = Value({number}, (self,), "{name}")`'
    )


def _expect_activation(Value, name, x, *, node=True):
    """Value, node, and gradient of `Value(x).name()`: the closure is run with an upstream
    gradient of 2.5 and x used a second time, and its result compared with a central
    difference of the learner's own forward values."""
    f, slope, rule, _ = ACTIVATIONS[name]
    v, out = _new_node(Value, name, x)
    meaning = diagnose(out.data, _wrong_values(name, x), right=f(x))
    if meaning is not None:
        fail(f"`Value({x:g}).{name}().data` should be {f(x):.6g} but was {out.data:.6g}: {meaning}")
    expect_close(out.data, f(x), f"`Value({x:g}).{name}().data`")
    if node:
        _expect_one_node(v, out, name, x)
    try:
        expect_gradients(
            [v],
            out,
            [slope(x)],
            f"x.{name}()",
            names="x",
            seed=SEED,
            wrong_rules=[_wrong_rules(name, x)],
            rules=[rule],
        )
    except GradientFailed as failure:
        message = str(failure)
        if "local derivative" in message and rule not in message:
            message += f" ({name}'(x) = {rule})"
        fail(f"at x = {x:g}, {message}")
    v2 = Value(x)
    out2 = getattr(v2, name)()
    backprop_by_hand(out2, SEED)
    numeric = (getattr(Value(x + H), name)().data - getattr(Value(x - H), name)().data) / (2 * H)
    expect_close(
        v2.grad / SEED,
        numeric,
        f"the slope of {name} at x = {x:g}",
        tol=TOL,
        hint="that is the central difference of your own forward values; the "
        "backward pass and the forward pass disagree",
    )


def _activation_check(name):
    _, _, _, points = ACTIVATIONS[name]

    @check(f"{name}: values and derivatives at {', '.join(f'{x:g}' for x in points)}")
    def values_and_derivatives(Value):
        for x in points:
            _expect_activation(Value, name, x)

    return values_and_derivatives


tanh_check = _activation_check("tanh")
exp_check = _activation_check("exp")
log_check = _activation_check("log")
relu_check = _activation_check("relu")
sigmoid_check = _activation_check("sigmoid")


@check("each activation adds to its input's gradient (`+=`), so two uses give twice the slope")
def activations_accumulate(Value):
    for name, (_, slope, rule, points) in ACTIVATIONS.items():
        x = points[-1]
        v = Value(x)
        for out in (getattr(v, name)(), getattr(v, name)()):  # two nodes both made from v
            backprop_by_hand(out)
        expected, got = 2 * slope(x), v.grad
        if is_close(got, expected):
            continue
        what = (
            f"after using `v.{name}()` twice at v = {x:g} (each backpropagated from 1.0), `v.grad`"
        )
        if is_close(got, slope(x)):  # the second use wiped out the first
            why = (
                "the second use replaced what the first had left: `_backward` assigned with "
                "`=` instead of adding with `+=`"
            )
        else:
            why = (
                f"each use should add {name}'({x:g}) = {slope(x):.6g}, which is {rule}; "
                "check the local derivative in `_backward` (the check above says more)"
            )
        shown = f"{got:.6g}" if is_close(got, got) else show(got)
        fail(f"{what} should be {expected:.6g} but was {shown}: {why}")


@check("relu's derivative is 0 at exactly 0")
def relu_at_zero(Value):
    v = Value(0.0)
    out = v.relu()
    expect(out.data == 0.0, f"`Value(0.0).relu().data` should be 0.0, but was {show(out.data)}")
    backprop_by_hand(out)
    expect(
        v.grad == 0.0,
        f"relu's gradient at 0 should be 0.0 (the course's convention: 1 only above 0), but "
        f"was {show(v.grad)}: compare with `> 0`, not `>= 0`",
    )


@check("log of zero or of a negative number raises ValueError")
def log_domain(Value):
    for x in (0.0, -1.0):
        try:
            result = Value(x).log()
        except ValueError:
            continue
        except Exception as error:
            fail(
                f"`Value({x:g}).log()` should raise ValueError (log is defined only above 0), "
                f"but raised {type(error).__name__}: {_text(error)}"
            )
        fail(
            f"`Value({x:g}).log()` should raise ValueError (log is defined only above 0), "
            f"but gave {show(result)}"
        )


@check("exp of a number too large for a float raises OverflowError")
def exp_overflow(Value):
    try:
        result = Value(1000.0).exp()
    except OverflowError:
        return
    fail(
        f"`Value(1000.0).exp()` should raise OverflowError (e¹⁰⁰⁰ is far beyond the largest "
        f"float, about 1.8e308), but gave {show(result)}"
    )


@check("tanh of ±1000 is ±1.0, with no overflow")
def tanh_large(Value):
    for x in (1000.0, -1000.0):
        try:
            got = Value(x).tanh().data
        except OverflowError:
            fail(
                f"`Value({x:g}).tanh()` overflowed: written with exp(2x) it needs e²⁰⁰⁰; "
                "`math.tanh` computes the same function without overflowing"
            )
        expect_close(got, math.copysign(1.0, x), f"`Value({x:g}).tanh().data`")


CHECKPOINT = [
    tanh_check,
    exp_check,
    log_check,
    relu_check,
    sigmoid_check,
    activations_accumulate,
    relu_at_zero,
    log_domain,
    exp_overflow,
    tanh_large,
]


@declare_checkpoint(4, "Chapter 4 checkpoint: non-linear activations", CHECKPOINT)
def checkpoint(Value):
    """Chapter 4's specification, run on the learner's Value class (no `backward()` needed)."""


# --------------------------------------------------------------------- exercises


def _exercise_checks(name):
    """The two checks of an exercise that writes activation `name` as one node: the node,
    then (only once the node is right) its values and gradients at the activation's points,
    with x used twice and an upstream gradient of SEED."""
    points = ACTIVATIONS[name][3]

    @check(f"{name}: one new node, built from x alone")
    def node(Value):
        for x in points:
            v, out = _new_node(Value, name, x)
            _expect_one_node(v, out, name, x)

    @check(
        f"{name}: values and gradients at {', '.join(f'{x:g}' for x in points)}, with x "
        f"used twice and an upstream gradient of {SEED:g}"
    )
    def closure(Value):
        try:
            node(Value)
        except CheckFailed:
            fail("not checked yet: the node must be right first (see the check above)")
        for x in points:
            _expect_activation(Value, name, x, node=False)

    return node, closure


tanh_node, tanh_closure = _exercise_checks("tanh")


@check(tanh_large.check_name)
def tanh_large_once_a_node(Value):
    try:
        tanh_node(Value)
    except CheckFailed:
        fail("not checked yet: the node must be right first (see the first check)")
    tanh_large(Value)


TANH = Exercise(
    4,
    "tanh",
    [tanh_node, tanh_closure, tanh_large_once_a_node],
    what="your `tanh`",
    answer_of=lambda Value: vars(Value).get("tanh"),
    unanswered=is_unwritten,
    todo="replace `...` with t, the new node, its `_backward` and `return out`, run the "
    "cell, then this check again",
)


def check_tanh(Value):
    """Exercise: `tanh`, one node whose closure adds (1 − t²)·out.grad, t = tanh(x) the
    output; ±1000 gives ±1 without overflowing."""
    return TANH.check(Value)


TANH_SLOPE_AT_3 = 1.0 - math.tanh(3.0) ** 2  # 0.00987 to three figures

TANH_SLOPES = PredictNumbers(
    4,
    "predict tanh's slope",
    [
        _Number(
            "tanh'(0)",
            1.0,
            tol=1e-3,
            rel=0.0,
            hint="the slope of tanh is 1 − tanh²(x); what is tanh(0)?",
            explain="tanh(0) = 0, so 1 − 0² = 1: near 0, tanh is almost the identity.",
            known_wrong=[
                (0.0, 1e-3, "that is tanh(0) itself, the value; the slope is 1 − tanh²(0)."),
                (
                    0.25,
                    1e-3,
                    "that is the sigmoid's slope at 0, σ(0)(1 − σ(0)); tanh's slope "
                    "is 1 − tanh²(x).",
                ),
                (
                    0.5,
                    1e-3,
                    "that is the sigmoid's value at 0; tanh's slope is 1 − tanh²(x), "
                    "and tanh(0) = 0.",
                ),
            ],
            shown="1",
        ),
        _Number(
            "tanh'(3)",
            TANH_SLOPE_AT_3,
            tol=0.0,
            rel=0.15,
            hint="the slope of tanh is 1 − tanh²(x), and tanh(3) ≈ 0.995: square it, then take "
            "that from 1.",
            explain="tanh(3) ≈ 0.995, so 1 − 0.995² ≈ 1 − 0.990 ≈ 0.0099: far from 0, tanh is "
            "almost flat, and almost no gradient gets through it.",
            known_wrong=[
                (
                    math.tanh(3.0),
                    0.003,
                    "that is tanh(3) itself, the value; the slope is 1 − tanh²(3).",
                ),
                (math.tanh(3.0) ** 2, 0.002, "that is tanh²(3); the slope is 1 minus that."),
                (1.0 - math.tanh(3.0), 0.0008, "that is 1 − tanh(3): the square is missing."),
                (
                    0.0,
                    1e-4,
                    "tanh is nearly flat at 3, but not quite: it keeps rising, a "
                    "little. How much is 1 − 0.995²?",
                ),
                (
                    1.0,
                    1e-3,
                    "that is the slope at 0, where tanh is steepest; at 3 it has almost "
                    "flattened out.",
                ),
                (
                    -8.0,
                    1e-3,
                    "that is 1 − 3², which squares x; the slope squares tanh(x), 1 − tanh²(3).",
                ),
            ],
            shown="about 0.0099",
        ),
    ],
    what="your prediction of both slopes",
    todo="replace each `None` with the number you expect, then run this check again",
)


def check_tanh_slope_prediction(at_zero, at_three):
    """Exercise: predict tanh'(0) = 1 and tanh'(3) = 1 − tanh²(3) ≈ 0.0099 before running.

    A rough number is fine for the second (within 15%). The first wrong try of each number
    gets a hint; the second shows the answer, rounded as the question asks.
    """
    return TANH_SLOPES.check(at_zero, at_three)


sigmoid_node, sigmoid_closure = _exercise_checks("sigmoid")


SIGMOID = Exercise(
    4,
    "sigmoid",
    [sigmoid_node, sigmoid_closure],
    what="your `sigmoid`",
    answer_of=lambda Value: vars(Value).get("sigmoid"),
    unanswered=is_unwritten,
    todo="replace `...` with the new node, its `_backward` and `return out`, run the cell, "
    "then this check again",
)


def check_sigmoid(Value):
    """Exercise: `sigmoid`, σ(x) = 1/(1 + e⁻ˣ), one node with derivative σ(x)(1 − σ(x))."""
    return SIGMOID.check(Value)
