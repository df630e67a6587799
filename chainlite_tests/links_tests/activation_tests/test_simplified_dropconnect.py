"""SimplifiedDropconnect link: Chainer's parameters and initializer; it wraps the function."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_parameters_and_default_initializer():
    numpy.random.seed(0)
    link = L.SimplifiedDropconnect(400, 300)
    assert sorted((n, p.shape) for n, p in link.namedparams()) == [
        ('/W', (300, 400)), ('/b', (300,))]
    # HeNormal(1 / sqrt(2)): standard deviation sqrt(2 / fan_in) / sqrt(2).
    assert abs(link.W.array.std() - numpy.sqrt(1 / 400)) < 2e-3
    assert (link.b.array == 0).all()
    assert L.SimplifiedDropconnect(3, 2, nobias=True).b is None


def test_test_mode_is_linear_and_lazy_init():
    link = L.SimplifiedDropconnect(None, 2)
    x = numpy.random.RandomState(0).uniform(-1, 1, (4, 3, 2)).astype(numpy.float32)
    y = link(x, train=False)
    assert link.W.shape == (2, 6)
    numpy.testing.assert_allclose(y.array, F.linear(x, link.W, link.b).array, rtol=1e-6)


@pytest.mark.parametrize('batchwise', [True, False])
def test_mask_and_persistent(batchwise):
    link = L.SimplifiedDropconnect(3, 2, ratio=0.5)
    x = numpy.ones((4, 3), numpy.float32)
    mask = numpy.random.RandomState(1).rand(*((4, 2, 3) if batchwise else (2, 3))) > 0.5
    y = link(chainlite.Variable(x), mask=mask)
    expect = F.simplified_dropconnect(x, link.W.array, link.b.array, 0.5, mask=mask)
    numpy.testing.assert_allclose(y.array, expect.array, rtol=1e-6)
    assert 'mask' in link._persistent
    numpy.random.seed(2)
    y = link(x, use_batchwise_mask=batchwise)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert link.W.grad.shape == (2, 3)
