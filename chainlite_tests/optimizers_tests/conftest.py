"""The fixed case every optimizer test runs: a model with W (2, 3) and b (3,), four steps of
given gradients (b's middle gradient is always 0), the NumPy reference run beside it."""
import numpy
import pytest

import chainlite

W0 = numpy.array([[0.5, -0.3, 0.2], [0.8, -0.6, 0.1]])
B0 = numpy.array([0.1, -0.2, 0.3])
GW = numpy.array([[0.1, -0.2, 0.3], [-0.4, 0.5, -0.6]])
GB = numpy.array([0.25, 0.0, -0.15])
# Sign changes and a shrinking gradient, so that AMSGrad's running maximum matters.
SCALES = (1.0, -2.0, 0.3, 0.9)


class Case:
    """Builds the model, feeds it the gradients, and runs a hand-written reference step."""

    steps = len(SCALES)

    @staticmethod
    def grads(k, dtype):
        # As the Chainer reference computed them: in float32 first, then cast.
        gw = (GW.astype(numpy.float32) * numpy.float32(SCALES[k]) + numpy.float32(0.05 * k))
        gb = GB.astype(numpy.float32) * numpy.float32(SCALES[k])
        return gw.astype(dtype), gb.astype(dtype)

    @staticmethod
    def model(dtype=numpy.float32):
        m = chainlite.Chain()
        with m.init_scope():
            m.W = chainlite.Parameter(W0.astype(numpy.float32).astype(dtype))
            m.b = chainlite.Parameter(B0.astype(numpy.float32).astype(dtype))
        return m

    def run(self, opt, dtype=numpy.float32, hooks=()):
        """Sets ``opt`` up on a fresh model, runs the steps, returns (W, b)."""
        m = self.model(dtype)
        opt.setup(m)
        for hook in hooks:
            opt.add_hook(hook)
        for k in range(self.steps):
            m.W.grad, m.b.grad = self.grads(k, dtype)
            opt.update()
        return m.W.array, m.b.array

    def reference(self, step, dtype=numpy.float64):
        """Runs ``step(p, g, state, t)`` (in place on p) over the steps; returns (W, b)."""
        params = [W0.astype(numpy.float32).astype(dtype), B0.astype(numpy.float32).astype(dtype)]
        states = [{}, {}]
        for k in range(self.steps):
            for p, g, s in zip(params, self.grads(k, dtype), states):
                step(p, g, s, k + 1)
        return params


def assert_params(got, want, atol=1e-6, rtol=1e-6):
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.fixture
def case():
    return Case()


@pytest.fixture
def check():
    return assert_params
