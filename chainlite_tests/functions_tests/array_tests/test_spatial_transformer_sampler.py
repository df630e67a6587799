"""spatial_transformer_sampler: against a loop of bilinear reads, gradients to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients

TOL = {numpy.float16: 2e-2, numpy.float32: 1e-5, numpy.float64: 1e-12}


def _expected(x, grid):
    # Bilinear reads of x surrounded by one ring of zeros; coordinates beyond it clip.
    x = x.astype(numpy.float64)
    n, c, h, w = x.shape
    padded = numpy.zeros((n, c, h + 2, w + 2))
    padded[:, :, 1:-1, 1:-1] = x
    out = numpy.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        for i in range(grid.shape[2]):
            for j in range(grid.shape[3]):
                u = min(max((grid[b, 0, i, j] + 1) * (w - 1) / 2 + 1, 0), w + 1)
                v = min(max((grid[b, 1, i, j] + 1) * (h - 1) / 2 + 1, 0), h + 1)
                u0, v0 = min(int(numpy.floor(u)), w), min(int(numpy.floor(v)), h)
                du, dv = u - u0, v - v0
                out[b, :, i, j] = (padded[b, :, v0, u0] * (1 - du) * (1 - dv)
                                   + padded[b, :, v0, u0 + 1] * du * (1 - dv)
                                   + padded[b, :, v0 + 1, u0] * (1 - du) * dv
                                   + padded[b, :, v0 + 1, u0 + 1] * du * dv)
    return out


def _inputs(dtype=numpy.float64, lo=-1.4, hi=1.4):
    rng = numpy.random.RandomState(0)
    x = rng.randn(2, 3, 4, 5).astype(dtype)
    grid = rng.uniform(lo, hi, (2, 2, 3, 2)).astype(dtype)
    return x, grid


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward(dtype):
    x, grid = _inputs(dtype, -2.0, 2.0)   # also points beyond the ring of zeros
    y = F.spatial_transformer_sampler(x, grid)
    assert y.dtype == dtype and y.shape == (2, 3, 3, 2)
    numpy.testing.assert_allclose(y.array, _expected(x, grid), atol=TOL[dtype],
                                  rtol=TOL[dtype])


def test_identity_grid_reproduces_the_image():
    x = numpy.random.RandomState(1).randn(1, 2, 3, 4)
    grid = F.spatial_transformer_grid(numpy.array([[[1.0, 0, 0], [0, 1.0, 0]]]), (3, 4))
    numpy.testing.assert_allclose(F.spatial_transformer_sampler(x, grid).array, x,
                                  atol=1e-14)


def test_gradients():
    # Points inside (-1.4, 1.4) are kept off the integer pixel positions, the kinks.
    x, grid = _inputs()
    grid = grid + 0.013
    gradients.check_grads(F.spatial_transformer_sampler, (x, grid))


def test_gradient_dtypes():
    x, grid = (chainlite.Variable(a) for a in _inputs(numpy.float32))
    F.sum(F.spatial_transformer_sampler(x, grid)).backward()
    assert x.grad.dtype == numpy.float32 and grid.grad.dtype == numpy.float32


@pytest.mark.parametrize('bad', ['grid_channels', 'batch', 'dtype', 'ndim'])
def test_bad_inputs(bad):
    x, grid = _inputs()
    if bad == 'grid_channels':
        grid = grid[:, :1]
    elif bad == 'batch':
        grid = grid[:1]
    elif bad == 'dtype':
        grid = grid.astype(numpy.float32)
    else:
        x = x[0]
    with pytest.raises(chainlite.utils.type_check.InvalidType,
                       match='spatial_transformer_sampler'):
        F.spatial_transformer_sampler(x, grid)
