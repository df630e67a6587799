"""einsum: explicit and implicit outputs, diagonals, ellipsis, sublists, several operands."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.einsum import einsum
from chainlite.utils import type_check

# (subscripts, operand shapes); NumPy's einsum is the reference for all of them.
CASES = [('ij,jk->ik', [(2, 3), (3, 4)]),
         ('ij,jk', [(2, 3), (3, 4)]),                    # implicit output
         ('ij,ik,jkl->il', [(3, 4), (3, 5), (4, 5, 2)]),
         ('ji', [(2, 3)]),                               # implicit: a transpose
         ('ij->', [(2, 3)]),
         ('->', [()]),
         (',i->i', [(), (3,)]),
         ('i,i', [(3,), (3,)]),
         ('i,j->ij', [(2,), (3,)]),
         ('ii->i', [(3, 3)]),                            # diagonal
         ('ii', [(3, 3)]),                               # trace
         ('iij->ji', [(2, 2, 3)]),
         ('ii,i->i', [(3, 3), (3,)]),
         ('...j,...k,jkl', [(3, 4), (3, 5), (4, 5, 2)]),
         ('i...,...->i...', [(2, 3, 4), (3, 4)]),
         ('i...->i', [(3,)]),                            # '...' of no axis may be left out
         ('...ij,...jk->...ik', [(2, 2, 3), (2, 3, 4)]),
         ('bij,bjk->bki', [(2, 2, 3), (2, 3, 2)]),
         ('Ab,bA', [(2, 3), (3, 2)])]                    # upper-case letters
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(shapes, dtype=numpy.float64, seed=0):
    # A multilinear op is smooth everywhere: any values will do.
    rs = numpy.random.RandomState(seed)
    return tuple(numpy.asarray(rs.uniform(-1, 1, s)).astype(dtype) for s in shapes)


def _reference(subscripts, xs):
    return numpy.einsum(subscripts, *[x.astype(numpy.float64) for x in xs])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('subscripts, shapes', CASES)
def test_forward(subscripts, shapes, dtype):
    xs = _inputs(shapes, dtype)
    y = einsum(subscripts, *[chainlite.Variable(x) for x in xs])
    expected = _reference(subscripts, xs)
    assert y.shape == expected.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('subscripts, shapes', CASES)
def test_backward(subscripts, shapes):
    xs = _inputs(shapes)
    gy = _inputs([_reference(subscripts, xs).shape], seed=1)
    gradient_check.check_backward(lambda *xs: einsum(subscripts, *xs), xs, gy)


@pytest.mark.parametrize('subscripts, shapes', CASES)
def test_double_backward(subscripts, shapes):
    xs = _inputs(shapes)
    gy = _inputs([_reference(subscripts, xs).shape], seed=1)
    ggx = _inputs(shapes, seed=2)
    gradient_check.check_double_backward(lambda *xs: einsum(subscripts, *xs), xs, gy, ggx)


@pytest.mark.parametrize('subscripts, shapes', [
    ('...->', [(2,)]), ('i...->i', [(2, 3, 4)]), ('j...i->ij', [(2, 1, 3)]),
    ('i,...i->', [(2,), (3, 2)]),
])
def test_sum_over_ellipsis_is_refused(subscripts, shapes):
    # As in Chainer (NumPy's semantics there were undefined): an explicit output keeps '...'.
    with pytest.raises(ValueError, match="summing over the axes of '...'"):
        einsum(subscripts, *_inputs(shapes))


def test_diag_einsum_writes_diagonals_and_broadcasts():
    # The gradient's node, usable alone as in Chainer: its output shape is given.
    from chainlite.functions.math.einsum import DiagEinSum
    x, = _inputs([(3,)])
    y = DiagEinSum(in_subs='i', out_sub='ii', out_shape=(3, 3)).apply((x,))[0]
    numpy.testing.assert_array_equal(y.array, numpy.diag(x))
    s, v = _inputs([(), (2,)])
    y = DiagEinSum(',i', 'ij', (2, 3)).apply((s, v))[0]
    numpy.testing.assert_allclose(y.array, numpy.repeat((s * v)[:, None], 3, axis=1))
    for subs, out, shapes, out_shape in [('i', 'ij', [(3,)], (3, 4)), ('', 'i', [()], (3,)),
                                         (',ij', 'i', [(), (3, 4)], (3,))]:
        xs = _inputs(shapes)
        gy = _inputs([out_shape], seed=1)
        ggx = _inputs(shapes, seed=2)

        def f(*xs, subs=subs, out=out, out_shape=out_shape):
            return DiagEinSum(subs, out, out_shape).apply(xs)[0]
        gradient_check.check_backward(f, xs, gy)
        gradient_check.check_double_backward(f, xs, gy, ggx)


def test_sublist_format():
    a, b, w = _inputs([(3, 4), (3, 5), (4, 5, 2)])
    expected = numpy.einsum('ij,ik,jkl->il', a, b, w)
    for y in (einsum(a, [0, 1], b, [0, 2], w, [1, 2, 3], [0, 3]),
              einsum(a, [Ellipsis, 1], b, [Ellipsis, 2], w, [1, 2, 3])):
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


def test_spaces_are_ignored():
    a, b = _inputs([(2, 3), (3, 4)])
    numpy.testing.assert_allclose(einsum(' ij , jk -> ik ', a, b).array, a @ b, rtol=1e-12)


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs([(3, 3), (3,)], numpy.float32)]
    y = einsum('ii,i->i', *xs)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)
    # The diagonal gets the gradient, the rest of the matrix none.
    numpy.testing.assert_array_equal(xs[0].grad, numpy.diag(xs[1].array))


def test_arrays_and_variables_accepted():
    a, b = _inputs([(2, 3), (3, 4)])
    for y in (einsum('ij,jk', a, b), einsum('ij,jk', chainlite.Variable(a), b)):
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, a @ b, rtol=1e-12)


_MSG = re.escape('Invalid operation is performed in: EinSum (Forward)')


@pytest.mark.parametrize('subscripts, xs', [
    ('ij,jk', (numpy.ones((2, 3)), numpy.ones((4, 5)))),            # sizes of j differ
    ('ii', (numpy.ones((2, 3)),)),                                  # not square
    ('ij', (numpy.ones(3),)),                                       # too few axes
    ('i', (numpy.ones((2, 3)),)),                                   # too many axes
    ('...ij', (numpy.ones(3),)),
    ('i,i', (numpy.ones(3), numpy.ones(3, numpy.float32))),         # dtypes differ
    ('i,i', (numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32))),
    ('...i,...i', (numpy.ones((2, 3)), numpy.ones((4, 3)))),        # '...' sizes differ
    ('...i,...i', (numpy.ones(2), numpy.ones((1, 2)))),             # no broadcasting
    ('i...,j...', (numpy.ones((2, 3)), numpy.ones((3, 2)))),
])
def test_invalid_types(subscripts, xs):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        einsum(subscripts, *xs)


@pytest.mark.parametrize('subscripts, n', [
    ('ij,jk', 1),            # fewer operands than terms
    ('ij', 2),
    ('ij->k', 1),            # output letter not in the inputs
    ('ij->ii', 1),           # repeated output letter
    ('i->j->k', 1),
    ('i-j', 1),
    ('i$', 1),
    ('..i', 1),
])
def test_invalid_subscripts(subscripts, n):
    with pytest.raises(ValueError, match='einsum'):
        einsum(subscripts, *[numpy.ones((2, 2))] * n)


def test_bad_sublist_and_operand():
    with pytest.raises(TypeError, match='sublist'):
        einsum(numpy.ones(2), ['a'])
    with pytest.raises(TypeError, match='operand'):
        einsum('i', [1.0, 2.0])
    with pytest.raises(ValueError, match='operands'):
        einsum()
