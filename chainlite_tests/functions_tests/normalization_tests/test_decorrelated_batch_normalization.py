"""decorrelated_batch_normalization (+ fixed_): ZCA whitening against NumPy's eigh,
running statistics, gradients to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients


def _groups(x, groups):
    c = x.shape[1]
    axes = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(axes).reshape(groups, c // groups, -1)


def _ungroup(y, shape):
    axes = (1, 0) + tuple(range(2, len(shape)))
    return y.reshape((shape[1], shape[0]) + tuple(shape[2:])).transpose(axes)


def _zca(x, groups, eps):
    xg = _groups(x.astype(numpy.float64), groups)
    xc = xg - xg.mean(axis=2, keepdims=True)
    cov = xc @ xc.transpose(0, 2, 1) / xg.shape[2] + eps * numpy.eye(xg.shape[1])
    w, v = numpy.linalg.eigh(cov)
    proj = v @ (v.transpose(0, 2, 1) / numpy.sqrt(w)[:, :, None])
    return _ungroup(proj @ xc, x.shape), xg.mean(axis=2), proj


def _x(shape, dtype=numpy.float64, seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(*shape)
    # Correlate neighbouring channels, so the whitening has work to do.
    return (x + 0.5 * numpy.roll(x, 1, axis=1)).astype(dtype)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape, groups', [((20, 4), 1), ((20, 4), 2), ((6, 4, 3), 2),
                                           ((3, 6, 2, 2), 3)])
def test_forward(shape, groups, dtype):
    x = _x(shape, dtype)
    y = F.decorrelated_batch_normalization(x, groups=groups, eps=1e-3)
    assert y.dtype == dtype and y.shape == shape
    tol = 2e-2 if dtype == numpy.float16 else 1e-4
    numpy.testing.assert_allclose(y.array, _zca(x, groups, 1e-3)[0], rtol=tol, atol=tol)


def test_output_is_white():
    y = F.decorrelated_batch_normalization(_x((200, 4)), groups=1, eps=0.0).array
    numpy.testing.assert_allclose(y.T @ y / 200, numpy.eye(4), atol=1e-10)


def test_running_statistics():
    x = _x((10, 4, 2))
    mean, proj = numpy.zeros((2, 2)), numpy.stack([numpy.eye(2)] * 2)
    F.decorrelated_batch_normalization(x, groups=2, eps=1e-3, running_mean=mean,
                                       running_projection=proj, decay=0.7)
    _, batch_mean, batch_proj = _zca(x, 2, 1e-3)
    m = 20
    numpy.testing.assert_allclose(mean, 0.3 * batch_mean)
    numpy.testing.assert_allclose(proj, 0.7 * numpy.eye(2) + 0.3 * m / (m - 1) * batch_proj)


@pytest.mark.parametrize('shape, groups', [((6, 2), 1), ((4, 4, 2), 2)])
def test_gradients(shape, groups):
    gradients.check_grads(
        lambda x: F.decorrelated_batch_normalization(x, groups=groups, eps=0.1), _x(shape))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_fixed_forward(dtype):
    x = _x((5, 4, 3), dtype)
    rng = numpy.random.RandomState(1)
    mean = rng.randn(2, 2).astype(dtype)
    proj = rng.randn(2, 2, 2).astype(dtype)
    y = F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=2)
    assert y.dtype == dtype
    xg = _groups(x.astype(numpy.float64), 2)
    expected = _ungroup(proj.astype(numpy.float64) @ (xg - mean[:, :, None]), x.shape)
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_fixed_gradients():
    rng = numpy.random.RandomState(2)
    gradients.check_grads(
        lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=2),
        (_x((3, 4, 2)), rng.randn(2, 2), rng.randn(2, 2, 2)))


def test_fixed_mixed_dtypes_keep_each_gradient_dtype():
    x = chainlite.Variable(_x((3, 4), numpy.float16))
    mean = chainlite.Variable(numpy.zeros((1, 4), numpy.float32))
    proj = chainlite.Variable(numpy.stack([numpy.eye(4, dtype=numpy.float32)]))
    y = F.fixed_decorrelated_batch_normalization(x, mean, proj, groups=1)
    assert y.dtype == numpy.float16
    F.sum(y).backward()
    assert x.grad.dtype == numpy.float16 and mean.grad.dtype == numpy.float32
    assert proj.grad.dtype == numpy.float32


def test_errors():
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='groups|shape'):
        F.decorrelated_batch_normalization(_x((4, 6)), groups=4)
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='ndim'):
        F.decorrelated_batch_normalization(numpy.zeros(4), groups=1)
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='projection'):
        F.fixed_decorrelated_batch_normalization(_x((3, 4)), numpy.zeros((2, 2)),
                                                 numpy.zeros((2, 3, 3)), groups=2)
