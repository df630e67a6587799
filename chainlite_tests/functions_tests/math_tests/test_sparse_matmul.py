"""sparse_matmul: sparse @ dense and dense @ sparse, batches, transposes, padded entries."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.sparse_matmul import sparse_matmul
from chainlite.utils import type_check
from chainlite.utils.sparse import CooMatrix
from chainlite.utils.sparse import to_coo

TRANS = [(False, False), (True, False), (False, True), (True, True)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _operands(sparse_left, transa, transb, batch, dtype=numpy.float64, seed=0):
    # The product is (3 x 4) @ (4 x 5); about half of the sparse matrix's entries are zero.
    # A bilinear op is smooth everywhere: any values will do.
    rs = numpy.random.RandomState(seed)
    shapes = [(3, 4), (4, 5)]
    ops = [rs.uniform(-1, 1, s) for s in shapes]
    k = 0 if sparse_left else 1
    ops[k] *= rs.uniform(size=shapes[k]) < 0.5
    ops = [o.T if t else o for o, t in zip(ops, (transa, transb))]
    if batch:
        ops = [numpy.stack([o, -2 * o[::-1, ::-1]]) for o in ops]
    return [numpy.ascontiguousarray(o, dtype) for o in ops]


def _reference(a, b, transa, transb):
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    return (a.swapaxes(-1, -2) if transa else a) @ (b.swapaxes(-1, -2) if transb else b)


def _func(sp, sparse_left, transa, transb):
    # The sparse operand's entries become an input of the checked function.
    def f(data, dense):
        m = CooMatrix(data, sp.row, sp.col, sp.shape)
        return sparse_matmul(m, dense, transa, transb) if sparse_left else \
            sparse_matmul(dense, m, transa, transb)
    return f


PARAMS = [(left, ta, tb, batch) for left in (True, False) for ta, tb in TRANS
          for batch in (False, True)]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('sparse_left, transa, transb, batch', PARAMS)
def test_forward(sparse_left, transa, transb, batch, dtype):
    a, b = _operands(sparse_left, transa, transb, batch, dtype)
    if sparse_left:
        y = sparse_matmul(to_coo(a), chainlite.Variable(b), transa, transb)
    else:
        y = sparse_matmul(chainlite.Variable(a), to_coo(b), transa, transb)
    expected = _reference(a, b, transa, transb)
    assert y.shape == expected.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('sparse_left, transa, transb, batch', PARAMS)
def test_backward(sparse_left, transa, transb, batch):
    a, b = _operands(sparse_left, transa, transb, batch)
    sp = to_coo(a if sparse_left else b, ldnz=12)  # with padding entries
    dense = b if sparse_left else a
    gy = numpy.random.RandomState(1).uniform(-1, 1, _reference(a, b, transa, transb).shape)
    gradient_check.check_backward(_func(sp, sparse_left, transa, transb),
                                  (sp.data.array, dense), (gy,))


@pytest.mark.parametrize('sparse_left, transa, transb, batch', PARAMS)
def test_double_backward(sparse_left, transa, transb, batch):
    a, b = _operands(sparse_left, transa, transb, batch)
    sp = to_coo(a if sparse_left else b, ldnz=12)
    dense = b if sparse_left else a
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, _reference(a, b, transa, transb).shape)
    ggs, ggd = rs.uniform(-1, 1, sp.data.shape), rs.uniform(-1, 1, dense.shape)
    gradient_check.check_double_backward(_func(sp, sparse_left, transa, transb),
                                         (sp.data.array, dense), (gy,), (ggs, ggd))


def test_gradients_of_entries_and_padding():
    a = numpy.array([[0.0, 2.0], [-1.0, 0.0]])
    sp = to_coo(a, ldnz=4, requires_grad=True)
    b = chainlite.Variable(numpy.array([[1.0, 0.5], [3.0, -1.0]]))
    y = sparse_matmul(sp, b)
    y.grad = numpy.ones((2, 2))
    y.backward()
    # dL/da = gy @ b^T at the stored entries; padding entries get 0.
    full = numpy.ones((2, 2)) @ b.array.T
    numpy.testing.assert_array_equal(sp.data.grad, [full[0, 1], full[1, 0], 0.0, 0.0])
    numpy.testing.assert_array_equal(b.grad, a.T @ numpy.ones((2, 2)))


def test_sparse_data_without_requires_grad_gets_none():
    sp = to_coo(numpy.eye(2))
    b = chainlite.Variable(numpy.ones((2, 2)))
    y = sparse_matmul(sp, b)
    y.grad = numpy.ones((2, 2))
    y.backward()
    assert sp.data.grad is None and b.grad is not None


@pytest.mark.parametrize('sparse_left', [True, False])
def test_float32_in_float32_out(sparse_left):
    a, b = _operands(sparse_left, False, False, True, numpy.float32)
    sp = to_coo(a if sparse_left else b, requires_grad=True)
    dense = chainlite.Variable(b if sparse_left else a)
    y = sparse_matmul(sp, dense) if sparse_left else sparse_matmul(dense, sp)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert sp.data.grad.dtype == numpy.float32 and dense.grad.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    a, b = _operands(True, False, False, False)
    for dense in (b, chainlite.Variable(b)):
        y = sparse_matmul(to_coo(a), dense)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, a @ b, rtol=1e-12)


@pytest.mark.parametrize('sp, dense', [
    (to_coo(numpy.eye(3)), numpy.ones((4, 2))),                  # inner sizes differ
    (to_coo(numpy.eye(3)), numpy.ones((2, 3, 2))),               # batch dense, single sparse
    (to_coo(numpy.ones((2, 3, 3))), numpy.ones((3, 3, 2))),      # batch sizes differ
    (to_coo(numpy.eye(3)), numpy.ones(3)),                       # 1-D dense
    (to_coo(numpy.eye(3)), numpy.ones((3, 2), numpy.int32)),     # dense not float
    (to_coo(numpy.eye(3, dtype=numpy.int32)), numpy.ones((3, 2), numpy.int32)),
])
def test_invalid(sp, dense):
    msg = re.escape('Invalid operation is performed in: CooMatMul (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        sparse_matmul(sp, dense)


def test_operands_must_be_one_sparse_and_one_dense():
    sp, dense = to_coo(numpy.eye(2)), numpy.eye(2)
    for a, b in ((dense, dense), (sp, sp), (sp, [[1.0, 0.0], [0.0, 1.0]])):
        with pytest.raises(ValueError, match='CooMatrix'):
            sparse_matmul(a, b)
