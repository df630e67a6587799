"""bilinear: with and without linear parameters, non-matrix inputs, gradients, dtypes, errors."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.connection.bilinear import bilinear
from chainlite.utils import type_check

# (e1 shape, e2 shape, L)
SHAPES = [((4, 3), (4, 2), 5), ((3, 2, 2), (3, 3), 2), ((1, 1), (1, 4), 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A polynomial: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(e1_shape, e2_shape, n_out, linear, dtype=numpy.float64):
    j, k = int(numpy.prod(e1_shape[1:])), int(numpy.prod(e2_shape[1:]))
    shapes = [e1_shape, e2_shape, (j, k, n_out)]
    if linear:
        shapes += [(j, n_out), (k, n_out), (n_out,)]
    return tuple(_uniform(s, dtype, seed=i) for i, s in enumerate(shapes))


def _reference(e1, e2, W, V1=None, V2=None, b=None):
    e1, e2 = e1.reshape(len(e1), -1), e2.reshape(len(e2), -1)
    y = numpy.einsum('ij,ik,jkl->il', e1, e2, W)
    if V1 is not None:
        y = y + e1 @ V1 + e2 @ V2 + b
    return y


@pytest.mark.parametrize('linear', [False, True])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('e1_shape, e2_shape, n_out', SHAPES)
def test_forward(e1_shape, e2_shape, n_out, dtype, linear):
    inputs = _inputs(e1_shape, e2_shape, n_out, linear, dtype)
    y = bilinear(*[chainlite.Variable(a) for a in inputs])
    expected = _reference(*[a.astype(numpy.float64) for a in inputs])
    assert y.shape == (e1_shape[0], n_out)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('linear', [False, True])
@pytest.mark.parametrize('e1_shape, e2_shape, n_out', SHAPES)
def test_backward(e1_shape, e2_shape, n_out, linear):
    inputs = _inputs(e1_shape, e2_shape, n_out, linear)
    gy = _uniform((e1_shape[0], n_out), seed=10)
    gradient_check.check_backward(bilinear, inputs, (gy,))


@pytest.mark.parametrize('linear', [False, True])
@pytest.mark.parametrize('e1_shape, e2_shape, n_out', SHAPES)
def test_double_backward(e1_shape, e2_shape, n_out, linear):
    inputs = _inputs(e1_shape, e2_shape, n_out, linear)
    gy = _uniform((e1_shape[0], n_out), seed=10)
    ggs = tuple(_uniform(a.shape, seed=20 + i) for i, a in enumerate(inputs))
    gradient_check.check_double_backward(bilinear, inputs, (gy,), ggs)


@pytest.mark.parametrize('linear', [False, True])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype, linear):
    xs = [chainlite.Variable(a) for a in _inputs((3, 2, 2), (3, 3), 2, linear, dtype)]
    y = bilinear(*xs)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    for x in xs:
        assert x.grad.dtype == dtype
        assert x.grad.shape == x.shape


def test_arrays_accepted_and_keywords():
    e1, e2, W, V1, V2, b = _inputs((2, 3), (2, 2), 4, True)
    y = bilinear(e1, e2, W, V1=V1, V2=V2, b=b)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _reference(e1, e2, W, V1, V2, b))


@pytest.mark.parametrize('given', [('V1',), ('V1', 'V2'), ('b',)])
def test_some_linear_parameters_only_is_a_value_error(given):
    e1, e2, W, V1, V2, b = _inputs((2, 3), (2, 2), 4, True)
    kwargs = {name: {'V1': V1, 'V2': V2, 'b': b}[name] for name in given}
    with pytest.raises(ValueError, match='bilinear'):
        bilinear(e1, e2, W, **kwargs)


_MSG = re.escape('Invalid operation is performed in: BilinearFunction (Forward)')


def _bad(i, value):
    inputs = list(_inputs((2, 3), (2, 2), 4, True))
    inputs[i] = value
    return inputs


@pytest.mark.parametrize('inputs', [
    _bad(0, numpy.ones((2, 3), numpy.int32)),        # integer e1
    _bad(1, numpy.ones((2, 2), numpy.float32)),      # dtypes differ
    _bad(0, numpy.ones(3)),                          # e1 without a batch axis
    _bad(1, numpy.ones((3, 2))),                     # batch sizes differ
    _bad(0, numpy.ones((2, 4))),                     # e1 does not match W
    _bad(2, numpy.ones((3, 2))),                     # W not 3-d
    _bad(3, numpy.ones((3, 5))),                     # V1 of the wrong shape
    _bad(4, numpy.ones((3, 4))),                     # V2 of the wrong shape
    _bad(5, numpy.ones((4, 1))),                     # b not 1-d
], ids=['int e1', 'mixed dtypes', '1-d e1', 'batch', 'e1 vs W', '2-d W', 'V1', 'V2', 'b'])
def test_bad_types_are_invalid(inputs):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        bilinear(*inputs)
