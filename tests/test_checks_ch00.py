"""The check of chapter 00's warm-up slope: it passes rise over run and explains a wrong answer."""

from autograd.checks import ch01
from autograd.checks.exercise import forget_answers

from checks_support import only_message


# ---------------------------------------------------------------- chapter 00's warm-up


def test_warm_up_slope_passes_rise_over_run_and_explains_a_wrong_one():
    assert ch01.check_warm_up_slope((9 - 3) / (4 - 1)).passed
    assert "run over rise" in only_message(ch01.check_warm_up_slope((4 - 1) / (9 - 3)))
    assert "not answered yet" in str(ch01.check_warm_up_slope(None))


def test_warm_up_slope_fails_y_over_x_of_one_point():
    # The line through (1, 3) and (4, 9) misses the origin, so y / x of a point is not its slope
    for one_point in (9 / 4, 3 / 1):
        forget_answers()  # each as a first try: a second one would show the answer
        report = ch01.check_warm_up_slope(one_point)
        assert not report.passed
        assert "y over x of one point" in only_message(report)
