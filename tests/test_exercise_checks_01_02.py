"""The exercise checks that chapters 00, 01 and 02 call: they pass a right answer and explain a
wrong one in words. Expected numbers are derived in the comments, not copied from output."""

import math

from autograd.checks import ch01, ch02
from autograd.stages import stage

EPS = 2.0**-52


def only_message(report):
    (result,) = report.results
    assert not result.passed and not report.passed
    return result.message


# ---------------------------------------------------------------- chapter 00's warm-up


def test_warm_up_slope_passes_rise_over_run_and_explains_a_wrong_one():
    assert ch01.check_warm_up_slope((12 - 3) / (4 - 1)).passed
    assert "rise over run" in only_message(ch01.check_warm_up_slope((4 - 1) / (12 - 3)))
    assert "but was None" in only_message(ch01.check_warm_up_slope(None))


# ---------------------------------------------------------------- chapter 01: the best step


def test_bottom_of_the_v_is_where_truncation_meets_round_off():
    # Central error for f at x is about h²|f'''(x)|/6 + ε|f(x)|/h; its minimum is at
    # h = (3ε|f(x)| / |f'''(x)|)^(1/3). For eˣ at 1 the e's cancel: h = (3ε)^(1/3) ≈ 8.7e-6.
    # The round-off term is only an estimate, so allow a factor of 4 either way.
    for f, df, third, x in ((math.exp, math.exp, math.exp, 1.0),
                            (math.sin, math.cos, lambda t: -math.cos(t), 1.0)):
        theory = (3 * EPS * abs(f(x)) / abs(third(x))) ** (1 / 3)
        found = ch01.bottom_of_the_v(f, df, x)
        assert theory / 4 < found < theory * 4, (found, theory)


def test_a_guess_near_the_bottom_passes():
    assert ch01.check_best_step_guess(1e-5).passed
    assert ch01.check_best_step_guess((3 * EPS) ** (1 / 3)).passed


def test_a_guess_too_large_is_told_truncation_dominates():
    message = only_message(ch01.check_best_step_guess(1e-2))
    assert "too large" in message and "truncation" in message


def test_a_guess_too_small_is_told_round_off_dominates():
    message = only_message(ch01.check_best_step_guess(1e-11))
    assert "too small" in message and "round-off" in message


def test_a_missing_guess_is_asked_for_a_number():
    assert "should be a number greater than 0" in only_message(ch01.check_best_step_guess(None))
    assert "should be a number greater than 0" in only_message(ch01.check_best_step_guess(-1e-5))


# ---------------------------------------------------------------- chapter 02: a value used twice


def test_a_value_used_by_two_nodes_passes():
    V = stage(2)
    x = V(3.0, label="x")
    square = V(9.0, (x, x), "*")   # x used twice by one node
    y = V(12.0, (square, x), "+")  # and once more by another
    assert ch02.check_value_used_twice(y).passed


def test_a_value_used_once_is_not_enough():
    V = stage(2)
    y = V(6.0, (V(3.0), V(2.0)), "*")
    assert "no value in y's graph is used twice" in only_message(ch02.check_value_used_twice(y))


def test_a_node_whose_data_does_not_match_its_children_is_named():
    V = stage(2)
    x = V(3.0, label="x")
    y = V(10.0, (x, x), "*", label="y")  # 3 · 3 is 9, not 10
    message = only_message(ch02.check_value_used_twice(y))
    assert "`y` has `_op` '*'" in message and "should be 9.0, but it is 10.0" in message


def test_a_stub_left_as_none_is_told_what_to_build():
    assert "should be a Value built with the constructor" in only_message(
        ch02.check_value_used_twice(None))
