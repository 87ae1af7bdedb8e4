"""Chapter 06's exercises: ∂o/∂x1 by hand, drive the output to 0.5, skip zero_grad."""

from . import Mistake

_DX1 = "ch06.check_dx1_by_hand"
_TARGET = "ch06.check_reached_target"
_ZERO = "ch06.check_skipped_zero_grad"


def _run(learning_rate, steps, call=None):
    call = call or "my_losses, my_outputs = train(my_learning_rate, my_steps, target=0.5)"
    return f"my_learning_rate = {learning_rate}\nmy_steps = {steps}\n{call}"


def _forgetful(
    prediction, call="forgetful_losses, forgetful_outputs = train(0.05, zero_grads=False)"
):
    return f"my_prediction = {prediction!r}\n{call}"


MISTAKES = [
    # ∂o/∂x1 = w1·(1 − o²) = −1.5: the numbers people give instead
    Mistake(_DX1, "w1 alone, the tanh forgotten", "my_dx1 = -3", ("that is w1 alone",)),
    Mistake(_DX1, "the tanh's slope alone", "my_dx1 = 0.5", ("the tanh's local derivative alone",)),
    Mistake(_DX1, "the sign lost", "my_dx1 = 1.5", ("the sign is off",)),
    Mistake(_DX1, "x1 for w1 (that is dw1)", "my_dx1 = 1.0", ("that is ∂o/∂w1",)),
    Mistake(_DX1, "the product's value", "my_dx1 = -6", ("the product's value, not its slope",)),
    Mistake(_DX1, "a number nobody explains", "my_dx1 = -0.75", ("follow the path from o back",)),
    # drive the output to 0.5: a learning rate and a number of steps
    Mistake(_TARGET, "learning rate 0", _run(0.0, 20), ("learning rate of 0",)),
    Mistake(
        _TARGET,
        "learning rate too big, swinging",
        _run(0.5, 20),
        ("too large", "smaller learning rate"),
    ),
    Mistake(
        _TARGET,
        "learning rate diverging",
        _run(5.0, 20),
        ("too large", "diverged", "smaller learning rate"),
    ),
    Mistake(_TARGET, "too few steps", _run(0.05, 3), ("take more steps",)),
    Mistake(_TARGET, "a crawling learning rate", _run(0.001, 20), ("not far enough yet",)),
    Mistake(_TARGET, "a negative learning rate", _run(-0.2, 20), ("uphill",)),
    Mistake(
        _TARGET,
        "the (losses, outputs) tuple kept whole",
        _run(0.2, 20, "my_outputs = train(my_learning_rate, my_steps, target=0.5)"),
        ("the pair (losses, outputs)", "my_losses, my_outputs = train(...)"),
    ),
    Mistake(
        _TARGET,
        "losses and outputs swapped",
        _run(0.2, 20, "my_outputs, my_losses = train(my_learning_rate, my_steps, target=0.5)"),
        ("holds the losses, not the outputs",),
    ),
    Mistake(
        _TARGET,
        "the target left out",
        _run(0.2, 20, "my_losses, my_outputs = train(my_learning_rate, my_steps)"),
        ("training towards 0", "target=0.5"),
    ),
    # skip zero_grad: predict, then show
    Mistake(_ZERO, "predicted the same", _forgetful("same"), ("from the second step on",)),
    Mistake(
        _ZERO, "predicted slower", _forgetful("slower"), ("nothing here makes the steps smaller",)
    ),
    Mistake(
        _ZERO,
        "the losses of a run that zeroes",
        _forgetful("swings", "forgetful_losses, forgetful_outputs = train(0.05)"),
        ("*does* zero the gradients", "zero_grads=False"),
    ),
    Mistake(
        _ZERO,
        "the (losses, outputs) tuple kept whole",
        _forgetful("swings", "forgetful_losses = train(0.05, zero_grads=False)"),
        ("the pair (losses, outputs)",),
    ),
    Mistake(
        _ZERO,
        "another learning rate",
        _forgetful("swings", "forgetful_losses, _ = train(0.2, zero_grads=False)"),
        ("learning rate 0.05",),
    ),
    Mistake(
        _ZERO,
        "too few steps",
        _forgetful("swings", "forgetful_losses, _ = train(0.05, steps=5, zero_grads=False)"),
        ("at least 10 steps",),
    ),
    Mistake(
        _ZERO,
        "no prediction",
        _forgetful(None, "forgetful_losses, _ = train(0.05, zero_grads=False)"),
        ("no prediction yet",),
    ),
]
