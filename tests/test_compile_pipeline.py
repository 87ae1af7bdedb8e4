"""autograd.compile as one pipeline over data: the passes run once, into one `passes.Program`
that fusion and both writers read; the fused statements keep their places as data; no module
of the compiler reads back text it wrote; the training step sits beside `nn`, not inside the
compiler's front end."""

import ast
from pathlib import Path

import pytest

import autograd.compile
from autograd.compile import compile_loss, fusion, interleave, passes, places, python_fused
from autograd.engine import Value
from test_compile_c_bits import c_cache  # noqa: F401 (a fixture: a C compiler, an empty cache)

PACKAGE = Path(autograd.compile.__file__).parent


def batch_loss(p, xs):
    total = 0
    for x in xs:
        hidden = [(p[0] * x[0] + p[1] * x[1] + p[2]).relu(), (p[3] * x[0] + p[4]).tanh()]
        total = total + (hidden[0] * p[5] + hidden[1] * p[6]) ** 2
    return total


PARAMS = [0.5, -0.25, 0.1, 1.5, -0.3, 0.7, -1.1]
POINTS = [[0.1 * k, 1.0 - 0.2 * k] for k in range(12)]


def counting(monkeypatch, names):
    """Count the calls of the passes `names` (functions of `passes`) from now on."""
    calls = dict.fromkeys(names, 0)
    for name in names:
        original = getattr(passes, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(passes, name, counted)
    return calls


@pytest.mark.parametrize("backend", ["python", "c"])
@pytest.mark.parametrize("fuse", [False, True])
def test_each_pass_runs_once_per_compile(monkeypatch, request, backend, fuse):
    if backend == "c":
        request.getfixturevalue("c_cache")  # a C compiler (or a skip), an empty cache
    calls = counting(
        monkeypatch, ["users", "gradient_flow", "ends", "backward_reads", "dots", "slots"]
    )
    step = compile_loss(batch_loss, PARAMS, POINTS, backend=backend, fuse=fuse)
    assert step.backend == backend
    assert calls["gradient_flow"] == 1 and calls["users"] == 1, calls
    assert all(count <= 1 for count in calls.values()), calls


def test_the_fused_statements_keep_their_places_as_data():
    """Every place of a fused statement is a `places.Place` in its shape, with its index in
    the statement's numbers: no index is written into the shape's text, and a repeated
    statement (the same shape at other indices) is one shape."""
    step = compile_loss(batch_loss, PARAMS, POINTS, fuse=True)
    program = passes.Program(step._trace)
    fused = fusion.fused_statements(
        program, lambda values, grads: python_fused.FusedPython(step._trace, values, grads)
    )
    statements = fused.forward + fused.backward
    for statement in statements:
        holes = [piece for piece in statement.shape if type(piece) is places.Place]
        assert len(holes) == len(statement.constants)
        texts = [piece for piece in statement.shape if type(piece) is str]
        assert not any(
            character.isdigit() and "[" in text for text in texts for character in text
        ), statement.shape
    shapes = {statement.shape for statement in statements}
    assert len(shapes) * 2 < len(statements), (len(shapes), len(statements))  # points repeat


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or ""


def test_no_module_of_the_compiler_parses_text_with_regular_expressions():
    using = [path.name for path in PACKAGE.glob("*.py") if "re" in set(_imports(path))]
    assert using == [], f"{using} import re: the compiler's stages pass data, not text"


def test_the_compiler_writes_no_marks_into_its_text():
    """No control characters and no `@12@` marks: places travel as data."""
    for path in PACKAGE.glob("*.py"):
        text = path.read_text()
        assert not any(chr(k) in text for k in range(1, 4)), path.name
        assert "\\x01" not in text and "\\x02" not in text and "\\x03" not in text, path.name


def test_the_front_end_knows_no_model_and_the_step_no_private_name():
    front = set(_imports(PACKAGE / "front.py"))
    assert not any(name.endswith("nn") for name in front), front
    step = (PACKAGE / "step.py").read_text()
    tree = ast.parse(step)
    private = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "nn"
        and node.attr.startswith("_")
    ]
    assert private == []


# --------------------------------------------------------------------- sums side by side (C)


def layer(p, xs):
    """Six neurons on each point: six sums of products, a loop whose turns the C runs four at
    a time (and two left over)."""
    total = 0
    for x in xs:
        for k in range(6):
            total = total + (p[3 * k + 2] + p[3 * k] * x[0] + p[3 * k + 1] * x[1]).relu()
    return total


def chain(p, xs):
    """Each neuron's sum reads the neuron before's result: turns that must run one by one."""
    total = 0
    for x in xs:
        previous = x[0] * x[1]
        for k in range(6):
            previous = (p[3 * k + 2] + p[3 * k] * previous + p[3 * k + 1] * x[1]).relu()
        total = total + previous
    return total


LAYER_PARAMS = [0.25 * k - 1.1 for k in range(18)]
LAYER_POINTS = [[0.5 - 0.125 * k, 0.25 * k - 0.75] for k in range(5)]


def _engine(fn, params, points):
    leaves = [Value(v) for v in params]
    out = fn(leaves, [[Value(v) for v in point] for point in points])
    out.backward()
    return out.data, [leaf.grad for leaf in leaves]


@pytest.mark.usefixtures("c_cache")
def test_sums_side_by_side_give_the_engines_numbers():
    step = compile_loss(layer, LAYER_PARAMS, LAYER_POINTS, backend="c")
    assert "s0 = " in step.source and "s3 = " in step.source  # four neurons at a time
    assert step(LAYER_PARAMS, LAYER_POINTS) == _engine(layer, LAYER_PARAMS, LAYER_POINTS)


@pytest.mark.usefixtures("c_cache")
def test_sums_that_read_another_turns_result_stay_one_by_one(monkeypatch):
    """A planted mistake: without the test that no turn's sum reads what another turn wrote
    (`interleave._apart`), the chain's sums run side by side, read results not yet written,
    and the numbers are no longer the engine's."""
    want = _engine(chain, LAYER_PARAMS, LAYER_POINTS)
    step = compile_loss(chain, LAYER_PARAMS, LAYER_POINTS, backend="c")
    assert step(LAYER_PARAMS, LAYER_POINTS) == want
    monkeypatch.setattr(interleave, "_apart", lambda parts, n, counts: True)
    planted = compile_loss(chain, LAYER_PARAMS, LAYER_POINTS, backend="c")
    assert "s0 = " in planted.source
    assert planted(LAYER_PARAMS, LAYER_POINTS) != want
