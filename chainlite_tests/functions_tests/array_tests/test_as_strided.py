"""as_strided: views of the owner's memory in element strides; gradients sum shared memory."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.functions.array.as_strided import _stride_array
from chainlite.testing import gradients


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64, numpy.int32])
def test_views(dtype):
    x = numpy.arange(12, dtype=dtype).reshape(3, 4)
    numpy.testing.assert_array_equal(F.as_strided(x, (12,), (1,), 0).array, numpy.arange(12))
    numpy.testing.assert_array_equal(F.as_strided(x, (2, 3, 4), (0, 4, 1), 0).array,
                                     numpy.broadcast_to(x, (2, 3, 4)))
    flipped = F.as_strided(chainlite.Variable(x), (4,), (-1,), 3)
    assert flipped.dtype == dtype
    numpy.testing.assert_array_equal(flipped.array, [3, 2, 1, 0])
    # A view reads its owner's memory: x[1:] with offset 0 starts at x[0].
    numpy.testing.assert_array_equal(F.as_strided(x[1:], (2,), (1,), 0).array, [0, 1])
    # storage_offset None: where x starts.
    numpy.testing.assert_array_equal(F.as_strided(x[1:], (2,), (4,)).array, [4, 8])


def test_stride_array_is_a_view():
    x = numpy.arange(8.0)
    y = _stride_array(x, (3, 3), (-1, 2), 3)
    numpy.testing.assert_array_equal(y, [[3, 5, 7], [2, 4, 6], [1, 3, 5]])
    assert numpy.shares_memory(x, y)


def _grad(x_view, shape, strides, offset, gy):
    v = chainlite.Variable(x_view)
    y = F.as_strided(v, shape, strides, offset)
    gx, = chainlite.grad([y], [v], grad_outputs=[gy])
    return gx.array


def test_gradients_sum_and_split_shared_memory():
    x = numpy.arange(12.0).reshape(3, 4)
    numpy.testing.assert_array_equal(
        _grad(x, (2, 3, 4), (0, 4, 1), 0, numpy.ones((2, 3, 4))), numpy.full((3, 4), 2.0))
    base = numpy.arange(8.0)
    view = _stride_array(base, (3, 3), (-1, 2), 3)  # memory 3 and 5 appear twice in it
    gx = _grad(view, (3, 3), (1, 2), 0, numpy.ones((3, 3)))
    numpy.testing.assert_allclose(gx, [[0.5, 0.5, 0.0], [2.0, 2.0, 1.0], [1.0, 0.5, 0.5]])


def test_backward_and_double_backward():
    rs = numpy.random.RandomState(0)
    x = rs.uniform(-1, 1, (3, 4))
    gradients.check_grads(lambda x: F.as_strided(x, (3, 2, 2), (4, 1, 2), 0), x, order=2)
    gradients.check_grads(lambda x: F.as_strided(x, (5,), (-2,), 10) * x[0, :1], x, order=2)


def test_non_float_gradient_raises():
    v = chainlite.Variable(numpy.arange(4, dtype=numpy.int32))
    y = F.as_strided(v, (4,), (-1,), 3)
    with pytest.raises(TypeError, match='only float arrays have gradients'):
        chainlite.grad([y], [v], grad_outputs=[numpy.ones(4, numpy.int32)])


def test_errors():
    x = numpy.arange(8.0)
    with pytest.raises(ValueError, match='before the start'):
        F.as_strided(x, (3, 3), (-1, 2), 1)
    with pytest.raises(ValueError, match='past the 8 elements'):
        F.as_strided(x, (3,), (4,), 0)
    with pytest.raises(ValueError, match='same length'):
        F.as_strided(x, (3,), (1, 1), 0)
    with pytest.raises(TypeError, match='numpy.ndarray'):
        _stride_array([1.0], (1,), (1,), 0)
