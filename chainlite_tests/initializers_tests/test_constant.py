"""Constant, Zero, One, NaN and Identity."""
import numpy as np
import pytest

import chainlite
from chainlite import initializers

_DTYPES = [np.float16, np.float32, np.float64]


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('shape', [(), (3,), (2, 3, 4)])
def test_constant_scalar(shape, dtype):
    a = initializers.generate_array(initializers.Constant(0.25, dtype), shape, np)
    assert a.dtype == dtype and a.shape == shape
    assert (a == 0.25).all()


def test_constant_array_broadcasts():
    init = initializers.Constant(np.array([1., 2., 3.]))
    a = initializers.generate_array(init, (2, 3), np, dtype=np.float16)
    np.testing.assert_array_equal(a, np.array([[1., 2., 3.]] * 2, np.float16))


def test_constant_array_of_the_same_shape():
    w = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    a = initializers.generate_array(initializers.Constant(w), (2, 3), np)
    np.testing.assert_array_equal(a, w.astype(np.float32))


def test_constant_array_shape_mismatch():
    init = initializers.Constant(np.zeros(4))
    with pytest.raises(ValueError, match=r'Constant.*\(4,\).*\(2, 3\)'):
        init(np.empty((2, 3), np.float32))


@pytest.mark.parametrize('value', [[1., 2.], 'abc', None, {'a': 1}])
def test_constant_rejects_non_scalars(value):
    with pytest.raises(ValueError, match='Constant: fill_value'):
        initializers.Constant(value)


def test_constant_attributes():
    init = initializers.Constant(3, np.float64)
    assert init.fill_value == 3 and init.dtype == np.float64


@pytest.mark.parametrize('cls, value', [
    (initializers.Zero, 0.0), (initializers.One, 1.0), (initializers.NaN, np.nan)])
@pytest.mark.parametrize('dtype', _DTYPES)
def test_fixed_constants(cls, value, dtype):
    init = cls(dtype)
    assert init.dtype == dtype
    a = initializers.generate_array(init, (2, 2), np)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a, np.full((2, 2), value, dtype))
    assert cls().dtype is None


def test_fixed_constants_are_constants():
    assert isinstance(initializers.Zero(), initializers.Constant)
    assert initializers.One().fill_value == 1.0
    assert np.isnan(initializers.NaN().fill_value)


def test_constant_dtype_mismatch():
    with pytest.raises(ValueError, match='Zero.*float64.*float32'):
        initializers.Zero(np.float32)(np.empty(2, np.float64))


def test_constant_fills_a_parameter():
    p = chainlite.Parameter(initializers.One(np.float64), (2,))
    np.testing.assert_array_equal(p.array, [1., 1.])
    assert p.array.dtype == np.float64


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('n', [1, 3])
def test_identity(n, dtype):
    a = initializers.generate_array(initializers.Identity(dtype=dtype), (n, n), np)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a, np.eye(n, dtype=dtype))


def test_identity_scale_is_exact_in_the_dtype():
    a = initializers.generate_array(initializers.Identity(0.3), (2, 2), np, dtype=np.float16)
    np.testing.assert_array_equal(a, np.array([[0.3, 0], [0, 0.3]], np.float16))


def test_identity_overwrites_everything():
    a = np.full((3, 3), 5.0)
    initializers.Identity(2.0)(a)
    np.testing.assert_array_equal(a, 2 * np.eye(3))


@pytest.mark.parametrize('shape', [(2, 3), (3,), (2, 2, 2), ()])
def test_identity_needs_square_matrix(shape):
    with pytest.raises(ValueError, match='Identity.*square'):
        initializers.Identity()(np.empty(shape, np.float32))


def test_identity_attributes():
    init = initializers.Identity()
    assert init.scale == 1.0 and init.dtype is None
