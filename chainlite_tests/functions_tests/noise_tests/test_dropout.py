"""dropout: a random mask scaled by 1 / (1 - ratio) in training, the identity in test mode."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.noise.dropout import dropout
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _x(shape, dtype=numpy.float64, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('ratio', [0.0, 0.3, 0.5, 0.9])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, ratio):
    x = _x(shape, dtype)
    numpy.random.seed(3)
    y, mask = dropout(chainlite.Variable(x), ratio, return_mask=True)
    # The same draw from NumPy's global random state as Chainer's.
    numpy.random.seed(3)
    flag = numpy.random.rand(*shape) >= ratio
    scale = dtype(1 / (1 - ratio))
    assert y.dtype == dtype and y.shape == shape
    assert isinstance(mask, numpy.ndarray) and mask.dtype == dtype and mask.shape == shape
    numpy.testing.assert_array_equal(mask, flag * scale)
    numpy.testing.assert_array_equal(y.array, x * (flag * scale))


def test_ratio_is_respected_on_average():
    numpy.random.seed(0)
    y = dropout(numpy.ones((100, 100), numpy.float32), 0.3)
    assert abs((y.array == 0).mean() - 0.3) < 0.02
    assert set(numpy.unique(y.array)) == {0.0, numpy.float32(1 / 0.7)}


def test_seed_makes_it_reproducible():
    x = _x((4, 5))
    numpy.random.seed(1)
    y1 = dropout(x)
    numpy.random.seed(1)
    y2 = dropout(x)
    numpy.testing.assert_array_equal(y1.array, y2.array)


def test_given_mask_is_used_and_ratio_ignored():
    x = _x((2, 3))
    mask = numpy.array([[0.0, 2.0, 0.5], [1.0, 0.0, 3.0]])
    y, m = dropout(x, 0.9, mask=mask, return_mask=True)
    numpy.testing.assert_array_equal(y.array, x * mask)
    assert m is mask


def test_returned_mask_can_be_passed_again():
    x = chainlite.Variable(_x((3, 4), numpy.float32))
    y1, mask = dropout(x, return_mask=True)
    y2 = dropout(x, mask=mask)
    numpy.testing.assert_array_equal(y1.array, y2.array)


def test_mask_of_another_dtype_is_cast():
    x = _x((2, 3), numpy.float32)
    y = dropout(x, mask=numpy.ones((2, 3), bool))
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, x)


@pytest.mark.parametrize('shape', SHAPES)
def test_test_mode_is_identity(shape):
    x = chainlite.Variable(_x(shape))
    with chainlite.using_config('train', False):
        y = dropout(x, 0.5)
        y2, mask = dropout(x.array, 0.5, return_mask=True)
    assert y is x
    assert mask is None
    assert isinstance(y2, chainlite.Variable) and y2.array is x.array


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    # The mask is fixed: a linear function of x.
    x, gy = _x(shape), _x(shape, seed=1)
    mask = dropout(x, return_mask=True)[1]
    gradient_check.check_backward(lambda x: dropout(x, mask=mask), x, gy)


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _x(shape), _x(shape, seed=1), _x(shape, seed=2)
    mask = dropout(x, return_mask=True)[1]
    gradient_check.check_double_backward(lambda x: dropout(x, mask=mask) ** 2, x, gy, ggx)


def test_backward_uses_the_forward_mask():
    x = chainlite.Variable(_x((3, 4)))
    y, mask = dropout(x, return_mask=True)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, mask)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_x((2, 3), dtype))
    y = dropout(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


@pytest.mark.parametrize('ratio', [-0.1, 1.0, 1.5])
def test_bad_ratio(ratio):
    with pytest.raises(ValueError, match='dropout_ratio'):
        dropout(numpy.ones(3), ratio)


MSG = re.escape('Invalid operation is performed in: Dropout (Forward)')


def test_non_float_input():
    with pytest.raises(type_check.InvalidType, match=MSG):
        dropout(numpy.ones(3, numpy.int32))


def test_mask_of_wrong_shape():
    with pytest.raises(type_check.InvalidType, match=MSG):
        dropout(numpy.ones((2, 3)), mask=numpy.ones((3, 2)))
