"""WeightStandardization: each output unit's weights standardized during the forward."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.link_hooks import WeightStandardization

@pytest.fixture
def add():
    """``add(link, hook)`` registers the hook; every hook is deleted after the test, so the
    process-wide count of registered link hooks goes back to zero."""
    links = []

    def add(link, hook=None):
        links.append(link)
        if hook is not None:
            link.add_hook(hook)
        return link

    yield add
    for link in links:
        for name in list(link.local_link_hooks):
            link.delete_hook(name)



def _standardized(W, eps=1e-5):
    flat = W.reshape(W.shape[0], -1).astype(numpy.float64)
    out = (flat - flat.mean(1, keepdims=True)) / numpy.sqrt(flat.var(1, keepdims=True) + eps)
    return out.reshape(W.shape)


@pytest.mark.parametrize('make, x_shape', [
    (lambda: L.Convolution2D(2, 3, 2), (2, 2, 4, 4)), (lambda: L.Linear(5, 3), (2, 5))])
def test_forward_uses_standardized_weight(make, x_shape, add):
    layer = make()
    x = numpy.random.RandomState(0).randn(*x_shape).astype(numpy.float32)
    W0 = layer.W.array.copy()
    add(layer, WeightStandardization())
    y = layer(x)
    layer.W.array[...] = _standardized(W0)
    layer.delete_hook('WeightStandardization')
    numpy.testing.assert_allclose(y.array, layer(x).array, rtol=1e-4, atol=1e-5)


def test_parameter_put_back_and_gets_gradient(add):
    layer = add(L.Convolution2D(2, 3, 2), WeightStandardization())
    layer.cleargrads()
    x = numpy.random.RandomState(0).randn(1, 2, 3, 3).astype(numpy.float32)
    F.sum(layer(x) ** 2).backward()
    assert isinstance(layer.W, chainlite.Parameter)
    assert numpy.isfinite(layer.W.grad).all() and numpy.abs(layer.W.grad).sum() > 0


def test_lazy_weight(add):
    layer = add(L.Linear(None, 3), WeightStandardization())
    assert layer(numpy.ones((2, 4), numpy.float32)).shape == (2, 3)
    assert layer.W.shape == (3, 4)


def test_errors(add):
    with pytest.raises(ValueError, match="'V'"):
        add(L.Linear(3, 2), WeightStandardization(weight_name='V'))
    with pytest.raises(NotImplementedError):
        with WeightStandardization():
            pass
