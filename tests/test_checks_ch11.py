"""The checks of chapter 11 accept what the chapter asks for and explain, in words, what is wrong
with the rest: the backward lines of `*`, the leaky ReLU with no branch, and the checkpoint on
the learner's compiler (which also lists the chapter's two exercises).

The compiler below is this file's own copy of the one the chapter builds (a tracer, a code
generator, `my_compile`), with switches that plant the mistakes learners make in it."""

import linecache
import math

import pytest

from autograd import Value
from autograd.checks import ch11, checkpoint
from autograd.checks.exercise import answers_for, solution
from mistakes import catalogue


def messages(report):
    return "\n".join(r.message for r in report.results)


def failed(report):
    return [r for r in report.results if not r.passed]


def define(source, name, namespace=None):
    """Run `source` as a notebook cell does (its source kept where `inspect` finds it), and
    return what it defines as `name`."""
    filename = f"<cell {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {} if namespace is None else namespace
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


# --------------------------------------------------------------------- a compiler, as the chapter's


def trace(root, inputs, *, inputs_as_constants=False, twice=False):
    """The chapter's tracer (the checks keep a copy); or, planted, one that names no input,
    so that every leaf becomes a constant, or one that records each instruction twice (its
    `tape.append` line written two times)."""
    tape, constants = ch11._trace(root, {} if inputs_as_constants else inputs)
    if twice:
        tape = [instruction for instruction in tape for _ in (1, 2)]
    return tape, constants


FORWARD = {
    "+": "{out} = {a} + {b}",
    "*": "{out} = {a} * {b}",
    "tanh": "{out} = math.tanh({a})",
    "relu": "{out} = {a} if {a} > 0 else 0.0",
}


def add_backward(out, a, b):
    return [f"d{a} += d{out}", f"d{b} += d{out}"]


def mul_backward(out, a, b):
    return [f"d{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]


def tanh_backward(out, a):
    return [f"d{a} += (1 - {out}**2) * d{out}"]


def relu_backward(out, a):
    return [f"d{a} += ({out} > 0) * d{out}"]


BACKWARD = {"+": add_backward, "*": mul_backward, "tanh": tanh_backward, "relu": relu_backward}


def generate(
    tape,
    constants,
    inputs,
    backward=BACKWARD,
    *,
    reverse=True,
    seed=True,
    zero=True,
    constants_as_inputs=False,
    constants_get_gradients=False,
):
    result = tape[-1][0]
    lines = [] if constants_as_inputs else [f"{n} = {x!r}" for n, x in constants.items()]
    lines += [FORWARD[op].format(out=out, a=args[0], b=args[-1]) for out, op, args in tape]
    if zero:
        lines += [f"d{n} = 0.0" for n in [*inputs, *constants, *(t[0] for t in tape)]]
    if seed:
        lines.append(f"d{result} = 1.0")
    for out, op, args in reversed(tape) if reverse else tape:
        lines += backward[op](out, *args)
    returned = [*inputs, *constants] if constants_get_gradients else list(inputs)
    lines.append(f"return {result}, dict({', '.join(f'{n}=d{n}' for n in returned)})")
    arguments = [*inputs, *constants] if constants_as_inputs else list(inputs)
    return f"def compiled({', '.join(arguments)}):\n" + "".join(f"    {x}\n" for x in lines)


def compiler(backward=None, *, inputs_as_constants=False, twice=False, **generating):
    """`my_compile` with the given backward functions in place of the right ones, and mistakes
    planted into the tracer or the generator."""
    table = {**BACKWARD, **(backward or {})}

    def my_compile(root, inputs):
        tape, constants = trace(root, inputs, inputs_as_constants=inputs_as_constants, twice=twice)
        namespace = {"math": math}
        exec(generate(tape, constants, inputs, table, **generating), namespace)
        return namespace["compiled"]

    return my_compile


# --------------------------------------------------------------------- the backward lines of `*`


@pytest.mark.parametrize(
    "source",
    [
        'def mul_backward(out, a, b):\n    return [f"d{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]\n',
        'def mul_backward(out, a, b):\n    return [f"d{b} += d{out} * {a}", f"d{a} += d{out} * {b}"]\n',
        "def mul_backward(out, a, b):\n"
        '    return (f"d{a} = d{a} + {b} * d{out}", f"d{b} = d{b} + {a} * d{out}")\n',
    ],
)
def test_right_backward_lines_of_a_product_pass_in_any_form(source):
    report = ch11.check_mul_backward(define(source, "mul_backward"))
    assert report.passed, str(report)
    assert len(report.results) == 4


def test_the_unchanged_mul_stub_is_not_answered_yet():
    stub = define("def mul_backward(out, a, b):\n    ...  # return the two lines\n", "mul_backward")
    report = ch11.check_mul_backward(stub)
    assert not report.passed and len(report.results) == 1
    assert "not answered yet" in str(report) and "gave None" not in str(report)


def catalogued(check):
    return [pytest.param(m, id=m.bug) for m in catalogue(11) if m.check == f"ch11.{check}"]


@pytest.mark.parametrize("mistake", catalogued("check_mul_backward"))
def test_each_catalogued_mistake_in_the_product_lines_fails_and_is_named(mistake):
    report = ch11.check_mul_backward(define(mistake.answer, "mul_backward"))
    assert not report.passed
    first = failed(report)[0].message  # what the checkpoint shows for a wrong answer
    for words in mistake.says:
        assert words in first, first


@pytest.mark.parametrize(
    "lines, words",
    [
        (lambda out, a, b: [f"d{a} = {b} * d{out}", f"d{b} += {a} * d{out}"], "`=` instead of"),
        (lambda out, a, b: [f"d{a} = {b}", f"d{b} = {a}"], "two mistakes at once"),
        (
            lambda out, a, b: [f"d{a} = {b} * {out}", f"d{b} = {a} * {out}"],
            "`=` instead of `+=`, and",
        ),
        (
            lambda out, a, b: [f"d{a} += {b} * d{out}", f"d{a} += {a} * d{out}"],
            "both lines add to `du`",
        ),
        (
            lambda out, a, b: [f"d{a} += {b} * {out}", f"d{b} += {a} * {out}"],
            "the output's *value*",
        ),
        (lambda out, a, b: [f"d{a} += {b} * d{out}"], "no line passed anything back to `v`"),
    ],
)
def test_other_wrong_product_lines_are_told_what_their_numbers_show(lines, words):
    message = messages(ch11.check_mul_backward(lines))
    assert words in message, message


@pytest.mark.parametrize(
    "lines, words",
    [
        (lambda out, a, b: f"d{a} += {b} * d{out}\nd{b} += {a} * d{out}", "gave one string"),
        (
            lambda out, a, b: [f"    d{a} += {b} * d{out}", f"    d{b} += {a} * d{out}"],
            "without indentation",
        ),
        (
            lambda out, a, b: [f"d{a} += {b} * d{out}; d{b} += {a} * d{out}"],
            "more than one statement",
        ),
        (lambda out, a, b: [f"d{a} += {b} *"], "is not a Python statement"),
        (lambda out, a, b: [], "an empty list"),
        (lambda out, a, b: [1, 2], "a list of strings"),
        (lambda out, a, b: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_product_lines_that_are_not_lines_of_python_are_told_so_once(lines, words):
    report = ch11.check_mul_backward(lines)
    first, *rest = report.results
    assert not first.passed and words in first.message, first.message
    assert all(not r.passed and "see the first line" in r.message for r in rest)


def test_a_product_check_on_something_that_is_no_function_fails_clearly():
    report = ch11.check_mul_backward(42)
    assert not report.passed
    assert "raised TypeError" in report.results[0].message


def test_the_product_checks_send_a_gradient_other_than_one_and_reuse_both_factors():
    # a missing `* d{out}` is invisible when d_out is 1; `=` for `+=` when nothing is reused
    assert ch11.UPSTREAM != 1
    no_upstream = lambda out, a, b: [f"d{a} += {b}", f"d{b} += {a}"]
    overwrite = lambda out, a, b: [f"d{a} = {b} * d{out}", f"d{b} = {a} * d{out}"]
    for wrong in (no_upstream, overwrite):
        report = ch11.check_mul_backward(wrong)
        assert [r.passed for r in report.results[:3]] == [True, False, False], str(report)


# --------------------------------------------------------------------- the leaky ReLU


@pytest.mark.parametrize(
    "body",
    [
        "    return 0.1 * s + 0.9 * s.relu()",
        "    return s.relu() - 0.1 * (-s).relu()",
        "    return s * 0.1 + s.relu() * 0.9",
    ],
)
def test_a_leaky_relu_made_of_operations_passes(body):
    report = ch11.check_branch_free(define(f"def leaky(s):\n{body}\n", "leaky"))
    assert report.passed, str(report)


def test_the_unchanged_leaky_stub_is_not_answered_yet():
    stub = define("def leaky(s):\n    ...  # s above 0, 0.1 * s below\n", "leaky")
    report = ch11.check_branch_free(stub)
    assert not report.passed and "not answered yet" in str(report)


@pytest.mark.parametrize("mistake", catalogued("check_branch_free"))
def test_each_catalogued_mistake_in_the_leaky_relu_fails_and_is_named(mistake):
    report = ch11.check_branch_free(define(mistake.answer, "leaky"))
    assert not report.passed
    first = failed(report)[0].message
    for words in mistake.says:
        assert words in first, first


def test_the_original_branching_version_is_caught_however_it_is_reached():
    # the branch hides in another function: the check still sees the frozen choice, and does
    # not claim to know where it is
    leaky = define(
        "def branching(s):\n    if s.data > 0:\n        return s\n"
        "    return 0.1 * s\n\ndef leaky(s):\n    return branching(s)\n",
        "leaky",
    )
    message = messages(ch11.check_branch_free(leaky))
    assert "frozen at trace time" in message and "It still branches" not in message


def test_a_choice_between_values_written_as_a_conditional_expression_is_a_branch():
    leaky = define("def leaky(s):\n    return s if s.data > 0 else 0.1 * s\n", "leaky")
    assert "It still branches on `.data`" in messages(ch11.check_branch_free(leaky))


@pytest.mark.parametrize(
    "body, words",
    [
        ("    return s.relu()", "that is the plain relu"),
        ("    return 0.1 * s", "above 0 it is s, below 0 it is 0.1·s"),
        ("    s.relu() * 0.9 + 0.1 * s", "no `return`"),
        ("    return 0.55 * s + 0.45 * abs(s)", "`abs`"),
        ("    return [s]", "should give a Value"),
    ],
)
def test_other_wrong_leaky_relus_are_told_what_is_wrong(body, words):
    message = messages(ch11.check_branch_free(define(f"def leaky(s):\n{body}\n", "leaky")))
    assert words in message, message


def test_a_leaky_relu_with_the_right_values_and_the_wrong_slope_is_caught():
    # 0.1·s + 0.9·relu(s), but with the relu part's gradient cut off by a constant copy
    leaky = define(
        "def leaky(s):\n    return 0.1 * s + 0.9 * s.relu() * 0 + (0.9 * s.relu()).data\n", "leaky"
    )
    message = messages(ch11.check_branch_free(leaky))
    assert "the slope of your function is" in message


# --------------------------------------------------------------------- the checkpoint


def test_checkpoint_passes_the_chapters_compiler():
    report = checkpoint(11, compiler())
    assert report.passed, str(report)
    assert len(report.results) == 5


def test_the_checks_own_compiler_agrees_with_the_engine_on_the_random_programs():
    for seed in ch11.SEEDS:
        traced, runs, steps = ch11.random_program(seed)
        for numbers in [traced, *runs]:
            leaves = [Value(x) for x in numbers]
            out = ch11.run_program(leaves, steps)
            out.backward()
            value, grads = ch11.reference_compile(out, dict(zip("xyz", leaves)))(*numbers)
            assert math.isclose(value, out.data, rel_tol=1e-12, abs_tol=1e-12)
            for name, leaf in zip("xyz", leaves):
                assert math.isclose(grads[name], leaf.grad, rel_tol=1e-9, abs_tol=1e-12)


def test_the_random_programs_use_every_operation_reach_every_input_and_cross_relus_kink():
    crossing = 0
    for seed in ch11.SEEDS:
        traced, runs, steps = ch11.random_program(seed)
        assert {name for name, _, _ in steps} == set(ch11.OPERATIONS), seed
        sides = set()
        for numbers in [traced, *runs]:
            leaves = [Value(x) for x in numbers]
            nodes = list(leaves)
            for name, i, j in steps:
                arity, operation = ch11.OPERATIONS[name]
                if name == "relu":
                    sides.add(nodes[i].data > 0)
                nodes.append(operation(nodes[i], nodes[j]) if arity == 2 else operation(nodes[i]))
            nodes[-1].backward()
            if numbers is traced:  # else a gradient of 0 would be compared with 0
                assert all(leaf.grad != 0 for leaf in leaves), seed
        crossing += sides == {True, False}
    assert crossing >= len(ch11.SEEDS) - 1


PLANTED = [
    ("backward lines in forward order", compiler(reverse=False), "ran in the tape's own order"),
    (
        "= for += in add",
        compiler({"+": lambda out, a, b: [f"d{a} = d{out}", f"d{b} = d{out}"]}),
        "the backward lines of `+` assign with `=` instead of adding with `+=`",
    ),
    (
        "= for += everywhere",
        compiler(
            {
                "+": lambda out, a, b: [f"d{a} = d{out}", f"d{b} = d{out}"],
                "*": lambda out, a, b: [f"d{a} = {b} * d{out}", f"d{b} = {a} * d{out}"],
                "tanh": lambda out, a: [f"d{a} = (1 - {out}**2) * d{out}"],
                "relu": lambda out, a: [f"d{a} = ({out} > 0) * d{out}"],
            }
        ),
        "assign with `=` instead of adding with `+=`",
    ),
    (
        "missing * d_out in tanh",
        compiler({"tanh": lambda out, a: [f"d{a} += (1 - {out}**2)"]}),
        "the backward lines of `tanh` pass the local slope alone",
    ),
    (
        "missing * d_out in relu",
        compiler({"relu": lambda out, a: [f"d{a} += ({out} > 0)"]}),
        "the backward lines of `relu` pass the local slope alone",
    ),
    (
        "tanh slope 1 - tanh",
        compiler({"tanh": lambda out, a: [f"d{a} += (1 - {out}) * d{out}"]}),
        "not 1 − tanh",
    ),
    (
        "tanh slope from its input",
        compiler({"tanh": lambda out, a: [f"d{a} += (1 - {a}**2) * d{out}"]}),
        "of the *output*",
    ),
    (
        "a product's own factor",
        compiler({"*": lambda out, a, b: [f"d{a} += {a} * d{out}", f"d{b} += {b} * d{out}"]}),
        "the *other* factor",
    ),
    ("no seed", compiler(seed=False), "did not start from 1"),
    ("gradients never set to 0", compiler(zero=False), "Set every gradient to 0.0"),
    (
        "a constant treated as a parameter",
        compiler(constants_as_inputs=True),
        "A constant (a plain number such as the 2.5 of `x + 2.5`) is no input",
    ),
    (
        "a gradient returned for a constant",
        compiler(constants_get_gradients=True),
        "which are no inputs",
    ),
    (
        "inputs written down as constants",
        compiler(inputs_as_constants=True),
        "the inputs were written into the code as the numbers they had at trace time",
    ),
    ("no relu", compiler(), "no line for the operation 'relu'"),
    # a given cell edited: the chapter's tracer, with its `tape.append` line written twice
    (
        "each instruction traced twice",
        compiler(twice=True),
        "the tape holds each instruction twice. Look at the tracer (`trace`)",
    ),
]


@pytest.mark.parametrize("bug, my_compile, words", PLANTED, ids=[p[0] for p in PLANTED])
def test_checkpoint_fails_a_planted_mistake_in_the_compiler_and_names_it(
    bug, my_compile, words, monkeypatch
):
    if bug == "no relu":
        monkeypatch.delitem(BACKWARD, "relu")
        monkeypatch.delitem(FORWARD, "relu")
        table = dict(BACKWARD)

        def my_compile(root, inputs):
            tape, constants = trace(root, inputs)
            namespace = {"math": math}
            exec(generate(tape, constants, inputs, table), namespace)
            return namespace["compiled"]

    report = checkpoint(11, my_compile)
    assert not report.passed
    assert any(words in r.message for r in failed(report)), str(report)


def test_a_mistake_whose_numbers_two_bugs_share_names_both():
    # in the neuron (a chain), forward order and a missing seed both leave every gradient 0
    report = checkpoint(11, compiler(seed=False))
    neuron = failed(report)[0]
    assert neuron.name.startswith("the article's neuron")
    assert "two different mistakes" in neuron.message
    assert "did not start from 1" in neuron.message and "tape's own order" in neuron.message
    shared = next(r for r in failed(report) if r.name.startswith("a value used twice"))
    assert "did not start from 1" in shared.message and "tape's own order" not in shared.message


def test_checkpoint_fails_a_compiler_that_runs_the_engine_instead_of_code():
    def my_compile(root, inputs):
        names = list(inputs)
        rebuilt = {}

        def compiled(*numbers):  # rebuilds the graph with Values on every call
            leaves = {name: Value(x) for name, x in zip(names, numbers)}

            def copy(node):
                if id(node) in rebuilt:
                    return rebuilt[id(node)]
                for name, leaf in inputs.items():
                    if node is leaf:
                        return leaves[name]
                if not node._prev:
                    return Value(node.data)
                args = [copy(child) for child in node._prev]
                made = {
                    "+": lambda: args[0] + args[1],
                    "*": lambda: args[0] * args[1],
                    "tanh": lambda: args[0].tanh(),
                    "relu": lambda: args[0].relu(),
                }
                return made[node._op]()

            out = copy(root)
            out.backward()
            return out.data, {name: leaf.grad for name, leaf in leaves.items()}

        return compiled

    report = checkpoint(11, my_compile)
    assert [r.name for r in failed(report)] == [
        "the compiled function computes with plain numbers: calling it builds no Value"
    ]


@pytest.mark.parametrize(
    "returned, words",
    [
        (lambda *numbers: 1.0, "should return (value, {input name: gradient})"),
        (lambda *numbers: (1.0, {}), "returned no gradient for"),
        (None, "should return the compiled function"),
    ],
)
def test_checkpoint_says_what_a_compiled_function_should_return(returned, words):
    report = checkpoint(11, lambda root, inputs: returned)
    assert not report.passed and words in messages(report), messages(report)


def test_checkpoint_refuses_what_is_no_compiler():
    with pytest.raises(TypeError, match="takes your compiler"):
        ch11.checkpoint("my_compile")


def test_checkpoint_lists_the_chapters_two_exercises():
    assert [e.title for e, _ in answers_for(11)] == [
        "the backward lines of `*`",
        "a leaky ReLU with no branch",
    ]
    ch11.check_mul_backward(mul_backward)
    ch11.check_branch_free(define("def leaky(s):\n    return 0.1 * s + 0.9 * s.relu()\n", "leaky"))
    report = checkpoint(11, compiler())
    assert report.passed and "all on your code: 2 of 2 of your answers passed" in str(report)


def test_a_wrong_product_replaced_by_the_solution_still_fails_the_checkpoint():
    ns = {"ch11": ch11}
    define(
        'def mul_backward(out, a, b):\n    return [f"d{a} = {b} * d{out}", '
        'f"d{b} = {a} * d{out}"]\n',
        "mul_backward",
        ns,
    )
    assert not ch11.check_mul_backward(ns["mul_backward"]).passed  # the check cell
    said = []
    body = (
        "def mul_backward(out, a, b):\n"
        '    return [f"d{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]\n'
    )
    solution("ch11.check_mul_backward(mul_backward)", body, ns, out=said.append)
    assert "did not pass its check" in " ".join(said)
    # the chapter goes on with the solution's lines: the compiler built on them is right
    report = checkpoint(11, compiler({"*": ns["mul_backward"]}))
    assert not report.failures
    assert not report.passed and "assigns with `=` instead of adding with `+=`" in str(report)
    assert "your `mul_backward` came from the solution because yours failed" in report.summary()


def test_a_line_written_to_a_value_not_its_gradient_is_named():
    def mul_backward(out, a, b):
        return [f"{a} += {b} * d{out}", f"d{b} += {a} * d{out}"]

    message = ch11.check_mul_backward(mul_backward).failures[0].message
    assert "adds to `u`, the *value* of a, not to `du`" in message, message
    assert "no line passed anything back" not in message, message
