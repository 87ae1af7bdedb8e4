"""Chapter 12 · the checks' own `my_grad`, with switches that plant each classic mistake: the
checkpoint runs it to name the mistake whose numbers it sees (see `ch12`).
"""

from ..engine import Value
from ..graph import topological_order


OPERATIONS = ("+", "*", "tanh")  # what my_grad knows


def reference_grad(
    output,
    inputs,
    *,
    assign=False,
    upstream=True,
    floats=False,
    alone=(),
    from_data=(),
    swapped=False,
    tanh_of_input=False,
):
    """The chapter's `my_grad`, or with a classic mistake planted: `assign` (`=` for `+=`),
    `upstream=False` (the local slope alone, no `* g`), `floats` (slopes from `.data`); `alone`
    and `from_data` plant the last two in the rules of some operations only, e.g. `("*",)`;
    `swapped` gives each factor of `*` its own value as its slope instead of the other's;
    `tanh_of_input` builds tanh's slope from its input a, `1 - a * a`, not from t = tanh(a)."""
    alone = set(OPERATIONS) if not upstream else set(alone)
    from_data = set(OPERATIONS) if floats else set(from_data)
    grads = {id(output): Value(1.0)}
    for node in reversed(topological_order(output)):
        if id(node) not in grads or not node._prev:
            continue
        g = grads[id(node)]
        numbers = node._op in from_data
        if node._op == "+":
            slopes = [1.0, 1.0] if numbers else [Value(1.0), Value(1.0)]
        elif node._op == "*":
            a, b = node._prev
            slopes = [b.data, a.data] if numbers else [b, a]
            if swapped:
                slopes.reverse()
        elif node._op == "tanh":
            t = node._prev[0] if tanh_of_input else node
            slopes = [1 - t.data**2] if numbers else [1 - t * t]
        else:
            raise NotImplementedError(node._op)
        for child, slope in zip(node._prev, slopes):
            part = (
                slope * g
                if node._op not in alone
                else (slope if isinstance(slope, Value) else Value(slope))
            )
            if id(child) in grads and not assign:
                grads[id(child)] = grads[id(child)] + part
            else:
                grads[id(child)] = part
    return [grads.get(id(x), Value(0.0)) for x in inputs]


_MISTAKES = (
    (
        (
            {"assign": True},
            "`grads[id(child)] = part` assigns with `=` instead of adding with `+=`: a value used "
            "twice keeps only its last contribution. Add the part to what `grads` already holds for "
            "that input",
        ),
        (
            {"upstream": False},
            "each operation passes the local slope alone: multiply it by `g`, the gradient arriving "
            "from above (the chain rule: local slope times upstream)",
        ),
        (
            {"floats": True},
            "a local slope computed from `.data` is a plain float: the first derivatives come out "
            "right, but the gradient's graph no longer reaches the inputs, so it is not "
            "differentiable again. Build each slope from the nodes themselves (`b`, `1 - node * "
            "node`), not from their `.data`",
        ),
        (
            {"swapped": True},
            "the rule of `*` gives each factor its own value as its slope: for `node = a * b`, "
            "d(node)/da is `b`, the other factor, and d(node)/db is `a`, so the parts are "
            "`[b * g, a * g]`, in the order of `node._prev`",
        ),
        (
            {"tanh_of_input": True},
            "the slope of tanh is built from its input: for `t = tanh(a)` the slope is 1 − t², with "
            "t the tanh node itself (`node`), not its input a (`node._prev[0]`): write "
            "`(1 - node * node) * g`",
        ),
        (
            {"assign": True, "upstream": False},
            "two mistakes at once: `=` instead of `+=` (a value used twice keeps only its last "
            "contribution), and the local slope alone, without `* g`",
        ),
    )
    + tuple(
        (
            {"alone": (op,)},
            f"the rule of `{op}` passes its local slope alone: multiply it by `g`, the gradient "
            "arriving from above (the chain rule: local slope times upstream)",
        )
        for op in OPERATIONS
    )
    + tuple(
        (
            {"from_data": (op,)},
            f"the slope of `{op}` is computed from `.data`, a plain float: the first derivatives come "
            "out right, but the gradient's graph no longer reaches the inputs there, so it is not "
            "differentiable again. Build it from the nodes themselves, not from their `.data`",
        )
        for op in OPERATIONS[1:]  # `+`'s slope is 1 either way
    )
)
