"""One set of methods, every operation in every place: the table of primitives, the engines,
the stages, the checks, the tests.

The reference engine (`autograd.engine`) and the fast engine (`autograd.fast`) must give their
values the same names, apart from a few documented internals. Every method of the reference
engine is built by a chapter (`stages.CHAPTER_METHODS`) or is package-only
(`stages.PACKAGE_ONLY`). And every operation (an operator, or a method such as `tanh` that
builds a node) is in each table that must list it: the checks' tables of operations, the random
programs' `OPS` (tests/programs.py, tests/edge_programs.py) and the hand-worked `CASES` of
tests/test_engine_contract.py. A table is read from what its functions do, by running them on
recorders, not from its names. Every operation with a closure of its own is a row of the table
of primitives (`autograd.ops`), and every row is an operation of both engines: what reads the
table (grad, the fast engine's slopes, the compiler's text) then knows it without being told,
and tests/test_ops.py holds the row to the engine's closure.

`missing_places` says what is missing where; the tests below it plant an operation in one place
at a time to show that each place is required. CONTRIBUTING.md's "Where things go" lists the
same places for a contributor.
"""

import inspect
import operator
import types

import pytest

import edge_programs
import programs
from autograd import engine, fast, ops, stages
from autograd.checks import ch03, ch04, ch08
from test_engine_contract import CASES

# What a class's __dict__ holds that is no attribute of its values.
# (`__slotnames__` is a cache that copyreg adds to a class once one of its values is pickled or
# copied, so whether it is there depends on which tests ran before.)
BOOKKEEPING = {
    "__module__",
    "__qualname__",
    "__doc__",
    "__slots__",
    "__dict__",
    "__weakref__",
    "__annotations__",
    "__firstlineno__",
    "__static_attributes__",
    "__slotnames__",
}

# The documented differences (fast.py's docstring): internals that only one engine has.
ENGINE_SPECIFIC = {
    "_pow_value",  # reference: a ** b with a Value b, the closure __pow__ hands over to (chapter 3)
    "__reduce_ex__",  # reference: refuses to pickle a computed value, whose _backward is a closure
    "_a",
    "_b",
    "_da",
    "_db",  # fast: the inputs and their local derivatives, stored forward
}
NOT_OPERATIONS = {"backward"}  # public methods that build no node


def interface(cls):
    """Every name a class gives its values: methods, properties and slots, inherited too."""
    names = {name for klass in cls.__mro__ if klass is not object for name in vars(klass)}
    return names - BOOKKEEPING


def is_operator(name):
    """`__add__`, `__neg__`, ... and the reflected `__radd__`, ...: Python's operator protocol."""
    plain = "__" + name[3:] if name.startswith("__r") else name
    return name.endswith("__") and any(callable(vars(operator).get(n)) for n in (name, plain))


def operations(cls):
    """The operations of a Value class: its operators, and its public methods that build a node."""
    return {
        name
        for name in interface(cls)
        if isinstance(inspect.getattr_static(cls, name), types.FunctionType)
        and (is_operator(name) or not (name.startswith("_") or name in NOT_OPERATIONS))
    }


def methods(cls):
    """The plain functions a class defines (not its slots or properties), inherited too."""
    return {
        name
        for name in interface(cls)
        if isinstance(inspect.getattr_static(cls, name), types.FunctionType)
    }


def operations_called(function, arity, names, numbers=()):
    """Which of the operations `names` `function` calls when given `arity` nodes (and numbers).

    The nodes are recorders: objects that have exactly those operations, each noting its
    name and returning another recorder, so a table is read from what its functions do.
    """
    called = set()

    def recorder(name):
        def method(self, *args):
            called.add(name)
            return Recorder()

        return method

    Recorder = type("Recorder", (), {name: recorder(name) for name in names})
    function(*(Recorder() for _ in range(arity)), *numbers)
    return called


# The checks test what the chapters teach, on the class a notebook built: an operation no chapter
# builds (`stages.PACKAGE_ONLY`) has no place there.
CHECKS = (
    "the checks (ch03.PRIMITIVES, ch03.REFLECTED, ch04.ACTIVATIONS, ch08._ALIASES, ch08._COMPOSED)"
)


def operation_tables(names):
    """Each table of operations that must cover every operation: its name, the names it covers."""
    checks = {method for _, method, _, _ in ch03.PRIMITIVES}
    checks |= {method for *_, method in ch03.REFLECTED}
    checks |= set(ch04.ACTIVATIONS) | set(ch08._ALIASES.values()) | set(ch08._COMPOSED)

    def covered(table):
        return set().union(
            *(operations_called(fn, arity, names, numbers) for fn, arity, numbers in table)
        )

    return {
        CHECKS: checks,
        "tests/programs.py OPS": covered(
            (op.function, op.arity, ()) for op in programs.OPS.values()
        ),
        "tests/edge_programs.py OPS": covered(
            (lambda a, b, n, name=name: edge_programs.apply(name, (a, b), n), 2, (2.0,))
            for name in edge_programs.OPS
        ),
        "tests/test_engine_contract.py CASES": covered(
            (fn, len(xs), ()) for _, fn, xs, _, _ in CASES
        ),
    }


def has_closure(function):
    """Whether a method defines a `_backward` closure of its own (a primitive, not a composite)."""
    code = getattr(function, "__code__", None)
    return code is not None and any(
        isinstance(const, types.CodeType) and const.co_name == "_backward"
        for const in code.co_consts
    )


def missing_rows(reference, rows):
    """Each operation with a closure of its own and no row of the table, and each row whose
    closure the reference engine does not define, one sentence each. (The fast engine must
    have every method of the reference engine: `missing_places` checks that.)"""
    missing = []
    methods_of_rows = {row.method for row in rows}
    for name in sorted(methods(reference)):
        if has_closure(inspect.getattr_static(reference, name)) and name not in methods_of_rows:
            missing.append(
                f"autograd.ops has no row for {name}, whose closure the reference engine defines"
            )
    for row in rows:
        if not has_closure(inspect.getattr_static(reference, row.method, None)):
            missing.append(
                f"the reference engine has no closure for the row {row.name!r} of "
                f"autograd.ops (its method {row.method})"
            )
    return missing


def missing_places(
    reference, other, chapter_methods, package_only, tables, rows=tuple(ops.OPS.values())
):
    """Everywhere an operation or method is missing, one sentence each; [] when all agree.

    `reference` and `other` must give their values the same names (apart from the documented
    `ENGINE_SPECIFIC` internals), each of the same kind: a method in one is a method in the
    other. Every method of `reference` is built by a chapter (`chapter_methods`) or is
    `package_only`, and every name those list is a method of `reference`. Each table in
    `tables` (name -> the operations it covers) covers every operation of either engine (the
    checks, every one a chapter builds). And
    the table of primitives, `rows`, has a row for each closure (see `missing_rows`).
    """
    missing = missing_rows(reference, rows)
    ours = interface(reference) - ENGINE_SPECIFIC
    theirs = interface(other) - ENGINE_SPECIFIC
    for name in sorted(ours - theirs):
        missing.append(f"{other.__module__}.Value has no {name}, which the reference engine has")
    for name in sorted(theirs - ours):
        missing.append(f"the reference engine has no {name}, which {other.__module__}.Value has")
    leaf, other_leaf = reference(1.0), other(1.0)
    for name in sorted(ours & theirs):
        if callable(getattr(leaf, name)) != callable(getattr(other_leaf, name)):
            missing.append(f"{name} is a method in one engine and not in the other")
    built = [name for names in chapter_methods.values() for name in names] + list(package_only)
    for name in sorted(methods(reference) - set(built)):
        missing.append(
            f"no chapter builds {name} (stages.CHAPTER_METHODS), nor is it in stages.PACKAGE_ONLY"
        )
    for name in sorted(set(built) - methods(reference)):
        missing.append(f"the stages name {name}, which the reference engine does not have")
    for table, covered in tables.items():
        required = operations(reference) | operations(other)
        if table == CHECKS:
            required -= set(package_only)
        for name in sorted(required - covered):
            missing.append(f"{table} has no {name}")
    return missing


ALL_OPERATIONS = operations(engine.Value) | operations(fast.Value)


def test_the_engines_stages_checks_and_tables_agree_on_every_operation():
    tables = operation_tables(ALL_OPERATIONS)
    missing = missing_places(
        engine.Value, fast.Value, stages.CHAPTER_METHODS, stages.PACKAGE_ONLY, tables
    )
    heading = "an operation is missing somewhere (see CONTRIBUTING.md, 'Where things go'):"
    assert not missing, "\n".join([heading, *missing])


def test_the_operations_are_the_operators_and_activations():
    # by hand, so that `operations` cannot quietly find too little or too much
    for cls in (engine.Value, fast.Value):
        assert operations(cls) >= {
            "__add__",
            "__radd__",
            "__sub__",
            "__rsub__",
            "__mul__",
            "__rmul__",
            "__truediv__",
            "__rtruediv__",
            "__pow__",
            "__rpow__",
            "__neg__",
            "tanh",
            "exp",
            "log",
            "relu",
            "sigmoid",
        }
        assert not operations(cls) & {
            "__init__",
            "__repr__",
            "backward",
            "_backward",
            "_prev",
            "_pow_value",
            "__deepcopy__",
            "__reduce_ex__",
            "data",
        }


def test_a_table_is_read_from_the_operations_its_functions_call():
    names = ALL_OPERATIONS
    assert operations_called(lambda a: 1 - a, 1, names) == {"__rsub__"}
    assert operations_called(lambda a, b: (1 + a * a).log() ** b, 2, names) == {
        "__mul__",
        "__radd__",
        "log",
        "__pow__",
    }
    assert operations_called(lambda a, b, c: sum([a, b, c]), 3, names) == {"__radd__", "__add__"}


def planted(cls, **members):
    """A subclass of `cls` with `members` added: an engine with one more (or changed) method."""
    return type("Value", (cls,), {"__slots__": (), "__module__": cls.__module__, **members})


def floordiv(self, other):
    return self


def with_chapter(chapter_methods, chapter, *names):
    return {**chapter_methods, chapter: chapter_methods[chapter] + names}


@pytest.fixture(scope="module")
def tables():
    return operation_tables(ALL_OPERATIONS | {"__floordiv__", "cosh"})


def test_an_operation_in_the_reference_engine_alone_is_missing_everywhere_else(tables):
    reference = planted(engine.Value, __floordiv__=floordiv)
    missing = missing_places(
        reference, fast.Value, stages.CHAPTER_METHODS, stages.PACKAGE_ONLY, tables
    )
    assert missing == [
        "autograd.fast.Value has no __floordiv__, which the reference engine has",
        "no chapter builds __floordiv__ (stages.CHAPTER_METHODS), nor is it in stages.PACKAGE_ONLY",
    ] + [f"{table} has no __floordiv__" for table in tables]


def test_an_operation_in_the_fast_engine_alone_is_missing_everywhere_else(tables):
    other = planted(fast.Value, __floordiv__=floordiv)
    missing = missing_places(
        engine.Value, other, stages.CHAPTER_METHODS, stages.PACKAGE_ONLY, tables
    )
    assert missing == [
        "the reference engine has no __floordiv__, which autograd.fast.Value has",
    ] + [f"{table} has no __floordiv__" for table in tables]


def test_an_operation_in_both_engines_and_a_chapter_is_still_missing_from_the_tables(tables):
    reference = planted(engine.Value, __floordiv__=floordiv)
    other = planted(fast.Value, __floordiv__=floordiv)
    chapters = with_chapter(stages.CHAPTER_METHODS, 3, "__floordiv__")
    missing = missing_places(reference, other, chapters, stages.PACKAGE_ONLY, tables)
    assert missing == [f"{table} has no __floordiv__" for table in tables]
    # one table at a time: each is required on its own
    for table in tables:
        complete = {name: covered | {"__floordiv__"} for name, covered in tables.items()}
        complete[table] = tables[table]
        assert missing_places(reference, other, chapters, stages.PACKAGE_ONLY, complete) == [
            f"{table} has no __floordiv__"
        ]
    complete = {name: covered | {"__floordiv__"} for name, covered in tables.items()}
    assert missing_places(reference, other, chapters, stages.PACKAGE_ONLY, complete) == []


def test_a_new_activation_counts_as_an_operation(tables):
    def cosh(self):
        return self

    reference, other = planted(engine.Value, cosh=cosh), planted(fast.Value, cosh=cosh)
    chapters = with_chapter(stages.CHAPTER_METHODS, 4, "cosh")
    assert missing_places(reference, other, chapters, stages.PACKAGE_ONLY, tables) == [
        f"{table} has no cosh" for table in tables
    ]


def test_a_method_of_another_kind_in_one_engine_is_reported(tables):
    other = planted(fast.Value, tanh=property(lambda self: self))
    missing = missing_places(
        engine.Value, other, stages.CHAPTER_METHODS, stages.PACKAGE_ONLY, tables
    )
    assert missing == ["tanh is a method in one engine and not in the other"]


def test_a_method_no_chapter_builds_or_a_chapter_without_its_method_is_reported(tables):
    chapters = {**stages.CHAPTER_METHODS, 4: ("tanh", "exp", "log", "relu")}  # sigmoid forgotten
    assert missing_places(engine.Value, fast.Value, chapters, stages.PACKAGE_ONLY, tables) == [
        "no chapter builds sigmoid (stages.CHAPTER_METHODS), nor is it in stages.PACKAGE_ONLY"
    ]
    chapters = with_chapter(stages.CHAPTER_METHODS, 4, "cosh")
    assert missing_places(engine.Value, fast.Value, chapters, stages.PACKAGE_ONLY, tables) == [
        "the stages name cosh, which the reference engine does not have"
    ]


def test_a_method_no_chapter_teaches_belongs_in_package_only(tables):
    def copy(self):
        return self

    reference, other = planted(engine.Value, __copy__=copy), planted(fast.Value, __copy__=copy)
    assert missing_places(
        reference, other, stages.CHAPTER_METHODS, stages.PACKAGE_ONLY, tables
    ) == ["no chapter builds __copy__ (stages.CHAPTER_METHODS), nor is it in stages.PACKAGE_ONLY"]
    package_only = (*stages.PACKAGE_ONLY, "__copy__")
    assert missing_places(reference, other, stages.CHAPTER_METHODS, package_only, tables) == []


def test_an_operation_with_a_closure_of_its_own_needs_a_row_of_the_table(tables):
    def cosh(self):
        out = engine.Value(self.data, (self,), "cosh")

        def _backward():
            self.grad += out.grad

        out._backward = _backward
        return out

    reference, other = planted(engine.Value, cosh=cosh), planted(fast.Value, cosh=cosh)
    chapters = with_chapter(stages.CHAPTER_METHODS, 4, "cosh")
    complete = {name: covered | {"cosh"} for name, covered in tables.items()}
    assert missing_places(reference, other, chapters, stages.PACKAGE_ONLY, complete) == [
        "autograd.ops has no row for cosh, whose closure the reference engine defines"
    ]
    row = ops.OPS["tanh"]._replace(name="cosh", method="cosh")
    assert (
        missing_places(
            reference, other, chapters, stages.PACKAGE_ONLY, complete, rows=(*ops.OPS.values(), row)
        )
        == []
    )


def test_a_row_of_the_table_needs_the_engines_closure(tables):
    row = ops.OPS["tanh"]._replace(name="cosh", method="cosh")
    assert missing_places(
        engine.Value,
        fast.Value,
        stages.CHAPTER_METHODS,
        stages.PACKAGE_ONLY,
        tables,
        rows=(*ops.OPS.values(), row),
    ) == [
        "the reference engine has no closure for the row 'cosh' of autograd.ops (its method cosh)",
    ]


def test_an_operation_no_chapter_teaches_needs_no_check_but_every_other_table(tables):
    reference, other = planted(engine.Value, cosh=floordiv), planted(fast.Value, cosh=floordiv)
    package_only = (*stages.PACKAGE_ONLY, "cosh")
    assert missing_places(reference, other, stages.CHAPTER_METHODS, package_only, tables) == [
        f"{table} has no cosh" for table in tables if table != CHECKS
    ]
