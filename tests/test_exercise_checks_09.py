"""The exercise checks of chapter 09 accept the right answers and explain the wrong ones."""
import math

from autograd import Neuron
from autograd.checks import ch09


def messages(report):
    return "\n".join(r.message for r in report.results)


# --------------------------------------------------------------------- counting a neuron


def count_graph(root):
    """Every node `root` depends on, found by following `_prev` (independent of the checks)."""
    seen, stack = {id(root)}, [root]
    while stack:
        for child in stack.pop()._prev:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return len(seen)


def test_neuron_count_accepts_fourteen_worked_by_hand():
    # Per input: the wrapped number, w * x, act + w * x (3 × 3 = 9); the relu (1); the three
    # weights and the bias (4): 14.
    assert ch09.check_neuron_node_count(14).passed
    assert not ch09.check_neuron_node_count(13).passed


def test_neuron_count_the_check_wants_is_the_size_of_the_engines_own_graph():
    root = Neuron(ch09.NEURON_INPUTS, seed=1)([0.3, -1.2, 2.0])
    assert ch09.check_neuron_node_count(count_graph(root)).passed


def test_neuron_count_that_forgets_the_wrapped_inputs_is_told_so():
    # 14 without the three wrapped numbers is 11
    message = messages(ch09.check_neuron_node_count(11))
    assert "wraps each one into a Value" in message


def test_neuron_count_that_forgets_the_weights_is_told_they_are_nodes_too():
    message = messages(ch09.check_neuron_node_count(10))  # 14 without the four parameters
    assert "weights and the bias are nodes too" in message


def test_unanswered_neuron_count_does_not_give_the_answer_away():
    report = ch09.check_neuron_node_count(None)
    assert not report.passed
    assert "no prediction yet" in str(report) and "14" not in str(report)


# --------------------------------------------------------------------- dual numbers


class Dual:
    """A dual number written for the tests: value + slope·ε, with a correct tanh."""

    def __init__(self, value, slope=0.0):
        self.value, self.slope = float(value), float(slope)

    def tanh(self):
        t = math.tanh(self.value)
        return Dual(t, (1 - t * t) * self.slope)


def dual_with(tanh):
    return type("Dual", (Dual,), {"tanh": tanh})


def test_correct_dual_tanh_passes_every_check():
    report = ch09.check_dual_tanh(Dual)
    assert report.passed and len(report.results) == 3


def test_unfinished_dual_tanh_stub_gets_one_plain_message_not_a_traceback():
    def tanh(self):
        ...

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert not report.passed and len(report.results) == 1
    message = messages(report)
    assert "gave None, not a Dual" in message and "`return`" in message
    assert "AttributeError" not in message


def test_dual_tanh_that_ignores_the_incoming_slope_fails_only_the_chain_rule():
    def tanh(self):
        t = math.tanh(self.value)
        return Dual(t, 1 - t * t)  # forgets to multiply by self.slope

    report = ch09.check_dual_tanh(dual_with(tanh))
    passed = [r.passed for r in report.results]
    assert passed == [True, True, False]
    assert "multiply by `self.slope`" in report.results[2].message


def test_dual_tanh_that_squares_the_input_instead_of_tanh_is_told_so():
    def tanh(self):
        return Dual(math.tanh(self.value), (1 - self.value**2) * self.slope)

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert report.results[0].passed and not report.results[1].passed
    assert "square tanh(x), not x" in report.results[1].message


def test_dual_tanh_that_overwrites_its_input_is_caught():
    def tanh(self):
        t = math.tanh(self.value)
        self.value, self.slope = t, (1 - t * t) * self.slope
        return self

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert not report.results[0].passed
    assert "returned the very Dual it was called on" in report.results[0].message


# --------------------------------------------------------------------- counting passes


def test_pass_counts_follow_one_pass_per_input_forward_and_per_output_backward():
    # The MLP's loss: 337 inputs, 1 output. The curve: 1 input, 1,000 outputs.
    assert ch09.check_pass_counts(337, 1, 1, 1000).passed


def test_swapped_pass_counts_fail_each_with_the_rule_of_its_mode():
    report = ch09.check_pass_counts(1, 337, 1000, 1)
    assert [r.passed for r in report.results] == [False, False, False, False]
    assert "seeds one input" in report.results[0].message
    assert "starts from one output" in report.results[1].message


def test_unanswered_pass_counts_are_reported_without_the_answers():
    report = ch09.check_pass_counts(None, None, None, "many")
    assert not report.passed and len(report.results) == 4
    said = [r.message for r in report.results]
    assert all(m.startswith("no prediction yet") for m in said[:3])
    assert "a whole number" in said[3] and "'many'" in said[3]
    assert not any(str(n) in m for m in said for n in (337, 1000, "1,000"))
