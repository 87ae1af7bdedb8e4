"""Helpers the chapter check tests (tests/test_checks_chNN.py) share: finding a check's result in a
report, and small stand-ins for a learner's code used by more than one chapter."""

import linecache
import math

from autograd.stages import add_to_class, stage


LAST_CHAPTER = 11


def result(report, words):
    """The one result of `report` whose name contains `words`."""
    found = [r for r in report.results if words in r.name]
    assert len(found) == 1, [r.name for r in report.results]
    return found[0]


def failure_message(report, words):
    """The message of the failed check whose name contains `words` (it must have failed)."""
    found = result(report, words)
    assert not found.passed, f"expected {found.name!r} to fail:\n{report}"
    assert not report.passed
    return found.message


def add_with_assignment(self, other):
    other = other if isinstance(other, Value) else Value(other)  # noqa: F821
    out = Value(self.data + other.data, (self, other), "+")  # noqa: F821

    def _backward():
        a, b = out._prev
        a.grad = out.grad
        b.grad = out.grad

    out._backward = _backward
    return out


def tanh_with_slope_one_minus_t(self):
    out = Value(math.tanh(self.data), (self,), "tanh")  # noqa: F821

    def _backward():
        a = out._prev[0]
        a.grad += (1.0 - out.data) * out.grad

    out._backward = _backward
    return out


def only_message(report):
    (result,) = report.results
    assert not result.passed and not report.passed
    return result.message


def first_failure(report):
    assert not report.passed, str(report)
    return report.failures[0].message


def stub(f, x, h=1e-5):
    """The notebook's stub, as given."""
    ...  # replace ... with `return` and the central difference


def learners(chapter, source, name):
    """Chapter `chapter`'s class with method `name` replaced by the learner's `source`, run
    as a notebook cell runs it (its source kept where `inspect` finds it, so that a stub is
    recognised as one)."""
    V = stage(chapter)
    filename = f"<cell {name} {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(
        compile(source, filename, "exec"), {"Value": V, "math": math, "add_to_class": add_to_class}
    )
    return V
