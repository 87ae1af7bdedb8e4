"""The engine as each chapter leaves it: `autograd.stages`."""

import math
import types

import pytest

from autograd import engine, syllabus
from autograd.stages import (
    CHAPTER_METHODS,
    COURSE_VERSIONS,
    PACKAGE_ONLY,
    add_to_class,
    methods_up_to,
    stage,
)

ENGINE_METHODS = {
    name for name, attr in vars(engine.Value).items() if isinstance(attr, types.FunctionType)
}
LATER_CHAPTERS = range(5, syllabus.LAST + 1)  # chapter 5 completes the engine


def own_methods(cls):
    return {name for name, attr in vars(cls).items() if callable(attr)}


# ---------------------------------------------------------------- which methods each stage has


def test_every_engine_method_is_built_by_exactly_one_chapter():
    listed = [name for names in CHAPTER_METHODS.values() for name in names]
    assert len(listed) == len(set(listed)), "a method is listed under two chapters"
    assert not set(listed) & set(PACKAGE_ONLY), "a method is both taught and package-only"
    assert set(listed) | set(PACKAGE_ONLY) == ENGINE_METHODS


def test_stage_two_has_only_the_constructor_and_repr():
    assert own_methods(stage(2)) == {"__init__", "__repr__"}


def test_stage_three_has_the_operators_and_nothing_later():
    methods = own_methods(stage(3))
    assert {
        "__add__",
        "__mul__",
        "__radd__",
        "__rmul__",
        "__neg__",
        "__sub__",
        "__rsub__",
        "__pow__",
        "__truediv__",
        "__rtruediv__",
        "__rpow__",
    } <= methods
    assert not {"tanh", "exp", "log", "relu", "sigmoid", "backward"} & methods


def test_stage_four_adds_the_activations_but_not_backward():
    methods = own_methods(stage(4))
    assert {"tanh", "exp", "log", "relu", "sigmoid"} <= methods
    assert "backward" not in methods
    assert not hasattr(stage(4)(1.0), "backward")


@pytest.mark.parametrize("chapter", LATER_CHAPTERS)
def test_stage_five_and_later_are_the_complete_engine(chapter):
    assert own_methods(stage(chapter)) == ENGINE_METHODS - set(PACKAGE_ONLY)


def test_stages_divide_by_composition_as_chapter_3_builds_it_and_the_package_by_a_primitive():
    V = stage(5)
    p, q = V(3.0), V(-2.0)
    r = p / q
    assert r._op == "*" and [child._op for child in r._prev] == ["", "**-1"]
    r.backward()
    assert (p.grad, q.grad) == (-0.5, -0.75)  # 1/q and -p/q**2
    with pytest.raises(ZeroDivisionError, match="division by zero: 3.0 / 0.0"):
        p / 0
    # the package's division is one node that rounds once: 49 / 49 is exactly 1
    assert (engine.Value(49.0) / engine.Value(49.0))._op == "/"
    assert (engine.Value(49.0) / 49).data == 1.0
    assert (V(49.0) / 49).data == 49.0 * 49.0**-1 != 1.0


@pytest.mark.parametrize("chapter", range(2, syllabus.LAST + 1))
def test_each_stage_has_exactly_the_methods_of_the_chapters_so_far(chapter):
    expected = {name for ch, names in CHAPTER_METHODS.items() if ch <= chapter for name in names}
    assert own_methods(stage(chapter)) == expected
    assert set(methods_up_to(chapter)) == expected


@pytest.mark.parametrize("chapter", [0, 1, -3])
def test_there_is_no_stage_before_chapter_two(chapter):
    with pytest.raises(ValueError, match="chapter 2 builds the first Value"):
        stage(chapter)


@pytest.mark.parametrize("chapter", ["3", 3.0, True, None])
def test_chapter_must_be_a_whole_number(chapter):
    with pytest.raises(TypeError, match="whole number"):
        stage(chapter)


def test_stage_class_is_called_value_and_says_which_chapter():
    V = stage(4)
    assert V.__name__ == "Value"
    assert "chapter 4" in V.__doc__


def test_stage_methods_share_the_engines_code_not_a_copy_of_it():
    V = stage(5)
    for name in ENGINE_METHODS - set(PACKAGE_ONLY):
        if name in COURSE_VERSIONS:  # chapter 3's division, by composition
            assert getattr(V, name).__code__ is COURSE_VERSIONS[name].__code__
        else:
            assert getattr(V, name).__code__ is vars(engine.Value)[name].__code__


# ---------------------------------------------------------------- objects belong to the stage


def test_operators_build_objects_of_the_stage_class():
    V = stage(3)
    a = V(2.0)
    results = [
        a + 2,
        a * a,
        2 * a,
        1 - a,
        a - 1,
        1 / a,
        a / 2,
        2**a,
        a**2,
        a ** V(3.0),
        -a,
        sum([a, a]),
    ]
    for out in results:
        assert type(out) is V
        assert not isinstance(out, engine.Value)


def test_numbers_wrapped_by_the_engine_helpers_become_stage_objects():
    V = stage(3)
    a = V(2.0)
    # `a + 2` wraps 2 through the engine's `_operand`; `2 - a` and `2 ** a` through the
    # reflected operators; every wrapped constant must be a stage object too.
    for out in (a + 2, 2 - a, 2**a, 3 / a):
        leaves = [out]
        seen = []
        while leaves:
            node = leaves.pop()
            seen.append(node)
            leaves.extend(node._prev)
        assert all(type(node) is V for node in seen), [type(node) for node in seen]


def test_activation_and_backward_work_on_stage_objects():
    V = stage(5)
    x = V(0.5)
    y = (x * 2).tanh() + x.exp() + x.log() + x.relu() + x.sigmoid()
    y.backward()
    assert type(y) is V
    expected = (
        2 * (1 - math.tanh(1.0) ** 2)  # d tanh(2x)/dx
        + math.exp(0.5)
        + 1 / 0.5
        + 1.0
        + (1 / (1 + math.exp(-0.5))) * (1 - 1 / (1 + math.exp(-0.5)))
    )
    assert x.grad == pytest.approx(expected, rel=1e-12)


def test_stage_refuses_bad_input_like_the_engine():
    V = stage(4)
    with pytest.raises(TypeError, match="str"):
        V("abc")
    with pytest.raises(TypeError, match="unsupported operand"):
        V(1.0) + "a"
    with pytest.raises(ValueError, match="log"):
        V(-1.0).log()


def test_stage_objects_accept_attributes_of_the_learners_own():
    # No __slots__: a notebook may tag nodes (an order number for a drawing, say).
    v = stage(5)(1.0)
    v.order = 3
    assert v.order == 3


# ---------------------------------------------------------------- independence


def test_two_calls_give_independent_classes():
    first, second = stage(3), stage(3)
    assert first is not second

    @add_to_class(first)
    def tanh(self):
        return "only on the first class"

    assert first(1.0).tanh() == "only on the first class"
    assert not hasattr(second, "tanh")
    assert not hasattr(stage(3), "tanh")
    assert engine.Value(0.5).tanh().data == math.tanh(0.5)


def test_replacing_a_method_on_one_stage_leaves_the_engine_alone():
    V = stage(5)

    @add_to_class(V)
    def __add__(self, other):
        return "replaced"

    assert V(1.0) + V(2.0) == "replaced"
    assert (engine.Value(1.0) + engine.Value(2.0)).data == 3.0
    assert (stage(5)(1.0) + 2).data == 3.0


def test_objects_of_one_stage_are_not_values_of_another():
    first, second = stage(3), stage(3)
    assert not isinstance(first(1.0), second)
    # An operand from another class is not "a Value" to this one, so it is refused as a number.
    with pytest.raises(TypeError):
        first(1.0) + second(1.0)


# ---------------------------------------------------------------- same numbers as the engine


def graph_one(V):
    a, b, c, f = V(2.0), V(-3.0), V(10.0), V(-2.0)
    return [a, b, c, f], (a * b + c) * f


def graph_two(V):
    x, y = V(0.7), V(-1.3)
    z = x * y + x**2 - y / (1 + x * x)
    w = z.tanh() + (x - y).exp() * 0.1 + (1 + y * y).log() + 2**x - 3 / (2 + x)
    return [x, y], w.sigmoid()


def graph_three(V):
    a = V(1.5)
    b = a + a
    c = b * b + a.relu()
    return [a], c ** V(0.5) + (b - 4).relu()


@pytest.mark.parametrize("graph", [graph_one, graph_two, graph_three])
def test_stage_five_gives_the_engines_values_and_gradients(graph):
    leaves, out = graph(stage(5))
    ref_leaves, ref_out = graph(engine.Value)
    out.backward()
    ref_out.backward()
    assert out.data == ref_out.data
    assert [leaf.grad for leaf in leaves] == [leaf.grad for leaf in ref_leaves]


def test_replacement_methods_build_objects_of_the_stage_with_the_bug():
    def add_that_forgets(self, other):
        other = other if isinstance(other, Value) else Value(other)  # noqa: F821
        out = Value(self.data + other.data, (self, other), "+")  # noqa: F821

        def _backward():
            a, b = out._prev
            a.grad = out.grad
            b.grad = out.grad

        out._backward = _backward
        return out

    Broken = stage(5, __add__=add_that_forgets)
    x = Broken(1.0)
    y = (x * 2) + x + x  # later operations must still use the broken __add__
    y.backward()
    assert type(y) is Broken
    assert x.grad != 4.0  # the correct gradient is 2 + 1 + 1
    good = stage(5)(1.0)
    ((good * 2) + good + good).backward()
    assert good.grad == 4.0


def test_replacing_a_method_the_stage_does_not_have_is_refused():
    with pytest.raises(ValueError, match="tanh"):
        stage(3, tanh=lambda self: self)


# ---------------------------------------------------------------- add_to_class


def test_add_to_class_adds_a_method_by_its_name_and_returns_the_function():
    V = stage(2)

    def double(self):
        return V(self.data * 2)

    returned = add_to_class(V)(double)
    assert returned is double
    assert V(1.5).double().data == 3.0


def test_add_to_class_refuses_something_that_is_not_a_class():
    with pytest.raises(TypeError, match="class"):
        add_to_class(stage(2)(1.0))


def test_chapter_methods_say_what_each_chapter_adds():
    assert CHAPTER_METHODS[4] == ("tanh", "exp", "log", "relu", "sigmoid")
    assert CHAPTER_METHODS[5] == ("backward",)
    assert methods_up_to(3)[:2] == ("__init__", "__repr__")
