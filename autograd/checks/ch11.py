"""Chapter 11 · Trace once, run many — checkpoint and exercise checks.

What the chapter asks for: a small compiler, `my_compile(root, inputs)`. `root` is a value of
the reference engine (`autograd.engine.Value`) and `inputs` a dict that gives each input leaf
of its graph a name (`{"x1": x1, "w1": w1, ...}`). The compiler traces the graph once, inputs
first, into a *tape* (one instruction per operation; every other leaf is a constant), then
writes from the tape the source of one Python function and runs it with `exec`: the forward
pass, one assignment per instruction; then every gradient set to 0.0, the result's set to 1.0,
and the backward pass, instruction by instruction in reverse order, each adding
`local slope * d_out` into its inputs' gradients (`+=`: a value used twice gets two
contributions). The compiled function takes the inputs' numbers in the order of `inputs` and
returns `(value, {name: gradient})` for every input, computed with plain floats. Operations:
`+`, `*`, `tanh` and `relu` (with plain numbers on either side of `+` and `*`).

The checkpoint compares it with the reference engine, which serves as the witness, on the
article's neuron, on values used twice, on constants, and on random expressions, each compiled
once and run on several sets of numbers. Where the numbers are wrong, it runs the chapter's
compiler with each classic mistake planted (backward lines in forward order, `=` for `+=`, a
missing `* d_out`, a wrong slope of tanh, no seed of 1.0, an input written down as a constant)
and names the mistake whose numbers the learner's compiler reproduces.

Exercise checks, each an `Exercise` of chapter 11 (see `exercise.py`), so that the checkpoint
lists them and fails when the learner's own answer failed, even where a solution stood in:

- `check_mul_backward(mul_backward)`: `mul_backward(out, a, b)` returns the backward lines of
  one product `out = a * b`: `d{a} += {b} * d{out}` and `d{b} += {a} * d{out}`. The check
  compiles code with them, on graphs where both factors are used again and the gradient
  arriving from above is not 1, and compares with the engine.
- `check_branch_free(leaky)`: a leaky ReLU (s above 0, 0.1·s below) written with operations
  only, no choice in Python on `.data`: the same numbers as the branching version, and the
  same as the engine's when compiled once and run on numbers on either side of 0.

The checks live in one module a part: `ch11_compiler` (the chapter's compiler, the checks' own
copy), `ch11_mul` and `ch11_branch` (the exercises, in the chapter's order); this module has
the checkpoint and offers every check by its old name.
"""

import random

from ..compile.tracing import creations
from ..article import NEURON, neuron_output
from ..engine import Value
from .toolbox import (
    ARITHMETIC,
    RELU,
    TANH,
    call,
    check,
    declare_checkpoint,
    diagnoses,
    expect,
    fail,
    is_close,
    make_program,
    run_steps,
    _said,
    show,
)
from .ch11_compiler import OPS, _function, _name_in, _right_lines, _source, _witness
from .ch11_compiler import (  # noqa: F401  (passed on: every name keeps `ch11.x`)
    SEEDS,
    UPSTREAM,
    _trace,
    reference_compile,
)
from .ch11_mul import (  # noqa: F401
    mul_lines_are_python,
    mul_reused_factors,
    mul_square,
    mul_in_the_neuron,
    MUL,
    check_mul_backward,
)
from .ch11_branch import (  # noqa: F401
    LEAKY_SLOPE,
    LEAKY_POINTS,
    leaky_numbers,
    leaky_not_frozen,
    BRANCH,
    check_branch_free,
)

__all__ = [
    "checkpoint",
    "check_mul_backward",
    "check_branch_free",
    "OPS",
    "SEEDS",
    "random_program",
    "run_program",
    "reference_compile",
]


# --------------------------------------------------------------------- the checkpoint

# name -> (arity, operation written with + * tanh relu, numbers on either side)
OPERATIONS = {
    **ARITHMETIC,
    "tanh": TANH,
    "relu": RELU,
}
_INPUT_NAMES = ("x", "y", "z")


def random_program(seed, n_inputs=3, n_steps=10):
    """A seeded random program: the numbers to trace at, three more sets of numbers to run at,
    and steps (operation name, i, j) on earlier nodes.

    The inputs are added up first, so each reaches the output. Then every operation comes
    once, in a shuffled order, and a few more at random; each uses the node before it, and a
    two-input one often an earlier node as well, so nodes are shared. A one-input operation
    (relu, say) is followed by adding an earlier node, so that paths stay open whatever relu
    does; the numbers, from −2 to 2, put relu's input on either side of 0 from run to run.
    """
    numbers, steps = make_program(
        seed,
        OPERATIONS,
        n_inputs=n_inputs,
        n_steps=n_steps,
        draw=lambda rng: rng.uniform(-2.0, 2.0),
        runs=4,
        every_operation=True,
    )
    return numbers[0], numbers[1:], steps


def run_program(leaves, steps):
    """The output of `steps` built on `leaves` (values of any class)."""
    return run_steps(leaves, steps, OPERATIONS)


_MISTAKES = (
    # (what the compiler does wrong, in words; the planted mistake)
    (
        "the backward pass did not start from 1: after setting every gradient to 0.0, set the "
        "result's own gradient to 1.0 (d result / d result), or every gradient stays 0",
        {"seed": 0.0},
    ),
    (
        "every instruction's backward lines ran twice, so each gradient got every contribution "
        "two times (and twice that again for each operation further up): the tape holds each "
        "instruction twice. Look at the tracer (`trace`): it should append one instruction per "
        "operation node, once; is `tape.append` reached twice for one node?",
        {"twice": True},
    ),
    (
        "the backward lines ran in the tape's own order, first instruction first, so a value "
        "passed its gradient on before the values that use it had added theirs: go through the "
        "tape in reverse, `reversed(tape)`",
        {"reverse": False},
    ),
    *(
        (
            f"the backward lines of `{op}` assign with `=` instead of adding with `+=`: a value "
            "used twice keeps only its last contribution",
            {"backward": {op: lambda out, *args, op=op: _right_lines(out, op, args, assign=True)}},
        )
        for op in OPS
    ),
    *(
        (
            f"the backward lines of `{op}` pass the local slope alone: multiply it by `d_out`, the "
            "gradient arriving from above",
            {
                "backward": {
                    op: lambda out, *args, op=op: _right_lines(out, op, args, upstream=False)
                }
            },
        )
        for op in OPS
    ),
    (
        "the backward lines of every operation assign with `=` instead of adding with `+=`",
        {
            "backward": {
                op: lambda out, *args, op=op: _right_lines(out, op, args, assign=True) for op in OPS
            }
        },
    ),
    (
        "the backward lines of every operation pass the local slope alone, without `* d_out`",
        {
            "backward": {
                op: lambda out, *args, op=op: _right_lines(out, op, args, upstream=False)
                for op in OPS
            }
        },
    ),
    (
        "the slope of tanh is 1 − tanh² (`1 - out**2`), not 1 − tanh",
        {
            "backward": {
                "tanh": lambda out, a: _right_lines(
                    out, "tanh", [a], slopes={"tanh": ("(1 - {out})",)}
                )
            }
        },
    ),
    (
        "the slope of tanh is 1 − tanh² of the *output* (`out`), not 1 − (the input)²",
        {
            "backward": {
                "tanh": lambda out, a: _right_lines(
                    out, "tanh", [a], slopes={"tanh": ("(1 - {a}**2)",)}
                )
            }
        },
    ),
    (
        "each factor of a product gets the *other* factor times d_out (d(a·b)/da = b), not its "
        "own value",
        {
            "backward": {
                "*": lambda out, a, b: _right_lines(out, "*", [a, b], slopes={"*": ("{a}", "{b}")})
            }
        },
    ),
)


def _same_answer(x, y, tol=1e-9):
    (v, g), (w, h) = x, y
    return is_close(v, w, tol) and set(g) == set(h) and all(is_close(g[k], h[k], tol) for k in g)


def _numbers_text(names, numbers):
    return ", ".join(f"{n} = {x:.4g}" for n, x in zip(names, numbers))


def _compile_theirs(my_compile, root, inputs):
    """The learner's compiled function for `root`, failing with words if compiling fails."""

    def raised(error):
        op = error.args[0] if isinstance(error, KeyError) and error.args else None
        if op in OPS:
            return (
                f"`my_compile` raised KeyError: {op!r}: your compiler has no line for the "
                f"operation {op!r}: give it one in FORWARD and in BACKWARD"
            )
        if isinstance(error, SyntaxError):
            return (
                f"the code `my_compile` wrote is not valid Python ({error.msg}) in the line "
                f"{show((error.text or '').strip())}"
            )
        return f"`my_compile` raised {_said(error)}"

    return call(
        my_compile,
        root,
        inputs,
        raised=raised,
        kind=callable,
        wrong=lambda compiled: (
            f"`my_compile` should return the compiled function, but returned {show(compiled)}"
        ),
    )


def _call_theirs(compiled, names, numbers):
    """(value, {name: gradient}) from the learner's compiled function, failing with words."""

    def raised(error):
        said = f"the compiled code raised {_said(error)}"
        if isinstance(error, UnboundLocalError):
            return (
                f"{said}: a gradient was added to (`+=`) before it had a value. Set every "
                "gradient to 0.0 before the backward lines run"
            )
        if isinstance(error, NameError):
            return (
                f"{said}: it uses `{_name_in(error)}`, which nothing in it defines. Is it "
                "a constant (a plain number such as the 2.5 of `x + 2.5`)? Write its "
                "number into the code"
            )
        if isinstance(error, TypeError) and "argument" in str(error):
            return (
                f"calling the compiled function with the {len(names)} input(s) "
                f"{', '.join(names)} raised {_said(error)}: it should take exactly the "
                "inputs, in order. A constant (a plain number such as the 2.5 of "
                "`x + 2.5`) is no input: write its number into the code"
            )
        return said

    answer = call(
        compiled,
        *numbers,
        raised=raised,
        kind=lambda answer: (
            isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[1], dict)
        ),
        wrong=lambda answer: (
            f"the compiled function should return (value, {{input "
            f"name: gradient}}), but returned {show(answer)}"
        ),
    )
    value, grads = answer
    extra = sorted(map(str, set(grads) - set(names)))
    if extra:
        fail(
            f"the compiled function returned gradients for {', '.join(extra)}, which are no "
            f"inputs (the inputs are {', '.join(names)}): a constant, such as the 2.5 of "
            "`x + 2.5`, is part of the code, and nobody asks for its gradient"
        )
    missing = [n for n in names if n not in grads]
    expect(not missing, f"the compiled function returned no gradient for {', '.join(missing)}")
    return value, grads


def _explain(root, inputs, names, numbers, got):
    """The planted mistake whose numbers `got` reproduces, in words, or ''. Where two mistakes
    give the same numbers on this graph (in a chain, backward lines in forward order and a
    missing seed both leave every gradient 0), it names both."""
    right = reference_compile(root, inputs)(*numbers)
    tape, constants = _trace(root, inputs)

    def planted(mistake):
        return lambda: _function(_source(tape, constants, names, **mistake))(*numbers)

    found = [
        words
        for _, words in diagnoses(
            got,
            ((planted(mistake), words) for words, mistake in _MISTAKES),
            same=_same_answer,
            right=right,
        )
    ]
    if len(found) > 1:
        return "two different mistakes give exactly these numbers here. Either " + "; or ".join(
            found[:2]
        )
    return found[0] if found else ""


def _compare(my_compile, build, names, traced, runs, what):
    """Compile `build` at `traced` with the learner's compiler, then run it at `traced` and at
    each of `runs`, comparing with the engine (and naming a planted mistake it reproduces)."""
    leaves = [Value(x) for x in traced]
    root = build(*leaves)
    inputs = dict(zip(names, leaves))
    compiled = _compile_theirs(my_compile, root, inputs)
    every = [list(traced), *map(list, runs)]
    answers = [_call_theirs(compiled, names, numbers) for numbers in every]
    witnesses = [_witness(build, names, numbers) for numbers in every]
    if len({value for value, _ in answers}) == 1 and len({value for value, _ in witnesses}) > 1:
        fail(
            f"{what}, compiled at {_numbers_text(names, traced)}, gives {show(answers[0][0])} "
            f"whatever numbers it is given: the inputs were written into the code as the "
            "numbers they had at trace time, like constants. The tracer should give each "
            "input leaf the name `inputs` gives it, and the compiled function should take "
            "those names as its arguments"
        )
    for numbers, got, witness in zip(every, answers, witnesses):
        if _same_answer(got, witness):
            continue
        at = f"{what}, compiled at {_numbers_text(names, traced)}"
        if numbers != list(traced):
            at += f" and run at {_numbers_text(names, numbers)}"
        value, grads = got
        if not is_close(value, witness[0]):
            wrong = f"the value should be {witness[0]:.6g} (the engine's) but was {show(value)}"
        else:
            name = next(n for n in names if not is_close(grads[n], witness[1][n]))
            wrong = (
                f"`d{name}` should be {witness[1][name]:.6g} (the engine's) but was "
                f"{show(grads[name])}"
            )
        why = _explain(root, inputs, names, numbers, got)
        if not why and not is_close(value, witness[0]):
            why = "check the forward lines (FORWARD) and the order of the tape"
        fail(f"{at}: {wrong}" + (f": {why}" if why else ""))


@check(
    "the article's neuron, compiled once: the engine's value and gradients at its numbers, "
    "and the engine's numbers at three new sets of numbers"
)
def neuron_compiled(my_compile):
    names = list(NEURON)
    traced = list(NEURON.values())
    rng = random.Random(11)
    runs = [[rng.uniform(-2.0, 2.0) for _ in names] for _ in range(3)]
    _compare(my_compile, neuron_output, names, traced, runs, "the neuron tanh(x1·w1 + x2·w2 + b)")


@check("a value used twice collects both paths: x·x + x, tanh(x)·x, (x + y)·(x + y)")
def shared_values(my_compile):
    for what, build, names in (
        ("x·x + x", lambda x: x * x + x, ["x"]),
        ("tanh(x)·x", lambda x: x.tanh() * x, ["x"]),
        ("(x + y)·(x + y)", lambda x, y: (x + y) * (x + y), ["x", "y"]),
    ):
        traced = [1.5, -0.5][: len(names)]
        runs = [[-0.75, 2.0][: len(names)]]
        _compare(my_compile, build, names, traced, runs, what)


@check(
    "plain numbers on either side are constants: 2.5 + x·(−3) + relu(1 − y)·0.5, gradients "
    "for the inputs only"
)
def constants_stay_constants(my_compile):
    _compare(
        my_compile,
        lambda x, y: 2.5 + x * -3 + (1 - y).relu() * 0.5,
        ["x", "y"],
        [0.5, -1.0],
        [[2.0, 3.0], [-1.0, 0.25]],
        "2.5 + x·(−3) + relu(1 − y)·0.5",
    )


@check(
    f"random expressions with +, ·, tanh and relu, numbers on either side and shared values "
    f"(seeds {SEEDS[0]} to {SEEDS[-1]}), each compiled once and run at three more sets of "
    "numbers: the engine's values and gradients"
)
def random_expressions(my_compile):
    for seed in SEEDS:
        traced, runs, steps = random_program(seed)
        _compare(
            my_compile,
            lambda *leaves, steps=steps: run_program(leaves, steps),
            list(_INPUT_NAMES),
            traced,
            runs,
            f"random expression {seed}",
        )


@check("the compiled function computes with plain numbers: calling it builds no Value")
def plain_numbers(my_compile):
    leaves = [Value(x) for x in (0.5, -1.0)]
    compiled = _compile_theirs(
        my_compile, (leaves[0] * leaves[1] + 2.0).tanh(), dict(zip("xy", leaves))
    )
    with creations() as made:  # every Value the engine makes while the compiled code runs
        _call_theirs(compiled, ["x", "y"], [1.5, 2.0])
    expect(
        not made,
        f"calling the compiled function built {len(made)} Value(s): it should "
        "run the generated code on plain floats, not the engine",
    )


CHECKPOINT = [
    neuron_compiled,
    shared_values,
    constants_stay_constants,
    random_expressions,
    plain_numbers,
]


@declare_checkpoint(
    11,
    "Chapter 11 · Trace once, run many: your compiler",
    CHECKPOINT,
    takes="your compiler, the function `my_compile(root, inputs)`",
)
def checkpoint(my_compile):
    """Chapter 11's specification, on a compiler `my_compile(root, inputs)` (see the module
    docstring)."""
