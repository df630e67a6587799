"""embed_id: lookup, ignore_label, repeated ids, gradients, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.connection.embed_id import embed_id
from chainlite.utils import type_check

# (ids, number of rows of W, ignore_label)
CASES = [
    (numpy.array([2, 0, 3]), 4, None),
    (numpy.array([1, 1, 3, 1]), 4, None),                 # repeated ids
    (numpy.array([[0, 2], [2, 2], [1, 0]]), 3, None),     # 2-d ids
    (numpy.array([[0, -1], [2, -1]]), 3, -1),             # ignored ids
    (numpy.array([3, 0, 3]), 4, 3),                       # a valid id can be the ignored one
    (numpy.array([-1, -1]), 2, -1),                       # everything ignored
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
ID_DTYPES = [numpy.int8, numpy.int32, numpy.int64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Lookup is linear in W: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _reference(x, W, ignore_label):
    y = W[numpy.where(x == ignore_label, 0, x)]
    if ignore_label is not None:
        y[x == ignore_label] = 0
    return y


@pytest.mark.parametrize('id_dtype', ID_DTYPES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x, n, ignore_label', CASES)
def test_forward(x, n, ignore_label, dtype, id_dtype):
    x = x.astype(id_dtype)
    W = _uniform((n, 3), dtype)
    y = embed_id(chainlite.Variable(x), chainlite.Variable(W), ignore_label)
    assert y.shape == x.shape + (3,)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _reference(x, W, ignore_label))


@pytest.mark.parametrize('x, n, ignore_label', CASES)
def test_backward(x, n, ignore_label):
    W, gy = _uniform((n, 3)), _uniform(x.shape + (3,), seed=1)
    gradient_check.check_backward(lambda x, W: embed_id(x, W, ignore_label), (x, W), (gy,))


@pytest.mark.parametrize('x, n, ignore_label', CASES)
def test_double_backward(x, n, ignore_label):
    W, gy = _uniform((n, 3)), _uniform(x.shape + (3,), seed=1)
    ggW = _uniform((n, 3), seed=2)
    gradient_check.check_double_backward(
        lambda x, W: embed_id(x, W * W, ignore_label), (x, W), (gy,), (ggW,))


def test_repeated_ids_add_up_and_ignored_ids_send_nothing():
    W = chainlite.Variable(numpy.zeros((3, 2), numpy.float32))
    y = embed_id(numpy.array([1, 2, 1, 0, 1], numpy.int32), W, ignore_label=0)
    numpy.testing.assert_array_equal(y.array[3], [0.0, 0.0])
    y.grad = numpy.arange(10, dtype=numpy.float32).reshape(5, 2)
    y.backward()
    numpy.testing.assert_array_equal(W.grad, [[0.0, 0.0], [0 + 4 + 8, 1 + 5 + 9], [2.0, 3.0]])
    assert W.grad.dtype == numpy.float32


def test_ids_get_no_gradient():
    x = chainlite.Variable(numpy.array([0, 1]))
    W = chainlite.Variable(_uniform((2, 2)))
    y = embed_id(x, W)
    y.grad = numpy.ones((2, 2))
    y.backward()
    assert x.grad is None


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    W = chainlite.Variable(_uniform((4, 3), dtype))
    y = embed_id(numpy.array([[1, 3], [3, -1]], numpy.int32), W, ignore_label=-1)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert W.grad.dtype == dtype
    gW, = chainlite.grad([y], [W], enable_double_backprop=True)
    assert gW.dtype == dtype


def test_arrays_accepted():
    W = _uniform((3, 2))
    y = embed_id(numpy.array([2, 0]), W)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, W[[2, 0]])


_MSG = re.escape('Invalid operation is performed in: EmbedIDFunction (Forward)')


@pytest.mark.parametrize('x, W', [
    (numpy.array([0.0, 1.0]), numpy.ones((2, 2))),                 # float ids
    (numpy.array([True, False]), numpy.ones((2, 2))),              # boolean ids
    (numpy.array(1), numpy.ones((2, 2))),                          # 0-d ids
    (numpy.array([0, 1]), numpy.ones((2, 2), numpy.int32)),        # integer W
    (numpy.array([0, 1]), numpy.ones((2, 2, 2))),                  # W not a matrix
], ids=['float ids', 'bool ids', '0-d ids', 'int W', '3-d W'])
def test_bad_types_are_invalid(x, W):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        embed_id(x, W)


@pytest.mark.parametrize('x, ignore_label', [([0, 3], None), ([-1, 0], None), ([-2, 0], -1)])
def test_ids_out_of_range_are_value_errors(x, ignore_label):
    with pytest.raises(ValueError, match='embed_id'):
        embed_id(numpy.array(x), numpy.ones((3, 2)), ignore_label)


@pytest.mark.parametrize('n_rows', [7, 3000])  # the one-hot product and the sorted sums
def test_gradient_sums_the_rows_of_repeated_ids(n_rows):
    rs = numpy.random.RandomState(4)
    x = rs.randint(0, 5, (4, 6)).astype(numpy.int32)  # ids repeat
    W = chainlite.Parameter(rs.uniform(-1, 1, (n_rows, 3)).astype(numpy.float32))
    gy = rs.uniform(-1, 1, (4, 6, 3)).astype(numpy.float32)
    y = embed_id(x, W)
    y.grad = gy
    y.backward()
    expected = numpy.zeros((n_rows, 3), numpy.float32)
    numpy.add.at(expected, x.ravel(), gy.reshape(-1, 3))
    assert W.grad.dtype == numpy.float32
    numpy.testing.assert_allclose(W.grad, expected, rtol=1e-6, atol=1e-6)
