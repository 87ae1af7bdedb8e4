"""Chapter 4 · predict-first questions with several numbers: `PredictNumbers`, an exercise
whose answer is a tuple of numbers (`_Number` each), with a hint on a number's first wrong try
and its answer after the second. `ch04` asks its question about tanh's slopes with it.
"""

import math

from .toolbox import Exercise, fail, is_number, show

__all__ = ["PredictNumbers"]


class _Number:
    """One number of a predict-first question: how to judge it, hint at it and reveal it."""

    def __init__(self, question, expected, *, tol, rel, hint, explain, known_wrong, shown):
        self.question = question  # "tanh'(0)"
        self.expected = expected
        self.tol = tol  # absolute tolerance
        self.rel = rel  # relative tolerance (for a rough number)
        self.hint = hint
        self.explain = explain
        self.known_wrong = known_wrong  # [(value, tolerance, what it means)]
        self.shown = shown  # the answer as precisely as the question asks: "about 0.0099"

    def right(self, x):
        return math.isclose(x, self.expected, rel_tol=self.rel, abs_tol=self.tol)

    def wrong(self, x):
        """Is `x` a number, and a wrong one? (None and non-numbers are judged elsewhere.)"""
        return _is_finite_number(x) and not self.right(x)


def _is_finite_number(x):
    return is_number(x) and math.isfinite(x)


def _rounded(x):
    """A learner's number as a person writes it: 0.009975, not 0.009975000000000045."""
    return f"{float(x):.4g}"


class PredictNumbers(Exercise):
    """A predict-first question with several numbers (the shared `Prediction` takes one).

    Each number gets a hint on its first wrong try, never the number, and the answer after its
    second: the tries are counted per number, so that a learner who fixes the first number and
    gets the second wrong is not shown the second at once. The count lives on the exercise's
    outcome, so a fresh kernel (or `forget_answers`) starts again from zero.
    """

    def __init__(self, chapter, title, numbers, **kwargs):
        self.numbers = numbers
        self._last = None
        checks = [self._checker(k) for k in range(len(numbers))]
        super().__init__(
            chapter,
            title,
            checks,
            answer_of=self._answer_of,
            unanswered=lambda answer: all(x is None for x in answer),
            **kwargs,
        )

    def _answer_of(self, *args):
        """The learner's numbers as one tuple: the same tuple object while the numbers are the
        same objects, so that the machinery recognises an answer it has already seen (the
        solution cell re-checking it, or the solution's own numbers checked again)."""
        last = self._last
        if last is not None and len(last) == len(args) and all(a is b for a, b in zip(last, args)):
            return last
        self._last = tuple(args)
        return self._last

    def wrong_tries_of(self, k):
        """How many counted wrong tries number k has had before this check."""
        counts = getattr(self.outcome(), "wrong_numbers", None)
        return counts[k] if counts else 0

    def check(self, *args):
        previous = self.outcome()
        before = previous.wrong_tries if previous else 0
        counts = list(getattr(previous, "wrong_numbers", None) or [0] * len(self.numbers))
        report = super().check(*args)
        outcome = self.outcome()
        if outcome is not None and outcome is not previous:  # this check was remembered
            if outcome.wrong_tries > before:  # ... and counted as a wrong try
                for k, number in enumerate(self.numbers):
                    if number.wrong(args[k]):
                        counts[k] += 1
            outcome.wrong_numbers = counts
        return report

    def _checker(self, k):
        number = self.numbers[k]

        def judge(*args):
            answer = args[k]
            if answer is None:
                fail(
                    f"no prediction yet for {number.question}: replace `None` with the number "
                    "you expect"
                )
            if not _is_finite_number(answer):
                fail(
                    f"your prediction for {number.question} should be a number, but was "
                    f"{show(answer)}"
                )
            if number.right(answer):
                return
            said = f"{_rounded(answer)} is not {number.question}"
            if self.wrong_tries_of(k) >= 1:  # its second wrong try: show the answer
                fail(f"{said}. It is {number.shown}: {number.explain}")
            hint = next(
                (
                    why
                    for value, tol, why in number.known_wrong
                    if math.isclose(answer, value, rel_tol=0.0, abs_tol=tol)
                ),
                number.hint,
            )
            fail(
                f"{said}: {hint} Try again: after a second wrong try this check shows the "
                "answer (or expand the solution below it)."
            )

        judge.check_name = number.question
        return judge
