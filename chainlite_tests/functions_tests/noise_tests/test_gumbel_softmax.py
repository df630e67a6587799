"""gumbel_softmax: softmax of log_pi plus seeded Gumbel noise over the temperature."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward_matches_seeded_noise(dtype):
    log_pi = numpy.log(numpy.array([[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]])).astype(dtype)
    numpy.random.seed(0)
    g = numpy.random.gumbel(size=log_pi.shape).astype(dtype)
    numpy.random.seed(0)
    y = F.gumbel_softmax(chainlite.Variable(log_pi), tau=0.5)
    assert y.dtype == dtype
    z = (log_pi.astype(numpy.float64) + g) / 0.5
    expect = numpy.exp(z - z.max(1, keepdims=True))
    expect /= expect.sum(1, keepdims=True)
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(y.array, expect, atol=tol)


def test_low_temperature_samples_the_categorical():
    numpy.random.seed(1)
    log_pi = numpy.log(numpy.tile([[0.2, 0.8]], (4000, 1)))
    y = F.gumbel_softmax(log_pi, tau=0.01).array
    assert abs(y.argmax(1).mean() - 0.8) < 0.03


def test_axis_scalar_and_gradients():
    assert F.gumbel_softmax(numpy.float32(0.3)).array == 1
    y = F.gumbel_softmax(numpy.zeros((2, 3, 4)), axis=2)
    numpy.testing.assert_allclose(y.array.sum(2), 1)

    def f(log_pi):
        state = numpy.random.get_state()
        numpy.random.seed(2)
        try:
            return F.gumbel_softmax(log_pi, tau=0.7)
        finally:
            numpy.random.set_state(state)
    gradients.check_grads(f, numpy.random.RandomState(3).uniform(-1, 1, (2, 3)), order=2)
