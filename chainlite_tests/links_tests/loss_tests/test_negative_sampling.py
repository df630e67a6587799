"""NegativeSampling link: Chainer's parameter, sampler and call; matches the function."""
import io

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import serializers

COUNTS = [10, 5, 2, 5, 2]


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_parameter_and_sampler(dtype):
    with chainlite.using_config('dtype', dtype):
        link = L.NegativeSampling(3, COUNTS, 2)
    assert [(n, p.shape, p.dtype) for n, p in link.namedparams()] == [('/W', (5, 3), dtype)]
    assert (link.W.array == 0).all()
    numpy.random.seed(0)
    draws = link.sampler.sample((100000,))
    p = numpy.array(COUNTS, numpy.float64) ** 0.75
    numpy.testing.assert_allclose(numpy.bincount(draws, minlength=5) / draws.size,
                                  p / p.sum(), atol=5e-3)


@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_forward_matches_function(reduce):
    link = L.NegativeSampling(3, COUNTS, 2, power=0.5)
    rs = numpy.random.RandomState(0)
    link.W.array[...] = rs.uniform(-1, 1, link.W.shape)
    x = chainlite.Variable(rs.uniform(-1, 1, (4, 3)).astype(numpy.float32))
    t = numpy.array([0, 1, -1, 4], numpy.int32)
    y, samples = link(x, t, reduce=reduce, return_samples=True)
    assert samples.shape == (4, 3)
    expect = F.negative_sampling(x, t, link.W.array, lambda s: samples.copy(), 2, reduce)
    numpy.testing.assert_allclose(y.array, expect.array, rtol=1e-6)
    link.cleargrads()
    F.sum(y).backward()
    assert x.grad.shape == (4, 3) and link.W.grad.shape == (5, 3)


def test_serialization_key():
    link = L.NegativeSampling(3, COUNTS, 2)
    link.W.array[...] = 1.5
    buf = io.BytesIO()
    serializers.save_npz(buf, link)
    buf.seek(0)
    assert sorted(numpy.load(buf).files) == ['W']
    buf.seek(0)
    other = L.NegativeSampling(3, COUNTS, 2)
    serializers.load_npz(buf, other)
    assert (other.W.array == 1.5).all()
