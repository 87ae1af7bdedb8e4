"""The checks of chapter 13 accept what the chapter asks for and explain, in words, what is wrong
with the rest: `unbroadcast`, the closure of `*` with broadcasting, the backward pass of `@`, and
the checkpoint on the learner's `Tensor` (which also lists the chapter's three exercises).

The class below is this file's own copy of the one the chapter builds, made from source as a
notebook cell makes it, so that a stub's `...` can be found."""

import linecache

import numpy as np
import pytest

from autograd.checks import ch13, checkpoint
from autograd.stages import add_to_class
from autograd.graph import topological_order
from mistakes import catalogue

CLASS = """
class Tensor:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros_like(self.data)
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    @property
    def shape(self):
        return self.data.shape

    def sum(self):
        out = Tensor(self.data.sum(), (self,), "sum")

        def _backward():
            self.grad += np.ones_like(self.data) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo = topological_order(self)
        for node in topo:
            if node._prev:
                node.grad = np.zeros_like(node.data)
        self.grad = np.ones_like(self.data)
        for node in reversed(topo):
            node._backward()


@add_to_class(Tensor)
def __add__(self, other):
    other = other if isinstance(other, Tensor) else Tensor(other)
    out = Tensor(self.data + other.data, (self, other), "+")

    def _backward():
        self.grad += unbroadcast(out.grad, self.shape)
        other.grad += unbroadcast(out.grad, other.shape)

    out._backward = _backward
    return out
"""

UNBROADCAST = """
def unbroadcast(grad, shape):
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True)
"""


def _method(name, op, first, second):
    return (
        f"@add_to_class(Tensor)\ndef {name}(self, other):\n"
        "    other = other if isinstance(other, Tensor) else Tensor(other)\n"
        f'    out = Tensor(self.data {op} other.data, (self, other), "{op}")\n\n'
        f"    def _backward():\n        {first}\n        {second}\n\n"
        "    out._backward = _backward\n    return out\n"
    )


MUL = _method(
    "__mul__",
    "*",
    "self.grad += unbroadcast(other.data * out.grad, self.shape)",
    "other.grad += unbroadcast(self.data * out.grad, other.shape)",
)
MATMUL = _method(
    "__matmul__",
    "@",
    "self.grad += out.grad @ other.data.T",
    "other.grad += self.data.T @ out.grad",
)


def run(source, namespace):
    """Run `source` as a notebook cell does, its source kept where `inspect` finds it."""
    filename = f"<cell {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def notebook(*cells):
    """A namespace in which the chapter's given cells, then `cells`, have run."""
    namespace = {"np": np, "add_to_class": add_to_class, "topological_order": topological_order}
    for source in (CLASS, UNBROADCAST, *cells):
        run(source, namespace)
    return namespace


def failed(report):
    return [r for r in report.results if not r.passed]


# --------------------------------------------------------------------- right answers


def test_the_right_answers_pass_every_check_and_the_checkpoint():
    ns = notebook(MUL, MATMUL)
    assert ch13.check_unbroadcast(ns["unbroadcast"]).passed
    assert ch13.check_mul(ns["Tensor"]).passed
    assert ch13.check_matmul(ns["Tensor"]).passed
    report = checkpoint(13, ns["Tensor"])
    assert report.passed, str(report)


def test_unbroadcast_written_another_way_passes():
    other = (
        "def unbroadcast(grad, shape):\n"
        "    while grad.ndim > len(shape):\n"
        "        grad = grad.sum(axis=0)\n"
        "    for i, n in enumerate(shape):\n"
        "        if n == 1:\n"
        "            grad = grad.sum(axis=i, keepdims=True)\n"
        "    return grad\n"
    )
    assert ch13.check_unbroadcast(run(other, {})["unbroadcast"]).passed


def test_the_stubs_are_not_answered_yet():
    stub = run("def unbroadcast(grad, shape):\n    ...  # sum\n    return grad\n", {})
    report = ch13.check_unbroadcast(stub["unbroadcast"])
    assert not report.passed and "not answered yet" in str(report)
    ns = notebook(_method("__mul__", "*", "...", "pass"))
    report = ch13.check_mul(ns["Tensor"])
    assert not report.passed and "not answered yet" in str(report)


# --------------------------------------------------------------------- each mistake named


def answered(mistake):
    """The check of `mistake`'s exercise, run on the notebook with its answer typed in."""
    if mistake.check == "ch13.check_unbroadcast":
        return ch13.check_unbroadcast(run(mistake.answer, {"np": np})["unbroadcast"])
    return getattr(ch13, mistake.check.split(".")[1])(notebook(mistake.answer)["Tensor"])


@pytest.mark.parametrize("mistake", [pytest.param(m, id=m.bug) for m in catalogue(13)])
def test_each_catalogued_mistake_fails_and_is_named_first(mistake):
    first = failed(answered(mistake))[0].message  # what the checkpoint shows for a wrong answer
    for words in mistake.says:
        assert words in first, first


@pytest.mark.parametrize(
    "body, words",
    [
        ("    return grad\n", "gave the gradient back unchanged"),
        (
            "    return grad.sum(axis=1) if grad.ndim > len(shape) else grad\n",
            "summed over the wrong axis",
        ),
        ("    grad.sum()\n", "gave None"),
    ],
)
def test_other_wrong_unbroadcasts_are_told_what_they_did(body, words):
    report = ch13.check_unbroadcast(
        run("def unbroadcast(grad, shape):\n" + body, {})["unbroadcast"]
    )
    assert words in "\n".join(r.message for r in failed(report))


@pytest.mark.parametrize(
    "first, second, words",
    [
        (
            "self.grad += unbroadcast(self.data * out.grad, self.shape)",
            "other.grad += unbroadcast(other.data * out.grad, other.shape)",
            "*other* factor",
        ),
        (
            "self.grad += unbroadcast(other.data * out.grad, self.shape)",
            "other.grad = other.grad + self.data * out.grad",
            "Forgetting to unbroadcast",
        ),
    ],
)
def test_other_wrong_products_are_told_what_they_did(first, second, words):
    report = ch13.check_mul(notebook(_method("__mul__", "*", first, second))["Tensor"])
    assert words in "\n".join(r.message for r in failed(report))


@pytest.mark.parametrize(
    "first, second, words",
    [
        (
            "self.grad += other.data.T @ out.grad",
            "other.grad += self.data.T @ out.grad",
            "`B.T @ dC` where it should be `dC @ B.T`",
        ),
        (
            "self.grad += out.grad @ other.data.T",
            "other.grad += out.grad @ self.data",
            "`dC @ A` where it should be `A.T @ dC`",
        ),
        (
            "self.grad += out.grad @ other.data.T",
            "other.grad += self.data @ out.grad",
            "fits only square matrices",
        ),
        ("self.grad += out.grad", "other.grad += out.grad", "passed `out.grad` on unchanged"),
    ],
)
def test_other_wrong_matrix_products_are_told_what_they_did(first, second, words):
    report = ch13.check_matmul(notebook(_method("__matmul__", "@", first, second))["Tensor"])
    assert words in "\n".join(r.message for r in failed(report))


# --------------------------------------------------------------------- the checkpoint's own checks


def test_the_checkpoint_fails_a_class_whose_product_is_wrong_even_without_the_exercises():
    # a class whose `@` passes back the wrong gradient fails the checkpoint's own checks, which
    # compare with the scalar engine, whatever the exercises' outcomes
    ns = notebook(
        MUL,
        _method(
            "__matmul__",
            "@",
            "self.grad += out.grad @ other.data.T",
            "other.grad += (self.data.T @ out.grad) * 2",
        ),
    )
    report = checkpoint(13, ns["Tensor"])
    own = [
        r
        for r in failed(report)
        if "scalar engine" in r.message or "package's" in r.message or "should be" in r.message
    ]
    assert own, str(report)


def test_the_checkpoint_fails_a_class_that_does_not_unbroadcast():
    ns = notebook(MUL, MATMUL, "def unbroadcast(grad, shape):\n    return grad\n")
    report = checkpoint(13, ns["Tensor"])
    assert not report.passed
    assert "raised ValueError" in "\n".join(r.message for r in failed(report))


def test_the_checkpoint_refuses_what_cannot_be_called():
    with pytest.raises(TypeError, match="your class, `Tensor`"):
        checkpoint(13, 42)


def test_a_wrong_array_is_shown_in_monospace_with_the_first_element_that_differs():
    def doubles(grad, shape):  # right shape, wrong numbers
        return 2 * grad if grad.shape == tuple(shape) else grad.sum(axis=0).reshape(shape)

    report = ch13.check_unbroadcast(doubles)
    message = report.failures[0].message
    assert "the first element that differs: [0, 0] is" in message, message
    html = report._repr_html_()
    assert '<code style="display:block;white-space:pre' in html  # columns line up
    block = html.split('<code style="display:block;white-space:pre')[1].split("</code>")[0]
    assert "array([[" in block and "<br>" not in block
