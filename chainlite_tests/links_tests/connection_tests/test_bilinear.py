"""L.Bilinear: parameter shapes, initial_bias tuple, forward/backward, nobias, errors."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_shapes_and_defaults():
    layer = L.Bilinear(2, 3, 4)
    shapes = {n: p.shape for n, p in layer.namedparams()}
    # Chainer's keys (it lists them sorted: /V1, /V2, /W, /b).
    assert shapes == {'/W': (2, 3, 4), '/V1': (2, 4), '/V2': (3, 4), '/b': (4,)}
    assert all(p.dtype == np.float32 for p in layer.params())
    for p in (layer.W, layer.V1, layer.V2):
        assert isinstance(p.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(layer.b.array, 0)
    assert layer.in_sizes == (2, 3) and not layer.nobias
    assert str(layer) == 'Bilinear()'


def test_nobias_has_W_only():
    layer = L.Bilinear(2, 3, 4, nobias=True)
    assert [n for n, _ in layer.namedparams()] == ['/W']
    assert not hasattr(layer, 'V1') and not hasattr(layer, 'b')


def _params():
    return _uniform(2, 3, 4, seed=1), (_uniform(2, 4, seed=2), _uniform(3, 4, seed=3),
                                      _uniform(4, seed=4))


def test_forward_equals_function_and_formula():
    W, (V1, V2, b) = _params()
    layer = L.Bilinear(2, 3, 4, initialW=W, initial_bias=(V1, V2, b))
    e1, e2 = _uniform(5, 2, seed=5), _uniform(5, 3, seed=6)
    y = layer(e1, e2)
    np.testing.assert_array_equal(y.array, F.bilinear(e1, e2, W, V1, V2, b).array)
    expected = np.einsum('ni,nj,ijk->nk', e1, e2, W) + e1 @ V1 + e2 @ V2 + b
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    layer = L.Bilinear(2, 3, 4, nobias=True, initialW=W)
    np.testing.assert_array_equal(layer(e1, e2).array, F.bilinear(e1, e2, W).array)


def test_backward_gives_parameter_grads():
    layer = L.Bilinear(2, 3, 4)
    layer.cleargrads()
    e1, e2 = _uniform(5, 2, seed=5), _uniform(5, 3, seed=6)
    F.sum(layer(e1, e2)).backward()
    np.testing.assert_allclose(layer.W.grad, np.broadcast_to(
        np.einsum('ni,nj->ij', e1, e2)[:, :, None], (2, 3, 4)), rtol=1e-5)
    np.testing.assert_allclose(layer.V1.grad, np.tile(e1.sum(0)[:, None], (1, 4)), rtol=1e-5)
    np.testing.assert_allclose(layer.V2.grad, np.tile(e2.sum(0)[:, None], (1, 4)), rtol=1e-5)
    np.testing.assert_array_equal(layer.b.grad, np.full(4, 5, np.float32))


def test_initializers_and_dtypes():
    layer = L.Bilinear(1, 1, 2, initialW=1.0, initial_bias=(2.0, 3.0, 4.0))
    assert [layer.W.array.flat[0], layer.V1.array.flat[0], layer.V2.array.flat[0],
            layer.b.array[0]] == [1, 2, 3, 4]
    layer = L.Bilinear(1, 1, 2, initialW=initializers.Normal(dtype=np.float64))
    assert layer.W.dtype == np.float64 and layer.V1.dtype == np.float32
    with chainlite.using_config('dtype', np.float16):
        layer = L.Bilinear(1, 1, 2)
    assert all(p.dtype == np.float16 for p in layer.params())


def test_errors():
    with pytest.raises(ValueError, match='Bilinear: initial_bias must be None or a tuple'):
        L.Bilinear(2, 3, 4, initial_bias=0)
    with pytest.raises(ValueError, match=r'Bilinear: initialV2 .*\(3, 4\)'):
        L.Bilinear(2, 3, 4, initial_bias=(None, np.zeros((2, 4)), 0))
    with pytest.raises(ValueError, match=r'Bilinear: initialW'):
        L.Bilinear(2, 3, 4, initialW=np.zeros((3, 2, 4)))
