"""Orthogonal."""
import numpy as np
import pytest

from chainlite import initializers


def _draw(init, shape, dtype=None, seed=0):
    np.random.seed(seed)
    return initializers.generate_array(init, shape, np, dtype=dtype)


def test_same_values_as_chainer():
    # Chainer 7.8.1 (numpy 1.26), numpy.random.seed(0), Orthogonal() on (2, 3) float64. Both
    # draw numpy.random.normal(size=(out_dim, in_dim)) and take the sign-fixed QR, so values
    # agree to LAPACK's rounding (identical here).
    expected = [[0.9434900650975174, 0.21402105863504398, 0.5234706138103816],
                [0.3014033716009824, 0.6712375156215868, -0.8176773234043613]]
    np.testing.assert_allclose(_draw(initializers.Orthogonal(), (2, 3), np.float64), expected,
                               rtol=0, atol=1e-13)
    expected = [[0.7058505, 0.06720914], [0.39162257, 0.94511086], [0.74726623, -0.55879194]]
    a = _draw(initializers.Orthogonal(), (3, 2), np.float32)
    assert a.dtype == np.float32
    np.testing.assert_allclose(a, np.array(expected, np.float32), rtol=0, atol=1e-7)


@pytest.mark.parametrize('dtype, tol', [(np.float16, 3e-3), (np.float32, 1e-6),
                                        (np.float64, 1e-13)])
@pytest.mark.parametrize('scale', [1.0, 1.1, 0.5])
@pytest.mark.parametrize('shape', [(3, 5), (4, 4), (1, 6), (4, 2, 3, 3)])
def test_rows_orthonormal(shape, scale, dtype, tol):
    a = _draw(initializers.Orthogonal(scale, dtype), shape)
    assert a.dtype == dtype and a.shape == shape
    m = a.reshape(shape[0], -1).astype(np.float64) / scale
    np.testing.assert_allclose(m @ m.T, np.eye(shape[0]), atol=tol * 4)


@pytest.mark.parametrize('shape', [(5, 3), (7, 2), (8, 1, 2)])
def test_columns_orthonormal_when_tall(shape):
    a = _draw(initializers.Orthogonal(2.0, np.float64), shape)
    m = a.reshape(shape[0], -1) / 2.0
    np.testing.assert_allclose(m.T @ m, np.eye(m.shape[1]), atol=1e-13)


def test_qr_sign_is_fixed():
    # The result is Q of the drawn matrix with R's diagonal positive: Q^T A is upper
    # triangular with a positive diagonal.
    q = _draw(initializers.Orthogonal(1.0, np.float64), (4, 4), seed=3)
    np.random.seed(3)
    r = q.T @ np.random.normal(size=(4, 4))
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-12)
    assert (np.diag(r) > 0).all()


def test_seeding_reproduces():
    a = _draw(initializers.Orthogonal(), (5, 7), seed=1)
    np.testing.assert_array_equal(a, _draw(initializers.Orthogonal(), (5, 7), seed=1))
    assert not np.array_equal(a, _draw(initializers.Orthogonal(), (5, 7), seed=2))


def test_rng():
    a = np.empty((3, 3))
    initializers.Orthogonal(rng=np.random.RandomState(0))(a)
    np.testing.assert_array_equal(a, _draw(initializers.Orthogonal(), (3, 3), np.float64))


def test_scalar_gets_scale_with_a_sign():
    values = {float(_draw(initializers.Orthogonal(1.5), (), np.float64, seed=s))
              for s in range(10)}
    assert values == {-1.5, 1.5}


def test_vector_is_a_unit_vector():
    a = _draw(initializers.Orthogonal(1.0), (6,), np.float64)
    assert abs(np.linalg.norm(a) - 1) < 1e-12


@pytest.mark.parametrize('mode, shape', [
    ('projection', (2, 5)), ('projection', (3, 3)), ('embedding', (5, 2)),
    ('embedding', (3, 3)), ('basis', (3, 3)), ('basis', (2, 1, 2)), ('auto', (9, 2))])
def test_modes_accept(mode, shape):
    a = _draw(initializers.Orthogonal(mode=mode), shape, np.float32)
    assert a.shape == shape


@pytest.mark.parametrize('mode, shape', [
    ('projection', (5, 2)), ('embedding', (2, 5)), ('basis', (2, 3)), ('basis', (3, 2)),
    ('basis', (2, 2, 2))])
def test_modes_reject(mode, shape):
    with pytest.raises(ValueError, match="Orthogonal: mode '%s'" % mode):
        initializers.Orthogonal(mode=mode)(np.empty(shape, np.float32))


def test_unknown_mode():
    with pytest.raises(ValueError, match="Orthogonal: mode.*'mirror'"):
        initializers.Orthogonal(mode='mirror')


def test_empty_array():
    with pytest.raises(ValueError, match='Orthogonal.*empty'):
        initializers.Orthogonal()(np.empty((0, 3), np.float32))


def test_dtype_mismatch():
    with pytest.raises(ValueError, match='Orthogonal'):
        initializers.Orthogonal(dtype=np.float64)(np.empty((2, 2), np.float32))


def test_attributes():
    init = initializers.Orthogonal()
    assert (init.scale, init.dtype, init.mode, init.rng) == (1.1, None, 'auto', None)
