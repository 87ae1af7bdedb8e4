"""Chapter 05's exercises: the recursive topological sort, predict its order, backward(), and
the iterative topological sort."""

from . import Mistake

_RECURSIVE_SORT = '''def topological_order(root):
    """Every value root depends on, each after its inputs, root last."""
    topo = []
    visited = set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo'''


def _recursive(old, new):
    """The article's recursive sort with one piece of it written wrong."""
    assert old in _RECURSIVE_SORT, old
    return _RECURSIVE_SORT.replace(old, new)


_NO_VISITED = """def topological_order(root):
    topo = []

    def build_topo(v):
        for child in v._prev:
            build_topo(child)
        topo.append(v)

    build_topo(root)
    return topo"""

_DEDUPLICATED_BY_TOPO = """def topological_order(root):
    topo = []

    def build_topo(v):
        for child in v._prev:
            build_topo(child)
        if v not in topo:
            topo.append(v)

    build_topo(root)
    return topo"""

_OUTSIDE = """topo = []
visited = set()


def topological_order(root):
    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo"""

_BACKWARD = '''@add_to_class(Value)
def backward(self):
    """Seed self.grad with 1.0, then each node's _backward in reverse topological order."""
    topo = topological_order(self)
    self.grad = 1.0
    for node in reversed(topo):
        node._backward()'''


def _backward(old, new):
    """The chapter's first backward() with one piece of it written wrong."""
    assert old in _BACKWARD, old
    return _BACKWARD.replace(old, new)


_SORT = '''def iterative_topological_order(root):
    """Every value root depends on, each after its inputs, root last (no recursion)."""
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                break  # go deeper first
        else:
            stack.pop()
            order.append(node)
    return order'''


def _sort(old, new):
    """The solution's sort with one piece of it written wrong."""
    assert old in _SORT, old
    return _SORT.replace(old, new)


_POP_FIRST = """def iterative_topological_order(root):
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack.pop()
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
        order.append(node)
    return order"""

_RECURSIVE = """def iterative_topological_order(root):
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order"""

_CHILDREN_ONLY = """def iterative_topological_order(root):
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack.pop()
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                order.append(child)
    return order"""

_ALL_AT_ONCE = """def iterative_topological_order(root):
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        pushed = False
        for child in inputs:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(child._prev)))
                pushed = True
        if not pushed:
            stack.pop()
            order.append(node)
    return order"""

_RECURSIVE_CHECK = "ch05.check_recursive_sort"
_BACKWARD_CHECK = "ch05.check_backward"
_ORDER = "ch05.check_order_prediction"
_CHECK = "ch05.check_topological_sort"


def _order(*labels):
    return f"my_order = {list(labels)!r}"


MISTAKES = [
    # the recursive sort, as the article writes it
    Mistake(
        _RECURSIVE_CHECK, "no visited set", _NO_VISITED, ("listed a twice", "Keep a set `visited`")
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "visited filled but never asked",
        _recursive(
            "        if v not in visited:\n            visited.add(v)\n"
            "            for child in v._prev:\n                build_topo(child)\n"
            "            topo.append(v)",
            "        visited.add(v)\n        for child in v._prev:\n"
            "            build_topo(child)\n        topo.append(v)",
        ),
        ("listed a twice", "go into a node only if it is not in `visited` yet"),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "duplicates dropped from topo, no visited set (exponential)",
        _DEDUPLICATED_BY_TOPO,
        ("did not return within 2 s", "without a `visited` set", "paths"),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "appended before its inputs (pre-order)",
        _recursive(
            "            for child in v._prev:\n                build_topo(child)\n"
            "            topo.append(v)",
            "            topo.append(v)\n            for child in v._prev:\n"
            "                build_topo(child)",
        ),
        ("each node before its inputs", "after the loop over `v._prev`"),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "no recursion into the inputs",
        _recursive("            for child in v._prev:\n                build_topo(child)\n", ""),
        ("returned only the root", "must call itself on each of v's inputs"),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "marked visited, never appended",
        _recursive("            topo.append(v)", ""),
        ("returned an empty list", "append `v` to `topo`"),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "returned backwards",
        _recursive("    return topo", "    return topo[::-1]"),
        ("a right order backwards, the root first",),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "returned reversed(topo)",
        _recursive("    return topo", "    return reversed(topo)"),
        ("returned `reversed(topo)`",),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "recursing on root._prev",
        _recursive("for child in v._prev:", "for child in root._prev:"),
        ("not `root._prev`",),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "visited holds .data",
        _recursive(
            "        if v not in visited:\n            visited.add(v)",
            "        if v.data not in visited:\n            visited.add(v.data)",
        ),
        ("a `visited` set of `.data` takes the two for one node",),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "inputs right to left",
        _recursive("for child in v._prev:", "for child in reversed(v._prev):"),
        ("from right to left",),
    ),
    Mistake(
        _RECURSIVE_CHECK,
        "topo and visited outside the function",
        _OUTSIDE,
        ("made outside the function",),
    ),
    Mistake(
        _RECURSIVE_CHECK, "missing return", _recursive("\n    return topo", ""), ("no `return`",)
    ),
    # predict the order of L = (a·b + c)·f: the sort lists a, b, e, c, d, f, L
    Mistake(
        _ORDER,
        "output first (backward's order)",
        _order("L", "f", "d", "c", "e", "b", "a"),
        ("the order `backward()` runs the closures in",),
    ),
    Mistake(
        _ORDER,
        "each value before its inputs",
        _order("L", "d", "e", "a", "b", "c", "f"),
        ("when the search first reaches it, before its inputs",),
    ),
    Mistake(
        _ORDER,
        "inputs right to left",
        _order("f", "c", "b", "a", "e", "d", "L"),
        ("from right to left",),
    ),
    Mistake(
        _ORDER,
        "all the leaves first",
        _order("a", "b", "c", "f", "e", "d", "L"),
        ("all the leaves first",),
    ),
    Mistake(
        _ORDER,
        "breadth-first, backwards",
        _order("b", "a", "c", "e", "f", "d", "L"),
        ("breadth-first search from the output",),
    ),
    Mistake(
        _ORDER,
        "the output left out",
        _order("a", "b", "e", "c", "d", "f"),
        ("misses 'L', the output itself",),
    ),
    Mistake(
        _ORDER,
        "the leaves left out",
        _order("e", "d", "L"),
        ("misses the leaves 'a', 'b', 'c', 'f'",),
    ),
    Mistake(
        _ORDER,
        "a value before its input",
        _order("a", "e", "b", "c", "d", "f", "L"),
        ("you listed 'e' before 'b'",),
    ),
    Mistake(
        _ORDER,
        "valid, but not depth-first",
        _order("a", "b", "c", "e", "d", "f", "L"),
        ("not the one this search gives",),
    ),
    Mistake(
        _ORDER,
        "the values, not their labels",
        "my_order = [a, b, c, f, L]",
        ("not the value itself",),
    ),
    Mistake(
        _ORDER,
        "the values, one of them never defined (the cell raises)",
        "my_order = [a, b, e, c, d, f, L]",
        ("raised NameError", "name 'e' is not defined"),
        raises=True,
    ),
    # backward(): seed, then every closure in reverse topological order
    Mistake(
        _BACKWARD_CHECK,
        "forward order",
        _backward("reversed(topo)", "topo"),
        ("in forward order", "reversed(topo)"),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "no seed",
        _backward("    self.grad = 1.0\n", ""),
        ("start with `self.grad = 1.0`",),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "seed added, not set (+= 1.0)",
        _backward("self.grad = 1.0", "self.grad += 1.0"),
        ("`self.grad += 1.0`", "set it, `self.grad = 1.0`"),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "seed after the loop",
        _backward("    self.grad = 1.0\n", "") + "\n    self.grad = 1",
        ("comes after the loop",),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "leaves only",
        _backward(
            "        node._backward()", "        if not node._prev:\n            node._backward()"
        ),
        ("Only the leaves' `_backward` ran",),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "the root's closure only",
        _backward("node._backward()", "self._backward()"),
        ("Only d's closure ran", "not `self._backward()`"),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "zeroed in the loop",
        _backward("        node._backward()", "        node.grad = 0.0\n        node._backward()"),
        ("sets each gradient to 0 before the closure runs",),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "zeroed after each closure",
        _backward("        node._backward()", "        node._backward()\n        node.grad = 0.0"),
        ("sets gradients back to 0 after the closures used them",),
    ),
    Mistake(
        _BACKWARD_CHECK,
        "sorted from another graph",
        _backward("topological_order(self)", "topological_order(L)"),
        ("No closure of d's graph ran", "`topological_order(self)`"),
    ),
    # the iterative sort
    Mistake(
        _CHECK,
        "no visited check",
        _sort("if child not in visited:", "if True:"),
        ("a node used twice is listed twice", "`visited`"),
    ),
    Mistake(
        _CHECK,
        "no break",
        _sort("                break  # go deeper first\n", ""),
        ("`break` right after pushing an input",),
    ),
    Mistake(
        _CHECK,
        "all inputs pushed at once",
        _ALL_AT_ONCE,
        ("pushes all of a node's unvisited inputs at once",),
    ),
    Mistake(
        _CHECK,
        "popped and appended first (root first)",
        _POP_FIRST,
        ("appends its node at once, before the node's inputs are listed",),
    ),
    Mistake(
        _CHECK,
        "appended when pushed",
        _sort(
            "                stack.append((child, iter(child._prev)))\n",
            "                stack.append((child, iter(child._prev)))\n"
            "                order.append(child)\n",
        ).replace(
            "            stack.pop()\n            order.append(node)", "            stack.pop()"
        ),
        ("appends each node when it is pushed",),
    ),
    Mistake(
        _CHECK,
        "reversed (root first)",
        _sort("    return order", "    return order[::-1]"),
        ("a right order backwards, the root first",),
    ),
    Mistake(_CHECK, "the root forgotten", _CHILDREN_ONLY, ("never listed the root",)),
    Mistake(
        _CHECK,
        "a stack entry appended",
        _sort(
            "            stack.pop()\n            order.append(node)",
            "            order.append(stack.pop())",
        ),
        ("listed a stack entry",),
    ),
    Mistake(_CHECK, "missing return", _sort("\n    return order", ""), ("no `return`",)),
    Mistake(_CHECK, "still recursive", _RECURSIVE, ("raised RecursionError", "explicit stack")),
]
