"""Chapter 12 · Gradients of gradients — checkpoint and exercise checks.

What the chapter asks for: `my_grad(output, inputs)`, a small `autograd.grad` for `+`, `*` and
`tanh` that always builds its gradients as Values (`create_graph=True`). It walks `output`'s
graph in reverse topological order with a dict `grads` from `id(node)` to d(output)/d(node),
a Value; each operation passes back its local slope times `g`, the gradient that arrived from
above, built from the graph's own nodes (the slope of `t = tanh(a)` is `1 - t*t`, with `t` the
node itself), and adds it to what its input already holds. It returns one Value per input, in
order, and leaves every `.grad` alone. Because the gradients are Values on the same graph,
`my_grad` can be applied to them again: second derivatives.

The checkpoint compares it with the package's `autograd.grad`, the witness, on a value used
twice under a factor that is not 1, on second derivatives and on random expressions. Where the
numbers are wrong, it runs the chapter's `my_grad` with each classic mistake planted (`=` for
`+=`, no `* g`, a slope computed from `.data`) and names the one whose numbers it reproduces.

Exercise checks, each an `Exercise` of chapter 12 (see `exercise.py`):

- `check_second_derivative_prediction(answer)`: f(x) = x³ − 2x at x = 1.5, f''(x) = 6x = 9.
- `check_hvp(hvp)`: `hvp(f, xs, v)` gives the Hessian of `f` at the numbers `xs` times the
  vector `v`, as numbers, without the Hessian: compared with central differences of the
  gradient on functions whose Hessian has off-diagonal entries, with a `v` that is not all ones.
- `check_my_grad(my_grad)`: the checkpoint's checks, on the learner's `my_grad`.
"""

import random

from ..engine import Value
from ..graph import topological_order
from ..higher_order import grad
from .toolbox import (
    Exercise,
    Prediction,
    call,
    check,
    declare_checkpoint,
    diagnose,
    expect,
    fail,
    is_close,
    is_number,
    is_unwritten,
    _said,
    show,
)
from .ch12_reference import OPERATIONS, _MISTAKES, reference_grad  # noqa: F401  (passed on)

__all__ = [
    "checkpoint",
    "check_second_derivative_prediction",
    "check_hvp",
    "check_my_grad",
    "reference_grad",
    "random_expression",
    "SEEDS",
    "numerical_hvp",
]

SEEDS = range(6)
TOL = 1e-9


# --------------------------------------------------------------------- exercise: predict f''

SECOND = Prediction(
    12,
    "predict a second derivative",
    "f''(1.5) for f(x) = x³ − 2x",
    9.0,
    hint="differentiate twice by hand: f'(x) = 3x² − 2, then differentiate that again, and "
    "put x = 1.5 in.",
    explain="f'(x) = 3x² − 2 and f''(x) = 6x, so f''(1.5) = 6 · 1.5 = 9. The −2x is a straight "
    "line: its slope is constant, so it leaves nothing for the second derivative.",
    known_wrong=[
        (4.75, "that is the first derivative, f'(1.5) = 3 · 1.5² − 2. Differentiate once more."),
        (6.75, "that is 3x² at 1.5, a first derivative (without its −2). Differentiate once more."),
        (
            7.0,
            "the −2x has slope −2, but its *second* derivative is 0: a straight line does "
            "not bend.",
        ),
        (6.0, "6x is right, but at x = 1.5, not at x = 1."),
    ],
)


def check_second_derivative_prediction(answer):
    """Exercise: predict f''(1.5) for f(x) = x³ − 2x (it is 9)."""
    return SECOND.check(answer)


# --------------------------------------------------------------------- exercise: hvp


def numerical_hvp(f, xs, v, h=1e-5):
    """H v by central differences of the gradient: (∇f(x + h v) − ∇f(x − h v)) / 2h."""

    def gradient(numbers):
        leaves = [Value(x) for x in numbers]
        return [g.data for g in grad(f(leaves), leaves)]

    plus = gradient([x + h * d for x, d in zip(xs, v)])
    minus = gradient([x - h * d for x, d in zip(xs, v)])
    return [(p - m) / (2 * h) for p, m in zip(plus, minus)]


def _exact_hvp(f, xs, v):
    leaves = [Value(x) for x in xs]
    first = grad(f(leaves), leaves, create_graph=True)
    return [sum(grad(g, leaves)[j].data * v[j] for j in range(len(xs))) for g in first]


def _f_mixed(p):
    x, y = p
    return x * x * y + (x * y).tanh() + y * y * y


def _f_three(p):
    x, y, z = p
    return (x * y + z).tanh() * x + z * z * y


_HVP_CASES = (
    ("f(x, y) = x²y + tanh(xy) + y³", _f_mixed, [0.5, -1.25], [2.0, -0.5]),
    ("f(x, y, z) = tanh(xy + z)·x + z²y", _f_three, [0.3, -0.7, 1.1], [1.0, 3.0, -2.0]),
)


_NO_CREATE_GRAPH = (
    "the gradients were plain leaves, with no graph back to the inputs. Compute them with "
    "`grad(..., create_graph=True)`, so that grad can differentiate their sum again"
)
_LEFT_THE_GRAPH = (
    "you pass `create_graph=True`, so each g_i is a Value with a graph back to the inputs; "
    "but the sum you differentiate again is {how}: a float left the graph. Build the sum from "
    "the gradient Values themselves, `sum(gi * vi for gi, vi in zip(g, v))`, and take `.data` "
    "only of the final answers"
)
_FLOAT_HOW = "a plain {kind}, made from their numbers (`.data`)"
_REWRAPPED_HOW = "a new Value made from their numbers (`.data`), with no graph behind it{zeros}"
_ZEROS = (
    ", so grad finds no path to the inputs; `allow_unused=True` only turns that into gradients of 0"
)


def _recorded_grad_calls(hvp, f, xs, v):
    """Run `hvp` again with the `grad` it calls recording each call: [[output, keyword
    arguments, result (None if it raised)]]; None when `hvp` does not call the package's `grad` by a global name."""
    code, namespace = getattr(hvp, "__code__", None), getattr(hvp, "__globals__", None)
    if code is None or namespace is None:
        return None
    names = [n for n in code.co_names if namespace.get(n) is grad]
    if not names:
        return None
    calls = []

    def recording(output, inputs, **options):
        call = [output, options, None]
        calls.append(call)  # before grad runs: the call that raises is the one to explain
        call[2] = grad(output, inputs, **options)
        return call[2]

    saved = {n: namespace[n] for n in names}
    try:
        namespace.update(dict.fromkeys(names, recording))
        try:
            hvp(f, list(xs), list(v))
        except Exception:  # the check has said what it raised already
            pass
    finally:
        namespace.update(saved)
    return calls


def _hvp_lost_graph(hvp, f, xs, v):
    """Why the second grad of `hvp` found no graph, in words, or "": the first grad had no
    `create_graph=True`, or a float left the graph between the two grads."""
    try:
        calls = _recorded_grad_calls(hvp, f, xs, v)
    except Exception:  # the diagnosis is a bonus: never fail it
        calls = None
    if not calls or len(calls) < 2 or calls[0][2] is None:
        # its two grad calls could not be watched: say both causes, guess neither
        return (
            "the sum you differentiate again has no graph back to the inputs. Either the "
            "gradients were computed without `create_graph=True`, or a float left the "
            "graph on the way (a `.data`, or a new `Value(...)` around a number): build the "
            "sum from the gradient Values themselves, `gi * vi`"
        )
    (_, first_options, gradients), (output, options, _) = calls[:2]
    if not first_options.get("create_graph"):
        return _NO_CREATE_GRAPH
    if not isinstance(output, Value):
        return _LEFT_THE_GRAPH.format(how=_FLOAT_HOW.format(kind=type(output).__name__))
    reached = {id(node) for node in topological_order(output)}
    if not any(id(g) in reached for g in gradients):
        zeros = _ZEROS if options.get("allow_unused") else ""
        return _LEFT_THE_GRAPH.format(how=_REWRAPPED_HOW.format(zeros=zeros))
    return ""


def _plain_float_output(error):
    """Did grad refuse its output for being a number, not a Value?"""
    return isinstance(error, TypeError) and "grad needs the output as a Value" in str(error)


def _call_hvp(hvp, f, xs, v, what):

    def raised(error):
        said = f"`hvp` on {what} raised {_said(error)}"
        if isinstance(error, ValueError):
            if "does not depend" in str(error):
                # grad's own advice (allow_unused=True) would give zeros here: leave it out
                said = _said(error).split(". Pass allow_unused=True")[0]
                why = _hvp_lost_graph(hvp, f, xs, v) or _NO_CREATE_GRAPH
                return f"`hvp` on {what} raised {said}: {why}"
            return said
        why = _hvp_lost_graph(hvp, f, xs, v) if _plain_float_output(error) else ""
        return f"{said}: {why}" if why else said

    got = call(
        hvp,
        f,
        list(xs),
        list(v),
        raised=raised,
        none="`hvp` gave None: end it with `return [...]`, one number per input",
    )
    try:
        numbers = list(got)
    except TypeError:
        fail(f"`hvp` should return a list of numbers, one per input, but returned {show(got)}")
    if any(isinstance(g, Value) for g in numbers):
        fail(
            f"`hvp` should return a list of numbers, one per input, but returned Values: "
            f"{show(got)}. Take the number out of each, `[d.data for d in ...]`, as "
            "`gradient_numbers` does"
        )
    expect(
        len(numbers) == len(xs) and all(is_number(n) for n in numbers),
        f"`hvp` should return a list of {len(xs)} numbers, one per input, but returned {show(got)}",
    )
    return numbers


def _hvp_why(f, xs, v, got):
    """What the numbers `got` show: the gradient itself, H·1, or v alone."""
    leaves = [Value(x) for x in xs]
    gradient = [g.data for g in grad(f(leaves), leaves)]
    ones = _exact_hvp(f, xs, [1.0] * len(xs))
    if all(is_close(a, b, 1e-6) for a, b in zip(got, gradient)):
        return (
            "these are the first derivatives, the gradient itself: H v is the gradient of "
            "the sum of grad_i · v_i, a second grad"
        )
    if all(is_close(a, b, 1e-6) for a, b in zip(got, ones)):
        return (
            "this is H times a vector of ones: multiply each gradient by its v_i before "
            "adding them up"
        )
    return ""


@check(
    "H v for f(x, y) = x²y + tanh(xy) + y³ and for a function of three inputs, with v not "
    "all ones: central differences of the gradient agree to 1e-5"
)
def hvp_against_differences(hvp):
    for what, f, xs, v in _HVP_CASES:
        got = _call_hvp(hvp, f, xs, v, what)
        expected = numerical_hvp(f, xs, v)
        for i, (a, b) in enumerate(zip(got, expected)):
            if abs(a - b) > 1e-5 * max(1.0, abs(b)):
                why = _hvp_why(f, xs, v, got)
                if not why and all(n == 0 for n in got):
                    why = _hvp_lost_graph(hvp, f, xs, v)
                said = (
                    f"for {what} at {show(xs)} with v = {show(v)}, entry {i} of H v should "
                    f"be {b:.6g} (central differences of the gradient) but was {a:.6g}"
                )
                fail(f"{said}: {why}" if why else said)


@check("`hvp` leaves the numbers it is given alone, and returns a list the length of `xs`")
def hvp_shape(hvp):
    xs, v = [0.5, -1.25], [2.0, -0.5]
    got = _call_hvp(hvp, _f_mixed, xs, v, "f(x, y) = x²y + tanh(xy) + y³")
    expect(xs == [0.5, -1.25] and v == [2.0, -0.5], "`hvp` changed the lists it was given")
    expect(len(got) == 2, f"`hvp` should give 2 numbers here, but gave {len(got)}")


HVP = Exercise(
    12,
    "a Hessian-vector product",
    [hvp_against_differences, hvp_shape],
    what="your `hvp`",
    unanswered=is_unwritten,
    todo="replace `...` with the gradient, as Values, then grad of the sum of "
    "grad_i · v_i; run the cell, then this check again",
)


def check_hvp(hvp):
    """Exercise: `hvp(f, xs, v)`, the Hessian of f at xs times v, without the Hessian."""
    return HVP.check(hvp)


# --------------------------------------------------------------------- my_grad: the checks

_NAMES = ("x", "w")


def random_expression(seed):
    """(numbers, build): two input numbers and `build(x, w)`, an expression of +, * and tanh
    in which values are used twice and plain numbers appear on either side."""
    rng = random.Random(seed)
    numbers = [round(rng.uniform(-1.5, 1.5), 3) for _ in _NAMES]
    steps = []
    for _ in range(6):
        op = rng.choice(["+", "*", "tanh", "*", "+"])
        other = rng.choice(["x", "w", "earlier", "number"])
        steps.append((op, other, rng.randrange(100), round(rng.uniform(-2.0, 2.0), 2)))

    def build(x, w):
        nodes = [x, w, x * w]
        for op, other, k, number in steps:
            last = nodes[-1]
            if op == "tanh":
                nodes.append(last.tanh())
                continue
            b = {"x": x, "w": w, "earlier": nodes[k % len(nodes)]}.get(other, number)
            nodes.append(last + b if op == "+" else last * b)
        return nodes[-1].tanh() * x + w

    return numbers, build


def _call(my_grad, output, inputs, what):
    """The learner's gradients, as Values, failing with words otherwise."""
    got = call(
        my_grad,
        output,
        list(inputs),
        raised=lambda error: f"`my_grad` on {what} raised {_said(error)}",
        none="`my_grad` gave None: end it with `return [...]`, one gradient per input",
        kind=lambda got: isinstance(got, (list, tuple)) and len(got) == len(inputs),
        wrong=lambda got: (
            f"`my_grad(output, inputs)` should return a list with one "
            f"gradient per input ({len(inputs)} here), but returned "
            f"{show(got)}"
        ),
    )
    for g in got:
        if not isinstance(g, Value):
            fail(
                f"`my_grad` returned {show(g)} among the gradients, a {type(g).__name__}: "
                "each gradient should be a Value, built from the graph's own nodes, so that "
                "it can be differentiated again"
            )
    return list(got)


def _numbers(values):
    return [v.data for v in values]


def _same(a, b):
    return all(is_close(x, y, TOL) for x, y in zip(a, b))


def _diagnose(build, numbers, got_first, got_second=None):
    """The planted mistake whose numbers the learner's reproduce (first derivatives, and the
    second ones where given), in words, or ''. A mistake that gives the right numbers on this
    expression cannot be told apart from a right answer, so it is never named."""
    second = got_second is not None
    right = _derivatives(reference_grad, build, numbers, second)

    def planted(mistake):
        def with_mistake(output, inputs):
            return reference_grad(output, inputs, **mistake)

        return lambda: _derivatives(with_mistake, build, numbers, second)

    return diagnose(
        (got_first, got_second),
        ((planted(mistake), words) for mistake, words in _MISTAKES),
        same=_same_all,
        right=right,
        otherwise="",
    )


def _derivatives(grad_function, build, numbers, second):
    """(first derivatives, second derivatives or None) of `build` at `numbers`, as numbers."""
    leaves = [Value(n) for n in numbers]
    first = grad_function(build(*leaves), leaves)
    rows = [_numbers(grad_function(g, leaves)) for g in first] if second else None
    return _numbers(first), rows


def _same_all(a, b):
    (first_a, rows_a), (first_b, rows_b) = a, b
    if not _same(first_a, first_b):
        return False
    if rows_a is None or rows_b is None:
        return True
    return all(_same(x, y) for x, y in zip(rows_a, rows_b))


def _compare(my_grad, build, numbers, what, *, second=True):
    """First (and second) derivatives of `build` at `numbers`, the learner's against grad's."""
    leaves = [Value(n, label=name) for n, name in zip(numbers, _NAMES)]
    output = build(*leaves)
    witness = grad(output, leaves, create_graph=True, allow_unused=True)
    at = f"{what} at {', '.join(f'{n} = {x:g}' for n, x in zip(_NAMES, numbers))}"
    first = _call(my_grad, output, leaves, at)
    got_first = _numbers(first)
    for name, got, right in zip(_NAMES, got_first, _numbers(witness)):
        if not is_close(got, right, TOL):
            why = _diagnose(build, numbers, got_first)
            said = f"{at}: d/d{name} should be {right:.6g} (autograd.grad's) but was {got:.6g}"
            fail(f"{said}: {why}" if why else said)
    if not second:
        return
    got_second = [
        _numbers(_call(my_grad, g, leaves, f"your own d/d{_NAMES[i]} of {at}"))
        for i, g in enumerate(first)
    ]
    for i, row in enumerate(got_second):
        right = _numbers(grad(witness[i], leaves, allow_unused=True))
        for name, got, expected in zip(_NAMES, row, right):
            if not is_close(got, expected, TOL):
                why = _diagnose(build, numbers, got_first, got_second)
                said = (
                    f"{at}: the second derivative d/d{name} of d/d{_NAMES[i]} should be "
                    f"{expected:.6g} (grad of grad) but was {got:.6g}"
                )
                fail(f"{said}: {why}" if why else said)


@check(
    "y = 2.5·tanh(x·w + x)·x: x used three times, the gradient from above not 1; "
    "autograd.grad's first derivatives"
)
def reused_value(my_grad):
    _compare(
        my_grad,
        lambda x, w: 2.5 * (x * w + x).tanh() * x,
        [0.7, -0.4],
        "y = 2.5·tanh(x·w + x)·x",
        second=False,
    )


@check(
    "each gradient is a Value whose graph reaches the inputs: grad of your gradient gives "
    "the second derivatives of y = x·x·x·w and of y = tanh(x·w)"
)
def second_derivatives(my_grad):
    _compare(my_grad, lambda x, w: x * x * x * w, [1.5, -2.0], "y = x·x·x·w")
    _compare(my_grad, lambda x, w: (x * w).tanh(), [0.6, 0.9], "y = tanh(x·w)")


@check(
    f"random expressions of +, · and tanh, values used twice, numbers on either side "
    f"(seeds {SEEDS[0]} to {SEEDS[-1]}): autograd.grad's first and second derivatives"
)
def random_expressions(my_grad):
    for seed in SEEDS:
        numbers, build = random_expression(seed)
        _compare(my_grad, build, numbers, f"random expression {seed}")


@check("`my_grad` leaves every `.grad` alone, as autograd.grad does")
def leaves_grad_alone(my_grad):
    x, w = Value(0.5), Value(-1.5)
    y = (x * w + x).tanh()
    _call(my_grad, y, [x, w], "tanh(x·w + x)")
    touched = [n for n in topological_order(y) if n.grad != 0.0]
    expect(
        not touched,
        f"after `my_grad`, {len(touched)} node(s) had a `.grad` that was not "
        "0: keep the gradients in your dict `grads`, and don't call "
        "`backward()`",
    )


CHECKPOINT = [reused_value, second_derivatives, random_expressions, leaves_grad_alone]

MY_GRAD = Exercise(
    12,
    "your own grad",
    CHECKPOINT,
    what="your `my_grad`",
    unanswered=is_unwritten,
    todo="replace `...` with the rules of +, * and tanh: for each input of the "
    "node, its local slope (a Value) times `g`, added into `grads`; run "
    "the cell, then this check again",
)


def check_my_grad(my_grad):
    """Exercise: `my_grad(output, inputs)`, gradients as Values, for +, * and tanh."""
    return MY_GRAD.check(my_grad)


@declare_checkpoint(
    12,
    "Chapter 12 · Gradients of gradients: your my_grad",
    CHECKPOINT,
    takes="your function `my_grad(output, inputs)`",
)
def checkpoint(my_grad):
    """Chapter 12's specification, on `my_grad(output, inputs)` (see the module docstring)."""
