"""The check of chapter 00's warm-up slope: it passes rise over run and explains a wrong answer."""

from autograd.checks import ch01

from checks_support import only_message


# ---------------------------------------------------------------- chapter 00's warm-up


def test_warm_up_slope_passes_rise_over_run_and_explains_a_wrong_one():
    assert ch01.check_warm_up_slope((12 - 3) / (4 - 1)).passed
    assert "run over rise" in only_message(ch01.check_warm_up_slope((4 - 1) / (12 - 3)))
    assert "not answered yet" in str(ch01.check_warm_up_slope(None))
