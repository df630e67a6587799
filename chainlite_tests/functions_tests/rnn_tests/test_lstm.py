"""lstm: the LSTM cell with Chainer's interleaved gate layout, smaller batches of x."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.rnn.lstm import lstm
from chainlite.utils import type_check

# (rows of c_prev, rows of x, units, trailing axes)
CASES = [(3, 3, 2, ()),
         (3, 2, 2, ()),       # x's batch smaller: the last row of c passes through
         (1, 1, 1, ()),
         (3, 1, 3, (2,)),     # extra axes after the unit axis
         (2, 2, 2, (2, 1))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-13, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # The cell is smooth everywhere (tanh and sigmoid): any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(case, dtype=numpy.float64):
    rows, batch, units, tail = case
    return (_uniform((rows, units) + tail, dtype),
            _uniform((batch, 4 * units) + tail, dtype, seed=1))


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(c_prev, x):
    c_prev, x = c_prev.astype(numpy.float64), x.astype(numpy.float64)
    batch, units = len(x), c_prev.shape[1]
    c = c_prev.copy()
    h = numpy.empty((batch, units) + c_prev.shape[2:])
    for j in range(units):
        a, i, f, o = (x[:, 4 * j + k] for k in range(4))
        c[:batch, j] = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch, j]
        h[:, j] = numpy.tanh(c[:batch, j]) * _sigmoid(o)
    return c, h


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('case', CASES)
def test_forward(case, dtype):
    c_prev, x = _inputs(case, dtype)
    c, h = lstm(chainlite.Variable(c_prev), chainlite.Variable(x))
    c_ref, h_ref = _reference(c_prev, x)
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == c_ref.shape and h.shape == h_ref.shape
    numpy.testing.assert_allclose(c.array, c_ref, **TOL[dtype])
    numpy.testing.assert_allclose(h.array, h_ref, **TOL[dtype])
    # Rows past the batch of x are passed through exactly.
    numpy.testing.assert_array_equal(c.array[len(x):], c_prev[len(x):])


def test_gate_layout():
    # One unit, columns (a, i, f, o): a saturated forget gate keeps c_prev, a closed input
    # gate drops a, and o scales tanh(c).
    big = 30.0
    x = numpy.array([[5.0, -big, big, 0.0]])
    c, h = lstm(numpy.array([[0.25]]), x)
    numpy.testing.assert_allclose(c.array, [[0.25]], atol=1e-12)
    numpy.testing.assert_allclose(h.array, [[0.5 * numpy.tanh(0.25)]], atol=1e-12)
    # Two units: the gates of unit 1 are columns 4..7, not the second quarter split.
    x = numpy.zeros((1, 8))
    x[0, 4] = 1.0  # a of unit 1
    c, _ = lstm(numpy.zeros((1, 2)), x)
    numpy.testing.assert_allclose(c.array, [[0.0, numpy.tanh(1.0) * 0.5]], atol=1e-12)


@pytest.mark.parametrize('case', CASES)
def test_backward(case):
    c_prev, x = _inputs(case)
    gc = _uniform(c_prev.shape, seed=2)
    gh = _uniform((len(x),) + c_prev.shape[1:], seed=3)
    gradient_check.check_backward(lstm, (c_prev, x), (gc, gh))


@pytest.mark.parametrize('which', ['c', 'h'])
def test_backward_one_output(which):
    # The unused output's gradient arrives as None.
    c_prev, x = _inputs(CASES[1])
    gc = _uniform(c_prev.shape, seed=2) if which == 'c' else None
    gh = _uniform((len(x),) + c_prev.shape[1:], seed=3) if which == 'h' else None
    gradient_check.check_backward(lstm, (c_prev, x), (gc, gh))


@pytest.mark.parametrize('case', CASES)
def test_double_backward(case):
    c_prev, x = _inputs(case)
    gc = _uniform(c_prev.shape, seed=2)
    gh = _uniform((len(x),) + c_prev.shape[1:], seed=3)
    ggc, ggx = _uniform(c_prev.shape, seed=4), _uniform(x.shape, seed=5)
    gradient_check.check_double_backward(lstm, (c_prev, x), (gc, gh), (ggc, ggx))


def test_double_backward_one_output():
    c_prev, x = _inputs(CASES[1])
    gh = _uniform((len(x),) + c_prev.shape[1:], seed=3)
    gradient_check.check_double_backward(
        lambda c, x: lstm(c, x)[1], (c_prev, x), (gh,),
        (_uniform(c_prev.shape, seed=4), _uniform(x.shape, seed=5)))


def test_triple_backward():
    # The second-order node is built from differentiable functions too.
    c_prev, x = _inputs(CASES[1])
    gc = _uniform(c_prev.shape, seed=2)
    gh = _uniform((len(x),) + c_prev.shape[1:], seed=3)

    def first_order(c, x, gc, gh):
        return tuple(chainlite.grad(list(lstm(c, x)), [c, x], [gc, gh],
                                    enable_double_backprop=True))

    gradient_check.check_double_backward(
        first_order, (c_prev, x, gc, gh),
        (_uniform(c_prev.shape, seed=4), _uniform(x.shape, seed=5)),
        tuple(_uniform(a.shape, seed=6 + k) for k, a in enumerate((c_prev, x, gc, gh))))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_grads_keep_dtype(dtype):
    c_prev, x = _inputs(CASES[1], dtype)
    c_prev, x = chainlite.Variable(c_prev), chainlite.Variable(x)
    c, h = lstm(c_prev, x)
    loss = chainlite.functions.sum(c) + chainlite.functions.sum(h * h)
    loss.backward()
    assert c_prev.grad.dtype == dtype and x.grad.dtype == dtype


def test_float32_double_backprop_keeps_dtype():
    c_prev = chainlite.Variable(_uniform((3, 2), numpy.float32))
    x = chainlite.Variable(_uniform((2, 8), numpy.float32, seed=1))
    c, h = lstm(c_prev, x)
    gc, gx = chainlite.grad([c, h], [c_prev, x], enable_double_backprop=True)
    assert gc.dtype == numpy.float32 and gx.dtype == numpy.float32
    ggc, ggx = chainlite.grad([gc, gx], [c_prev, x])
    assert ggc.dtype == numpy.float32 and ggx.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    c_prev, x = _inputs(CASES[0])
    c_ref, h_ref = _reference(c_prev, x)
    for args in ((c_prev, x), (chainlite.Variable(c_prev), x), (c_prev, chainlite.Variable(x))):
        c, h = lstm(*args)
        assert isinstance(c, chainlite.Variable) and isinstance(h, chainlite.Variable)
        numpy.testing.assert_allclose(c.array, c_ref, rtol=1e-12)
        numpy.testing.assert_allclose(h.array, h_ref, rtol=1e-12)


def test_no_backprop_mode():
    c_prev = chainlite.Variable(_uniform((2, 1)))
    with chainlite.no_backprop_mode():
        c, h = lstm(c_prev, _uniform((2, 4), seed=1))
    assert c.creator is None and h.creator is None


def _invalid(c_prev, x):
    msg = re.escape('Invalid operation is performed in: LSTM (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        lstm(c_prev, x)


def test_gate_axis_must_be_four_times_the_units():
    _invalid(numpy.zeros((2, 3)), numpy.zeros((2, 8)))


def test_batch_of_x_must_not_exceed_that_of_c():
    _invalid(numpy.zeros((2, 2)), numpy.zeros((3, 8)))


def test_trailing_axes_must_agree():
    _invalid(numpy.zeros((2, 2, 3)), numpy.zeros((2, 8, 2)))
    _invalid(numpy.zeros((2, 2, 3)), numpy.zeros((2, 8)))


def test_dtypes_must_match_and_be_float():
    _invalid(numpy.zeros((2, 2), numpy.float32), numpy.zeros((2, 8), numpy.float64))
    _invalid(numpy.zeros((2, 2), numpy.int32), numpy.zeros((2, 8), numpy.int32))


def test_one_dimensional_inputs_are_invalid():
    _invalid(numpy.zeros(2), numpy.zeros(8))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_gate_inputs(dtype):
    from chainlite.functions.rnn.lstm import gate_inputs
    x, h = _uniform((3, 4), dtype), _uniform((3, 2), dtype, seed=1)
    Wu, Wl = _uniform((8, 4), dtype, seed=2), _uniform((8, 2), dtype, seed=3)
    b = _uniform((8,), dtype, seed=4)
    y = gate_inputs(x, h, Wu, Wl, b)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, x @ Wu.T + h @ Wl.T + b, **TOL[dtype])
    args = [a.astype(numpy.float64) for a in (x, h, Wu, Wl, b)]
    gy, ggs = _uniform((3, 8), seed=5), [_uniform(a.shape, seed=6 + k) for k, a in
                                         enumerate(args)]
    gradient_check.check_backward(gate_inputs, args, gy, dtype=numpy.float64)
    gradient_check.check_double_backward(gate_inputs, args, gy, ggs, dtype=numpy.float64)
