"""Chapter 09's exercises: count one neuron, tanh for dual numbers, count the passes.

The chapter has no checkpoint: each mistake must fail its exercise's check, in words that name
it (tests/test_run_all.py knows).
"""

from . import Mistake

_TANH_HEAD = """@add_to_class(Dual)
def tanh(self):
"""


def _tanh(body):
    return _TANH_HEAD + body


_PASSES = """loss_forward = {}
loss_backward = {}
curve_forward = {}
curve_backward = {}"""

MISTAKES = [
    # count one neuron: 3 per input (wrapped number, product, sum), the relu, 4 leaves = 14
    Mistake(
        "ch09.check_neuron_node_count",
        "forgot the neuron's own leaves",
        "neuron_nodes = 10",
        ("neuron's own leaves", "weights and the bias are nodes too"),
    ),
    Mistake(
        "ch09.check_neuron_node_count",
        "forgot the wrapped inputs",
        "neuron_nodes = 11",
        ("wraps each one into a Value",),
    ),
    Mistake(
        "ch09.check_neuron_node_count",
        "one short (relu or bias)",
        "neuron_nodes = 13",
        ("leave out the relu",),
    ),
    Mistake(
        "ch09.check_neuron_node_count",
        "operations only",
        "neuron_nodes = 7",
        ("counts the operations only",),
    ),
    Mistake(
        "ch09.check_neuron_node_count",
        "inputs counted twice",
        "neuron_nodes = 17",
        ("counts each input twice",),
    ),
    Mistake(
        "ch09.check_neuron_node_count",
        "a number nobody explains",
        "neuron_nodes = 20",
        ("what `act = act + w * x` creates",),
    ),
    # tanh for dual numbers: Dual(tanh(x), (1 - tanh²(x)) * slope)
    Mistake(
        "ch09.check_dual_tanh",
        "missing * self.slope",
        _tanh("""    t = math.tanh(self.value)
    return Dual(t, 1 - t * t)"""),
        ("`* self.slope`", "twin of `* out.grad`"),
    ),
    Mistake(
        "ch09.check_dual_tanh",
        "1 - t instead of 1 - t squared",
        _tanh("""    t = math.tanh(self.value)
    return Dual(t, (1 - t) * self.slope)"""),
        ("that is 1 − tanh(x)", "square the tanh"),
    ),
    Mistake(
        "ch09.check_dual_tanh",
        "squares x instead of tanh",
        _tanh("""    t = math.tanh(self.value)
    return Dual(t, (1 - self.value**2) * self.slope)"""),
        ("square tanh(x), not x",),
    ),
    Mistake(
        "ch09.check_dual_tanh",
        "returns a float",
        _tanh("""    t = math.tanh(self.value)
    return (1 - t * t) * self.slope"""),
        ("a float, not a Dual",),
    ),
    Mistake(
        "ch09.check_dual_tanh",
        "missing return",
        _tanh("""    t = math.tanh(self.value)
    Dual(t, (1 - t * t) * self.slope)"""),
        ("gave None", "no `return`"),
    ),
    Mistake(
        "ch09.check_dual_tanh",
        "value and slope swapped",
        _tanh("""    t = math.tanh(self.value)
    return Dual((1 - t * t) * self.slope, t)"""),
        ("the wrong way round",),
    ),
    # count the passes: (a) 337 forward passes, 1 backward(); (b) 1 forward pass, 1,000 backward()
    Mistake(
        "ch09.check_pass_counts",
        "modes swapped",
        _PASSES.format(1, 337, 1000, 1),
        ("the two modes are swapped",),
    ),
    Mistake(
        "ch09.check_pass_counts",
        "one forward pass for the whole gradient",
        _PASSES.format(1, 1, 1, 1000),
        ("the one input you seeded",),
    ),
    Mistake(
        "ch09.check_pass_counts",
        "one backward() per parameter",
        _PASSES.format(337, 337, 1, 1000),
        ("already gives the derivative with respect to every parameter",),
    ),
    Mistake(
        "ch09.check_pass_counts",
        "one forward pass per output",
        _PASSES.format(337, 1, 1000, 1000),
        ("carries the slope of every value computed from t",),
    ),
]
