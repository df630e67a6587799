"""F.spatial_transformer_grid: affine maps of the [-1, 1] target grid, against a loop."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.spatial_transformer_grid import spatial_transformer_grid
from chainlite.utils import type_check

# (batch size, output shape)
CASES = [(1, (2, 3)), (3, (4, 4)), (2, (1, 5)), (2, (3, 1)), (0, (2, 2))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _reference(theta, out_shape):
    H, W = out_shape
    grid = numpy.zeros((len(theta), 2, H, W))
    for i in range(H):
        for j in range(W):
            x_t = -1 + 2 * j / (W - 1) if W > 1 else -1.0
            y_t = -1 + 2 * i / (H - 1) if H > 1 else -1.0
            grid[:, :, i, j] = theta @ numpy.array([x_t, y_t, 1.0])
    return grid


def _uniform(shape, dtype=numpy.float64, seed=0):
    # The grid is linear in theta: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n, out_shape', CASES)
def test_forward(n, out_shape, dtype):
    theta = _uniform((n, 2, 3), dtype)
    y = spatial_transformer_grid(chainlite.Variable(theta), out_shape)
    expected = _reference(theta.astype(numpy.float64), out_shape)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_identity_spans_the_corners():
    theta = numpy.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = spatial_transformer_grid(theta, (3, 2)).array[0]
    numpy.testing.assert_array_equal(grid[0], [[-1, 1], [-1, 1], [-1, 1]])
    numpy.testing.assert_array_equal(grid[1], [[-1, -1], [0, 0], [1, 1]])


@pytest.mark.parametrize('n, out_shape', CASES)
def test_backward(n, out_shape):
    theta = _uniform((n, 2, 3))
    gy = _uniform((n, 2) + out_shape, seed=1)
    gradient_check.check_backward(lambda t: spatial_transformer_grid(t, out_shape), (theta,),
                                  (gy,))


@pytest.mark.parametrize('n, out_shape', CASES)
def test_double_backward(n, out_shape):
    theta, ggtheta = _uniform((n, 2, 3)), _uniform((n, 2, 3), seed=2)
    gy = _uniform((n, 2) + out_shape, seed=1)
    for f in (lambda t: spatial_transformer_grid(t, out_shape),
              lambda t: spatial_transformer_grid(t * t, out_shape)):
        gradient_check.check_double_backward(f, (theta,), (gy,), (ggtheta,))


def test_float32_in_float32_out():
    theta = chainlite.Variable(_uniform((2, 2, 3), numpy.float32))
    y = spatial_transformer_grid(theta, (3, 4))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert theta.grad.dtype == numpy.float32


def test_array_input_and_list_shape():
    theta = _uniform((1, 2, 3))
    y = spatial_transformer_grid(theta, output_shape=[2, 2])
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _reference(theta, (2, 2)))


@pytest.mark.parametrize('theta', [numpy.zeros((2, 3)), numpy.zeros((1, 3, 3)),
                                   numpy.zeros((1, 2, 2)), numpy.zeros((1, 2, 3), numpy.int32)],
                         ids=['2-d', '3 rows', '2 columns', 'int'])
def test_invalid_theta_is_invalid_type(theta):
    msg = re.escape('Invalid operation is performed in: SpatialTransformerGrid (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        spatial_transformer_grid(theta, (2, 2))


@pytest.mark.parametrize('shape', [(0, 2), (2,), (2, 2.0)])
def test_bad_output_shape_is_a_value_error(shape):
    with pytest.raises(ValueError, match='spatial_transformer_grid'):
        spatial_transformer_grid(numpy.zeros((1, 2, 3)), shape)
