"""The engine as each chapter of the course leaves it.

The learner writes the engine across chapters 2 to 5; `autograd/engine.py` holds the same
engine, finished and tested. A notebook that grows the engine starts from `stage(N - 1)`, the
class as the previous chapter left it, and adds its own methods in cells the learner reads:

    >>> Value = stage(3)                 # chapter 4 starts here: operators, no tanh yet
    >>> @add_to_class(Value)
    ... def double(self):
    ...     return self + self
    >>> Value(1.5).double()
    Value(data=3.0000, grad=0.0000)

A stage is not a second copy of the engine. It is a new class holding copies of the engine's own
functions (same code objects), each made to look up module-level names in a private copy of the
engine's globals in which `Value` means the stage class. So `isinstance(other, Value)` and
`Value(...)` inside a stage's methods, and inside the engine's helpers such as `_operand`, build
objects of the stage class, never of `engine.Value`; and a change to `engine.py` reaches every
stage the moment it is made.
"""

import types

from . import engine, syllabus
from ._floats import is_int

__all__ = [
    "CHAPTER_METHODS",
    "PACKAGE_ONLY",
    "FIRST_CHAPTER",
    "methods_up_to",
    "stage",
    "add_to_class",
]

# Which chapter builds which method of `engine.Value`, in the order the chapters teach them:
# {chapter: method names}, read from the course's list of chapters (`autograd.syllabus`), which
# is where to change it. Chapters after 5 add nothing to the engine; they use it. Every method
# of `engine.Value` must appear here exactly once (tests/test_stages.py checks it), so a method
# added to the engine later cannot silently go missing from the stages.
CHAPTER_METHODS = {c.number: c.methods for c in syllabus.CHAPTERS if c.methods}

# Methods of `engine.Value` that no chapter builds and no stage has: copying and pickling, which
# let the package copy and pickle graphs safely, and the package operations sin and cos. A
# notebook's class, like the one the learner writes, does without.
PACKAGE_ONLY = ("__deepcopy__", "__reduce_ex__", "sin", "cos")

FIRST_CHAPTER = min(CHAPTER_METHODS)


def _truediv_by_composition(self, other):  # self / other, as chapter 3 builds it
    other = other if isinstance(other, Value) else _operand(other, "/", self)  # noqa: F821
    if other.data == 0:
        raise ZeroDivisionError(f"division by zero: {self.data!r} / {other.data!r}")
    return self * other**-1


# Where a chapter builds a method differently from the package's engine, a stage holds the
# chapter's version. Chapter 3 builds division by composition, a / b = a * b**-1, and later
# chapters rely on it (chapter 8's mysteries: a broken `*` or `**` breaks division too); the
# package makes division a primitive of its own, so that it rounds once (engine.Value.__truediv__).
COURSE_VERSIONS = {"__truediv__": _truediv_by_composition}


def methods_up_to(chapter):
    """The names of the methods chapters 2 to `chapter` have built, in teaching order."""
    _check_chapter(chapter)
    return tuple(
        name for ch, names in sorted(CHAPTER_METHODS.items()) if ch <= chapter for name in names
    )


def stage(chapter, **replacements):
    """A new class `Value` with exactly the engine methods chapters 2 to `chapter` have built.

    Every call makes a new, independent class, so a notebook may add or replace methods on its
    class (`add_to_class`) without touching the package or any other stage.

    `replacements` (name=function) swap one of the stage's methods for another function, the
    way chapter 8 plants bugs: `stage(5, __add__=add_that_forgets_to_accumulate)`. Inside a
    replacement, too, the name `Value` means the stage class. (A subclass of a stage would not
    do: the methods it inherits build objects of the parent class, so a planted bug would leave
    the graph after one operation.)
    """
    names = methods_up_to(chapter)
    unknown = sorted(set(replacements) - set(names))
    if unknown:
        raise ValueError(
            f"stage({chapter}) has no method {', '.join(unknown)} to replace; it has: "
            f"{', '.join(names)}"
        )

    # A private copy of the engine's globals, in which `Value` will mean the new class.
    namespace = dict(vars(engine))
    for helper_name, helper in vars(engine).items():
        if isinstance(helper, types.FunctionType) and helper.__module__ == engine.__name__:
            namespace[helper_name] = _rebind(helper, namespace)

    # No __slots__, unlike engine.Value: the class the learner writes in the notebooks has
    # none, and chapters and exercises attach attributes of their own to nodes (a marker, an
    # order number for a drawing) and subclass stages. Slots would make those fail with an
    # AttributeError the learner's own class never gives; the speed they buy matters for the
    # engine's million-node graphs, not for a notebook's few hundred nodes.
    body = {"__doc__": f"`Value` as chapter {chapter} leaves it: {', '.join(names)}."}
    for name in names:
        if name in replacements:
            body[name] = _rebind(replacements[name], {**replacements[name].__globals__})
        elif name in COURSE_VERSIONS:
            body[name] = _rebind(COURSE_VERSIONS[name], namespace)
            body[name].__name__, body[name].__qualname__ = name, f"Value.{name}"
        else:
            body[name] = _rebind(_engine_method(name), namespace)
    cls = type("Value", (), body)

    namespace["Value"] = cls
    for name in replacements:
        body[name].__globals__["Value"] = cls
    return cls


def add_to_class(cls):
    """Decorator: add the decorated function to `cls` as a method (by its name) and return it.

    It lets a notebook grow a class one method per cell, each next to the prose about it:

        @add_to_class(Value)
        def tanh(self):
            ...
    """
    if not isinstance(cls, type):
        raise TypeError(f"add_to_class needs a class, such as Value, but was given {cls!r}")

    def add(function):
        if not callable(function) or not hasattr(function, "__name__"):
            raise TypeError(f"add_to_class adds functions, but was given {function!r}")
        setattr(cls, function.__name__, function)
        return function

    return add


def _check_chapter(chapter):
    if not is_int(chapter):
        raise TypeError(f"chapter must be a whole number such as 3, but was given {chapter!r}")
    if chapter < FIRST_CHAPTER:
        raise ValueError(
            f"there is no engine after chapter {chapter}: chapter {FIRST_CHAPTER} builds the "
            f"first Value (__init__ and __repr__), so ask for stage({FIRST_CHAPTER}) or later"
        )


def _engine_method(name):
    try:
        method = vars(engine.Value)[name]
    except KeyError:
        raise AttributeError(
            f"CHAPTER_METHODS names {name!r}, but engine.Value has no such method"
        ) from None
    if not isinstance(method, types.FunctionType):
        raise TypeError(f"engine.Value.{name} is not a plain function; stages can only copy those")
    return method


def _rebind(function, globals_):
    """A copy of `function` (same code) that looks up module-level names in `globals_`.

    Closures made inside it (each operation's `_backward`) inherit those globals too.
    """
    copy = types.FunctionType(
        function.__code__,
        globals_,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__doc__ = function.__doc__
    copy.__qualname__ = function.__qualname__
    copy.__dict__.update(function.__dict__)
    return copy
