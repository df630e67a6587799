"""Every converter: the function exported alone, run in ONNX Runtime, compared with chainlite.

Each case runs at the default opset, and at the older opsets listed where its converter
builds a different graph (operators whose arguments moved from attributes to inputs, or
that ONNX added later).
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.functions.math import batch_matmul

_rng = numpy.random.RandomState(0)


def r(*shape):
    return _rng.uniform(-1, 1, shape).astype(numpy.float32)


def pos(*shape):
    return _rng.uniform(0.5, 1.5, shape).astype(numpy.float32)


def ints(high, *shape):
    return _rng.randint(0, high, shape).astype(numpy.int32)


def _distinct(*shape):
    # Distinct values: no ties for max/min/argmax.
    return (_rng.permutation(int(numpy.prod(shape))).reshape(shape) / 7.0).astype(
        numpy.float32)


CASES = [
    # activation
    ('relu', F.relu, [r(2, 3)], ()),
    ('clipped_relu', lambda x: F.clipped_relu(x, 0.5), [r(2, 3)], (9,)),
    ('relu6', lambda x: F.relu6(x * 8), [r(2, 3)], (9,)),
    ('crelu', F.crelu, [r(2, 3)], ()),
    ('elu', lambda x: F.elu(x, 0.7), [r(2, 3)], ()),
    ('selu', F.selu, [r(2, 3)], ()),
    ('gelu', F.gelu, [r(2, 3)], (9,)),
    ('hard_sigmoid', lambda x: F.hard_sigmoid(x * 4), [r(2, 3)], ()),
    ('leaky_relu', lambda x: F.leaky_relu(x, 0.1), [r(2, 3)], ()),
    ('log_softmax', F.log_softmax, [r(2, 3, 4)], (9,)),
    ('softmax', F.softmax, [r(2, 3, 4)], (9,)),
    ('softmax_last', lambda x: F.softmax(x, axis=-1), [r(2, 3)], (9,)),
    ('prelu', lambda x, W: F.prelu(x, W), [r(2, 3, 4), r(3)], ()),
    ('sigmoid', F.sigmoid, [r(2, 3)], ()),
    ('softplus', F.softplus, [r(2, 3)], ()),
    ('softplus_beta', lambda x: F.softplus(x, 2.0), [r(2, 3)], ()),
    ('swish', F.swish, [r(2, 3, 4), r(3)], ()),
    ('tanh', F.tanh, [r(2, 3)], ()),
    ('maxout', lambda x: F.maxout(x, 2), [_distinct(2, 6)], ()),
    # attention (masks, dtypes and MultiHeadAttention: test_attention.py)
    ('scaled_dot_product_attention',
     lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3)], (9,)),
    # array
    ('reshape', lambda x: F.reshape(x, (3, -1)), [r(2, 3, 2)], ()),
    ('flatten', F.flatten, [r(2, 3, 2)], ()),
    ('transpose', lambda x: F.transpose(x, (2, 0, 1)), [r(2, 3, 4)], ()),
    ('transpose_default', F.transpose, [r(2, 3, 4)], ()),
    ('moveaxis', lambda x: F.moveaxis(x, 0, -1), [r(2, 3, 4)], ()),
    ('rollaxis', lambda x: F.rollaxis(x, 2), [r(2, 3, 4)], ()),
    ('swapaxes', lambda x: F.swapaxes(x, 0, 2), [r(2, 3, 4)], ()),
    ('concat', lambda x, y: F.concat((x, y), axis=1), [r(2, 3), r(2, 2)], ()),
    ('hstack', lambda x, y: F.hstack((x, y)), [r(2, 3), r(2, 2)], ()),
    ('vstack', lambda x, y: F.vstack((x, y)), [r(3), r(3)], ()),
    ('dstack', lambda x, y: F.dstack((x, y)), [r(2, 3), r(2, 3)], ()),
    ('dstack_1d', lambda x, y: F.dstack((x, y)), [r(3), r(3)], (9,)),
    ('vstack_0d', lambda x, y: F.vstack((x, y)), [r(), r()], ()),
    ('hstack_0d', lambda x, y: F.hstack((x, y)), [r(), r()], ()),
    ('split_axis', lambda x: F.split_axis(x, [1, 3], axis=1), [r(2, 5)], (9, 13)),
    ('split_axis_sections', lambda x: F.split_axis(x, 2, axis=0), [r(4, 3)], (9,)),
    ('separate', lambda x: F.separate(x, axis=1), [r(2, 3)], (9,)),
    ('stack', lambda x, y: F.stack((x, y), axis=1), [r(2, 3), r(2, 3)], (9,)),
    ('expand_dims', lambda x: F.expand_dims(x, -1), [r(2, 3)], (9,)),
    ('squeeze', lambda x: F.squeeze(x, axis=1), [r(2, 1, 3)], (9,)),
    ('squeeze_all', F.squeeze, [r(1, 3, 1)], (9,)),
    ('get_item_slices', lambda x: x[1:, ::2, -1], [r(3, 4, 5)], (10,)),
    ('get_item_negative_step', lambda x: x[::-1, 1:3], [r(3, 4)], (10,)),
    ('get_item_bounds', lambda x: x[-2:, 5::-1, 1:-1], [r(3, 4, 5)], (10,)),
    ('get_item_reversed_bounds', lambda x: x[:-5:-1, -1:0:-2], [r(3, 4)], ()),
    ('get_item_past_the_ends', lambda x: x[-9:9, 7:], [r(3, 4)], (9,)),
    ('get_item_none_ellipsis', lambda x: x[None, ..., 0], [r(2, 3)], (9,)),
    ('get_item_array', lambda x: x[:, numpy.array([2, 0, 2])], [r(2, 3)], (9,)),
    ('get_item_int_array', lambda x: x[1, [0, 1]], [r(2, 3)], ()),
    ('get_item_gather_nd', lambda x: x[[0, 1], [1, 2]], [r(2, 3, 4)], (11,)),
    ('get_item_gather_nd_adjacent', lambda x: x[:, [0, 1], [2, 3]], [r(2, 3, 4)], ()),
    ('get_item_gather_nd_apart', lambda x: x[[[0, 1]], :, [2, 3]], [r(2, 3, 4)], ()),
    ('get_item_gather_nd_int', lambda x: x[0, [0, 2], 1:], [r(2, 3, 4)], ()),
    ('pad_constant', lambda x: F.pad(x, ((0, 0), (1, 2)), 'constant', constant_values=3),
     [r(2, 3)], (9,)),
    ('pad_edge', lambda x: F.pad(x, 1, 'edge'), [r(2, 3)], (9,)),
    ('pad_reflect', lambda x: F.pad(x, ((1, 1), (2, 0)), 'reflect'), [r(3, 4)], ()),
    ('tile', lambda x: F.tile(x, (2, 1, 3)), [r(2, 3)], ()),
    ('repeat', lambda x: F.repeat(x, 2, axis=1), [r(2, 3)], (9,)),
    ('repeat_flat', lambda x: F.repeat(x, 2), [r(2, 3)], ()),
    ('repeat_counts', lambda x: F.repeat(x, (1, 0, 2), axis=1), [r(2, 3)], ()),
    ('broadcast_to', lambda x: F.broadcast_to(x, (2, 3, 4)), [r(3, 1)], ()),
    ('broadcast', lambda x, y: F.broadcast(x, y), [r(3, 1), r(1, 4)], ()),
    ('broadcast_three', lambda x, y, z: F.broadcast(x, y, z), [r(3, 1), r(1, 4), r(2, 1, 1)],
     ()),
    ('sum_to', lambda x: F.sum_to(x, (1, 3)), [r(2, 4, 3)], (9,)),
    ('cast', lambda x: F.cast(x, numpy.float64), [r(2, 3)], ()),
    ('where', lambda c, x, y: F.where(c, x, y),
     [_rng.rand(2, 3) > 0.5, r(2, 3), r(2, 3)], ()),
    ('resize_images_bilinear', lambda x: F.resize_images(x, (5, 7)), [r(1, 2, 3, 4)], ()),
    ('resize_images_align', lambda x: F.resize_images(x, (5, 7), align_corners=True),
     [r(1, 2, 3, 4)], ()),
    ('resize_images_nearest', lambda x: F.resize_images(x, (6, 8), mode='nearest'),
     [r(1, 2, 3, 4)], (9, 10)),
    ('depth2space', lambda x: F.depth2space(x, 2), [r(1, 8, 2, 3)], ()),
    ('space2depth', lambda x: F.space2depth(x, 2), [r(1, 2, 4, 6)], ()),
    ('copy', lambda x: F.copy(x, -1), [r(2, 3)], ()),
    ('flip', lambda x: F.flip(x, 1), [r(2, 3)], ()),
    ('fliplr', F.fliplr, [r(2, 3)], ()),
    ('flipud', F.flipud, [r(2, 3)], ()),
    ('permutate', lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=1),
     [r(2, 3)], ()),
    ('permutate_inv',
     lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=0, inv=True),
     [r(3, 2)], ()),
    ('select_item', lambda x, t: F.select_item(x, t), [r(3, 4), ints(4, 3)], (11,)),
    ('transpose_sequence', lambda a, b: F.transpose_sequence([a, b]), [r(3, 2), r(2, 2)],
     (9,)),
    # connection
    ('linear', lambda x, W, b: F.linear(x, W, b), [r(2, 3), r(4, 3), r(4)], ()),
    ('linear_nobias', lambda x, W: F.linear(x, W), [r(2, 3), r(4, 3)], (9,)),
    ('linear_batch_axes', lambda x, W: F.linear(x, W, n_batch_axes=2),
     [r(2, 3, 4), r(5, 4)], ()),
    ('convolution_2d', lambda x, W, b: F.convolution_2d(x, W, b, stride=2, pad=1),
     [r(1, 2, 5, 5), r(3, 2, 3, 3), r(3)], ()),
    ('convolution_2d_cover_all',
     lambda x, W: F.convolution_2d(x, W, stride=2, pad=1, cover_all=True),
     [r(1, 2, 6, 6), r(3, 2, 3, 3)], ()),
    ('convolution_2d_groups_dilate',
     lambda x, W: F.convolution_2d(x, W, pad=2, dilate=2, groups=2),
     [r(1, 4, 5, 5), r(4, 2, 3, 3)], ()),
    ('dilated_convolution_2d', lambda x, W: F.dilated_convolution_2d(x, W, pad=2, dilate=2),
     [r(1, 2, 5, 5), r(3, 2, 3, 3)], ()),
    ('depthwise_convolution_2d', lambda x, W: F.depthwise_convolution_2d(x, W),
     [r(1, 2, 4, 4), r(2, 2, 3, 3)], ()),
    ('convolution_nd', lambda x, W, b: F.convolution_nd(x, W, b, stride=1, pad=1),
     [r(1, 2, 4, 3, 3), r(3, 2, 2, 2, 2), r(3)], ()),
    ('deconvolution_2d', lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1),
     [r(1, 3, 3, 3), r(3, 2, 3, 3), r(2)], ()),
    ('deconvolution_2d_outsize',
     lambda x, W: F.deconvolution_2d(x, W, stride=2, pad=1, outsize=(6, 6)),
     [r(1, 3, 3, 3), r(3, 2, 3, 3)], ()),
    ('deconvolution_2d_groups',
     lambda x, W: F.deconvolution_2d(x, W, stride=2, groups=2, dilate=2),
     [r(1, 4, 3, 3), r(4, 1, 2, 2)], ()),
    ('deconvolution_nd', lambda x, W: F.deconvolution_nd(x, W, stride=2),
     [r(1, 2, 2, 3, 2), r(2, 3, 2, 2, 2)], ()),
    ('embed_id', lambda x, W: F.embed_id(x, W), [ints(5, 2, 3), r(5, 4)], ()),
    ('embed_id_ignore', lambda x, W: F.embed_id(x, W, ignore_label=-1),
     [numpy.array([[0, -1, 4]], numpy.int32), r(5, 4)], (9,)),
    # math
    ('add', lambda x, y: x + y, [r(2, 3), r(3)], ()),
    ('add_constant', lambda x: x + 2, [r(2, 3)], ()),
    ('add_array_constant', lambda x: x + numpy.arange(3, dtype=numpy.float32), [r(2, 3)],
     ()),
    ('sub', lambda x, y: x - y, [r(2, 3), r(2, 1)], ()),
    ('rsub', lambda x: 2 - x, [r(2, 3)], ()),
    ('mul', lambda x, y: x * y, [r(2, 3), r(2, 3)], ()),
    ('mul_constant', lambda x: x * 3, [r(2, 3)], ()),
    ('div', lambda x, y: x / y, [r(2, 3), pos(2, 3)], ()),
    ('rdiv', lambda x: 2 / x, [pos(2, 3)], ()),
    ('neg', lambda x: -x, [r(2, 3)], ()),
    ('pow', lambda x, y: x ** y, [pos(2, 3), r(2, 3)], ()),
    ('pow_constant', lambda x: x ** 2, [r(2, 3)], ()),
    ('rpow', lambda x: 2 ** x, [r(2, 3)], ()),
    ('absolute', F.absolute, [r(2, 3)], ()),
    ('exp', F.exp, [r(2, 3)], ()),
    ('expm1', F.expm1, [r(2, 3)], ()),
    ('log', F.log, [pos(2, 3)], ()),
    ('log1p', F.log1p, [pos(2, 3)], ()),
    ('log2', F.log2, [pos(2, 3)], ()),
    ('log10', F.log10, [pos(2, 3)], ()),
    ('sqrt', F.sqrt, [pos(2, 3)], ()),
    ('rsqrt', F.rsqrt, [pos(2, 3)], ()),
    ('square', F.square, [r(2, 3)], ()),
    ('squared_difference', F.squared_difference, [r(2, 3), r(2, 3)], ()),
    ('clip', lambda x: F.clip(x, -0.5, 0.5), [r(2, 3)], (9,)),
    ('maximum', F.maximum, [r(2, 3), r(2, 3)], ()),
    ('minimum', F.minimum, [r(2, 3), r(2, 3)], ()),
    ('sum', lambda x: F.sum(x, axis=1), [r(2, 3, 4)], (9, 13)),
    ('sum_all', F.sum, [r(2, 3)], (9,)),
    ('sum_keepdims', lambda x: F.sum(x, axis=(0, 2), keepdims=True), [r(2, 3, 4)], (9,)),
    ('mean', lambda x: F.mean(x, axis=-1), [r(2, 3)], (9, 18)),
    ('average', lambda x: F.average(x, axis=0), [r(2, 3)], ()),
    ('max', lambda x: F.max(x, axis=1), [_distinct(2, 3)], (9,)),
    ('min', lambda x: F.min(x, axis=(0, 1), keepdims=True), [_distinct(2, 3)], ()),
    ('prod', lambda x: F.prod(x, axis=0), [pos(2, 3)], (9,)),
    ('argmax', lambda x: F.argmax(x * 1, axis=1), [_distinct(2, 3)], ()),
    ('argmin', lambda x: F.argmin(x * 1), [_distinct(2, 3)], ()),
    ('sign', lambda x: F.sign(x) * x, [r(2, 3)], ()),
    ('floor', F.floor, [r(2, 3) * 4], ()),
    ('ceil', F.ceil, [r(2, 3) * 4], ()),
    ('fix', F.fix, [r(2, 3) * 4], ()),
    ('logsumexp', lambda x: F.logsumexp(x, axis=1), [r(2, 3)], (9,)),
    ('matmul', F.matmul, [r(2, 3), r(3, 4)], ()),
    ('matmul_trans', lambda a, b: F.matmul(a, b, transa=True, transb=True),
     [r(2, 3, 2), r(2, 4, 3)], ()),
    # F.batch_matmul is deprecated (it warns): its function node directly.
    ('batch_matmul', lambda a, b: batch_matmul.BatchMatMul(transa=True).apply((a, b))[0],
     [r(2, 3, 2), r(2, 3)], (9,)),
    ('bias', lambda x, y: F.bias(x, y, axis=1), [r(2, 3, 4), r(3)], ()),
    ('scale', lambda x, y: F.scale(x, y, axis=1), [r(2, 3, 4), r(3, 4)], ()),
    ('linear_interpolate', F.linear_interpolate, [_rng.rand(2, 3).astype(numpy.float32),
                                                  r(2, 3), r(2, 3)], ()),
    ('identity', lambda x, y: F.identity(x, y), [r(2, 3), r(3)], ()),
    ('cumsum', lambda x: F.cumsum(x, axis=1), [r(2, 3)], ()),
    ('cumsum_flat', F.cumsum, [r(2, 3)], ()),
    ('fmod', F.fmod, [r(2, 3) * 5, pos(2, 3)], ()),
    ('einsum', lambda a, b: F.einsum('ij,jk->ik', a, b), [r(2, 3), r(3, 4)], ()),
    ('sin', F.sin, [r(2, 3)], ()),
    ('cos', F.cos, [r(2, 3)], ()),
    ('tan', F.tan, [r(2, 3)], ()),
    ('arcsin', F.arcsin, [r(2, 3) * 0.9], ()),
    ('arccos', F.arccos, [r(2, 3) * 0.9], ()),
    ('arctan', F.arctan, [r(2, 3)], ()),
    ('arctanh', F.arctanh, [r(2, 3) * 0.9], ()),
    ('sinh', F.sinh, [r(2, 3)], ()),
    ('cosh', F.cosh, [r(2, 3)], ()),
    ('erf', F.erf, [r(2, 3)], ()),
    # loss
    ('softmax_cross_entropy', F.softmax_cross_entropy,
     [r(4, 3), numpy.array([0, 2, -1, 1], numpy.int32)], (12,)),
    ('softmax_cross_entropy_no_reduce',
     lambda x, t: F.softmax_cross_entropy(x, t, reduce='no'),
     [r(4, 3), numpy.array([0, 2, -1, 1], numpy.int32)], ()),
    ('softmax_cross_entropy_unnormalized',
     lambda x, t: F.softmax_cross_entropy(x, t, normalize=False,
                                          class_weight=numpy.array([1, 2, 3], numpy.float32)),
     [r(2, 3, 2), numpy.array([[0, 2], [-1, 1]], numpy.int32)], ()),
    ('mean_squared_error', F.mean_squared_error, [r(2, 3), r(2, 3)], (9,)),
    ('mean_absolute_error', F.mean_absolute_error, [r(2, 3), r(2, 3)], ()),
    ('squared_error', F.squared_error, [r(2, 3), r(2, 3)], ()),
    ('absolute_error', F.absolute_error, [r(2, 3), r(2, 3)], ()),
    # normalization
    ('batch_normalization',
     lambda x, g, b: F.batch_normalization(x, g, b), [r(4, 3, 2, 2), pos(3), r(3)], (9,)),
    ('fixed_batch_normalization',
     lambda x, g, b, m, v: F.fixed_batch_normalization(x, g, b, m, v),
     [r(2, 3, 2), pos(3), r(3), r(3), pos(3)], ()),
    ('layer_normalization', lambda x, g, b: F.layer_normalization(x, g, b),
     [r(2, 5), pos(5), r(5)], (9,)),
    ('group_normalization', lambda x, g, b: F.group_normalization(x, 2, g, b),
     [r(2, 4, 3), pos(4), r(4)], ()),
    ('local_response_normalization', F.local_response_normalization, [r(2, 7, 2, 2)], ()),
    ('normalize', F.normalize, [r(2, 3)], (9, 18)),
    # pooling
    ('max_pooling_2d', lambda x: F.max_pooling_2d(x, 3, stride=2, pad=1),
     [_distinct(1, 2, 6, 6)], ()),
    ('max_pooling_2d_no_cover_all',
     lambda x: F.max_pooling_2d(x, 3, stride=2, cover_all=False), [_distinct(1, 2, 6, 6)],
     ()),
    ('max_pooling_nd', lambda x: F.max_pooling_nd(x, 2), [_distinct(1, 2, 4, 3, 4)], ()),
    ('spatial_pyramid_pooling_2d', lambda x: F.spatial_pyramid_pooling_2d(x, 2, 'max'),
     [_distinct(1, 2, 4, 4)], ()),
    ('average_pooling_2d', lambda x: F.average_pooling_2d(x, 3, stride=2, pad=1),
     [r(1, 2, 5, 5)], ()),
    ('average_pooling_nd_exclude_pad',
     lambda x: F.average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None),
     [r(1, 2, 3, 4)], ()),
    ('unpooling_2d', lambda x: F.unpooling_2d(x, 2, cover_all=False), [r(1, 2, 2, 3)],
     (9, 10)),
    # noise (test mode: dropout records nothing)
    ('dropout', lambda x: F.dropout(x, 0.5) * 1, [r(2, 3)], ()),
    # rnn
    ('lstm', lambda c, x: F.lstm(c, x), [r(2, 3), r(2, 12)], ()),
    ('lstm_shrinking_batch', lambda c, x: F.lstm(c, x), [r(3, 2), r(2, 8)], (9,)),
]


@pytest.mark.parametrize('name,fn,inputs,older', CASES, ids=[c[0] for c in CASES])
def test_function(ox, name, fn, inputs, older):
    for opset in (None,) + tuple(older):
        ox.check_export(ox.Fn(fn), inputs, opset_version=opset)


def _n_step_inputs(kind, directions, n_layers, in_size, units, batches, with_state):
    n_weights = {'lstm': 8, 'gru': 6, 'rnn': 2}[kind]
    half = n_weights // 2
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            layer_in = in_size if layer == 0 else units * directions
            ws.append([r(units, layer_in if j < half else units) * 0.5
                       for j in range(n_weights)])
            bs.append([r(units) for _ in range(n_weights)])
    xs = [r(b, in_size) for b in batches]
    states = []
    if with_state:
        states = [r(n_layers * directions, batches[0], units)
                  for _ in range(2 if kind == 'lstm' else 1)]
    return ws, bs, xs, states


_N_STEP = [
    ('lstm', 1, F.n_step_lstm), ('lstm', 2, F.n_step_bilstm),
    ('gru', 1, F.n_step_gru), ('gru', 2, F.n_step_bigru),
    ('rnn', 1, F.n_step_rnn), ('rnn', 2, F.n_step_birnn),
]


@pytest.mark.parametrize('kind,directions,fname', [(k, d, f.__name__) for k, d, f in _N_STEP])
@pytest.mark.parametrize('with_state', [False, True])
def test_n_step_rnn_whole(ox, kind, directions, fname, with_state):
    ws, bs, xs, states = _n_step_inputs(kind, directions, 2, 3, 4, [2, 2, 2], with_state)
    n = len(states)

    def fn(*args):
        f = getattr(F, fname)
        hc = list(args[:n]) + [None] * ((2 if kind == 'lstm' else 1) - n)
        flat = args[n:]
        per = len(ws[0])
        cells = len(ws)
        w = [list(flat[k * per:(k + 1) * per]) for k in range(cells)]
        b = [list(flat[cells * per + k * per:cells * per + (k + 1) * per])
             for k in range(cells)]
        out = f(2, 0.0, *hc, w, b, list(flat[2 * cells * per:]))
        return list(out[:-1]) + list(out[-1])

    inputs = states + [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k] + xs
    for opset in (None, 9):
        proto = ox.check_export(ox.Fn(fn), inputs, opset_version=opset)
        assert {'lstm': 'LSTM', 'gru': 'GRU', 'rnn': 'RNN'}[kind] in ox.op_types(proto)


def test_n_step_lstm_shrinking_batch_is_unrolled(ox):
    # Sequences of different lengths do not fit ONNX's LSTM: exported step by step.
    ws, bs, xs, _ = _n_step_inputs('lstm', 1, 1, 3, 4, [3, 2, 1], False)

    def fn(*xs):
        hy, cy, ys = F.n_step_lstm(1, 0.0, None, None, ws, bs, list(xs))
        return [hy, cy] + list(ys)

    proto = ox.check_export(ox.Fn(fn), xs)
    assert 'LSTM' not in ox.op_types(proto)


def test_links_with_parameters(ox):
    model = chainlite.Sequential(L.Convolution2D(2, 3, 3, pad=1), L.BatchNormalization(3),
                                 F.relu)
    ox.check_export(model, [r(2, 2, 4, 4)])


def test_roi_pooling_2d_warns_and_matches(ox):
    # ONNX MaxRoiPool rounds the scaled regions half away from zero (chainlite: half to even):
    # the export warns; corners that scale to whole pixels give the same result. (ONNX
    # Runtime has no kernel of the operator's opset 22 form: opset 13 here.)
    rois = numpy.array([[0, 1, 1, 6, 7], [1, 2, 0, 9, 11], [0, 0, 3, 4, 5]], numpy.float32)
    with pytest.warns(UserWarning, match='MaxRoiPool'):
        proto = ox.check_export(ox.Fn(lambda x: F.roi_pooling_2d(x, rois, 3, 2, 1.0)),
                                [_distinct(2, 3, 12, 10)], opset_version=13)
    assert ox.op_types(proto) == ['MaxRoiPool']


def test_every_supported_function_has_a_case():
    from chainlite.onnx import functions
    ids = [c[0] for c in CASES] + [f.__name__ for _, _, f in _N_STEP] + ['roi_pooling_2d']
    missing = [name for name in functions.supported_functions()
               if not any(i == name or i.startswith(name + '_') for i in ids)]
    assert not missing, 'supported but never exported by a test: %s' % missing


def test_permutate_with_indices_from_the_graph(ox):
    def fn(x, order):
        return (F.permutate(x, order, axis=1), F.permutate(x, order, axis=1, inv=True))
    x = r(2, 4)
    order = numpy.array([2, 0, 3, 1], numpy.int32)
    for opset in (None, 11):
        ox.check_export(ox.Fn(fn), [x, order], opset_version=opset)


def test_argmax_of_an_input(ox):
    ox.check_export(ox.Fn(lambda x: F.argmax(x, axis=0)), [_distinct(3, 2)])


def test_functions_taken_before_export_are_recorded_too(ox):
    # A model may hold F.argmax (or F.sign) itself, taken before export replaced it.
    argmax, sign = F.argmax, F.sign
    ox.check_export(ox.Fn(lambda x: (argmax(x, axis=1), sign(x))), [_distinct(2, 3) - 1])
