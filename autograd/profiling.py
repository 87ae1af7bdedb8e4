"""Timing pieces of work fairly against each other, for the "making it fast" chapter.

A single timing of a few milliseconds says little: the machine may have been busy, and work
that runs first or last can be helped or hurt by whatever ran before it. So `compare` runs
each piece of work several times, *interleaved* (one run of each per round, in an order that
rotates from round to round), collects Python's cyclic garbage before every run, outside the
timing, so that no piece pays for the garbage another one left behind, and reports the best
and the median of each piece's runs:

    >>> timings = compare({"sum": lambda: sum(range(1000)),
    ...                    "loop": lambda: [i for i in range(1000)]}, rounds=3)
    >>> sorted(timings.names)
    ['loop', 'sum']

`Timings.speedup(name, baseline)` is the ratio of the two medians, `baseline's median /
name's median`: the number a reader gets by dividing the medians the table prints beside it,
so the table never contradicts itself.

`collector_off()` switches the cyclic garbage collector off for a `with` block and restores
it afterwards, even when the block raises. `new_tracked_objects(make)` lists the objects the
collector tracks that `make()`'s result brought along: what a new graph node costs it.
"""

import gc
import statistics
import time

from ._floats import is_int

__all__ = ["Timings", "compare", "collector_off", "new_tracked_objects"]


class Timings:
    """Seconds per run of each piece of work, by name, in the order the runs were made."""

    def __init__(self, runs):
        self.runs = {name: list(seconds) for name, seconds in runs.items()}

    @property
    def names(self):
        return list(self.runs)

    def _seconds(self, name):
        try:
            return self.runs[name]
        except KeyError:
            known = ", ".join(map(repr, self.runs))
            raise KeyError(f"no timings for {name!r}; there are: {known}") from None

    def best(self, name):
        """The fastest run: the one least disturbed by anything else the machine was doing."""
        return min(self._seconds(name))

    def median(self, name):
        """The middle run: what a typical run costs."""
        return statistics.median(self._seconds(name))

    def speedup(self, name, baseline):
        """How many times faster `name` ran than `baseline`: baseline's median / name's median."""
        return self.median(baseline) / self.median(name)

    def verdict(self, name, other, *, noise=1.1):
        """Which of `name` and `other` ran faster, in one sentence a reader can trust: "X was
        1.8 times as fast as Y (best runs: 1.7 times)" when the best runs and the medians
        agree on the winner and both put it ahead by more than `noise` (10 %, by default);
        otherwise that they were level, and why: a smaller gap, or best runs and medians
        that disagree, is what a busy machine's noise looks like."""
        by_median = self.median(other) / self.median(name)
        by_best = self.best(other) / self.best(name)
        if by_median > noise and by_best > noise:
            return (
                f"{name} was {by_median:.1f} times as fast as {other} (medians; best runs: "
                f"{by_best:.1f} times)"
            )
        if by_median < 1 / noise and by_best < 1 / noise:
            return (
                f"{other} was {1 / by_median:.1f} times as fast as {name} (medians; best "
                f"runs: {1 / by_best:.1f} times)"
            )
        if (by_median > 1) != (by_best > 1):
            why = (
                "the medians and the best runs disagree on which was faster "
                f"({by_median:.2f} and {by_best:.2f} for {name} over {other})"
            )
        else:
            why = (
                f"they differ by less than {(noise - 1) * 100:.0f} % (medians "
                f"{by_median:.2f}, best runs {by_best:.2f} for {name} over {other})"
            )
        return (
            f"{name} and {other} were level: {why}, which is within the noise of a "
            "machine doing other work"
        )

    def table(self, baseline=None):
        """A plain-text table: best and median in milliseconds, and the speed-up over `baseline`
        (the first piece of work, unless named): the ratio of the medians in the same table."""
        baseline = self.names[0] if baseline is None else baseline
        width = max(len(name) for name in self.names)
        lines = [f"{'':<{width}}  {'best':>9}  {'median':>9}  {'vs ' + baseline}"]
        for name in self.names:
            lines.append(
                f"{name:<{width}}  {self.best(name) * 1e3:>6.1f} ms  "
                f"{self.median(name) * 1e3:>6.1f} ms  {self.speedup(name, baseline):.1f}x"
            )
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def __repr__(self):
        runs = len(next(iter(self.runs.values()), []))
        return f"<Timings of {', '.join(self.names)}: {runs} runs each>"


def compare(work, rounds=5, *, warmup=True, collect=True, clock=time.perf_counter):
    """Time each zero-argument callable in the dict `work` (name -> callable), interleaved.

    Each of `rounds` rounds runs every piece once; the order rotates by one place a round, so
    no piece always runs first. With `warmup`, each piece runs once untimed first (Python
    specialises code that has run a few times). With `collect`, `gc.collect()` runs before
    every timed run, outside the timing. `clock` reads the time in seconds (`time.process_time`
    counts only this process's CPU time). Returns a `Timings`.
    """
    if not isinstance(work, dict) or not work:
        raise TypeError(
            f"work must be a non-empty dict of name -> function, but was given {work!r}"
        )
    for name, function in work.items():
        if not callable(function):
            raise TypeError(
                f"work[{name!r}] must be a function to call, but was given {function!r}"
            )
    if not is_int(rounds) or rounds < 1:
        raise ValueError(f"rounds must be a positive int, but was given {rounds!r}")

    names = list(work)
    if warmup:
        for name in names:
            work[name]()
    runs = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            if collect:
                gc.collect()
            start = clock()
            work[name]()
            runs[name].append(clock() - start)
    return Timings(runs)


class collector_off:
    """A `with` block in which the cyclic garbage collector is off; restored afterwards.

    Objects in reference cycles are not freed while it is off: collect them afterwards. Note
    also that the collector's counters keep counting while it is off, so once it is back on,
    the very next object created sets off a collection of everything created meanwhile.
    Leaving the block creates no object, so that collection does not land inside a timing
    that ends with the block (a generator-based context manager would set it off on exit).
    """

    def __enter__(self):
        self._was_on = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exception):
        if self._was_on:
            gc.enable()
        return False


def new_tracked_objects(make):
    """Call `make()` and return `(its result, the tracked objects it brought along)`.

    "Tracked" objects are those the cyclic garbage collector watches: containers such as class
    instances, tuples, lists, dicts, functions and cells (not floats, ints or strings). The
    objects returned are those that did not exist before the call and that the result holds,
    directly or through other new objects (the result included, if it is tracked): what a new
    graph node brings along. Objects that something else created meanwhile (another thread of
    a Jupyter kernel, say) are left out. `gc.get_objects()` is compared before and after the
    call, made with the collector off so that nothing is collected, or untracked, in between.
    """
    if not callable(make):
        raise TypeError(f"make must be a function to call, but was given {make!r}")
    with collector_off():
        before = gc.get_objects()  # kept alive, so no new object can reuse an old one's id
        result = make()
        after = gc.get_objects()
    known = {id(obj) for obj in before}
    known.add(id(before))
    fresh = {id(obj) for obj in after if id(obj) not in known}
    held, stack = set(), [result]
    while stack:  # from the result, through new objects only
        obj = stack.pop()
        if id(obj) in fresh and id(obj) not in held:
            held.add(id(obj))
            stack.extend(gc.get_referents(obj))
    return result, [obj for obj in after if id(obj) in held]
