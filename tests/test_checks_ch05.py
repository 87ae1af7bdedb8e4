"""Chapter 05's checks (`autograd.checks.ch05`): the exercises on the article's engine (the
recursive topological sort, its predicted order, backward(), the iterative sort) pass right
answers and name the classic mistakes, and the checkpoint fails honestly on a backward() with
the bugs the chapter warns about."""

import json
import linecache
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograd.checks import ch05, checkpoint, exercise
from autograd.checks.exercise import forget_answers
from autograd.engine import Value as EngineValue
from autograd.graph import topological_order
from autograd.stages import add_to_class, stage

from mistakes import catalogue
from mistakes.ch05 import _ALL_AT_ONCE, _BACKWARD, _RECURSIVE_SORT

from checks_support import add_with_assignment, failure_message, result


# ---------------------------------------------------------------- chapter 5 fails honestly


def recursive_backward(self):
    """The article's backward: a recursive depth-first sort."""
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(self)
    self.grad = 1.0
    for node in reversed(topo):
        node._backward()


def backward_without_sort(self):
    """Each node passes gradient back, then asks its children to do the same."""
    self.grad = 1.0
    stack = [self]
    while stack:
        node = stack.pop()
        node._backward()
        stack.extend(node._prev)


def backward_that_resets_leaves(self):
    stack, seen = [self], set()
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            node.grad = 0.0
            stack.extend(node._prev)
    EngineValue.backward(self)


def test_checkpoint_five_catches_a_recursive_sort_on_a_deep_chain():
    report = checkpoint(5, stage(5, backward=recursive_backward))
    message = failure_message(report, "100,000 nodes deep")
    assert "raised RecursionError" in message and "explicit stack" in message
    assert result(report, "random graphs").passed  # small graphs do not show the problem


def test_checkpoint_five_catches_backward_without_a_topological_order():
    report = checkpoint(5, stage(5, backward=backward_without_sort))
    message = failure_message(report, "b = a + a")
    assert message.startswith("`a.grad` should be 4.0 (c = 4a) but was 8.0")
    assert "topological order" in message
    assert not result(report, "random graphs").passed


def test_checkpoint_five_catches_assignment_instead_of_accumulation():
    message = failure_message(checkpoint(5, stage(5, __add__=add_with_assignment)), "b = a + a")
    assert "`a.grad` should be 4.0 (c = 4a) but was 1.0" in message and "`+=`" in message


def test_checkpoint_five_catches_backward_that_resets_the_leaves():
    message = failure_message(
        checkpoint(5, stage(5, backward=backward_that_resets_leaves)), "twice"
    )
    assert "`a.grad` went from 6.0 to 6.0" in message and "12.0" in message


def iterative_sort(root):
    order, visited, stack = [], {id(root)}, [(root, iter(root._prev))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(child._prev)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def recursive_sort(root):
    order, visited = [], set()

    def visit(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)

    visit(root)
    return order


def test_chapter_five_sort_exercise_passes_an_iterative_sort():
    report = ch05.check_topological_sort(iterative_sort, stage(5))
    assert report.passed, str(report)


def test_chapter_five_sort_exercise_catches_recursion_and_reversed_orders():
    report = ch05.check_topological_sort(recursive_sort, stage(5))
    assert result(report, "random graphs").passed
    assert "raised RecursionError" in failure_message(report, "chain")

    report = ch05.check_topological_sort(lambda root: iterative_sort(root)[::-1], stage(5))
    assert "it is a right order backwards, the root first" in failure_message(
        report, "random graphs"
    )

    def breadth_first(root):  # root first, but no bug the check knows by its numbers
        order, visited = [root], {id(root)}
        for node in order:
            for child in node._prev:
                if id(child) not in visited:
                    visited.add(id(child))
                    order.append(child)
        return order

    report = ch05.check_topological_sort(breadth_first, stage(5))
    message = failure_message(report, "random graphs")
    assert "should end with the root, n17, but ended with" in message
    assert "and began with the root" in message


def test_chapter_five_sort_exercise_catches_a_list_that_outlives_the_call():
    leftover = []

    def sort_into_shared_list(root, order=leftover):  # a default list lives across calls
        order.extend(iterative_sort(root))
        return order

    message = failure_message(
        ch05.check_topological_sort(sort_into_shared_list, stage(5)), "random graphs"
    )
    assert "twice" in message


def test_random_programs_share_nodes_and_use_every_input():
    for seed in ch05.SEEDS:
        inputs, steps = ch05.random_program(seed)
        uses = [0] * (len(inputs) + len(steps))
        for op, i, j in steps:
            uses[i] += 1
            if op != "tanh":
                uses[j] += 1
        assert all(uses[k] >= 1 for k in range(len(inputs)))
        assert uses[0] >= 2


ROOT = Path(__file__).resolve().parent.parent


def backward_without_reset(self):
    """The article's backward with an iterative sort: intermediate gradients are not reset."""
    self.grad = 1.0
    for node in reversed(topological_order(self)):
        node._backward()


def test_checkpoint_five_wants_exactly_one_more_copy_from_a_second_call():
    report = checkpoint(5, stage(5, backward=backward_without_reset))
    assert result(report, "leaf gradients grow").passed  # they do grow, by too much
    message = result(report, "exactly one more copy").message
    # a: 6 from the first call; the stale d and e send back 18 more, so 24 instead of 12
    assert "`a.grad` should be 12.0 but was 24.0" in message and "`grad = 0.0`" in message
    assert result(checkpoint(5, stage(5)), "exactly one more copy").passed


def L_graph():
    V = stage(5)
    a, b, c, f = (V(x, label=n) for x, n in ((2.0, "a"), (-3.0, "b"), (10.0, "c"), (-2.0, "f")))
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return L


def test_order_prediction_exercise():
    L = L_graph()
    # by hand: L._prev = (d, f); d._prev = (e, c); e._prev = (a, b)
    assert ch05.check_order_prediction(["a", "b", "e", "c", "d", "f", "L"], L).passed
    report = ch05.check_order_prediction(["f", "a", "b", "e", "c", "d", "L"], L)
    assert result(report, "every value once").passed  # valid, but not the depth-first order
    message = result(report, "very order").message
    assert "not the one this search gives: yours parts from it at position 0, 'f'" in message
    assert "'a', 'b', 'e'" not in message  # a hint first, not the answer
    report = ch05.check_order_prediction(["a", "e", "b", "c", "d", "f", "L"], L)
    message = result(report, "every value once").message
    assert "you listed 'e' before 'b'" in message
    assert "The sort lists ['a', 'b', 'e', 'c', 'd', 'f', 'L']" in message  # the second try
    forget_answers()
    assert "not answered yet" in str(ch05.check_order_prediction([], L))
    assert "not answered yet" in str(ch05.check_order_prediction(None, L))
    assert "no value labelled 'x'" in str(ch05.check_order_prediction(["x"], L))
    assert "its labels are L, a, b, c, d, e, f" in str(ch05.check_order_prediction(["x"], L))


def test_order_prediction_names_the_orders_people_give():
    L = L_graph()
    for order, words in (
        (["L", "f", "d", "c", "e", "b", "a"], "the order `backward()` runs the closures in"),
        (["L", "d", "e", "a", "b", "c", "f"], "when the search first reaches it"),
        (["f", "c", "b", "a", "e", "d", "L"], "from right to left"),
        (["a", "b", "c", "f", "e", "d", "L"], "all the leaves first"),
        (["b", "a", "c", "e", "f", "d", "L"], "breadth-first search from the output"),
    ):
        forget_answers()
        report = ch05.check_order_prediction(order, L)
        assert not report.passed and words in str(report), str(report)
        assert "'a', 'b', 'e', 'c'" not in str(report)


def test_order_prediction_does_not_call_a_missing_output_a_leaf():
    # A message that misled, before: "your list leaves out 'L': ... leaves too"
    L = L_graph()
    message = str(ch05.check_order_prediction(["a", "b", "e", "c", "d", "f"], L))
    assert "misses 'L', the output itself" in message and "leaves too" not in message
    forget_answers()
    message = str(ch05.check_order_prediction(["e", "d", "L"], L))
    assert "misses the leaves 'a', 'b', 'c', 'f'" in message


def sort_without_break(root):
    order, visited, stack = [], {root}, [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
        else:
            stack.pop()
            order.append(node)
    return order


def _sort_from_catalogue(source):
    """The sort a mistake of tests/mistakes/ch05.py plants, as a function (with its source)."""
    filename = "<planted sort>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["iterative_topological_order"]


sort_pushing_all_inputs = _sort_from_catalogue(_ALL_AT_ONCE)


def sort_of_children_only(root):
    order, visited, stack = [], {root}, [(root, iter(root._prev))]
    while stack:
        node, inputs = stack.pop()
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                order.append(child)
    return order


def test_sort_messages_name_nodes_by_label_and_the_bug():
    # A message that misled, before: messages showed `Value(data=0.0000, grad=0.0000)` for
    # every node
    for sort, words in (
        (sort_without_break, "`break` right after pushing an input"),
        (sort_pushing_all_inputs, "pushes all of a node's unvisited inputs at once"),
        (sort_of_children_only, "never listed the root, n17, itself"),
    ):
        message = result(ch05.check_topological_sort(sort, stage(5)), "random graphs").message
        assert "Value(data=" not in message, message
        assert words in message, message
        assert f"`{sort.__name__}` on random graph 0" in message and "(root n17)" in message
    message = result(
        ch05.check_topological_sort(sort_pushing_all_inputs, stage(5)), "random graphs"
    ).message
    assert "on random graph 0, operands swapped (root n17) returned [x2, x1, n4, n5, " in message
    # a missing root is not called a leaf, nor a node that `_prev` did not lead to
    assert (
        "follow `_prev`"
        not in result(
            ch05.check_topological_sort(sort_of_children_only, stage(5)), "random graphs"
        ).message
    )


def leaves_first_order(root):
    """A right order that is not depth-first (Kahn's algorithm): leaves first, each node once
    every input it uses is listed. The sort checks must pass it as right."""
    nodes, stack = {id(root): root}, [root]
    while stack:
        for child in stack.pop()._prev:
            if id(child) not in nodes:
                nodes[id(child)] = child
                stack.append(child)
    waiting = {key: len({id(c) for c in node._prev}) for key, node in nodes.items()}
    users = {key: [] for key in nodes}
    for node in nodes.values():
        for key in {id(c) for c in node._prev}:
            users[key].append(node)
    ready = [node for key, node in nodes.items() if waiting[key] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for user in users[id(node)]:
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                ready.append(user)
    return order


def test_sort_exercise_passes_any_right_order_however_it_was_found():
    def right_to_left(root):  # the depth-first search, each node's inputs taken backwards
        order, visited, stack = [], {id(root)}, [(root, iter(root._prev[::-1]))]
        while stack:
            node, inputs = stack[-1]
            for child in inputs:
                if id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, iter(child._prev[::-1])))
                    break
            else:
                stack.pop()
                order.append(node)
        return order

    for sort in (right_to_left, leaves_first_order):
        report = ch05.check_topological_sort(sort, stage(5))
        assert report.passed, str(report)


def test_sort_stub_is_not_answered_yet():
    namespace = {}
    source = (
        "def iterative_topological_order(root):\n    order = []\n"
        "    ...  # replace ...: while the stack is not empty\n    return order\n"
    )
    linecache.cache["<sort stub>"] = (len(source), None, source.splitlines(True), "<sort stub>")
    exec(compile(source, "<sort stub>", "exec"), namespace)
    report = ch05.check_topological_sort(namespace["iterative_topological_order"], stage(5))
    assert not report.passed and "not answered yet" in str(report)


STEPPERS_AFTER_RUN_ALL = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from autograd.widgets import BackwardStepper
notebook = json.load(open(sys.argv[1], encoding="utf-8"))
shell = InteractiveShell.instance()
shown = []
for cell in notebook["cells"]:
    if cell["cell_type"] != "code":
        continue
    source = "".join(cell["source"])
    result = shell.run_cell(source, silent=True)
    tags = cell.get("metadata", {}).get("tags", [])
    assert result.success or "raises-exception" in tags, source
    last = source.strip().splitlines()[-1].strip()
    value = shell.user_ns.get(last) if last.isidentifier() else None
    if isinstance(value, BackwardStepper):  # the cell shows this stepper
        shown.append((last, value))
print(json.dumps([(name, stepper.position) for name, stepper in shown]))
"""


def test_chapter_five_steppers_start_at_step_zero_after_run_all(tmp_path):
    # Once a trap: cells that drove a stepper from code left the one shown at its last step
    script = tmp_path / "steppers.py"
    script.write_text(STEPPERS_AFTER_RUN_ALL)
    notebook = ROOT / "notebooks" / "05_topological_sort.ipynb"
    done = subprocess.run(
        [sys.executable, str(script), str(notebook)],
        cwd=notebook.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, MPLBACKEND="Agg"),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert [name for name, _ in shown] == ["wrong", "stepper"]
    assert all(position == 0 for _, position in shown), shown


SORT_STUB = '''def topological_order(root):
    """Every value root depends on, each after its inputs, root last."""
    ...
'''

BACKWARD_STUB = '''@add_to_class(Value)
def backward(self):
    """Seed self.grad with 1.0, then each node's _backward in reverse topological order."""
    ...
'''


@pytest.fixture(autouse=True)
def fresh_answers():
    exercise.forget_answers()
    yield
    exercise.forget_answers()


def plant(source, Value=None, *, sort_source=_RECURSIVE_SORT):
    """Run `source` (an exercise cell) as the notebook would, on chapter 4's class with the
    solution's sort and a graph `L` already defined; return the cell's namespace."""
    Value = Value or stage(4)
    filename = f"<planted cell {abs(hash(source))}>"
    namespace = {"Value": Value, "add_to_class": add_to_class}
    for text in (sort_source, source):
        name = f"{filename} {abs(hash(text))}"
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        exec(compile(text, name, "exec"), namespace)
    a, b = Value(2.0), Value(-3.0)
    namespace["L"] = a * b + a
    return namespace


def first_failure(report):
    failures = report.failures
    assert failures, f"the check passed:\n{report}"
    return failures[0].message


def plain(text):
    return text.replace("`", "")


SORT_MISTAKES = [m for m in catalogue(5) if m.check == "ch05.check_recursive_sort"]
BACKWARD_MISTAKES = [m for m in catalogue(5) if m.check == "ch05.check_backward"]


def test_the_catalogue_has_the_mistakes_the_chapter_promises():
    assert len(SORT_MISTAKES) >= 10 and len(BACKWARD_MISTAKES) >= 8


# ------------------------------------------------------------------ the recursive sort


def test_the_articles_sort_passes_on_the_chapters_class_at_the_default_recursion_limit():
    namespace = plant(_RECURSIVE_SORT)
    with ch05.default_recursion_limit():
        report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    assert report.passed, str(report)
    assert ch05.RECURSIVE.outcome().status == "yours"


def test_the_sort_passes_on_the_packages_value_too():
    from autograd import Value

    namespace = plant(_RECURSIVE_SORT)
    assert ch05.check_recursive_sort(namespace["topological_order"], Value).passed


def test_the_sort_stub_is_not_answered_yet():
    namespace = plant(SORT_STUB)
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    assert not report.passed and "not answered yet" in str(report)
    assert ch05.RECURSIVE.outcome().status == "unanswered"


@pytest.mark.parametrize("mistake", SORT_MISTAKES, ids=[m.bug for m in SORT_MISTAKES])
def test_each_catalogued_sort_mistake_fails_with_words_that_name_it(mistake):
    namespace = plant(mistake.answer)
    started = time.monotonic()
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    elapsed = time.monotonic() - started
    message = first_failure(report)
    for words in mistake.says:
        assert plain(words) in plain(message), message
    assert ch05.RECURSIVE.outcome().status == "wrong"
    assert ch05.RECURSIVE.outcome().message == message  # what the checkpoint will quote
    # a sort that goes into shared nodes again and again must not hang the notebook
    assert elapsed < 30, f"{elapsed:.1f} s"


def test_a_wrong_list_is_not_called_a_right_order_in_another():
    mistake = next(m for m in SORT_MISTAKES if m.bug == "no visited set")
    namespace = plant(mistake.answer)
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    said = next(r for r in report.results if r.name == ch05.recursive_article_order.check_name)
    assert said.message == "not checked yet: the list must be a right order first (see above)"


def test_messages_name_the_learners_function_and_the_graph():
    namespace = plant(_RECURSIVE_SORT.replace("    return topo", "    return topo[::-1]"))
    message = first_failure(
        ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    )
    assert message.startswith(
        "`topological_order` on the diamond d = (a + 1)·(2a) returned "
        "[d, c, two, b, one, a] (6 nodes)"
    ), message


def test_a_sort_without_visited_is_stopped_by_the_time_limit_with_words_that_name_it():
    # Deduplicating `topo` gives the right list, but goes into shared nodes once per path:
    # the chain of diamonds stops it, and the message names the missing visited set
    mistake = next(m for m in SORT_MISTAKES if "exponential" in m.bug)
    namespace = plant(mistake.answer)
    started = time.monotonic()
    report = ch05.check_recursive_sort(namespace["topological_order"], namespace["Value"])
    elapsed = time.monotonic() - started
    chain = report.results[-1]
    assert [r.passed for r in report.results] == [True, True, True, True, False], str(report)
    assert chain.message.startswith(
        "did not return within 2 s (it was still in `topological_order`)"
    )
    assert "without a `visited` set" in chain.message
    assert elapsed < 15, f"{elapsed:.1f} s"


def test_any_right_order_that_is_not_the_articles_is_told_so():
    report = ch05.check_recursive_sort(leaves_first_order, stage(4))
    failed = [r for r in report.results if not r.passed]
    assert [r.name for r in failed] == [ch05.recursive_article_order.check_name], str(report)
    assert "a right order, but not the article's depth-first one" in failed[0].message


def test_the_iterative_solution_gives_the_articles_order_and_passes():
    # The article's order is the depth-first one, however it is found
    from mistakes.ch05 import _SORT

    namespace = {}
    exec(_SORT, namespace)
    assert ch05.check_recursive_sort(namespace["iterative_topological_order"], stage(4)).passed


def test_a_class_without_labels_is_still_named_in_messages():
    class Bare:
        __slots__ = ("data", "grad", "_prev", "_op", "_backward")

        def __init__(self, data, _children=(), _op=""):
            self.data, self.grad, self._prev, self._op = float(data), 0.0, tuple(_children), _op
            self._backward = lambda: None

    namespace = plant(_RECURSIVE_SORT.replace("            topo.append(v)", ""))
    message = first_failure(ch05.check_recursive_sort(namespace["topological_order"], Bare))
    assert "returned an empty list" in message


# ------------------------------------------------------------------ backward()


def test_the_chapters_backward_passes_on_the_chapters_class():
    namespace = plant(_BACKWARD)
    report = ch05.check_backward(namespace["Value"])
    assert report.passed, str(report)
    assert ch05.BACKWARD.outcome().status == "yours"


def test_the_backward_stub_is_not_answered_yet():
    namespace = plant(BACKWARD_STUB)
    report = ch05.check_backward(namespace["Value"])
    assert not report.passed and "not answered yet" in str(report)


def test_a_class_without_backward_is_not_answered_yet():
    assert "not answered yet" in str(ch05.check_backward(stage(4)))


@pytest.mark.parametrize("mistake", BACKWARD_MISTAKES, ids=[m.bug for m in BACKWARD_MISTAKES])
def test_each_catalogued_backward_mistake_fails_with_words_that_name_it(mistake):
    namespace = plant(mistake.answer)
    report = ch05.check_backward(namespace["Value"])
    message = first_failure(report)
    for words in mistake.says:
        assert plain(words) in plain(message), message
    if "self.grad += 1.0" not in mistake.answer:  # right on the diamond: the seed check says
        assert message.startswith(
            "after `d.backward()` on the diamond d = (a + 1)·(2a) at a = 3, a.grad came out "
        ), message
    assert ch05.BACKWARD.outcome().message == message


def test_backward_mistakes_show_their_numbers():
    forward = next(m for m in BACKWARD_MISTAKES if m.bug == "forward order")
    message = first_failure(ch05.check_backward(plant(forward.answer)["Value"]))
    # b and c fire before d has given them anything; d's gift to them is never passed on
    assert "a.grad came out 0.0 instead of 14 (and b.grad 6.0, c.grad 4.0, d.grad 1.0)" in message
    assert "b's ran before d's, which uses b, so it passed on b.grad = 0.0" in message


def test_backward_uses_the_sort_the_chapter_has():
    # The learner's backward() calls `topological_order`: with a wrong sort behind it, its
    # check fails too (the chapter has the solution's sort there, once the sort's check failed)
    wrong_sort = _RECURSIVE_SORT.replace("    return topo", "    return topo[::-1]")
    namespace = plant(_BACKWARD, sort_source=wrong_sort)
    assert not ch05.check_backward(namespace["Value"]).passed


def test_a_backward_that_runs_a_closure_twice_is_told_so():
    twice = _BACKWARD.replace(
        "    for node in reversed(topo):", "    for node in reversed(topo + topo[-1:]):"
    )
    message = first_failure(ch05.check_backward(plant(twice)["Value"]))
    assert "The closure of d ran 2 times" in message, message


def test_a_seed_added_not_set_fails_backward_and_says_so():
    # `self.grad += 1.0` gives the right gradients on a fresh graph: the check must see an
    # output that already holds a gradient (a second call, a leftover from an earlier pass)
    V = plant(_BACKWARD.replace("self.grad = 1.0", "self.grad += 1.0"))["Value"]
    report = ch05.check_backward(V)
    assert not report.passed
    assert "`self.grad += 1.0`" in str(report) and "set it, `self.grad = 1.0`" in str(report)
    assert not checkpoint(5, V).passed
