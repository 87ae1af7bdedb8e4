"""TrainingDashboard (autograd/widgets/training.py): training a small MLP step by step, its
controls, and what it does at the ends of its ranges.
"""

import math
import warnings

import pytest
from widgets_shared import approx, is_png, small_dashboard

from autograd import Value, nn
from autograd.fast import Value as FastValue


def test_dashboard_starts_with_the_untrained_models_loss():
    board = small_dashboard()
    # the same loss computed the slow way, through the engine's graph
    scores = [board.model(x) for x in board.X]
    loss = nn.hinge_loss(scores, board.y).data
    loss += 1e-4 * sum(p.data**2 for p in board.model.parameters())
    assert board.steps == 0 and board.losses == [approx(loss)]
    assert board.accuracy == nn.accuracy(scores, board.y)


def test_dashboard_steps_lower_the_loss():
    board = small_dashboard()
    board.run(10)
    assert board.steps == 10 and len(board.losses) == 11
    assert board.losses[-1] < board.losses[0]
    assert board.diverged is None


def test_dashboard_boundary_scores_match_the_model_through_the_engine():
    board = small_dashboard()
    board.run(3)
    xs, ys, scores = board.boundary(grid=5)
    assert len(xs) == len(ys) == 5 and all(len(row) == 5 for row in scores)
    for i in (0, 2, 4):
        for j in (0, 3):
            assert scores[i][j] == approx(board.model([xs[j], ys[i]]).data)


@pytest.mark.parametrize("nonlin", ["relu", "tanh", "sigmoid", "linear"])
def test_dashboard_scores_match_the_model_through_the_engine_for_every_nonlinearity(nonlin):
    # The dashboard scores the grid and the loss on plain floats; the model called through
    # the reference engine must give the same numbers, whatever its activation.
    board = small_dashboard(nonlin=nonlin, hidden=(3, 3), value_class=Value)
    board.run(2)
    xs, ys, scores = board.boundary(grid=4)
    for i in range(4):
        for j in range(4):
            assert scores[i][j] == approx(board.model([xs[j], ys[i]]).data)
    engine_scores = [board.model(x) for x in board.X]
    loss = nn.hinge_loss(engine_scores, board.y).data
    loss += 1e-4 * sum(p.data**2 for p in board.model.parameters())
    assert board.losses[-1] == approx(loss)


def test_dashboard_with_a_huge_learning_rate_reports_divergence():
    board = small_dashboard(lr=1e6)
    board.run(20)
    assert board.diverged is not None and "diverged" in board.diverged
    steps = board.steps
    assert steps < 20  # it stopped training once the loss blew up
    assert board.step() is None and board.steps == steps
    assert board.figure() is not None
    board.set_lr(0.1)
    board.reset()
    assert board.diverged is None and board.steps == 0


def test_dashboard_reset_starts_again_from_the_same_weights():
    board = small_dashboard()
    first = board.losses[0]
    board.run(3)
    board.reset()
    assert board.steps == 0 and board.losses == [first]


def test_dashboard_data_set_noise_and_width_rebuild_the_model():
    board = small_dashboard()
    board.run(2)
    board.set_dataset("circles")
    assert board.dataset == "circles" and board.steps == 0
    # circles: every clean point at radius 1 or 0.5, so with noise 0 that is all there is
    board.set_noise(0.0)
    radii = sorted({round(math.hypot(*p), 9) for p in board.X})
    assert radii == [0.5, 1.0]
    board.set_width(3)
    # one hidden layer of 3: 3 * (2 + 1) weights and biases, then 3 + 1 for the output
    assert board.hidden == (3,) and len(board.model.parameters()) == 9 + 4
    with pytest.raises(ValueError, match="unknown data set"):
        board.set_dataset("iris")


def test_dashboard_trains_on_the_fast_engine_unless_given_another():
    assert all(isinstance(p, FastValue) for p in small_dashboard().model.parameters())
    slow = small_dashboard(value_class=Value)
    assert all(type(p) is Value for p in slow.model.parameters())
    fast = small_dashboard(value_class=FastValue)
    slow.run(3)
    fast.run(3)
    assert fast.losses == [pytest.approx(loss, rel=1e-9) for loss in slow.losses]


def test_dashboard_can_train_on_a_compiled_step_with_the_reference_engines_numbers():
    compiled = small_dashboard(compiled=True, batch_size=6)
    assert compiled.compiled and all(type(p) is Value for p in compiled.model.parameters())
    slow = small_dashboard(value_class=Value, batch_size=6)
    compiled.run(5)
    slow.run(5)
    assert compiled.losses == slow.losses and compiled.accuracies == slow.accuracies
    compiled.set_width(3)  # a new model: traced again at the next step
    compiled.run(1)
    assert compiled.steps == 1 and len(compiled.model.parameters()) == 9 + 4
    with pytest.raises(ValueError, match="compiled=True takes loss='hinge' or 'mse'"):
        small_dashboard(compiled=True, loss="bce")


def test_dashboard_mini_batches_cover_every_point_once_per_pass():
    board = small_dashboard(batch_size=6)
    batches = [board._next_batch() for _ in range(3)]  # 18 of 20 points
    seen = [i for batch in batches for i in batch]
    assert all(len(b) == 6 for b in batches) and len(set(seen)) == 18


def test_dashboard_view_buttons_and_play_ticks_train():
    board = small_dashboard()
    view = board.widget()
    picture = view.plot.value
    view.step_button.click()
    assert board.steps == 1
    view.play.value = 1  # the Play widget's tick, as the browser sends it
    assert board.steps == 2
    assert "step 2" in view.status.value and view.plot.value != picture
    view.lr_slider.value = 0.5
    assert board.lr == pytest.approx(0.5) and board.steps == 2  # the model is kept
    view.dataset_menu.value = "xor"
    assert board.dataset == "xor" and board.steps == 0
    view.width_slider.value = 5
    assert board.hidden == (5,)
    view.noise_slider.value = 0.2
    assert board.noise == pytest.approx(0.2)


def test_dashboard_view_stops_playing_when_training_diverges():
    board = small_dashboard(lr=1e6)
    view = board.widget()
    view.play.playing = True
    board.run(20)
    assert board.diverged
    assert view.play.playing is False and view.step_button.disabled
    assert "diverged" in view.status.value


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n": 1}, "from 2 to 1000"),
        ({"n": 10**6}, "from 2 to 1000"),
        ({"hidden": (0,)}, "width must be from 1 to 64"),
        ({"hidden": (65,)}, "width must be from 1 to 64"),
        ({"hidden": ()}, "from 1 to 4 hidden layers"),
        ({"hidden": (4,) * 5}, "from 1 to 4 hidden layers"),
        ({"lr": 0.0}, r"from 1e-06 to 1e\+06"),
        ({"lr": 1e7}, r"from 1e-06 to 1e\+06"),
        ({"lr": math.nan}, r"from 1e-06 to 1e\+06"),
        ({"noise": -0.1}, "noise must be a number from 0 to 1"),
        ({"noise": 1e300}, "noise must be a number from 0 to 1"),
        ({"alpha": math.inf}, "alpha .* from 0 to 1"),
        ({"batch_size": 0}, "batch_size .* from 1 to 1000"),
        # 1000 points through 2 -> 32 -> 32 -> 1 (1185 parameters) would take seconds a step
        ({"n": 1000, "batch_size": None, "hidden": (32, 32)}, "1,185,000 point-parameters"),
    ],
)
def test_dashboard_refuses_sizes_beyond_its_ranges_and_says_the_range(options, message):
    with pytest.raises(ValueError, match=message):
        small_dashboard(**options)


def test_dashboard_accepts_the_ends_of_its_ranges():
    board = small_dashboard(n=2, hidden=(64,) * 4, lr=1e-6, noise=1.0, alpha=1.0)
    assert board.hidden == (64, 64, 64, 64) and len(board.X) == 2
    assert board.run(0) == board.losses[0]


def test_dashboard_setters_refuse_out_of_range_values_and_keep_the_model():
    board = small_dashboard()
    model, losses = board.model, list(board.losses)
    for refused in (
        lambda: board.set_width(65),
        lambda: board.set_lr(1e7),
        lambda: board.set_noise(2.0),
        lambda: board.run(10_001),
        lambda: board.boundary(grid=201),
    ):
        with pytest.raises(ValueError, match="must be"):
            refused()
    with pytest.raises(TypeError, match="whole number"):
        board.run(2.5)
    assert board.model is model and board.losses == losses
    assert (board.hidden, board.lr, board.noise) == ((4,), 0.1, 0.1)


def test_dashboard_controls_stay_within_the_models_ranges():
    board = small_dashboard(n=400, hidden=(8, 8))
    view = board.widget()
    lo, hi = board.LR_RANGE
    assert lo <= 10**view.lr_slider.min and 10**view.lr_slider.max <= hi
    assert board.NOISE_RANGE[0] <= view.noise_slider.min
    assert view.noise_slider.max <= board.NOISE_RANGE[1]
    assert board.WIDTH_RANGE[0] <= view.width_slider.min
    assert view.width_slider.max <= board.WIDTH_RANGE[1]
    view.lr_slider.value = 1e9  # typed into the readout: the slider keeps it in range
    assert board.lr <= hi
    # Width 32 on every one of 400 points: 400 * 1185 point-parameters is too much for one
    # step. The view says so, and the slider goes back to the model's width.
    view.width_slider.value = 32
    assert board.hidden == (8, 8) and view.width_slider.value == 8
    assert "point-parameters" in view.status.value


def test_dashboard_plot_survives_a_loss_near_the_float_limit_without_warnings():
    board = small_dashboard()
    board.losses += [1e300, 1.7e308]  # what steps of a diverging model can record
    board.steps = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "overflow encountered", in red, before
        assert is_png(board.figure()._repr_png_())


def test_the_dashboard_plays_and_pauses_with_a_named_button():
    board = small_dashboard()
    view = board.widget()
    assert (view.play_button.description, view.play_button.icon) == ("Play", "play")
    view.play.playing = True  # as the browser sets it when the button is pressed
    assert (view.play_button.description, view.play_button.icon) == ("Pause", "pause")
    assert view.play_button.value is True
    view.play.playing = False
    assert view.play_button.description == "Play" and view.play_button.value is False
    # the button and the hidden Play widget are linked in the browser, both ways
    link = view._play_link
    assert (link.source, link.target) == ((view.play_button, "value"), (view.play, "playing"))
