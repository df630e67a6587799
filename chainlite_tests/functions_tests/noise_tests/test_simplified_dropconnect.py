"""simplified_dropconnect: x W^T + b with randomly dropped, rescaled weights."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.noise.simplified_dropconnect import simplified_dropconnect
from chainlite.utils import type_check

# (x shape, out units M); x's axes after the first flatten into N input units.
CASES = [((3, 4), 2), ((2, 3, 2), 5), ((1, 2), 1)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _arrays(xshape, m, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    n_in = int(numpy.prod(xshape[1:]))
    return (rs.uniform(-1, 1, xshape).astype(dtype), rs.uniform(-1, 1, (m, n_in)).astype(dtype),
            rs.uniform(-1, 1, m).astype(dtype))


def _mask(xshape, m, batchwise, seed=1):
    n_in = int(numpy.prod(xshape[1:]))
    shape = ((xshape[0],) if batchwise else ()) + (m, n_in)
    return numpy.random.RandomState(seed).rand(*shape) >= 0.5


def _reference(x, W, b, mask, ratio):
    x = x.reshape(len(x), -1).astype(numpy.float64)
    Wm = W.astype(numpy.float64) * mask / (1 - ratio)
    y = numpy.einsum('ijk,ik->ij', Wm, x) if Wm.ndim == 3 else x @ Wm.T
    return y if b is None else y + b


@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('xshape, m', CASES)
def test_forward_with_random_mask(xshape, m, dtype, batchwise):
    x, W, b = _arrays(xshape, m, dtype)
    numpy.random.seed(7)
    y = simplified_dropconnect(chainlite.Variable(x), W, b, ratio=0.4,
                               use_batchwise_mask=batchwise)
    # The same draw from NumPy's global random state as Chainer's.
    numpy.random.seed(7)
    shape = ((xshape[0],) if batchwise else ()) + W.shape
    mask = numpy.random.rand(*shape) >= 0.4
    assert y.dtype == dtype and y.shape == (xshape[0], m)
    numpy.testing.assert_allclose(y.array, _reference(x, W, b, mask, 0.4), **TOL[dtype])


@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('xshape, m', CASES)
def test_given_mask_without_bias(xshape, m, batchwise):
    x, W, _ = _arrays(xshape, m)
    mask = _mask(xshape, m, batchwise)
    # A given mask decides its own layout; use_batchwise_mask is not used.
    y = simplified_dropconnect(x, W, ratio=0.5, mask=mask, use_batchwise_mask=not batchwise)
    numpy.testing.assert_allclose(y.array, _reference(x, W, None, mask, 0.5))


def test_test_mode_is_linear():
    x, W, b = _arrays((3, 4), 2)
    numpy.random.seed(0)
    state = numpy.random.get_state()[1].copy()
    y = simplified_dropconnect(x, W, b, train=False)
    numpy.testing.assert_allclose(y.array, x @ W.T + b)
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state)  # nothing drawn


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('batchwise', [True, False])
def test_node_reports_its_mask(train, batchwise):
    # As in Chainer, y.creator.mask is the mask used: one per sample with batchwise masks,
    # all weights kept in test mode.
    x, W, b = _arrays((3, 4), 2)
    y = simplified_dropconnect(chainlite.Variable(x), W, b, ratio=0.5, train=train,
                               use_batchwise_mask=batchwise)
    mask = y.creator.mask
    assert mask.shape == ((3,) if batchwise else ()) + W.shape and mask.dtype == bool
    if not train:
        assert mask.all()


def test_ratio_is_respected_on_average():
    numpy.random.seed(0)
    x, W = numpy.ones((1, 10000), numpy.float32), numpy.ones((1, 10000), numpy.float32)
    y = simplified_dropconnect(x, W, ratio=0.25)
    assert abs(y.array[0, 0] / 10000 - 1.0) < 0.03  # kept 75% of weights, scaled by 4/3


@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('xshape, m', CASES)
def test_backward(xshape, m, batchwise):
    inputs = _arrays(xshape, m)
    mask = _mask(xshape, m, batchwise)
    gy = numpy.random.RandomState(2).uniform(-1, 1, (xshape[0], m))
    gradient_check.check_backward(
        lambda x, W, b: simplified_dropconnect(x, W, b, ratio=0.3, mask=mask), inputs, gy)


def test_backward_test_mode():
    inputs = _arrays((2, 3, 2), 5)
    gy = numpy.random.RandomState(2).uniform(-1, 1, (2, 5))
    gradient_check.check_backward(
        lambda x, W, b: simplified_dropconnect(x, W, b, train=False), inputs, gy)


@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('xshape, m', CASES)
def test_double_backward(xshape, m, batchwise):
    inputs = _arrays(xshape, m)
    mask = _mask(xshape, m, batchwise)
    rs = numpy.random.RandomState(2)
    gy = rs.uniform(-1, 1, (xshape[0], m))
    ggs = tuple(rs.uniform(-1, 1, a.shape) for a in inputs)
    gradient_check.check_double_backward(
        lambda x, W, b: simplified_dropconnect(x, W, b, ratio=0.3, mask=mask) ** 2,
        inputs, gy, ggs)


def test_double_backward_test_mode():
    inputs = _arrays((3, 4), 2)
    rs = numpy.random.RandomState(2)
    gradient_check.check_double_backward(
        lambda x, W, b: simplified_dropconnect(x, W, b, train=False) ** 2, inputs,
        rs.uniform(-1, 1, (3, 2)), tuple(rs.uniform(-1, 1, a.shape) for a in inputs))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
@pytest.mark.parametrize('batchwise', [True, False])
def test_dtype_kept_in_forward_and_backward(dtype, batchwise):
    vs = [chainlite.Variable(a) for a in _arrays((3, 4), 2, dtype)]
    y = simplified_dropconnect(*vs, use_batchwise_mask=batchwise)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(v.grad.dtype == dtype for v in vs)


def test_arrays_and_variables_accepted():
    x, W, b = _arrays((3, 4), 2)
    mask = _mask((3, 4), 2, True)
    y1 = simplified_dropconnect(x, W, b, mask=mask)
    y2 = simplified_dropconnect(chainlite.Variable(x), chainlite.Variable(W), b, mask=mask)
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)


MSG = re.escape('Invalid operation is performed in: SimplifiedDropconnect (Forward)')


@pytest.mark.parametrize('x, W, b', [
    (numpy.ones((3, 4), numpy.int32), numpy.ones((2, 4)), None),
    (numpy.ones((3, 4)), numpy.ones((2, 4), numpy.int32), None),
    (numpy.ones(4), numpy.ones((2, 4)), None),                         # no batch axis
    (numpy.ones((3, 4)), numpy.ones((2, 5)), None),                    # N differs
    (numpy.ones((3, 4)), numpy.ones((2, 4)), numpy.ones(3)),           # M differs
    (numpy.ones((3, 4)), numpy.ones((2, 4)), numpy.ones(2, numpy.float32)),
])
def test_invalid_inputs(x, W, b):
    with pytest.raises(type_check.InvalidType, match=MSG):
        simplified_dropconnect(x, W, b)


@pytest.mark.parametrize('mask', [numpy.ones((2, 2, 4), bool), numpy.ones((3, 4, 2), bool),
                                  numpy.ones((4, 2), bool)])
def test_mask_of_wrong_shape(mask):
    with pytest.raises(type_check.InvalidType, match=MSG):
        simplified_dropconnect(numpy.ones((3, 4)), numpy.ones((2, 4)), mask=mask)


@pytest.mark.parametrize('ratio', [-0.5, 1.0])
def test_bad_ratio(ratio):
    with pytest.raises(ValueError, match='ratio'):
        simplified_dropconnect(numpy.ones((3, 4)), numpy.ones((2, 4)), ratio=ratio)
