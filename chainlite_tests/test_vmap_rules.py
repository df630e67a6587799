"""func.vmap's batching rules against the loop: values and gradients in float64, for every
function with a rule; plus out_axes=None, chunk_size and keyword arguments."""
import functools
import operator

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import _vmap
from chainlite import _vmap_rules
from chainlite import func

P = functools.partial


def _inputs(shapes, seed):
    # Continuous random values: no ties for max/min/maximum, nothing at a kink.
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        if isinstance(s, str):          # 'bool:(4, 3)' for where's condition
            out.append(rng.uniform(size=eval(s[5:])) > 0.5)
        else:
            out.append(rng.uniform(0.5, 1.5, s))
    return out


def _variables(arrays):
    return [chainlite.Variable(a.copy()) if a.dtype.kind == 'f' else a for a in arrays]


def _as_args(values, structure):
    # structure: None for a plain argument list, or a function regrouping the leaves.
    return list(values) if structure is None else structure(values)


def _loop(f, args, in_axes, out_axis):
    axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)

    def slice_arg(a, ax, i):
        if isinstance(a, (tuple, list)):
            sub = ax if isinstance(ax, (tuple, list)) else [ax] * len(a)
            return type(a)(slice_arg(x, s, i) for x, s in zip(a, sub))
        if ax is None:
            return a
        ax %= a.ndim
        return F.get_item(a, (slice(None),) * ax + (i,)) if isinstance(
            a, chainlite.Variable) else np.take(a, i, ax)

    def size(a, ax):
        if isinstance(a, (tuple, list)):
            sub = ax if isinstance(ax, (tuple, list)) else [ax] * len(a)
            return max(size(x, s) for x, s in zip(a, sub))
        return 0 if ax is None else a.shape[ax]

    n = max(size(a, ax) for a, ax in zip(args, axes))
    rows = [f(*[slice_arg(a, ax, i) for a, ax in zip(args, axes)]) for i in range(n)]
    return F.stack(rows, out_axis)


def _no_loop(monkeypatch):
    def fail(*args):
        raise AssertionError('vmap looped although the function has a batching rule')
    monkeypatch.setattr(_vmap, '_take', fail)


def _check(f, shapes, in_axes, out_axis=0, structure=None, seed=0, monkeypatch=None,
           rtol=1e-12):
    arrays = _inputs(shapes, seed)
    got_vars, want_vars = _variables(arrays), _variables(arrays)
    want = _loop(f, _as_args(want_vars, structure), in_axes, out_axis)
    if monkeypatch is not None:
        _no_loop(monkeypatch)
    got = func.vmap(f, in_axes, out_axis)(*_as_args(got_vars, structure))
    if monkeypatch is not None:
        monkeypatch.undo()
    assert got.shape == want.shape and got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.array, want.array, rtol=rtol, atol=1e-14)
    weights = np.random.default_rng(seed + 1).standard_normal(want.shape)
    F.sum(got * weights).backward()
    F.sum(want * weights).backward()
    for g, w in zip(got_vars, want_vars):
        if isinstance(g, chainlite.Variable):
            np.testing.assert_allclose(g.grad, w.grad, rtol=rtol, atol=1e-13)


ELEMENTWISE_CASES = [
    (P(F.leaky_relu, slope=0.3), [(3, 4)], 1, 0),
    (F.exp, [(3, 4)], -1, 1),
]

BROADCASTING_CASES = [
    (F.add, [(4, 3), (3,), (2, 4, 1)], (0, None, 1), 0),
    (F.maximum, [(4, 3), (3,)], (0, None), 0),
    (F.maximum, [(3,), (2, 4, 3)], (None, 1), 1),
    (F.minimum, [(4, 2, 3), (4, 3)], (0, 0), -1),
    (F.arctan2, [(4, 3), (3, 4)], (0, 1), 0),
    (F.fmod, [(4, 3), (3,)], (0, None), 0),
    (F.squared_difference, [(3,), (5, 3)], (None, 0), 0),
    (F.where, ['bool:(4, 3)', (3,), (4, 3)], (0, None, 0), 0),
    (F.where, ['bool:(2, 3)', (4, 3), (4,)], (None, 0, 0), 1),
    (operator.add, [(4, 3), (3,)], (0, None), 0),
    (operator.sub, [(2, 1), (4, 3)], (None, 0), 0),
    (operator.mul, [(4,), (4, 2, 3)], 0, 0),
    (operator.truediv, [(3,), (4, 3)], (None, 0), 0),
]

REDUCTION_CASES = [
    (F.sum, [(4, 2, 3)], 0, 0),
    (P(F.sum, axis=1, keepdims=True), [(2, 4, 3)], 1, 0),
    (P(F.mean, axis=(0, -1)), [(2, 3, 4)], -1, 0),
    (P(F.max, axis=0), [(4, 2, 3)], 0, 1),
    (P(F.min, axis=-1), [(4, 2, 3)], 0, 0),
    (P(F.prod, axis=1), [(4, 2, 3)], 0, 0),
    (F.logsumexp, [(4, 2, 3)], 0, 0),
    (P(F.logsumexp, axis=1), [(4, 2, 3)], 0, 0),
]

AXIS_CASES = [
    (F.softmax, [(4, 2, 3)], 0, 0),
    (P(F.log_softmax, axis=-1), [(2, 4, 3)], 1, 0),
    (F.cumsum, [(4, 2, 3)], 0, 0),
    (P(F.cumprod, axis=0), [(4, 2, 3)], 0, 2),
    (F.transpose, [(4, 2, 3, 2)], 0, 0),
    (P(F.transpose, axes=(1, 0, 2)), [(2, 4, 3, 2)], 1, 0),
    (P(F.swapaxes, axis1=0, axis2=-1), [(4, 2, 3)], 0, 0),
    (P(F.moveaxis, source=0, destination=-1), [(4, 2, 3)], 0, 0),
    (P(F.moveaxis, source=(0, 1), destination=(1, 0)), [(4, 2, 3)], 0, 0),
    (P(F.reshape, shape=(6,)), [(4, 2, 3)], 0, 0),
    (P(F.reshape, shape=(-1, 2)), [(2, 3, 4)], 2, 1),
    (F.flatten, [(4, 2, 3)], 0, 0),
    (P(F.expand_dims, axis=-1), [(4, 2, 3)], 0, 0),
    (F.squeeze, [(4, 1, 3, 1)], 0, 0),
    (P(F.squeeze, axis=0), [(1, 4, 3)], 1, 0),
    (P(F.broadcast_to, shape=(2, 3)), [(4, 3)], 0, 0),
    (P(F.broadcast_to, shape=(2, 2, 3)), [(4, 1, 3)], 0, 0),
]

LINEAR_CASES = [
    (F.matmul, [(4, 2, 3), (3, 5)], (0, None), 0),
    (F.matmul, [(2, 3), (4, 3, 5)], (None, 0), 0),
    (F.matmul, [(4, 2, 3), (3, 4, 5)], (0, 1), 1),
    (F.matmul, [(4, 3), (3, 5)], (0, None), 0),
    (F.matmul, [(2, 3), (4, 3)], (None, 0), 0),
    (F.matmul, [(4, 3), (3, 4)], (0, 1), 0),
    (F.matmul, [(5, 2, 3), (4, 3, 2)], (None, 0), 0),
    (P(F.matmul, transa=True, transb=True), [(4, 3, 2), (5, 3)], (0, None), 0),
    (P(F.matmul, transa=True), [(3, 2), (4, 3)], (None, 0), 0),
    (F.linear, [(4, 2, 3), (5, 3), (5,)], (0, None, None), 0),
    (F.linear, [(4, 2, 3), (4, 5, 3), (4, 5)], 0, 0),
    (F.linear, [(2, 3), (4, 5, 3), (5,)], (None, 0, None), 1),
    (P(F.linear, n_batch_axes=2), [(4, 2, 2, 3), (5, 3), (4, 5)], (0, None, 0), 0),
]

CASES = (ELEMENTWISE_CASES + BROADCASTING_CASES + REDUCTION_CASES + AXIS_CASES
         + LINEAR_CASES)


def _name(case):
    f = case[0]
    f = f.func if isinstance(f, functools.partial) else f
    return f.__name__


@pytest.mark.parametrize('case', CASES, ids=[_name(c) for c in CASES])
def test_rule_matches_the_loop(case, monkeypatch):
    f, shapes, in_axes, out_axis = case
    _check(f, shapes, in_axes, out_axis, monkeypatch=monkeypatch, rtol=1e-11)


@pytest.mark.parametrize('fn,axis,in_axes', [(F.concat, 1, (0, None)),
                                              (F.concat, -1, (1, 0)),
                                              (F.stack, -1, (0, 0)),
                                              (F.stack, 0, (None, 1))])
def test_concat_and_stack_rules(fn, axis, in_axes, monkeypatch):
    shapes = [(4, 2, 3), (2, 3)] if in_axes == (0, None) else (
        [(2, 4, 3), (4, 2, 3)] if in_axes == (1, 0) else (
            [(4, 2, 3), (4, 2, 3)] if in_axes == (0, 0) else [(2, 3), (2, 4, 3)]))
    f = P(fn, axis=axis)
    _check(f, shapes, (in_axes,), structure=lambda vs: [tuple(vs)], monkeypatch=monkeypatch)


def test_every_function_with_a_rule_is_tested():
    tested = {id(c[0].func if isinstance(c[0], functools.partial) else c[0]) for c in CASES}
    tested |= {id(F.concat), id(F.stack)}
    tested |= {id(getattr(F, n)) for n in _vmap_rules.ELEMENTWISE_NAMES}  # test_vmap.py
    missing = [g for g, _ in _vmap_rules._RULES if id(g) not in tested]
    assert not missing


def test_rules_decline_to_the_loop_where_they_cannot_promise_its_result():
    # A 0-d example: sum loops (and gives each example back).
    got = func.vmap(F.sum)(np.arange(3.0))
    np.testing.assert_allclose(got.array, [0.0, 1.0, 2.0])
    # An axis out of range for an example (in range for the batch): the function's own error.
    with pytest.raises(Exception) as info:
        func.vmap(P(F.sum, axis=2))(np.ones((4, 2, 3)))
    assert 'vmap' not in str(info.value)
    with pytest.raises(Exception) as info:
        func.vmap(F.softmax)(np.ones((4, 3)))      # axis 1 of a 1-d example
    assert 'vmap' not in str(info.value)


def test_keyword_arguments_go_to_f_unmapped(monkeypatch):
    xs = np.random.default_rng(3).standard_normal((4, 2, 3))
    _no_loop(monkeypatch)
    got = func.vmap(F.sum)(xs, axis=0)
    np.testing.assert_allclose(got.array, xs.sum(1))
    monkeypatch.undo()
    got = func.vmap(lambda x, scale: x * scale)(xs, scale=2.0)
    np.testing.assert_allclose(got, xs * 2)


def test_out_axes_none_for_outputs_that_do_not_depend_on_the_mapped_axis():
    rng = np.random.default_rng(4)
    w, xs = chainlite.Variable(rng.standard_normal(3)), rng.standard_normal((5, 3))

    def f(w, x):
        return F.sum(w * w), F.sum(w * x)

    norm, dots = func.vmap(f, in_axes=(None, 0), out_axes=(None, 0))(w, xs)
    assert norm.shape == () and dots.shape == (5,)
    np.testing.assert_allclose(norm.array, (w.array ** 2).sum())
    np.testing.assert_allclose(dots.array, xs @ w.array)
    norm.backward()
    np.testing.assert_allclose(w.grad, 2 * w.array)
    # The batched path: every row equal, one returned.
    got = func.vmap(lambda w, x: F.tanh(w) + 0 * x, in_axes=(None, 0), out_axes=None,
                    batched=True)(w, xs)
    np.testing.assert_allclose(got.array, np.tanh(w.array))
    with pytest.raises(ValueError, match='out_axes is None for output 1, but it differs'):
        func.vmap(f, in_axes=(None, 0), out_axes=(0, None))(w, xs)
    with pytest.raises(ValueError, match='out_axes is None for output 1, but it differs'):
        func.vmap(lambda w, x: (F.tanh(w) + 0 * x, F.exp(x)), in_axes=(None, 0),
                  out_axes=(0, None), batched=True)(w, xs)
    with pytest.raises(ValueError, match='output 0 of the batched call is 0-d'):
        func.vmap(lambda x: F.sum(x), batched=True)(xs)
    with pytest.raises(ValueError, match='out_axes is None for output 0'):
        func.vmap(F.exp, out_axes=None)(xs)


@pytest.mark.parametrize('chunk_size', [1, 2, 5, 7])
def test_chunk_size_with_a_rule(chunk_size):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 4))
    av, bv = chainlite.Variable(a), chainlite.Variable(b)
    got = func.vmap(F.matmul, in_axes=(0, None), out_axes=1, chunk_size=chunk_size)(av, bv)
    np.testing.assert_allclose(got.array, np.moveaxis(a @ b, 0, 1), rtol=1e-12)
    F.sum(got * got).backward()
    gy = 2 * (a @ b)
    np.testing.assert_allclose(av.grad, gy @ b.T, rtol=1e-12)
    np.testing.assert_allclose(bv.grad, np.einsum('nij,nik->jk', a, gy), rtol=1e-12)


def test_chunk_size_with_batched_calls_f_per_chunk():
    xs = np.random.default_rng(6).standard_normal((5, 3))
    calls = []

    def f(x):
        calls.append(len(x))
        return F.exp(x), F.sum(x, axis=1)

    e, s = func.vmap(f, out_axes=(1, 0), batched=True, chunk_size=2)(xs)
    assert calls == [2, 2, 1]
    np.testing.assert_allclose(e.array, np.exp(xs).T)
    np.testing.assert_allclose(s.array, xs.sum(1))


@pytest.mark.parametrize('chunk_size', [0, -1, 1.5, True])
def test_bad_chunk_size_named(chunk_size):
    with pytest.raises(ValueError, match='vmap: chunk_size must be a positive int'):
        func.vmap(F.exp, chunk_size=chunk_size)
