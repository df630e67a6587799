"""Tests of chainlite.forward_mode: jvp and vjp against analytic derivatives."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import forward_mode


def _rng(seed=0):
    return np.random.default_rng(seed)


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
def test_jvp_polynomial(shape):
    x = _rng().uniform(-1, 1, shape)
    v = _rng(1).standard_normal(shape)
    y, t = forward_mode.jvp(lambda x: x ** 3 + 2 * x, (x,), (v,))
    np.testing.assert_allclose(y, x ** 3 + 2 * x)
    np.testing.assert_allclose(t, (3 * x ** 2 + 2) * v)
    assert isinstance(t, np.ndarray) and t.shape == shape


def test_jvp_sin_float32():
    x = np.array([0.1, 0.5, 2.0], np.float32)
    v = np.array([1.0, -2.0, 0.5], np.float32)
    y, t = forward_mode.jvp(F.sin, (x,), (v,))
    assert t.dtype == np.float32
    np.testing.assert_allclose(t, np.cos(x) * v, rtol=1e-6)


def test_jvp_several_inputs_and_outputs():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    va, vb = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    (p, s), (tp, ts) = forward_mode.jvp(lambda a, b: (a * b, a + b), [a, b], [va, vb])
    np.testing.assert_allclose(p, a * b)
    np.testing.assert_allclose(tp, va * b + a * vb)
    np.testing.assert_allclose(ts, va + vb)


def test_jvp_none_tangent_is_zero():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    _, t = forward_mode.jvp(lambda a, b: a * b, (a, b), (None, np.ones(2)))
    np.testing.assert_allclose(t, a)


def test_jvp_list_output_gives_tuple():
    _, t = forward_mode.jvp(lambda x: [x * 2], (np.ones(2),), (np.ones(2),))
    assert isinstance(t, tuple) and len(t) == 1
    np.testing.assert_allclose(t[0], [2.0, 2.0])


def test_jvp_unused_input_and_constant_output():
    x, z = np.array([1.0, 2.0]), np.array([5.0])

    def f(x, z):
        return F.sum(x * x), chainlite.Variable(np.array([7.0])), np.array([1.0])

    (y, c, k), (t, tc, tk) = forward_mode.jvp(f, (x, z), (np.ones(2), np.ones(1)))
    assert float(t) == pytest.approx(2 * (1.0 + 2.0))
    np.testing.assert_array_equal(tc, [0.0])
    np.testing.assert_array_equal(tk, [0.0])


def test_jvp_output_not_depending_on_any_input():
    _, t = forward_mode.jvp(lambda x: chainlite.Variable(np.ones(3)), (np.ones(2),),
                            (np.ones(2),))
    np.testing.assert_array_equal(t, np.zeros(3))


def test_jvp_identity_function():
    _, t = forward_mode.jvp(lambda x: x, (np.ones(2),), (np.array([3.0, 4.0]),))
    np.testing.assert_array_equal(t, [3.0, 4.0])


def test_jvp_integer_input_and_output():
    x = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, 3.0]])
    labels = np.array([2, 0], np.int32)

    def f(x, t):
        assert t is labels  # integers reach f as given
        return F.softmax_cross_entropy(x, t), F.argmax(x, axis=1)

    (loss, idx), (tl, ti) = forward_mode.jvp(f, (x, labels), (np.ones_like(x), None))
    assert ti is None
    np.testing.assert_array_equal(idx, [2, 2])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    onehot = np.eye(3)[labels]
    assert float(tl) == pytest.approx(((p - onehot).sum()) / 2)


def test_jvp_transpose_identity_with_vjp():
    # <J v, u> = <v, J^T u> on a small two-input two-output network.
    rng = _rng(3)
    W = rng.standard_normal((4, 3))

    def f(x, b):
        h = F.tanh(F.linear(x, W, b))
        return F.softmax(h), F.sum(h * h, axis=1)

    x, b = rng.standard_normal((2, 3)), rng.standard_normal(4)
    vs = (rng.standard_normal(x.shape), rng.standard_normal(b.shape))
    ys, jv = forward_mode.jvp(f, (x, b), vs)
    _, vjp_fn = forward_mode.vjp(f, (x, b))
    us = tuple(rng.standard_normal(y.shape) for y in ys)
    jtu = vjp_fn(us)
    lhs = sum(np.vdot(a, c) for a, c in zip(jv, us))
    rhs = sum(np.vdot(a, c) for a, c in zip(vs, jtu))
    assert lhs == pytest.approx(rhs, rel=1e-10)


def test_vjp_single_output_and_repeated_calls():
    x = np.array([0.3, -0.2])
    y, vjp_fn = forward_mode.vjp(F.exp, (x,))
    np.testing.assert_allclose(y, np.exp(x))
    for scale in (1.0, 2.0):
        gx, = vjp_fn(scale * np.ones(2))
        np.testing.assert_allclose(gx, scale * np.exp(x))


def test_vjp_unused_integer_and_none_cotangent():
    x, z, k = np.array([1.0, 2.0]), np.array([5.0]), np.array([1])
    _, vjp_fn = forward_mode.vjp(lambda x, z, k: (x * 3, x * x), (x, z, k))
    gx, gz, gk = vjp_fn((np.ones(2), None))
    np.testing.assert_array_equal(gx, [3.0, 3.0])
    np.testing.assert_array_equal(gz, [0.0])
    assert gk is None


def test_results_are_variables_when_differentiable_again():
    x = chainlite.Variable(np.array([0.4, 1.1]))
    v = np.array([1.0, 2.0])
    y, t = forward_mode.jvp(F.sin, (x,), (v,))
    assert isinstance(y, chainlite.Variable) and isinstance(t, chainlite.Variable)
    F.sum(t).backward()
    np.testing.assert_allclose(x.grad, -np.sin(x.array) * v)


def test_no_backprop_mode_still_differentiates():
    x = chainlite.Variable(np.array([0.4]))
    with chainlite.no_backprop_mode():
        y, t = forward_mode.jvp(F.exp, (x,), (np.ones(1),))
    assert isinstance(t, np.ndarray)
    np.testing.assert_allclose(t, np.exp([0.4]))


def test_errors():
    x = np.ones(2)
    with pytest.raises(TypeError, match='tuple or list'):
        forward_mode.jvp(F.sin, 2.0, (x,))
    with pytest.raises(ValueError, match='one entry per primal'):
        forward_mode.jvp(F.sin, (x,), (x, x))
    with pytest.raises(ValueError, match='shape'):
        forward_mode.jvp(F.sin, (x,), (np.ones(3),))
    _, vjp_fn = forward_mode.vjp(F.sin, (x,))
    with pytest.raises(ValueError, match='shape'):
        vjp_fn(np.ones(3))
    _, vjp_fn = forward_mode.vjp(lambda x: (x, x), (x,))
    with pytest.raises(ValueError, match='cotangents'):
        vjp_fn(np.ones(2))


def test_tangent_propagation_agrees_with_the_transpose_trick_on_a_model():
    # The array path pushes tangents through the recorded graph (native rules for linear,
    # tanh, sigmoid, relu, exp and scalar ops; the local transpose trick for the rest, here
    # sum and matmul); the nested path uses double backprop for the whole function.
    import numpy

    import chainlite
    import chainlite.links as L
    rng = numpy.random.RandomState(0)
    l1, l2 = L.Linear(3, 4), L.Linear(4, 2)

    def f(x):
        h = F.tanh(l1(x)) * 2.0 + 1.0
        h = F.relu(h) + F.sigmoid(h) + F.exp(h * 0.1)
        return F.matmul(l2(h), l2.W) - 0.5

    x = rng.randn(5, 3).astype(numpy.float32)
    v = rng.randn(5, 3).astype(numpy.float32)
    _, fast = chainlite.jvp(f, (x,), (v,))
    _, slow = chainlite.jvp(f, (chainlite.Variable(x),), (v,))     # nested: transpose trick
    assert isinstance(fast, numpy.ndarray) and fast.dtype == numpy.float32
    numpy.testing.assert_allclose(fast, slow.array, rtol=1e-5, atol=1e-5)
    eps = 1e-3
    x64, v64 = x.astype(numpy.float64), v.astype(numpy.float64)
    for link in (l1, l2):
        for p in link.params():
            p.array = p.array.astype(numpy.float64)
    fd = (f(x64 + eps * v64).array - f(x64 - eps * v64).array) / (2 * eps)
    numpy.testing.assert_allclose(fast, fd, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize('wrap', [lambda a: a, lambda a: chainlite.Variable(a)])
def test_jvp_vjp_take_a_single_array_as_the_one_argument(wrap):
    # torch.autograd.functional's convention: a lone array is f's argument, not its rows.
    x = np.array([[0.5, 1.0, -1.0], [2.0, 0.0, 0.25]])
    v = np.array([[1.0, -1.0, 2.0], [0.5, 3.0, 1.0]])
    out, t = forward_mode.jvp(F.sin, wrap(x), v)
    t = getattr(t, 'array', t)
    np.testing.assert_allclose(t, np.cos(x) * v)
    _, t1 = forward_mode.jvp(F.sin, wrap(x), (v,))
    np.testing.assert_allclose(getattr(t1, 'array', t1), np.cos(x) * v)
    out, vjp_fn = forward_mode.vjp(F.sin, wrap(x))
    g = vjp_fn(v)
    assert not isinstance(g, tuple)
    np.testing.assert_allclose(getattr(g, 'array', g), np.cos(x) * v)
    # A tuple of primals keeps giving a tuple.
    _, vjp_fn = forward_mode.vjp(F.sin, (x,))
    g, = vjp_fn(v)
    np.testing.assert_allclose(g, np.cos(x) * v)


@pytest.mark.parametrize('primals', [1.5, {'x': np.ones(3)}, 'x', None, iter([np.ones(3)])])
def test_jvp_vjp_reject_other_non_sequences(primals):
    with pytest.raises(TypeError, match='jvp: primals must be a tuple or list .* got'):
        forward_mode.jvp(F.sin, primals, np.ones(3))
    with pytest.raises(TypeError, match='vjp: primals must be a tuple or list .* got'):
        forward_mode.vjp(F.sin, primals)
