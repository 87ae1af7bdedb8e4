"""Chapter 5 · Topological sort and backward() — checkpoint and exercise checks.

What the chapter asks for: `Value.backward()`, which orders the graph so that every node comes
after the nodes it was computed from (a topological sort, by depth-first search with an explicit
stack, so that a chain 100,000 nodes deep works at Python's default recursion limit of 1,000),
resets the gradients of the intermediate nodes (those with `_prev`: they are scratch space for
one pass), sets `self.grad = 1.0`, and calls each node's `_backward` in reverse order. Leaves'
gradients accumulate: calling `backward()` twice adds exactly one more copy to each leaf, as
the package's engine (and PyTorch) do.

The chapter's first exercise asks for the article's recursive sort, `topological_order(root)`:
a list `topo`, a set `visited` and a nested `build_topo(v)`. Its checks run it on the diamond, on
two different values that hold the same number (a `visited` set of `.data` takes them for one),
on random graphs, in the article's very order (inputs in `_prev`'s order), and on a chain of
diamonds that a sort without `visited` cannot finish: a time limit stops it, and the message
names the missing set. The graphs are shallow, so a right recursive sort never meets the
recursion limit. Each wrong list is compared with what the classic bugs give (pre-order, the
list reversed, no recursion, the root's `_prev` followed instead of `v._prev`), so that the
message names the bug.

The first `backward()` (seed `self.grad = 1.0`, then every `_backward` in reverse topological
order) is checked on the diamond d = (a + 1)·(2a), built with the learner's operators, with each
node's `_backward` wrapped: the message says which closures ran, in what order, with what
gradient (forward order, no seed or a seed after the loop, the leaves' closures only, the root's
only, gradients zeroed in the loop, another graph sorted).

The iterative sort exercise asks for `sort(root)`: a list of every value `root` depends on (itself
included), each exactly once and after all of its children (`_prev`), so the root comes last.
A wrong list is compared with what the stub's loop gives with each classic bug in it (no
`visited` set, no `break`, the node appended too early, the list reversed, the root left out),
so the message names the bug; nodes are named by labels the check gives them (x0, n5, ...).

The checks live in one module a theme, in the order the chapter asks for them: `ch05_graphs`
(the random graphs and the orders the checks share), `ch05_recursive`, `ch05_order`,
`ch05_backward` (the checkpoint's checks too) and `ch05_sort`. This module lists the checkpoint
and offers every check by its old name.
"""

from .toolbox import declare_checkpoint, default_recursion_limit  # noqa: F401  (passed on)
from .ch05_graphs import (  # noqa: F401  (passed on: every check keeps its name `ch05.x`)
    DEPTH,
    SEEDS,
    IN_A_SET,
    VISITED_IN_A_SET,
    STUCK_LOOP,
    OPERATIONS,
    random_program,
    build,
)
from .ch05_recursive import (  # noqa: F401
    CHAIN_OF_DIAMONDS,
    NO_VISITED,
    recursive_diamond,
    recursive_twins,
    recursive_random_graphs,
    recursive_article_order,
    recursive_chain_of_diamonds,
    RECURSIVE,
    check_recursive_sort,
)
from .ch05_order import (  # noqa: F401
    valid_order,
    same_as_depth_first,
    ORDER,
    check_order_prediction,
)
from .ch05_backward import (  # noqa: F401
    forward_mode,
    seeds_one,
    chapter_three_expression,
    twice_twice,
    random_graphs,
    deep_chain,
    twice_accumulates,
    second_call_adds_one_copy,
    DIAMOND_GRADS,
    backward_diamond,
    BACKWARD,
    check_backward,
)
from .ch05_sort import (  # noqa: F401
    sorts_random_graphs,
    sorts_deep_chain,
    SORT,
    check_topological_sort,
)

__all__ = [
    "checkpoint",
    "check_recursive_sort",
    "check_order_prediction",
    "check_backward",
    "check_topological_sort",
    "random_program",
    "DEPTH",
]


CHECKPOINT = [
    seeds_one,
    chapter_three_expression,
    twice_twice,
    random_graphs,
    deep_chain,
    twice_accumulates,
    second_call_adds_one_copy,
]


@declare_checkpoint(5, "Chapter 5 checkpoint: topological sort and backward()", CHECKPOINT)
def checkpoint(Value):
    """Chapter 5's specification, run on the learner's Value class with `backward()`."""
