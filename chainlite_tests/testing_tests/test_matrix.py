"""testing.generate_matrix: matrices with the singular values asked for, and its errors."""
import numpy
import pytest

from chainlite.testing import generate_matrix
from chainlite.testing import matrix


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64,
                                   numpy.complex64, numpy.complex128])
@pytest.mark.parametrize('shape, s_shape', [((2, 2), (2,)), ((2, 3), (2,)), ((3, 2), (2,)),
                                            ((2, 3, 4), (2, 3)), ((2, 2), ()),
                                            ((2, 3, 4), (2, 1))])
def test_singular_values(shape, s_shape, dtype):
    rs = numpy.random.RandomState(0)
    sv = rs.uniform(0.5, 1.5, s_shape)
    x = generate_matrix(shape, dtype=dtype, singular_values=sv)
    assert x.shape == shape and x.dtype == dtype
    got = numpy.linalg.svd(x.astype(numpy.complex128), compute_uv=False)
    want = numpy.sort(numpy.broadcast_to(sv, got.shape), axis=-1)[..., ::-1]
    numpy.testing.assert_allclose(got, want, rtol=1e-3 if dtype == numpy.float16 else 1e-6)


def test_empty_shapes():
    assert generate_matrix((0, 2, 3), singular_values=numpy.ones((0, 2))).shape == (0, 2, 3)
    assert generate_matrix((0, 0), singular_values=numpy.ones(0)).shape == (0, 0)


@pytest.mark.parametrize('kwargs, error, match', [
    ({'shape': (2, 2)}, TypeError, 'singular_values is required'),
    ({'shape': (2,), 'singular_values': 1}, ValueError, 'at least two axes'),
    ({'shape': (2, 2), 'dtype': numpy.int32, 'singular_values': 1}, TypeError,
     'float or complex'),
    ({'shape': (2, 2), 'singular_values': 1 + 0j}, TypeError, 'must be real'),
    ({'shape': (2, 2), 'singular_values': [1, -1]}, ValueError, 'non-negative'),
    ({'shape': (2, 2), 'singular_values': numpy.ones(3)}, ValueError, 'do not broadcast'),
    ({'shape': (0, 2, 2), 'singular_values': numpy.ones(3)}, ValueError, 'do not broadcast'),
])
def test_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        generate_matrix(**kwargs)


def test_broadcast_helper_is_a_view():
    a = numpy.arange(3.0)
    b = matrix._broadcast_to(a, (2, 3))
    assert b.shape == (2, 3) and numpy.shares_memory(a, b)
