"""float16 convolutions, linear maps and matrix products: computed in float32, kept float16.

NumPy has no BLAS path for float16 matrix products (a plain loop, tens of times slower than
float32), so these functions multiply half-precision operands in float32 and cast the result
back. Outputs and gradients keep their inputs' dtypes, as on Chainer's CPU.
"""
import contextlib

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.functions.math import matmul as matmul_module


def _uniform(shape, seed):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


# name -> (function, shapes of x, W and b, keyword arguments)
CASES = {
    'convolution_2d': (F.convolution_2d, ((2, 3, 6, 5), (4, 3, 3, 2), (4,)), dict(pad=1)),
    'convolution_nd': (F.convolution_nd, ((2, 4, 5, 4, 3), (2, 2, 2, 2, 2), (2,)),
                       dict(stride=2, groups=2)),
    'deconvolution_2d': (F.deconvolution_2d, ((2, 3, 4, 3), (3, 2, 3, 3), (2,)),
                         dict(stride=2)),
    'deconvolution_nd': (F.deconvolution_nd, ((1, 2, 3, 3, 2), (2, 3, 2, 2, 2), (3,)), {}),
    'linear': (F.linear, ((3, 5), (4, 5), (4,)), {}),
    'linear_batch_axes': (F.linear, ((2, 3, 5), (4, 5), (4,)), dict(n_batch_axes=2)),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_float16_forward_and_gradients_match_float32(name):
    func, shapes, kwargs = CASES[name]
    x16, W16, b16 = (_uniform(s, i).astype(numpy.float16) for i, s in enumerate(shapes))
    gy_seed = 7

    def run(dtype):
        x, W, b = (chainlite.Variable(a.astype(dtype)) for a in (x16, W16, b16))
        y = func(x, W, b, **kwargs)
        y.grad = _uniform(y.shape, gy_seed).astype(numpy.float16).astype(dtype)
        y.backward()
        return y, x, W, b

    y16, *ins16 = run(numpy.float16)
    y32, *ins32 = run(numpy.float32)
    assert y16.dtype == numpy.float16
    numpy.testing.assert_allclose(y16.array, y32.array.astype(numpy.float16), rtol=1e-2,
                                  atol=1e-2)
    for v16, v32 in zip(ins16, ins32):
        assert v16.grad.dtype == numpy.float16
        numpy.testing.assert_allclose(v16.grad, v32.grad.astype(numpy.float16), rtol=1e-2,
                                      atol=2e-2)


@pytest.mark.parametrize('func', [F.matmul, F.batch_matmul])
def test_float16_matrix_products_match_float32(func):
    a16 = _uniform((3, 4, 5), 0).astype(numpy.float16)
    b16 = _uniform((3, 5, 2), 1).astype(numpy.float16)
    outs = {}
    for dtype in (numpy.float16, numpy.float32):
        a, b = chainlite.Variable(a16.astype(dtype)), chainlite.Variable(b16.astype(dtype))
        with pytest.warns(DeprecationWarning) if func is F.batch_matmul else \
                contextlib.nullcontext():
            y = func(a, b)
        y.grad = numpy.ones(y.shape, dtype)
        y.backward()
        outs[dtype] = y, a, b
    y16, a16v, b16v = outs[numpy.float16]
    y32, a32v, b32v = outs[numpy.float32]
    assert (y16.dtype, a16v.grad.dtype, b16v.grad.dtype) == (numpy.float16,) * 3
    numpy.testing.assert_allclose(y16.array, y32.array, rtol=1e-2, atol=1e-2)
    numpy.testing.assert_allclose(a16v.grad, a32v.grad, rtol=1e-2, atol=1e-2)


def test_mixed_dtypes_keep_each_inputs_dtype():
    # A float16 input with float32 filters: y has x's dtype, each gradient its input's.
    x = chainlite.Variable(_uniform((1, 2, 4, 4), 0).astype(numpy.float16))
    W = chainlite.Variable(_uniform((3, 2, 3, 3), 1).astype(numpy.float32))
    y = F.convolution_2d(x, W, pad=1)
    assert y.dtype == numpy.float16
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert (x.grad.dtype, W.grad.dtype) == (numpy.float16, numpy.float32)
    expect = F.convolution_2d(x.array.astype(numpy.float32), W.array, pad=1).array
    numpy.testing.assert_allclose(y.array, expect, rtol=1e-2, atol=1e-2)


def test_matmul_arrays_dtypes():
    a16 = numpy.ones((2, 3), numpy.float16)
    a64 = numpy.ones((3, 2), numpy.float64)
    assert matmul_module.matmul_arrays(a16, a16.T).dtype == numpy.float16
    assert matmul_module.matmul_arrays(a16, a64).dtype == numpy.float64
    a32 = numpy.ones((3, 2), numpy.float32)
    assert matmul_module.matmul_arrays(a16, a32).dtype == numpy.float32
    numpy.testing.assert_array_equal(matmul_module.matmul_arrays(a16, a32), numpy.full((2, 2), 3))


@pytest.mark.parametrize('func, W_shape', [
    (F.convolution_2d, (8, 4, 3, 3)),
    (F.deconvolution_2d, (4, 8, 3, 3)),
    (F.linear, None),
])
def test_float16_products_reach_blas_in_float32(monkeypatch, func, W_shape):
    # NumPy's float16 matrix product is a plain loop, hundreds of times slower than float32
    # BLAS: every product that forward and backward compute must see float32 operands.
    seen = []
    real_matmul = numpy.matmul

    def spy(a, b, *args, **kwargs):
        seen.append((numpy.asarray(a).dtype, numpy.asarray(b).dtype))
        return real_matmul(a, b, *args, **kwargs)

    monkeypatch.setattr(numpy, 'matmul', spy)
    if W_shape is None:
        x = chainlite.Variable(_uniform((6, 5), 0).astype(numpy.float16))
        W = chainlite.Variable(_uniform((3, 5), 1).astype(numpy.float16))
        y = func(x, W)
    else:
        x = chainlite.Variable(_uniform((2, 4, 6, 6), 0).astype(numpy.float16))
        W = chainlite.Variable(_uniform(W_shape, 1).astype(numpy.float16))
        y = func(x, W, pad=1)
    y.grad = numpy.ones(y.shape, numpy.float16)
    y.backward()
    assert y.dtype == x.grad.dtype == W.grad.dtype == numpy.float16
    assert seen, 'no matrix product went through numpy.matmul'
    assert all(d == numpy.float32 for pair in seen for d in pair), seen
