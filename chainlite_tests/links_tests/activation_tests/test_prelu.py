"""L.PReLU: the slope parameter's shape and initial value, forward/backward, errors."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers


def test_default_is_one_scalar_slope():
    layer = L.PReLU()
    assert layer.W.shape == () and layer.W.dtype == np.float32 and layer.W.array == 0.25
    assert [n for n, _ in layer.namedparams()] == ['/W'] and str(layer) == 'PReLU()'


def test_shape_and_initial_values():
    layer = L.PReLU(shape=(3,), init=np.array([0.1, 0.2, 0.3]))
    assert layer.W.dtype == np.float32
    np.testing.assert_allclose(layer.W.array, [0.1, 0.2, 0.3])
    layer = L.PReLU(shape=(2,), init=initializers.Constant(0.5, dtype=np.float64))
    assert layer.W.dtype == np.float64
    with chainlite.using_config('dtype', np.float16):
        assert L.PReLU().W.dtype == np.float16


def test_forward_and_backward():
    layer = L.PReLU(shape=(2,), init=np.array([0.5, 0.1]))
    layer.cleargrads()
    x = np.array([[-2.0, -3.0], [4.0, 1.0]], np.float32)
    y = layer(x)
    np.testing.assert_allclose(y.array, [[-1.0, -0.3], [4.0, 1.0]], rtol=1e-6)
    np.testing.assert_array_equal(y.array, F.prelu(x, layer.W).array)
    F.sum(y).backward()
    np.testing.assert_array_equal(layer.W.grad, [-2.0, -3.0])


def test_errors():
    with pytest.raises(ValueError, match=r'PReLU: init cannot initialize W of shape \(3,\)'):
        L.PReLU(shape=(3,), init=np.zeros(2))
    with pytest.raises(TypeError, match='PReLU: invalid init'):
        L.PReLU(init='0.25')
