"""max/average/unpooling in 1-d and 3-d, and unpooling_nd: references, gradients, errors."""
import itertools

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _distinct(shape, seed=0):
    # A permutation of well-separated values: no ties in any max-pooling window.
    n = int(numpy.prod(shape))
    return (numpy.random.RandomState(seed).permutation(n) * 0.1 - 0.05 * n).reshape(shape)


def _uniform(shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _windows(dims, k, s, p, cover_all):
    # The index ranges (clipped to the input) of every window along each axis.
    per_axis = []
    for d, kk, ss, pp in zip(dims, k, s, p):
        extra = ss - 1 if cover_all else 0
        n = (d + 2 * pp - kk + extra) // ss + 1
        per_axis.append([(max(i * ss - pp, 0), min(i * ss - pp + kk, d)) for i in range(n)])
    return per_axis


def _pool_reference(x, k, s, p, cover_all, mode):
    nd = x.ndim - 2
    s = k if s is None else s
    k, s, p = ((v,) * nd if isinstance(v, int) else v for v in (k, s, p))
    per_axis = _windows(x.shape[2:], k, s, p, cover_all)
    y = numpy.empty(x.shape[:2] + tuple(len(a) for a in per_axis))
    for idx in itertools.product(*(range(len(a)) for a in per_axis)):
        sl = tuple(slice(*per_axis[i][j]) for i, j in enumerate(idx))
        patch = x[(Ellipsis,) + sl].reshape(x.shape[:2] + (-1,))
        if mode == 'max':
            y[(Ellipsis,) + idx] = patch.max(axis=2)
        else:  # padding counted as zeros
            y[(Ellipsis,) + idx] = patch.sum(axis=2) / numpy.prod(k)
    return y


def _unpool_reference(x, k, s, p, cover_all):
    nd = x.ndim - 2
    s = k if s is None else s
    k, s, p = ((v,) * nd if isinstance(v, int) else v for v in (k, s, p))
    out = [ss * (d - 1) + kk - 2 * pp - (ss - 1 if cover_all else 0)
           for d, kk, ss, pp in zip(x.shape[2:], k, s, p)]
    canvas = numpy.zeros(x.shape[:2] + tuple(
        (d - 1) * ss + kk + o for d, ss, kk, o in zip(x.shape[2:], s, k, out)))
    for idx in itertools.product(*(range(d) for d in x.shape[2:])):
        sl = tuple(slice(i * ss, i * ss + kk) for i, ss, kk in zip(idx, s, k))
        canvas[(Ellipsis,) + sl] += x[(Ellipsis,) + tuple(slice(i, i + 1) for i in idx)]
    return canvas[(Ellipsis,) + tuple(slice(pp, pp + o) for pp, o in zip(p, out))]


# (function, input shape, ksize, stride, pad, cover_all)
MAX_CASES = [
    (F.max_pooling_1d, (2, 3, 7), 3, 2, 1, True),
    (F.max_pooling_1d, (2, 3, 7), 2, None, 0, False),
    (F.max_pooling_3d, (1, 2, 3, 4, 5), 2, None, 0, True),
    (F.max_pooling_3d, (1, 2, 4, 3, 4), (2, 3, 2), (1, 2, 2), (1, 1, 0), False),
]
AVG_CASES = [
    (F.average_pooling_1d, (2, 3, 7), 3, 2, 1),
    (F.average_pooling_3d, (1, 2, 4, 3, 4), (2, 3, 2), (1, 2, 2), (1, 1, 0)),
    (F.average_pooling_3d, (1, 2, 4, 4, 4), 2, None, 0),
]
UNPOOL_CASES = [
    (F.unpooling_1d, (2, 3, 4), 2, None, 0, False),
    (F.unpooling_1d, (2, 3, 4), 3, 2, 1, True),
    (F.unpooling_3d, (1, 2, 2, 3, 2), 2, None, 0, True),
    (F.unpooling_3d, (1, 2, 2, 2, 3), (2, 3, 2), (1, 2, 2), (1, 1, 0), False),
    (F.unpooling_nd, (1, 2, 2, 2, 2, 2), 2, None, 0, False),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('fn, shape, k, s, p, cover_all', MAX_CASES)
def test_max_forward(fn, shape, k, s, p, cover_all, dtype):
    x = _distinct(shape).astype(dtype)
    y = fn(x, k, s, p, cover_all)
    assert y.dtype == dtype
    expected = _pool_reference(x.astype(numpy.float64), k, s, p, cover_all, 'max')
    numpy.testing.assert_allclose(y.array, expected.astype(dtype))


@pytest.mark.parametrize('fn, shape, k, s, p, cover_all', MAX_CASES)
def test_max_gradients(fn, shape, k, s, p, cover_all):
    x = _distinct(shape)
    y = fn(x, k, s, p, cover_all)
    gy, ggx = _uniform(y.shape, 1), _uniform(shape, 2)
    gradient_check.check_backward(lambda x: fn(x, k, s, p, cover_all), (x,), (gy,))
    gradient_check.check_double_backward(
        lambda x: fn(x, k, s, p, cover_all), (x,), (gy,), (ggx,))


def test_max_return_indices():
    x = _distinct((2, 3, 6))
    y, indexes = F.max_pooling_1d(x, 2, return_indices=True)
    numpy.testing.assert_array_equal(indexes, x.reshape(2, 3, 3, 2).argmax(axis=3))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('fn, shape, k, s, p', AVG_CASES)
def test_average_forward(fn, shape, k, s, p, dtype):
    x = _uniform(shape).astype(dtype)
    y = fn(x, k, s, p)
    assert y.dtype == dtype
    expected = _pool_reference(x.astype(numpy.float64), k, s, p, False, 'mean')
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize('fn, shape, k, s, p', AVG_CASES)
def test_average_gradients(fn, shape, k, s, p):
    x = _uniform(shape)
    y = fn(x, k, s, p)
    gy, ggx = _uniform(y.shape, 1), _uniform(shape, 2)
    gradient_check.check_backward(lambda x: fn(x, k, s, p), (x,), (gy,))
    gradient_check.check_double_backward(lambda x: fn(x * x, k, s, p), (x,), (gy,), (ggx,))


def test_average_pad_value_none():
    x = numpy.array([[[1., 3., 5.]]])
    numpy.testing.assert_allclose(
        F.average_pooling_1d(x, 2, 1, 1, pad_value=None).array, [[[1., 2., 4., 5.]]])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('fn, shape, k, s, p, cover_all', UNPOOL_CASES)
def test_unpooling_forward(fn, shape, k, s, p, cover_all, dtype):
    x = _uniform(shape).astype(dtype)
    y = fn(chainlite.Variable(x), k, s, p, None, cover_all)
    assert y.dtype == dtype
    expected = _unpool_reference(x.astype(numpy.float64), k, s, p, cover_all)
    assert y.shape == expected.shape
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize('fn, shape, k, s, p, cover_all', UNPOOL_CASES)
def test_unpooling_gradients(fn, shape, k, s, p, cover_all):
    x = _uniform(shape)
    y = fn(x, k, s, p, None, cover_all)
    gy, ggx = _uniform(y.shape, 1), _uniform(shape, 2)
    gradient_check.check_backward(lambda x: fn(x, k, s, p, None, cover_all), (x,), (gy,))
    gradient_check.check_double_backward(
        lambda x: fn(x * x, k, s, p, None, cover_all), (x,), (gy,), (ggx,))


def test_unpooling_outsize():
    x = _uniform((1, 1, 3))
    y = F.unpooling_1d(x, 2, outsize=(7,), cover_all=False)
    assert y.shape == (1, 1, 7)
    numpy.testing.assert_allclose(y.array[..., :6], numpy.repeat(x, 2, axis=2))
    assert y.array[0, 0, 6] == 0
    with pytest.raises(type_check.InvalidType):
        F.unpooling_1d(x, 2, outsize=(9,), cover_all=False)


def test_unpooling_inverts_pooling_shape():
    x = _uniform((1, 2, 2, 3, 2))
    y = F.unpooling_3d(x, 2, cover_all=False)
    assert F.max_pooling_3d(y, 2, cover_all=False).shape == x.shape


@pytest.mark.parametrize('fn, nd', [
    (F.max_pooling_1d, 1), (F.max_pooling_3d, 3), (F.average_pooling_1d, 1),
    (F.average_pooling_3d, 3), (F.unpooling_1d, 1), (F.unpooling_3d, 3)])
def test_wrong_ndim(fn, nd):
    x = numpy.zeros((1, 1, 4, 4))
    with pytest.raises(ValueError, match=fn.__name__ + '.*{} dimensions'.format(nd + 2)):
        fn(x, 2)


def test_integer_input_rejected():
    with pytest.raises(type_check.InvalidType):
        F.unpooling_nd(numpy.zeros((1, 1, 2), numpy.int32), 2)


@pytest.mark.parametrize('fn, shape', [
    (F.unpooling_nd, (2, 3, 3, 2)), (F.unpooling_2d, (2, 3, 3, 2)), (F.unpooling_1d, (1, 2, 2))])
def test_unpooling_empty_output_allowed(fn, shape):
    # ksize 1 with pad 1 takes two pixels off an axis of 2: an empty axis, as in Chainer.
    x = chainlite.Variable(_uniform(shape))
    y = fn(x, 1, 1, 1, cover_all=False)
    assert y.shape == shape[:2] + tuple(d - 2 for d in shape[2:])
    y.grad = numpy.zeros(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 0)
    with pytest.raises(type_check.InvalidType):     # a negative size stays invalid
        fn(_uniform(shape[:-1] + (1,)), 1, 1, 1, cover_all=False)
