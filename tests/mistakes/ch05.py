"""Chapter 05's exercises: predict the sort's order, and the iterative topological sort."""

from . import Mistake

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


_POP_FIRST = '''def iterative_topological_order(root):
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
    return order'''

_RECURSIVE = '''def iterative_topological_order(root):
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order'''

_CHILDREN_ONLY = '''def iterative_topological_order(root):
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
    return order'''

_ALL_AT_ONCE = '''def iterative_topological_order(root):
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
    return order'''

_ORDER = "ch05.check_order_prediction"
_CHECK = "ch05.check_topological_sort"


def _order(*labels):
    return f"my_order = {list(labels)!r}"


MISTAKES = [
    # predict the order of L = (a·b + c)·f: the sort lists a, b, e, c, d, f, L
    Mistake(_ORDER, "output first (backward's order)", _order("L", "f", "d", "c", "e", "b", "a"),
            ("the order `backward()` runs the closures in",)),
    Mistake(_ORDER, "each value before its inputs", _order("L", "d", "e", "a", "b", "c", "f"),
            ("when the search first reaches it, before its inputs",)),
    Mistake(_ORDER, "inputs right to left", _order("f", "c", "b", "a", "e", "d", "L"),
            ("from right to left",)),
    Mistake(_ORDER, "all the leaves first", _order("a", "b", "c", "f", "e", "d", "L"),
            ("all the leaves first",)),
    Mistake(_ORDER, "breadth-first, backwards", _order("b", "a", "c", "e", "f", "d", "L"),
            ("breadth-first search from the output",)),
    Mistake(_ORDER, "the output left out", _order("a", "b", "e", "c", "d", "f"),
            ("misses 'L', the output itself",)),
    Mistake(_ORDER, "the leaves left out", _order("e", "d", "L"),
            ("misses the leaves 'a', 'b', 'c', 'f'",)),
    Mistake(_ORDER, "a value before its input", _order("a", "e", "b", "c", "d", "f", "L"),
            ("you listed 'e' before 'b'",)),
    Mistake(_ORDER, "valid, but not depth-first", _order("a", "b", "c", "e", "d", "f", "L"),
            ("not the one this search gives",)),
    Mistake(_ORDER, "the values, not their labels", "my_order = [a, b, c, f, L]",
            ("not the value itself",)),
    # the iterative sort
    Mistake(_CHECK, "no visited check", _sort("if child not in visited:", "if True:"),
            ("a node used twice is listed twice", "`visited`")),
    Mistake(_CHECK, "no break", _sort("                break  # go deeper first\n", ""),
            ("`break` right after pushing an input",)),
    Mistake(_CHECK, "all inputs pushed at once", _ALL_AT_ONCE,
            ("pushes all of a node's unvisited inputs at once",)),
    Mistake(_CHECK, "popped and appended first (root first)", _POP_FIRST,
            ("appends its node at once, before the node's inputs are listed",)),
    Mistake(_CHECK, "appended when pushed",
            _sort("                stack.append((child, iter(child._prev)))\n",
                  "                stack.append((child, iter(child._prev)))\n"
                  "                order.append(child)\n").replace(
                "            stack.pop()\n            order.append(node)",
                "            stack.pop()"),
            ("appends each node when it is pushed",)),
    Mistake(_CHECK, "reversed (root first)", _sort("    return order", "    return order[::-1]"),
            ("a right order backwards, the root first",)),
    Mistake(_CHECK, "the root forgotten", _CHILDREN_ONLY, ("never listed the root",)),
    Mistake(_CHECK, "a stack entry appended",
            _sort("            stack.pop()\n            order.append(node)",
                  "            order.append(stack.pop())"),
            ("listed a stack entry",)),
    Mistake(_CHECK, "missing return", _sort("\n    return order", ""), ("no `return`",)),
    Mistake(_CHECK, "still recursive", _RECURSIVE, ("raised RecursionError", "explicit stack")),
]
