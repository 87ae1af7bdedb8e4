"""What every chapter's checks are made of: the one module a chapter module imports from.

It holds, besides the building blocks of `core` and `exercise` (passed on unchanged):

- calling the learner's code: `call(function, *args, raised=, none=, kind=, wrong=)` runs it
  and fails, in words, when it raises, gives None (a function without `return`) or gives
  something of the wrong kind; `returned(got, ...)` does the same for an answer already in hand;
  `is_node(x)` says whether `x` looks like a Value;
- diagnosing: `diagnose(got, mistakes)` names the known wrong answer that `got` reproduces,
  from a chapter's list of `(the answer that mistake gives, its words)`;
- driving a graph: `backprop_by_hand`, `expect_gradients`, `expect_closure`, `expect_children`;
- random programs: `make_program(seed, operations, ...)` and `run_steps(leaves, steps,
  operations)`, over a table of operations such as `ARITHMETIC`; `chain_of_sums` and
  `default_recursion_limit` for deep graphs;
- the checkpoint: `@declare_checkpoint(chapter, title, checks)` over a signature and a docstring
  is each chapter's `checkpoint`.

A chapter module imports from here and from nowhere else in `autograd.checks`: no chapter
imports another's helpers.
"""

import contextlib
import functools
import random
import sys

from ..graph import backward_by_hand, backward_order
from .core import (  # noqa: F401  (passed on: the chapters' building blocks)
    CheckFailed,
    check,
    expect,
    expect_close,
    fail,
    is_close,
    is_int,
    is_number,
    run_checks,
    show,
    _said,
    _text,
)
from .exercise import (  # noqa: F401  (passed on)
    Exercise,
    Prediction,
    SameArguments,
    is_unwritten,
    untouched_stub,
)

# --------------------------------------------------------------------- the learner's code

NODE = ("data", "grad", "_prev", "_backward")  # what a node of the graph has, whatever its class


def is_node(x):
    """Does `x` look like a Value (it has `data`, `grad`, `_prev` and `_backward`)?"""
    return all(hasattr(x, name) for name in NODE)


def returned(got, *, none=None, kind=None, wrong=None):
    """`got`, what the learner's code gave back, once it is what was asked for.

    Fail with the message `none` when it is None (most often a function without `return`;
    without `none`, None is let through), and, when `kind(got)` is false, with `wrong(got)`
    (or `wrong` itself, if it is a string).
    """
    if got is None and none is not None:
        fail(none)
    if kind is not None and not kind(got):
        fail(wrong(got) if callable(wrong) else wrong)
    return got


def call(function, *args, raised=None, **returns):
    """`function(*args)`, the learner's code, checked by `returned(..., **returns)`.

    `raised(error)` says in words what an exception it raises means; where it says None, the
    exception goes on up and fails the check with its type and message.
    """
    try:
        got = function(*args)
    except Exception as error:  # the learner's code: `raised` words it
        words = raised(error) if raised is not None else None
        if words is None:
            raise
        fail(words)
    return returned(got, **returns)


# --------------------------------------------------------------------- known wrong answers

_ANY = object()


def diagnoses(got, mistakes, *, same=is_close, right=_ANY):
    """Each `(answer, words)` of `mistakes` whose answer `got` reproduces (`same(got,
    answer)`), in order.

    `mistakes` lists the wrong answers a chapter knows, each with what it means; an answer may
    be a function of no arguments that works it out when needed (its ArithmeticError, or an
    answer of None, leaves that mistake out). A mistake whose answer is also the right one,
    `right`, cannot be told apart from a right answer, and is never named.
    """
    for answer, words in mistakes:
        if callable(answer):
            try:
                answer = answer()
            except ArithmeticError:
                continue
        if answer is None:
            continue
        if same(got, answer) and (right is _ANY or not same(answer, right)):
            yield answer, words


def diagnose(got, mistakes, *, same=is_close, right=_ANY, otherwise=None):
    """The words of the first of `mistakes` that `got` reproduces (see `diagnoses`), or
    `otherwise`."""
    return next((words for _, words in diagnoses(got, mistakes, same=same, right=right)), otherwise)


# --------------------------------------------------------------------- driving a graph


def describe_nodes(nodes, names):
    """`nodes` written with the names a check gave them: `(a, b)`, `[b, a]`, `a set {a, b}`."""
    try:
        parts = ", ".join(names[id(node)] if id(node) in names else show(node) for node in nodes)
    except TypeError:  # not a collection at all
        return show(nodes)
    if isinstance(nodes, tuple):
        return f"({parts},)" if len(nodes) == 1 else f"({parts})"
    if isinstance(nodes, list):
        return f"[{parts}]"
    if isinstance(nodes, (set, frozenset)):
        return f"a set {{{parts}}}"
    return f"{type(nodes).__name__} of {parts}"


def expect_children(node, children, names, what):
    """Fail unless `node._prev` is the tuple `children`, the same objects in the same order."""
    prev = node._prev
    expected = describe_nodes(tuple(children), names)
    if not isinstance(prev, tuple):
        fail(
            f"`{what}._prev` should be the tuple `{expected}` (a tuple keeps the order, so a "
            f"graph draws the same way every time), but was {describe_nodes(prev, names)}"
        )
    if len(prev) != len(children) or any(p is not c for p, c in zip(prev, children)):
        fail(
            f"`{what}._prev` should be `{expected}` in that order, but was "
            f"`{describe_nodes(prev, names)}`"
        )


def reverse_topological_order(root):
    """Every node `root` depends on, each one before the nodes it was computed from: the
    package's own walk (`autograd.graph`), whatever the learner's own sort does."""
    return backward_order(root)


def backprop_by_hand(root, seed=1.0):
    """Run the graph's `_backward` closures ourselves: seed `root.grad` (1.0 unless a check
    wants an upstream gradient that a missing `* out.grad` cannot pass), then call each node's
    `_backward` after every node that uses it. Needs no `backward()` method."""
    backward_by_hand(root, seed)


def expect_closure(x, out, expected_local, expression, *, seed=2.5, wrong_rules=(), rule=None):
    """Check the closure of a one-input operation the learner wrote: `out` was built from the
    leaf `x` by `expression` (such as "a ** 3"), whose local derivative at x is
    `expected_local` (`rule` says it in words). See `expect_gradients`."""
    expect_gradients(
        [x],
        out,
        [expected_local],
        expression,
        names="x",
        seed=seed,
        wrong_rules=[wrong_rules],
        rules=[rule] if rule else None,
    )


def expect_gradients(
    leaves, out, expected_locals, expression, *, names="abc", seed=2.5, wrong_rules=None, rules=None
):
    """Check the gradients an operation passes back, in the setting that exposes its bugs.

    `out` was built from `leaves` by `expression`; `expected_locals` are its local derivatives
    with respect to each leaf. The check uses every leaf a second time, `y = out + a + b`, and
    backpropagates from y with an upstream gradient `seed` (not 1), so that each leaf should
    end with `seed · (local + 1)`. Each classic bug leaves its own number, and the failure
    names the bug the number shows: `=` for `+=` erases the `seed` the `+` passed first
    (`seed · local`); a missing `* out.grad` gives `local + seed`; a wrong local derivative
    from `wrong_rules` (for each leaf, (rule in words, its value) pairs) gives
    `seed · (wrong + 1)`. `rules` says each correct local derivative in words, for the hint.
    """
    y = out
    for leaf in leaves:
        y = y + leaf
    backprop_by_hand(y, seed)
    reuse = " + ".join(["(" + expression + ")", *names[: len(leaves)]])
    for i, (name, leaf, local) in enumerate(zip(names, leaves, expected_locals)):
        got, expected = leaf.grad, seed * (local + 1)
        if is_close(got, expected):
            continue
        where = (
            f"with every input used twice, as `y = {reuse}`, and an upstream gradient "
            f"y.grad = {seed:g}, `{name}.grad`"
        )
        mistakes = [
            (
                seed * local,
                f"it lost the gradient {name} already had from its other use: the closure "
                "assigned with `=` instead of adding with `+=`",
            ),
            (
                local + seed,
                "the closure passed its local derivative alone: multiply it by the gradient "
                "arriving from above, `* out.grad`",
            ),
            (local, "two bugs at once: `=` instead of `+=`, and no `* out.grad`"),
            (
                seed,
                f"the closure passed nothing back to {name}: did you attach it with "
                "`out._backward = _backward`?",
            ),
        ]
        for rule, value in wrong_rules[i] if wrong_rules else ():
            mistakes += [
                (seed * (value + 1), f"the local derivative is wrong: it looks like {rule}"),
                (seed * value, f"`=` instead of `+=`, and the local derivative looks like {rule}"),
                (value + seed, f"no `* out.grad`, and the local derivative looks like {rule}"),
            ]
        shown = f"{got:.6g}" if is_close(got, got) else show(got)
        said = f"`{name}.grad` came out {shown} instead of {expected:.6g}"
        why = diagnose(got, mistakes, right=expected)
        if why is not None:
            _fail_gradient(f"{where} should be {expected:.6g} but was {got:.6g}: {why}", said)
        rule = f", {rules[i]}" if rules else ""
        _fail_gradient(
            f"{where} should be {expected:.6g}, that is {seed:g} × ({local:.6g} + 1): the local "
            f"derivative{rule}, plus 1 for the second use, times the upstream gradient; but it "
            f"was {show(got)}: check the local derivative in `_backward`",
            said,
        )


class GradientFailed(CheckFailed):
    """A gradient check failed; `numbers` says what came out, without the diagnosis."""


def _fail_gradient(message, numbers):
    failure = GradientFailed(message)
    failure.numbers = numbers
    raise failure


# --------------------------------------------------------------------- random programs
#
# A program is a list of steps `(operation name, i, j)`: the node made by applying the
# operation to nodes i and j (a one-input operation takes node i alone), nodes numbered from
# the inputs on. The operations come from a table, name -> (arity, function on Values).

ARITHMETIC = {  # + and * of two values, and with a number on either side
    "add": (2, lambda a, b: a + b),
    "mul": (2, lambda a, b: a * b),
    "add_number": (1, lambda a: a + 1.5),
    "number_add": (1, lambda a: -0.5 + a),
    "mul_number": (1, lambda a: a * -0.75),
    "number_mul": (1, lambda a: 2 * a),
}
TANH = (1, lambda a: a.tanh())
RELU = (1, lambda a: a.relu())


def add_up(n_inputs, add="add"):
    """The steps that add the inputs up, one after another, so that each reaches the output."""
    return [(add, n_inputs - 1 + k, k) for k in range(n_inputs - 1)]


def make_program(
    seed, operations, *, n_steps, draw, n_inputs=3, runs=1, gather=add_up, every_operation=False
):
    """A seeded random program: `runs` lists of `n_inputs` numbers (each drawn by
    `draw(rng)`), and its steps.

    The first steps are `gather(n_inputs)`. Then each step uses the node just before it and,
    if it takes two, one earlier node chosen at random, so that nodes are shared; its
    operation is chosen at random from `operations`. With `every_operation`, each operation
    comes once, in a shuffled order, before the random ones (`n_steps` in all), and a
    one-input operation is followed by adding the earlier node, so that paths stay open
    whatever the operation does (relu, say).
    """
    rng = random.Random(seed)
    numbers = [[draw(rng) for _ in range(n_inputs)] for _ in range(runs)]
    steps = gather(n_inputs)
    names = list(operations)
    if every_operation:
        chosen = names[:]
        rng.shuffle(chosen)
        chosen += [rng.choice(names) for _ in range(n_steps - len(chosen))]
    else:
        chosen = (rng.choice(names) for _ in range(n_steps))
    for name in chosen:
        last = n_inputs + len(steps) - 1
        j = rng.randrange(last + 1)
        if every_operation and operations[name][0] == 1:
            steps.append((name, last, last))
            if j != last:
                steps.append(("add", last + 1, j))
        else:
            steps.append((name, last, j))
    return numbers, steps


def run_steps(leaves, steps, operations):
    """The output of `steps` built on `leaves` (values of any class)."""
    nodes = list(leaves)
    for name, i, j in steps:
        arity, operation = operations[name]
        nodes.append(operation(nodes[i], nodes[j]) if arity == 2 else operation(nodes[i]))
    return nodes[-1]


def chain_of_sums(Value, depth, start, step):
    """`x`, `step` and the nodes of x + step + step + ... (`depth` sums), last node last.

    The list is what frees the chain safely. Dropped from its last node alone, a chain is freed
    by a recursion as deep as the chain: each node, as it goes, lets go of its input. In the
    browser (the JupyterLite edition) that recursion overflows the JavaScript stack for a chain
    of a few thousand nodes of a class with `__slots__`, and the kernel dies. A list lets go of
    its last item first, so each node goes when no other node is left to go with it.
    """
    x, step = Value(start), Value(step)
    nodes = [x]
    for _ in range(depth):
        nodes.append(nodes[-1] + step)  # one more node on the chain, and one more use of `step`
    return x, step, nodes


DEFAULT_RECURSION_LIMIT = 1000


@contextlib.contextmanager
def default_recursion_limit():
    """Run the body at Python's default recursion limit, whatever the notebook set it to: a
    recursive sort must fail here as it would for a learner who never raised the limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# What a check of `backward()` says when it runs out of time: the likely cause.
VISITED = "is your topological sort marking visited nodes?"


# --------------------------------------------------------------------- the checkpoint


def declare_checkpoint(chapter, title, checks, *, takes=None):
    """Decorator: the function below it, a signature and a docstring, becomes chapter
    `chapter`'s `checkpoint(obj)`, which runs `checks` on what the learner built, in a report
    titled `title` that also lists the chapter's exercises. With `takes` (what the checkpoint
    takes, in words), anything that cannot be called is refused with a TypeError that says so.

        @declare_checkpoint(5, "Chapter 5 checkpoint: ...", CHECKPOINT)
        def checkpoint(Value):
            ...  # a docstring: what the checkpoint is run on
    """

    def declare(declared):
        @functools.wraps(declared)
        def checkpoint(obj):
            if takes is not None and not callable(obj):
                raise TypeError(
                    f"checkpoint({chapter}, ...) takes {takes}, but was given {show(obj)}"
                )
            return run_checks(title, checks, obj, chapter=chapter)

        return checkpoint

    return declare
