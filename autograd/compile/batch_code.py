"""A batch's code: takes a point's program, the loss's, and the points' order, gives the code
of `loss_and_grads` (and, in C, `descend`) for a `CompiledBatch`, Python or C.

The point's forward pass runs for each point, then the loss's forward and backward passes,
then each point's backward pass in the order `backward()` reaches the points, adding to the
parameters' gradients (see `autograd.compile.batch`). In C a large batch runs its points in
lanes, `lanes.LANES` side by side (`autograd.compile.lanes`).
"""

from . import lanes
from .c import _PRELUDE, CCode, fused_c_parts
from .places import value_place
from .python_fused import fused_python_parts

__all__ = ["batch_python_source", "batch_c_code"]


def batch_python_source(point, loss, n, order):
    """The fused Python `loss_and_grads(p, x)` of a batch: the point's forward pass for each
    point, the loss's forward and backward passes, then each point's backward pass in
    `order`, adding to the parameters' gradients. `x` is the points' numbers, then the
    targets."""
    P, L = point.trace.n_params, point.trace.n_inputs - 1
    ours = fused_python_parts(point, table="point_c", results=False, indent="        ")
    theirs = fused_python_parts(loss)
    output = value_place(ours.lang, point.trace.result)
    first = P + L + 1  # the point's first result kept: from there on, what each point keeps
    lines = [
        "def loss_and_grads(p, x):",
        "    # each point's forward pass, in one list v; what it keeps, saved for its backward",
        f"    v = [*p] + [0.0] * {L + 1 + len(ours.lang.values)}",
        "    saved, outputs = [], []",
        f"    for k in range({n}):",
        f"        v[{P}:{first - 1}] = x[{L} * k : {L} * k + {L}]",
        *ours.forward,
        f"        saved.append(v[{first}:])",
        f"        outputs.append(v[{output}])",
        "    point_v = v",
        "    # the loss of the outputs, forward and backward",
        f"    v = [*p, *outputs, *x[{n * L}:]] + [0.0] * {len(theirs.lang.values)}",
        f"    d = [0.0] * {loss.trace.n_params + len(theirs.lang.gradients)}",
        *theirs.forward,
        f"    out = [0.0] * {1 + loss.trace.n_params}",
        *theirs.backward,
        "    # each point's backward pass, in backward()'s order, adding to the gradients",
        "    v = point_v",
        f"    d = out[1:{1 + P}] + [0.0] * {len(ours.lang.gradients)}",
        f"    for k in {_order_text(order, n)}:",
        f"        v[{P}:{first - 1}] = x[{L} * k : {L} * k + {L}]",
        f"        v[{first - 1}] = out[{1 + P} + k]",
        f"        v[{first}:] = saved[k]",
        *ours.backward,
        f"    return out[0], d[:{P}], outputs",
    ]
    tables = [table for table in (ours.table, theirs.table) if table]
    return "\n".join([*tables, *([""] * 2 * bool(tables)), *lines]) + "\n"


def _order_text(order, n):
    if list(order) == list(range(n - 1, -1, -1)):
        return f"range({n - 1}, -1, -1)"
    return repr(tuple(order))


def batch_c_code(point, loss, n, order):
    """The C `loss_and_grads(p, x, out)` of a batch, as `batch_python_source`: one file, the
    point's arrays renamed `point_v`, `point_d` and `point_c` around its functions. The points
    run `lanes.LANES` at a time where the batch is large enough to pay for it and the point's
    program allows it (see `autograd.compile.lanes`), else one at a time."""
    theirs = fused_c_parts(loss, name="loss_", storage="static")
    if n * len(point.trace.tape) >= lanes.WORTH:
        try:
            ours = fused_c_parts(point, "point_", "static", results=False, in_lanes=True)
            return _in_lanes(point, loss, n, order, theirs, ours)
        except lanes.NoLanes:
            pass
    ours = fused_c_parts(point, name="point_", storage="static", results=False)
    return _point_at_a_time(point, loss, n, order, theirs, ours)


def _in_lanes(point, loss, n, order, theirs, ours):
    """The C of a batch whose points run in groups of `LANES`, side by side: the forward
    passes of the points in `order`, then of the others (the last group filled up with its
    last point again); the loss; then the backward passes of the same groups, each adding the
    terms of only its points in `order` to the parameters' gradients (`lanes`)."""
    P, L = point.trace.n_params, point.trace.n_inputs - 1
    first = P + L + 1  # the point's first result kept
    kept = len(ours.lang.values)
    output = value_place(ours.lang, point.trace.result)
    n_targets = loss.trace.n_inputs
    W = lanes.LANES
    reached = set(order)
    sequence = list(order) + [k for k in range(n) if k not in reached]
    groups = -(-n // W)
    sequence += sequence[-1:] * (groups * W - n)
    back = -(-len(order) // W)
    main = f"""
static double loss_out[{1 + loss.trace.n_params}], saved[{max(groups * kept * W, 1)}];
static const int sequence[{max(len(sequence), 1)}] = {{{", ".join(map(str, sequence)) or "0"}}};

EXPORT int loss_and_grads(const double *p_in, const double *x_in, double *out) {{
    for (int i = 0; i < {P}; i++) point_p[i] = v[i] = p_in[i];
    for (int b = 0; b < {groups}; b++) {{  /* each group's forward pass */
        for (int l = 0; l < LANES; l++)
            for (int i = 0; i < {L}; i++) point_v[{P} + i][l] = x_in[{L} * sequence[LANES * b + l] + i];
{_calls("point_forward", ours.forward, "        if ({}()) return 1;")}
        memcpy(saved + {kept * W} * b, point_v[{first}], sizeof(double) * {kept * W});
        for (int l = 0; l < LANES; l++) v[{P} + sequence[LANES * b + l]] = point_v[{output}][l];
    }}
    for (int i = 0; i < {n_targets}; i++) v[{P + n} + i] = x_in[{n * L} + i];
{_calls("loss_forward", theirs.forward, "    if ({}()) return 1;")}
{_calls("loss_backward", theirs.backward, "    {}(loss_out);")}
    for (int i = 0; i < {P}; i++) point_g[i] = loss_out[1 + i];
    for (int b = 0; b < {back}; b++) {{  /* each group's backward pass, in order */
        lanes = {len(order)} - LANES * b < LANES ? {len(order)} - LANES * b : LANES;
        for (int l = 0; l < LANES; l++) {{
            int k = sequence[LANES * b + l];
            for (int i = 0; i < {L}; i++) point_v[{P} + i][l] = x_in[{L} * k + i];
            point_v[{P + L}][l] = loss_out[{1 + P} + k];
        }}
        memcpy(point_v[{first}], saved + {kept * W} * b, sizeof(double) * {kept * W});
{_calls("point_backward", ours.backward, "        {}(out);")}
    }}
    out[0] = loss_out[0];
    for (int i = 0; i < {P}; i++) out[1 + i] = point_g[i];
    for (int k = 0; k < {n}; k++) out[{1 + P} + k] = v[{P} + k];
    return 0;
}}
"""
    shared = [
        f"#define LANES {W}  /* points side by side */",
        "/* the parameters and their gradients, which the lanes share */",
        f"static double point_p[{max(P, 1)}], point_g[{max(P, 1)}];",
        "static int lanes;  /* the lanes of a group that add to the parameters' gradients */",
    ]
    return _one_file(theirs, ours, main, P, *shared)


def _point_at_a_time(point, loss, n, order, theirs, ours):
    """The C of a batch whose points run one at a time: each forward pass, the loss, then
    each backward pass in `order`."""
    P, L = point.trace.n_params, point.trace.n_inputs - 1
    first = P + L + 1  # the point's first result kept
    kept = len(ours.lang.values)
    output = value_place(ours.lang, point.trace.result)
    n_targets = loss.trace.n_inputs
    main = f"""
static double loss_out[{1 + loss.trace.n_params}], saved[{max(n * kept, 1)}];
static const int order[{max(len(order), 1)}] = {{{", ".join(map(str, order)) or "0"}}};

EXPORT int loss_and_grads(const double *p_in, const double *x_in, double *out) {{
    for (int i = 0; i < {P}; i++) point_v[i] = v[i] = p_in[i];
    for (int k = 0; k < {n}; k++) {{  /* each point's forward pass */
        for (int i = 0; i < {L}; i++) point_v[{P} + i] = x_in[{L} * k + i];
{_calls("point_forward", ours.forward, "        if ({}()) return 1;")}
        memcpy(saved + {kept} * k, point_v + {first}, sizeof(double) * {kept});
        v[{P} + k] = point_v[{output}];
    }}
    for (int i = 0; i < {n_targets}; i++) v[{P + n} + i] = x_in[{n * L} + i];
{_calls("loss_forward", theirs.forward, "    if ({}()) return 1;")}
{_calls("loss_backward", theirs.backward, "    {}(loss_out);")}
    for (int i = 0; i < {P}; i++) point_d[i] = loss_out[1 + i];
    for (int j = 0; j < {len(order)}; j++) {{  /* each point's backward pass, in order */
        int k = order[j];
        for (int i = 0; i < {L}; i++) point_v[{P} + i] = x_in[{L} * k + i];
        point_v[{P + L}] = loss_out[{1 + P} + k];
        memcpy(point_v + {first}, saved + {kept} * k, sizeof(double) * {kept});
{_calls("point_backward", ours.backward, "        {}(out);")}
    }}
    out[0] = loss_out[0];
    for (int i = 0; i < {P}; i++) out[1 + i] = point_d[i];
    for (int k = 0; k < {n}; k++) out[{1 + P} + k] = v[{P} + k];
    return 0;
}}
"""
    return _one_file(theirs, ours, main, P)


def _one_file(theirs, ours, main, n_params, *defines):
    """The `CCode` of a batch: the loss's arrays and functions, the point's, then `main` (which
    defines `loss_and_grads`) and `descend`."""
    text = [
        *defines,
        "/* the loss of the points' outputs */",
        f"static double {theirs.arrays};",
        theirs.constants,
        *theirs.forward,
        *theirs.backward,
        "/* one point: its arrays named point_v, point_d and point_c */",
        "#define v point_v",
        "#define d point_d",
        "#define c point_c",
        f"static double {ours.arrays};",
        ours.constants,
        *ours.forward,
        *ours.backward,
        "#undef v",
        "#undef d",
        "#undef c",
    ]
    # All of it in the one file that holds `loss_and_grads`, which reads the static arrays: the
    # builder compiles a long program's `functions` in files of their own, where it could not.
    return CCode(_PRELUDE, [], "\n".join(text) + "\n" + main + _DESCEND.format(P=n_params))


# `CompiledBatch.descend`: the step, then p - lr * grad, rounded as Python rounds it
_DESCEND = """
EXPORT int descend(double *p, const double *x_in, double lr, double *out) {{
    if (loss_and_grads(p, x_in, out)) return 1;
    for (int i = 0; i < {P}; i++) p[i] = p[i] - lr * out[1 + i];
    return 0;
}}
"""


def _calls(name, functions, form):
    """A call of each of `functions`, which `fused_c_parts` named `name`_0, `name`_1, ..."""
    return "\n".join(form.format(f"{name}_{k}") for k in range(len(functions)))
