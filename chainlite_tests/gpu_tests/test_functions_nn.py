"""Normalization, pooling, connection and recurrent functions on a GPU array module.

The options that the function matrix (test_functions.py) does not reach: running statistics
updated in place, pooling indices, cover_all, dilate, groups, N-d convolutions and poolings,
unpooling and upsampling, recurrent dropout, im2col / col2im. Each case runs the same code
on the CPU and on the GPU (the strict CuPy stand-in, or real CuPy under
``CHAINLITE_TEST_GPU=1``): the outputs and the first- and second-order gradients must match,
and every GPU result must be a GPU array.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.backends import cuda
from chainlite.utils import conv
from chainlite.utils import conv_nd

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
_TOL = {numpy.float64: (1e-7, 1e-9), numpy.float32: (1e-4, 1e-5), numpy.float16: (2e-2, 2e-3)}


def _u(rng, *shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape)


def _distinct(rng, *shape):
    # Well-separated values: no ties for the max poolings to break differently.
    return rng.permutation(numpy.prod(shape, dtype=int)).reshape(shape) / 4.0 - 1.0


def _flat(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    flat = []
    for o in out:
        flat.extend(o if isinstance(o, (tuple, list)) else [o])
    return [o for o in flat if isinstance(o, chainlite.Variable) and o.dtype.kind == 'f']


def _run(f, arrays, xp, order):
    # f's outputs, then (order >= 1) its gradients and (order == 2) their gradients.
    numpy.random.seed(3)
    seeds = numpy.random.RandomState(7)
    vs = [chainlite.Variable(a) for a in arrays]
    ys = _flat(f(*vs))
    results = [y.array for y in ys]
    if order == 0:
        return results
    gys = [xp.asarray(seeds.uniform(-1, 1, y.shape).astype(y.dtype)) for y in ys]
    gxs = chainlite.grad(ys, vs, gys, enable_double_backprop=order == 2)
    results += [g.array for g in gxs if g is not None]
    live = [g for g in gxs if g is not None and g.creator is not None]
    if order == 2 and live:
        ggs = [xp.asarray(seeds.uniform(-1, 1, g.shape).astype(g.dtype)) for g in live]
        results += [g.array for g in chainlite.grad(live, vs, ggs) if g is not None]
    return results


def _assert_same(cpu, gpu, gpu_xp, dtype):
    rtol, atol = _TOL[numpy.dtype(dtype).type]
    assert len(cpu) == len(gpu)
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        assert isinstance(g, gpu_xp.ndarray), 'result %d is %s' % (i, type(g))
        assert g.dtype == c.dtype and g.shape == c.shape, i
        numpy.testing.assert_allclose(cuda.to_cpu(g), c, rtol=rtol, atol=atol,
                                      err_msg='result %d' % i)


def _compare(f, host, gpu_xp, order=2, dtype=None):
    """Runs ``f`` on the host arrays and on their GPU copies; the results must agree."""
    dtype = dtype or next((a.dtype for a in host if a.dtype.kind == 'f'), numpy.float64)
    cpu = _run(f, host, numpy, order)
    gpu = _run(f, [gpu_xp.asarray(a) for a in host], gpu_xp, order)
    _assert_same(cpu, gpu, gpu_xp, dtype)
    return cpu, gpu


def _on(xp, host):
    return host if xp is numpy else xp.asarray(host)


DTYPES = [numpy.float64, numpy.float32, numpy.float16]
dtypes = pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)


# -- normalization ------------------------------------------------------------------------------

@dtypes
def test_batch_normalization_running_statistics_on_gpu(dtype, gpu_xp):
    rng = numpy.random.default_rng(0)
    x, gamma, beta = _u(rng, 5, 3, 2).astype(dtype), _u(rng, 3).astype(dtype), \
        _u(rng, 3).astype(dtype)
    stats = {}
    for xp in (numpy, gpu_xp):
        mean = _on(xp, numpy.linspace(0, 1, 3).astype(dtype))
        var = _on(xp, numpy.linspace(1, 2, 3).astype(dtype))
        y = F.batch_normalization(_on(xp, x), _on(xp, gamma), _on(xp, beta),
                                  running_mean=mean, running_var=var, decay=0.8)
        stats[xp] = (y.array, mean, var)
    _assert_same(list(stats[numpy]), list(stats[gpu_xp]), gpu_xp, dtype)


@dtypes
def test_batch_renormalization_running_statistics_on_gpu(dtype, gpu_xp):
    rng = numpy.random.default_rng(1)
    x, gamma, beta = _u(rng, 6, 3).astype(dtype), _u(rng, 3).astype(dtype), \
        _u(rng, 3).astype(dtype)
    out = {}
    for xp in (numpy, gpu_xp):
        mean = _on(xp, numpy.full(3, 0.1, dtype))
        var = _on(xp, numpy.full(3, 0.9, dtype))
        y = F.batch_renormalization(_on(xp, x), _on(xp, gamma), _on(xp, beta), 2.0, 1.0,
                                    running_mean=mean, running_var=var, decay=0.7)
        out[xp] = (y.array, mean, var)
    _assert_same(list(out[numpy]), list(out[gpu_xp]), gpu_xp, dtype)


    def renorm(x, g, b):
        xp = backend_of(x)
        return F.batch_renormalization(x, g, b, 1.5, 0.5, running_mean=xp.zeros(3, dtype),
                                       running_var=xp.ones(3, dtype))

    _compare(renorm, [x, gamma, beta], gpu_xp)


@dtypes
def test_decorrelated_batch_normalization_running_statistics_on_gpu(dtype, gpu_xp):
    rng = numpy.random.default_rng(2)
    x = _u(rng, 8, 4, 2).astype(dtype)
    out = {}
    for xp in (numpy, gpu_xp):
        mean = _on(xp, numpy.zeros((2, 2), dtype))
        proj = _on(xp, numpy.broadcast_to(numpy.eye(2, dtype=dtype), (2, 2, 2)).copy())
        y = F.decorrelated_batch_normalization(_on(xp, x), groups=2, running_mean=mean,
                                               running_projection=proj)
        out[xp] = (y.array, mean, proj)
    _assert_same(list(out[numpy]), list(out[gpu_xp]), gpu_xp, dtype)
    mean, proj = _u(rng, 2, 2).astype(dtype), _u(rng, 2, 2, 2).astype(dtype)
    _compare(lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=2),
             [x, mean, proj], gpu_xp)


def test_decorrelated_batch_normalization_nodes_on_gpu(gpu_xp):
    # Chainer's node classes, with the eigendecomposition they keep.
    from chainlite.functions.normalization import decorrelated_batch_normalization as dbn
    rng = numpy.random.default_rng(3)
    x, gy = _u(rng, 6, 4), _u(rng, 6, 4)

    def f(x, gy):
        node = dbn.DecorrelatedBatchNormalization(groups=2)
        y, = node.apply((x,))
        grad = dbn.DecorrelatedBatchNormalizationGrad(2, node.eigvals, node.eigvectors,
                                                      node.y_hat_pca)
        return (y,) + grad.apply((gy,))

    _compare(f, [x, gy], gpu_xp, order=1)


def test_batch_normalization_impls_on_gpu(gpu_xp):
    # Chainer's implementation objects: the cuDNN one computes as the general one on a GPU.
    from chainlite.functions.normalization import batch_normalization as bn
    rng = numpy.random.default_rng(18)
    x, gamma, beta, gy = _u(rng, 4, 3, 2, 2), _u(rng, 3), _u(rng, 3), _u(rng, 4, 3, 2, 2)
    expander = (None, slice(None), None, None)
    out = {}
    for xp, impl in ((numpy, bn.GeneralBatchNormalizationImpl()),
                     (gpu_xp, bn._CudnnBatchNormalizationImpl(True, None))):
        mean, var = _on(xp, numpy.zeros(3)), _on(xp, numpy.ones(3))
        args = [_on(xp, a) for a in (x, gamma, beta, gy)]
        y, _, _, _, m, v, inv_std, _ = impl.forward(
            (0, 2, 3), args[1], args[0], None, xp, expander, args[2], 2e-5, 0.9, mean, var)
        gx, _, ggamma, gbeta = impl.backward((0, 2, 3), args[1], args[3], args[0], None, xp,
                                             expander, m, inv_std, 2e-5, v, None)
        out[xp] = [y, mean, var, gx, ggamma, gbeta]
    _assert_same(out[numpy], out[gpu_xp], gpu_xp, numpy.float64)


@pytest.mark.parametrize('axis', [None, 0, (0, 2)])
def test_batch_and_fixed_batch_normalization_axes_on_gpu(axis, gpu_xp):
    rng = numpy.random.default_rng(4)
    x = _u(rng, 4, 3, 2)
    shape = (3, 2) if axis == 0 else (3,)
    gamma, beta, mean, var = (_u(rng, *shape), _u(rng, *shape), _u(rng, *shape),
                              _u(rng, *shape, lo=0.5, hi=1.5))
    _compare(lambda x, g, b: F.batch_normalization(x, g, b, axis=axis), [x, gamma, beta],
             gpu_xp)
    _compare(lambda x, g, b, m, v: F.fixed_batch_normalization(x, g, b, m, v, axis=axis),
             [x, gamma, beta, mean, var], gpu_xp)


def test_normalizations_with_options_on_gpu(gpu_xp):
    rng = numpy.random.default_rng(5)
    x = _u(rng, 2, 6, 3, 2)
    _compare(lambda x: F.local_response_normalization(x, n=3, k=1.5, alpha=0.2, beta=0.6),
             [x], gpu_xp)
    _compare(lambda x: F.normalize(x, axis=(1, 2)), [x], gpu_xp)
    _compare(lambda x, g, b: F.group_normalization(x, 3, g, b), [x, _u(rng, 6), _u(rng, 6)],
             gpu_xp)
    _compare(lambda x, g, b: F.layer_normalization(x, g, b), [x[:, :, 0, 0], _u(rng, 6),
                                                              _u(rng, 6)], gpu_xp)


# -- pooling ------------------------------------------------------------------------------------

@pytest.mark.parametrize('cover_all', [True, False])
@dtypes
def test_max_and_average_pooling_2d_on_gpu(cover_all, dtype, gpu_xp):
    rng = numpy.random.default_rng(6)
    x = _distinct(rng, 2, 2, 5, 5).astype(dtype)
    _compare(lambda x: F.max_pooling_2d(x, 3, 2, 1, cover_all=cover_all), [x], gpu_xp)
    _compare(lambda x: F.average_pooling_2d(x, 3, 2, 1), [x], gpu_xp)
    _compare(lambda x: F.average_pooling_2d(x, 3, 2, 1, pad_value=None), [x], gpu_xp)


@pytest.mark.parametrize('ndim', [1, 2, 3])
@pytest.mark.parametrize('cover_all', [True, False])
def test_nd_poolings_on_gpu(ndim, cover_all, gpu_xp):
    rng = numpy.random.default_rng(7)
    x = _distinct(rng, 2, 2, *(4,) * ndim)
    _compare(lambda x: F.max_pooling_nd(x, 3, 2, 1, cover_all=cover_all), [x], gpu_xp)
    _compare(lambda x: F.average_pooling_nd(x, 3, 2, 1), [x], gpu_xp)
    _compare(lambda x: F.average_pooling_nd(x, 3, 2, 1, pad_value=None), [x], gpu_xp)
    _compare(lambda x: F.unpooling_nd(x, 2, cover_all=cover_all), [x], gpu_xp)


def test_pooling_indices_unpooling_and_upsampling_on_gpu(gpu_xp):
    rng = numpy.random.default_rng(8)
    x = _distinct(rng, 1, 2, 4, 6)
    out = {}
    for xp in (numpy, gpu_xp):
        y, indexes = F.max_pooling_2d(_on(xp, x), 2, return_indices=True)
        out[xp] = indexes
        assert isinstance(indexes, xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(out[gpu_xp]), out[numpy])

    def up(x):
        y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        return F.upsampling_2d(y, indexes, 2, outsize=(4, 6))

    _compare(up, [x], gpu_xp)
    # Indexes given as a list go to x's device.
    listed = out[numpy].tolist()
    _compare(lambda y: F.upsampling_2d(y, listed, 2, outsize=(4, 6)),
             [_u(rng, *out[numpy].shape)], gpu_xp)
    _compare(lambda x: F.unpooling_2d(x, 2, cover_all=False), [x], gpu_xp)
    _compare(lambda x: F.unpooling_2d(x, 3, 2, 1, outsize=(7, 11)), [x], gpu_xp)
    _compare(lambda x: F.spatial_pyramid_pooling_2d(x, 3, 'max'), [x], gpu_xp)


def test_roi_pooling_grad_node_on_gpu(gpu_xp):
    from chainlite.functions.pooling import roi_pooling_2d as rp
    rng = numpy.random.default_rng(9)
    rois = numpy.array([[0.0, 0.0, 0.0, 3.0, 2.0], [0.0, 1.0, 1.0, 2.0, 3.0]])
    argmax = rng.integers(0, 16, (2, 2, 2, 2)).astype(numpy.int32)
    gy = _u(rng, 2, 2, 2, 2)

    def f(rois, gy):
        node = rp.ROIPooling2DGrad(2, 2, 1.0, (1, 2, 4, 4), _on(backend_of(gy), argmax))
        return node.apply((rois, gy))

    _compare(f, [rois, gy], gpu_xp)


def backend_of(v):
    return chainlite.backend.get_array_module(v)


# -- connection ---------------------------------------------------------------------------------

@pytest.mark.parametrize('options', [
    dict(stride=2, pad=1), dict(cover_all=True, stride=2), dict(dilate=2, pad=2),
    dict(groups=2, pad=1)], ids=str)
@dtypes
def test_convolution_and_deconvolution_2d_on_gpu(options, dtype, gpu_xp):
    rng = numpy.random.default_rng(10)
    groups = options.get('groups', 1)
    x = _u(rng, 2, 4, 5, 5).astype(dtype)
    W, b = _u(rng, 6, 4 // groups, 3, 3).astype(dtype), _u(rng, 6).astype(dtype)
    _compare(lambda x, W, b: F.convolution_2d(x, W, b, **options), [x, W, b], gpu_xp)
    deconv = {k: v for k, v in options.items() if k != 'cover_all'}
    Wd = _u(rng, 4, 6 // groups, 3, 3).astype(dtype)
    _compare(lambda x, W, b: F.deconvolution_2d(x, W, b, **deconv), [x, Wd, b[:6]], gpu_xp)


@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('options', [dict(stride=2, pad=1), dict(cover_all=True, stride=2),
                                     dict(dilate=2, pad=1), dict(groups=2)], ids=str)
def test_nd_convolutions_on_gpu(ndim, options, gpu_xp):
    rng = numpy.random.default_rng(11)
    groups = options.get('groups', 1)
    x = _u(rng, 2, 4, *(5,) * ndim)
    W, b = _u(rng, 4, 4 // groups, *(3,) * ndim), _u(rng, 4)
    _compare(lambda x, W, b: F.convolution_nd(x, W, b, **options), [x, W, b], gpu_xp)
    deconv = {k: v for k, v in options.items() if k != 'cover_all'}
    _compare(lambda x, W, b: F.deconvolution_nd(x, W, b, **deconv), [x, W, b], gpu_xp)


def test_other_connections_on_gpu(gpu_xp):
    rng = numpy.random.default_rng(12)
    x = _u(rng, 2, 3, 5, 5)
    _compare(lambda x, W, b: F.depthwise_convolution_2d(x, W, b, stride=2, pad=1),
             [x, _u(rng, 2, 3, 3, 3), _u(rng, 6)], gpu_xp)
    _compare(lambda x, W: F.dilated_convolution_2d(x, W, pad=2, dilate=2),
             [x, _u(rng, 4, 3, 3, 3)], gpu_xp)
    _compare(lambda x, W, b: F.local_convolution_2d(x, W, b, stride=2),
             [x, _u(rng, 2, 2, 2, 3, 3, 3), _u(rng, 2, 2, 2)], gpu_xp)
    _compare(lambda x: F.shift(x, 3, 2), [_u(rng, 1, 9, 4, 4)], gpu_xp)
    _compare(lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
             [_u(rng, 2, 3, 4), _u(rng, 5, 4), _u(rng, 5)], gpu_xp)
    _compare(lambda W: F.embed_id(backend_of(W).asarray(numpy.array([[0, -1], [2, 1]],
                                                                    numpy.int32)),
                                  W, ignore_label=-1), [_u(rng, 3, 2)], gpu_xp)
    # Many ids and rows: W's gradient sums each id's rows after sorting (not the one-hot
    # product of the small case).
    ids = rng.integers(-1, 300, (40, 5)).astype(numpy.int32)
    _compare(lambda W: F.embed_id(backend_of(W).asarray(ids), W, ignore_label=-1),
             [_u(rng, 300, 4)], gpu_xp)
    e1, e2 = _u(rng, 2, 2), _u(rng, 2, 3)
    _compare(F.bilinear, [e1, e2, _u(rng, 2, 3, 2), _u(rng, 2, 2), _u(rng, 3, 2), _u(rng, 2)],
             gpu_xp)


@pytest.mark.parametrize('ndim', [2, 3])
def test_im2col_and_col2im_on_gpu(ndim, gpu_xp):
    rng = numpy.random.default_rng(13)
    img = _u(rng, 2, 3, *(5,) * ndim)
    k, s, p = (3,) * ndim, (2,) * ndim, (1,) * ndim
    if ndim == 2:
        cols = {xp: conv.im2col(_on(xp, img), 3, 3, 2, 2, 1, 1, cover_all=True, dy=2, dx=1)
                for xp in (numpy, gpu_xp)}
        back = {xp: conv.col2im(cols[xp], 2, 2, 1, 1, 5, 5, dy=2, dx=1)
                for xp in (numpy, gpu_xp)}
    else:
        cols = {xp: conv_nd.im2col_nd(_on(xp, img), k, s, p, cover_all=True)
                for xp in (numpy, gpu_xp)}
        back = {xp: conv_nd.col2im_nd(cols[xp], s, p, (5,) * ndim) for xp in (numpy, gpu_xp)}
    _assert_same([cols[numpy], back[numpy]], [cols[gpu_xp], back[gpu_xp]], gpu_xp,
                 numpy.float64)
    # Chainer's CUDA kernels' names: the same computation on the GPU.
    if ndim == 2:
        col = conv.im2col_gpu(gpu_xp.asarray(img), 3, 3, 2, 2, 1, 1, cover_all=True, dy=2)
        img_back = conv.col2im_gpu(col, 2, 2, 1, 1, 5, 5, dy=2)
    else:
        col = conv_nd.im2col_nd_gpu(gpu_xp.asarray(img), k, s, p, cover_all=True)
        img_back = conv_nd.col2im_nd_gpu(col, s, p, (5,) * ndim)
    _assert_same([cols[numpy], back[numpy]], [col, img_back], gpu_xp, numpy.float64)


# -- recurrent ----------------------------------------------------------------------------------

def _rnn_weights(rng, n_layers, directions, in_size, units, n_w):
    ws, bs = [], []
    for layer in range(n_layers * directions):
        size = in_size if layer < directions else units * directions
        ws.append([_u(rng, units, size if i < n_w // 2 else units) for i in range(n_w)])
        bs.append([_u(rng, units) for _ in range(n_w)])
    return ws, bs


@pytest.mark.parametrize('name, n_w, cell', [
    ('n_step_rnn', 2, False), ('n_step_birnn', 2, False), ('n_step_gru', 6, False),
    ('n_step_bigru', 6, False), ('n_step_lstm', 8, True), ('n_step_bilstm', 8, True)])
@pytest.mark.parametrize('train', [True, False])
def test_n_step_rnns_with_dropout_on_gpu(name, n_w, cell, train, gpu_xp):
    # In training mode the dropout masks are drawn from the array module's random numbers:
    # the stand-in draws NumPy's, so both runs see the same masks.
    rng = numpy.random.default_rng(14)
    directions = 2 if name.endswith(('birnn', 'bigru', 'bilstm')) else 1
    n_layers, units, in_size = 2, 3, 2
    ws, bs = _rnn_weights(rng, n_layers, directions, in_size, units, n_w)
    flat_w = [w for layer in ws for w in layer] + [b for layer in bs for b in layer]
    h = _u(rng, n_layers * directions, 3, units)
    xs = [_u(rng, 3, in_size), _u(rng, 2, in_size), _u(rng, 1, in_size)]
    f = getattr(F, name)
    n = len(flat_w) // 2

    def run(h, *rest):
        states = (h, rest[0]) if cell else (h,)
        rest = rest[1:] if cell else rest
        w_flat = list(rest[:len(flat_w)])
        seq = list(rest[len(flat_w):])
        w = [w_flat[i * n_w:(i + 1) * n_w] for i in range(n // n_w)]
        b = [w_flat[n + i * n_w:n + (i + 1) * n_w] for i in range(n // n_w)]
        with chainlite.using_config('train', train):
            return f(n_layers, 0.5, *states, w, b, seq)

    host = [h] + ([_u(rng, *h.shape)] if cell else []) + flat_w + xs
    if REAL_GPU and train:
        pytest.skip('real CuPy draws its own dropout masks')
    _compare(run, host, gpu_xp, order=1)


def test_recurrent_cells_on_gpu(gpu_xp):
    rng = numpy.random.default_rng(15)
    # A shorter x than c_prev: the remaining rows pass through.
    _compare(F.lstm, [_u(rng, 3, 2), _u(rng, 2, 8)], gpu_xp)
    _compare(F.slstm, [_u(rng, 3, 2), _u(rng, 3, 2), _u(rng, 3, 8), _u(rng, 3, 8)], gpu_xp)
    _compare(F.tree_lstm, [_u(rng, 2, 2), _u(rng, 2, 2), _u(rng, 2, 2), _u(rng, 2, 12)],
             gpu_xp)
    from chainlite.functions.rnn import lstm as lstm_mod
    args = [_u(rng, 2, 2) for _ in range(13)]
    outs = {xp: lstm_mod.lstm_grad_grad(*[_on(xp, a) for a in args],
                                        *[xp.empty((2, 2)) for _ in range(8)])
            for xp in (numpy, gpu_xp)}
    _assert_same(list(outs[numpy]), list(outs[gpu_xp]), gpu_xp, numpy.float64)


def test_forget_on_gpu(gpu_xp):
    rng = numpy.random.default_rng(16)
    _compare(lambda x, y: F.forget(lambda a, b: F.tanh(a) * b + a, x, y),
             [_u(rng, 2, 3), _u(rng, 2, 3)], gpu_xp)


def test_large_gpu_products_skip_the_cpu_thread_policy(gpu_xp, monkeypatch):
    # The BLAS thread policy (chainlite/_blas.py) is for NumPy's products; a GPU product of
    # any size goes straight to CuPy.
    from chainlite import _blas

    threaded = _blas._threaded
    seen = []

    def policy(flops, f, *args):
        seen.append(type(args[0]))
        assert all(a.__class__ is numpy.ndarray for a in args[:2]), \
            'the CPU thread policy ran on a GPU product'
        return threaded(flops, f, *args)

    monkeypatch.setattr(_blas, '_threaded', policy)
    rng = numpy.random.default_rng(17)
    x, W = _u(rng, 1000, 300), _u(rng, 200, 300)
    _compare(F.linear, [x, W], gpu_xp, order=1)
    _compare(lambda x, W: F.convolution_2d(x, W, pad=1), [_u(rng, 8, 16, 24, 24),
                                                          _u(rng, 32, 16, 3, 3)], gpu_xp,
             order=1)
    _compare(lambda a, b: F.tensordot(a, b, axes=1), [x, W.T], gpu_xp, order=1)
    # The CPU runs go through it unless the thread count is fixed (an earlier test, or
    # OMP/OPENBLAS_NUM_THREADS): either way no GPU array reached it.
    assert set(seen) <= {numpy.ndarray}


def test_cudnn_rnn_nodes_say_that_the_recurrences_run_through_cupy(gpu_xp):
    from chainlite.functions.rnn import n_step_rnn
    with pytest.raises(RuntimeError, match='run on GPU arrays through CuPy'):
        n_step_rnn.NStepRNNTanh(1, None, [1])
    with pytest.raises(RuntimeError, match='not used by chainlite'):
        n_step_rnn.cudnn_rnn_weight_concat(1, None, False, 'lstm', [[gpu_xp.zeros((2, 2))]],
                                           [[gpu_xp.zeros(2)]])
    with pytest.raises(ValueError, match='rnn_mode'):
        n_step_rnn.BaseNStepRNN(1, None, [1], 'uni', 'sideways')


def test_cudnn_pooling_entry_points_say_that_pooling_runs_through_cupy(gpu_xp):
    from chainlite.functions.pooling import pooling_2d, pooling_nd
    node = pooling_2d.Pooling2D(2)
    x = gpu_xp.zeros((1, 1, 2, 2))
    for call in (lambda: node.forward_gpu((x,)), lambda: node.backward_gpu((x,), (x,)),
                 lambda: pooling_nd._PoolingND(2, 2).forward_cudnn(x)):
        with pytest.raises(RuntimeError, match='through CuPy'):
            call()


def test_embed_id_checks_gpu_ids_in_debug_mode(gpu_xp):
    # As Chainer: a GPU's ids are read on the host (range check) only in debug mode.
    W = gpu_xp.asarray(numpy.ones((3, 2)))
    bad = gpu_xp.asarray(numpy.array([0, 3], numpy.int32))
    with chainlite.using_config('debug', True):
        with pytest.raises(ValueError, match='every id must satisfy'):
            F.embed_id(bad, W)
    y = F.embed_id(gpu_xp.asarray(numpy.array([2, -1], numpy.int32)), W, ignore_label=-1)
    numpy.testing.assert_array_equal(cuda.to_cpu(y.array), [[1, 1], [0, 0]])


def test_upsampling_2d_checks_gpu_indexes_in_debug_mode(gpu_xp):
    x = gpu_xp.asarray(numpy.ones((1, 1, 2, 2)))
    bad = gpu_xp.asarray(numpy.full((1, 1, 2, 2), 4, numpy.int32))
    with chainlite.using_config('debug', True):
        with pytest.raises(ValueError, match='indexes must lie in'):
            F.upsampling_2d(x, bad, 2)
