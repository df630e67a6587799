"""copy: CPU device specifiers, a real copy, gradients, dtypes and unknown devices."""
import numpy
import pytest

import chainlite
from chainlite import backend
from chainlite import gradient_check
from chainlite.functions.array.copy import copy

SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
DSTS = [-1, '@numpy', backend.CpuDevice(), numpy]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Copying is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dst', DSTS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, dst):
    x = _uniform(shape, dtype)
    y = copy(chainlite.Variable(x), dst)
    assert y.shape == shape
    assert y.dtype == dtype
    assert isinstance(y.array, numpy.ndarray)
    numpy.testing.assert_array_equal(y.array, x)
    assert not numpy.shares_memory(y.array, x)  # a copy, not a view


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(lambda x: copy(x, -1), (_uniform(shape),),
                                  (_uniform(shape, seed=1),))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: copy(x, '@numpy'), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: copy(x * x, -1), (x,), (gy,), (ggx,))


def test_writing_the_copy_leaves_the_input_alone():
    x = numpy.zeros(3)
    y = copy(x, -1)
    y.array[0] = 1.0
    numpy.testing.assert_array_equal(x, numpy.zeros(3))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = copy(x, -1)
    assert y.dtype == numpy.float32
    y.grad = numpy.full((2, 3), 2.0, numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 3), 2.0))


def test_array_input_and_integer_array():
    y = copy(numpy.arange(3), dst=-1)
    assert isinstance(y, chainlite.Variable)
    assert y.dtype == numpy.arange(3).dtype
    numpy.testing.assert_array_equal(y.array, [0, 1, 2])


@pytest.mark.parametrize('dst', [0, '@cupy:0'])
def test_gpu_device_needs_cuda(dst):
    with pytest.raises(RuntimeError, match='CUDA'):
        copy(numpy.zeros(3), dst)


@pytest.mark.parametrize('dst', ['@tpu', 'gpu'])
def test_unknown_device_is_a_value_error(dst):
    with pytest.raises(ValueError, match='device'):
        copy(numpy.zeros(3), dst)


def test_a_device_that_is_no_specifier_is_a_type_error():
    # As Chainer's get_device: None is neither a device, an integer nor a string.
    with pytest.raises(TypeError, match='device specifier'):
        copy(numpy.zeros(3), None)


def test_cuda_dummy_device_means_the_cpu():
    from chainlite.backends import cuda
    y = copy(numpy.zeros((2, 3)), cuda.DummyDevice)
    assert y.device == chainlite.get_device('@numpy')
