"""Bugs on GPU arrays found by running Chainer 7.8.1's own GPU function tests on the stand-in.

Each test computes the same thing on the CPU and on the GPU (the strict CuPy stand-in) and
checks that the GPU results are GPU arrays on the inputs' GPU and equal the CPU's.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.backends import cuda


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
