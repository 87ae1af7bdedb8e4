"""Chapter 05's exercises on the article's engine: the recursive topological sort
(`check_recursive_sort`) and the first `backward()` (`check_backward`).

Every mistake the catalogue (tests/mistakes/ch05.py) lists for these two exercises is planted
here, in a class as the chapter has it (`stage(4)`), and the check must fail with the words
that name it; the solutions must pass; the stubs must count as not answered.
"""

import linecache
import sys
import time
from pathlib import Path

import pytest

from autograd.checks import ch05, exercise
from autograd.stages import add_to_class, stage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mistakes import catalogue  # noqa: E402
from mistakes.ch05 import _BACKWARD, _RECURSIVE_SORT  # noqa: E402
from test_exercise_checks_operators_activations_and_sort import (  # noqa: E402
    leaves_first_order,  # a right order that is not the article's depth-first one
)

SORT_STUB = '''def topological_order(root):
    """Every value root depends on, each after its inputs, root last."""
    ...
'''

BACKWARD_STUB = '''@add_to_class(Value)
def backward(self):
    """Seed self.grad with 1.0, then each node's _backward in reverse topological order."""
    ...
'''


@pytest.fixture(autouse=True)
def fresh_answers():
    exercise.forget_answers()
    yield
    exercise.forget_answers()


def plant(source, Value=None, *, sort_source=_RECURSIVE_SORT):
    """Run `source` (an exercise cell) as the notebook would, on chapter 4's class with the
    solution's sort and a graph `L` already defined; return the cell's namespace."""
    Value = Value or stage(4)
    filename = f"<planted cell {abs(hash(source))}>"
    namespace = {"Value": Value, "add_to_class": add_to_class}
    for text in (sort_source, source):
        name = f"{filename} {abs(hash(text))}"
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        exec(compile(text, name, "exec"), namespace)
    a, b = Value(2.0), Value(-3.0)
    namespace["L"] = a * b + a
    return namespace


def first_failure(report):
    failures = report.failures
    assert failures, f"the check passed:\n{report}"
    return failures[0].message


def plain(text):
    return text.replace("`", "")


SORT_MISTAKES = [m for m in catalogue(5) if m.check == "ch05.check_recursive_sort"]
BACKWARD_MISTAKES = [m for m in catalogue(5) if m.check == "ch05.check_backward"]


def test_the_catalogue_has_the_mistakes_the_chapter_promises():
    assert len(SORT_MISTAKES) >= 10 and len(BACKWARD_MISTAKES) >= 8


# ------------------------------------------------------------------ the recursive sort


def test_the_articles_sort_passes_on_the_chapters_class_at_the_default_recursion_limit():
    namespace = plant(_RECURSIVE_SORT)
    with ch05.default_recursion_limit():
        report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    assert report.passed, str(report)
    assert ch05.RECURSIVE.outcome().status == "yours"


def test_the_sort_passes_on_the_packages_value_too():
    from autograd import Value

    namespace = plant(_RECURSIVE_SORT)
    assert ch05.check_recursive_sort(namespace["topological_order"], Value).passed


def test_the_sort_stub_is_not_answered_yet():
    namespace = plant(SORT_STUB)
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    assert not report.passed and "not answered yet" in str(report)
    assert ch05.RECURSIVE.outcome().status == "unanswered"


@pytest.mark.parametrize("mistake", SORT_MISTAKES, ids=[m.bug for m in SORT_MISTAKES])
def test_each_catalogued_sort_mistake_fails_with_words_that_name_it(mistake):
    namespace = plant(mistake.answer)
    started = time.monotonic()
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    elapsed = time.monotonic() - started
    message = first_failure(report)
    for words in mistake.says:
        assert plain(words) in plain(message), message
    assert ch05.RECURSIVE.outcome().status == "wrong"
    assert ch05.RECURSIVE.outcome().message == message  # what the checkpoint will quote
    # a sort that goes into shared nodes again and again must not hang the notebook
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_a_wrong_list_is_not_called_a_right_order_in_another():
    mistake = next(m for m in SORT_MISTAKES if m.bug == "no visited set")
    namespace = plant(mistake.answer)
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    said = next(r for r in report.results if r.name == ch05.recursive_article_order.check_name)
    assert said.message == "not checked yet: the list must be a right order first (see above)"


def test_messages_name_the_learners_function_and_the_graph():
    namespace = plant(_RECURSIVE_SORT.replace("    return topo", "    return topo[::-1]"))
    message = first_failure(ch05.check_recursive_sort(namespace["topological_order"],
                                                      namespace["Value"]))
    assert message.startswith("`topological_order` on the diamond d = (a + 1)·(2a) returned "
                              "[d, c, two, b, one, a] (6 nodes)"), message


def test_a_sort_without_visited_is_stopped_by_the_time_limit_with_words_that_name_it():
    # Deduplicating `topo` gives the right list, but goes into shared nodes once per path:
    # the chain of diamonds stops it, and the message names the missing visited set
    mistake = next(m for m in SORT_MISTAKES if "exponential" in m.bug)
    namespace = plant(mistake.answer)
    started = time.monotonic()
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    elapsed = time.monotonic() - started
    chain = report.results[-1]
    assert [r.passed for r in report.results] == [True, True, True, True, False], str(report)
    assert chain.message.startswith("did not return within 2 s (it was still in `topological_order`)")
    assert "without a `visited` set" in chain.message
    assert elapsed < 15, f"{elapsed:.1f} s"


def test_any_right_order_that_is_not_the_articles_is_told_so():
    report = ch05.check_recursive_sort(leaves_first_order, stage(4))
    failed = [r for r in report.results if not r.passed]
    assert [r.name for r in failed] == [ch05.recursive_article_order.check_name], str(report)
    assert "a right order, but not the article's depth-first one" in failed[0].message


def test_the_iterative_solution_gives_the_articles_order_and_passes():
    # The article's order is the depth-first one, however it is found
    from mistakes.ch05 import _SORT

    namespace = {}
    exec(_SORT, namespace)
    assert ch05.check_recursive_sort(namespace["iterative_topological_order"], stage(4)).passed


def test_a_class_without_labels_is_still_named_in_messages():
    class Bare:
        __slots__ = ("data", "grad", "_prev", "_op", "_backward")

        def __init__(self, data, _children=(), _op=""):
            self.data, self.grad, self._prev, self._op = float(data), 0.0, tuple(_children), _op
            self._backward = lambda: None

    namespace = plant(_RECURSIVE_SORT.replace("            topo.append(v)", ""))
    message = first_failure(ch05.check_recursive_sort(namespace["topological_order"], Bare))
    assert "returned an empty list" in message


# ------------------------------------------------------------------ backward()


def test_the_chapters_backward_passes_on_the_chapters_class():
    namespace = plant(_BACKWARD)
    report = ch05.check_backward(namespace["Value"])
    assert report.passed, str(report)
    assert ch05.BACKWARD.outcome().status == "yours"


def test_the_backward_stub_is_not_answered_yet():
    namespace = plant(BACKWARD_STUB)
    report = ch05.check_backward(namespace["Value"])
    assert not report.passed and "not answered yet" in str(report)


def test_a_class_without_backward_is_not_answered_yet():
    assert "not answered yet" in str(ch05.check_backward(stage(4)))


@pytest.mark.parametrize("mistake", BACKWARD_MISTAKES, ids=[m.bug for m in BACKWARD_MISTAKES])
def test_each_catalogued_backward_mistake_fails_with_words_that_name_it(mistake):
    namespace = plant(mistake.answer)
    report = ch05.check_backward(namespace["Value"])
    message = first_failure(report)
    for words in mistake.says:
        assert plain(words) in plain(message), message
    assert message.startswith("after `d.backward()` on the diamond d = (a + 1)·(2a) at a = 3, "
                              "a.grad came out "), message
    assert ch05.BACKWARD.outcome().message == message


def test_backward_mistakes_show_their_numbers():
    forward = next(m for m in BACKWARD_MISTAKES if m.bug == "forward order")
    message = first_failure(ch05.check_backward(plant(forward.answer)["Value"]))
    # b and c fire before d has given them anything; d's gift to them is never passed on
    assert "a.grad came out 0.0 instead of 14 (and b.grad 6.0, c.grad 4.0, d.grad 1.0)" in message
    assert "b's ran before d's, which uses b, so it passed on b.grad = 0.0" in message


def test_backward_uses_the_sort_the_chapter_has():
    # The learner's backward() calls `topological_order`: with a wrong sort behind it, its
    # check fails too (the chapter has the solution's sort there, once the sort's check failed)
    wrong_sort = _RECURSIVE_SORT.replace("    return topo", "    return topo[::-1]")
    namespace = plant(_BACKWARD, sort_source=wrong_sort)
    assert not ch05.check_backward(namespace["Value"]).passed


def test_a_backward_that_runs_a_closure_twice_is_told_so():
    twice = _BACKWARD.replace("    for node in reversed(topo):",
                              "    for node in reversed(topo + topo[-1:]):")
    message = first_failure(ch05.check_backward(plant(twice)["Value"]))
    assert "The closure of d ran 2 times" in message, message
