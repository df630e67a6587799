"""chainlite.utils.sparse: CooMatrix, to_coo and get_order."""
import numpy
import pytest

import chainlite
from chainlite.utils.sparse import CooMatrix
from chainlite.utils.sparse import get_order
from chainlite.utils.sparse import to_coo


def _sparse(shape, seed=0):
    rs = numpy.random.RandomState(seed)
    return rs.uniform(-1, 1, shape) * (rs.uniform(size=shape) < 0.4)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 4), (1, 1), (2, 3, 4), (3, 2, 2)])
def test_round_trip(shape, dtype):
    x = _sparse(shape).astype(dtype)
    m = to_coo(x)
    assert isinstance(m.data, chainlite.Variable) and m.data.dtype == dtype
    assert m.row.dtype == m.col.dtype == numpy.int32
    assert m.shape == shape[-2:] and m.order == 'C'
    numpy.testing.assert_array_equal(m.to_dense(), x)


def test_to_coo_lists_nonzeros_in_row_major_order():
    m = to_coo(numpy.array([[0, 2, 0], [-1, 0, 3]], numpy.float32))
    numpy.testing.assert_array_equal(m.data.array, [2, -1, 3])
    numpy.testing.assert_array_equal(m.row, [0, 1, 1])
    numpy.testing.assert_array_equal(m.col, [1, 0, 2])


def test_ldnz_pads_and_batches_share_a_length():
    m = to_coo(numpy.eye(2), ldnz=4)
    numpy.testing.assert_array_equal(m.data.array, [1, 1, 0, 0])
    numpy.testing.assert_array_equal(m.row, [0, 1, -1, -1])
    m = to_coo(numpy.stack([numpy.eye(3), numpy.zeros((3, 3))]))
    assert m.data.shape == (2, 3)
    numpy.testing.assert_array_equal(m.row[1], [-1, -1, -1])
    assert to_coo(numpy.eye(3), ldnz=1).data.shape == (3,)  # never fewer than the nonzeros


def test_requires_grad():
    assert not to_coo(numpy.eye(2)).data.requires_grad
    assert to_coo(numpy.eye(2), requires_grad=True).data.requires_grad


def test_variable_data_is_kept():
    d = chainlite.Variable(numpy.array([1.0, 2.0]))
    m = CooMatrix(d, numpy.array([0, 1]), numpy.array([1, 0]), (2, 2))
    assert m.data is d


def test_to_dense_adds_duplicates():
    m = CooMatrix(numpy.array([1.0, 2.0]), numpy.array([0, 0]), numpy.array([1, 1]), (1, 2))
    numpy.testing.assert_array_equal(m.to_dense(), [[0.0, 3.0]])


def test_get_order():
    assert get_order(numpy.array([0, 0, 1, -1]), numpy.array([0, 2, 1, -1])) == 'C'
    assert get_order(numpy.array([0, 1, 0]), numpy.array([0, 0, 1])) == 'F'
    assert get_order(numpy.array([1, 0, 1]), numpy.array([2, 1, 0])) == 'other'
    assert get_order(numpy.array([[0, 1], [1, 0]]), numpy.array([[0, 0], [0, 1]])) == 'F'
    with pytest.raises(ValueError):
        get_order(numpy.array([0, -1]), numpy.array([0, 1]))


@pytest.mark.parametrize('args', [
    (numpy.ones(()), numpy.zeros((), int), numpy.zeros((), int), (2, 2)),
    (numpy.ones(2), numpy.zeros(3, int), numpy.zeros(3, int), (2, 2)),
    (numpy.ones(2), numpy.zeros(2), numpy.zeros(2), (2, 2)),            # float indices
    (numpy.ones(2), numpy.zeros(2, int), numpy.zeros(2, int), (2, 2, 2)),
    (numpy.ones(2), numpy.zeros(2, int), numpy.zeros(2, int), (0, 2)),
])
def test_invalid_coo_matrix(args):
    with pytest.raises(ValueError, match='CooMatrix'):
        CooMatrix(*args)
    with pytest.raises(ValueError, match='order'):
        CooMatrix(numpy.ones(1), numpy.zeros(1, int), numpy.zeros(1, int), (1, 1), order='X')


@pytest.mark.parametrize('x', [numpy.ones(3), numpy.ones((1, 1, 1, 1))])
def test_to_coo_needs_2d_or_3d(x):
    with pytest.raises(ValueError, match='to_coo'):
        to_coo(x)
