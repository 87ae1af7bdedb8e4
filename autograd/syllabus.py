"""The course's chapters, in one list: the one place that says what a chapter is.

Each chapter is a notebook `notebooks/<notebook>` whose first heading is `# NN · <title>`. The
list also says which methods of `engine.Value` a chapter builds (the learner writes the engine
across chapters 2 to 5; `autograd.stages` reads this list to grow it), which chapters end with a
checkpoint (`autograd.checks.checkpoint(N, ...)` runs `autograd/checks/chNN.py`'s), and which
earlier chapters each one assumes (the links in its title cell).

Everything else that names chapters is derived from this list or tested against it
(tests/test_syllabus.py): the notebooks on disk and their headings, their "assumes" and "Next"
links, the README's chapter table and chapter 00's map (`scripts/make_readme_chapters.py` writes
both), the stages and the checks modules.

    >>> chapter(4).heading
    '04 · Non-linear activations'
    >>> [c.number for c in with_checkpoint()]
    [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13]

Standard library only, and nothing from the rest of the package, so that any part of it (and
any script) can import the list.
"""

from dataclasses import dataclass

__all__ = ["Chapter", "CHAPTERS", "chapter", "with_checkpoint", "next_chapter", "LAST", "CORE_LAST"]


@dataclass(frozen=True)
class Chapter:
    """One chapter of the course."""

    number: int
    notebook: str  # the file name under notebooks/
    title: str  # as the notebook's first heading says it, after "NN · "
    methods: tuple = ()  # the methods of engine.Value it builds, in teaching order
    checkpoint: bool = False  # does it end with `checkpoint(number, ...)`?
    assumes: tuple = ()  # the numbers of the chapters its title cell says it assumes

    @property
    def heading(self):
        """'NN · Title': the notebook's first heading, and the text of every link to it."""
        return f"{self.number:02d} · {self.title}"

    @property
    def path(self):
        """Where the notebook is, relative to the root of the repository."""
        return f"notebooks/{self.notebook}"


CHAPTERS = (
    Chapter(0, "00_start_here.ipynb", "Start here"),
    Chapter(
        1,
        "01_what_is_autodiff.ipynb",
        "What is automatic differentiation?",
        checkpoint=True,
        assumes=(0,),
    ),
    Chapter(
        2,
        "02_value_and_graph.ipynb",
        "The Value node and the computational graph",
        methods=("__init__", "__repr__"),
        checkpoint=True,
        assumes=(1,),
    ),
    Chapter(
        3,
        "03_operators_and_local_gradients.ipynb",
        "Operators with local backward hooks",
        methods=(
            "__add__",
            "__mul__",
            "__radd__",
            "__rmul__",
            "__neg__",
            "__sub__",
            "__rsub__",
            "__pow__",
            "_pow_value",
            "__truediv__",
            "__rtruediv__",
            "__rpow__",
        ),
        checkpoint=True,
        assumes=(2,),
    ),
    Chapter(
        4,
        "04_activations.ipynb",
        "Non-linear activations",
        methods=("tanh", "exp", "log", "relu", "sigmoid"),
        checkpoint=True,
        assumes=(3,),
    ),
    Chapter(
        5,
        "05_topological_sort.ipynb",
        "Topological sort and backward()",
        methods=("backward",),
        checkpoint=True,
        assumes=(4,),
    ),
    Chapter(6, "06_training_a_neuron.ipynb", "Training a neuron", checkpoint=True, assumes=(5,)),
    Chapter(
        7,
        "07_neural_network_library.ipynb",
        "A tiny neural-network library",
        checkpoint=True,
        assumes=(6,),
    ),
    Chapter(
        8,
        "08_checking_gradients.ipynb",
        "Checking and debugging gradients",
        checkpoint=True,
        assumes=(7,),
    ),
    Chapter(9, "09_where_next.ipynb", "Where next", assumes=(7, 8)),
    Chapter(10, "10_making_it_fast.ipynb", "Making it fast", checkpoint=True, assumes=(7, 9)),
    Chapter(
        11, "11_trace_once_run_many.ipynb", "Trace once, run many", checkpoint=True, assumes=(7, 10)
    ),
    Chapter(
        12,
        "12_gradients_of_gradients.ipynb",
        "Gradients of gradients",
        checkpoint=True,
        assumes=(5, 9),
    ),
    Chapter(
        13,
        "13_from_scalars_to_tensors.ipynb",
        "From scalars to tensors",
        checkpoint=True,
        assumes=(7, 11),
    ),
)

LAST = CHAPTERS[-1].number

# Chapters 0 to CORE_LAST build the engine and train networks with it; the chapters after it
# are for a learner who wants more. Chapter 00's map says so, from this number.
CORE_LAST = 8


def chapter(number):
    """The chapter numbered `number` (0 to LAST)."""
    if not isinstance(number, int) or isinstance(number, bool):
        raise TypeError(f"a chapter number is a whole number such as 3, not {number!r}")
    if not 0 <= number <= LAST:
        raise ValueError(f"there is no chapter {number}: the course has chapters 0 to {LAST}")
    return CHAPTERS[number]


def with_checkpoint():
    """The chapters that end with a checkpoint, in course order."""
    return tuple(c for c in CHAPTERS if c.checkpoint)


def next_chapter(number):
    """The chapter after chapter `number`, or None after the last one."""
    return CHAPTERS[number + 1] if chapter(number).number < LAST else None


# The class edition's points (classroom/build.py): for each chapter with exercises, its total,
# and what each exercise is worth, named by its check as the chapter calls it. A chapter's
# checkpoint is worth what its exercises leave; a chapter without one gives them everything.
POINTS = {
    0: (1, {"ch01.check_warm_up_slope": 1}),
    1: (
        10,
        {
            "ch01.check_numerical_derivative": 3,
            "ch01.check_best_step_guess": 1,
            "ch01.check_evaluation_count": 1,
        },
    ),
    2: (
        10,
        {
            "ch02.check_rejects_non_numbers": 2,
            "ch02.check_count_nodes": 2,
            "ch02.check_value_used_twice": 1,
        },
    ),
    3: (
        10,
        {
            "ch03.check_mul": 3,
            "ch03.check_diamond_prediction": 1,
            "ch03.check_sub": 2,
            "ch03.check_pow": 2,
        },
    ),
    4: (10, {"ch04.check_tanh": 3, "ch04.check_tanh_slope_prediction": 1, "ch04.check_sigmoid": 3}),
    5: (
        10,
        {
            "ch05.check_recursive_sort": 3,
            "ch05.check_order_prediction": 1,
            "ch05.check_backward": 2,
            "ch05.check_topological_sort": 2,
        },
    ),
    6: (
        10,
        {
            "ch06.check_dx1_by_hand": 1,
            "ch06.check_reached_target": 2,
            "ch06.check_skipped_zero_grad": 2,
        },
    ),
    7: (10, {"ch07.check_layer_parameters": 2, "ch07.check_zero_grad": 2, "ch07.check_circles": 3}),
    8: (10, {"ch08.check_mysteries": 2, "ch08.check_gradient_checker": 3}),
    9: (
        6,
        {"ch09.check_neuron_node_count": 1, "ch09.check_dual_tanh": 3, "ch09.check_pass_counts": 2},
    ),
    10: (
        10,
        {"ch10.check_cycle_path": 2, "ch10.check_object_predictions": 1, "ch10.check_flat_exp": 3},
    ),
    11: (10, {"ch11.check_mul_backward": 3, "ch11.check_branch_free": 2}),
    12: (
        10,
        {
            "ch12.check_second_derivative_prediction": 1,
            "ch12.check_hvp": 3,
            "ch12.check_my_grad": 3,
        },
    ),
    13: (10, {"ch13.check_unbroadcast": 2, "ch13.check_mul": 2, "ch13.check_matmul": 3}),
}
