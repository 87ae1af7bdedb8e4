"""Toy two-class data sets in the plane, made from a seed, in pure Python.

Each `make_*` function returns `(X, y)`: `X` a list of `[x1, x2]` points and `y` a list of
labels -1 and +1, half of each (with odd `n` the +1 class has one point more), in shuffled
order. The first class listed in each docstring is -1, the second +1.

How a point is made: the clean shape is laid out first and shuffled, then every coordinate
gets Gaussian noise with standard deviation `noise`. The clean points and their order depend
only on the seed, so the same seed with more noise jitters the very same points further
(the noise is `noise` times the same standard normal draws), which makes a noise slider
behave smoothly. With `noise=0` every point lies exactly on its curve.
"""

import csv
import gzip
import io
import math
import random
from importlib import resources

from ._floats import is_int, is_real

__all__ = [
    "make_moons",
    "make_circles",
    "make_spiral",
    "make_xor",
    "DATASETS",
    "make_dataset",
    "train_test_split",
    "load_digits",
]


def _check(n, noise, seed):
    if not is_int(n) or n < 2:
        raise ValueError(f"n must be an int >= 2 (one point per class at least), not {n!r}")
    if not is_real(noise) or not noise >= 0 or noise == math.inf:
        raise ValueError(f"noise must be a finite number >= 0, not {noise!r}")
    if seed is not None and not is_int(seed):
        raise TypeError(f"seed must be an int or None, not {seed!r}")


def _class_sizes(n):
    """(size of class -1, size of class +1): balanced, the extra point of an odd n to +1."""
    return n // 2, n - n // 2


def _spaced(k, stop):
    """k numbers evenly spaced from 0 to stop, both ends included (just 0 when k is 1)."""
    return [stop * i / (k - 1) for i in range(k)] if k > 1 else [0.0]


def _finish(points, labels, noise, rng):
    """Shuffle the clean points together with their labels, then add the noise."""
    pairs = list(zip(points, labels))
    rng.shuffle(pairs)
    X = [[x1 + rng.gauss(0.0, noise), x2 + rng.gauss(0.0, noise)] for (x1, x2), _ in pairs]
    y = [label for _, label in pairs]
    return X, y


def make_moons(n=100, noise=0.1, seed=0):
    """Two interlocking half circles of radius 1.

    Class -1: the upper half of the unit circle around (0, 0).
    Class +1: the lower half of the unit circle around (1, 0.5), hooked into the first.
    """
    _check(n, noise, seed)
    rng = random.Random(seed)
    k_neg, k_pos = _class_sizes(n)
    upper = [(math.cos(t), math.sin(t)) for t in _spaced(k_neg, math.pi)]
    lower = [(1.0 - math.cos(t), 0.5 - math.sin(t)) for t in _spaced(k_pos, math.pi)]
    return _finish(upper + lower, [-1] * k_neg + [1] * k_pos, noise, rng)


def make_circles(n=100, noise=0.1, seed=0, factor=0.5):
    """Two circles around the origin: class -1 on radius 1, class +1 on radius `factor`."""
    _check(n, noise, seed)
    if not is_real(factor) or not 0 < factor < 1:
        raise ValueError(f"factor (the inner radius) must be between 0 and 1, not {factor!r}")
    rng = random.Random(seed)
    k_neg, k_pos = _class_sizes(n)

    def circle(k, radius):  # k points around the whole circle, the start not repeated
        return [
            (radius * math.cos(2 * math.pi * i / k), radius * math.sin(2 * math.pi * i / k))
            for i in range(k)
        ]

    return _finish(
        circle(k_neg, 1.0) + circle(k_pos, factor), [-1] * k_neg + [1] * k_pos, noise, rng
    )


def make_spiral(n=100, noise=0.1, seed=0, turns=1.5):
    """Two interleaved arms of the Archimedean spiral r = theta / (2 pi turns), out to r = 1.

    Class -1: the arm at angle theta = 2 pi turns r. Class +1: that arm turned half a turn,
    i.e. the point -p for every point p. The arms start a little away from the centre, where
    they would otherwise meet.
    """
    _check(n, noise, seed)
    if not is_real(turns) or not turns > 0:
        raise ValueError(f"turns must be a number > 0, not {turns!r}")
    rng = random.Random(seed)
    k_neg, k_pos = _class_sizes(n)

    def arm(k):
        radii = [0.1 + r for r in _spaced(k, 0.9)]
        return [
            (r * math.cos(2 * math.pi * turns * r), r * math.sin(2 * math.pi * turns * r))
            for r in radii
        ]

    positive = [(-x1, -x2) for x1, x2 in arm(k_pos)]
    return _finish(arm(k_neg) + positive, [-1] * k_neg + [1] * k_pos, noise, rng)


def make_xor(n=100, noise=0.1, seed=0):
    """Points spread uniformly over the square [-1, 1] x [-1, 1], labelled by exclusive or.

    Class -1: x1 and x2 have the same sign (quadrants I and III).
    Class +1: their signs differ (quadrants II and IV), i.e. (x1 > 0) xor (x2 > 0).
    """
    _check(n, noise, seed)
    rng = random.Random(seed)
    k_neg, k_pos = _class_sizes(n)

    def quadrant_point(same_sign):
        # 1 - random() lies in (0, 1], so no clean point sits on an axis, where xor is undecided
        a, b = 1.0 - rng.random(), 1.0 - rng.random()
        sa = rng.choice((-1.0, 1.0))
        sb = sa if same_sign else -sa
        return (sa * a, sb * b)

    points = [quadrant_point(True) for _ in range(k_neg)]
    points += [quadrant_point(False) for _ in range(k_pos)]
    return _finish(points, [-1] * k_neg + [1] * k_pos, noise, rng)


DATASETS = {
    "moons": make_moons,
    "circles": make_circles,
    "spiral": make_spiral,
    "xor": make_xor,
}


def make_dataset(name, n=100, noise=0.1, seed=0):
    """The data set called `name` (a key of `DATASETS`), for menus such as a dashboard's."""
    if name not in DATASETS:
        raise ValueError(
            f"unknown data set {name!r}; choose one of {', '.join(map(repr, DATASETS))}"
        )
    return DATASETS[name](n=n, noise=noise, seed=seed)


def train_test_split(X, y, test_fraction=0.25, seed=0):
    """Split into `X_train, X_test, y_train, y_test`, a shuffled share `test_fraction` held out.

    The split depends only on the seed; every point lands in exactly one part, and each part
    gets at least one point.
    """
    X, y = list(X), list(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} points but y has {len(y)} labels; they must match")
    if len(X) < 2:
        raise ValueError(f"splitting needs at least 2 points, but X has {len(X)}")
    if not is_real(test_fraction) or not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be between 0 and 1, not {test_fraction!r}")
    order = list(range(len(X)))
    random.Random(seed).shuffle(order)
    n_test = min(max(round(len(X) * test_fraction), 1), len(X) - 1)
    test, train = order[:n_test], order[n_test:]
    return (
        [X[i] for i in train],
        [X[i] for i in test],
        [y[i] for i in train],
        [y[i] for i in test],
    )


def load_digits():
    """The 1,797 handwritten digits of chapter 13, as `(images, labels)`, read from the package.

    `images` is a list of 1,797 lists of 64 ints from 0 to 16: an 8x8 picture, row by row, each
    number counting the inked pixels of one 4x4 block of the original 32x32 scan. `labels` is a
    list of 1,797 ints from 0 to 9. The file ships inside the package (see
    `autograd/datasets/README.md` for its source and licence), so nothing is downloaded.
    """
    raw = resources.files(__package__).joinpath("datasets", "digits.csv.gz").read_bytes()
    images, labels = [], []
    for row in csv.reader(io.StringIO(gzip.decompress(raw).decode("ascii"))):
        numbers = [int(cell) for cell in row]
        images.append(numbers[:64])
        labels.append(numbers[64])
    return images, labels
