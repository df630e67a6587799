"""The fixed case every hook test runs: MomentumSGD(lr=0.1, momentum=0.8) on a model with
W (2, 3) and b (3,), four steps of given gradients, and the NumPy reference run beside it."""
import numpy
import pytest

import chainlite
from chainlite import optimizers

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

    def run(self, hooks, dtype=numpy.float32, per_rule=False):
        """MomentumSGD(lr=0.1, momentum=0.8) with ``hooks`` added to the optimizer (or to each
        parameter's update rule); runs the steps on a fresh model and returns (W, b)."""
        m = self.model(dtype)
        opt = optimizers.MomentumSGD(lr=0.1, momentum=0.8).setup(m)
        for hook in hooks:
            if per_rule:
                for p in m.params():
                    p.update_rule.add_hook(hook)
            else:
                opt.add_hook(hook)
        for k in range(self.steps):
            m.W.grad, m.b.grad = self.grads(k, dtype)
            opt.update()
        return m.W.array, m.b.array

    def reference(self, transform, dtype=numpy.float64, lr=0.1, momentum=0.8):
        """Momentum SGD whose gradients first go through ``transform(params, grads, t)``
        (which changes the list of gradients in place); returns (W, b)."""
        params = [W0.astype(numpy.float32).astype(dtype), B0.astype(numpy.float32).astype(dtype)]
        velocities = [numpy.zeros_like(p) for p in params]
        for k in range(self.steps):
            grads = list(self.grads(k, dtype))
            transform(params, grads, k)
            for p, g, v in zip(params, grads, velocities):
                v[...] = momentum * v - lr * g
                p += v
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
