"""Both engines against PyTorch (float64) at the edges of floating point.

`tests/test_torch.py` compares smooth programs. Here every step is a raw operation, and the
inputs include 0, -0.0, subnormals, 1e300 and the largest float: every value and every
gradient must equal PyTorch's, or the engine must raise a clear error where PyTorch's value
is not finite. `tests/edge_programs.py` says exactly what is compared and why; run it as a
script to count and sort disagreements:

    python tests/edge_programs.py --programs 6000 --engine both

CI runs AUTOGRAD_EDGE_PROGRAMS programs (5000 by default) per engine, always the same ones
(program i is made from seed i), so a failure can be reproduced with
`python tests/edge_programs.py --show I`; set AUTOGRAD_EDGE_PROGRAMS=100000 for a longer
search. A hypothesis test draws further programs and shrinks a failing one.
"""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import edge_programs as edges
from autograd.engine import Value as Reference
from autograd.fast import Value as Fast
from conftest import require_module

PROGRAMS = int(os.environ.get("AUTOGRAD_EDGE_PROGRAMS", "5000"))
ENGINES = pytest.mark.parametrize("Value", [Reference, Fast], ids=["engine", "fast"])


@pytest.fixture(scope="module")
def torch_runs():
    """PyTorch's run of each numbered program, made once and shared by both engines."""
    require_module("torch")
    runs = {}

    def run(i, inputs):
        if (i, inputs) not in runs:
            runs[i, inputs] = edges.run_torch(edges.program(i, inputs))
        return runs[i, inputs]

    return run


def survey(Value, torch_runs, count, inputs):
    report = edges.Report(Value.__module__)
    first = None
    for i in range(count):
        prog = edges.program(i, inputs)
        verdict = edges.check(prog, Value, theirs=torch_runs(i, inputs))
        report.add(i, verdict)
        if verdict.mismatch is not None and first is None:
            show = f"python tests/edge_programs.py --show {i} --inputs {inputs}"
            first = f"program {i} (to see it again: {show}):\n{verdict.mismatch}"
    return report, first


@ENGINES
def test_edge_programs_match_pytorch(Value, torch_runs):
    report, first = survey(Value, torch_runs, PROGRAMS, "edges")
    if report.mismatches:
        pytest.fail(f"{report}\n\nThe first disagreement, {first}", pytrace=False)
    # The programs test something only if enough of them run to the end rather than stop at
    # an error (about two in three do).
    assert report.completed >= 0.5 * report.programs, report


@ENGINES
def test_moderate_programs_match_pytorch(Value, torch_runs):
    """Inputs of magnitude 1e-3 to 3: the same raw operations, away from the extremes."""
    report, first = survey(Value, torch_runs, max(PROGRAMS // 3, 1), "moderate")
    if report.mismatches:
        pytest.fail(f"{report}\n\nThe first disagreement, {first}", pytrace=False)


@ENGINES
@settings(max_examples=150, derandomize=True)  # the same examples in every run: no flaky CI
@given(rng=st.randoms(use_true_random=False))
def test_random_edge_programs_match_pytorch(Value, rng):
    """The same generator driven by hypothesis, which shrinks a failing program."""
    require_module("torch")
    prog = edges.random_program(rng)
    verdict = edges.check(prog, Value)
    if verdict.mismatch is not None:
        pytest.fail(str(verdict.mismatch), pytrace=False)


def test_programs_reach_every_operation_and_edge_value():
    """The generator itself: every operation, every edge input, and an operand used twice."""
    progs = [edges.program(i) for i in range(PROGRAMS)]
    ops = {step.op for prog in progs for step in prog.steps}
    assert ops == set(edges.OPS)
    numbers = {(step.op, repr(step.n)) for prog in progs for step in prog.steps}
    for name, op in edges.OPS.items():
        assert {(name, repr(n)) for n in op.numbers} <= numbers, name
    inputs = {repr(x) for prog in progs for x in prog.inputs}
    assert {repr(x) for x in edges.EDGE_VALUES} <= inputs
    twice = {step.op for prog in progs for step in prog.steps if len(set(step.args)) == 1}
    twice &= {name for name, op in edges.OPS.items() if op.nodes == 2}
    assert twice == {"add", "sub", "mul", "div", "pow"}
    # (a - a) ** (a - a): a pow whose operands are both one earlier a - a
    assert any(
        step.op == "pow"
        and step.args[0] == step.args[1]
        and step.args[0] >= len(prog.inputs)
        and prog.steps[step.args[0] - len(prog.inputs)].op == "sub"
        and len(set(prog.steps[step.args[0] - len(prog.inputs)].args)) == 1
        for prog in progs
        for step in prog.steps
    )
