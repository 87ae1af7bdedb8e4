"""The exercise checks of chapters 03-05 explain an unfinished or wrong attempt in words."""
import json
import linecache
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograd.checks import ch03, ch04, ch05, checkpoint
from autograd.checks.exercise import forget_answers
from autograd.graph import topological_order
from autograd.stages import add_to_class, stage
from mistakes.ch05 import _ALL_AT_ONCE

ROOT = Path(__file__).resolve().parent.parent


def result(report, words):
    found = [r for r in report.results if words in r.name]
    assert len(found) == 1, [r.name for r in report.results]
    return found[0]


def test_chapter_three_untouched_stub_is_not_answered_yet_not_a_bug():
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):
        ...  # replace ... with one line built from + and unary -

    report = ch03.check_sub(V)
    assert not report.passed and "not answered yet" in str(report)
    assert "AttributeError" not in str(report) and "return" not in report.results[0].message


def test_chapter_three_method_without_return_is_named_not_crashed():
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):
        self + (-other)

    message = str(ch03.check_sub(V))
    assert "`a - b` gave None, not a Value" in message and "no `return`" in message
    assert "AttributeError" not in message

    W = stage(3)

    @add_to_class(W)
    def __pow__(self, other):
        out = self.__class__(self.data**other, (self,), f"**{other}")
        out._backward = lambda: None

    assert "`a ** 2` gave None" in str(ch03.check_pow(W))


def learners(chapter, source, name):
    """Chapter `chapter`'s class with method `name` replaced by the learner's `source`, run
    as a notebook cell runs it (its source kept where `inspect` finds it, so that a stub is
    recognised as one)."""
    V = stage(chapter)
    filename = f"<cell {name} {len(linecache.cache)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), {"Value": V, "math": math, "add_to_class": add_to_class})
    return V


# The learner's __mul__, as chapter 3's exercise gives it: only the body of _backward is theirs.
MUL = """@add_to_class(Value)
def __mul__(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad

    out._backward = _backward
    return out
"""
MUL_LINES = """        self.grad += other.data * out.grad
        other.grad += self.data * out.grad
"""


def with_mul(old=MUL_LINES, new=MUL_LINES):
    assert old in MUL
    return learners(3, MUL.replace(old, new), "__mul__")


def test_chapter_three_mul_stub_is_not_answered_yet_and_a_right_closure_passes():
    report = ch03.check_mul(with_mul(MUL_LINES, "        ...  # replace ... with two lines\n"))
    assert not report.passed and "not answered yet" in str(report)
    assert "two lines of `_backward`" in str(report)
    assert ch03.check_mul(with_mul()).passed
    # the lines in the other order, or the local derivative written after out.grad: still right
    assert ch03.check_mul(with_mul(MUL_LINES, "        other.grad += out.grad * self.data\n"
                                              "        self.grad += out.grad * other.data\n")).passed
    assert ch03.check_mul(stage(3)).passed  # the package's __mul__


@pytest.mark.parametrize("new,words", [
    ("        self.grad += self.data * out.grad\n        other.grad += other.data * out.grad\n",
     "`self.data` and `other.data` are swapped"),
    ("        self.grad = other.data * out.grad\n        other.grad = self.data * out.grad\n",
     "assigned with `=` instead of adding with `+=`"),
    ("        self.grad += other.data\n        other.grad += self.data\n",
     "multiply it by the gradient arriving from above, `* out.grad`"),
    ("        self.grad += other.grad * out.grad\n        other.grad += self.grad * out.grad\n",
     "reads a gradient (`.grad`) where it needs a value (`.data`)"),
    ("        self.grad += other.data * out.grad\n", "passes gradient to a only"),
    ("        other.grad += self.data * out.grad\n", "passes gradient to b only"),
    ("        pass\n", "adds nothing to `self.grad` or `other.grad`"),
    ("        self.grad += 1.0 * out.grad\n        other.grad += 1.0 * out.grad\n",
     "the local derivative of a sum"),
], ids=["swapped", "assigned", "no-out-grad", "grad-not-data", "only-a", "only-b", "pass",
        "sum's-rule"])
def test_chapter_three_mul_names_each_mistake_and_not_a_missing_attachment(new, words):
    V = with_mul(MUL_LINES, new)
    report = ch03.check_mul(V)
    message = report.failures[0].message
    assert words in message, message
    assert "did you attach" not in message and "never attached" not in message
    assert "not checked yet" in report.results[1].message  # a * 2 waits for a * b
    assert not checkpoint(3, V).passed  # the checkpoint's own check of a * b fails too


def test_chapter_three_mul_closure_check_seeds_an_upstream_gradient_and_reuses_inputs():
    # `=` for `+=` and a missing `* out.grad` give the right numbers with an upstream gradient
    # of 1 and each input used once: the check must use neither
    message = ch03.check_mul(with_mul(MUL_LINES, "        self.grad = other.data * out.grad\n"
                                                 "        other.grad = self.data * out.grad\n")
                             ).failures[0].message
    assert "upstream gradient y.grad = 2.5" in message and "`y = (a * b) + a + b`" in message


def test_chapter_three_mul_names_a_closure_never_attached_a_missing_return_and_no_wrapping():
    V = learners(3, MUL.replace("    out._backward = _backward\n", ""), "__mul__")
    assert "it is never attached to the node" in ch03.check_mul(V).failures[0].message
    V = learners(3, MUL.replace("    return out\n", ""), "__mul__")
    assert "no `return`" in ch03.check_mul(V).failures[0].message
    V = learners(3, MUL.replace("    other = other if isinstance(other, Value) else Value(other)\n",
                                ""), "__mul__")
    report = ch03.check_mul(V)
    assert report.results[0].passed  # a * b is right ...
    assert "a plain number has no `.data`" in report.results[1].message  # ... a * 2 is not


def test_chapter_three_sub_built_from_the_numbers_is_told_to_use_operators_not_a_closure():
    # Once misleading: a new Value made from .data was told "`=` instead of `+=`" (for a) and
    # "did you attach it with `out._backward = _backward`?", though `__sub__` needs no closure
    for body, words in (("return Value(self.data - other.data)", "made from the numbers inside"),
                        ("return self.data - other.data", "not a Value")):
        V = learners(3, f"@add_to_class(Value)\ndef __sub__(self, other):\n    {body}\n",
                     "__sub__")
        message = ch03.check_sub(V).failures[0].message
        assert words in message and "build it from `+` and unary `-`" in message, message
        assert "attach" not in message and "`+=`" not in message, message
    # a node of its own whose closure is never attached: told so, and offered composition
    V = learners(3, "@add_to_class(Value)\ndef __sub__(self, other):\n"
                    "    return Value(self.data - other.data, (self, other), '-')\n", "__sub__")
    message = ch03.check_sub(V).failures[0].message
    assert "no closure was ever attached" in message and "unary `-`" in message, message


def test_unanswered_predictions_do_not_give_the_answer_away():
    report = ch03.check_diamond_prediction(None)
    assert not report.passed and "not answered yet" in str(report) and "14" not in str(report).split("\n", 2)[-1]
    report = ch04.check_tanh_slope_prediction(None, None)
    assert not report.passed and "not answered yet" in str(report)
    assert "0.0099" not in str(report) and "0.00986" not in str(report)
    report = ch04.check_tanh_slope_prediction(1.0, None)
    assert report.results[0].passed and not report.results[1].passed
    assert "no prediction yet for tanh'(3)" in report.results[1].message
    assert "0.0099" not in str(report) and "0.00986" not in str(report)
    assert ch04.check_tanh_slope_prediction(1, 0.0099).passed


def test_chapter_four_sigmoid_stub_is_not_answered_and_a_missing_return_is_named():
    V = stage(4)

    @add_to_class(V)
    def sigmoid(self):
        ...  # replace ...: s, out, a _backward with local derivative s·(1 − s), return out

    report = ch04.check_sigmoid(V)
    assert not report.passed and "not answered yet" in str(report)
    assert "gave None" not in str(report)

    W = stage(4)

    @add_to_class(W)
    def sigmoid(self):  # noqa: F811
        s = 1 / (1 + math.exp(-self.data))
        out = W(s, (self,), "sigmoid")
        out._backward = lambda: None

    message = str(ch04.check_sigmoid(W))
    assert "`Value(-3).sigmoid()` gave None, not a Value" in message and "no `return`" in message


# The learner's sigmoid, with one piece of it replaced (the mistakes of tests/mistakes/ch04.py).
SIGMOID = """
def sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = Value(s, (self,), "sigmoid")

    def _backward():
        self.grad += s * (1 - s) * out.grad

    out._backward = _backward
    return out
"""


def with_sigmoid(old="", new=""):
    """Chapter 4's class with the learner's `sigmoid`, `old` replaced by `new` in it."""
    V = stage(4)
    source = SIGMOID.replace(old, new)
    assert old in SIGMOID
    filename = f"<sigmoid {old!r} {new!r}>"  # inspect finds the source: it is not a stub
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"Value": V, "math": math}
    exec(compile(source, filename, "exec"), namespace)
    V.sigmoid = namespace["sigmoid"]
    return V


def test_chapter_four_sigmoid_without_upstream_gradient_or_with_assignment_fails_and_says_so():
    # Once a trap: leaving out `* out.grad` in sigmoid passed the exercise and the checkpoint,
    # 10 of 10; so did `=` for `+=`
    assert ch04.check_sigmoid(with_sigmoid()).passed
    for old, new, words in (
        ("s * (1 - s) * out.grad", "s * (1 - s)", "multiply it by the gradient arriving from "
                                                  "above, `* out.grad`"),
        ("self.grad +=", "self.grad =", "the closure assigned with `=` instead of adding with "
                                        "`+=`"),
    ):
        V = with_sigmoid(old, new)
        message = result(ch04.check_sigmoid(V), "values and gradients").message
        assert "upstream gradient y.grad = 2.5" in message and words in message
        report = checkpoint(4, V)
        assert not report.passed and words in result(report, "sigmoid: values").message
    report = checkpoint(4, with_sigmoid("s * (1 - s) * out.grad", "s * (1 - s)"))
    assert "`=` instead of `+=`" not in str(report)  # the numbers show a missing factor only


def test_chapter_four_names_assignment_only_when_the_numbers_show_it():
    # A message that misled, before: "did _backward use = instead of +=?" was said of any
    # wrong tanh
    def tanh_one_minus_t(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")  # noqa: F821  (the stage's own Value)

        def _backward():
            self.grad += (1 - t) * out.grad

        out._backward = _backward
        return out

    report = checkpoint(4, stage(4, tanh=tanh_one_minus_t))
    message = result(report, "each activation adds").message
    assert "`=`" not in message and "+=" not in message
    assert "tanh'(3) = 0.00986604, which is 1 − tanh²(x)" in message
    assert "1 − tanh(x), without the square" in result(report, "tanh: values").message

    def tanh_assigned(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")  # noqa: F821

        def _backward():
            self.grad = (1 - t**2) * out.grad

        out._backward = _backward
        return out

    report = checkpoint(4, stage(4, tanh=tanh_assigned))
    assert "assigned with `=` instead of adding with `+=`" in \
        result(report, "each activation adds").message
    assert "`=` instead of adding with `+=`" in result(report, "tanh: values").message


def test_chapter_four_sigmoid_catalogue_of_wrong_derivatives_and_nodes():
    for old, new, words in (
        ("s * (1 - s) * out.grad", "s * out.grad", "σ(x) alone: the factor (1 − σ(x)) is missing"),
        ("s * (1 - s) * out.grad", "(1 - s) * out.grad", "1 − σ(x) alone"),
        ("s * (1 - s) * out.grad", "(1 - s**2) * out.grad", "tanh's rule"),
        ("    out._backward = _backward\n", "", "passed nothing back to x"),
        ('(s, (self,), "sigmoid")', "(s)", "has no input"),
        ("math.exp(-self.data)", "math.exp(self.data)", "σ(−x)"),
    ):
        message = str(ch04.check_sigmoid(with_sigmoid(old, new)))
        assert words in message, message
        assert "Value(data=" not in message


def test_chapter_four_sigmoid_in_the_overflowing_form_is_right():
    # e^x / (1 + e^x) overflows for x near 710, but it is the sigmoid: the exercise accepts it
    V = with_sigmoid("1 / (1 + math.exp(-self.data))",
                     "math.exp(self.data) / (1 + math.exp(self.data))")
    assert ch04.check_sigmoid(V).passed


def test_chapter_four_slope_prediction_hints_first_then_answers_each_number_rounded():
    first = ch04.check_tanh_slope_prediction(0, 0.995)
    assert "tanh(0) itself, the value" in first.results[0].message
    assert "tanh(3) itself, the value" in first.results[1].message
    assert "0.0099" not in str(first) and "It is 1" not in str(first)
    second = ch04.check_tanh_slope_prediction(1, 0.99)  # tanh'(0) fixed; tanh'(3) wrong again
    assert second.results[0].passed
    assert "It is about 0.0099" in second.results[1].message
    assert "0.00986603" not in str(second)  # the rough number the question asked for
    forget_answers()
    # a number wrong for the first time is hinted at, even on the exercise's second wrong try
    ch04.check_tanh_slope_prediction(1, 0.5)
    third = ch04.check_tanh_slope_prediction(0.25, 0.5)
    assert "the sigmoid's slope at 0" in third.results[0].message
    assert "It is 1" not in third.results[0].message
    assert "It is about 0.0099" in third.results[1].message
    forget_answers()
    # a learner's number is printed as a person writes it
    report = ch04.check_tanh_slope_prediction(1, 1 - 0.99**2)
    assert "0.0199 is not tanh'(3)" in report.results[1].message
    # a rough number is fine: within 15%
    for rough in (0.01, 0.0099, 1 - 0.995**2, 0.0085, 0.011):
        assert ch04.check_tanh_slope_prediction(1, rough).passed, rough
    assert not ch04.check_tanh_slope_prediction(1, 0.005).passed


# The learner's tanh, with one piece of it replaced (the mistakes of tests/mistakes/ch04.py).
TANH = """@add_to_class(Value)
def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward():
        self.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out
"""


def with_tanh(old="", new=""):
    assert old in TANH
    return learners(3, TANH.replace(old, new), "tanh")


def test_chapter_four_tanh_stub_is_not_answered_yet_and_right_answers_pass():
    stub = '''@add_to_class(Value)
def tanh(self):
    """tanh(x) as a new node whose only input is x (self)."""
    ...  # replace ...: t with math.tanh, out, its _backward, then return out
'''
    report = ch04.check_tanh(learners(3, stub, "tanh"))
    assert not report.passed and "not answered yet" in str(report)
    assert ch04.check_tanh(with_tanh()).passed
    for old, new in (("(1 - t**2)", "(1 - out.data**2)"), ("(1 - t**2)", "(1 - t) * (1 + t)"),
                     ("math.tanh(self.data)", "(math.exp(self.data) - math.exp(-self.data)) / "
                                              "(math.exp(self.data) + math.exp(-self.data))")):
        report = ch04.check_tanh(with_tanh(old, new))
        assert report.results[1].passed, (new, str(report))


@pytest.mark.parametrize("old,new,words", [
    ("(1 - t**2)", "(1 - t)", "1 − tanh(x), without the square"),
    ("(1 - t**2)", "(1 - self.data**2)", "1 − x², which squares the input x"),
    ("(1 - t**2)", "t**2", "tanh²(x) alone"),
    ("(1 - t**2)", "(1 + t**2)", "the sign is wrong"),
    ("(1 - t**2) * out.grad", "(1 - t**2)", "`* out.grad`"),
    ("(1 - t**2) * out.grad", "1 - t**2 * out.grad", "without brackets only t² is multiplied"),
    ("self.grad +=", "self.grad =", "assigned with `=` instead of adding with `+=`"),
    ("math.tanh(self.data)", "self.data", "that is x itself"),
    ("math.tanh(self.data)", "math.tanh(self)", "not the Value `self`"),
    ("math.tanh(self.data)", "(math.exp(self.data) - 1) / (math.exp(self.data) + 1)",
     "that is tanh(x/2)"),
    ("math.tanh(self.data)", "(math.exp(2 * self.data) - 1) / math.exp(2 * self.data) + 1",
     "the fraction lost its brackets"),
    ("math.tanh(self.data)", "(math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)",
     "overflowed"),
    ('(t, (self,), "tanh")', "(t)", 'Build it with `Value(t, (self,), "tanh")`'),
], ids=["1-t", "1-x2", "t2", "1+t2", "no-out-grad", "no-brackets", "assigned", "no-tanh", "math-of-Value",
        "e-x", "brackets", "overflow", "no-input"])
def test_chapter_four_tanh_names_each_mistake(old, new, words):
    V = with_tanh(old, new)
    message = ch04.check_tanh(V).failures[0].message
    assert words in message, message
    assert "Value(data=" not in message
    assert not checkpoint(4, V).passed


def test_chapter_four_tanh_closure_check_seeds_an_upstream_gradient_and_reuses_x():
    message = ch04.check_tanh(with_tanh("self.grad +=", "self.grad =")).failures[0].message
    assert "upstream gradient y.grad = 2.5" in message and "`y = (x.tanh()) + x`" in message


def backward_without_reset(self):
    """The article's backward with an iterative sort: intermediate gradients are not reset."""
    self.grad = 1.0
    for node in reversed(topological_order(self)):
        node._backward()


def test_checkpoint_five_wants_exactly_one_more_copy_from_a_second_call():
    report = checkpoint(5, stage(5, backward=backward_without_reset))
    assert result(report, "leaf gradients grow").passed  # they do grow, by too much
    message = result(report, "exactly one more copy").message
    # a: 6 from the first call; the stale d and e send back 18 more, so 24 instead of 12
    assert "`a.grad` should be 12.0 but was 24.0" in message and "`grad = 0.0`" in message
    assert result(checkpoint(5, stage(5)), "exactly one more copy").passed


def L_graph():
    V = stage(5)
    a, b, c, f = (V(x, label=n) for x, n in ((2.0, "a"), (-3.0, "b"), (10.0, "c"), (-2.0, "f")))
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    L = d * f; L.label = "L"
    return L


def test_order_prediction_exercise():
    L = L_graph()
    # by hand: L._prev = (d, f); d._prev = (e, c); e._prev = (a, b)
    assert ch05.check_order_prediction(["a", "b", "e", "c", "d", "f", "L"], L).passed
    report = ch05.check_order_prediction(["f", "a", "b", "e", "c", "d", "L"], L)
    assert result(report, "every value once").passed  # valid, but not the depth-first order
    message = result(report, "very order").message
    assert "not the one this search gives: yours parts from it at position 0, 'f'" in message
    assert "'a', 'b', 'e'" not in message  # a hint first, not the answer
    report = ch05.check_order_prediction(["a", "e", "b", "c", "d", "f", "L"], L)
    message = result(report, "every value once").message
    assert "you listed 'e' before 'b'" in message
    assert "The sort lists ['a', 'b', 'e', 'c', 'd', 'f', 'L']" in message  # the second try
    forget_answers()
    assert "not answered yet" in str(ch05.check_order_prediction([], L))
    assert "not answered yet" in str(ch05.check_order_prediction(None, L))
    assert "no value labelled 'x'" in str(ch05.check_order_prediction(["x"], L))
    assert "its labels are L, a, b, c, d, e, f" in str(ch05.check_order_prediction(["x"], L))


def test_order_prediction_names_the_orders_people_give():
    L = L_graph()
    for order, words in (
        (["L", "f", "d", "c", "e", "b", "a"], "the order `backward()` runs the closures in"),
        (["L", "d", "e", "a", "b", "c", "f"], "when the search first reaches it"),
        (["f", "c", "b", "a", "e", "d", "L"], "from right to left"),
        (["a", "b", "c", "f", "e", "d", "L"], "all the leaves first"),
        (["b", "a", "c", "e", "f", "d", "L"], "breadth-first search from the output"),
    ):
        forget_answers()
        report = ch05.check_order_prediction(order, L)
        assert not report.passed and words in str(report), str(report)
        assert "'a', 'b', 'e', 'c'" not in str(report)


def test_order_prediction_does_not_call_a_missing_output_a_leaf():
    # A message that misled, before: "your list leaves out 'L': ... leaves too"
    L = L_graph()
    message = str(ch05.check_order_prediction(["a", "b", "e", "c", "d", "f"], L))
    assert "misses 'L', the output itself" in message and "leaves too" not in message
    forget_answers()
    message = str(ch05.check_order_prediction(["e", "d", "L"], L))
    assert "misses the leaves 'a', 'b', 'c', 'f'" in message


def sort_without_break(root):
    order, visited, stack = [], {root}, [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
        else:
            stack.pop()
            order.append(node)
    return order


def _sort_from_catalogue(source):
    """The sort a mistake of tests/mistakes/ch05.py plants, as a function (with its source)."""
    filename = "<planted sort>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["iterative_topological_order"]


sort_pushing_all_inputs = _sort_from_catalogue(_ALL_AT_ONCE)


def sort_of_children_only(root):
    order, visited, stack = [], {root}, [(root, iter(root._prev))]
    while stack:
        node, inputs = stack.pop()
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                order.append(child)
    return order


def test_sort_messages_name_nodes_by_label_and_the_bug():
    # A message that misled, before: messages showed `Value(data=0.0000, grad=0.0000)` for
    # every node
    for sort, words in (
        (sort_without_break, "`break` right after pushing an input"),
        (sort_pushing_all_inputs, "pushes all of a node's unvisited inputs at once"),
        (sort_of_children_only, "never listed the root, n17, itself"),
    ):
        message = result(ch05.check_topological_sort(sort, stage(5)), "random graphs").message
        assert "Value(data=" not in message, message
        assert words in message, message
        assert f"`{sort.__name__}` on random graph 0" in message and "(root n17)" in message
    message = result(ch05.check_topological_sort(sort_pushing_all_inputs, stage(5)),
                     "random graphs").message
    assert "on random graph 0, operands swapped (root n17) returned [x2, x1, n4, n5, " in message
    # a missing root is not called a leaf, nor a node that `_prev` did not lead to
    assert "follow `_prev`" not in result(
        ch05.check_topological_sort(sort_of_children_only, stage(5)), "random graphs").message


def leaves_first_order(root):
    """A right order that is not depth-first (Kahn's algorithm): leaves first, each node once
    every input it uses is listed. The sort checks must pass it as right."""
    nodes, stack = {id(root): root}, [root]
    while stack:
        for child in stack.pop()._prev:
            if id(child) not in nodes:
                nodes[id(child)] = child
                stack.append(child)
    waiting = {key: len({id(c) for c in node._prev}) for key, node in nodes.items()}
    users = {key: [] for key in nodes}
    for node in nodes.values():
        for key in {id(c) for c in node._prev}:
            users[key].append(node)
    ready = [node for key, node in nodes.items() if waiting[key] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for user in users[id(node)]:
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                ready.append(user)
    return order


def test_sort_exercise_passes_any_right_order_however_it_was_found():
    def right_to_left(root):  # the depth-first search, each node's inputs taken backwards
        order, visited, stack = [], {id(root)}, [(root, iter(root._prev[::-1]))]
        while stack:
            node, inputs = stack[-1]
            for child in inputs:
                if id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, iter(child._prev[::-1])))
                    break
            else:
                stack.pop()
                order.append(node)
        return order

    for sort in (right_to_left, leaves_first_order):
        report = ch05.check_topological_sort(sort, stage(5))
        assert report.passed, str(report)


def test_sort_stub_is_not_answered_yet():
    namespace = {}
    source = ("def iterative_topological_order(root):\n    order = []\n"
              "    ...  # replace ...: while the stack is not empty\n    return order\n")
    linecache.cache["<sort stub>"] = (len(source), None, source.splitlines(True), "<sort stub>")
    exec(compile(source, "<sort stub>", "exec"), namespace)
    report = ch05.check_topological_sort(namespace["iterative_topological_order"], stage(5))
    assert not report.passed and "not answered yet" in str(report)


STEPPERS_AFTER_RUN_ALL = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from autograd.widgets import BackwardStepper
notebook = json.load(open(sys.argv[1], encoding="utf-8"))
shell = InteractiveShell.instance()
shown = []
for cell in notebook["cells"]:
    if cell["cell_type"] != "code":
        continue
    source = "".join(cell["source"])
    result = shell.run_cell(source, silent=True)
    tags = cell.get("metadata", {}).get("tags", [])
    assert result.success or "raises-exception" in tags, source
    last = source.strip().splitlines()[-1].strip()
    value = shell.user_ns.get(last) if last.isidentifier() else None
    if isinstance(value, BackwardStepper):  # the cell shows this stepper
        shown.append((last, value))
print(json.dumps([(name, stepper.position) for name, stepper in shown]))
"""


def test_chapter_five_steppers_start_at_step_zero_after_run_all(tmp_path):
    # Once a trap: cells that drove a stepper from code left the one shown at its last step
    script = tmp_path / "steppers.py"
    script.write_text(STEPPERS_AFTER_RUN_ALL)
    notebook = ROOT / "notebooks" / "05_topological_sort.ipynb"
    done = subprocess.run([sys.executable, str(script), str(notebook)], cwd=notebook.parent,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, MPLBACKEND="Agg"))
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert [name for name, _ in shown] == ["wrong", "stepper"]
    assert all(position == 0 for _, position in shown), shown
