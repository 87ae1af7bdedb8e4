"""Chapter 02's checks (`autograd.checks.ch02`): the exercises (refusing non-numbers, count_nodes,
a value used twice) pass a right answer and explain a wrong one in words, and the checkpoint
fails honestly on a Value node with the bug the chapter warns about."""

import json
from pathlib import Path

import pytest

from autograd.checks import ch01, ch02, checkpoint
from autograd.stages import stage

from checks_support import failure_message, first_failure, only_message, result


# ---------------------------------------------------------------- chapter 2 fails honestly


def plain_init(self, data, _children=(), _op="", label=""):
    """An __init__ without type checks."""
    self.data = data
    self.grad = 0.0
    self._backward = lambda: None
    self._prev = tuple(_children)
    self._op = _op
    self.label = label


def set_init(self, data, _children=(), _op="", label=""):
    plain_init(self, float(data), _children, _op, label)
    self._prev = set(_children)  # the micrograd way: order lost, a repeated child kept once


def test_checkpoint_two_catches_a_wrong_repr():
    V = stage(2, __repr__=lambda self: f"Value(data={self.data})")
    message = failure_message(checkpoint(2, V), "repr")
    assert "should be 'Value(data=2.0000, grad=0.0000)', but was 'Value(data=2.0)'" in message


def test_checkpoint_two_catches_prev_as_a_set():
    report = checkpoint(2, stage(2, __init__=set_init))
    message = failure_message(report, "_prev` keeps the children")
    assert "should be the tuple `(a, b)`" in message and "a set {" in message
    assert not result(report, "a new value starts").passed  # () == set() is False too


def test_checkpoint_two_catches_a_constructor_that_takes_anything():
    report = checkpoint(2, stage(2, __init__=plain_init))
    assert "`Value('2.0')` should raise TypeError, but it made" in failure_message(
        report, "refuses non-numbers"
    )
    assert "should be the float 3.0, but was 3 of type int" in failure_message(
        report, "stored as a float"
    )


def test_checkpoint_two_catches_a_bool_slipping_through_an_int_test():
    def init(self, data, _children=(), _op="", label=""):
        if not isinstance(data, (int, float)):
            raise TypeError(f"Value needs a number, not {type(data).__name__}")
        plain_init(self, float(data), _children, _op, label)

    message = failure_message(checkpoint(2, stage(2, __init__=init)), "refuses non-numbers")
    assert "`Value(True)` should raise TypeError" in message and "test for bool first" in message


def test_checkpoint_two_catches_an_error_message_that_says_nothing():
    def init(self, data, _children=(), _op="", label=""):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError("bad input")
        plain_init(self, float(data), _children, _op, label)

    message = failure_message(checkpoint(2, stage(2, __init__=init)), "refuses non-numbers")
    assert "does not say what was given" in message


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


def test_chapter_two_count_nodes_exercise():
    V = stage(2)
    assert ch02.check_count_nodes(count_nodes, V).passed
    report = ch02.check_count_nodes(count_paths, V)
    assert "counted twice" in str(report)


def test_chapter_two_hand_built_L_exercise():
    V = stage(2)
    a, b, c, f = V(2.0), V(-3.0), V(10.0), V(-2.0)
    e = V(-6.0, (a, b), "*")
    d = V(4.0, (e, c), "+")
    assert ch02.check_hand_built_L(V(-8.0, (d, f), "*")).passed
    wrong = ch02.check_hand_built_L(V(-8.0, (d, f), "+"))
    assert "`L._op` should be '*', but was '+'" in str(wrong)


def test_chapter_two_reject_exercise():
    assert ch02.check_rejects_non_numbers(stage(2)).passed
    assert not ch02.check_rejects_non_numbers(stage(2, __init__=plain_init)).passed


ROOT = Path(__file__).resolve().parent.parent


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


@pytest.mark.parametrize(
    "init,words",
    [
        (init_with(accepts_bool), "True is an int to Python, so test for bool first"),
        (
            init_with(tries_float),
            "`Value('2.0')` should raise TypeError, but it made a value "
            "holding 2.0: `float('2.0')` turns a string",
        ),
        (init_with(value_error), "should raise TypeError, but raised ValueError"),
        (init_with(says_nothing), "does not say what was given"),
        (init_with(asserts), "raised AssertionError"),
        (init_with(prints), "printing warns but does not stop anything"),
        (
            init_with(floats_only),
            "`Value(3)` raised TypeError (Value needs a float, not 3), but 3 is "
            "an int, a number: accept ints as well as floats",
        ),
        (returns_early, "`return` leaves `__init__` early"),
    ],
)
def test_each_way_of_getting_the_constructor_wrong_is_named(init, words):
    message = first_failure(ch02.check_rejects_non_numbers(stage(2, __init__=init)))
    assert words in message, message


def test_the_constructor_exercise_passes_the_package_and_knows_the_stub():
    assert ch02.check_rejects_non_numbers(stage(2)).passed

    def stub_init(self, data, _children=(), _op="", label=""):  # a stub, as a notebook gives it
        ...  # Your turn: raise TypeError here unless data is an int or a float
        self.data = float(data)

    assert (
        ch02.check_rejects_non_numbers(stage(2, __init__=stub_init)).summary() == "not answered yet"
    )


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


@pytest.mark.parametrize(
    "function,words",
    [
        # The six graphs have 1, 7, 2, 4, 3 and 3 values; counted per path, 1, 7, 3, 5, 7, 3.
        (count_paths, "counted twice: keep a set of the nodes already seen"),
        (forgets_the_root_and_seen, "two slips"),
        (counts_leaves, "counts only the leaves"),
        (counts_data, "two different values that hold the same number were counted as one"),
        (forgets_return, "no `return`"),
        (returns_the_set, "not a number: return how many values there are"),
    ],
)
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
    later = sources[sources.index(stub) + 1 :]
    assert any("square" in s for s in later)  # the name is needed further down


@pytest.mark.parametrize(
    "build,words",
    [
        (
            lambda V, x, ns: ns.update(square=V(9.0, (x.data, x.data), "*")),
            "pass `x`, not the number `x.data`",
        ),
        (lambda V, x, ns: ns.update(square=V(9.0, "*", (x, x))), "have swapped places"),
        (
            lambda V, x, ns: ns.update(square=V(9.0, (V(3.0), V(3.0)), "*")),
            "new values that hold 3.0, not x itself",
        ),
        (
            lambda V, x, ns: ns.update(square=V(6.0, (x, x), "*")),
            "`square.data` should be x.data · x.data = 9.0, but it is 6.0",
        ),
    ],
)
def test_each_classic_mistake_in_the_product_is_named(build, words):
    def full(V, x, ns):
        build(V, x, ns)
        ns.setdefault("y", V(12.0, (ns["square"], x), "+"))

    message = only_message(check(used_twice(full)))
    assert words in message, message


@pytest.mark.parametrize(
    "children,words",
    [
        (lambda x, sq: (x, x), "y's children should be `(square, x)`, but they are `(x, x)`"),
        (lambda x, sq: (sq,), "but they are `(square,)`"),
        (
            lambda x, sq: (type(x)(9.0, (x, x), "*"), x),
            "y was built from another value, not from `square`",
        ),
    ],
)
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

    def central_with_ellipsis_left(f, x, h=1e-5):  # a stub, as a notebook gives it
        ...
        return (f(x + h) - f(x - h)) / (2 * h)

    assert ch01.check_numerical_derivative(central_with_ellipsis_left).passed
