"""The exercise checks that chapters 00, 01 and 02 call: they pass a right answer and explain a
wrong one in words, a hint before the answer. Expected numbers are derived in the comments, not
copied from output. (Each catalogued mistake is also run in its notebook: test_run_all.py.)"""

import json
import math
import re
from pathlib import Path

import pytest

from autograd.checks import ch01, ch02, checkpoint
from autograd.stages import stage

EPS = 2.0**-52
ROOT = Path(__file__).resolve().parent.parent


def only_message(report):
    (result,) = report.results
    assert not result.passed and not report.passed
    return result.message


def first_failure(report):
    assert not report.passed, str(report)
    return report.failures[0].message


def no_long_numbers(text):
    """No number printed with more digits than a learner asked for."""
    return not re.search(r"\d\.\d{5,}|\d{7,}", text)


# ---------------------------------------------------------------- chapter 00's warm-up


def test_warm_up_slope_passes_rise_over_run_and_explains_a_wrong_one():
    assert ch01.check_warm_up_slope((12 - 3) / (4 - 1)).passed
    assert "run over rise" in only_message(ch01.check_warm_up_slope((4 - 1) / (12 - 3)))
    assert "not answered yet" in str(ch01.check_warm_up_slope(None))


# ---------------------------------------------------------------- chapter 01: numerical_derivative


def central(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def stub(f, x, h=1e-5):
    """The notebook's stub, as given."""
    ...  # replace ... with `return` and the central difference


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


@pytest.mark.parametrize("function,words", [
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
])
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


@pytest.mark.parametrize("default,words", [(1e-13, "too small"), (0.5, "too large"),
                                           (0.0, "small positive number")])
def test_a_bad_default_step_is_blamed_first_not_the_slope(default, words):
    # Once a trap: the first failure, which the checkpoint quotes, said "the slope is 6x − 4"
    # to a learner whose formula was right and whose default h was not
    source = (f"def nd(f, x, h={default!r}):\n"
              "    return (f(x + h) - f(x - h)) / (2 * h) if h else f(x)\n")
    namespace = {}
    exec(source, namespace)
    for report in (ch01.check_numerical_derivative(namespace["nd"]),
                   checkpoint(1, namespace["nd"])):
        first = first_failure(report)
        assert f"its default h = {default!r} is not" in first and words in first, first
        assert "the slope is 6x − 4" not in first and "is cos(1)" not in first


def test_a_wrong_formula_with_a_bad_default_step_is_still_told_about_the_formula():
    def forward(f, x, h=0.5):
        return (f(x + h) - f(x)) / h

    first = first_failure(ch01.check_numerical_derivative(forward))
    assert "the forward difference" in first and "your formula is right" not in first
    slopes = [r.message for r in checkpoint(1, forward).failures
              if "6x − 4" in r.message or "cos(1)" in r.message or "exp(" in r.message]
    assert slopes and all("your formula is right" not in m for m in slopes)


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
    assert "best step for the forward difference" in only_message(
        ch01.check_best_step_guess(1e-8))
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


@pytest.mark.parametrize("answer,words", [
    (1000, "one evaluation per parameter"),
    (1001, "the count for forward differences"),  # n + 1: f(x) shared
    (2001, "never needs the unnudged f(x)"),
    (2, "the cost of one partial derivative"),
    (1_000_000, "1,000 × 1,000"),
    (1500, "how many partial derivatives"),  # no known reading: the general hint
])
def test_the_wrong_counts_people_give_are_explained(answer, words):
    message = only_message(ch01.check_evaluation_count(answer))
    assert words in message and "2000" not in message, message
    assert message.startswith(f"{answer} is not it"), message  # written as a whole number


# ---------------------------------------------------------------- chapter 02: refuse non-numbers


def init_with(test):
    """An __init__ that runs `test(data)` first, then builds the node."""

    def __init__(self, data, _children=(), _op="", label=""):
        test(data)
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    return __init__


def accepts_bool(data):
    if not isinstance(data, (int, float)):
        raise TypeError(f"Value needs an int or a float, not {data!r}")


def tries_float(data):
    try:
        float(data)
    except (TypeError, ValueError):
        raise TypeError(f"Value needs a number, not {data!r}") from None


def value_error(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise ValueError(f"Value needs an int or a float, not {data!r}")


def says_nothing(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError("Value needs a number")


def asserts(data):
    assert isinstance(data, (int, float)) and not isinstance(data, bool), f"not a number: {data!r}"


def prints(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        print(f"not a number: {data!r}")


def floats_only(data):
    if not isinstance(data, float):
        raise TypeError(f"Value needs a float, not {data!r}")


def returns_early(self, data, _children=(), _op="", label=""):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        return
    init_with(lambda d: None)(self, data, _children, _op, label)


@pytest.mark.parametrize("init,words", [
    (init_with(accepts_bool), "True is an int to Python, so test for bool first"),
    (init_with(tries_float), "`Value('2.0')` should raise TypeError, but it made a value "
                             "holding 2.0: `float('2.0')` turns a string"),
    (init_with(value_error), "should raise TypeError, but raised ValueError"),
    (init_with(says_nothing), "does not say what was given"),
    (init_with(asserts), "raised AssertionError"),
    (init_with(prints), "printing warns but does not stop anything"),
    (init_with(floats_only), "`Value(3)` raised TypeError (Value needs a float, not 3), but 3 is "
                             "an int, a number: accept ints as well as floats"),
    (returns_early, "`return` leaves `__init__` early"),
])
def test_each_way_of_getting_the_constructor_wrong_is_named(init, words):
    message = first_failure(ch02.check_rejects_non_numbers(stage(2, __init__=init)))
    assert words in message, message


def test_the_constructor_exercise_passes_the_package_and_knows_the_stub():
    assert ch02.check_rejects_non_numbers(stage(2)).passed

    def stub_init(self, data, _children=(), _op="", label=""):
        ...  # Your turn: raise TypeError here unless data is an int or a float
        self.data = float(data)

    assert ch02.check_rejects_non_numbers(
        stage(2, __init__=stub_init)).summary() == "not answered yet"


# ---------------------------------------------------------------- chapter 02: count_nodes


def count_nodes(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node._prev)
    return len(seen)


def count_paths(root):
    return 1 + sum(count_paths(child) for child in root._prev)


def forgets_the_root(root):
    seen, stack = set(), list(root._prev)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)
    return len(seen)


def forgets_the_root_and_seen(root):
    return sum(1 + forgets_the_root_and_seen(child) for child in root._prev)


def counts_leaves(root):
    seen, stack, found = set(), [root], 0
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            found += not node._prev
            stack.extend(node._prev)
    return found


def counts_data(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node.data not in seen:
            seen.add(node.data)
            stack.extend(node._prev)
    return len(seen)


def forgets_return(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)


def returns_the_set(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)
    return seen


def count_stub(root):
    """The notebook's stub, as given."""
    ...  # replace ...: walk the graph as `leaves` does, counting each value once


def test_count_nodes_passes_a_walk_with_a_seen_set():
    assert ch02.check_count_nodes(count_nodes, stage(2)).passed


def test_count_nodes_stub_is_not_answered_yet():
    assert ch02.check_count_nodes(count_stub, stage(2)).summary() == "not answered yet"


def test_count_nodes_that_misses_the_root_is_told_to_count_the_root_too():
    # A message that misled, before: "`count_nodes` on a single value should be 1, but was 0: some
    # values were missed; visit the children in `_prev` of every node".
    message = only_message(ch02.check_count_nodes(forgets_the_root, stage(2)))
    assert "should be 1, but was 0" in message and "count the root too" in message
    assert "visit the children" not in message


@pytest.mark.parametrize("function,words", [
    # The six graphs have 1, 7, 2, 4, 3 and 3 values; counted per path, 1, 7, 3, 5, 7, 3.
    (count_paths, "counted twice: keep a set of the nodes already seen"),
    (forgets_the_root_and_seen, "two slips"),
    (counts_leaves, "counts only the leaves"),
    (counts_data, "two different values that hold the same number were counted as one"),
    (forgets_return, "no `return`"),
    (returns_the_set, "not a number: return how many values there are"),
])
def test_each_classic_count_nodes_bug_is_named(function, words):
    message = only_message(ch02.check_count_nodes(function, stage(2)))
    assert words in message, message


# ---------------------------------------------------------------- chapter 02: a value used twice


def used_twice(build):
    """The notebook's namespace after the exercise cell: `build(V, x, ns)` fills in `ns`."""
    V = stage(2)
    ns = {"Value": V, "x": V(3.0, label="x")}
    build(V, ns["x"], ns)
    return ns


def check(ns):
    return ch02.check_value_used_twice(ns.get("y"), ns)


def right(V, x, ns):
    ns["square"] = V(x.data * x.data, (x, x), "*", label="x·x")
    ns["y"] = V(ns["square"].data + x.data, (ns["square"], x), "+", label="y")


def test_y_equals_x_times_x_plus_x_passes():
    assert check(used_twice(right)).passed


def test_the_sum_may_list_its_operands_either_way():
    def swapped(V, x, ns):
        right(V, x, ns)
        ns["y"] = V(12.0, (x, ns["square"]), "+")

    assert check(used_twice(swapped)).passed


def test_the_stub_left_as_none_is_not_answered_yet():
    ns = used_twice(lambda V, x, ns: ns.update(square=None, y=None))
    assert check(ns).summary() == "not answered yet"


def test_a_product_with_one_child_is_told_it_needs_both_operands():
    # A message that misled, before: "`x·x` has `_op` '*' and children holding [3.0], so its data
    # should be 3.0, but it is 9.0".
    def one_child(V, x, ns):
        ns["square"] = V(9.0, (x,), "*", label="x·x")
        ns["y"] = V(12.0, (ns["square"], x), "+", label="y")

    message = only_message(check(used_twice(one_child)))
    assert "a product needs both operands as children" in message and "`(x, x)`" in message
    assert "should be 3.0" not in message


def test_a_product_without_its_op_fails():
    # Once a trap: it passed ("1 of 1 checks passed").
    def no_op(V, x, ns):
        ns["square"] = V(9.0, (x, x), label="x·x")
        ns["y"] = V(12.0, (ns["square"], x), "+", label="y")

    message = only_message(check(used_twice(no_op)))
    assert "`square._op` should be '*', but was ''" in message


def test_a_product_under_another_name_is_told_the_name_the_notebook_uses():
    # Once a trap: the cells below use `square`; any other name used to give a NameError
    # further down. Now the check says so, and the solution (which names it `square`) runs.
    def other_name(V, x, ns):
        ns["square"] = None  # the stub's line, left as it was
        ns["xx"] = V(9.0, (x, x), "*")
        ns["y"] = V(12.0, (ns["xx"], x), "+")

    message = only_message(check(used_twice(other_name)))
    assert "`square` is still None (you named it `xx`)" in message
    assert "the cells below use the name `square`" in message

    def line_deleted(V, x, ns):
        ns["x_squared"] = V(9.0, (x, x), "*")
        ns["y"] = V(12.0, (ns["x_squared"], x), "+")

    message = only_message(check(used_twice(line_deleted)))
    assert "there is no `square` (you named it `x_squared`)" in message


def test_a_square_left_from_an_earlier_run_is_not_mistaken_for_the_answer():
    def stale(V, x, ns):
        ns["square"] = V(9.0, (V(3.0), V(3.0)), "*")  # an earlier run's, with an earlier x
        ns["xx"] = V(9.0, (x, x), "*")
        ns["y"] = V(12.0, (ns["xx"], x), "+")

    message = only_message(check(used_twice(stale)))
    assert "y was built from `xx`, not from `square`" in message


def test_the_stub_names_the_variable_the_later_cells_use():
    nb = json.loads((ROOT / "notebooks" / "02_value_and_graph.ipynb").read_text())
    sources = ["".join(c["source"]) for c in nb["cells"]]
    (stub,) = [s for s in sources if "y = None" in s]
    assert "square = None" in stub
    later = sources[sources.index(stub) + 1:]
    assert any("square" in s for s in later)  # the name is needed further down


@pytest.mark.parametrize("build,words", [
    (lambda V, x, ns: ns.update(square=V(9.0, (x.data, x.data), "*")),
     "pass `x`, not the number `x.data`"),
    (lambda V, x, ns: ns.update(square=V(9.0, "*", (x, x))), "have swapped places"),
    (lambda V, x, ns: ns.update(square=V(9.0, (V(3.0), V(3.0)), "*")),
     "new values that hold 3.0, not x itself"),
    (lambda V, x, ns: ns.update(square=V(6.0, (x, x), "*")),
     "`square.data` should be x.data · x.data = 9.0, but it is 6.0"),
])
def test_each_classic_mistake_in_the_product_is_named(build, words):
    def full(V, x, ns):
        build(V, x, ns)
        ns.setdefault("y", V(12.0, (ns["square"], x), "+"))

    message = only_message(check(used_twice(full)))
    assert words in message, message


@pytest.mark.parametrize("children,words", [
    (lambda x, sq: (x, x), "y's children should be `(square, x)`, but they are `(x, x)`"),
    (lambda x, sq: (sq,), "but they are `(square,)`"),
    (lambda x, sq: (type(x)(9.0, (x, x), "*"), x), "y was built from another value, not from "
                                                    "`square`"),
])
def test_each_classic_mistake_in_the_sum_is_named(children, words):
    def build(V, x, ns):
        ns["square"] = V(9.0, (x, x), "*")
        ns["y"] = V(12.0, children(x, ns["square"]), "+")

    message = only_message(check(used_twice(build)))
    assert words in message, message


def test_a_y_that_is_not_a_value_is_told_what_to_build():
    ns = used_twice(lambda V, x, ns: ns.update(square=None, y=12.0))
    assert "should be a Value made with the constructor" in only_message(check(ns))


def test_the_check_reads_the_notebooks_names_when_called_from_a_cell():
    ns = used_twice(right)
    ns["ch02"] = ch02
    exec("report = ch02.check_value_used_twice(y)", ns)  # a cell runs in the notebook's globals
    assert ns["report"].passed


# ---------------------------------------------------------------- stubs: untouched or answered


def test_an_answer_written_around_the_stubs_ellipsis_is_checked_not_called_unanswered():
    def init_answered_above_the_ellipsis(self, data, _children=(), _op="", label=""):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"Value needs an int or a float, not {data!r}")
        ...  # replace ...: raise TypeError unless data is an int or a float, saying what it was
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op
        self.label = label

    V = stage(2, __init__=init_answered_above_the_ellipsis)
    assert ch02.check_rejects_non_numbers(V).passed

    def count_with_ellipsis_left(root):
        """How many different values `root` was computed from, `root` itself included."""
        ...  # replace ...: walk the graph as `leaves` does, counting each value once
        return 1 + sum(count_with_ellipsis_left(child) for child in root._prev)

    report = ch02.check_count_nodes(count_with_ellipsis_left, stage(2))
    assert report.summary() != "not answered yet" and "counted twice" in only_message(report)

    def central_with_ellipsis_left(f, x, h=1e-5):
        ...
        return (f(x + h) - f(x - h)) / (2 * h)

    assert ch01.check_numerical_derivative(central_with_ellipsis_left).passed
