"""The engine against PyTorch: the same random graphs, the article's neuron.

PyTorch is optional for learners: these tests skip with a reason where it is missing, and fail
in CI, which installs it.
"""

import pytest
from hypothesis import given, settings

from autograd import Value, article
from conftest import require_module
from programs import close, programs, run


@pytest.fixture(scope="module")
def torch():
    return require_module("torch")


def test_article_neuron_matches_pytorch(torch):
    def tensor(x, label=""):
        return torch.tensor(x, dtype=torch.float64, requires_grad=True)

    theirs = article.neuron(tensor)  # the same graph, built from PyTorch tensors
    theirs["o"].backward()
    ours = article.neuron(Value)
    ours["o"].backward()

    assert ours["o"].data == pytest.approx(theirs["o"].item(), abs=1e-12)
    for name in article.NEURON:
        assert ours[name].grad == pytest.approx(theirs[name].grad.item(), abs=1e-12), name


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
