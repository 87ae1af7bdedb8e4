"""Chapter 02's exercises: refuse non-numbers, `count_nodes`, a value used twice."""

from . import Mistake

_INIT_HEAD = """@add_to_class(Value)
def __init__(self, data, _children=(), _op="", label=""):
"""
_INIT_TAIL = """
    self.data = float(data)
    self.grad = 0.0
    self._backward = lambda: None
    self._prev = tuple(_children)
    self._op = _op
    self.label = label"""


def _init(test):
    """The exercise cell with `test` where the stub has its `...`."""
    return _INIT_HEAD + test + _INIT_TAIL


_COUNT_HEAD = '''def count_nodes(root):
    """How many different values `root` was computed from, `root` itself included."""
'''


def _count(body):
    return _COUNT_HEAD + body


def _twice(square, y='y = Value(square.data + x.data, (square, x), "+", label="y")'):
    return f'x = Value(3.0, label="x")\n{square}\n{y}'


MISTAKES = [
    # __init__: refuse what is not a number
    Mistake(
        "ch02.check_rejects_non_numbers",
        "bool accepted",
        _init("""\
    if not isinstance(data, (int, float)):
        raise TypeError(f"Value needs an int or a float, not {data!r}")"""),
        ("`Value(True)` should raise TypeError", "test for bool first"),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "str accepted (tries float)",
        _init("""\
    try:
        float(data)
    except (TypeError, ValueError):
        raise TypeError(f"Value needs a number, not {data!r}")"""),
        ("`Value('2.0')` should raise TypeError", "test the type itself"),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "ValueError, not TypeError",
        _init("""\
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise ValueError(f"Value needs an int or a float, not {data!r}")"""),
        ("should raise TypeError, but raised ValueError",),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "message names nothing",
        _init("""\
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError("Value needs a number")"""),
        ("does not say what was given",),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "assert, not raise",
        _init("""\
    assert isinstance(data, (int, float)) and not isinstance(data, bool), data"""),
        ("raised AssertionError", "`raise TypeError(...)`"),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "print, not raise",
        _init("""\
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        print(f"Value needs a number, not {data!r}")"""),
        ("printing warns but does not stop anything",),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "return, not raise",
        _init("""\
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        return"""),
        ("`return` leaves `__init__` early",),
    ),
    Mistake(
        "ch02.check_rejects_non_numbers",
        "ints refused",
        _init("""\
    if not isinstance(data, float):
        raise TypeError(f"Value needs a float, not {data!r}")"""),
        ("but 3 is an int, a number: accept ints as well as floats",),
    ),
    # count_nodes
    Mistake(
        "ch02.check_count_nodes",
        "no seen set",
        _count("""\
    return 1 + sum(count_nodes(child) for child in root._prev)"""),
        ("counted twice", "keep a set of the nodes already seen"),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "no seen set, with a stack",
        _count("""\
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node._prev)
    return count"""),
        ("counted twice",),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "forgets the root",
        _count("""\
    seen, stack = set(), list(root._prev)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)
    return len(seen)"""),
        ("count the root too",),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "counts only the leaves",
        _count("""\
    found, seen, stack = 0, set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            if not node._prev:
                found += 1
            stack.extend(node._prev)
    return found"""),
        ("counts only the leaves",),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "seen keeps the data",
        _count("""\
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node.data not in seen:
            seen.add(node.data)
            stack.extend(node._prev)
    return len(seen)"""),
        ("two different values that hold the same number",),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "missing return",
        _count("""\
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)"""),
        ("no `return`",),
    ),
    Mistake(
        "ch02.check_count_nodes",
        "returns the set",
        _count("""\
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._prev)
    return seen"""),
        ("not a number: return how many values there are",),
    ),
    # y = x·x + x
    Mistake(
        "ch02.check_value_used_twice",
        "one child (x,)",
        _twice('square = Value(x.data * x.data, (x,), "*", label="x·x")'),
        ("a product needs both operands as children",),
    ),
    Mistake(
        "ch02.check_value_used_twice",
        "missing op",
        _twice('square = Value(x.data * x.data, (x, x), label="x·x")'),
        ("`square._op` should be '*', but was ''",),
    ),
    Mistake(
        "ch02.check_value_used_twice",
        "children and op swapped",
        _twice('square = Value(x.data * x.data, "*", (x, x), label="x·x")'),
        ("the children and the op have swapped places",),
    ),
    Mistake(
        "ch02.check_value_used_twice",
        "numbers as children",
        _twice('square = Value(x.data * x.data, (x.data, x.data), "*", label="x·x")'),
        ("pass `x`, not the number `x.data`",),
    ),
    Mistake(
        "ch02.check_value_used_twice",
        "y's children are the leaves",
        _twice(
            'square = Value(x.data * x.data, (x, x), "*", label="x·x")',
            'y = Value(square.data + x.data, (x, x, x), "+", label="y")',
        ),
        ("y's children should be `(square, x)`",),
    ),
    Mistake(
        "ch02.check_value_used_twice",
        "wrong name",
        'x = Value(3.0, label="x")\n'
        'x_squared = Value(x.data * x.data, (x, x), "*", label="x·x")\n'
        'y = Value(x_squared.data + x.data, (x_squared, x), "+", label="y")',
        (
            "there is no `square` (you named it `x_squared`)",
            "the cells below use the name `square`",
        ),
    ),
]
