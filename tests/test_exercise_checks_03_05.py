"""The exercise checks of chapters 03-05 explain an unfinished or wrong attempt in words."""
from autograd.checks import ch03, ch04, ch05, checkpoint
from autograd.engine import Value as EngineValue
from autograd.stages import add_to_class, stage


def result(report, words):
    found = [r for r in report.results if words in r.name]
    assert len(found) == 1, [r.name for r in report.results]
    return found[0]


def test_chapter_three_exercise_stub_that_returns_none_is_named_not_crashed():
    V = stage(3)

    @add_to_class(V)
    def __sub__(self, other):
        ...

    message = str(ch03.check_sub(V))
    assert "`a - b` gave None, not a Value" in message and "return out" in message
    assert "AttributeError" not in message

    W = stage(3)

    @add_to_class(W)
    def __pow__(self, other):
        ...

    assert "`a ** 2` gave None" in str(ch03.check_pow(W))


def test_unanswered_predictions_do_not_give_the_answer_away():
    report = ch03.check_diamond_prediction(None)
    assert not report.passed and "no prediction yet" in str(report) and "14" not in str(report).split("\n", 2)[-1]
    report = ch04.check_tanh_slope_prediction(None, None)
    assert not report.passed and len(report.results) == 2
    assert "0.0099" not in str(report) and "0.00986" not in str(report)
    report = ch04.check_tanh_slope_prediction(1.0, None)
    assert report.results[0].passed and not report.results[1].passed
    assert ch04.check_tanh_slope_prediction(1, 0.0099).passed


def test_chapter_four_sigmoid_stub_that_returns_none_is_named():
    V = stage(4)

    @add_to_class(V)
    def sigmoid(self):
        ...

    assert "`Value(-3).sigmoid()` gave None, not a Value" in str(ch04.check_sigmoid(V))


def backward_without_reset(self):
    """The article's backward with an iterative sort: intermediate gradients are not reset."""
    order, visited, stack = [], {id(self)}, [(self, iter(self._prev))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    self.grad = 1.0
    for node in reversed(order):
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
    assert "at position 0 you wrote 'f', where the sort lists 'a'" in \
        result(report, "very order").message
    report = ch05.check_order_prediction(["a", "e", "b", "c", "d", "f", "L"], L)
    assert "you listed 'e' before 'b'" in result(report, "every value once").message
    assert "no prediction yet" in str(ch05.check_order_prediction([], L))
    assert "no value labelled 'x'" in str(ch05.check_order_prediction(["x"], L))
    assert "leaves out 'L'" in str(ch05.check_order_prediction(["a", "b", "e", "c", "d", "f"], L))
