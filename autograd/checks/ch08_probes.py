"""Chapter 8 · watching a gradient checker work: the probes behind the checkpoint's messages.

When the learner's checker misjudges, the checks of `ch08` ask these why: `_recipe_problem`
reads the points it ran `f` at (inputs nudged together, one way only, never), `_why_false` and
`_why_true` run it on straight lines with planted gradients (a one-sided difference, a missing
2h, the wrong gradient compared, a tolerance too tight or too loose, a verdict never False).
"""

from .toolbox import call, is_number

# ----------------------------------------------------------------- watching a checker work
# The checks call the learner's checker on functions of their own, so they can see what it
# does: which points it runs `f` at (a log of every call), and how its verdict depends on the
# gradients `backward()` gives (a probe class whose `backward()` plants chosen gradients on a
# straight line, whose every difference quotient is exact up to round-off). A failure then
# names the bug the evidence shows, instead of guessing at the tolerance.


def _verdict(check_gradients, f, inputs, value_class, on):
    return bool(
        call(
            check_gradients,
            f,
            list(inputs),
            value_class,
            none=f"`check_gradients` returned None on {on}: did it forget to `return` "
            "its verdict? It must `return False` as soon as one input disagrees, "
            "and `return True` after the loop, once every input agreed",
        )
    )


def _logged(f, log):
    """`f`, writing down the data of the inputs of every call into `log`."""

    def logged(*args):
        log.append([getattr(a, "data", a) for a in args])
        return f(*args)

    return logged


def _nudges(log, inputs):
    """What the calls in `log` did to the point `inputs`: for each input the directions it was
    moved in alone (+1, −1), whether some call moved several inputs at once, and the step h."""
    signs = [set() for _ in inputs]
    together, steps = False, []
    for point in log:
        if len(point) != len(inputs) or not all(is_number(x) for x in point):
            continue
        moved = [i for i, (x, x0) in enumerate(zip(point, inputs)) if x != x0]
        steps += [abs(point[i] - inputs[i]) for i in moved]
        if len(moved) > 1:
            together = True
        elif moved:
            i = moved[0]
            signs[i].add(1 if point[i] > inputs[i] else -1)
    return signs, together, (min(steps) if steps else None)


def _recipe_problem(log, inputs, verdict):
    """What is wrong with the points the checker ran `f` at: (None, a clause that says so),
    ("forward" or "backward", None) for a one-sided difference, or (None, None) if nothing."""
    signs, together, _ = _nudges(log, inputs)
    if not together and not any(signs):
        return None, (
            "never ran `f` on nudged inputs, so it computed no numerical slope and compared "
            "nothing"
            + (" (does it return True whatever happens?)" if verdict else "")
            + ". For each input, run `f` once with that input nudged up by h and once nudged "
            "down by h, and compare the slope with the input's `grad`"
        )
    if together and not all(signs):
        return None, (
            "nudges every input at once: it ran `f` with several inputs moved by h together, "
            "so its difference measures how f changes when all of them move (the sum of their "
            "slopes), not ∂f/∂x for one input. Nudge one input at a time, the others held "
            "still: copy the list of inputs and change only entry i"
        )
    missing = [i for i, s in enumerate(signs) if not s]
    if missing and verdict:  # (a checker that said False may rightly have stopped early)
        first = ", ".join(str(i) for i in range(missing[0]))
        return None, (
            f"never nudged input {missing[0]} (inputs are numbered from 0): it only ever "
            f"compares the first input{'s' * (missing[0] > 1)} ({first}). Is a `return` inside "
            "the loop? Return True after the loop, once every input agreed"
        )
    one_way = [i for i, s in enumerate(signs) if len(s) == 1]
    if one_way:
        return ("forward" if signs[one_way[0]] == {1} else "backward"), None
    return None, None


# A straight line for the probes: f = 2x − 3y at (0.5, 1.5).
_SLOPES, _POINT = (2.0, -3.0), (0.5, 1.5)


class _Probe:
    """A value whose `backward()` plants chosen gradients on the inputs of a probe function."""

    def __init__(self, data, *args, **kwargs):
        self.data = float(data)
        self.grad = 0.0
        self.label = kwargs.get("label", "")
        self._planted = ()

    def backward(self):
        self.grad = 1.0
        for leaf, g in self._planted:
            leaf.grad += g


def _probe(check_gradients, slopes, planted, point=_POINT):
    """The checker's verdict on f = Σ slopes·x at `point` when `backward()` says the gradients
    are `planted` (None if it crashed or returned None), and the log of its calls of f."""
    log = []

    def f(*xs):
        log.append([getattr(x, "data", x) for x in xs])
        out = _Probe(sum(s * x.data for s, x in zip(slopes, xs)))
        out._planted = list(zip(xs, planted))
        return out

    try:
        result = check_gradients(f, list(point), _Probe)
    except Exception:  # a checker that cannot handle the probe: no diagnosis
        return None, log
    return (None if result is None else bool(result)), log


def _minus(x):
    return f"{x:g}".replace("-", "−")


def _line(slopes):
    terms = [f"{s:g}{name}" for s, name in zip(slopes, "xy")]
    return " + ".join(terms).replace("+ -", "− ").replace("1x", "x").replace("1y", "y")


def _step_or_tolerance_problem(right, h, line):
    """Why a checker says False for a correct class when its step h or its tolerance is to
    blame (`right`: its verdict on the straight line with the right gradients), or None."""
    if h is not None and h < 1e-9:
        return (
            f"its step h = {h:.0e} is so small that x + h and x − h differ in their last "
            "few bits only, and round-off swamps the difference (chapter 1's V): use h "
            "near 1e-6"
        )
    if right:
        if h is not None and h > 1e-3:
            return (
                f"{line} it agrees, but with h = {h:g} the difference of a curved function "
                "is off by about h² times its curvature: use h near 1e-6"
            )
        return (
            f"{line}, whose differences are exact, it does agree with the right gradients: "
            "only the bend of a curved function sets it off, so its tolerance is tighter "
            "than a central difference can deliver (about 1e-8 with h = 1e-6). Use a "
            "tolerance near 1e-5, relative to the size of the gradient"
        )
    return None


def _own_difference(i, h, kind):
    """The checker's own difference in input i on the probes' line, computed as it would
    (`kind`: "forward", "backward", or None for the central difference)."""
    up, down = list(_POINT), list(_POINT)
    up[i] += h
    down[i] -= h
    value = lambda xs: sum(s * x for s, x in zip(_SLOPES, xs))
    if kind == "forward":
        return (value(up) - value(_POINT)) / h
    if kind == "backward":
        return (value(_POINT) - value(down)) / h
    return (value(up) - value(down)) / (2 * h)


def _false_hypotheses(h, kind, said):
    """[(slopes, planted gradients, why)]: each a line on which a checker with that fault (and
    only such a checker) says True, with the message that names the fault."""
    difference = f"{kind} difference" if kind else "central difference"
    big = [s * 1e5 for s in _SLOPES]  # steep, so that 2h·slope and h²·slope differ by far
    return [
        (
            _SLOPES,
            [_own_difference(i, h, kind) for i in range(2)],
            f"{said}, and True only for gradients equal to its own {difference} to the last "
            f"digit: its tolerance is tighter than float64 allows (a {difference} is good to "
            f"about {'1e-8' if kind is None else '1e-7'}, never to 1e-16). Use a tolerance near "
            "1e-5, relative to the size of the gradient",
        ),
        (
            big,
            [2 * h * s for s in big],
            f"{said}, and True for gradients 2h times too small: its numerical slope is "
            "f(x + h) − f(x − h) itself, without the division by 2h. Divide by `(2 * h)`",
        ),
        (
            _SLOPES,
            [2 * s for s in _SLOPES],
            f"{said}, and True for gradients twice too large: it divides the difference by h, but "
            "x + h and x − h are 2h apart. Divide by `(2 * h)`",
        ),
        (
            big,
            [h * h * s for s in big],
            f"{said}, and True for gradients h² times too small: `/ 2 * h` divides by 2 and then "
            "*multiplies* by h. Write `/ (2 * h)`",
        ),
        (
            (1.0, 1.0),
            (4.0, -6.0),
            "its verdict ignores the inputs' gradients: on f = x + y it said True even when "
            "`backward()` gave them 4 and −6. It compares every slope with a gradient that is "
            "always 1: the output's own `grad`, which `backward()` sets to 1.0. Compare input i's "
            "numerical slope with input i's gradient, `values[i].grad`",
        ),
        (
            (2.0, 2.0),
            (2.0, 9.0),
            "it compares every input's slope with the first input's gradient: on f = 2x + 2y it "
            "said True even when y's gradient was 9. Compare input i's numerical slope with "
            "`values[i].grad`",
        ),
        (
            _POINT,
            (7.0, -9.0),
            "it compares the slopes with the inputs' `data`, not their `grad`: on f = 0.5x + 1.5y "
            "at (0.5, 1.5) it said True even with the gradients 7 and −9. Compare with "
            "`values[i].grad`",
        ),
    ]


def _why_false(check_gradients, kind=None):
    """Why a checker says False for a correct class, as far as the probes can tell (`kind`:
    "forward" or "backward" for a checker that takes a one-sided difference)."""
    right, log = _probe(check_gradients, _SLOPES, _SLOPES)
    h = _nudges(log, _POINT)[2]
    line = f"on the straight line f = {_line(_SLOPES)}"
    problem = _step_or_tolerance_problem(right, h, line)
    if problem is not None:
        return problem
    if right is None:
        return ""
    h = float(f"{h:.3g}") if h else 1e-6  # the learner's h, without the round-off of x + h − x
    said = (
        f"{line} it said False even with the exact gradients {_minus(_SLOPES[0])} and "
        f"{_minus(_SLOPES[1])}"
    )
    for slopes, planted, why in _false_hypotheses(h, kind, said):
        if _probe(check_gradients, slopes, planted)[0]:
            return why
    return (
        f"{said}: look at how it computes each input's numerical slope, and how it "
        "compares it with that input's `grad`"
    )


def _why_true(check_gradients):
    """Why a checker says True for a broken class, as far as the probes can tell."""
    s0, s1 = _SLOPES
    line = f"on the straight line f = {_line(_SLOPES)}"
    nonsense, log = _probe(check_gradients, _SLOPES, (s0 + 10, s1 - 10))
    if nonsense:
        return (
            f"{line} it said True even when both gradients were off by 10: it never says "
            "False. As soon as one input's gradient and its numerical slope disagree, "
            "`return False`"
        )
    if (
        _probe(check_gradients, _SLOPES, (s0, s1 + 10))[0]
        and _probe(check_gradients, _SLOPES, (s0 + 10, s1))[0] is False
    ):
        return (
            f"{line} it caught a wrong gradient in the first input but not in the second: "
            "it only ever compares the first input. Is a `return` inside the loop? Return "
            "True after the loop, once every input agreed"
        )
    through = [
        d
        for d in (3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
        if _probe(check_gradients, _SLOPES, [s * (1 + d) for s in _SLOPES])[0]
    ]
    if through:
        return (
            f"its tolerance is too loose: {line} it said True for gradients as much as "
            f"{through[-1]:.2g} ({through[-1]:.2%}) off. A correct gradient agrees with a "
            "central difference to about 1e-8, so a tolerance near 1e-5 lets every right "
            "gradient through and stops the wrong ones"
        )
    return ""
