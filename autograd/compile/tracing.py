"""Tracing: takes a `with` block, gives every `Value` the engine made in it, in order.

Tracing: the Values the engine makes while a function runs, recorded for this context only.

`creations()` lists, in the order the engine makes them, every `Value` made inside its `with`
block. The engine consults a context variable (`engine._tracing`) when it makes a Value, and
appends the Value to the list found there: set here for this context only, so another
thread, or another trace, has its own list, and nothing global changes, so nothing can be
left behind. `autograd.compile` traces with it, and so may a chapter's checks.
"""

import contextlib

from .. import engine


@contextlib.contextmanager
def creations():
    """While tracing, keep every `Value` the engine makes, in the order it makes them.

    The tape keeps that order, and keeps the operations whose results never reach the loss:
    the engine ran them, so for numbers where one of them raises (or where two operations
    would), the compiled code raises the same error as the engine, the first that ran.
    """
    made = []
    token = engine._tracing.set(made)
    try:
        yield made
    finally:
        engine._tracing.reset(token)
