"""The exercise checks of chapter 09 accept the right answers and explain the wrong ones: a
hint on the first wrong prediction, the answer after the second; an untouched stub is "not
answered yet"; each classic mistake in `Dual.tanh` is named."""

import math

from autograd import Neuron
from autograd.checks import ch09
from autograd.checks.exercise import answers_for


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
    assert "not answered yet" in str(report) and "14" not in str(report)


def test_neuron_count_gives_a_hint_first_and_the_answer_after_a_second_wrong_try():
    first = messages(ch09.check_neuron_node_count(10))
    assert "neuron's own leaves" in first and "14" not in first and "Try again" in first
    second = messages(ch09.check_neuron_node_count(12))
    assert "The answer is 14" in second and "three weights and a bias" in second


def test_neuron_count_catalogue_of_wrong_numbers_each_gets_its_own_hint():
    from autograd.checks.exercise import forget_answers

    for wrong, words in (
        (13, "leave out the relu"),
        (7, "counts the operations only"),
        (17, "counts each input twice"),
        (20, "act = act + w * x"),
    ):
        forget_answers()  # each one a first try
        message = messages(ch09.check_neuron_node_count(wrong))
        assert words in message and "14" not in message, (wrong, message)


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


def test_unfinished_dual_tanh_stub_is_not_answered_yet_not_a_bug():
    def tanh(self):  # a stub, as a notebook gives it
        ...  # return a new Dual: its value tanh(self.value), its slope by the chain rule

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert not report.passed and len(report.results) == 1
    assert "not answered yet" in str(report)
    assert "AttributeError" not in str(report) and "return" not in messages(report).split(":")[0]


def test_dual_tanh_without_return_is_named_once_not_a_traceback():
    def tanh(self):
        t = math.tanh(self.value)
        Dual(t, (1 - t * t) * self.slope)

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert [r.passed for r in report.results] == [False, False, False]
    assert "gave None, not a Dual" in report.results[0].message
    assert "no `return`" in report.results[0].message
    assert all("see the first line" in r.message for r in report.results[1:])
    assert "AttributeError" not in messages(report)


def test_dual_tanh_that_returns_a_float_is_told_it_lost_the_slope():
    def tanh(self):
        t = math.tanh(self.value)
        return (1 - t * t) * self.slope

    message = ch09.check_dual_tanh(dual_with(tanh)).results[0].message
    assert "a float, not a Dual" in message and "0.0706508" in message


def test_dual_tanh_with_one_minus_tanh_is_told_to_square_it():
    def tanh(self):
        t = math.tanh(self.value)
        return Dual(t, (1 - t) * self.slope)

    report = ch09.check_dual_tanh(dual_with(tanh))
    assert report.results[0].passed and not report.results[1].passed
    assert "that is 1 − tanh(x)" in report.results[1].message
    assert "square the tanh" in report.results[1].message


def test_dual_tanh_with_value_and_slope_swapped_is_told_so():
    def tanh(self):
        t = math.tanh(self.value)
        return Dual((1 - t * t) * self.slope, t)

    message = ch09.check_dual_tanh(dual_with(tanh)).results[0].message
    assert "the wrong way round" in message


def test_dual_tanh_messages_name_a_bug_only_when_the_numbers_show_it():
    def tanh(self):  # a slope that is none of the classic mistakes
        t = math.tanh(self.value)
        return Dual(t, 0.25 * self.slope)

    report = ch09.check_dual_tanh(dual_with(tanh))
    said = messages(report)
    assert not report.passed
    for bug in ("`* self.slope`", "square", "wrong way round", "unchanged", "has no slope"):
        assert bug not in said, bug


def test_dual_tanh_that_ignores_the_incoming_slope_fails_only_the_chain_rule():
    def tanh(self):
        t = math.tanh(self.value)
        return Dual(t, 1 - t * t)  # forgets to multiply by self.slope

    report = ch09.check_dual_tanh(dual_with(tanh))
    passed = [r.passed for r in report.results]
    assert passed == [True, True, False]
    message = report.results[2].message
    assert "tanh'(x) alone" in message and "`* self.slope`" in message
    assert "twin of `* out.grad`" in message


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


def test_swapped_pass_counts_are_told_the_modes_are_swapped():
    report = ch09.check_pass_counts(1, 337, 1000, 1)
    assert [r.passed for r in report.results] == [False, False, False, False]
    assert all("the two modes are swapped" in r.message for r in report.results)
    assert not any(
        str(n) in r.message.split(":", 1)[1] for r in report.results for n in (337, 1000)
    )  # a hint first, not the answers


def test_wrong_pass_counts_get_the_rule_of_their_mode_then_the_answers():
    report = ch09.check_pass_counts(2, 1, 1, 7)  # (a) forward and (b) backward wrong
    assert [r.passed for r in report.results] == [False, True, True, False]
    assert "not a forward and a backward pass" in report.results[0].message
    assert "starts from one output" in report.results[3].message
    second = ch09.check_pass_counts(3, 1, 1, 7)
    assert "The answer is 337" in second.results[0].message
    assert "The answer is 1,000" in second.results[3].message


def test_pass_count_exercises_belong_to_chapter_nine():
    titles = [exercise.title for exercise, _ in answers_for(9)]
    assert titles == ["count one neuron", "tanh for dual numbers", "count the passes"]


def test_untouched_pass_counts_are_not_answered_yet():
    report = ch09.check_pass_counts(None, None, None, None)
    assert not report.passed and "not answered yet" in str(report)


def test_unanswered_pass_counts_are_reported_without_the_answers():
    report = ch09.check_pass_counts(None, None, None, "many")
    assert not report.passed and len(report.results) == 4
    said = [r.message for r in report.results]
    assert all(m.startswith("no prediction yet") for m in said[:3])
    assert "a whole number" in said[3] and "'many'" in said[3]
    assert not any(str(n) in m for m in said for n in (337, 1000, "1,000"))
