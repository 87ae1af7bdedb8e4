"""The checks of chapter 10 accept what the chapter asks for and explain, in words, what is
wrong with the rest: the cycle path, the object predictions, `exp` without a closure, and the
checkpoint on a FlatValue-like class (which also lists the chapter's three exercises)."""

import gc
import math
import sys

import pytest

from autograd import Value
from autograd.checks import ch10, reverse_topological_order
from autograd.checks.exercise import answers_for, solution


def messages(report):
    return "\n".join(r.message for r in report.results)


def results_by_name(report):
    return {r.name: r for r in report.results}


# --------------------------------------------------------------------- classes for the tests


def pass_back(root, order):
    """Chapter 10's backward pass over `order` (each node before its inputs): reset, seed, add."""
    for node in order:
        if node._a is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in order:
        if node._a is not None:
            node._a.grad += node._da * node.grad
        if node._b is not None:
            node._b.grad += node._db * node.grad


class Flat:
    """A FlatValue as chapter 10 builds it: two input slots, their local derivatives."""

    __slots__ = ("data", "grad", "_a", "_da", "_b", "_db", "_op")

    def __init__(self, data, _op="", a=None, da=0.0, b=None, db=0.0):
        self.data, self.grad, self._op = data, 0.0, _op
        self._a, self._da, self._b, self._db = a, da, b, db

    @property
    def _prev(self):
        return tuple(v for v in (self._a, self._b) if v is not None)

    def __add__(self, other):
        if isinstance(other, Flat):
            return type(self)(self.data + other.data, "+", self, 1.0, other, 1.0)
        return type(self)(self.data + other, "+", self, 1.0)

    def __mul__(self, other):
        if isinstance(other, Flat):
            return type(self)(self.data * other.data, "*", self, other.data, other, self.data)
        return type(self)(self.data * other, "*", self, other)

    __radd__, __rmul__ = __add__, __mul__

    def relu(self):
        return type(self)(max(self.data, 0.0), "relu", self, 1.0 if self.data > 0 else 0.0)

    def exp(self):
        e = math.exp(self.data)
        return type(self)(e, "exp", self, e)

    def backward(self):
        pass_back(self, reverse_topological_order(self))


def flat_with(**methods):
    """A subclass of Flat with some methods replaced (Flat's methods build `type(self)`)."""
    return type("Flat", (Flat,), {"__slots__": (), **methods})


class Closures:
    """Chapter 3's style with __slots__: closures that use self, other and out."""

    __slots__ = ("data", "grad", "_backward", "_prev")

    def __init__(self, data, children=()):
        self.data, self.grad, self._prev = data, 0.0, tuple(children)
        self._backward = _nothing

    def __mul__(self, other):
        out = Closures(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


def _nothing():
    pass


class Plain:
    """Chapter 10's YourValue: no __slots__, closures that use self, other and out."""

    def __init__(self, data, children=()):
        self.data, self.grad, self._prev = data, 0.0, tuple(children)
        self._backward = _nothing

    def __mul__(self, other):
        out = Plain(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


def the_ring(out):
    """out, its _backward, that function's closure, the cell that holds out: the cycle."""
    function = out._backward
    closure = function.__closure__
    cell = next(c for c in closure if c.cell_contents is out)
    return function, closure, cell


class TupleOnly:
    """A node that keeps only a tuple of its inputs: two tracked objects per product."""

    __slots__ = ("data", "_prev")

    def __init__(self, data, children=()):
        self.data, self._prev = data, tuple(children)

    def __mul__(self, other):
        return TupleOnly(self.data * other.data, (self, other))


# --------------------------------------------------------------------- the cycle


def test_the_path_round_the_reference_engines_closure_passes():
    out = Value(2.0) * Value(-3.0)
    function = out._backward
    cell = function.__closure__[0]  # the reference engine's closure uses `out` only
    assert ch10.check_cycle_path([out, function, function.__closure__, cell, out], out).passed


def test_a_path_through_the_cell_that_holds_an_input_is_told_which_link_breaks():
    a, b = Closures(2.0), Closures(-3.0)
    out = a * b
    function = out._backward
    cells = function.__closure__
    right = next(c for c in cells if c.cell_contents is out)
    wrong = next(c for c in cells if c.cell_contents is a)
    assert ch10.check_cycle_path([out, function, cells, right, out], out).passed
    report = ch10.check_cycle_path([out, function, cells, wrong, out], out)
    assert not report.passed
    assert "`path[3]` (a cell) does not hold `path[4]`" in messages(report)


def test_the_unchanged_cycle_path_stub_is_not_answered_yet():
    out = Value(1.0) * Value(2.0)
    report = ch10.check_cycle_path([out], out)
    assert not report.passed and "not answered yet" in str(report)
    assert "Traceback" not in str(report)


def test_a_path_that_stops_before_out_is_asked_to_come_back_to_out():
    out = Value(1.0) * Value(2.0)
    function, closure, cell = the_ring(out)
    report = ch10.check_cycle_path([out, function, closure, cell], out)
    assert not report.passed and "end where it started" in messages(report)


# A plain skip, not skip_or_fail: nothing is missing; what is tested does not exist before 3.11.
@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="before 3.11 every instance keeps its attributes in a dict of its own",
)
def test_the_cycle_check_never_reports_a_dict_it_created_itself():
    # Once a trap: the check used to ask the node for `vars()`, which on Python 3.11+
    # creates the node's __dict__; the message then listed that dict among what `out` holds
    # ("`gc.get_referents(path[0])` lists only: dict, type"), and so did every later look.
    out = Plain(2.0) * Plain(-3.0)
    before = sorted(type(r).__name__ for r in gc.get_referents(out))
    assert "dict" not in before
    function, closure, cell = the_ring(out)
    for wrong in (
        [out, closure, out],
        [out, function, cell, out],
        [out, Plain(1.0), out],
        [out, function, closure, cell, function, out],
    ):
        report = ch10.check_cycle_path(wrong, out)
        assert not report.passed
        assert "dict" not in messages(report), messages(report)
        assert sorted(type(r).__name__ for r in gc.get_referents(out)) == before


def test_a_node_whose_attributes_sit_in_a_dict_still_passes_the_path_through_its_function():
    # Python 3.10 (or 3.11+ once someone asked for __dict__): out -> dict -> function
    out = Plain(2.0) * Plain(-3.0)
    vars(out)  # make the dictionary, as 3.10 always has it
    assert ch10.check_cycle_path([out, *the_ring(out), out], out).passed


def test_a_missing_link_is_named_with_the_object_that_goes_between():
    out = Plain(2.0) * Plain(-3.0)
    function, closure, cell = the_ring(out)
    message = messages(ch10.check_cycle_path([out, function, cell, out], out))
    assert "a link is missing" in message and "a tuple" in message
    message = messages(ch10.check_cycle_path([out, closure, cell, out], out))
    assert "a link is missing" in message and "a function" in message


@pytest.mark.parametrize("short", ["cell", "function", "cell then function"])
def test_two_missing_links_are_named_in_order_not_called_a_wrong_order(short):
    # Once a trap: [out, cell, out] was told "The order is wrong", though reversing it changes
    # nothing: two objects are missing between out and the cell
    out = Plain(2.0) * Plain(-3.0)
    function, closure, cell = the_ring(out)
    path = {
        "cell": [out, cell, out],
        "function": [out, function, out],
        "cell then function": [out, cell, function, out],
    }[short]
    message = messages(ch10.check_cycle_path(path, out))
    assert "two links are missing" in message and "order is wrong" not in message, message
    if path[1] is cell:  # out holds its function, which holds the closure tuple, then the cell
        assert "`path[0]` holds a function, which holds a tuple, which holds `path[1]`" in message
    else:  # the function holds its closure tuple, which holds the cell, which holds out
        assert "`path[1]` holds a tuple, which holds a cell, which holds `path[2]`" in message


def test_a_path_in_the_wrong_order_is_told_so():
    out = Plain(2.0) * Plain(-3.0)
    function, closure, cell = the_ring(out)
    message = messages(ch10.check_cycle_path([out, closure, function, cell, out], out))
    assert "the order is wrong" in message
    backwards = messages(ch10.check_cycle_path([out, cell, closure, function, out], out))
    assert "points the wrong way" in backwards and "Reverse that order" in backwards


def test_a_path_through_an_unrelated_object_lists_what_the_holder_holds():
    out = Plain(2.0) * Plain(-3.0)
    message = messages(ch10.check_cycle_path([out, Plain(1.0), out], out))
    assert "`path[0]` (a Plain) does not hold `path[1]` (a Plain)" in message
    assert "function" in message and "tuple" in message


def test_a_path_that_does_not_start_at_out_or_is_not_a_list_is_told_so():
    out = Value(1.0) * Value(2.0)
    assert "start with `out`" in messages(ch10.check_cycle_path([out._backward, out], out))
    assert "a list of objects" in messages(ch10.check_cycle_path(out, out))


# --------------------------------------------------------------------- counting objects


def test_the_count_of_a_closure_product_is_node_tuple_function_closure_and_three_cells():
    # by hand: the node, its _prev tuple, the _backward function, its __closure__ tuple, and
    # one cell each for self, other and out: 7 (with __slots__, no attribute dictionary)
    count, kinds = ch10.count_made_by_product(Closures)
    assert count == 7
    assert kinds == {"Closures": 1, "tuple": 2, "function": 1, "cell": 3}


def test_right_predictions_pass():
    # Closures: 7 (above); TupleOnly: the node and its tuple, 2
    assert ch10.check_object_predictions({Closures: 7, TupleOnly: 2}).passed


def test_a_wrong_prediction_gets_a_hint_first_then_the_measured_count_and_its_parts():
    first = messages(ch10.check_object_predictions({TupleOnly: 3}))
    assert "3 is not it" in first and "2" not in first and "Try again" in first
    report = ch10.check_object_predictions({TupleOnly: 3})
    assert not report.passed
    message = messages(report)
    assert "you predicted 3" in message and "makes 2" in message
    assert "1 TupleOnly" in message and "1 tuple" in message


# A plain skip, not skip_or_fail: nothing is missing; what is tested does not exist before 3.11.
@pytest.mark.skipif(sys.version_info < (3, 11), reason="on 3.10 the dictionary is an object")
def test_counting_an_attribute_dictionary_on_a_recent_python_gets_the_hint_about_it():
    count, _ = ch10.count_made_by_product(Plain)
    assert count == 7  # no dictionary object: node, tuple, function, closure, three cells
    message = messages(ch10.check_object_predictions({Plain: 8}))
    assert "no attribute dictionary to count" in message


def test_counting_one_cell_instead_of_three_gets_the_hint_about_cells():
    message = messages(ch10.check_object_predictions({Closures: 5}))  # 7 with one cell
    assert "each gets a cell of its own" in message


def test_expecting_slots_to_remove_objects_gets_the_hint_about_slots():
    message = messages(ch10.check_object_predictions({Closures: 6}))
    assert "`__slots__` changes where an instance keeps its attributes" in message


def test_unanswered_predictions_do_not_give_the_count_away():
    report = ch10.check_object_predictions({Closures: None, TupleOnly: None})
    assert not report.passed and "not answered yet" in str(report)
    assert "7" not in messages(report) and "2" not in messages(report)
    half = ch10.check_object_predictions({Closures: 7, TupleOnly: None})
    assert not half.passed and "`TupleOnly`: no prediction yet" in messages(half)
    assert "Closures" not in messages(half)


def test_predictions_that_are_not_a_dict_or_not_numbers_are_told_so():
    assert "should be a dict" in messages(ch10.check_object_predictions([7, 7]))
    assert "a whole number" in messages(ch10.check_object_predictions({Closures: "seven"}))


# --------------------------------------------------------------------- exp without a closure


def test_a_correct_flat_exp_passes_every_check():
    report = ch10.check_flat_exp(Flat)
    assert report.passed and len(report.results) == 4


def test_the_unchanged_exp_stub_is_not_answered_yet():
    def exp(self):  # a stub, as a notebook gives it
        ...  # return a new FlatValue: data e^x, one input (self), and d(out)/d(self)

    report = ch10.check_flat_exp(flat_with(exp=exp))
    assert not report.passed and len(report.results) == 1
    assert "not answered yet" in str(report) and "gave None" not in str(report)


def test_exp_without_return_is_named_once():
    def exp(self):
        e = math.exp(self.data)
        type(self)(e, "exp", self, e)

    report = ch10.check_flat_exp(flat_with(exp=exp))
    assert [r.passed for r in report.results] == [False] * 4
    assert "gave None" in report.results[0].message
    assert "no `return`" in report.results[0].message
    assert all("see the first line" in r.message for r in report.results[1:])


@pytest.mark.parametrize(
    "local, words",
    [
        (lambda x: x, "that is x, the input's data"),
        (lambda x: x * math.exp(x - 1), "the power rule"),
        (lambda x: math.exp(math.exp(x)), "exp taken twice"),
        (lambda x: 0.0, "no gradient reached x"),
    ],
)
def test_exp_with_a_wrong_local_derivative_is_told_which(local, words):
    def exp(self):
        return type(self)(math.exp(self.data), "exp", self, local(self.data))

    message = messages(ch10.check_flat_exp(flat_with(exp=exp)))
    assert words in message, message


@pytest.mark.parametrize(
    "make, words",
    [
        (
            lambda self, e: (e, "exp", e, self),
            "the input and its local derivative are the wrong way",
        ),
        (lambda self, e: (e, self, e), "where the op's name goes"),
        (lambda self, e: (self, "exp", self, e), "the arguments are mixed up"),
        (lambda self, e: (self.data, "exp", self, e), "the input's data"),
    ],
)
def test_exp_with_its_arguments_mixed_up_is_told_how(make, words):
    def exp(self):
        return type(self)(*make(self, math.exp(self.data)))

    message = messages(ch10.check_flat_exp(flat_with(exp=exp)))
    assert words in message, message


def test_exp_gradient_names_no_bug_the_numbers_do_not_show():
    def exp(self):
        e = math.exp(self.data)
        return type(self)(e, "exp", self, 0.5 * e)

    message = messages(ch10.check_flat_exp(flat_with(exp=exp)))
    assert "store e^x as the local derivative" in message
    for bug in ("not 1", "power rule", "input's data", "twice", "no gradient"):
        assert bug not in message


def test_exp_with_local_derivative_one_fails_the_gradient_with_that_hint():
    def exp(self):
        return type(self)(math.exp(self.data), "exp", self, 1.0)

    report = results_by_name(ch10.check_flat_exp(flat_with(exp=exp)))
    gradient = next(r for name, r in report.items() if name.startswith("its one input"))
    assert not gradient.passed and "not 1" in gradient.message


def test_exp_that_forgets_its_input_is_told_to_pass_self():
    def exp(self):
        e = math.exp(self.data)
        return type(self)(e, "exp")

    message = messages(ch10.check_flat_exp(flat_with(exp=exp)))
    assert "pass `self` as the input" in message


def test_exp_that_keeps_a_closure_on_the_node_is_caught():
    class WithClosure(Flat):
        __slots__ = ("_backward",)

        def exp(self):
            out = WithClosure(math.exp(self.data), "exp", self, math.exp(self.data))
            out._backward = lambda: out  # a closure that uses out: a cycle
            return out

    report = results_by_name(ch10.check_flat_exp(WithClosure))
    closure = report["no closure: the new node holds no function, so it is in no reference cycle"]
    assert not closure.passed and "holds a function" in closure.message


def test_exp_that_returns_its_input_changed_is_caught():
    def exp(self):
        self.data = math.exp(self.data)
        return self

    message = messages(ch10.check_flat_exp(flat_with(exp=exp)))
    assert "returned the very value it was called on" in message


# --------------------------------------------------------------------- the checkpoint


def test_checkpoint_passes_a_flat_value_as_the_chapter_builds_it():
    report = ch10.checkpoint(Flat)
    assert report.passed, str(report)
    assert len(report.results) == 8


def test_checkpoint_lists_the_chapters_three_exercises():
    assert [e.title for e, _ in answers_for(10)] == [
        "find the cycle",
        "predict the objects",
        "exp without a closure",
    ]
    out = Value(2.0) * Value(-3.0)
    ch10.check_cycle_path([out, *the_ring(out), out], out)
    ch10.check_object_predictions({Closures: 7})
    ch10.check_flat_exp(Flat)
    report = ch10.checkpoint(Flat)
    assert report.passed and "all on your code: 3 of 3 of your answers passed" in str(report)


def test_a_wrong_exp_replaced_by_the_solution_still_fails_the_checkpoint():
    # Once a trap: after Run All the solution used to overwrite the learner's exp, and the
    # checkpoint passed on the solution's code
    def exp(self):
        return type(self)(math.exp(self.data), "exp", self, 1.0)  # local derivative 1

    ns = {"FlatValue": flat_with(exp=exp), "ch10": ch10, "math": math}
    assert not ch10.check_flat_exp(ns["FlatValue"]).passed  # the check cell, then the solution
    said = []
    body = (
        "def exp(self):\n    e = math.exp(self.data)\n"
        "    return type(self)(e, 'exp', self, e)\nFlatValue.exp = exp\n"
    )
    solution("ch10.check_flat_exp(FlatValue)", body, ns, out=said.append)
    assert "did not pass its check" in " ".join(said)
    report = ch10.checkpoint(ns["FlatValue"])
    assert not report.failures  # the solution's exp passes every check
    assert not report.passed and "e^x, not 1" in str(report)
    assert "your `exp` came from the solution because yours failed" in report.summary()


def failed(report):
    return [r.name for r in report.results if not r.passed]


def test_checkpoint_catches_an_attribute_dictionary():
    class WithDict(Flat):  # no __slots__ of its own: its instances get a __dict__
        pass

    names = failed(ch10.checkpoint(WithDict))
    assert names == ["no attribute dictionary: every attribute is declared in `__slots__`"]


def test_checkpoint_catches_plain_numbers_wrapped_into_nodes():
    def __mul__(self, other):
        other = other if isinstance(other, Flat) else type(self)(other)
        return type(self)(self.data * other.data, "*", self, other.data, other, self.data)

    cls = flat_with(__mul__=__mul__, __rmul__=__mul__)
    names = failed(ch10.checkpoint(cls))
    assert any(name.startswith("a plain number makes no node") for name in names)


def test_checkpoint_catches_a_wrong_relu_slope():
    def relu(self):
        return type(self)(max(self.data, 0.0), "relu", self, 0.0)  # slope 0 everywhere

    names = failed(ch10.checkpoint(flat_with(relu=relu)))
    assert any(name.startswith("(a·b + c)·relu(a)") for name in names)


def test_checkpoint_catches_gradients_that_overwrite_instead_of_adding():
    def backward(self):
        self.grad = 1.0
        for node in reverse_topological_order(self):
            if node._a is not None:
                node._a.grad = node._da * node.grad
            if node._b is not None:
                node._b.grad = node._db * node.grad

    names = failed(ch10.checkpoint(flat_with(backward=backward)))
    assert any(name.startswith("a value used twice") for name in names)


def test_checkpoint_catches_nodes_in_reference_cycles():
    class Cyclic(Flat):
        __slots__ = ("_backward",)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._backward = lambda: self  # every node holds a closure that holds the node

    names = failed(ch10.checkpoint(Cyclic))
    assert "no reference cycles: a graph is freed without the garbage collector" in names


def test_checkpoint_catches_a_recursive_sort_on_a_deep_chain():
    def backward(self):
        topo, seen = [], set()

        def build(v):
            if id(v) not in seen:
                seen.add(id(v))
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        pass_back(self, topo[::-1])

    report = ch10.checkpoint(flat_with(backward=backward))
    deep = f"backward() works on a chain {ch10.DEPTH:,} nodes deep at the default recursion limit"
    assert deep in failed(report)
    assert "RecursionError" in results_by_name(report)[deep].message
    # `build` holds itself through its own closure: the graph it sorted waits for the collector
    assert "no reference cycles: a graph is freed without the garbage collector" in failed(report)


@pytest.mark.parametrize("seed", ch10.SEEDS)
def test_random_programs_use_every_input(seed):
    # each input must reach the output, or the checkpoint would compare gradients of 0 with 0
    inputs, steps = ch10.random_program(seed)
    leaves, out = ch10.run_program(Value, inputs, steps)
    reached = {id(v) for v in reverse_topological_order(out)}
    assert all(id(leaf) in reached for leaf in leaves)
