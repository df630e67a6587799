"""rrelu: slopes drawn in [l, u) in training, their mean at test time, gradients to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _away(shape, seed=0):
    # Values in ±[0.2, 1]: away from the kink at 0.
    rng = numpy.random.RandomState(seed)
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 1.0, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(), (3,), (2, 3, 4)])
def test_forward_with_given_r(shape, dtype):
    x = _away(shape).astype(dtype)
    r = numpy.random.RandomState(1).uniform(0.1, 0.3, shape).astype(dtype)
    y, r_used = F.rrelu(x, r=r, return_r=True)
    assert y.dtype == dtype and y.shape == shape
    assert r_used is r
    numpy.testing.assert_array_equal(y.array, numpy.where(x >= 0, x, x * r))


def test_training_draws_slopes_in_range():
    x = -numpy.ones((1000,), numpy.float32)
    y, r = F.rrelu(x, 0.2, 0.3, return_r=True)
    assert r.dtype == numpy.float32 and r.shape == x.shape
    assert (r >= 0.2).all() and (r < 0.3).all() and r.std() > 0
    numpy.testing.assert_array_equal(y.array, -r)


def test_test_mode_uses_the_mean_slope():
    x = numpy.array([-2.0, 3.0], numpy.float32)
    with chainlite.using_config('train', False):
        y, r = F.rrelu(x, 0.1, 0.3, r=numpy.full(2, 0.9, numpy.float32), return_r=True)
    numpy.testing.assert_allclose(y.array, [-0.4, 3.0], rtol=1e-6)
    numpy.testing.assert_allclose(r, 0.2, rtol=1e-6)


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
def test_gradients(shape):
    r = numpy.random.RandomState(2).uniform(0.1, 0.3, shape)
    gradients.check_grads(lambda x: F.rrelu(x, r=r), _away(shape))


def test_gradient_dtype_and_values():
    x = chainlite.Variable(numpy.array([-1.0, 2.0], numpy.float32))
    r = numpy.array([0.25, 0.125], numpy.float32)
    y = F.rrelu(x, r=r)
    y.grad = numpy.ones(2, numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, [0.25, 1.0])


@pytest.mark.parametrize('l, u', [(-0.1, 0.3), (0.2, 1.0), (0.3, 0.3), (0.4, 0.2)])
def test_bad_bounds(l, u):  # noqa: E741
    with pytest.raises(ValueError, match='rrelu'):
        F.rrelu(numpy.zeros(2, numpy.float32), l, u)


def test_bad_r_shape_and_dtype():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='r.shape'):
        F.rrelu(x, r=numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='r.dtype'):
        F.rrelu(x, r=numpy.zeros((2, 3), numpy.float64))
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.rrelu(numpy.zeros(3, numpy.int32))
