"""Normal, LeCunNormal, GlorotNormal, HeNormal."""
import numpy as np
import pytest

import chainlite
from chainlite import initializers
from chainlite.initializers import _random


def _draw(init, shape, dtype=None, seed=0):
    np.random.seed(seed)
    return initializers.generate_array(init, shape, np, dtype=dtype)


# Values of Chainer 7.8.1 (numpy 1.26) for numpy.random.seed(0), e.g.
# chainer.initializers.generate_array(chainer.initializers.LeCunNormal(), (2, 3), numpy,
# dtype=numpy.float32). Both draw with numpy.random.normal(0, std, size) from the global
# (legacy, stream-stable) random state and cast into the array, so the values are identical.
_CHAINER = [
    (initializers.LeCunNormal(), (2, 3), np.float32,
     [[1.0184761, 0.23103087, 0.5650746], [1.2937803, 1.0782351, -0.56423163]]),
    (initializers.LeCunNormal(), (2, 3), np.float64,
     [[1.0184760968090216, 0.23103087196898553, 0.5650746385895602],
      [1.2937802917841632, 1.07823510834032, -0.5642316470197126]]),
    (initializers.GlorotNormal(0.5), (3, 2), np.float32,
     [[0.5578423, 0.12654082], [0.30950412, 0.70863265], [0.59057367, -0.3090424]]),
    (initializers.HeNormal(fan_option='fan_out'), (2, 1, 2), np.float16,
     [[[1.247, 0.283]], [[0.692, 1.585]]]),
    (initializers.Normal(0.5), (4,), np.float64,
     [0.882026172983832, 0.20007860418361165, 0.4893689920528696, 1.120446599600729]),
]


@pytest.mark.parametrize('init, shape, dtype, expected', _CHAINER)
def test_same_values_as_chainer(init, shape, dtype, expected):
    a = _draw(init, shape, dtype)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a, np.array(expected, dtype))


def test_same_values_as_chainer_with_rng():
    a = np.empty((2, 3), np.float32)
    initializers.LeCunNormal(rng=np.random.RandomState(1))(a)
    expected = [[0.93781626, -0.35319772, -0.3049401], [-0.6194787, 0.49964333, -1.328794]]
    np.testing.assert_array_equal(a, np.array(expected, np.float32))


@pytest.mark.parametrize('init, shape, std', [
    (initializers.Normal(), (300, 300), 0.05),
    (initializers.Normal(2.0), (90000,), 2.0),
    (initializers.LeCunNormal(), (200, 400), np.sqrt(1 / 400)),
    (initializers.LeCunNormal(2.0), (64, 32, 3, 3), 2.0 * np.sqrt(1 / 288)),
    (initializers.GlorotNormal(), (300, 200), np.sqrt(2 / 500)),
    (initializers.GlorotNormal(), (32, 16, 5, 5), np.sqrt(2 / (48 * 25))),
    (initializers.HeNormal(), (200, 400), np.sqrt(2 / 400)),
    (initializers.HeNormal(fan_option='fan_out'), (64, 32, 3, 3), np.sqrt(2 / 576)),
])
def test_statistics(init, shape, std):
    a = _draw(init, shape, np.float64, seed=1)
    n = a.size
    assert abs(a.mean()) < 5 * std / np.sqrt(n)
    assert abs(a.std() / std - 1) < 0.03


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('cls', [initializers.Normal, initializers.LeCunNormal,
                                 initializers.GlorotNormal, initializers.HeNormal])
def test_dtypes(cls, dtype):
    a = initializers.generate_array(cls(dtype=dtype), (8, 6), np)
    assert a.dtype == dtype and np.isfinite(a).all()
    # The values are the float64 draws rounded once into the dtype.
    np.random.seed(5)
    a = initializers.generate_array(cls(dtype=dtype), (8, 6), np)
    np.random.seed(5)
    b = initializers.generate_array(cls(dtype=np.float64), (8, 6), np)
    np.testing.assert_array_equal(a, b.astype(dtype))


def test_config_dtype():
    with chainlite.using_config('dtype', np.float16):
        assert initializers.generate_array(initializers.LeCunNormal(), (3, 3), np).dtype \
            == np.float16


def test_seeding_reproduces():
    a = _draw(initializers.HeNormal(), (20, 10), seed=42)
    b = _draw(initializers.HeNormal(), (20, 10), seed=42)
    c = _draw(initializers.HeNormal(), (20, 10), seed=43)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_rng_leaves_global_state_alone():
    np.random.seed(0)
    initializers.Normal(rng=np.random.RandomState(7))(np.empty((5, 5), np.float32))
    assert np.random.rand() == np.random.RandomState(0).rand()


def test_rng_generator():
    a = np.empty(10)
    initializers.Normal(1.0, rng=np.random.default_rng(0))(a)
    np.testing.assert_array_equal(a, np.random.default_rng(0).normal(0.0, 1.0, 10))


def test_large_array_is_filled_blockwise_as_one_draw():
    shape = (3 * _random._BLOCK // 100 + 1, 100)  # several blocks and a partial one
    a = _draw(initializers.Normal(0.3), shape, np.float32)
    np.random.seed(0)
    expected = np.random.normal(0.0, 0.3, shape).astype(np.float32)
    np.testing.assert_array_equal(a, expected)


def test_strided_view_is_filled():
    base = np.zeros((6, 8), np.float32)
    np.random.seed(0)
    initializers.LeCunNormal()(base[:, ::2])
    np.random.seed(0)
    expected = np.random.normal(0.0, 0.5, (6, 4)).astype(np.float32)
    np.testing.assert_array_equal(base[:, ::2], expected)
    assert (base[:, 1::2] == 0).all()


def test_empty_array_is_left_alone():
    a = np.empty((0, 5), np.float32)
    initializers.LeCunNormal()(a)
    initializers.Normal()(a)
    assert a.shape == (0, 5)


def test_attributes():
    init = initializers.HeNormal(0.5, np.float16, 'fan_out')
    assert (init.scale, init.dtype, init.fan_option, init.rng) == (0.5, np.float16,
                                                                   'fan_out', None)
    assert initializers.Normal().scale == 0.05
    assert initializers.LeCunNormal().scale == 1.0


@pytest.mark.parametrize('cls', [initializers.LeCunNormal, initializers.GlorotNormal,
                                 initializers.HeNormal])
@pytest.mark.parametrize('shape', [(), (5,)])
def test_fan_based_need_two_dimensions(cls, shape):
    with pytest.raises(ValueError, match=cls.__name__ + '.*at least 2 dimensions'):
        cls()(np.empty(shape, np.float32))


def test_normal_accepts_any_shape():
    a = np.empty((), np.float32)
    initializers.Normal()(a)
    assert np.isfinite(a)


def test_he_normal_fan_option_is_checked():
    with pytest.raises(ValueError, match='HeNormal.*fan_option.*fan_avg'):
        initializers.HeNormal(fan_option='fan_avg')


@pytest.mark.parametrize('cls', [initializers.Normal, initializers.LeCunNormal])
def test_dtype_mismatch(cls):
    with pytest.raises(ValueError, match=cls.__name__):
        cls(dtype=np.float64)(np.empty((2, 2), np.float32))


def test_unknown_keyword():
    with pytest.raises(TypeError):
        initializers.Normal(foo=1)
