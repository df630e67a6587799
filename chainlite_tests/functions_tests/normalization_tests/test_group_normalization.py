"""group_normalization: per-sample statistics over groups of channels."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.normalization.group_normalization import group_normalization
from chainlite.utils import type_check

# (x shape, groups)
CASES = [((2, 4, 3), 2), ((2, 6, 2, 2), 3), ((1, 4, 2, 3), 1), ((3, 4), 4), ((2, 4, 2), 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-4},
       numpy.float64: {'atol': 1e-10, 'rtol': 1e-10}}


def _arrays(shape, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape).astype(dtype)
    gamma = rs.uniform(0.5, 1.5, shape[1]).astype(dtype)
    beta = rs.uniform(-1, 1, shape[1]).astype(dtype)
    return x, gamma, beta


def _reference(x, groups, gamma, beta, eps):
    x = x.astype(numpy.float64)
    xg = x.reshape(x.shape[0], groups, -1)
    xg = (xg - xg.mean(axis=2, keepdims=True)) / numpy.sqrt(xg.var(axis=2, keepdims=True) + eps)
    kept = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return xg.reshape(x.shape) * gamma.reshape(kept) + beta.reshape(kept)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, groups', CASES)
def test_forward(shape, groups, dtype):
    x, gamma, beta = _arrays(shape, dtype)
    y = group_normalization(chainlite.Variable(x), groups, gamma, beta, eps=1e-3)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_allclose(y.array, _reference(x, groups, gamma, beta, 1e-3),
                                  **TOL[dtype])


def test_default_eps_and_non_contiguous_input():
    x, gamma, beta = _arrays((3, 4, 2))
    xt = numpy.ascontiguousarray(x.transpose(2, 1, 0)).transpose(2, 1, 0)  # same values
    y = group_normalization(xt, 2, gamma, beta)
    numpy.testing.assert_allclose(y.array, _reference(x, 2, gamma, beta, 1e-5))


@pytest.mark.parametrize('shape, groups', CASES)
def test_backward(shape, groups):
    x, gamma, beta = _arrays(shape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, shape)
    gradient_check.check_backward(lambda x, g, b: group_normalization(x, groups, g, b),
                                  (x, gamma, beta), gy, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('shape, groups', CASES)
def test_double_backward(shape, groups):
    inputs = _arrays(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, shape)
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(
        lambda x, g, b: group_normalization(x, groups, g, b), inputs, gy, ggs,
        atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    vs = [chainlite.Variable(a) for a in _arrays((2, 4, 3), dtype)]
    y = group_normalization(vs[0], 2, vs[1], vs[2])
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(v.grad.dtype == dtype for v in vs)


@pytest.mark.parametrize('x_dtype, p_dtype', [(numpy.float16, numpy.float32),
                                              (numpy.float32, numpy.float64)])
def test_mixed_dtypes_compute_in_promoted_dtype(x_dtype, p_dtype):
    # Chainer's mixed16: float16 data, float32 parameters; each gradient keeps its input's dtype.
    x64, gamma64, beta64 = _arrays((2, 4, 3))
    gy64 = numpy.random.RandomState(2).uniform(-1, 1, x64.shape)
    x = chainlite.Variable(x64.astype(x_dtype))
    gamma = chainlite.Variable(gamma64.astype(p_dtype))
    beta = chainlite.Variable(beta64.astype(p_dtype))
    y = group_normalization(x, 2, gamma, beta)
    assert y.dtype == x_dtype
    numpy.testing.assert_allclose(
        y.array, _reference(x.array, 2, gamma.array, beta.array, 1e-5), **TOL[x_dtype])
    gx, ggamma, gbeta = chainlite.grad([y], [x, gamma, beta], [gy64.astype(x_dtype)],
                                       enable_double_backprop=True)
    assert (gx.dtype, ggamma.dtype, gbeta.dtype) == (x_dtype, p_dtype, p_dtype)
    # The same gradients as an all-float64 computation, to the precision of x's dtype.
    ref = [chainlite.Variable(a) for a in (x.array.astype(numpy.float64), gamma64, beta64)]
    y_ref = group_normalization(ref[0], 2, ref[1], ref[2])
    expected = chainlite.grad([y_ref], ref, [gy64.astype(x_dtype).astype(numpy.float64)])
    for got, want in zip((gx, ggamma, gbeta), expected):
        numpy.testing.assert_allclose(got.array, want.array, atol=5e-2, rtol=5e-2)
    # Second order: the gradient of gx flows back to every input, each in its own dtype.
    gx2, ggamma2 = chainlite.grad([gx], [x, gamma], [numpy.ones_like(gx.array)])
    assert (gx2.dtype, ggamma2.dtype) == (x_dtype, p_dtype)


def test_arrays_and_variables_accepted():
    x, gamma, beta = _arrays((2, 4, 3))
    y1 = group_normalization(x, 2, gamma, beta)
    y2 = group_normalization(chainlite.Variable(x), 2, chainlite.Variable(gamma), beta)
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)


MSG = re.escape('Invalid operation is performed in: GroupNormalization (Forward)')


@pytest.mark.parametrize('x, gamma, beta', [
    (numpy.ones((2, 4, 3), numpy.int32), numpy.ones(4), numpy.ones(4)),
    (numpy.ones((4,)), numpy.ones(4), numpy.ones(4)),                  # no channel axis
    (numpy.ones((2, 4, 3)), numpy.ones(3), numpy.ones(3)),             # channels differ
    (numpy.ones((2, 4, 3)), numpy.ones(4), numpy.ones(2)),
    (numpy.ones((2, 4, 3)), numpy.ones(4, numpy.float32), numpy.ones(4)),
])
def test_invalid_inputs(x, gamma, beta):
    with pytest.raises(type_check.InvalidType, match=MSG):
        group_normalization(x, 2, gamma, beta)


def test_groups_must_divide_channels():
    with pytest.raises(ValueError, match='GroupNormalization'):
        group_normalization(*_arrays((2, 4, 3))[:1], 3, *_arrays((2, 4, 3))[1:])


@pytest.mark.parametrize('groups, error', [(2.0, TypeError), (True, TypeError),
                                           (0, ValueError)])
def test_bad_groups(groups, error):
    x, gamma, beta = _arrays((2, 4, 3))
    with pytest.raises(error, match='groups'):
        group_normalization(x, groups, gamma, beta)


@pytest.mark.parametrize('eps', [1e-5, 1e-1])
def test_mul_inv_std_helper(eps):
    # Chainer's backward helper: z = inv_std(x)[:, None] * y, differentiable in x through
    # inv_std, with inv_std given as computed from x.
    from chainlite.functions.normalization.group_normalization import _MulInvStd
    from chainlite.testing import gradients
    rs = numpy.random.RandomState(1)
    x, y = rs.uniform(-1, 1, (2, 5, 4)).astype(numpy.float64)

    def f(x, y):
        inv_std = (x.array.var(axis=1) + eps) ** -0.5
        return _MulInvStd(eps, x.array.mean(axis=1), inv_std, None).apply((x, y))[0]

    z = f(chainlite.Variable(x), chainlite.Variable(y))
    numpy.testing.assert_allclose(z.array, (x.var(axis=1) + eps)[:, None] ** -0.5 * y)
    gradients.check_grads(f, (x, y), order=2, eps=1e-4, atol=1e-5, rtol=1e-4)
