"""chainlite.initializers: exports, generate_array and _get_initializer."""
import copy
import pickle
import types

import numpy as np
import pytest

import chainlite
from chainlite import initializers

# The public names of chainer.initializers in Chainer 7.8.1 (modules and imports left out).
_CHAINER_NAMES = [
    'Constant', 'DownsamplingConvFilter', 'GlorotNormal', 'GlorotUniform', 'HeNormal',
    'HeUniform', 'Identity', 'LeCunNormal', 'LeCunUniform', 'NaN', 'Normal', 'One',
    'Orthogonal', 'Uniform', 'UpsamplingDeconvFilter', 'Zero', 'generate_array',
]


@pytest.mark.parametrize('name', _CHAINER_NAMES + ['Initializer', 'get_fans'])
def test_exports(name):
    assert hasattr(initializers, name)


def test_initializer_classes_share_the_base():
    for name in _CHAINER_NAMES[:-1]:
        assert issubclass(getattr(initializers, name), initializers.Initializer), name


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_generate_array_explicit_dtype(dtype):
    a = initializers.generate_array(initializers.One(), (2, 3), np, dtype=dtype)
    assert a.dtype == dtype and a.shape == (2, 3)
    np.testing.assert_array_equal(a, np.ones((2, 3)))


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_generate_array_takes_initializer_dtype(dtype):
    a = initializers.generate_array(initializers.Zero(dtype), 4, np)
    assert a.dtype == dtype and a.shape == (4,)


def test_generate_array_follows_config_dtype():
    assert initializers.generate_array(initializers.Zero(), (1,), np).dtype == np.float32
    with chainlite.using_config('dtype', np.float64):
        assert initializers.generate_array(initializers.Zero(), (1,), np).dtype == np.float64
    with chainlite.using_config('dtype', chainlite.mixed16):
        assert initializers.generate_array(initializers.Zero(), (1,), np).dtype == np.float16


def test_generate_array_same_dtype_twice_is_fine():
    a = initializers.generate_array(initializers.Zero('f'), (1,), np, dtype=np.float32)
    assert a.dtype == np.float32


def test_generate_array_dtype_mismatch():
    with pytest.raises(ValueError, match='float32.*float64.*Zero'):
        initializers.generate_array(initializers.Zero(np.float64), (2,), np, dtype=np.float32)


def test_generate_array_device():
    a = initializers.generate_array(initializers.One(), (2,), np, device='@numpy')
    np.testing.assert_array_equal(a, [1., 1.])
    a = initializers.generate_array(initializers.One(), (2,), np,
                                    device=chainlite.get_device(np))
    assert isinstance(a, np.ndarray)


def test_generate_array_device_must_match_xp():
    other_xp = types.SimpleNamespace(empty=np.empty, __name__='other')
    with pytest.raises(ValueError, match='@numpy.*other'):
        initializers.generate_array(initializers.One(), (2,), other_xp, device='@numpy')


def test_generate_array_with_a_plain_callable():
    def fill(a):
        a[...] = 7
    a = initializers.generate_array(fill, (2,), np)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [7., 7.])


def test_get_initializer_none_is_lecun_normal():
    init = initializers._get_initializer(None)
    assert type(init) is initializers.LeCunNormal
    assert init.scale == 1.0 and init.dtype is None


@pytest.mark.parametrize('value', [2, 0.5, np.float32(1.5), np.int64(3)])
def test_get_initializer_scalar_is_constant(value):
    init = initializers._get_initializer(value)
    assert type(init) is initializers.Constant
    assert init.fill_value == value and init.dtype is None


def test_get_initializer_array_is_constant_without_own_dtype():
    # As in Chainer: the array's values are used, the dtype comes from the link/config.
    w = np.arange(6, dtype=np.float64).reshape(2, 3)
    init = initializers._get_initializer(w)
    assert type(init) is initializers.Constant
    assert init.fill_value is w and init.dtype is None
    a = initializers.generate_array(init, (2, 3), np)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, w)


def test_get_initializer_callable_is_itself():
    init = initializers.HeNormal()
    assert initializers._get_initializer(init) is init

    def fill(a):
        a[...] = 0
    assert initializers._get_initializer(fill) is fill


@pytest.mark.parametrize('value', [[1, 2], 'abc', b'x', object()])
def test_get_initializer_rejects_other_types(value):
    with pytest.raises(TypeError, match='initializer must be'):
        initializers._get_initializer(value)


@pytest.mark.parametrize('value', [None, 1.0, np.zeros(2), initializers.Zero(), len])
def test_check_is_initializer_like_accepts(value):
    initializers._check_is_initializer_like(value)


@pytest.mark.parametrize('value', [[1.0], 'abc', {}])
def test_check_is_initializer_like_rejects(value):
    with pytest.raises(TypeError, match='initializer must be'):
        initializers._check_is_initializer_like(value)


def test_parameter_with_initializers():
    np.random.seed(3)
    p = chainlite.Parameter(initializers.LeCunNormal(), (4, 5))
    np.random.seed(3)
    expected = initializers.generate_array(initializers.LeCunNormal(), (4, 5), np)
    np.testing.assert_array_equal(p.array, expected)
    assert p.array.dtype == np.float32 and np.isnan(p.grad).all()


def test_lazy_parameter_with_initializer_dtype():
    p = chainlite.Parameter(initializers.GlorotUniform(dtype=np.float64))
    assert not p.is_initialized and p.dtype == np.float64
    p.initialize((3, 2))
    assert p.array.dtype == np.float64 and p.grad.dtype == np.float64
    assert np.abs(p.array).max() <= np.sqrt(6 / 5)


def test_parameter_with_constant_array():
    p = chainlite.Parameter(initializers.Constant(np.array([1., 2.])), (3, 2))
    np.testing.assert_array_equal(p.array, [[1., 2.]] * 3)


@pytest.mark.parametrize('init', [
    initializers.LeCunNormal(2.0, np.float64), initializers.HeUniform(),
    initializers.Orthogonal(mode='basis'), initializers.Constant(np.arange(3.))])
def test_deepcopy_and_pickle_keep_the_configuration(init):
    for clone in (copy.deepcopy(init), pickle.loads(pickle.dumps(init))):
        assert type(clone) is type(init)
        np.random.seed(0)
        a = initializers.generate_array(init, (3, 3), np)
        np.random.seed(0)
        np.testing.assert_array_equal(initializers.generate_array(clone, (3, 3), np), a)
