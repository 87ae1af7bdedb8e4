"""Chapter 01's checks (`autograd.checks.ch01`): the exercises (numerical_derivative, the best
step, the count of evaluations) pass a right answer and explain a wrong one in words, and the
checkpoint passes the package's central difference and fails honestly on a wrong one."""

import math
import re

import pytest

from autograd.checks import ch01, checkpoint

from checks_support import failure_message, first_failure, only_message, result, stub


# ---------------------------------------------------------------- the package passes


def central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_checkpoint_one_passes_a_central_difference():
    assert checkpoint(1, central).passed, str(checkpoint(1, central))


def test_checkpoint_one_passes_the_packages_central_difference():
    from autograd.gradcheck import central_difference

    report = checkpoint(1, central_difference)
    assert report.passed, str(report)


# ---------------------------------------------------------------- chapter 1 fails honestly


def test_checkpoint_one_catches_a_forward_difference():
    def forward(f, x, h=1e-5):
        return (f(x + h) - f(x)) / h

    message = failure_message(checkpoint(1, forward), "central difference")
    assert "gave 3.31, the forward difference" in message


def test_checkpoint_one_catches_a_step_that_is_ignored():
    def fixed_step(f, x, h=1e-5):
        return (f(x + 1e-5) - f(x - 1e-5)) / 2e-5

    assert "as if it ignored h" in failure_message(checkpoint(1, fixed_step), "central difference")


def test_checkpoint_one_catches_a_tiny_default_step():
    def tiny(f, x, h=1e-13):
        return (f(x + h) - f(x - h)) / (2 * h)

    report = checkpoint(1, tiny)
    assert "the default h should be between 1e-8 and 1e-3, but was 1e-13" in failure_message(
        report, "sensible default"
    )
    assert not result(report, "3x² − 4x + 5").passed  # round-off ruins the slope too


def test_chapter_one_exercise_checks():
    assert ch01.check_numerical_derivative(central).passed

    def slope_plus_two(f, x, h=1e-5):  # 6x − 4 + 2: at x = 3, 16 instead of 14
        return central(f, x, h) + 2

    assert "`numerical_derivative(f, 3)` for f(x) = 3x² − 4x + 5 should be 14 but was 16" in (
        str(ch01.check_numerical_derivative(slope_plus_two))
    )
    assert ch01.check_evaluation_count(2000).passed
    first = ch01.check_evaluation_count(1001)  # the forward-difference count: a hint first
    assert not first.passed and "forward differences" in str(first) and "2000" not in str(first)
    assert "The answer is 2000" in str(ch01.check_evaluation_count(1000))  # the second try


EPS = 2.0**-52


def no_long_numbers(text):
    """No number printed with more digits than a learner asked for."""
    return not re.search(r"\d\.\d{5,}|\d{7,}", text)


def forward(f, x, h=1e-5):
    return (f(x + h) - f(x)) / h


def backward(f, x, h=1e-5):
    return (f(x) - f(x - h)) / h


def no_two(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / h


def own_step(f, x, h=1e-5):
    h = 1e-4
    return (f(x + h) - f(x - h)) / (2 * h)


def wrong_sign(f, x, h=1e-5):
    return (f(x - h) - f(x + h)) / (2 * h)


def no_return(f, x, h=1e-5):
    (f(x + h) - f(x - h)) / (2 * h)


def no_parentheses(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / 2 * h


def only_last_divided(f, x, h=1e-5):
    return f(x + h) - f(x - h) / (2 * h)


def forward_over_two_h(f, x, h=1e-5):
    return (f(x + h) - f(x)) / (2 * h)


def test_the_central_difference_passes_and_says_it_tested_yours():
    report = ch01.check_numerical_derivative(central)
    assert report.passed, str(report)
    assert "✓ the central difference (your `numerical_derivative`)" in str(checkpoint(1, central))


def test_the_untouched_stub_is_not_answered_yet_rather_than_wrong():
    report = ch01.check_numerical_derivative(stub)
    assert not report.passed and report.summary() == "not answered yet"
    assert "no `return`" not in str(report)


@pytest.mark.parametrize(
    "function,words",
    [
        # x³ at 1 with h = 0.1: f(1.1) = 1.331, f(1) = 1, f(0.9) = 0.729.
        (forward, "gave 3.31, the forward difference"),  # 0.331 / 0.1
        (backward, "gave 2.71, the backward difference"),  # 0.271 / 0.1
        (no_two, "divide by 2h, not h"),  # 0.602 / 0.1 = 6.02
        (own_step, "as if it ignored h"),  # the same number for h = 0.1 and h = 0.2
        (wrong_sign, "the sign wrong"),  # −0.602 / 0.2
        (no_return, "no `return`"),
        (no_parentheses, "without parentheses Python divides by 2 and then multiplies by h"),
        (only_last_divided, "only f(x − h) is divided"),  # 1.331 − 0.729 / 0.2 = −2.314
        (forward_over_two_h, "uses f(x − h), not f(x)"),  # 0.331 / 0.2 = 1.655
    ],
)
def test_each_classic_numerical_derivative_bug_is_named(function, words):
    message = first_failure(ch01.check_numerical_derivative(function))
    assert words in message, message
    report = checkpoint(1, central)  # the solution stood in: the learner's failure still shows
    assert not report.passed and words in str(report), str(report)


def test_a_tiny_default_step_is_named_by_the_exercise_too():
    def tiny(f, x, h=1e-13):
        return (f(x + h) - f(x - h)) / (2 * h)

    report = ch01.check_numerical_derivative(tiny)
    assert "the default h should be between 1e-8 and 1e-3, but was 1e-13" in str(report)


@pytest.mark.parametrize(
    "default,words", [(1e-13, "too small"), (0.5, "too large"), (0.0, "small positive number")]
)
def test_a_bad_default_step_is_blamed_first_not_the_slope(default, words):
    # Once a trap: the first failure, which the checkpoint quotes, said "the slope is 6x − 4"
    # to a learner whose formula was right and whose default h was not
    source = (
        f"def nd(f, x, h={default!r}):\n    return (f(x + h) - f(x - h)) / (2 * h) if h else f(x)\n"
    )
    namespace = {}
    exec(source, namespace)
    for report in (
        ch01.check_numerical_derivative(namespace["nd"]),
        checkpoint(1, namespace["nd"]),
    ):
        first = first_failure(report)
        assert f"its default h = {default!r} is not" in first and words in first, first
        assert "the slope is 6x − 4" not in first and "is cos(1)" not in first


def test_a_wrong_formula_with_a_bad_default_step_is_still_told_about_the_formula():
    def forward(f, x, h=0.5):
        return (f(x + h) - f(x)) / h

    first = first_failure(ch01.check_numerical_derivative(forward))
    assert "the forward difference" in first and "your formula is right" not in first
    slopes = [
        r.message
        for r in checkpoint(1, forward).failures
        if "6x − 4" in r.message or "cos(1)" in r.message or "exp(" in r.message
    ]
    assert slopes and all("your formula is right" not in m for m in slopes)


# ---------------------------------------------------------------- chapter 01: the best step


def test_bottom_of_the_v_is_where_truncation_meets_round_off():
    # Central error for f at x is about h²|f'''(x)|/6 + ε|f(x)|/h; its minimum is at
    # h = (3ε|f(x)| / |f'''(x)|)^(1/3). For eˣ at 1 the e's cancel: h = (3ε)^(1/3) ≈ 8.7e-6.
    # The round-off term is only an estimate, so allow a factor of 4 either way.
    for f, df, third, x in (
        (math.exp, math.exp, math.exp, 1.0),
        (math.sin, math.cos, lambda t: -math.cos(t), 1.0),
    ):
        theory = (3 * EPS * abs(f(x)) / abs(third(x))) ** (1 / 3)
        found = ch01.bottom_of_the_v(f, df, x)
        assert theory / 4 < found < theory * 4, (found, theory)


def test_a_guess_near_the_bottom_passes():
    assert ch01.check_best_step_guess(1e-5).passed
    assert ch01.check_best_step_guess((3 * EPS) ** (1 / 3)).passed


def test_a_guess_too_large_is_told_truncation_dominates_without_the_answer():
    message = only_message(ch01.check_best_step_guess(1e-2))
    assert "h = 1e-2 is too large" in message and "truncation" in message
    assert "1e-5" not in message and "bottom of the V is near" not in message
    assert "Try again" in message


def test_a_guess_too_small_is_told_round_off_dominates_without_the_answer():
    message = only_message(ch01.check_best_step_guess(1e-11))
    assert "h = 1e-11 is too small" in message and "round-off" in message
    assert "1e-5" not in message


def test_the_forward_differences_step_and_machine_epsilon_get_their_own_hints():
    assert "best step for the forward difference" in only_message(ch01.check_best_step_guess(1e-8))
    assert "machine epsilon" in only_message(ch01.check_best_step_guess(EPS))


def test_the_second_wrong_guess_gets_the_answer_as_an_order_of_magnitude():
    ch01.check_best_step_guess(1e-2)
    message = only_message(ch01.check_best_step_guess(1e-9))
    # The bottom is near 4e-6 (bottom_of_the_v) and (6ε)^(1/3) ≈ 1.1e-5: both round to 1e-5.
    assert "The bottom of the V is near h = 1e-5:" in message and "(6ε)^(1/3)" in message
    assert no_long_numbers(message), message


def test_a_missing_guess_is_not_answered_and_a_wrong_kind_is_asked_for_a_number():
    assert ch01.check_best_step_guess(None).summary() == "not answered yet"
    assert "should be a number greater than 0" in only_message(ch01.check_best_step_guess(-1e-5))
    assert "should be a number greater than 0" in only_message(ch01.check_best_step_guess("1e-5"))


# ---------------------------------------------------------------- chapter 01: the count


def test_the_evaluation_count_gets_a_hint_first_and_the_answer_after_a_second_try():
    assert ch01.check_evaluation_count(2000).passed
    first = only_message(ch01.check_evaluation_count(1000))
    assert "one evaluation per parameter" in first and "2000" not in first
    second = only_message(ch01.check_evaluation_count(1001))
    assert "The answer is 2000" in second and no_long_numbers(second)


@pytest.mark.parametrize(
    "answer,words",
    [
        (1000, "one evaluation per parameter"),
        (1001, "the count for forward differences"),  # n + 1: f(x) shared
        (2001, "never needs the unnudged f(x)"),
        (2, "the cost of one partial derivative"),
        (1_000_000, "1,000 × 1,000"),
        (1500, "how many partial derivatives"),  # no known reading: the general hint
    ],
)
def test_the_wrong_counts_people_give_are_explained(answer, words):
    message = only_message(ch01.check_evaluation_count(answer))
    assert words in message and "2000" not in message, message
    assert message.startswith(f"{answer} is not it"), message  # written as a whole number
