"""Tests of chainlite.func: grad, jacobians, Hessians and their composition."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import func


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_grad_polynomial():
    x = np.array([-1.0, 0.5, 2.0])
    g = func.grad(lambda x: F.sum(x ** 3 - 2 * x))(x)
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, 3 * x ** 2 - 2)


def test_grad_of_logsumexp_is_softmax():
    x = _rng().standard_normal((1, 5))
    g = func.grad(F.logsumexp)(x)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(g, e / e.sum(), rtol=1e-12)


def test_grad_argnums_and_constants():
    a, b, k = np.array([1.0, 2.0]), np.array([3.0, 4.0]), 2.0

    def f(a, b, k):
        return F.sum(a * b * k)

    np.testing.assert_allclose(func.grad(f, argnums=1)(a, b, k), a * k)
    ga, gb = func.grad(f, argnums=(0, 1))(a, b, k)
    np.testing.assert_allclose(ga, b * k)
    np.testing.assert_allclose(gb, a * k)
    gb, = func.grad(f, argnums=(-2,))(a, b, k)
    np.testing.assert_allclose(gb, a * k)


def test_value_and_grad_with_aux():
    x = np.array([1.0, 2.0])

    def f(x):
        y = x * x
        return F.sum(y), y

    (value, aux), g = func.value_and_grad(f, has_aux=True)(x)
    assert float(value) == 5.0
    np.testing.assert_array_equal(aux, [1.0, 4.0])
    np.testing.assert_array_equal(g, [2.0, 4.0])
    g, aux = func.grad(f, has_aux=True)(x)
    np.testing.assert_array_equal(g, [2.0, 4.0])
    assert isinstance(aux, np.ndarray)


def test_grad_errors():
    with pytest.raises(ValueError, match='one-element floating point'):
        func.grad(lambda x: x * 2)(np.ones(3))
    with pytest.raises(ValueError, match='pair'):
        func.grad(lambda x: F.sum(x), has_aux=True)(np.ones(3))
    with pytest.raises(ValueError, match='argnums'):
        func.grad(F.sum, argnums=2)(np.ones(3))


def test_grad_returns_variables_on_variables():
    x = chainlite.Variable(np.array([0.5, 1.0]))
    g = func.grad(lambda x: F.sum(F.sin(x)))(x)
    assert isinstance(g, chainlite.Variable)
    F.sum(g).backward()
    np.testing.assert_allclose(x.grad, -np.sin(x.array))


def test_third_derivative_of_sin():
    d3 = func.grad(func.grad(func.grad(F.sin)))
    for x in (0.0, 0.5, -2.0):
        np.testing.assert_allclose(d3(np.array(x)), -np.cos(x), rtol=1e-12)


def _two_output(x, w):
    return F.tanh(x * w), F.sum(F.exp(x) * w[:2])


def test_jacfwd_equals_jacrev():
    x, w = _rng(1).standard_normal(2), _rng(2).standard_normal(2)
    for argnums in (0, 1, (0, 1)):
        rev = func.jacrev(_two_output, argnums)(x, w)
        fwd = func.jacfwd(_two_output, argnums)(x, w)
        for r, f in zip(rev, fwd):
            for a, b in zip(r if isinstance(argnums, tuple) else (r,),
                            f if isinstance(argnums, tuple) else (f,)):
                assert a.shape == b.shape
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert func.jacobian is func.jacrev


def test_jacobian_shapes_and_values():
    x = _rng().standard_normal((2, 3))
    jac = func.jacfwd(F.sin)(x)
    assert jac.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(jac.reshape(6, 6), np.diag(np.cos(x).ravel()))
    np.testing.assert_allclose(func.jacrev(F.sin)(x), jac)
    s = _rng().standard_normal((1, 4))
    e = np.exp(s - s.max())
    p = (e / e.sum()).ravel()
    np.testing.assert_allclose(func.jacrev(F.softmax)(s).reshape(4, 4),
                               np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-15)


def test_hessian_of_polynomial():
    x = np.array([1.0, -2.0])
    h = func.hessian(lambda x: F.sum(x[0] ** 2 * x[1] + x[1] ** 3))(x)
    expected = np.array([[2 * x[1], 2 * x[0]], [2 * x[0], 6 * x[1]]])
    np.testing.assert_allclose(h, expected)


def _mlp_loss(params):
    # A tiny 2-3-1 network on a fixed batch, all its 13 parameters packed in one vector.
    W1, b1 = F.reshape(params[:6], (3, 2)), params[6:9]
    W2, b2 = F.reshape(params[9:12], (1, 3)), params[12:]
    x = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])
    t = np.array([[0.2], [-0.1], [0.4]])
    h = F.tanh(F.linear(x, W1, b1))
    return F.mean_squared_error(F.linear(h, W2, b2), t)


def test_mlp_hessian_against_finite_differences():
    p = _rng(4).standard_normal(13) * 0.5
    h = func.hessian(_mlp_loss)(p)
    assert h.shape == (13, 13)
    np.testing.assert_allclose(h, h.T, atol=1e-12)
    grad = func.grad(_mlp_loss)
    eps = 1e-6
    fd = np.stack([(grad(p + eps * e) - grad(p - eps * e)) / (2 * eps) for e in np.eye(13)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def test_hvp_and_vhp_equal_hessian_times_vector():
    p = _rng(5).standard_normal(13) * 0.5
    v = _rng(6).standard_normal(13)
    h = func.hessian(_mlp_loss)(p)
    value, (hv,) = func.hvp(_mlp_loss, (p,), (v,))
    value2, (vh,) = func.vhp(_mlp_loss, (p,), (v,))
    assert float(value) == pytest.approx(float(_mlp_loss(p).array))
    assert float(value2) == pytest.approx(float(value))
    np.testing.assert_allclose(hv, h @ v, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(vh, h @ v, rtol=1e-10, atol=1e-12)


def test_hvp_several_primals():
    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    va, vb = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    # f = sum(a^2 b): H = [[2 diag(b), 2 diag(a)], [2 diag(a), 0]]
    _, (ha, hb) = func.hvp(lambda a, b: F.sum(a * a * b), (a, b), (va, vb))
    np.testing.assert_allclose(ha, 2 * b * va + 2 * a * vb)
    np.testing.assert_allclose(hb, 2 * a * va)
    _, (ga, gb) = func.vhp(lambda a, b: F.sum(a * a * b), (a, b), (va, vb))
    np.testing.assert_allclose(ga, ha)
    np.testing.assert_allclose(gb, hb)


def test_reexports():
    from chainlite import forward_mode
    assert func.jvp is forward_mode.jvp and func.vjp is forward_mode.vjp


# A single array or Variable as primals (torch.autograd.functional's convention): it is
# f's one argument, never split into rows.
def _cube_sum(a):
    return F.sum(a ** 3)


@pytest.mark.parametrize('transform', [func.hvp, func.vhp])
@pytest.mark.parametrize('wrap', [lambda a: a, chainlite.Variable])
def test_hessian_products_take_a_single_array(transform, wrap):
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    v = np.array([[0.5, 1.0], [-2.0, 1.5]])
    value, hv = transform(_cube_sum, wrap(x), v)
    hv = hv.array if isinstance(hv, chainlite.Variable) else hv
    assert hv.shape == x.shape
    np.testing.assert_allclose(hv, 6 * x * v)
    np.testing.assert_allclose(np.asarray(getattr(value, 'array', value)), (x ** 3).sum())
    # The one-entry tuple spelling gives the same numbers, packed in a tuple.
    _, (hv_tuple,) = transform(_cube_sum, (x,), (v,))
    np.testing.assert_allclose(hv_tuple, 6 * x * v)


@pytest.mark.parametrize('transform', [func.hvp, func.vhp])
@pytest.mark.parametrize('primals', [3.0, {'x': np.ones(2)}, 'abc', None])
def test_hessian_products_reject_other_non_sequences(transform, primals):
    with pytest.raises(TypeError, match='%s: primals must be a tuple or list'
                       % transform.__name__):
        transform(_cube_sum, primals, np.ones(2))
