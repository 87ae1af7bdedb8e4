"""The passes: take a `Trace`, give a `Program`, the facts fusion and the writers read.

Passes over the tape: each reads a `Trace` (and what earlier passes found) and returns
facts about it, or a new list of steps; none writes code.

- `needs`: the values whose gradient the parameters need.
- `ends`: where a value that is not finite would show (the loss, the auxiliary values, and
  every result no other instruction uses).
- `gradient_flow`: the backward pass as data (`Seed`s and `Add`s, in the order `backward()`
  runs), with the gradients that share one variable.
- `backward_reads`: liveness, the results the backward pass reads.
- `folded`: the results used once, by a `+` or a `*`, and nowhere else, which the C code
  writes inside the expression that uses them.
- `dots`: the sums of products, which the fused code writes as running sums.
- `slots`: the place of each result and gradient kept in the C code's arrays.

`Program` runs them on a trace, each once, when first asked: what fusion and both back ends
read. It takes a `tape.Trace` and gives its facts; nothing here writes code.
"""

import functools
from functools import cached_property
from typing import NamedTuple

from .rules import GRADIENT, RULES, role_names, shares
from .tape import is_name


def needs(trace):
    """The parameters, and every result that depends on one: what needs a gradient."""
    found = {f"p{i}" for i in range(trace.n_params)}
    for out, _, args in trace.tape:
        for a in args:
            if a in found:
                found.add(out)
                break
    return found


def ends(trace, count=None):
    """The names where a value that is not finite would show: the loss, the auxiliary values,
    and every result no other instruction uses (it reaches no loss). (`count`: `users`, if
    known.)"""
    used = count or users(trace)
    unused = [ins.out for ins in trace.tape if ins.out not in used]
    return [name for name in dict.fromkeys([trace.result, *trace.aux, *unused]) if is_name(name)]


def users(trace):
    """{name: how many arguments of the tape name it}."""
    count = {}
    get = count.get
    for ins in trace.tape:
        for a in ins.args:
            if type(a) is str:  # a name (`is_name`)
                count[a] = get(a, 0) + 1
    return count


class Seed(NamedTuple):
    """The gradient of `name` starts at `value`: 1.0 for the loss (or the name of the input
    that holds its gradient, `Trace.seed`), 0.0 where nothing flowed back into it before its
    closure runs."""

    name: str
    value: float


class Add(NamedTuple):
    """`target.grad += expr` of the instruction `ins`'s closure (its rule's `Share`, with
    `condition` the test at run time, if any): `first` where it is the first contribution,
    which creates the gradient's variable."""

    target: str
    ins: object
    expr: str
    condition: str
    first: bool


class GradientFlow(NamedTuple):
    """The backward pass as data: `steps` (`Seed`s and `Add`s, in the order `backward()`
    runs), `variable` (name -> the name whose gradient variable it uses, where it shares
    one), and `grads` (each parameter's name, or None where no gradient reaches it)."""

    steps: list
    variable: dict
    grads: list

    def of(self, name):
        """The name whose gradient variable holds the gradient of `name`."""
        return self.variable.get(name, name)


def gradient_flow(trace, count=None):
    """What the engine's `backward()` adds to each grad, in its order, for the values that
    `needs` a gradient.

    A sum passes its gradient on as it is: where that is the first gradient an input gets,
    the input's gradient simply *is* the sum's, and shares its variable instead of copying
    it (dt0 = dt1). A sum's gradient is final once its closure runs, so only that input can
    change it from then on. Its second input may share it too, if both inputs are used
    nowhere else and the second is no sum: backward() runs the second input's closure right
    after the sum's (the sort visits a node's inputs in order, so the last one ends just
    before the node); that closure passes nothing on unchanged, and cannot reach the first
    input, which only the sum uses; so the variable holds the sum's gradient for as long as
    the second input reads it. Otherwise the second input gets a copy.
    """
    need = needs(trace)
    count = count or users(trace)
    op_of = {ins.out: ins.op for ins in trace.tape}
    variable, steps, assigned = {}, [], set()
    if trace.result in need:
        steps.append(Seed(trace.result, trace.seed))
        assigned.add(trace.result)
    if trace.accumulate:  # every contribution to a parameter's gradient adds to it
        assigned.update(f"p{i}" for i in range(trace.n_params))
    new, add, assign = tuple.__new__, steps.append, assigned.add  # (run once an instruction)
    for ins in trace.backward:
        out, op, args = ins
        if out not in need:
            continue
        if out not in assigned:  # nothing flowed back into it: its grad is 0
            add(Seed(out, 0.0))
            assign(out)
        shared = False
        plain = _PLAIN.get(op)
        for to, expr, condition, passes_on in plain or [
            (args.index(target), e, c, c is None and e == GRADIENT) for target, e, c in shares(ins)
        ]:
            target = args[to]
            if target not in need:  # a constant or an input, whose gradient nobody wants
                continue
            if (
                passes_on
                and target not in assigned
                and (
                    not shared
                    or (
                        target == args[-1]
                        and count.get(target) == 1
                        and count.get(args[0]) == 1
                        and op_of.get(target, "+") != "+"
                    )
                )
            ):
                variable[target] = variable.get(out, out)
                assign(target)
                shared = True
                continue
            add(new(Add, (target, ins, expr, condition, target not in assigned)))
            assign(target)
    grads = [f"p{i}" if f"p{i}" in assigned else None for i in range(trace.n_params)]
    return GradientFlow(steps, variable, grads)


def backward_reads(flow):
    """Liveness: the names whose values the backward pass reads (in its expressions and
    conditions), so that the forward pass must keep them."""
    found = set()
    for step in flow.steps:
        if type(step) is Add:
            ins = step.ins
            for role in _reads(step.condition, step.expr):
                name = ins.out if role < 0 else ins.args[role]
                if type(name) is str:  # a name (`is_name`)
                    found.add(name)
    return found


# The shares of each operation that a number of the trace never leaves out (no `nonzero`):
# {op: ((input, template, condition, whether it passes the gradient on as it is), ...)}, what
# `shares` gives for every instruction.
_PLAIN = {
    op: tuple(
        (share.to, share.expr, share.condition, share.condition is None and share.expr == GRADIENT)
        for share in rule.backward
    )
    for op, rule in RULES.items()
    if not any(share.nonzero for share in rule.backward)
}


@functools.lru_cache(maxsize=None)
def _reads(*templates):
    """Which operands the templates read, in order: an input's index, or -1 for the result."""
    roles = ("a", "b")
    return tuple(
        -1 if role == "out" else roles.index(role)
        for template in templates
        for role in role_names(template)
    )


def folded(trace, kept, count=None):
    """The results that are used once, by a `+` or a `*` (an operation that `folds`), and are
    not in `kept` (read by the backward pass, a guard, or a result): each can be written
    inside the one expression that uses it. (`count`: `users`, if known.)"""
    count = count or users(trace)
    folding = _FOLDS
    folds, found = set(), set()  # (an argument is made before the instruction that uses it)
    for out, op, args in trace.tape:
        if op in folding:
            for a in args:
                if a in folds and count[a] == 1:
                    found.add(a)
            folds.add(out)
    return found.difference(kept)


_FOLDS = frozenset(op for op, rule in RULES.items() if rule.folds)


def slots(trace, flow, folded_away):
    """({result: its place in the array `t`}, {name: the place of its gradient in `dt`}):
    numbered in the order the code first writes them, so that the numbers a step touches
    sit together in memory. Results folded away and the parameters' gradients (which go
    straight to the caller's array) have none."""
    values = {}
    for ins in trace.tape:
        if ins.out not in folded_away:
            values[ins.out] = len(values)
    gradients, of = {}, flow.variable.get  # of(name, name): `flow.of(name)`
    for step in flow.steps:
        name = step[0]  # a Seed's name, an Add's target
        name = of(name, name)
        if name[0] == "t" and name not in gradients:
            gradients[name] = len(gradients)
    return values, gradients


# --------------------------------------------------------------------- sums of products


class Dot(NamedTuple):
    """A sum of products on the tape: `head` (the product `m0` and the sum `s0` that adds it
    to another operand), then `terms`, each a product `mk` and the sum `sk = s(k-1) + mk`.
    `out` is the last sum, the one result kept; `inside` are the others."""

    head: tuple
    terms: list

    @property
    def out(self):
        return (self.terms[-1] if self.terms else self.head)[1].out

    @property
    def inside(self):
        pairs = [self.head, *self.terms]
        return {m.out for m, _ in pairs} | {s.out for _, s in pairs[:-1]}

    @property
    def operands(self):
        """The names and numbers the sum reads."""
        m, s = self.head
        return [
            *m.args,
            *(a for a in s.args if a != m.out),
            *(a for m, _ in self.terms for a in m.args),
        ]


def dots(trace, kept, least=2, count=None):
    """{the tape index of its first instruction: `Dot`} for every sum of at least `least`
    products whose products and partial sums are used once, by the next sum, and are not in
    `kept` (read by the backward pass, a guard, or a result). (`count`: `passes.users`.)"""
    count = count or users(trace)
    tape = trace.tape
    n = len(tape)

    def product(i):  # a product whose result is used once, by the next instruction, a sum
        out, op, _ = tape[i]
        return (
            op == "*"
            and tape[i + 1].op == "+"
            and type(out) is str
            and count.get(out) == 1
            and out not in kept
        )

    found, i = {}, 0
    while i + 1 < n:
        m, s = tape[i], tape[i + 1]
        if not (product(i) and m.out in s.args and s.args[0] != s.args[1]):
            i += 1
            continue
        terms, j, last = [], i + 2, s.out
        while (
            j + 1 < n
            and product(j)
            and tape[j + 1].args == (last, tape[j].out)
            and (count.get(last) == 1 and last not in kept)
        ):
            terms.append((tape[j], tape[j + 1]))
            last = tape[j + 1].out
            j += 2
        if 1 + len(terms) >= least:
            found[i] = Dot((m, s), terms)
            i = j
        else:
            i += 1
    return found


# --------------------------------------------------------------------- the program


class Program:
    """A `tape.Trace` and what the passes find in it, each pass run once, when first asked:
    the one object that fusion and both back ends read (`trace`, `users`, `flow`, `ends`,
    `kept`, `folded`, `dots`, `fused_folded`, and `places(...)`)."""

    def __init__(self, trace):
        self.trace = trace
        self._places = {}

    @cached_property
    def users(self):
        """{name: how many arguments of the tape name it} (`users`)."""
        return users(self.trace)

    @cached_property
    def flow(self):
        """The backward pass as data (`gradient_flow`)."""
        return gradient_flow(self.trace, self.users)

    @cached_property
    def ends(self):
        """Where a value that is not finite would show (`ends`)."""
        return ends(self.trace, self.users)

    @cached_property
    def kept(self):
        """The results that must be stored: read by the backward pass, a guard or a result."""
        return backward_reads(self.flow) | set(self.ends)

    @cached_property
    def folded(self):
        """The results the unfused C writes inside the expression that uses them (`folded`)."""
        return folded(self.trace, self.kept, self.users)

    @cached_property
    def dots(self):
        """{tape index: `Dot`}, the sums of products of the fused code (`dots`)."""
        return dots(self.trace, self.kept, count=self.users)

    @cached_property
    def inside_dots(self):
        """The partial results of the sums of products, which are never stored."""
        return set().union(*(dot.inside for dot in self.dots.values()))

    @cached_property
    def fused_folded(self):
        """The results the fused C writes inside the expression that uses them: `folded`,
        but none that a sum of products reads, holds or gives."""
        found = folded(self.trace, self.kept, self.users)
        found.difference_update(self.inside_dots)
        for dot in self.dots.values():
            found.discard(dot.out)
            found.difference_update(dot.operands)
        return found

    def places(self, away):
        """The `slots` of the results and gradients, with the results `away` ("none",
        "folded": the unfused C's, "fused": the fused Python's, "fused and folded": the fused
        C's) given none."""
        if away not in self._places:
            gone = {
                "none": set,
                "folded": lambda: self.folded,
                "fused": lambda: self.inside_dots,
                "fused and folded": lambda: self.fused_folded | self.inside_dots,
            }[away]()
            self._places[away] = slots(self.trace, self.flow, gone)
        return self._places[away]
