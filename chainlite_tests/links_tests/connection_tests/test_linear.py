"""L.Linear: parameter shapes, lazy and short forms, forward/backward, dtypes, errors."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers
from chainlite.utils import type_check


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_shapes_and_default_initializers():
    layer = L.Linear(3, 4)
    assert layer.W.shape == (4, 3) and layer.b.shape == (4,)
    assert layer.W.dtype == np.float32 and layer.b.dtype == np.float32
    assert isinstance(layer.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(layer.b.array, np.zeros(4, np.float32))
    assert (layer.in_size, layer.out_size) == (3, 4)


def test_namedparams_match_chainer():
    # Chainer 7: [n for n, _ in L.Linear(3, 4).namedparams()] == ['/W', '/b']
    assert [n for n, _ in L.Linear(3, 4).namedparams()] == ['/W', '/b']
    assert [n for n, _ in L.Linear(3, 4, nobias=True).namedparams()] == ['/W']


def test_str_matches_chainer():
    assert str(L.Linear(3, 4)) == 'Linear(in_size=3, out_size=4, nobias=False)'
    assert str(L.Linear(4, nobias=True)) == 'Linear(in_size=None, out_size=4, nobias=True)'


def test_str_shows_the_inferred_size_after_the_first_call():
    layer = L.Linear(None, 4)
    layer(np.ones((2, 3, 2), np.float32))
    assert str(layer) == repr(layer) == 'Linear(in_size=6, out_size=4, nobias=False)'
    assert layer.in_size is None  # the argument, as Chainer keeps it


@pytest.mark.parametrize('make', [lambda: L.Linear(None, 2), lambda: L.Linear(2)])
def test_lazy_initialization(make):
    layer = make()
    assert layer.in_size is None and layer.out_size == 2
    assert layer.W.array is None and layer.b.shape == (2,)
    y = layer(np.ones((5, 3, 2), np.float32))      # 6 features per example
    assert layer.W.shape == (2, 6) and y.shape == (5, 2)


def test_lazy_initialization_uses_n_batch_axes():
    layer = L.Linear(3)
    y = layer(np.ones((2, 4, 5), np.float32), n_batch_axes=2)
    assert layer.W.shape == (3, 5) and y.shape == (2, 4, 3)


def test_shorthand_keyword_arguments():
    layer = L.Linear(3, nobias=True, initialW=2.0)
    layer(np.ones((1, 2), np.float32))
    assert layer.b is None
    np.testing.assert_array_equal(layer.W.array, np.full((3, 2), 2, np.float32))


@pytest.mark.parametrize('x_shape, n_batch_axes', [((2, 4), 1), ((2, 5, 4), 2)])
def test_forward_equals_function(x_shape, n_batch_axes):
    W, b = _uniform(3, 4, seed=1), _uniform(3, seed=2)
    layer = L.Linear(4, 3, initialW=W, initial_bias=b)
    x = _uniform(*x_shape)
    y = layer(x, n_batch_axes=n_batch_axes)
    np.testing.assert_allclose(y.array, x @ W.T + b, rtol=1e-6, atol=1e-6)
    expected = F.linear(x, layer.W, layer.b, n_batch_axes=n_batch_axes)
    np.testing.assert_array_equal(y.array, expected.array)


def test_backward_gives_parameter_grads():
    x = _uniform(5, 3)
    layer = L.Linear(3, 2, initialW=_uniform(2, 3, seed=1))
    layer.cleargrads()
    F.sum(layer(x)).backward()
    np.testing.assert_allclose(layer.W.grad, np.tile(x.sum(axis=0), (2, 1)), rtol=1e-6)
    np.testing.assert_allclose(layer.b.grad, np.full(2, 5, np.float32))


def test_nobias():
    layer = L.Linear(3, 2, nobias=True, initialW=np.ones((2, 3)))
    assert layer.b is None
    np.testing.assert_array_equal(layer(np.ones((1, 3), np.float32)).array, [[3, 3]])


def test_initial_arrays_are_copied_as_float32():
    W = np.arange(6.0).reshape(2, 3)
    layer = L.Linear(3, 2, initialW=W, initial_bias=np.array([1.0, 2.0]))
    assert layer.W.dtype == np.float32 and layer.b.dtype == np.float32
    np.testing.assert_array_equal(layer.W.array, W)
    layer.W.array[0, 0] = 100
    assert W[0, 0] == 0


def test_scalar_and_initializer_arguments():
    layer = L.Linear(2, 3, initialW=0.5, initial_bias=initializers.Constant(-1))
    np.testing.assert_array_equal(layer.W.array, np.full((3, 2), 0.5, np.float32))
    np.testing.assert_array_equal(layer.b.array, np.full(3, -1, np.float32))


def test_dtype_from_initializer_and_config():
    layer = L.Linear(2, 3, initialW=initializers.Normal(dtype=np.float64))
    assert layer.W.dtype == np.float64 and layer.b.dtype == np.float32
    with chainlite.using_config('dtype', np.float16):
        layer = L.Linear(2, 3)
    assert layer.W.dtype == np.float16 and layer.b.dtype == np.float16


def test_lazy_dtype_is_taken_when_created():
    with chainlite.using_config('dtype', np.float64):
        layer = L.Linear(3)
        layer(np.ones((1, 2)))
    assert layer.W.dtype == np.float64


def test_from_params():
    W, b = _uniform(3, 2), _uniform(3)
    layer = L.Linear.from_params(chainlite.Variable(W), b)
    assert (layer.in_size, layer.out_size) == (2, 3)
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.b.array, b)
    assert L.Linear.from_params(W, nobias=True).b is None
    with pytest.raises(ValueError, match='Linear.from_params'):
        L.Linear.from_params(W, np.zeros(4))


def test_wrong_initial_array_shape_names_the_argument():
    with pytest.raises(ValueError, match=r'Linear: initialW .*\(3, 2\)'):
        L.Linear(2, 3, initialW=np.ones((2, 2)))
    with pytest.raises(ValueError, match='Linear: initial_bias'):
        L.Linear(2, 3, initial_bias=np.ones(2))


def test_invalid_initializer_names_the_argument():
    with pytest.raises(TypeError, match='Linear: invalid initialW'):
        L.Linear(2, 3, initialW='ones')


def test_wrong_input_size_is_a_type_error():
    with pytest.raises(type_check.InvalidType, match='x.shape'):
        L.Linear(3, 2)(np.ones((1, 4), np.float32))


def test_paths_inside_a_chain_match_chainer():
    model = chainlite.Chain(l1=L.Linear(2, 3), l2=L.Linear(3, 1, nobias=True))
    assert [n for n, _ in model.namedparams()] == ['/l1/W', '/l1/b', '/l2/W']


def test_npz_round_trip_initializes_a_lazy_layer(tmp_path):
    from chainlite import serializers
    source = L.Linear(3, 2)
    serializers.save_npz(str(tmp_path / 'linear.npz'), source)
    with np.load(str(tmp_path / 'linear.npz')) as saved:
        assert sorted(saved.files) == ['W', 'b']     # Chainer's keys
    target = L.Linear(2)
    serializers.load_npz(str(tmp_path / 'linear.npz'), target)
    np.testing.assert_array_equal(target.W.array, source.W.array)
    np.testing.assert_array_equal(target.b.array, source.b.array)
