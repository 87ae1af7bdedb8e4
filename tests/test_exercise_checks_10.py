"""The checks of chapter 10 accept what the chapter asks for and explain, in words, what is
wrong with the rest: the cycle path, the object predictions, `exp` without a closure, and the
checkpoint on a FlatValue-like class."""
import math

import pytest

from autograd import Value
from autograd.checks import ch10, reverse_topological_order


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


def test_the_unchanged_stub_is_asked_to_come_back_to_out():
    out = Value(1.0) * Value(2.0)
    report = ch10.check_cycle_path([out], out)
    assert not report.passed and "end where it started" in messages(report)
    assert "Traceback" not in messages(report)


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


def test_a_wrong_prediction_is_shown_the_measured_count_and_its_parts():
    report = ch10.check_object_predictions({TupleOnly: 3})
    assert not report.passed
    message = messages(report)
    assert "you predicted 3" in message and "makes 2" in message
    assert "1 TupleOnly" in message and "1 tuple" in message


def test_counting_one_cell_instead_of_three_gets_the_hint_about_cells():
    message = messages(ch10.check_object_predictions({Closures: 5}))  # 7 with one cell
    assert "each gets a cell of its own" in message


def test_expecting_slots_to_remove_objects_gets_the_hint_about_slots():
    message = messages(ch10.check_object_predictions({Closures: 6}))
    assert "`__slots__` changes where an instance keeps its attributes" in message


def test_unanswered_predictions_do_not_give_the_count_away():
    report = ch10.check_object_predictions({Closures: None, TupleOnly: None})
    assert [r.passed for r in report.results] == [False, False]
    assert all("no prediction yet" in r.message for r in report.results)
    assert "7" not in messages(report) and "2" not in messages(report)


def test_predictions_that_are_not_a_dict_or_not_numbers_are_told_so():
    assert "should be a dict" in messages(ch10.check_object_predictions([7, 7]))
    assert "a whole number" in messages(ch10.check_object_predictions({Closures: "seven"}))


# --------------------------------------------------------------------- exp without a closure


def test_a_correct_flat_exp_passes_every_check():
    report = ch10.check_flat_exp(Flat)
    assert report.passed and len(report.results) == 4


def test_the_unchanged_stub_gets_one_plain_message():
    def exp(self):
        ...

    report = ch10.check_flat_exp(flat_with(exp=exp))
    assert not report.passed and len(report.results) == 1
    assert "gave None" in messages(report) and "`return`" in messages(report)


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
