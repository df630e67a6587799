"""SpectralNormalization: the normalized weight has spectral norm 1, u is persistent and
updated in training only, gamma, deconvolution axis, removal, errors."""
import io

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import serializers
from chainlite.link_hooks import SpectralNormalization

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



def _sigma(W, axis=0):
    W = numpy.moveaxis(W, axis, 0)
    return numpy.linalg.svd(W.reshape(W.shape[0], -1), compute_uv=False)[0]


def test_linear_weight_normalized(add):
    layer = L.Linear(4, 3)
    hook = SpectralNormalization(n_power_iteration=100)
    add(layer, hook)
    assert layer.W_u.shape == (3,)
    x = numpy.eye(4, dtype=numpy.float32)
    y = layer(x).array - layer.b.array   # rows are the columns of W / sigma
    numpy.testing.assert_allclose(y.T, layer.W.array / _sigma(layer.W.array), rtol=1e-4)
    assert isinstance(layer.W, chainlite.Parameter)   # put back after the forward


def test_gradient_reaches_the_parameter(add):
    layer = add(L.Convolution2D(2, 3, 2), SpectralNormalization())
    layer.cleargrads()
    F.sum(layer(numpy.ones((1, 2, 3, 3), numpy.float32))).backward()
    assert numpy.isfinite(layer.W.grad).all() and numpy.abs(layer.W.grad).sum() > 0


def test_u_updated_in_training_only(add):
    layer = add(L.Linear(4, 3), SpectralNormalization())
    x = numpy.ones((2, 4), numpy.float32)
    u0 = layer.W_u.copy()
    with chainlite.using_config('train', False):
        layer(x)
    numpy.testing.assert_array_equal(layer.W_u, u0)
    layer(x)
    assert not numpy.array_equal(layer.W_u, u0)


def test_recomputing_reuses_u_and_v(add):
    layer = L.Linear(4, 3)
    hook = SpectralNormalization()
    add(layer, hook)
    x = numpy.ones((2, 4), numpy.float32)
    y1 = layer(x).array
    u, v = layer.W_u.copy(), hook.v.copy()
    with chainlite.using_config('in_recomputing', True):
        y2 = layer(x).array
    numpy.testing.assert_array_equal(layer.W_u, u)
    numpy.testing.assert_array_equal(hook.v, v)
    numpy.testing.assert_allclose(y1, y2)


def test_use_gamma_and_factor(add):
    layer = L.Linear(4, 3)
    add(layer, SpectralNormalization(use_gamma=True, factor=2.0, n_power_iteration=100))
    assert layer.gamma.shape == ()
    numpy.testing.assert_allclose(layer.gamma.array, _sigma(layer.W.array), rtol=1e-5)
    y = layer(numpy.eye(4, dtype=numpy.float32)).array - layer.b.array
    # W * gamma / (sigma / factor) = 2 W with gamma = sigma.
    numpy.testing.assert_allclose(y.T, 2 * layer.W.array, rtol=1e-3)
    layer.delete_hook('SpectralNormalization')
    assert not hasattr(layer, 'gamma') and not hasattr(layer, 'W_u')


def test_deconvolution_uses_axis_1(add):
    layer = L.Deconvolution2D(2, 5, 3)
    hook = SpectralNormalization()
    add(layer, hook)
    assert hook.axis == 1 and layer.W_u.shape == (5,)


def test_lazy_weight(add):
    layer = L.Linear(None, 3)
    add(layer, SpectralNormalization())
    assert not hasattr(layer, 'W_u')
    layer(numpy.ones((2, 5), numpy.float32))
    assert layer.W_u.shape == (3,)


def test_serialization_keeps_u(add):
    layer = add(L.Linear(4, 3), SpectralNormalization())
    layer(numpy.ones((2, 4), numpy.float32))
    buf = io.BytesIO()
    serializers.save_npz(buf, layer)
    other = add(L.Linear(4, 3), SpectralNormalization())
    serializers.load_npz(io.BytesIO(buf.getvalue()), other)
    numpy.testing.assert_array_equal(other.W_u, layer.W_u)


def test_errors(add):
    with pytest.raises(ValueError, match="'w'"):
        add(L.Linear(3, 2), SpectralNormalization(weight_name='w'))
    with pytest.raises(ValueError, match='shape'):
        add(L.Linear(3, 0), SpectralNormalization())
    with pytest.raises(NotImplementedError):
        with SpectralNormalization():
            pass
    with pytest.raises(ValueError):
        SpectralNormalization(n_power_iteration=0)


def test_no_hook_left_registered():
    # Runs last in this module: the fixture deleted every hook the other tests registered.
    assert chainlite.link_hook._hooks_active == 0
