"""Property tests of grad and backward on random small graphs, against a NumPy reference.

Each example builds a random graph of smooth ops over one or two leaves, picks outputs and
inputs among all of its nodes (so an input is often an ancestor of another input), and
compares what chainlite computes with central differences of the same graph evaluated in
plain NumPy. A node can be "overridden" (its value replaced, everything below it
recomputed), which gives the total derivative with respect to an intermediate node.

The semantics checked are Chainer 7's:

- ``grad``: the gradient of an input is that total derivative of the seeded outputs, plus its
  own ``grad_inputs`` entry, plus the ``grad_inputs`` entries of the inputs below it whose
  creator runs, carried up to it (an initial gradient flows on like any other).
  ``retain_grad`` keeps the gradient of every output of a function that ran; ``set_grad``
  stores the results.
- ``backward``: leaves accumulate into their ``grad``; an output of a multi-output function
  that no gradient reached contributes the ``grad`` it holds (which is consumed); gradients
  set on other intermediate nodes are ignored and left alone; ``retain_grad`` keeps every
  gradient computed.
- Both: with ``enable_double_backprop`` the gradients differentiate again correctly.
"""
import numpy
from hypothesis import given, settings
from hypothesis import strategies as st

import chainlite
import chainlite.functions as F

_SHAPE = (3,)
_EPS = 1e-6


class _TwoOut(chainlite.FunctionNode):
    # (sin(x), x * x / 2): a two-output op, differentiable twice.
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.sin(x), x * x * 0.5

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        g0, g1 = grad_outputs
        gx = None
        if g0 is not None:
            gx = g0 * F.cos(x)
        if g1 is not None:
            gx = g1 * x if gx is None else gx + g1 * x
        return gx,


# op name -> (arity, number of outputs)
_OPS = {'sin': (1, 1), 'tanh': (1, 1), 'scale': (1, 1), 'mul': (2, 1), 'add': (2, 1),
        'two': (1, 2)}


def _np_apply(op, args, c):
    if op == 'sin':
        return [numpy.sin(args[0])]
    if op == 'tanh':
        return [numpy.tanh(args[0])]
    if op == 'scale':
        return [args[0] * c]
    if op == 'mul':
        return [args[0] * args[1]]
    if op == 'add':
        return [args[0] + args[1]]
    return [numpy.sin(args[0]), args[0] * args[0] * 0.5]


def _cl_apply(op, args, c):
    if op == 'sin':
        return [F.sin(args[0])]
    if op == 'tanh':
        return [F.tanh(args[0])]
    if op == 'scale':
        return [args[0] * c]
    if op == 'mul':
        return [args[0] * args[1]]
    if op == 'add':
        return [args[0] + args[1]]
    return list(_TwoOut().apply((args[0],)))


@st.composite
def _graphs(draw):
    """(n_leaves, ops, creator): ops are (name, argument node ids, constant, output ids)."""
    n_leaves = draw(st.integers(1, 2))
    n = n_leaves
    ops = []
    creator = [None] * n_leaves
    for k in range(draw(st.integers(1, 5))):
        name = draw(st.sampled_from(sorted(_OPS)))
        arity, n_out = _OPS[name]
        # Prefer recent nodes, so that graphs are deep rather than wide.
        args = tuple(draw(st.integers(max(0, n - 3), n - 1)) for _ in range(arity))
        c = draw(st.sampled_from([-1.5, 0.5, 2.0]))
        outs = tuple(range(n, n + n_out))
        ops.append((name, args, c, outs))
        creator += [k] * n_out
        n += n_out
    return n_leaves, ops, creator


def _evaluate(graph, leaves, override=None):
    n_leaves, ops, _ = graph
    vals = list(leaves)
    if override:
        for i, v in override.items():
            if i < n_leaves:
                vals[i] = v
    for name, args, c, outs in ops:
        for i, v in zip(outs, _np_apply(name, [vals[a] for a in args], c)):
            vals.append(override[i] if override and i in override else v)
    return vals


def _build(graph, leaves):
    _, ops, _ = graph
    nodes = [chainlite.Variable(v.copy()) for v in leaves]
    for name, args, c, outs in ops:
        nodes += _cl_apply(name, [nodes[a] for a in args], c)
    return nodes


def _total_derivative(graph, leaves, i, scalar):
    """d scalar(node values) / d node i, node i overridden, by central differences."""
    base = _evaluate(graph, leaves)
    g = numpy.zeros(_SHAPE)
    for idx in numpy.ndindex(_SHAPE):
        vals = []
        for s in (1, -1):
            v = base[i].copy()
            v[idx] += s * _EPS
            vals.append(scalar(_evaluate(graph, leaves, {i: v})))
        g[idx] = (vals[0] - vals[1]) / (2 * _EPS)
    return g


def _ancestors_or_self(graph, nodes):
    """Ids of the nodes that some node in ``nodes`` depends on (those included)."""
    _, ops, creator = graph
    seen, stack = set(), list(nodes)
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        if creator[i] is not None:
            stack.extend(ops[creator[i]][1])
    return seen


def _descendants_or_self(graph, nodes):
    _, ops, _ = graph
    out = set(nodes)
    for name, args, c, outs in ops:
        if any(a in out for a in args):
            out.update(outs)
    return out


def _close(actual, expected, what):
    numpy.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, err_msg=what)


def _rand(rng):
    return rng.uniform(-1.5, 1.5, _SHAPE)


@settings(max_examples=40, deadline=None)
@given(graph=_graphs(), data=st.data())
def test_grad_matches_numpy_reference(graph, data):
    n_leaves, ops, creator = graph
    n = len(creator)
    rng = numpy.random.default_rng(data.draw(st.integers(0, 2 ** 16), label='seed'))
    leaves = [_rand(rng) for _ in range(n_leaves)]
    inputs = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True),
                       label='inputs')
    outputs = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2, unique=True),
                        label='outputs')
    gys = [None if data.draw(st.booleans(), label='default gy') else _rand(rng)
           for _ in outputs]
    use_gis = data.draw(st.booleans(), label='grad_inputs')
    # An input that is also an output takes no grad_inputs entry (there Chainer replaces the
    # output's seed, see docs/migrating_from_chainer.md).
    gis = [None if (not use_gis or i in outputs or data.draw(st.booleans(), label='no gi'))
           else _rand(rng) for i in inputs]
    retain = data.draw(st.booleans(), label='retain_grad')
    set_grad = data.draw(st.booleans(), label='set_grad')
    double = data.draw(st.booleans(), label='double')
    before = [None if data.draw(st.booleans(), label='grad before') else _rand(rng)
              for _ in range(n)]

    nodes = _build(graph, leaves)
    for v, g in zip(nodes, before):
        v.grad = None if g is None else g.copy()
    result = chainlite.grad(
        [nodes[i] for i in outputs], [nodes[i] for i in inputs],
        grad_outputs=[None if g is None else g.copy() for g in gys],
        grad_inputs=None if not use_gis else [None if g is None else g.copy() for g in gis],
        retain_grad=retain, set_grad=set_grad, enable_double_backprop=double)

    # Which creators run, as in Chainer: those of the outputs, then those of every node below
    # an input (``required``) that is an input of a function that runs.
    required = _descendants_or_self(graph, inputs)
    ran = {creator[o] for o in outputs if creator[o] is not None}
    while True:
        more = {creator[a] for f in ran for a in ops[f][1]
                if a in required and creator[a] is not None} - ran
        if not more:
            break
        ran |= more
    # The nodes that gradients reach: the outputs, and required inputs of functions that run.
    flows = set(outputs) | {a for f in ran for a in ops[f][1] if a in required}
    seeds = [numpy.ones(_SHAPE) if g is None else g for g in gys]

    def scalar(vals):
        # An initial input gradient counts at a leaf, and flows on from an input whose
        # creator runs.
        s = sum(float((vals[o] * g).sum()) for o, g in zip(outputs, seeds))
        return s + sum(float((vals[i] * g).sum()) for i, g in zip(inputs, gis)
                       if g is not None and (creator[i] is None or creator[i] in ran))

    expected = {}
    for i, gi in zip(inputs, gis):
        if i in flows:
            # The total derivative (its own initial gradient included).
            expected[i] = _total_derivative(graph, leaves, i, scalar)
        else:
            expected[i] = gi  # nothing reaches it: only its initial gradient (or None)
    for k, (i, g) in enumerate(zip(inputs, result)):
        if expected[i] is None:
            assert g is None, 'input %d' % i
        else:
            assert g is not None, 'input %d' % i
            _close(g.array, expected[i], 'grad of input node %d' % i)

    # What the call stored: set_grad the results; retain_grad the gradient of every output
    # of a function that ran (None where none reached it).
    for i in range(n):
        stored = nodes[i].grad
        if set_grad and i in inputs:
            want = expected[i]
        elif retain and creator[i] in ran:
            if i in flows and i in required:
                want = _total_derivative(graph, leaves, i, scalar)
            elif i in outputs:
                want = seeds[outputs.index(i)]
            elif i in inputs:
                want = gis[inputs.index(i)]
            else:
                want = None
        else:
            want = before[i]
        if want is None:
            assert stored is None, 'node %d' % i
        else:
            assert stored is not None, 'node %d' % i
            _close(stored, want, 'grad stored on node %d' % i)

    if double:
        _check_second_order(graph, leaves, outputs, inputs, seeds, gis, result, rng)


def _check_second_order(graph, leaves, outputs, inputs, seeds, gis, result, rng):
    # d <w, grad_k> / d leaves by double backprop, against central differences of the
    # first-order grad (checked above) recomputed at moved leaves.
    k = int(rng.integers(len(inputs)))
    if result[k] is None:
        return
    w = _rand(rng)
    n_leaves = graph[0]

    def first_order(leaf_vals):
        nodes = _build(graph, leaf_vals)
        g = chainlite.grad(
            [nodes[i] for i in outputs], [nodes[i] for i in inputs],
            grad_outputs=[s.copy() for s in seeds],
            grad_inputs=[None if g is None else g.copy() for g in gis])[k]
        return 0.0 if g is None else float((g.array * w).sum())

    nodes = _build(graph, leaves)
    gk = chainlite.grad([nodes[i] for i in outputs], [nodes[i] for i in inputs],
                        grad_outputs=[s.copy() for s in seeds],
                        grad_inputs=[None if g is None else g.copy() for g in gis],
                        enable_double_backprop=True)[k]
    second = chainlite.grad([F.sum(gk * w)], nodes[:n_leaves])
    for j in range(n_leaves):
        fd = numpy.zeros(_SHAPE)
        for idx in numpy.ndindex(_SHAPE):
            vals = []
            for s in (1, -1):
                moved = [v.copy() for v in leaves]
                moved[j][idx] += s * _EPS
                vals.append(first_order(moved))
            fd[idx] = (vals[0] - vals[1]) / (2 * _EPS)
        got = numpy.zeros(_SHAPE) if second[j] is None else second[j].array
        _close(got, fd, 'second order, leaf %d' % j)


@settings(max_examples=40, deadline=None)
@given(graph=_graphs(), data=st.data())
def test_backward_matches_numpy_reference(graph, data):
    n_leaves, _, creator = graph
    n = len(creator)
    rng = numpy.random.default_rng(data.draw(st.integers(0, 2 ** 16), label='seed'))
    leaves = [_rand(rng) for _ in range(n_leaves)]
    outputs = data.draw(st.lists(st.integers(n_leaves, n - 1), min_size=1, max_size=2,
                                 unique=True), label='outputs')
    retain = data.draw(st.booleans(), label='retain_grad')
    double = data.draw(st.booleans(), label='double')
    use_variable_backward = len(outputs) == 1 and data.draw(st.booleans(), label='method')
    before = [None if data.draw(st.booleans(), label='grad before') else _rand(rng)
              for _ in range(n)]
    seeds = [_rand(rng) for _ in outputs]

    nodes = _build(graph, leaves)
    for v, g in zip(nodes, before):
        v.grad = None if g is None else g.copy()
    for o, s in zip(outputs, seeds):
        nodes[o].grad = s.copy()
    if use_variable_backward:
        nodes[outputs[0]].backward(retain_grad=retain, enable_double_backprop=double)
    else:
        chainlite.backward([nodes[o] for o in outputs], retain_grad=retain,
                           enable_double_backprop=double)

    reached = _ancestors_or_self(graph, outputs)
    ran = {creator[i] for i in reached if creator[i] is not None}
    # Outputs of functions that ran, that no gradient reached, contribute the grad they held.
    injected = {i: before[i] for i in range(n_leaves, n)
                if creator[i] in ran and i not in reached and before[i] is not None}

    def scalar(vals):
        s = sum(float((vals[o] * g).sum()) for o, g in zip(outputs, seeds))
        return s + sum(float((vals[i] * g).sum()) for i, g in injected.items())

    for i in range(n):
        stored = nodes[i].grad
        if i < n_leaves:
            if i in reached:
                want = _total_derivative(graph, leaves, i, scalar)
                if before[i] is not None:
                    want = want + before[i]
            else:
                want = before[i]
        elif retain and creator[i] in ran:
            if i in reached:
                want = _total_derivative(graph, leaves, i, scalar)
            else:
                want = injected.get(i)
        elif i in outputs or i in injected:
            want = None  # consumed
        else:
            want = before[i]
        if want is None:
            assert stored is None, 'node %d' % i
        else:
            assert stored is not None, 'node %d' % i
            _close(stored, want, 'grad of node %d' % i)

    if double:
        # The leaf gradients are differentiable: d <w, leaf.grad> / d leaves.
        j = int(rng.integers(n_leaves))
        if j not in reached or before[j] is not None:
            return
        w = _rand(rng)

        def first_order(leaf_vals):
            ns = _build(graph, leaf_vals)
            for v, g in zip(ns, before):
                if g is not None and v.creator is not None:
                    v.grad = g.copy()
            chainlite.backward([ns[o] for o in outputs], [s.copy() for s in seeds])
            return float((ns[j].grad * w).sum())

        second = chainlite.grad([F.sum(nodes[j].grad_var * w)], nodes[:n_leaves])
        for m in range(n_leaves):
            fd = numpy.zeros(_SHAPE)
            for idx in numpy.ndindex(_SHAPE):
                vals = []
                for s in (1, -1):
                    moved = [v.copy() for v in leaves]
                    moved[m][idx] += s * _EPS
                    vals.append(first_order(moved))
                fd[idx] = (vals[0] - vals[1]) / (2 * _EPS)
            got = numpy.zeros(_SHAPE) if second[m] is None else second[m].array
            _close(got, fd, 'second order, leaf %d' % m)
