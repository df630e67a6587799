"""Uniform, LeCunUniform, GlorotUniform, HeUniform."""
import numpy as np
import pytest

from chainlite import initializers
from chainlite.initializers import _random


def _draw(init, shape, dtype=None, seed=0):
    np.random.seed(seed)
    return initializers.generate_array(init, shape, np, dtype=dtype)


# Values of Chainer 7.8.1 (numpy 1.26) for numpy.random.seed(0): both draw with
# numpy.random.uniform(-s, s, size) from the global random state and cast into the array.
_CHAINER = [
    (initializers.Uniform(0.2), (4,), np.float32,
     [0.019525401, 0.086075746, 0.04110535, 0.017953273]),
    (initializers.LeCunUniform(), (2, 3), np.float32,
     [[0.09762701, 0.43037874, 0.20552675], [0.08976637, -0.1526904, 0.29178822]]),
    (initializers.GlorotUniform(), (3, 2), np.float32,
     [[0.10694503, 0.4714563], [0.22514328, 0.098334126], [-0.16726395, 0.31963798]]),
    (initializers.HeUniform(), (2, 2, 1, 1), np.float64,
     [[[[0.1690949377951787]], [[0.7454378316111683]]],
      [[[0.35598277702679004]], [[0.1554799067120738]]]]),
]


@pytest.mark.parametrize('init, shape, dtype, expected', _CHAINER)
def test_same_values_as_chainer(init, shape, dtype, expected):
    a = _draw(init, shape, dtype)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a, np.array(expected, dtype))


@pytest.mark.parametrize('init, shape, bound', [
    (initializers.Uniform(), (300, 300), 0.05),
    (initializers.Uniform(3.0), (90000,), 3.0),
    (initializers.LeCunUniform(), (200, 400), np.sqrt(3 / 400)),
    (initializers.LeCunUniform(), (64, 32, 3, 3), np.sqrt(3 / 288)),
    (initializers.GlorotUniform(2.0), (300, 200), 2.0 * np.sqrt(6 / 500)),
    (initializers.GlorotUniform(), (32, 16, 5, 5), np.sqrt(6 / (48 * 25))),
    (initializers.HeUniform(), (200, 400), np.sqrt(6 / 400)),
    (initializers.HeUniform(), (64, 32, 3, 3), np.sqrt(6 / 288)),
])
def test_statistics(init, shape, bound):
    a = _draw(init, shape, np.float64, seed=1)
    std = bound / np.sqrt(3)
    assert -bound <= a.min() < -0.99 * bound and 0.99 * bound < a.max() < bound
    assert abs(a.mean()) < 5 * std / np.sqrt(a.size)
    assert abs(a.std() / std - 1) < 0.02


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('cls', [initializers.Uniform, initializers.LeCunUniform,
                                 initializers.GlorotUniform, initializers.HeUniform])
def test_dtypes(cls, dtype):
    np.random.seed(5)
    a = initializers.generate_array(cls(dtype=dtype), (8, 6), np)
    np.random.seed(5)
    b = initializers.generate_array(cls(dtype=np.float64), (8, 6), np)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a, b.astype(dtype))


def test_seeding_reproduces():
    a = _draw(initializers.GlorotUniform(), (20, 10), seed=42)
    b = _draw(initializers.GlorotUniform(), (20, 10), seed=42)
    c = _draw(initializers.GlorotUniform(), (20, 10), seed=43)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_rng():
    a = np.empty((3, 12), np.float32)
    initializers.LeCunUniform(rng=np.random.RandomState(2))(a)  # bound sqrt(3 / 12)
    expected = np.random.RandomState(2).uniform(-0.5, 0.5, (3, 12)).astype(np.float32)
    np.testing.assert_array_equal(a, expected)


def test_large_array_is_filled_blockwise_as_one_draw():
    shape = (2 * _random._BLOCK + 7,)
    a = _draw(initializers.Uniform(0.3), shape, np.float16)
    np.random.seed(0)
    np.testing.assert_array_equal(a, np.random.uniform(-0.3, 0.3, shape).astype(np.float16))


def test_attributes():
    assert initializers.Uniform().scale == 0.05
    init = initializers.HeUniform(0.5, np.float64)
    assert (init.scale, init.dtype, init.rng) == (0.5, np.float64, None)


@pytest.mark.parametrize('cls', [initializers.LeCunUniform, initializers.GlorotUniform,
                                 initializers.HeUniform])
def test_fan_based_need_two_dimensions(cls):
    with pytest.raises(ValueError, match=cls.__name__ + '.*at least 2 dimensions'):
        cls()(np.empty((5,), np.float32))


def test_dtype_mismatch():
    with pytest.raises(ValueError, match='GlorotUniform'):
        initializers.GlorotUniform(dtype=np.float16)(np.empty((2, 2), np.float32))
