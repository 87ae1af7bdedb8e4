"""Chapter 11 · exercise: the backward lines of `*`, `mul_backward(out, a, b)`, checked (see
`ch11`).
"""

import ast

from ..article import NEURON, neuron_output
from ..engine import Value
from .toolbox import Exercise, check, expect, fail, is_close, is_unwritten, _said, show
from .ch11_compiler import UPSTREAM, _trace, _source, _function, _witness, _name_in


# --------------------------------------------------------------------- exercise: `*` backward

_MUL_NAMES = ("t5", "x", "w")  # out, a, b: not the parameters' own names, so that lines that
# write "a" or "dout" instead of the names they are given show up


def _mul_lines(mul_backward, out, a, b, *, first=False):
    """`mul_backward(out, a, b)`, failing with a plain message unless it gives a list of
    Python statements, one a line. Only the `first` check explains a problem in full; the
    others point to it."""
    call = f"`mul_backward({out!r}, {a!r}, {b!r})`"

    def problem(message):
        fail(message if first else f"{call}: no lines to compile (see the first line)")

    try:
        lines = mul_backward(out, a, b)
    except Exception as error:  # the learner's code: say what it raised
        problem(f"{call} raised {_said(error)}")
    if lines is None:
        problem(
            f"{call} gave None: the function has no `return`; end it with `return [...]`, "
            "the list of lines"
        )
    if isinstance(lines, str):
        problem(
            f"{call} gave one string, {show(lines)}: return a list of lines, one string "
            'for each gradient the product adds to: `[f"d{a} += ...", f"d{b} += ..."]`'
        )
    if not isinstance(lines, (list, tuple)) or not all(isinstance(x, str) for x in lines):
        problem(f"{call} should give a list of strings (lines of Python), but gave {show(lines)}")
    if not lines:
        problem(
            f"{call} gave an empty list: a product passes gradient back to both of its "
            "factors, one line each"
        )
    for line in lines:
        if line != line.strip():
            problem(
                f"the line {show(line)} starts or ends with spaces: give each line without "
                "indentation (the code generator indents it)"
            )
        try:
            compile(line, "<line>", "exec")
        except SyntaxError as error:
            problem(
                f"the line {show(line)} is not a Python statement ({error.msg}): write it "
                f"as you would write it in the function, such as `d{a} += ...`"
            )
        if "\n" in line or ";" in line:
            problem(
                f"the line {show(line)} holds more than one statement: give one line per "
                "gradient, in a list"
            )
    return list(lines)


@check("`mul_backward(out, a, b)` gives a list of lines of Python, one statement each")
def mul_lines_are_python(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES, first=True)


def _run_product_graph(mul_backward, build, names, numbers, seed):
    """Compile `build` with the learner's `*` lines (the right ones for everything else);
    return (value, gradients) at `numbers` with `seed` as d(result)."""
    leaves = [Value(x) for x in numbers]
    root = build(*leaves)
    tape, constants = _trace(root, dict(zip(names, leaves)))
    source = _source(tape, constants, names, backward={"*": mul_backward}, seed=seed)
    try:
        function = _function(source)
    except SyntaxError as error:
        fail(
            f"the compiled code is not valid Python ({error.msg}) in the line "
            f"{show((error.text or '').strip())}: check the lines `mul_backward` gives"
        )
    try:
        return function(*numbers)
    except NameError as error:  # UnboundLocalError too: a name that is only ever added to
        name = _name_in(error)
        fail(
            f"the compiled code raised {_said(error)}: `{name}` is no variable of the compiled "
            "code. `out`, `a` and `b` hold the *names* of its variables (strings such as 't0' "
            "and 'x1'): put them into each line with an f-string, f\"d{a} += {b} * d{out}\", "
            "rather than typing a name yourself"
        )
    except Exception as error:
        fail(f"the compiled code raised {_said(error)}: check the lines `mul_backward` gives")


def _written_to_a_value(mul_backward, out, a, b):
    """Words for a line that adds to a factor's *value* (`{a} += ...`) instead of its gradient
    (`d{a} += ...`), or ''. Such a line changes the number the forward pass computed, and
    `d{a}` gets nothing from the product. `out`, `a`, `b`: the names the graph gives them."""
    for line in _mul_lines(mul_backward, out, a, b):
        statement = ast.parse(line).body[0]
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AugAssign)
            else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and target.id in (a, b, out):
                role = {out: "out", b: "b", a: "a"}[target.id]
                return (
                    f"the line {show(line)} adds to `{target.id}`, the *value* of "
                    f"{role}, not to `d{target.id}`, its gradient: write the target as "
                    f'`d{{{role}}}`, as in f"d{{a}} += {{b}} * d{{out}}"'
                )
    return ""


def _diagnose_factor(got, name, own, other, out, expected, seed):
    """What the number `got` for d(name) says about the lines: the wrong things learners write,
    each with the number it gives when the factor is also used once more on its own."""
    candidates = [
        (
            seed * other,
            "it lost the gradient `{n}` already had from its other use: the line "
            "assigns with `=` instead of adding with `+=`, and a value used twice "
            "keeps only its last contribution",
        ),
        (
            other + seed,
            "the line passes the local slope alone: multiply it by `d{{out}}`, the "
            "gradient arriving from above (here {seed:g}, not 1)",
        ),
        (other, "two mistakes at once: `=` instead of `+=`, and no `* d{{out}}`"),
        (
            seed * (own + 1),
            "the line multiplies by `{n}`'s own value; each factor of a "
            "product gets the *other* factor times d_out: d(a·b)/da = b",
        ),
        (seed * own, "`=` instead of `+=`, and `{n}`'s own value instead of the other factor's"),
        (
            seed,
            "no line passed anything back to `{n}`: a product sends gradient to both of "
            "its factors, one line each",
        ),
        (
            seed * (other + own + 1),
            "both lines add to `d{n}`: a product sends gradient to "
            "both of its factors, one line to `d{{a}}` and one to "
            "`d{{b}}`",
        ),
        (
            seed + other * out,
            "the line multiplies by `{{out}}`, the output's *value*; the "
            "gradient arriving from above is `d{{out}}`",
        ),
        (
            other * out,
            "`=` instead of `+=`, and `{{out}}` (the output's value) instead of "
            "`d{{out}}` (its gradient)",
        ),
    ]
    for value, why in candidates:
        if is_close(got, value) and not is_close(value, expected):
            return why.format(n=name, seed=seed)
    return ""


@check(f"y = u·v + u + v, every factor used twice, d(y) = {UPSTREAM:g}: the engine's gradients")
def mul_reused_factors(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    u, v = 1.5, -4.0
    _, grads = _run_product_graph(
        mul_backward, lambda p, q: p * q + p + q, ["u", "v"], [u, v], UPSTREAM
    )
    for name, own, other in (("u", u, v), ("v", v, u)):
        got, expected = grads[name], UPSTREAM * (other + 1)
        if is_close(got, expected):
            continue
        why = _written_to_a_value(mul_backward, "t0", "u", "v") or _diagnose_factor(
            got, name, own, other, u * v, expected, UPSTREAM
        )
        said = (
            f"in y = u·v + u + v at u = {u:g}, v = {v:g}, with {UPSTREAM:g} arriving at y, "
            f"`d{name}` should be {UPSTREAM:g} × ({other:g} + 1) = {expected:g} (the "
            f"other factor, plus 1 for the second use, times the gradient from above), but "
            f"was {got:.6g}"
            if is_close(got, got)
            else f"was {show(got)}"
        )
        fail(f"{said}: {why}" if why else f"{said}: check the line that adds to `d{name}`")


@check(f"y = x·x, one value as both factors, d(y) = {UPSTREAM:g}: d(y)/dx = 2x·{UPSTREAM:g}")
def mul_square(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    x = 3.0
    _, grads = _run_product_graph(mul_backward, lambda v: v * v, ["x"], [x], UPSTREAM)
    expected = UPSTREAM * 2 * x
    if is_close(grads["x"], expected):
        return
    said = (
        f"for y = x·x at x = {x:g}, with {UPSTREAM:g} arriving at y, `dx` should be "
        f"{expected:g} (x·d_out once for each factor) but was {show(grads['x'])}"
    )
    wrong_target = _written_to_a_value(mul_backward, "t0", "x", "x")
    if wrong_target:
        fail(f"{said}: {wrong_target}")
    if is_close(grads["x"], UPSTREAM * x):
        fail(
            f"{said}: the two lines both write `dx`, and with `=` the second erases the "
            "first; add with `+=`"
        )
    if is_close(grads["x"], 2 * x):
        fail(
            f"{said}: each line passes the local slope alone: multiply it by `d{{out}}`, the "
            "gradient arriving from above"
        )
    fail(said)


@check(
    "the article's neuron, compiled with your lines: the engine's gradients at its numbers "
    "and at new ones"
)
def mul_in_the_neuron(mul_backward):
    _mul_lines(mul_backward, *_MUL_NAMES)
    names = list(NEURON)
    for numbers in (list(NEURON.values()), [0.5, -1.5, 2.0, 0.75, -0.3]):
        _, grads = _run_product_graph(mul_backward, neuron_output, names, numbers, 1.0)
        _, witness = _witness(neuron_output, names, numbers)
        for name in names:
            expect(
                is_close(grads[name], witness[name]),
                f"at {', '.join(f'{n} = {x:g}' for n, x in zip(names, numbers))}, `d{name}` "
                f"should be {witness[name]:.6g} (the engine's) but was {show(grads[name])}",
            )


MUL = Exercise(
    11,
    "the backward lines of `*`",
    [mul_lines_are_python, mul_reused_factors, mul_square, mul_in_the_neuron],
    what="your `mul_backward`",
    unanswered=is_unwritten,
    todo="replace `...` with `return [...]`, the two lines that pass `d{out}` back "
    "to `a` and to `b`; run the cell, then this check again",
)


def check_mul_backward(mul_backward):
    """Exercise: `mul_backward(out, a, b)`, the backward lines of `out = a * b`."""
    return MUL.check(mul_backward)
