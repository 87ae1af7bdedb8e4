"""Chapter 5's checks, their common ground: the random graphs the checks build and the orders
they walk them in, and nodes named for the messages (see `ch05`).
"""

from .toolbox import ARITHMETIC, TANH, VISITED, make_program, run_steps


DEPTH = 100_000  # deep enough that one Python frame per node is far beyond the limit
SEEDS = range(5)

# What a check that runs out of time says: the likely cause. On a busy test machine, with the
# package's engine and the solutions, backward() on the deep chain took up to 3 s and the sort
# up to 2 s: they may take 40 s and 30 s. Every other check took under 0.2 s of its 5.
IN_A_SET = (
    f"keep the visited nodes in a set: looking a node up in a list takes longer the "
    f"longer the list grows, and this chain has {DEPTH:,} nodes"
)
VISITED_IN_A_SET = f"{VISITED} And {IN_A_SET}"
STUCK_LOOP = (
    "does each pass of your `while` loop either push an input that is not in `visited` "
    "yet (and add it to `visited`) or pop the entry on top of the stack?"
)


OPERATIONS = {"+": ARITHMETIC["add"], "*": ARITHMETIC["mul"], "tanh": TANH}


def random_program(seed, n_inputs=3, n_steps=12):
    """A seeded random graph as (inputs, steps); each step is (op, i, j) on earlier nodes.

    Each step uses the node just before it (so every node reaches the output) and one earlier
    node chosen at random, so nodes are shared; the inputs are all used, input 0 twice.
    """
    (inputs,), steps = make_program(
        seed,
        OPERATIONS,
        n_inputs=n_inputs,
        n_steps=n_steps,
        draw=lambda rng: rng.choice((-1, 1)) * rng.uniform(0.3, 1.5),
        gather=lambda n: [("+", n - 1, i) for i in range(n - 1)],
    )
    steps.append(("*", n_inputs + len(steps) - 1, 0))
    return inputs, steps


def build(Value, inputs, steps):
    """Run a program with the learner's operators; return (leaves, output)."""
    leaves = [Value(x) for x in inputs]
    return leaves, run_steps(leaves, steps, OPERATIONS)


def _named(Value, nodes):
    """Label each of `nodes` (a {name: node} dict) with its name where the class allows it;
    return {id(node): name} for the messages."""
    for name, node in nodes.items():
        try:
            node.label = name
        except AttributeError:  # a class without a label: the messages still use the names
            pass
    return {id(node): name for name, node in nodes.items()}


def _depth_first(root, *, inputs=lambda node: node._prev, post=True):
    """The depth-first order of `root`'s graph: post-order (a value after its inputs, as the
    chapter's sort lists them) or pre-order; `inputs` picks the order the inputs are taken in."""
    order, visited = [], set()
    stack = [(root, iter(inputs(root)))]
    visited.add(id(root))
    if not post:
        order.append(root)
    while stack:
        node, rest = stack[-1]
        for child in rest:
            if id(child) not in visited:
                visited.add(id(child))
                if not post:
                    order.append(child)
                stack.append((child, iter(inputs(child))))
                break
        else:
            stack.pop()
            if post:
                order.append(node)
    return order


def _same_list(got, expected):
    """Are `got` and `expected` the same nodes in the same order (by identity)?"""
    return (
        isinstance(got, (list, tuple))
        and len(got) == len(expected)
        and all(a is b for a, b in zip(got, expected))
    )


def _listing(order, name, most=8):
    """`[x0, x1, n3, ...]` for a message: the first few nodes by name."""
    shown = ", ".join(name(node) for node in order[:most])
    return f"[{shown}{', ...' if len(order) > most else ''}] ({len(order)} nodes)"


def _sort_name(sort):
    name = getattr(sort, "__name__", "")
    return f"`{name if name.isidentifier() else 'sort'}`"


def _labelled_random_graph(Value, seed, mirrored=False):
    """Random graph `seed` built with the constructor alone (its shape is all a sort needs),
    each node labelled: inputs x0, x1, x2, then n3, n4, ... in the order they are made.

    Each operation's first input is the node just before it; `mirrored` swaps the two inputs,
    so that the second is the one the first was computed from: a sort that pushes all of a
    node's inputs at once gets the order right on one of the two and wrong on the other.
    """
    inputs, steps = random_program(seed)
    nodes = [Value(x) for x in inputs]
    for op, i, j in steps:
        operands = (nodes[j], nodes[i]) if mirrored else (nodes[i], nodes[j])
        nodes.append(Value(0.0, operands[:1] if op == "tanh" else operands, op))
    names = {}
    for k, node in enumerate(nodes):
        names[id(node)] = f"x{k}" if k < len(inputs) else f"n{k}"
        try:
            node.label = names[id(node)]
        except AttributeError:  # a class without a label: the messages still use the names
            pass
    return nodes[-1], names
