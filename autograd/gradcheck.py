"""Checking gradients against finite differences.

A finite difference needs no derivative rules at all, only two evaluations of the function,
so it is the independent witness against which `backward()` is judged. The central
difference (f(x+h) - f(x-h)) / 2h has error about h^2, much smaller than the forward
difference's error of about h; too small an h loses to floating-point round-off instead.

`gradcheck` runs both on a function of several inputs and reports, input by input, whether
they agree: an input passes when abs_error <= atol + rtol * |numerical|, the rule of
`math.isclose`-style checks, so large gradients are judged relatively and tiny ones
absolutely.
"""

import html
import math
from collections import namedtuple

from ._floats import is_real
from .engine import Value

__all__ = [
    "forward_difference",
    "central_difference",
    "numerical_grad",
    "gradcheck",
    "GradcheckReport",
    "GradcheckRow",
]


def _check_h(h):
    if not is_real(h) or not h > 0 or h == math.inf:
        raise ValueError(f"the step h must be a finite number > 0, not {h!r}")


def forward_difference(f, x, h=1e-6):
    """(f(x + h) - f(x)) / h: the slope of f at x, with an error that shrinks like h."""
    _check_h(h)
    return (f(x + h) - f(x)) / h


def central_difference(f, x, h=1e-6):
    """(f(x + h) - f(x - h)) / 2h: the slope of f at x, with an error that shrinks like h^2."""
    _check_h(h)
    return (f(x + h) - f(x - h)) / (2 * h)


def _checked(out):
    """`out` itself, if it is a value that can be differentiated; otherwise a clear TypeError."""
    if not hasattr(out, "data") or not callable(getattr(out, "backward", None)):
        raise TypeError(
            f"f must return a value (with .data and .backward()), but it returned {out!r} "
            f"of type {type(out).__name__}"
        )
    return out


def _evaluate(f, numbers, value_class):
    return _checked(f(*[value_class(x) for x in numbers]))


def numerical_grad(f, inputs, h=1e-6, value_class=Value):
    """The central-difference gradient of `f(*values).data` with respect to each input.

    `f` takes one value of `value_class` per input, positionally, and returns a value.
    Costs two evaluations of `f` per input, which is why nobody trains this way.
    """
    _check_h(h)
    return _numerical(
        f, [float(x) for x in inputs], h, value_class, [f"x{i}" for i in range(len(inputs))]
    )


def _numerical(f, inputs, h, value_class, names):
    """`numerical_grad`, with the inputs' names for the message when a step leaves f's domain."""
    grads = []
    for i, name in enumerate(names):
        up, down = list(inputs), list(inputs)
        up[i] += h
        down[i] -= h
        f_up = _stepped(f, up, value_class, h, name, inputs[i], up[i], "x + h")
        f_down = _stepped(f, down, value_class, h, name, inputs[i], down[i], "x - h")
        grads.append((f_up - f_down) / (2 * h))
    return grads


def _stepped(f, numbers, value_class, h, name, x, stepped, where):
    """f's number at the stepped inputs; a ValueError that blames the step, if f is not
    defined there (it raised, or gave NaN), since a central difference needs f on both sides."""
    try:
        out = _evaluate(f, numbers, value_class).data
    except (ArithmeticError, ValueError) as error:
        what = f"f raised {type(error).__name__}: {error}"
    else:
        if out == out:
            return out
        what = "f gave nan"
    raise ValueError(
        f"the step h={h:g} took {name} from {x:.10g} to {stepped:.10g} ({where}), where {what}. "
        f"A central difference needs f defined within h on both sides of the point: try a "
        f"smaller h (such as h={h / 100:g}), or a point further from the edge of f's domain"
    )


GradcheckRow = namedtuple(
    "GradcheckRow", ["name", "value", "analytic", "numerical", "abs_error", "rel_error", "passed"]
)


def _worst(errors):
    """The largest error, NaN if any is NaN (a NaN must never hide behind a smaller number)."""
    errors = list(errors)
    if any(math.isnan(e) for e in errors):
        return math.nan
    return max(errors, default=0.0)


class GradcheckReport:
    """The outcome of `gradcheck`: one row per input, the worst errors, and a verdict.

    `bool(report)` is the verdict; `print(report)` shows the table; Jupyter shows it as HTML
    with failing rows marked.
    """

    def __init__(self, rows, *, output, h, atol, rtol):
        self.rows = list(rows)
        self.output = output
        self.h, self.atol, self.rtol = h, atol, rtol
        self.max_abs_error = _worst(r.abs_error for r in self.rows)
        self.max_rel_error = _worst(r.rel_error for r in self.rows)
        self.failures = [r for r in self.rows if not r.passed]
        self.passed = not self.failures

    def __bool__(self):
        return self.passed

    def verdict(self):
        rule = f"abs error <= {self.atol:g} + {self.rtol:g} * |numerical|"
        if self.passed:
            return (
                f"PASSED: all {len(self.rows)} gradients match ({rule}); "
                f"max abs error {self.max_abs_error:.2e}, max rel error {self.max_rel_error:.2e}"
            )
        names = ", ".join(r.name for r in self.failures)
        return (
            f"FAILED: {len(self.failures)} of {len(self.rows)} gradients disagree ({rule}): {names}"
        )

    def _cells(self):
        header = ["input", "value", "analytic", "numerical", "abs error", "rel error", ""]
        body = [
            [
                r.name,
                f"{r.value:.6g}",
                f"{r.analytic:.10g}",
                f"{r.numerical:.10g}",
                f"{r.abs_error:.2e}",
                f"{r.rel_error:.2e}",
                "ok" if r.passed else "FAIL",
            ]
            for r in self.rows
        ]
        return header, body

    def __str__(self):
        header, body = self._cells()
        widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]

        def line(cells):  # names left-aligned, numbers right-aligned so digits line up
            parts = [cells[0].ljust(widths[0])]
            parts += [c.rjust(w) for c, w in zip(cells[1:-1], widths[1:-1])]
            return "  ".join(parts + [cells[-1]]).rstrip()

        return "\n".join([line(header)] + [line(row) for row in body] + [self.verdict()])

    def _repr_html_(self):
        header, body = self._cells()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
        rows = []
        for row, r in zip(body, self.rows):
            style = "" if r.passed else ' class="gradcheck-fail" style="background:#fdd"'
            cells = "".join(f"<td>{html.escape(c)}</td>" for c in row)
            rows.append(f"<tr{style}>{cells}</tr>")
        colour = "green" if self.passed else "#c00"
        return (
            f'<table class="gradcheck"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p style="color:{colour}"><b>{html.escape(self.verdict())}</b></p>'
        )

    def __repr__(self):
        return (
            f"GradcheckReport(passed={self.passed}, inputs={len(self.rows)}, "
            f"max_abs_error={self.max_abs_error:.2e}, max_rel_error={self.max_rel_error:.2e})"
        )


def gradcheck(f, inputs, *, h=1e-6, atol=1e-6, rtol=1e-5, value_class=Value, names=None):
    """Compare the gradients `backward()` gives with central differences; return a report.

    `inputs` is a list of numbers (named `names`, or x0, x1, ...) or a dict name -> number;
    `f` takes one value of `value_class` per input, positionally, and returns a value.
    An input passes when |analytic - numerical| <= atol + rtol * |numerical|. The relative
    error shown is |analytic - numerical| / max(|analytic|, |numerical|) (0 when both are 0).
    """
    if isinstance(inputs, dict):
        if names is not None:
            raise TypeError(
                "give names either as the keys of an inputs dict or as names=, not both"
            )
        names, numbers = list(inputs), list(inputs.values())
    else:
        numbers = list(inputs)
        names = [f"x{i}" for i in range(len(numbers))] if names is None else [str(n) for n in names]
    if len(names) != len(numbers):
        raise ValueError(f"{len(numbers)} inputs but {len(names)} names; they must match")
    if not numbers:
        raise ValueError("gradcheck needs at least one input")
    for name, x in zip(names, numbers):
        if not is_real(x):
            raise TypeError(f"input {name} must be a number, not {x!r}")
    for tol_name, tol in (("atol", atol), ("rtol", rtol)):
        if not is_real(tol) or not tol >= 0:
            raise ValueError(f"{tol_name} must be a number >= 0, not {tol!r}")
    _check_h(h)

    values = [value_class(x) for x in numbers]
    for name, v in zip(names, values):
        try:  # labelled inputs draw readably; a class without labels still works
            v.label = name
        except AttributeError:
            pass
    out = _checked(f(*values))
    out.backward()
    numerical = _numerical(f, [float(x) for x in numbers], h, value_class, names)

    rows = []
    for name, x, v, num in zip(names, numbers, values, numerical):
        ana = float(v.grad)
        abs_err = abs(ana - num)
        rel_err = 0.0 if abs_err == 0 else abs_err / max(abs(ana), abs(num))
        passed = abs_err <= atol + rtol * abs(num)  # False whenever either side is NaN
        rows.append(GradcheckRow(name, float(x), ana, num, abs_err, rel_err, passed))
    return GradcheckReport(rows, output=out.data, h=h, atol=atol, rtol=rtol)
