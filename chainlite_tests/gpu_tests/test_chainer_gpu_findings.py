"""Bugs on GPU arrays found by running Chainer 7.8.1's own GPU function tests on the stand-in.

Each test computes the same thing on the CPU and on the GPU (the strict CuPy stand-in) and
checks that the GPU results are GPU arrays on the inputs' GPU and equal the CPU's.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.backends import cuda

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'


def _fixed_sampler(xp, high):
    def sampler(shape):
        s = (numpy.arange(int(numpy.prod(shape))) % high).reshape(shape).astype(numpy.int32)
        return xp.asarray(s)
    return sampler


@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('labels', [[0, 2], [-1, 1, 2]])
def test_negative_sampling_on_a_gpu_other_than_the_current(gpu_xp, reduce, dtype, labels):
    # The inputs and the sampler's draws live on GPU 1 while GPU 0 is current: the samples
    # and the loss's constants must be made on GPU 1 (CuPy refuses to mix the two).
    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (len(labels), 3)).astype(dtype)
    t = numpy.array(labels, numpy.int32)
    W = rng.uniform(-1, 1, (5, 3)).astype(dtype)
    y_cpu, s_cpu = F.negative_sampling(x, t, W, _fixed_sampler(numpy, 5), 2,
                                       reduce=reduce, return_samples=True)
    with gpu_xp.cuda.Device(1):
        xg, tg, Wg = (gpu_xp.asarray(a) for a in (x, t, W))
        sampler = _fixed_sampler(gpu_xp, 5)
    xv, Wv = chainlite.Variable(xg), chainlite.Variable(Wg)
    assert cuda.Device().id == 0
    y, s = F.negative_sampling(xv, tg, Wv, sampler, 2, reduce=reduce, return_samples=True)
    assert isinstance(y.array, gpu_xp.ndarray) and y.array.device.id == 1
    assert isinstance(s, gpu_xp.ndarray) and s.device.id == 1
    assert y.dtype == dtype and s.dtype == numpy.int32
    numpy.testing.assert_array_equal(s.get(), s_cpu)
    numpy.testing.assert_allclose(y.array.get(), y_cpu.array, rtol=1e-6, atol=1e-6)
    # Backward on GPU 1 too, against the CPU's gradients.
    xc, Wc = chainlite.Variable(x), chainlite.Variable(W)
    F.sum(F.negative_sampling(xc, t, Wc, _fixed_sampler(numpy, 5), 2, reduce=reduce)).backward()
    F.sum(y).backward()
    assert xv.grad.device.id == 1 and Wv.grad.device.id == 1
    numpy.testing.assert_allclose(xv.grad.get(), xc.grad, rtol=1e-6, atol=1e-6)
    numpy.testing.assert_allclose(Wv.grad.get(), Wc.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64, numpy.int32])
def test_as_strided_of_a_strided_gpu_view(gpu_xp, dtype):
    # A view made by as_strided (negative strides, an offset) is measured within the memory
    # it shares with its array, on the GPU as on the CPU (CuPy's strided views have no base;
    # a copy was measured instead and the offsets were lost).
    from chainlite.functions.array.as_strided import TensorGeometry, _stride_array
    results = []
    for xp in (numpy, gpu_xp):
        x = _stride_array(xp.arange(8, dtype=dtype), (3, 3), (-1, 2), 3)
        geo = TensorGeometry(x)
        assert (geo.strides, geo.storage_offset) == ((-1, 2), 3)
        y = F.as_strided(chainlite.Variable(x), (3, 3), (1, 2), 0)
        assert isinstance(y.array, xp.ndarray)
        results.append(cuda.to_cpu(y.array))
    numpy.testing.assert_array_equal(results[0], results[1])
    numpy.testing.assert_array_equal(results[1], [[0, 2, 4], [1, 3, 5], [2, 4, 6]])


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_as_strided_gradient_of_a_strided_gpu_view(gpu_xp, dtype):
    from chainlite.functions.array.as_strided import _stride_array
    grads = []
    for xp in (numpy, gpu_xp):
        v = chainlite.Variable(_stride_array(xp.arange(8, dtype=dtype), (3, 3), (-1, 2), 3))
        y = F.as_strided(v, (3, 3), (1, 2), 0)
        y.grad = xp.ones(y.shape, dtype)
        gx, = chainlite.grad((y,), (v,))
        assert isinstance(gx.array, xp.ndarray) and gx.dtype == dtype
        grads.append(cuda.to_cpu(gx.array))
    numpy.testing.assert_array_equal(grads[0], grads[1])
    numpy.testing.assert_array_equal(grads[1], [[0.5, 0.5, 0], [2, 2, 1], [1, 0.5, 0.5]])


def test_stand_in_memory_pointer_has_its_allocation(gpu_xp):
    # CuPy's MemoryPointer.mem: the allocation a view lives in (what as_strided measures).
    a = gpu_xp.arange(8, dtype=numpy.float32)
    v = a[3:]
    assert v.data.mem.ptr == a.data.ptr and v.data.mem.size == a.nbytes
    assert v.data.ptr - v.data.mem.ptr == 12


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_upsampling_2d_of_a_gpu_input_with_host_indexes(gpu_xp, dtype):
    # Chainer sends host (NumPy) pooling indexes to the input's GPU; they were given to the
    # GPU computation as they were and refused there.
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, (2, 3, 6, 8)).astype(dtype)
    pooled, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    assert isinstance(indexes, numpy.ndarray)
    gy = rng.uniform(-1, 1, x.shape).astype(dtype)
    ggx = rng.uniform(-1, 1, pooled.shape).astype(dtype)
    outs = []
    for xp in (numpy, gpu_xp):
        p = chainlite.Variable(xp.asarray(pooled.array))
        y = F.upsampling_2d(p, indexes, 2, outsize=x.shape[2:])
        gyv = chainlite.Variable(xp.asarray(gy))
        gp, = chainlite.grad((y,), (p,), (gyv,), enable_double_backprop=True)
        # The gradient's own gradient (with respect to gy) is the upsampling again.
        ggy, = chainlite.grad((gp,), (gyv,), (chainlite.Variable(xp.asarray(ggx)),))
        for r in (y, gp, ggy):
            assert isinstance(r.array, xp.ndarray) and r.dtype == dtype
        outs.append([cuda.to_cpu(r.array) for r in (y, gp, ggy)])
    for cpu, gpu in zip(outs[0], outs[1]):
        numpy.testing.assert_array_equal(cpu, gpu)


_OPS = {
    'add': lambda x, c: x + c, 'radd': lambda x, c: c + x, 'sub': lambda x, c: x - c,
    'rsub': lambda x, c: c - x, 'mul': lambda x, c: x * c, 'rmul': lambda x, c: c * x,
    'div': lambda x, c: x / c, 'rdiv': lambda x, c: c / x, 'pow': lambda x, c: x ** c,
    'rpow': lambda x, c: c ** x,
}


@pytest.mark.parametrize('op', sorted(_OPS))
@pytest.mark.parametrize('size', [2, 3])
def test_arithmetic_of_a_cpu_variable_and_a_gpu_array_is_a_type_error(gpu_xp, op, size):
    # Chainer refuses a CPU and a GPU array together with a TypeError, whatever the shapes
    # (a shape mismatch was reported as InvalidType first).
    x = chainlite.Variable(numpy.array([1.0, 2.0], numpy.float32))
    c = gpu_xp.asarray(numpy.arange(1, size + 1, dtype=numpy.float32))
    with pytest.raises(TypeError, match='incompatible array types') as info:
        _OPS[op](x, c)
    assert not isinstance(info.value, chainlite.utils.type_check.InvalidType)
    g = chainlite.Variable(gpu_xp.asarray(numpy.array([1.0, 2.0], numpy.float32)))
    with pytest.raises(TypeError):
        _OPS[op](g, numpy.arange(1, size + 1, dtype=numpy.float32))


@pytest.mark.parametrize('op', sorted(_OPS))
def test_arithmetic_with_a_gpu_array_constant_matches_the_cpu(gpu_xp, op):
    x = numpy.array([1.0, 2.0], numpy.float32)
    c = numpy.array([3.0, 0.5], numpy.float32)
    y_cpu = _OPS[op](chainlite.Variable(x), c)
    xg = chainlite.Variable(gpu_xp.asarray(x))
    y = _OPS[op](xg, gpu_xp.asarray(c))
    assert isinstance(y.array, gpu_xp.ndarray) and y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array.get(), y_cpu.array, rtol=1e-6)


def _cupy_like_inverse(gpu_xp, monkeypatch):
    # CuPy's inverse of a singular matrix does not raise unless asked (cupyx.errstate): it
    # holds infinities or NaNs. The stand-in's (NumPy's) raises; make it answer as CuPy.
    original = gpu_xp.linalg.inv

    def inv(a):
        try:
            return original(a)
        except numpy.linalg.LinAlgError:
            return gpu_xp.full(a.shape, numpy.nan, a.dtype)
    monkeypatch.setattr(gpu_xp.linalg, 'inv', inv)
    if not REAL_GPU:  # the stand-in answers numpy.linalg.inv(gpu_array) from its table
        from chainlite.testing import cupy_stand_in
        monkeypatch.setitem(cupy_stand_in._DISPATCH, numpy.linalg.inv, inv)


@pytest.mark.parametrize('name, shape', [('inv', (2, 2)), ('batch_inv', (3, 2, 2))])
def test_singular_inverse_on_a_gpu_is_checked_in_debug_mode(gpu_xp, monkeypatch, name, shape):
    # As Chainer on a GPU: a singular matrix raises ValueError in debug mode only (the check
    # waits for the device); on the CPU it always raises.
    _cupy_like_inverse(gpu_xp, monkeypatch)
    a = numpy.zeros(shape, numpy.float32)
    with pytest.raises(ValueError, match='singular'):
        getattr(F, name)(a)
    y = getattr(F, name)(gpu_xp.asarray(a))
    assert isinstance(y.array, gpu_xp.ndarray) and not numpy.isfinite(y.array.get()).any()
    with chainlite.using_config('debug', True):
        with pytest.raises(ValueError, match='singular'):
            getattr(F, name)(gpu_xp.asarray(a))
        # A regular matrix passes the check, with the CPU's result.
        b = numpy.eye(2, dtype=numpy.float32) * 2
        b = numpy.broadcast_to(b, shape).copy()
        y = getattr(F, name)(gpu_xp.asarray(b))
        numpy.testing.assert_array_equal(y.array.get(), getattr(F, name)(b).array)
