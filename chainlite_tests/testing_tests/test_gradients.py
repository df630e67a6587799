"""Tests of chainlite.testing.check_grads."""

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import testing


@pytest.fixture(autouse=True)
def _seeded():
    # The random direction of check_backward comes from NumPy's global generator.
    numpy.random.seed(1)


class WrongExp(chainlite.FunctionNode):
    # The gradient is off by 10%.

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return numpy.exp(x),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return 1.1 * y * gy,


class FlatExp(WrongExp):
    # The right gradient, from a constant copy of y: double backprop sees nothing.

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * chainlite.Variable(y.array.copy(), requires_grad=False),


class ScaleByInt(chainlite.FunctionNode):

    def forward(self, inputs):
        x, k = inputs
        self.retain_inputs((1,))
        return x * k.astype(x.dtype),

    def backward(self, indexes, grad_outputs):
        k, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * k.array.astype(gy.dtype), None


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
def test_passes_on_composition(shape):
    x = numpy.random.uniform(-1, 1, shape)
    testing.check_grads(lambda x: F.sin(F.exp(x)), x)
    testing.check_grads(lambda x: F.exp(F.sin(x)), (x,), order=1)


def test_passes_on_two_inputs_and_two_outputs():
    a = numpy.random.uniform(-1, 1, (2, 2))
    b = numpy.random.uniform(-1, 1, (2, 2))
    testing.check_grads(lambda a, b: (a * F.exp(b), F.tanh(a) - b), (a, b))


def test_passes_on_scalar_loss():
    x = numpy.random.uniform(-1, 1, (4,))
    testing.check_grads(lambda x: F.sum(F.sin(x) * x), x)


def test_float32_inputs_are_checked_in_float64():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return F.sin(x)

    testing.check_grads(f, numpy.array([0.1, 0.2], numpy.float32))
    assert set(seen) == {numpy.dtype(numpy.float64)}


def test_given_y_grad():
    x = numpy.random.uniform(-1, 1, (3,))
    testing.check_grads(F.tanh, x, y_grad=numpy.array([1.0, -2.0, 0.5], numpy.float32))


def test_int_input_is_skipped():
    x = numpy.random.uniform(-1, 1, (3,))
    k = numpy.array([1, -2, 3])

    def f(x, k):
        return F.sin(ScaleByInt().apply((x, k))[0])

    testing.check_grads(f, (x, k))
    testing.check_grads(f, (x, k), no_grads=[False, True])


def test_fails_on_broken_node():
    x = numpy.random.uniform(-1, 1, (3,))
    with pytest.raises(AssertionError, match='check_backward failed'):
        testing.check_grads(lambda x: WrongExp().apply((x,))[0], x)


def test_second_order_catches_non_differentiable_backward():
    x = numpy.random.uniform(-1, 1, (3,))

    def f(x):
        return FlatExp().apply((x,))[0]

    testing.check_grads(f, x, order=1)
    with pytest.raises(AssertionError, match='check_double_backward failed'):
        testing.check_grads(f, x, order=2)


def test_is_deterministic():
    # The same random y_grad each call: a broken check fails identically.
    x = numpy.array([0.3, -0.2])
    messages = []
    for _ in range(2):
        numpy.random.seed(3)
        with pytest.raises(AssertionError) as info:
            testing.check_grads(lambda x: WrongExp().apply((x,))[0], x, order=1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize('order', [0, 3])
def test_rejects_unsupported_order(order):
    with pytest.raises(ValueError, match='order'):
        testing.check_grads(F.sin, numpy.ones(2), order=order)
