"""The toy data sets: shapes, balance, seeds, the shapes they draw, noise, and the split."""

import math
import re
import statistics

import pytest

from autograd.data import (
    DATASETS,
    make_circles,
    make_dataset,
    make_moons,
    make_spiral,
    load_digits,
    make_xor,
    train_test_split,
)

MAKERS = [make_moons, make_circles, make_spiral, make_xor]


def by_class(X, y):
    return [p for p, label in zip(X, y) if label == -1], [p for p, label in zip(X, y) if label == 1]


@pytest.mark.parametrize("make", MAKERS)
def test_points_are_pairs_of_floats_and_labels_are_plus_minus_one(make):
    X, y = make(40)
    assert len(X) == len(y) == 40
    assert all(isinstance(p, list) and len(p) == 2 for p in X)
    assert all(type(c) is float for p in X for c in p)
    assert all(type(label) is int and label in (-1, 1) for label in y)


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("n, negatives, positives", [(100, 50, 50), (7, 3, 4), (2, 1, 1)])
def test_classes_are_balanced(make, n, negatives, positives):
    _, y = make(n)
    assert (y.count(-1), y.count(1)) == (negatives, positives)


@pytest.mark.parametrize("make", MAKERS)
def test_order_does_not_give_the_class_away(make):
    _, y = make(100, seed=3)
    assert set(y[:50]) == {-1, 1} and set(y[50:]) == {-1, 1}
    changes = sum(a != b for a, b in zip(y, y[1:]))
    assert changes > 20  # sorted data would change class once; shuffled, about 50 times


@pytest.mark.parametrize("make", MAKERS)
def test_same_seed_gives_identical_data_and_different_seeds_differ(make):
    assert make(50, seed=11) == make(50, seed=11)
    assert make(50, seed=11) != make(50, seed=12)


def test_moons_without_noise_lie_on_two_half_circles():
    upper, lower = by_class(*make_moons(60, noise=0.0))
    for x1, x2 in upper:
        assert math.hypot(x1, x2) == pytest.approx(1.0, abs=1e-12)
        assert x2 >= -1e-12
    for x1, x2 in lower:
        assert math.hypot(x1 - 1.0, x2 - 0.5) == pytest.approx(1.0, abs=1e-12)
        assert x2 <= 0.5 + 1e-12


def test_circles_without_noise_have_radius_one_and_factor():
    outer, inner = by_class(*make_circles(60, noise=0.0, factor=0.3))
    assert all(math.hypot(*p) == pytest.approx(1.0, abs=1e-12) for p in outer)
    assert all(math.hypot(*p) == pytest.approx(0.3, abs=1e-12) for p in inner)


def on_spiral_arm(point, turns):
    """Whether the point lies on r = theta / (2 pi turns), i.e. at angle 2 pi turns r."""
    r = math.hypot(*point)
    theta = 2 * math.pi * turns * r
    return point[0] == pytest.approx(r * math.cos(theta), abs=1e-12) and point[1] == pytest.approx(
        r * math.sin(theta), abs=1e-12
    )


@pytest.mark.parametrize("turns", [1.5, 2.0])
def test_spiral_without_noise_is_two_arms_half_a_turn_apart(turns):
    arm, other = by_class(*make_spiral(60, noise=0.0, turns=turns))
    assert all(on_spiral_arm(p, turns) for p in arm)
    assert all(on_spiral_arm([-p[0], -p[1]], turns) for p in other)
    assert not any(on_spiral_arm(p, turns) for p in other)
    radii = sorted(math.hypot(*p) for p in arm)
    assert radii[-1] == pytest.approx(1.0) and radii[0] > 0


def test_xor_without_noise_labels_by_exclusive_or_of_the_signs():
    X, y = make_xor(200, noise=0.0)
    for (x1, x2), label in zip(X, y):
        assert -1.0 <= x1 <= 1.0 and -1.0 <= x2 <= 1.0
        assert label == (1 if (x1 > 0) != (x2 > 0) else -1)
        assert x1 != 0.0 and x2 != 0.0


@pytest.mark.parametrize("make", MAKERS)
def test_noise_is_gaussian_with_the_given_standard_deviation(make):
    clean, y_clean = make(2000, noise=0.0, seed=5)
    noisy, y_noisy = make(2000, noise=0.2, seed=5)
    assert y_noisy == y_clean
    offsets = [a - b for p, q in zip(noisy, clean) for a, b in zip(p, q)]
    # 4000 draws: the sample mean is within about 3 * 0.2 / sqrt(4000) = 0.0095 of 0, and the
    # sample deviation within about 3 * 0.2 / sqrt(8000) = 0.0067 of 0.2
    assert abs(statistics.fmean(offsets)) < 0.015
    assert statistics.pstdev(offsets) == pytest.approx(0.2, abs=0.01)


def test_more_noise_moves_the_same_points_further_the_same_way():
    clean, _ = make_moons(30, noise=0.0, seed=2)
    little, _ = make_moons(30, noise=0.1, seed=2)
    more, _ = make_moons(30, noise=0.3, seed=2)
    for p, q, r in zip(clean, little, more):
        for c, a, b in zip(p, q, r):
            assert b - c == pytest.approx(3 * (a - c), abs=1e-12)


def test_make_dataset_finds_every_data_set_by_name():
    assert set(DATASETS) == {"moons", "circles", "spiral", "xor"}
    for name, make in DATASETS.items():
        assert make_dataset(name, n=20, noise=0.05, seed=4) == make(n=20, noise=0.05, seed=4)


def test_make_dataset_refuses_an_unknown_name_listing_the_names():
    with pytest.raises(ValueError, match="'blobs'.*'moons', 'circles', 'spiral', 'xor'"):
        make_dataset("blobs")


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n": 1}, ValueError),
        ({"n": 2.5}, ValueError),
        ({"n": True}, ValueError),
        ({"noise": -0.1}, ValueError),
        ({"noise": math.nan}, ValueError),
        ({"noise": math.inf}, ValueError),
        ({"noise": "a"}, ValueError),
        ({"seed": "a"}, TypeError),
    ],
)
def test_bad_arguments_are_refused_naming_the_value(make, kwargs, error):
    ((name, bad),) = kwargs.items()
    with pytest.raises(error, match=f"^{name} must .*{re.escape(repr(bad))}"):
        make(**kwargs)


@pytest.mark.parametrize("factor", [0, 1, 1.5, -0.5])
def test_circles_factor_must_lie_between_zero_and_one(factor):
    with pytest.raises(ValueError, match="factor"):
        make_circles(10, factor=factor)


# --------------------------------------------------------------------- the split


def test_split_is_disjoint_complete_and_keeps_labels_with_points():
    X, y = make_moons(100, seed=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_fraction=0.25, seed=1)
    assert (len(X_train), len(X_test), len(y_train), len(y_test)) == (75, 25, 75, 25)
    label_of = {id(p): label for p, label in zip(X, y)}
    train_ids, test_ids = [id(p) for p in X_train], [id(p) for p in X_test]
    assert not set(train_ids) & set(test_ids)
    assert sorted(train_ids + test_ids) == sorted(label_of)
    assert [label_of[i] for i in train_ids] == y_train
    assert [label_of[i] for i in test_ids] == y_test


def test_split_depends_only_on_the_seed():
    X, y = make_moons(40, seed=0)
    assert train_test_split(X, y, seed=3) == train_test_split(X, y, seed=3)
    assert train_test_split(X, y, seed=3) != train_test_split(X, y, seed=4)


def test_split_leaves_at_least_one_point_on_each_side():
    X, y = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], [1, -1, 1]
    assert [len(part) for part in train_test_split(X, y, test_fraction=0.01)] == [2, 1, 2, 1]
    assert [len(part) for part in train_test_split(X, y, test_fraction=0.99)] == [1, 2, 1, 2]


@pytest.mark.parametrize("fraction", [0, 1, -0.5, 1.5, "half"])
def test_split_refuses_a_bad_fraction(fraction):
    X, y = make_moons(10)
    with pytest.raises(ValueError, match="test_fraction"):
        train_test_split(X, y, test_fraction=fraction)


def test_split_refuses_mismatched_or_too_few_points():
    with pytest.raises(ValueError, match="3 points but y has 2"):
        train_test_split([[0, 0]] * 3, [1, -1])
    with pytest.raises(ValueError, match="at least 2"):
        train_test_split([[0, 0]], [1])


def test_digits_are_1797_images_of_64_ink_counts_with_labels_0_to_9():
    images, labels = load_digits()
    assert len(images) == len(labels) == 1797
    assert all(len(image) == 64 for image in images)
    assert all(type(p) is int and 0 <= p <= 16 for image in images for p in image)
    counts = {digit: labels.count(digit) for digit in range(10)}
    # the UCI test set has between 174 and 183 images of each digit
    assert sorted(counts) == list(range(10)) and all(170 <= c <= 185 for c in counts.values()), (
        counts
    )
    # every image has ink, and not all images are alike
    assert all(sum(image) > 0 for image in images)
    assert len({tuple(image) for image in images}) > 1700


def test_digits_ink_sits_where_the_digit_is_drawn():
    # a zero is a ring: ink around the middle of the picture, little in its centre; a one is a stroke
    images, labels = load_digits()
    zeros = [image for image, label in zip(images, labels) if label == 0]
    centre = statistics.mean(
        image[8 * 3 + 3] + image[8 * 3 + 4] + image[8 * 4 + 3] + image[8 * 4 + 4] for image in zeros
    )
    ring = statistics.mean(
        image[8 * 3 + 1] + image[8 * 4 + 1] + image[8 * 3 + 6] + image[8 * 4 + 6] for image in zeros
    )
    assert ring > 2 * centre, (ring, centre)
