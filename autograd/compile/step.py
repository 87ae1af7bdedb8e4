"""A compiled training step: takes an `autograd.nn` model and a batch, gives a `CompiledStep`.

The compiler knows nothing of models: this module, which imports both, puts the one to work
for the other, through their public names only.
"""

from .. import _floats, nn
from ..engine import Value
from .front import OPT_LEVEL, compile_loss

__all__ = ["compile_step", "CompiledStep"]


def compile_step(
    model,
    X,
    y,
    *,
    loss="hinge",
    alpha=1e-4,
    backend="python",
    opt_level=OPT_LEVEL,
    check=False,
    fuse=None,
):
    """One training step of `model` on points shaped like `X`, compiled: a `CompiledStep`.

    `model` is an `autograd.nn` model with one output whose parameters are leaf `Value`s of
    the reference engine (the default `value_class`); `X` (a list of points) and `y` (their
    labels, or targets for "mse") give the shape and the numbers of the trace. The labels are
    inputs of the compiled code, not constants, so a step on other points of the same number
    gives the right answer. `loss` is "hinge" or "mse"; "bce" is refused, because
    `nn.bce_with_logits` chooses between two formulas in Python for each point (`if m.data
    >= 0`), which a trace would freeze. `alpha` weighs the L2 penalty, as in `nn.train_step`.
    """
    return CompiledStep(
        model,
        X,
        y,
        loss=loss,
        alpha=alpha,
        backend=backend,
        opt_level=opt_level,
        check=check,
        fuse=fuse,
    )


class CompiledStep:
    """`nn.train_step`, compiled: `step(X, y, lr=0.1)` (or `optimizer=`) takes one step.

    It reads the parameters' numbers, runs the compiled loss and gradients on them and the
    points, leaves each gradient in its parameter's `grad` (as `backward()` would), updates
    the parameters, and returns `nn.StepResult(loss, accuracy)`, the accuracy of the scores
    before the update: what `nn.train_step` returns, to the last bit. `compiled` is the
    `CompiledLoss` it runs.
    """

    def __init__(
        self,
        model,
        X,
        y,
        *,
        loss="hinge",
        alpha=1e-4,
        backend="python",
        opt_level=OPT_LEVEL,
        check=False,
        fuse=None,
    ):
        if loss == "bce":
            raise ValueError(
                "compile_step cannot compile loss='bce': nn.bce_with_logits picks one of two "
                "formulas for each point in Python, on the sign of its margin (if m.data >= 0), "
                "and a trace would freeze those choices; use loss='hinge' or loss='mse'"
            )
        if loss not in nn.LOSSES:
            raise ValueError(f"loss must be 'hinge' or 'mse', not {loss!r}")
        if not hasattr(model, "parameters"):
            raise TypeError(f"compile_step needs an autograd.nn model, not {model!r}")
        self.model, self.loss, self.alpha = model, loss, alpha
        self.params = model.parameters()
        for p in self.params:
            if not isinstance(p, Value):
                raise TypeError(
                    f"compile_step traces the reference engine, but {model!r} has a parameter of "
                    f"type {type(p).__module__}.{type(p).__qualname__}: build the model with "
                    "value_class=autograd.engine.Value (the default)"
                )
        nn.l2_penalty([0.0], alpha)  # a ValueError now for a bad alpha
        self._check_labels(y)

        def loss_and_scores(params, inputs):
            points, labels = inputs
            scores = [model(point) for point in points]
            if scores and isinstance(scores[0], list):
                raise ValueError(
                    f"compile_step needs a model with one output, but {model!r} has several"
                )
            total = nn.LOSSES[loss](scores, labels)
            if alpha:
                total = total + nn.l2_penalty(params, alpha)
            return total, scores

        self.compiled = compile_loss(
            loss_and_scores,
            self.params,
            (list(X), list(y)),
            has_aux=True,
            backend=backend,
            opt_level=opt_level,
            check=check,
            fuse=fuse,
        )

    def _check_labels(self, y):
        if self.loss == "hinge":
            nn.check_labels(y)

    def __call__(self, X, y, *, lr=None, optimizer=None):
        if (lr is None) == (optimizer is None):
            raise TypeError("a compiled step needs exactly one of lr= (a number) or optimizer=")
        if lr is not None and not _floats.is_real(lr):
            raise TypeError(f"lr must be a number, but was given {lr!r}")
        self._check_labels(y)
        loss, grads, scores = self.compiled([p.data for p in self.params], (list(X), list(y)))
        for p, g in zip(self.params, grads):
            p.grad = g
        if optimizer is not None:
            optimizer.step()
        else:
            for p in self.params:
                p.data -= lr * p.grad
        return nn.StepResult(loss, nn.accuracy(scores, y))

    def __repr__(self):
        return (
            f"<CompiledStep: {self.model!r}, {self.loss} loss, "
            f"{len(self.compiled.tape)} instructions, {self.compiled.backend}>"
        )
