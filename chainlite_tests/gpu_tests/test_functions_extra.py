"""GPU paths of the math, activation, array and attention functions that the device matrix
(``test_functions.py``) does not reach: other index kinds, options, Chainer's helper
functions and nodes, constants cached by an earlier CPU call, transfers between devices.

Each test runs the same code on NumPy arrays and on the GPU module (the strict CuPy
stand-in, or real CuPy under ``CHAINLITE_TEST_GPU=1``), checks that every result is a GPU
array and that it equals the CPU's.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import backend
from chainlite.backends import cuda
from chainlite.utils import sparse


def _tol(dtype):
    return {numpy.float16: 2e-3, numpy.float32: 1e-5}.get(numpy.dtype(dtype).type, 1e-10)


def _close(gpu_result, cpu_result, gpu_xp, rtol=None):
    assert isinstance(gpu_result, gpu_xp.ndarray), type(gpu_result)
    assert gpu_result.dtype == cpu_result.dtype and gpu_result.shape == cpu_result.shape
    rtol = _tol(cpu_result.dtype) if rtol is None else rtol
    numpy.testing.assert_allclose(cuda.to_cpu(gpu_result), cpu_result, rtol=rtol, atol=rtol)


def _run(f, arrays, xp, grads=True):
    """Outputs of ``f`` at ``arrays`` (host ones, sent by ``xp``), and the gradients of the
    float inputs for a fixed upstream gradient, as arrays of ``xp``."""
    vs = [chainlite.Variable(xp.asarray(a)) for a in arrays]
    ys = f(*vs)
    ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
    out = [y.array for y in ys]
    if grads:
        ys = [y for y in ys if y.dtype.kind == 'f']
        gys = [chainlite.Variable(xp.asarray(
            numpy.random.RandomState(i).uniform(-1, 1, y.shape).astype(y.dtype)))
            for i, y in enumerate(ys)]
        gxs = chainlite.grad(ys, vs, gys)
        out += [g.array for g in gxs if g is not None]
    return out


def _same(f, arrays, gpu_xp, grads=True, rtol=None):
    """``f`` gives on the GPU what it gives on the CPU (outputs and gradients)."""
    cpu = _run(f, arrays, numpy, grads)
    gpu = _run(f, arrays, gpu_xp, grads)
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        _close(g, c, gpu_xp, rtol)
    return gpu


def _u(*shape, lo=-1.0, hi=1.0, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(lo, hi, shape).astype(dtype)


# -- basic_math: scalar constants ----------------------------------------------------------


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_operator_constants_cached_on_the_cpu_mix_with_gpu_arrays(dtype, gpu_xp):
    ops = [lambda x: x + 2, lambda x: 2 + x, lambda x: x - 3, lambda x: 3 - x,
           lambda x: x * 1.5, lambda x: 1.5 * x, lambda x: x / 4, lambda x: 4 / x,
           lambda x: x ** 2, lambda x: 2 ** x, lambda x: -x + 0.5]
    x = _u(2, 3, lo=0.5, hi=2, dtype=dtype)
    for op in ops:
        op(chainlite.Variable(x))  # fills the CPU's constant cache first
        _same(op, [x], gpu_xp)


def test_preprocess_rhs_puts_a_scalar_on_the_variables_device(gpu_xp):
    from chainlite.functions.math import basic_math
    v = chainlite.Variable(gpu_xp.ones(2, numpy.float32))
    c = basic_math._preprocess_rhs(v, 2.0)
    assert isinstance(c, gpu_xp.ndarray) and c.dtype == numpy.float32 and float(c) == 2.0
    with pytest.raises(TypeError, match='Value must be a scalar'):
        v + 'a'


# -- special functions ------------------------------------------------------------------------


def test_special_of_picks_the_module_of_the_arrays(gpu_xp):
    from chainlite.functions import _scipy
    import scipy.special
    assert _scipy.special_of(numpy.ones(1)).erf is scipy.special.erf
    assert _scipy.special_of(2.0, numpy.ones(1)).erf is scipy.special.erf
    gpu_special = _scipy.special_of(1, gpu_xp.ones(1))
    assert gpu_special is _scipy.gpu_special()
    y = gpu_special.erf(gpu_xp.ones(2))
    assert isinstance(y, gpu_xp.ndarray)
    numpy.testing.assert_allclose(cuda.to_cpu(y), scipy.special.erf(numpy.ones(2)))


def test_special_of_without_a_gpu_says_why(monkeypatch):
    from chainlite.functions import _scipy
    monkeypatch.setattr(cuda, '_cupy', lambda: cuda.check_cuda_available())
    if cuda.available:
        pytest.skip('a GPU is available')
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        _scipy.gpu_special()


@pytest.mark.parametrize('name', ['erf', 'erfc', 'erfcx', 'erfinv', 'erfcinv', 'ndtr',
                                  'ndtri', 'log_ndtr', 'digamma', 'lgamma', 'gelu'])
def test_special_functions_second_order_on_gpu(name, gpu_xp):
    f = getattr(F, name)
    lo, hi = (0.1, 0.9) if name in ('erfinv', 'ndtri', 'erfcinv') else (0.5, 2.0)

    def second(x):
        y = f(x)
        gx, = chainlite.grad([y], [x], [chainlite.Variable(x.array * 0 + 1)],
                             enable_double_backprop=True)
        return gx
    _same(second, [_u(5, lo=lo, hi=hi)], gpu_xp)


def test_polygamma_and_zeta_with_device_orders(gpu_xp):
    n = numpy.array([0, 1, 2])
    _same(lambda x: F.polygamma(chainlite.Variable(backend.get_array_module(x).asarray(n)),
                                x), [_u(3, lo=0.5, hi=2)], gpu_xp)
    _same(lambda q: F.zeta(backend.get_array_module(q).full(3, 2.5), q),
          [_u(3, lo=0.5, hi=2)], gpu_xp)


# -- reductions, linear algebra ----------------------------------------------------------------


def test_full_reductions_give_0d_gpu_arrays(gpu_xp):
    x = _u(3, 4)
    for f in (F.max, F.min, F.sum, F.mean, F.prod, F.logsumexp):
        out = _same(f, [x], gpu_xp)
        assert out[0].shape == ()
    _same(lambda x: F.max(x, axis=(0, 1), keepdims=True), [x], gpu_xp)


def test_argmax_argmin_on_gpu(gpu_xp):
    x = _u(3, 4)
    for f in (F.argmax, F.argmin):
        for axis in (None, 0, 1):
            cpu = f(x, axis).array
            gpu = f(gpu_xp.asarray(x), axis).array
            assert isinstance(gpu, gpu_xp.ndarray) and gpu.dtype == numpy.int32
            numpy.testing.assert_array_equal(cuda.to_cpu(gpu), cpu)
        node = {F.argmax: F.math.argmax.ArgMax, F.argmin: F.math.argmin.ArgMin}[f]
        y, = node(1).apply((gpu_xp.asarray(x),))
        assert isinstance(y.array, gpu_xp.ndarray)
        numpy.testing.assert_array_equal(cuda.to_cpu(y.array), f(x, 1).array)


def test_piecewise_constant_functions_on_gpu(gpu_xp):
    x = _u(2, 3, lo=-3, hi=3)
    for f in (F.ceil, F.floor, F.fix, F.sign):
        _same(f, [x], gpu_xp, grads=False)


def test_det_inv_batch_forms_on_gpu(gpu_xp):
    a = _u(2, 3, 3) + 3 * numpy.eye(3)
    _same(F.batch_det, [a], gpu_xp)
    _same(F.batch_inv, [a], gpu_xp)
    _same(F.det, [a[0]], gpu_xp)
    _same(F.inv, [a[0]], gpu_xp)


def test_average_with_weights_and_count_on_gpu(gpu_xp):
    x = _u(3, 4)
    w = _u(4, lo=0.5, hi=1.5)
    _same(lambda x: F.average(x, axis=1, weights=backend.get_array_module(x).asarray(w)),
          [x], gpu_xp)
    _same(lambda x, w: F.average(x, axis=1, weights=w), [x, w], gpu_xp)
    cpu_y, cpu_n = F.average(x, axis=0, returned=True)
    gpu_y, gpu_n = F.average(gpu_xp.asarray(x), axis=0, returned=True)
    _close(gpu_y.array, cpu_y.array, gpu_xp)
    _close(gpu_n.array, cpu_n.array, gpu_xp)


def test_second_order_with_one_gradient_missing_on_gpu(gpu_xp):
    # BatchMatMulGrad and LinearInterpolateGrad fill an absent gradient with zeros.
    from chainlite.functions.math import batch_matmul

    def batch(a, b, gy):
        ga, gb = batch_matmul.BatchMatMulGrad(False, False).apply((a, b, gy))
        return ga  # gb's gradient is absent
    _same(batch, [_u(2, 3, 4), _u(2, 4, 2, seed=1), _u(2, 3, 2, seed=2)], gpu_xp)

    def interp(p, x, y):
        z = F.linear_interpolate(p, x, y)
        gp, gx, gy = chainlite.grad([z], [p, x, y], [chainlite.Variable(z.array * 0 + 1)],
                                    enable_double_backprop=True)
        return gx
    _same(interp, [_u(3, lo=0.2, hi=0.8), _u(3, seed=1), _u(3, seed=2)], gpu_xp)


def test_clip_grad_node_on_gpu(gpu_xp):
    from chainlite.functions.math import clip
    x, gy = _u(2, 3), _u(2, 3, seed=1)
    cpu, = clip.ClipGrad(x, -0.3, 0.4).apply((gy,))
    gpu, = clip.ClipGrad(gpu_xp.asarray(x), -0.3, 0.4).apply((gpu_xp.asarray(gy),))
    _close(gpu.array, cpu.array, gpu_xp)
    _same(lambda x: F.clip(x, -0.3, None), [x], gpu_xp)


@pytest.mark.parametrize('axis', [None, 0, 1])
def test_prod_and_cumprod_axes_on_gpu(axis, gpu_xp):
    x = _u(3, 4, lo=0.5, hi=1.5)
    _same(lambda x: F.prod(x, axis=axis), [x], gpu_xp)
    if axis is not None:
        _same(lambda x: F.cumprod(x, axis=axis), [x], gpu_xp)
    x[1, 2] = 0  # the gradient's branch for zeros
    _same(lambda x: F.cumprod(x, axis=axis), [x], gpu_xp)


# -- sparse products ---------------------------------------------------------------------------


def _coo(xp, batch):
    dense = numpy.array([[[0.0, 1.5, 0.0, 2.0], [-2.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]],
                         [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, -1.0, 0.0, 0.0]]])
    return sparse.to_coo(xp.asarray(dense if batch else dense[0]), ldnz=6 if batch else None)


@pytest.mark.parametrize('batch', [False, True])
@pytest.mark.parametrize('transa,transb', [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_sparse_matmul_both_sides_batches_and_transposes_on_gpu(batch, transa, transb,
                                                               gpu_xp):
    lead = (2,) if batch else ()
    k = 3 if transa else 4
    b = _u(*(lead + ((2, k) if transb else (k, 2))))

    def left(b):
        return F.sparse_matmul(_coo(backend.get_array_module(b), batch), b, transa, transb)
    _same(left, [b], gpu_xp)

    a = _u(*(lead + ((4, 2) if transa else (2, 4))), seed=1)

    def right(a):
        return F.sparse_matmul(a, _coo(backend.get_array_module(a), batch), transa, transb)
    if not transb:
        a = _u(*(lead + ((3, 2) if transa else (2, 3))), seed=1)
    _same(right, [a], gpu_xp)


def test_sparse_matmul_data_gradient_on_gpu(gpu_xp):
    def f(data, b):
        xp = backend.get_array_module(b)
        coo = _coo(xp, True)
        m = sparse.CooMatrix(data, coo.row, coo.col, coo.shape)
        return F.sparse_matmul(m, b)
    coo = _coo(numpy, True)
    data = coo.data.array + _u(*coo.data.shape, lo=0.1, hi=0.2)
    gpu = _same(f, [data, _u(2, 4, 3)], gpu_xp)
    assert len(gpu) == 3


def test_sparse_matmul_chainer_helpers_on_gpu(gpu_xp):
    from chainlite.functions.math import sparse_matmul as sm
    coo = _coo(numpy, False)
    B = _u(4, 2)
    A, C = _u(3, 5), _u(5, 4, seed=1)
    cpu = sm._coo_matmul_cpu(coo.data.array, coo.row, coo.col, coo.shape, B, numpy.float32)
    row, col = gpu_xp.asarray(coo.row), gpu_xp.asarray(coo.col)
    gpu = sm._coo_matmul_gpu(gpu_xp.asarray(coo.data.array), row, col, coo.shape, 'C',
                             gpu_xp.asarray(B), numpy.float32)
    _close(gpu, cpu, gpu_xp)
    cpu = sm._coo_matmul_gradsp_cpu(A, C, coo.row, coo.col, numpy.float64)
    gpu = sm._coo_matmul_gradsp_gpu(gpu_xp.asarray(A), gpu_xp.asarray(C), row, col,
                                    numpy.float64)
    _close(gpu, cpu, gpu_xp)
    # Host row and col with device operands.
    y, = sm.CooMatMulGradSP(coo.row, coo.col, coo.shape).apply(
        (gpu_xp.asarray(A), gpu_xp.asarray(C)))
    _close(y.array, cpu, gpu_xp)


def test_sparse_matmul_refuses_two_dense_operands_on_gpu(gpu_xp):
    with pytest.raises(ValueError, match='one operand must be a CooMatrix'):
        F.sparse_matmul(gpu_xp.ones((2, 2)), gpu_xp.ones((2, 2)))


# -- indexing ----------------------------------------------------------------------------------


@pytest.mark.parametrize('index', [
    [2, 0, 2],
    (slice(None), [1, 1, 0]),
    numpy.array([[0, 2], [2, 2]]),
    (numpy.array([True, False, True]),),
    (Ellipsis, None, 1),
    (slice(None, None, -1), numpy.array([3, 0])),
], ids=['list', 'tuple-list', 'numpy-2d', 'bool', 'ellipsis', 'reversed'])
def test_get_item_host_indexes_on_gpu(index, gpu_xp):
    _same(lambda x: F.get_item(x, index), [_u(3, 4)], gpu_xp)
    _same(lambda x: x[index], [_u(3, 4)], gpu_xp)


def test_get_item_device_indexes_and_grad_node_on_gpu(gpu_xp):
    idx = numpy.array([0, 2, 0, 0])
    _same(lambda x: F.get_item(x, backend.get_array_module(x).asarray(idx)), [_u(3, 2)],
          gpu_xp)
    _same(lambda x: F.get_item(x, chainlite.Variable(backend.get_array_module(x).asarray(idx))),
          [_u(3, 2)], gpu_xp)
    from chainlite.functions.array import get_item
    gy = _u(4, 2)
    cpu, = get_item.GetItemGrad(idx, (3, 2)).apply((gy,))
    gpu, = get_item.GetItemGrad(idx, (3, 2)).apply((gpu_xp.asarray(gy),))
    _close(gpu.array, cpu.array, gpu_xp)
    numpy.testing.assert_allclose(cpu.array[0], gy[[0, 2, 3]].sum(axis=0))  # repeats add up


@pytest.mark.parametrize('index', [
    numpy.array([0, 0, 2]),
    [0, 0, 2],
    (slice(None), numpy.array([1, 1])),
    numpy.array([True, False, True]),
], ids=['repeated', 'list', 'columns', 'bool'])
def test_scatter_add_indexes_on_gpu(index, gpu_xp):
    a = _u(3, 2)
    b_shape = numpy.zeros((3, 2))[index].shape
    b = _u(*b_shape, seed=1)
    _same(lambda a, b: F.scatter_add(a, index, b), [a, b], gpu_xp)

    def device_index(a, b):
        xp = backend.get_array_module(a)
        i = tuple(xp.asarray(s) if isinstance(s, numpy.ndarray) else s for s in index) \
            if isinstance(index, tuple) else xp.asarray(index)
        return F.scatter_add(a, i, b)
    _same(device_index, [a, b], gpu_xp)


def test_scatter_add_checks_shapes_of_device_indexes(gpu_xp):
    a = chainlite.Variable(gpu_xp.zeros((3, 2)))
    with pytest.raises(ValueError):
        F.scatter_add(a, gpu_xp.asarray([0, 1]), gpu_xp.zeros((3, 2)))
    with pytest.raises(IndexError, match='too many indices'):
        F.scatter_add(a, (0, 0, gpu_xp.asarray([0])), gpu_xp.zeros(1))


def test_permutate_and_its_index_check_on_gpu(gpu_xp):
    from chainlite.functions.array import permutate
    idx = numpy.array([2, 0, 1], numpy.int32)
    for inv in (False, True):
        _same(lambda x: F.permutate(x, backend.get_array_module(x).asarray(idx), inv=inv),
              [_u(3, 2)], gpu_xp)
    permutate._check_indices(gpu_xp.asarray(idx))
    with pytest.raises(ValueError, match='duplicate'):
        permutate._check_indices(gpu_xp.asarray([0, 0, 1]))
    # GPU indices are read on the host in debug mode only (as Chainer).
    bad = gpu_xp.asarray(numpy.array([0, 0, 1], numpy.int32))
    with chainlite.using_config('debug', True):
        with pytest.raises(ValueError, match='permutation'):
            F.permutate(gpu_xp.zeros((3, 2)), bad)
        with pytest.raises(ValueError, match='out of range'):
            F.permutate(gpu_xp.zeros((3, 2)), gpu_xp.asarray(numpy.array([0, 3, 1], numpy.int32)))
    assert isinstance(F.permutate(gpu_xp.zeros((3, 2)), bad).array, gpu_xp.ndarray)


# -- shapes and layouts ------------------------------------------------------------------------


@pytest.mark.parametrize('args', [
    ((4,), (-1,), 3),
    ((3, 2), (1, 1), 0),
    ((2, 2), (2, 1), None),
])
def test_as_strided_of_views_on_gpu(args, gpu_xp):
    def f(x):
        return F.as_strided(x[1:], *args)  # a view: its memory starts before it
    _same(f, [_u(6)], gpu_xp)


def test_as_strided_chainer_helpers_on_gpu(gpu_xp):
    from chainlite.functions.array import as_strided as m
    x = numpy.arange(12.0)
    g = gpu_xp.asarray(x)
    view = m._stride_array(g[2:], (3, 2), (-2, 1), 6)
    assert isinstance(view, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(view),
                                     m._stride_array(x[2:], (3, 2), (-2, 1), 6))
    geo = m.TensorGeometry(g[3:9:2])
    cpu_geo = m.TensorGeometry(x[3:9:2])
    assert (geo.shape, geo.strides, geo.storage_offset) == (
        cpu_geo.shape, cpu_geo.strides, cpu_geo.storage_offset)
    y, = m.AsStrided((2, 2), (1, 2), 1).apply((g,))
    assert isinstance(y.array, gpu_xp.ndarray)
    gx, = m.AsStridedGrad(geo, (2,), (2,), 3).apply((gpu_xp.ones(2),))
    cgx, = m.AsStridedGrad(cpu_geo, (2,), (2,), 3).apply((numpy.ones(2),))
    _close(gx.array, cgx.array, gpu_xp)
    with pytest.raises(TypeError, match='numpy.ndarray or cupy.ndarray'):
        m._stride_array([1.0], (1,), (1,), 0)


def test_transpose_sequence_and_its_helper_on_gpu(gpu_xp):
    from chainlite.functions.array import transpose_sequence
    xs = [_u(4, 2), _u(2, 2, seed=1), _u(2, 2, seed=2), _u(0, 2)]
    _same(lambda *xs: F.transpose_sequence(xs), xs, gpu_xp)
    cpu = transpose_sequence._transpose(xs, 5)
    gpu = transpose_sequence._transpose([gpu_xp.asarray(x) for x in xs], 5)
    for c, g in zip(cpu, gpu):
        _close(g, c, gpu_xp)


@pytest.mark.parametrize('repeats,axis', [([1, 0, 2], 0), ([2, 1], 1), ((0, 0, 3), 0),
                                          (2, None), ([1, 2, 0, 1, 1, 3], None)])
def test_repeat_runs_on_gpu(repeats, axis, gpu_xp):
    _same(lambda x: F.repeat(x, repeats, axis), [_u(3, 2)], gpu_xp)


def test_resize_images_chainer_helpers_on_gpu(gpu_xp):
    from chainlite.functions.array import resize_images as ri
    x = _u(2, 3, 4, 5)
    v, u, vw, uw = ri.compute_indices_and_weights((6, 7), (4, 5), 'bilinear', False, numpy)
    v, u, vw, uw = numpy.broadcast_arrays(v[:, None].astype(numpy.intp),
                                          u[None].astype(numpy.intp), vw[:, None], uw[None])
    dev = [gpu_xp.asarray(a) for a in (v, u, vw, uw)]
    y = ri.interpolate_bilinear_gpu(gpu_xp.asarray(x), *dev)
    _close(y, ri.interpolate_bilinear_cpu(x, v, u, vw, uw), gpu_xp)
    gy = _u(2, 3, 6, 7, seed=1)
    gx = ri.interpolate_grad_bilinear_gpu(gpu_xp.asarray(gy), *dev, 4, 5)
    _close(gx, ri.interpolate_grad_bilinear_cpu(gy, v, u, vw, uw, 4, 5), gpu_xp)


# -- activations, attention --------------------------------------------------------------------


def test_prelu_and_swish_gradient_nodes_on_gpu(gpu_xp):
    from chainlite.functions.activation import prelu
    x, W, gy = _u(2, 3), _u(3, seed=1), _u(2, 3, seed=2)
    for axes in ((0,), None):
        ext = (1, 3)
        cpu = prelu.PReLUFunctionGrad(x, axes, ext).apply((x, W if axes else W[None], gy))
        dev = [gpu_xp.asarray(a) for a in (x, W if axes else W[None], gy)]
        gpu = prelu.PReLUFunctionGrad(dev[0], axes, ext).apply(dev)
        for c, g in zip(cpu, gpu):
            _close(g.array, c.array, gpu_xp)

    def swish2(x, beta):
        y = F.swish(x, beta)
        gx, gb = chainlite.grad([y], [x, beta], [chainlite.Variable(y.array * 0 + 1)],
                                enable_double_backprop=True)
        return gx + 0 * F.sum(gb)
    _same(swish2, [x, _u(3, seed=3)], gpu_xp)


def test_attention_with_masks_causal_and_no_keys_on_gpu(gpu_xp):
    q, k, v = _u(2, 3, 4), _u(2, 5, 4, seed=1), _u(2, 5, 2, seed=2)
    mask = numpy.random.RandomState(3).uniform(size=(3, 5)) > 0.3
    mask[0] = False  # a row masked everywhere
    _same(lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, backend.get_array_module(q).asarray(mask), is_causal=True), [q, k, v],
        gpu_xp)
    _same(lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, backend.get_array_module(q).asarray(_u(3, 5, seed=4))), [q, k, v], gpu_xp)
    out = _same(lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
                [q, _u(2, 0, 4), _u(2, 0, 2)], gpu_xp)
    assert not cuda.to_cpu(out[0]).any()


# -- device transfers --------------------------------------------------------------------------


def test_copy_between_host_and_gpus(gpu_xp):
    x = _u(2, 3)
    # Host to GPU: the gradient comes back to the host.
    v = chainlite.Variable(x)
    y = F.copy(v, '@cupy:0')
    assert isinstance(y.array, gpu_xp.ndarray) and y.array.device.id == 0
    numpy.testing.assert_array_equal(cuda.to_cpu(y.array), x)
    y.grad = gpu_xp.ones((2, 3))
    y.backward()
    assert type(v.grad) is numpy.ndarray
    numpy.testing.assert_array_equal(v.grad, numpy.ones((2, 3)))
    # GPU to host, and the gradient back to the GPU.
    g = chainlite.Variable(gpu_xp.asarray(x))
    h = F.copy(g, -1)
    assert type(h.array) is numpy.ndarray
    numpy.testing.assert_array_equal(h.array, x)
    h.grad = numpy.full((2, 3), 2.0)
    h.backward()
    assert isinstance(g.grad, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(g.grad), numpy.full((2, 3), 2.0))
    assert type(F.copy(gpu_xp.asarray(x), cuda.DummyDevice).array) is numpy.ndarray


def test_copy_between_gpus_and_onto_the_same_gpu(gpu_xp):
    if gpu_xp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('one GPU')
    x = _u(3)
    with cuda.get_device_from_id(1):
        g1 = chainlite.Variable(gpu_xp.asarray(x))
    assert g1.array.device.id == 1
    y = F.copy(g1, 0)
    assert y.array.device.id == 0
    numpy.testing.assert_array_equal(cuda.to_cpu(y.array), x)
    y.grad = gpu_xp.ones(3)
    y.backward()
    assert isinstance(g1.grad, gpu_xp.ndarray) and g1.grad.device.id == 1
    same = F.copy(g1, '@cupy:1')
    assert same.array is not g1.array and same.array.device.id == 1
    same.array[0] = 100.0
    assert float(g1.array[0]) == x[0]  # a copy, never a view
    y2 = F.copy(chainlite.Variable(gpu_xp.asarray(x)), backend.GpuDevice(1))
    assert y2.array.device.id == 1
