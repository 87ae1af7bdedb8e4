"""autograd.profiling: fair interleaved timing, the collector switched off, and counting the
objects the garbage collector tracks. No timing is asserted: only order, arithmetic on given
times, and objects."""

import gc
import weakref
from collections import Counter

import pytest

from autograd.profiling import Timings, collector_off, compare, new_tracked_objects


@pytest.fixture
def collector_stays_off():
    """Keep the collector from running on its own, so only explicit collections happen."""
    was_on = gc.isenabled()
    gc.disable()
    yield
    if was_on:
        gc.enable()


# --------------------------------------------------------------------- compare


def test_compare_interleaves_the_pieces_and_rotates_their_order_every_round():
    log = []
    timings = compare(
        {"a": lambda: log.append("a"), "b": lambda: log.append("b"), "c": lambda: log.append("c")},
        rounds=3,
        warmup=False,
    )
    # round 0: a b c; round 1 starts one place later: b c a; round 2: c a b
    assert log == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert {name: len(runs) for name, runs in timings.runs.items()} == {"a": 3, "b": 3, "c": 3}


def test_compare_warms_each_piece_up_once_before_the_timed_rounds():
    log = []
    timings = compare({"a": lambda: log.append("a"), "b": lambda: log.append("b")}, rounds=2)
    assert log == ["a", "b", "a", "b", "b", "a"]
    assert len(timings.runs["a"]) == len(timings.runs["b"]) == 2  # the warm-up is not timed


def test_compare_collects_cyclic_garbage_before_every_run(collector_stays_off):
    class Node:
        pass

    left_behind = []

    def make_garbage():
        node = Node()
        node.itself = node  # a cycle: only the collector can free it
        left_behind.append(weakref.ref(node))

    seen_alive = []
    compare(
        {"garbage": make_garbage, "look": lambda: seen_alive.append(left_behind[-1]() is not None)},
        rounds=2,
        warmup=False,
    )
    # round 0: garbage, then look; round 1: look (at round 0's garbage), then garbage
    assert seen_alive == [False, False]


def test_compare_without_collect_leaves_the_garbage_for_the_next_run(collector_stays_off):
    class Node:
        pass

    refs = []

    def make_garbage():
        node = Node()
        node.itself = node
        refs.append(weakref.ref(node))

    seen_alive = []
    compare(
        {"garbage": make_garbage, "look": lambda: seen_alive.append(refs[-1]() is not None)},
        rounds=1,
        warmup=False,
        collect=False,
    )
    assert seen_alive == [True]
    gc.collect()


@pytest.mark.parametrize(
    "work, rounds, error, words",
    [
        ([lambda: None], 3, TypeError, "non-empty dict"),
        ({}, 3, TypeError, "non-empty dict"),
        ({"a": 42}, 3, TypeError, "work['a'] must be a function"),
        ({"a": lambda: None}, 0, ValueError, "positive int"),
        ({"a": lambda: None}, True, ValueError, "positive int"),
        ({"a": lambda: None}, 2.5, ValueError, "positive int"),
    ],
)
def test_compare_refuses_bad_arguments_with_a_clear_message(work, rounds, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        compare(work, rounds=rounds)


# --------------------------------------------------------------------- Timings


def test_best_and_median_are_the_fastest_and_the_middle_run():
    timings = Timings({"a": [1.0, 3.0, 2.0]})
    assert timings.best("a") == 1.0
    assert timings.median("a") == 2.0


def test_speedup_is_the_ratio_of_the_medians_so_it_agrees_with_them():
    # medians: a 2.0, b 1.0, so b is 2.0 times as fast. (Within each round the ratios are
    # 4, 3 and 0.5, whose median, 3, is a number the medians beside it could not explain.)
    timings = Timings({"a": [1.0, 3.0, 2.0], "b": [0.25, 1.0, 4.0]})
    assert timings.speedup("b", "a") == 2.0
    assert timings.speedup("a", "b") == 0.5
    assert timings.speedup("a", "a") == 1.0


def test_table_shows_milliseconds_and_the_speedup_over_the_first_piece():
    timings = Timings({"slow": [0.010, 0.030, 0.020], "quick": [0.005, 0.010, 0.010]})
    lines = timings.table().splitlines()
    assert "vs slow" in lines[0]
    assert lines[1].split() == ["slow", "10.0", "ms", "20.0", "ms", "1.0x"]
    # medians 20 and 10 ms: twice as fast
    assert lines[2].split() == ["quick", "5.0", "ms", "10.0", "ms", "2.0x"]
    assert str(timings) == timings.table()


def test_the_tables_speedup_is_what_its_own_medians_give():
    # A reader divides the medians the table prints; the "vs" column must say the same. Round by
    # round the fast piece is 4x, 3x and 0.5x as fast, whose median, 3x, is not what the medians
    # (20 and 10 ms, so 2x) say.
    timings = Timings(
        {
            "engine": [0.010, 0.030, 0.020],
            "compiled": [0.0025, 0.010, 0.040],
            "other": [0.040, 0.020, 0.030],
        }
    )
    rows = [line.split() for line in timings.table().splitlines()[1:]]
    baseline_median = float(rows[0][3])
    for name, _, _, median, _, shown in rows:
        assert float(shown.rstrip("x")) == pytest.approx(
            baseline_median / float(median), abs=0.05
        ), name


def test_asking_for_a_piece_that_was_not_timed_names_the_ones_that_were():
    timings = Timings({"a": [1.0], "b": [2.0]})
    with pytest.raises(KeyError, match="no timings for 'c'.*'a', 'b'"):
        timings.best("c")


# --------------------------------------------------------------------- collector_off


def test_collector_off_switches_it_off_inside_and_back_on_after():
    assert gc.isenabled()
    with collector_off():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collector_off_switches_it_back_on_even_when_the_block_raises():
    with pytest.raises(ZeroDivisionError):
        with collector_off():
            1 / 0
    assert gc.isenabled()


def test_collector_off_leaves_an_already_disabled_collector_disabled(collector_stays_off):
    with collector_off():
        pass
    assert not gc.isenabled()


# --------------------------------------------------------------------- new_tracked_objects


class Node:
    __slots__ = ("inputs", "backward")


def node_with_closure(a, b):
    out = Node()
    out.inputs = (a, b)

    def backward():  # uses `out`: one cell, held in the function's closure tuple
        return out

    out.backward = backward
    return out


def test_a_node_with_a_closure_brings_its_tuple_function_closure_and_cell():
    a, b = Node(), Node()
    out, created = new_tracked_objects(lambda: node_with_closure(a, b))
    # the node, its inputs tuple, the function, the function's __closure__ tuple, one cell
    assert Counter(type(obj).__name__ for obj in created) == {
        "Node": 1,
        "tuple": 2,
        "function": 1,
        "cell": 1,
    }
    assert any(obj is out for obj in created)
    assert not any(obj is a or obj is b for obj in created)  # they existed before


def test_objects_made_meanwhile_but_not_held_by_the_result_are_left_out():
    kept_elsewhere = []

    def make():
        kept_elsewhere.append([1, 2, 3])  # new, alive, but not the result's
        return Node()

    out, created = new_tracked_objects(make)
    assert len(created) == 1 and created[0] is out


def test_an_untracked_result_brings_no_tracked_objects():
    result, created = new_tracked_objects(lambda: 2.5 * 4)
    assert result == 10.0 and created == []


def test_new_tracked_objects_needs_something_to_call():
    with pytest.raises(TypeError, match="make must be a function"):
        new_tracked_objects(42)


def test_leaving_collector_off_does_not_itself_set_off_a_collection():
    # The collector's counters keep counting while it is off, so the first object created
    # after it is back on sets off a collection of everything made meanwhile. Leaving the
    # block must not be that first object, or a timing that ends with the block pays for it.
    started = []

    def watch(phase, info):
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(watch)
    try:
        with collector_off():
            made = [[i] for i in range(5000)]  # far beyond the youngest generation's 700
        collections_so_far = len(started)  # an int: creates no tracked object
    finally:
        gc.callbacks.remove(watch)
    assert collections_so_far == 0
    assert len(made) == 5000


def test_a_verdict_names_a_winner_only_when_best_runs_and_medians_agree_beyond_noise():
    clear = Timings({"fast": [1.0, 1.1, 1.2], "slow": [2.0, 2.2, 2.4]})
    assert clear.verdict("fast", "slow").startswith("fast was 2.0 times as fast as slow")
    assert clear.verdict("slow", "fast").startswith("fast was 2.0 times as fast as slow")
    # the medians say one thing, the best runs the other: level, and the sentence says why
    mixed = Timings({"a": [0.5, 1.5, 1.6], "b": [1.0, 1.1, 1.2]})
    said = mixed.verdict("a", "b")
    assert "level" in said and "disagree" in said and "times as fast" not in said
    close = Timings({"a": [1.0, 1.0, 1.0], "b": [1.05, 1.05, 1.05]})
    assert "level" in close.verdict("a", "b") and "less than 10 %" in close.verdict("a", "b")
