"""The engine against PyTorch: the same random graphs, the article's neuron.

PyTorch is optional for learners: these tests skip with a reason where it is missing, and fail
in CI, which installs it.
"""

import pytest
from hypothesis import given, settings

from autograd import Value
from conftest import require_module
from programs import close, programs, run


@pytest.fixture(scope="module")
def torch():
    return require_module("torch")


def test_article_neuron_matches_pytorch(torch):
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in dict(x1=2.0, x2=0.0, w1=-3.0, w2=1.0, b=6.8813735870195432).items()}
    ot = torch.tanh(t["x1"] * t["w1"] + t["x2"] * t["w2"] + t["b"])
    ot.backward()

    v = {k: Value(float(x.item())) for k, x in t.items()}
    o = (v["x1"] * v["w1"] + v["x2"] * v["w2"] + v["b"]).tanh()
    o.backward()

    assert o.data == pytest.approx(ot.item(), abs=1e-12)
    for k in t:
        assert v[k].grad == pytest.approx(t[k].grad.item(), abs=1e-12), k


@settings(max_examples=150)
@given(program=programs())
def test_random_graphs_match_pytorch(torch, program):
    inputs, steps = program
    leaves = [Value(x) for x in inputs]
    out = run(steps, leaves)
    out.backward()

    tensors = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in inputs]
    out_t = run(steps, tensors)
    out_t.backward()

    assert close(out.data, out_t.item(), rel=1e-12, abs_=1e-12)
    for leaf, tensor in zip(leaves, tensors):
        expected = tensor.grad.item() if tensor.grad is not None else 0.0
        assert close(leaf.grad, expected, rel=1e-10, abs_=1e-12), (leaf.grad, expected)
