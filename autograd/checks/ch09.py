"""Chapter 9 · Where next — exercise checks (the chapter has no checkpoint).

Three exercises, each an `Exercise` of chapter 9 (see `exercise.py`): its collapsed solution
runs only when the learner's answer is missing or fails, and a predict-first question gives a
hint on the first wrong answer and the answer only after a second one.

- `check_neuron_node_count(answer)`: the number of nodes in the graph of `Neuron(3)` (the
  package's, with its default relu) called on three plain numbers. Each input costs three
  nodes (the number wrapped into a leaf, a product, a sum), then one relu, plus the neuron's
  own four leaves (three weights and a bias): 3·3 + 1 + 4 = 14.
- `check_dual_tanh(Dual)`: a `tanh()` method on the learner's dual-number class. The class is
  built as `Dual(value, slope)` and keeps the two numbers in attributes `value` and `slope`;
  `tanh()` returns a new `Dual` whose value is tanh(value) and whose slope is
  (1 − tanh²(value)) · slope, the chain rule carried forward.
- `check_pass_counts(loss_forward, loss_backward, curve_forward, curve_backward)`: how many
  forward-mode passes and how many `backward()` calls give every derivative of a function
  with n inputs and m outputs (n and m, respectively), for the loss of MLP(2, [16, 16, 1])
  (337 inputs, one output) and for a curve of 1,000 outputs moved by one input.
"""

import math

from .toolbox import (
    Exercise,
    Prediction,
    check,
    diagnose,
    expect,
    expect_close,
    fail,
    is_close,
    is_number,
    is_unwritten,
    returned,
    show,
)

__all__ = [
    "check_neuron_node_count",
    "check_dual_tanh",
    "check_pass_counts",
    "NEURON_INPUTS",
    "MLP_PARAMETERS",
    "CURVE_OUTPUTS",
]

NEURON_INPUTS = 3
MLP_PARAMETERS = (2 * 16 + 16) + (16 * 16 + 16) + (16 * 1 + 1)  # MLP(2, [16, 16, 1]): 337
CURVE_OUTPUTS = 1000


# --------------------------------------------------------------------- counting nodes

_N = NEURON_INPUTS
_LEAVES = _N + 1  # the weights and the bias
_WRAPPED = _N  # `w * x` wraps each plain number x into a Value of its own
_OPERATIONS = 2 * _N + 1  # a product and a sum for each input, then relu

NEURON_COUNT = Prediction(
    9,
    "count one neuron",
    f"nodes in the graph of `Neuron({_N})(x)`, x three plain numbers",
    _LEAVES + _WRAPPED + _OPERATIONS,
    hint="count, for each input, what `act = act + w * x` creates (a plain number x is first "
    "wrapped into a Value of its own); then the relu at the end; then the neuron's own "
    "leaves.",
    explain="each input makes three nodes (the number wrapped into a Value, `w * x`, and "
    "`act + w * x`): 9; the relu: 10; and the neuron's own leaves, three weights and "
    "a bias: 14.",
    known_wrong=[
        (
            _WRAPPED + _OPERATIONS,
            "that leaves out the neuron's own leaves: the weights and the bias are nodes too, "
            "leaves with no `_prev`.",
        ),
        (
            _LEAVES + _OPERATIONS,
            "that leaves out the inputs: they are plain numbers, and `w * x` wraps each one into "
            "a Value, a leaf of its own.",
        ),
        (
            _LEAVES + _WRAPPED + _OPERATIONS - 1,
            "one short: did you leave out the relu at the end, or the bias?",
        ),
        (
            _OPERATIONS,
            "that counts the operations only: the leaves are nodes too (the weights, the bias, "
            "and each plain number wrapped into a Value).",
        ),
        (
            _LEAVES + 2 * _WRAPPED + _OPERATIONS,
            "that counts each input twice: a plain number is not a node, only the Value it is "
            "wrapped into is.",
        ),
    ],
    what="your node count",
    todo="replace `None` with the number of nodes you expect, leaves included, then run this "
    "check again",
)


def check_neuron_node_count(answer):
    """Exercise: the nodes in the graph of `Neuron(3)(x)` for three plain numbers x (14)."""
    return NEURON_COUNT.check(answer)


# --------------------------------------------------------------------- forward mode

POINTS = (-2.0, -0.3, 0.0, 0.5, 3.0)


def _is_dual(x):
    return hasattr(x, "value") and hasattr(x, "slope")


def _short(x):
    """A number with six significant digits; anything else as `show` writes it."""
    return f"{x:.6g}" if isinstance(x, float) else show(x)


def _tanh_of(Dual, value, slope, *, first=False):
    """`Dual(value, slope).tanh()`, failing with a plain message if it gives no Dual. Only the
    `first` check explains a missing Dual in full; the others point to it."""
    d = Dual(value, slope)
    call = f"`Dual({value:g}, {slope:g}).tanh()`"
    out = returned(
        d.tanh(),
        kind=_is_dual,
        none=(
            f"{call} gave None, not a Dual: the method has no `return`; end it with `return "
            "Dual(...)`, the new value and its slope"
        )
        if first
        else f"{call} gave None: there is no Dual to check (see the first line)",
        wrong=lambda out: (
            (
                f"{call} gave {_short(out)}, a {type(out).__name__}, not a Dual: "
                "return `Dual(value, slope)`, so that the slope travels on with the "
                "value (a plain number has lost it)"
            )
            if first
            else f"{call} gave {_short(out)}, not a Dual (see the first line)"
        ),
    )
    expect(
        out is not d,
        f"{call} returned the very Dual it was called on: build and return "
        "a new one, and leave the input unchanged (the rest of the "
        "computation may still use it)",
    )
    return d, out


def _diagnose(got, wrong, expected, what):
    """Fail with the meaning of the first `(value, meaning)` in `wrong` that `got` matches
    (and the right answer does not); else fail with a plain comparison."""
    meaning = diagnose(got, wrong, right=expected)
    if meaning is not None:
        fail(f"{what} should be {expected:.6g} but was {got:.6g}: {meaning}")
    expect_close(
        got,
        expected,
        what,
        hint="the slope of tanh is 1 − tanh², times the slope that arrives, `self.slope`",
    )


@check("`tanh()` returns a new Dual whose value is tanh of the input's value")
def dual_tanh_value(Dual):
    for x in POINTS:
        d, out = _tanh_of(Dual, x, 1.0, first=True)
        t = math.tanh(x)
        if is_close(out.value, 1 - t * t) and is_close(out.slope, t) and not is_close(t, 1 - t * t):
            fail(
                f"`Dual({x:g}, 1).tanh()` gave value {out.value:.6g} and slope {out.slope:.6g}: "
                "the two are the wrong way round; `Dual(value, slope)` takes tanh(x) first, "
                "then the slope"
            )
        expect_close(
            out.value, t, f"`Dual({x:g}, 1).tanh().value`", hint="use `math.tanh(self.value)`"
        )
        expect(
            d.value == x and d.slope == 1.0,
            f"`Dual({x:g}, 1).tanh()` changed its input to {show(d)}: build a new Dual and "
            "leave `self` as it was",
        )


@check("with slope 1, its slope is tanh'(x) = 1 − tanh²(x)")
def dual_tanh_slope(Dual):
    for x in POINTS:
        _, out = _tanh_of(Dual, x, 1.0)
        t = math.tanh(x)
        _diagnose(
            out.slope,
            [
                (1 - t, "that is 1 − tanh(x); the derivative is 1 − tanh²(x): square the tanh"),
                (1 - x * x, "that is 1 − x²: square tanh(x), not x; tanh'(x) = 1 − tanh²(x)"),
                (t, "that is tanh(x) itself, the value, not its slope; tanh'(x) = 1 − tanh²(x)"),
                (
                    1.0,
                    "the slope came through unchanged, as if tanh were x: multiply it by "
                    "tanh'(x) = 1 − tanh²(x)",
                ),
                (
                    0.0,
                    "the new Dual has no slope (`Dual(t)` alone is a constant): give it the "
                    "slope (1 − tanh²)·`self.slope`",
                ),
            ],
            1 - t * t,
            f"`Dual({x:g}, 1).tanh().slope`",
        )


@check("any other slope is multiplied by tanh'(x): the chain rule, carried forward")
def dual_tanh_chain_rule(Dual):
    for x, slope in ((0.5, 2.5), (-0.3, -4.0), (1.2, 0.0)):
        _, out = _tanh_of(Dual, x, slope)
        t = math.tanh(x)
        local = 1 - t * t
        _diagnose(
            out.slope,
            [
                (
                    local,
                    "that is tanh'(x) alone: multiply it by the slope that arrives, "
                    "`* self.slope` (forward mode's twin of `* out.grad`)",
                ),
                (local + slope, "the incoming slope was added: multiply by `self.slope` instead"),
                (
                    (1 - t) * slope,
                    "that is (1 − tanh(x))·slope; the derivative is 1 − tanh²(x): square the tanh",
                ),
                (slope, "the slope came through unchanged: multiply it by tanh'(x) = 1 − tanh²(x)"),
            ],
            local * slope,
            f"`Dual({x:g}, {slope:g}).tanh().slope`",
        )


DUAL_TANH = Exercise(
    9,
    "tanh for dual numbers",
    [dual_tanh_value, dual_tanh_slope, dual_tanh_chain_rule],
    what="your `Dual.tanh`",
    answer_of=lambda Dual: vars(Dual).get("tanh"),
    unanswered=is_unwritten,
    todo="replace `...` with the new Dual (its value and its slope) and `return` it, run the "
    "cell, then this check again",
)


def check_dual_tanh(Dual):
    """Exercise: `Dual.tanh()` (see the module docstring for the class it expects)."""
    return DUAL_TANH.check(Dual)


# --------------------------------------------------------------------- counting passes

_FORWARD_RULE = (
    "a forward-mode pass seeds one input with slope 1 and gives every output's "
    "slope with respect to that input."
)
_BACKWARD_RULE = (
    "one `backward()` starts from one output and gives its derivative with respect to every input."
)
_SWAPPED = (
    "the two modes are swapped: forward mode costs one pass per input, reverse mode "
    "one `backward()` per output."
)

# (the argument's position, its question, the answer, the rule in words, the other argument's
# position for the same function (a swapped pair), the known wrong answers: value -> meaning,
# and why the answer is what it is)
_PASS_QUESTIONS = [
    (
        0,
        f"(a) forward-mode passes for the gradient of the MLP's loss ({MLP_PARAMETERS} parameters)",
        MLP_PARAMETERS,
        _FORWARD_RULE,
        1,
        {
            1: "one forward-mode pass gives the slope with respect to the one input you seeded; "
            "the loss has many inputs.",
            2: "a forward-mode pass is not a forward and a backward pass: it carries one input's "
            "slope along with the values, and gives nothing for the other inputs.",
        },
        f"one pass per input, and the loss has {MLP_PARAMETERS} inputs, its parameters.",
    ),
    (
        1,
        "(a) `backward()` calls for the gradient of the MLP's loss",
        1,
        _BACKWARD_RULE,
        0,
        {
            MLP_PARAMETERS: "one `backward()` from the loss already gives the derivative with "
            "respect to every parameter at once."
        },
        "one output, the loss, and one `backward()` gives its derivative with respect to every "
        "input at once.",
    ),
    (
        2,
        f"(b) forward-mode passes for the slopes of all {CURVE_OUTPUTS:,} outputs of the curve",
        1,
        _FORWARD_RULE,
        3,
        {
            CURVE_OUTPUTS: "a forward-mode pass carries the slope of every value computed from t at "
            "once, outputs included."
        },
        "one input, t: a single pass seeded on t gives every output's slope.",
    ),
    (
        3,
        f"(b) `backward()` calls for the slopes of all {CURVE_OUTPUTS:,} outputs of the curve",
        CURVE_OUTPUTS,
        _BACKWARD_RULE,
        2,
        {1: "one `backward()` starts from a single output: it says nothing about the others."},
        f"one `backward()` per output, and there are {CURVE_OUTPUTS:,} of them.",
    ),
]


def _pass_check(position, question, expected, rule, partner, known_wrong, explain):
    partner_expected = next(q[2] for q in _PASS_QUESTIONS if q[0] == partner)

    @check(question)
    def right(*answers):
        answer = answers[position]
        if answer is None:
            fail("no prediction yet: replace `None` with a whole number")
        if not is_number(answer):
            fail(f"your answer should be a whole number, such as 5, but was {show(answer)}")
        if is_close(answer, expected):
            return
        said = f"{answer:g} is not it"
        if PASSES.wrong_tries >= 1:  # this is at least the second wrong try: the answer
            fail(f"{said}. The answer is {expected:,}: {explain}")
        swapped = (
            is_close(answer, partner_expected)
            and is_close(answers[partner], expected)
            and expected != partner_expected
        )
        hint = _SWAPPED if swapped else known_wrong.get(answer, rule)
        later_wrong = any(
            not is_close(answers[q[0]], q[2]) for q in _PASS_QUESTIONS if q[0] > position
        )
        if later_wrong:  # the last wrong answer says what happens next, once
            fail(f"{said}: {hint}")
        fail(
            f"{said}: {hint} Try again: after a second wrong try this check shows the answers "
            "(or expand the solution below it)."
        )

    return right


def _pass_answers(*answers):
    """The four answers as one object that stays the same object while the variables hold the
    same numbers, so that a check after the solution knows the solution's answers again."""
    key = tuple(id(a) for a in answers)
    return _ANSWERS.setdefault(key, answers)  # keeps them alive, so no id is reused


_ANSWERS = {}

PASSES = Exercise(
    9,
    "count the passes",
    [_pass_check(*q) for q in _PASS_QUESTIONS],
    what="your answer to (a) and (b)",
    answer_of=_pass_answers,
    unanswered=lambda answers: all(a is None for a in answers),
    todo="replace each `None` with the number you expect, then run this check again",
)


def check_pass_counts(loss_forward, loss_backward, curve_forward, curve_backward):
    """Exercise: passes needed for every derivative, in each mode, of two functions.

    The loss of MLP(2, [16, 16, 1]): 337 inputs (its parameters), one output. Forward mode
    gives the slopes with respect to one input per pass: 337 passes; one `backward()` gives
    the whole gradient. A curve of `CURVE_OUTPUTS` points moved by one input t: one forward
    pass gives every output's slope; `backward()` gives one output's derivative per call.
    """
    return PASSES.check(loss_forward, loss_backward, curve_forward, curve_backward)
