"""Initializers on a GPU array module: drawn on the device, with the CPU's dtypes and values.

The stand-in CuPy draws NumPy's global random numbers, so a seed gives the CPU's values; on
real CuPy (``CHAINLITE_TEST_GPU=1``) only the deterministic initializers are compared.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.links as L
from chainlite import initializers as I

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
DTYPES = [numpy.float16, numpy.float32, numpy.float64]

INITIALIZERS = {
    'Constant': (lambda: I.Constant(2.5), (2, 3)),
    'Constant(array)': (lambda: I.Constant(numpy.arange(3.0)), (2, 3)),
    'Zero': (I.Zero, (2, 3)),
    'One': (I.One, (2, 3)),
    'NaN': (I.NaN, (2, 3)),
    'Identity': (lambda: I.Identity(2.0), (3, 3)),
    'UpsamplingDeconvFilter': (I.UpsamplingDeconvFilter, (2, 2, 4, 4)),
    'DownsamplingConvFilter': (I.DownsamplingConvFilter, (2, 1, 3, 3)),
    'Normal': (lambda: I.Normal(0.5), (3, 4)),
    'Uniform': (lambda: I.Uniform(0.5), (3, 4)),
    'LeCunNormal': (I.LeCunNormal, (3, 4, 2)),
    'GlorotNormal': (I.GlorotNormal, (3, 4)),
    'HeNormal': (lambda: I.HeNormal(fan_option='fan_out'), (3, 4)),
    'LeCunUniform': (I.LeCunUniform, (3, 4)),
    'GlorotUniform': (I.GlorotUniform, (3, 4)),
    'HeUniform': (I.HeUniform, (3, 4)),
    'Orthogonal': (I.Orthogonal, (3, 5)),
    'Orthogonal(tall)': (lambda: I.Orthogonal(scale=1.0), (5, 2, 1)),
}
RANDOM = {'Normal', 'Uniform', 'LeCunNormal', 'GlorotNormal', 'HeNormal', 'LeCunUniform',
          'GlorotUniform', 'HeUniform', 'Orthogonal', 'Orthogonal(tall)'}


def test_every_initializer_is_listed():
    classes = {name for name in dir(I) if isinstance(getattr(I, name), type)
               and issubclass(getattr(I, name), chainlite.Initializer)
               and getattr(I, name) is not chainlite.Initializer}
    assert classes == {name.split('(')[0] for name in INITIALIZERS}


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('name', sorted(INITIALIZERS))
@pytest.mark.parametrize('device', ['@cupy:0', 'last', None])
def test_generate_array_on_gpu_matches_cpu(name, dtype, device, gpu_xp):
    make, shape = INITIALIZERS[name]
    if device == 'last':  # GPU 1 on the stand-in, 0 on a machine with one GPU
        device = '@cupy:%d' % _last_gpu(gpu_xp)
    numpy.random.seed(0)
    expected = I.generate_array(make(), shape, numpy, dtype=dtype)
    numpy.random.seed(0)
    actual = I.generate_array(make(), shape, gpu_xp, dtype=dtype, device=device)
    assert isinstance(actual, gpu_xp.ndarray)
    assert actual.dtype == expected.dtype == numpy.dtype(dtype) and actual.shape == shape
    assert actual.device.id == (0 if device is None else int(device[-1]))
    if REAL_GPU and name in RANDOM:
        return
    numpy.testing.assert_array_equal(actual.get(), expected)


def _last_gpu(xp):
    return xp.cuda.runtime.getDeviceCount() - 1


def test_generate_array_refuses_a_device_of_another_module(gpu_xp):
    with pytest.raises(ValueError, match='does not hold arrays of'):
        I.generate_array(I.Zero(), (2,), numpy, device='@cupy:0')
    with pytest.raises(ValueError, match='does not hold arrays of'):
        I.generate_array(I.Zero(), (2,), gpu_xp, device='@numpy')


def test_initializers_fill_gpu_arrays_in_place(gpu_xp):
    a = gpu_xp.empty((3, 3), numpy.float32)
    I.Identity(3.0)(a)
    numpy.testing.assert_array_equal(a.get(), numpy.eye(3, dtype=numpy.float32) * 3)
    numpy.random.seed(1)
    I.Normal(2.0)(a)
    numpy.random.seed(1)
    b = numpy.empty((3, 3), numpy.float32)
    I.Normal(2.0)(b)
    if not REAL_GPU:
        numpy.testing.assert_array_equal(a.get(), b)


def test_a_numpy_generator_fills_a_gpu_array(gpu_xp):
    # The user's RandomState draws on the host; its numbers are copied to the device.
    for make in (lambda rng: I.Normal(0.3, rng=rng), lambda rng: I.Uniform(rng=rng),
                 lambda rng: I.HeNormal(rng=rng), lambda rng: I.Orthogonal(rng=rng)):
        a = gpu_xp.empty((4, 3), numpy.float32)
        make(numpy.random.RandomState(5))(a)
        b = numpy.empty((4, 3), numpy.float32)
        make(numpy.random.RandomState(5))(b)
        assert isinstance(a, gpu_xp.ndarray)
        numpy.testing.assert_allclose(a.get(), b, rtol=1e-6, atol=1e-7)


def test_constant_of_a_gpu_array(gpu_xp):
    # As Chainer, a GPU array is a constant's value too, filling arrays on any device.
    value = gpu_xp.asarray(numpy.arange(3.0))
    init = I.Constant(value)
    host = I.generate_array(init, (2, 3), numpy)
    assert isinstance(host, numpy.ndarray) and host.dtype == numpy.float32
    numpy.testing.assert_array_equal(host, [[0, 1, 2]] * 2)
    last = _last_gpu(gpu_xp)
    other = I.generate_array(init, (2, 3), gpu_xp, dtype=numpy.float16, device=last)
    assert other.device.id == last and other.dtype == numpy.float16
    numpy.testing.assert_array_equal(other.get(), [[0, 1, 2]] * 2)
    with pytest.raises(ValueError, match='cannot fill'):
        I.generate_array(I.Constant(numpy.arange(4.0)), (2, 3), gpu_xp)
    # Links take one as initialW.
    layer = L.Linear(3, 2, initialW=gpu_xp.ones((2, 3), numpy.float32))
    numpy.testing.assert_array_equal(layer.W.array, numpy.ones((2, 3)))


def test_uninitialised_parameter_draws_on_its_device(gpu_xp):
    p = chainlite.Parameter(I.HeNormal(dtype=numpy.float16))
    last = _last_gpu(gpu_xp)
    p.to_device(last)
    numpy.random.seed(4)
    p.initialize((3, 4))
    assert isinstance(p.array, gpu_xp.ndarray) and p.array.device.id == last
    assert p.dtype == numpy.float16
    assert isinstance(p.grad, gpu_xp.ndarray) and numpy.isnan(p.grad.get()).all()
    numpy.random.seed(4)
    expected = I.generate_array(I.HeNormal(dtype=numpy.float16), (3, 4), numpy)
    if not REAL_GPU:
        numpy.testing.assert_array_equal(p.array.get(), expected)
