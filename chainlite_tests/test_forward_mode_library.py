"""``jvp`` over the whole function library, against central finite differences.

Every public function of ``chainlite.functions`` is either in ``SPECS`` (checked) or in
``SKIPPED`` (with the reason); ``test_every_function_is_listed`` fails for a function in
neither, so a new function cannot escape the check. Inputs are tiny and float64, kept
away from kinks (relu at 0, ties in max, ...) so that finite differences are exact enough.
"""
import inspect
import warnings

import numpy as np
import pytest

import chainlite.functions as F
from chainlite import forward_mode
from chainlite.utils import sparse


def u(*shape, lo=-1.0, hi=1.0):
    """A uniform float64 input of this shape."""
    return lambda rng: rng.uniform(lo, hi, shape)


def away(*shape):
    """Values in ±[0.3, 1], away from the kinks at 0."""
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 1.0, shape)


def distinct(*shape):
    """A random permutation of well-separated values: no ties for max / min / sorting."""
    n = int(np.prod(shape))
    return lambda rng: (rng.permutation(n) * 0.37 - 0.4 * n * 0.37 + 0.1).reshape(shape)


def spd(n):
    """A batch of two well-conditioned symmetric positive definite matrices."""
    def make(rng):
        a = rng.uniform(-1, 1, (2, n, n))
        return a @ a.transpose(0, 2, 1) + n * np.eye(n)
    return make


def well(n):
    """A well-conditioned square matrix."""
    return lambda rng: rng.uniform(-0.3, 0.3, (n, n)) + 2 * np.eye(n)


def _quiet(fn, *args):
    # batch_matmul is deprecated (as in Chainer) and warns; warnings are errors in the suite.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return fn(*args)


def _seeded(fn, *args):
    # A random op draws the same mask in every evaluation (the finite differences call it
    # again); the global random state is put back afterwards.
    state = np.random.get_state()
    np.random.seed(0)
    try:
        return fn(*args)
    finally:
        np.random.set_state(state)


A = np.array  # integer constants read better with a short name
T3 = np.array([0, 2], np.int32)
X23 = u(2, 3)
POS = u(2, 3, lo=0.5, hi=2.0)
POS3 = u(3, lo=0.5, hi=2.0)

# name -> (a function of the float inputs, builders of those inputs). Integer labels, indices
# and options are constants inside the function.
SPECS = {
    'absolute': (F.absolute, [away(2, 3)]),
    'absolute_error': (F.absolute_error, [u(2, 3, lo=1, hi=2), u(2, 3, lo=-2, hi=-1)]),
    'add': (lambda a, b, c: F.add(a, b, c), [X23, X23, X23]),
    'arccos': (F.arccos, [u(2, 3, lo=-0.8, hi=0.8)]),
    'arcsin': (F.arcsin, [u(2, 3, lo=-0.8, hi=0.8)]),
    'arctan': (F.arctan, [X23]),
    'arctan2': (F.arctan2, [X23, POS]),
    'arctanh': (F.arctanh, [u(2, 3, lo=-0.8, hi=0.8)]),
    'argmax_crf1d': (lambda c, a, b: F.argmax_crf1d(c, [a, b])[0],
                     [u(3, 3), u(2, 3), u(1, 3)]),
    'as_strided': (lambda x: F.as_strided(x, (2, 2), (1, 2), 0), [X23]),
    'average': (lambda x, w: F.average(x, axis=1, weights=w), [X23, u(3, lo=0.5, hi=1)]),
    'average_pooling_1d': (lambda x: F.average_pooling_1d(x, 2, 1), [u(1, 2, 4)]),
    'average_pooling_3d': (lambda x: F.average_pooling_3d(x, 2, 1), [u(1, 1, 3, 3, 3)]),
    'average_pooling_2d': (lambda x: F.average_pooling_2d(x, 2, 1, 1), [u(1, 2, 3, 3)]),
    'average_pooling_nd': (lambda x: F.average_pooling_nd(x, 2, 1), [u(1, 1, 3, 3, 3)]),
    'batch_det': (F.batch_det, [spd(2)]),
    'batch_inv': (F.batch_inv, [spd(2)]),
    'batch_l2_norm_squared': (F.batch_l2_norm_squared, [X23]),
    'batch_matmul': (lambda a, b: _quiet(F.batch_matmul, a, b), [u(2, 2, 3), u(2, 3, 2)]),
    'batch_normalization': (F.batch_normalization, [u(4, 3), u(3), u(3)]),
    'bernoulli_nll': (F.bernoulli_nll, [u(2, 3, lo=0.1, hi=0.9), X23]),
    'black_out': (lambda x, W: F.black_out(x, A([0, 2]), W, A([[1, 3], [2, 0]])),
                  [X23, u(4, 3)]),
    'bias': (F.bias, [X23, u(3)]),
    'bilinear': (F.bilinear, [u(2, 2), u(2, 3), u(2, 3, 2), u(2, 2), u(3, 2), u(2)]),
    'broadcast': (lambda a, b: F.broadcast(a, b), [u(1, 3), u(2, 1)]),
    'broadcast_to': (lambda x: F.broadcast_to(x, (2, 3)), [u(1, 3)]),
    'cast': (lambda x: F.cast(x, np.float64), [X23]),
    'cholesky': (lambda a: F.cholesky(a[0]), [spd(3)]),
    'clip': (lambda x: F.clip(x, -0.5, 0.5), [lambda rng: np.array([[-0.9, -0.2, 0.1],
                                                                    [0.3, 0.7, -0.8]])]),
    'clipped_relu': (lambda x: F.clipped_relu(x, 0.5), [lambda rng: np.array(
        [[-0.9, -0.2, 0.1], [0.3, 0.7, -0.8]])]),
    'concat': (lambda a, b: F.concat((a, b), axis=1), [X23, u(2, 2)]),
    'connectionist_temporal_classification': (
        lambda a, b, c: F.connectionist_temporal_classification([a, b, c], A([[0], [1]]), 2),
        [X23, X23, X23]),
    'contrastive': (lambda a, b: F.contrastive(a, b, A([1, 0]), margin=3), [X23, X23]),
    'convolution_1d': (F.convolution_1d, [u(1, 2, 4), u(2, 2, 2), u(2)]),
    'convolution_2d': (lambda x, W, b: F.convolution_2d(x, W, b, pad=1),
                       [u(1, 2, 3, 3), u(2, 2, 2, 2), u(2)]),
    'convolution_3d': (F.convolution_3d, [u(1, 1, 3, 3, 3), u(2, 1, 2, 2, 2), u(2)]),
    'convolution_nd': (F.convolution_nd, [u(1, 2, 4), u(2, 2, 2), u(2)]),
    'copy': (lambda x: F.copy(x, -1), [X23]),
    'cos': (F.cos, [X23]),
    'cosh': (F.cosh, [X23]),
    'crelu': (F.crelu, [away(2, 3)]),
    'crf1d': (lambda c, a, b: F.crf1d(c, [a, b], [A([0, 2]), A([1])]),
              [u(3, 3), u(2, 3), u(1, 3)]),
    'cumprod': (lambda x: F.cumprod(x, axis=1), [away(2, 3)]),
    'cumsum': (lambda x: F.cumsum(x, axis=1), [X23]),
    'deconvolution_1d': (F.deconvolution_1d, [u(1, 2, 3), u(2, 2, 2), u(2)]),
    'decov': (F.decov, [u(4, 3)]),
    'deconvolution_2d': (lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2),
                         [u(1, 2, 2, 2), u(2, 2, 2, 2), u(2)]),
    'deconvolution_3d': (F.deconvolution_3d, [u(1, 1, 2, 2, 2), u(1, 2, 2, 2, 2), u(2)]),
    'deconvolution_nd': (F.deconvolution_nd, [u(1, 2, 3), u(2, 2, 2), u(2)]),
    'depth2space': (lambda x: F.depth2space(x, 2), [u(1, 4, 2, 2)]),
    'depthwise_convolution_2d': (F.depthwise_convolution_2d,
                                 [u(1, 2, 3, 3), u(2, 2, 2, 2), u(4)]),
    'det': (F.det, [well(3)]),
    'diagonal': (F.diagonal, [u(3, 3)]),
    'digamma': (F.digamma, [POS]),
    'dilated_convolution_2d': (lambda x, W: F.dilated_convolution_2d(x, W, dilate=2),
                               [u(1, 1, 4, 4), u(2, 1, 2, 2)]),
    'discriminative_margin_based_clustering_loss': (
        lambda e: F.discriminative_margin_based_clustering_loss(
            e, A([[[1, 2], [2, 0]]]), 0.1, 1.0, 2), [u(1, 2, 2, 2)]),
    'dropout': (lambda x: F.dropout(x, 0.5, mask=np.array([[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]])),
                [X23]),
    'dstack': (lambda a, b: F.dstack((a, b)), [X23, X23]),
    'einsum': (lambda a, b: F.einsum('ij,jk->ik', a, b), [X23, u(3, 2)]),
    'elu': (F.elu, [away(2, 3)]),
    'embed_id': (lambda W: F.embed_id(A([[0, 2], [1, 0]]), W), [u(3, 2)]),
    'erf': (F.erf, [X23]),
    'erfc': (F.erfc, [X23]),
    'erfcinv': (F.erfcinv, [u(2, 3, lo=0.3, hi=1.7)]),
    'erfcx': (F.erfcx, [X23]),
    'erfinv': (F.erfinv, [u(2, 3, lo=-0.7, hi=0.7)]),
    'exp': (F.exp, [X23]),
    'expand_dims': (lambda x: F.expand_dims(x, 1), [X23]),
    'expm1': (F.expm1, [X23]),
    'fft': (lambda r, i: F.fft((r, i)), [X23, X23]),
    'fixed_batch_normalization': (F.fixed_batch_normalization,
                                  [u(4, 3), u(3), u(3), u(3), u(3, lo=0.5, hi=2)]),
    'flatten': (F.flatten, [X23]),
    'flip': (lambda x: F.flip(x, 1), [X23]),
    'fliplr': (F.fliplr, [X23]),
    'flipud': (F.flipud, [X23]),
    'fmod': (F.fmod, [u(2, 3, lo=0.1, hi=0.9), u(2, 3, lo=1.5, hi=2)]),
    'gaussian': (lambda m, v: F.gaussian(m, v, eps=np.full((2, 3), 0.3)), [X23, X23]),
    'gaussian_kl_divergence': (F.gaussian_kl_divergence, [X23, X23]),
    'gaussian_nll': (F.gaussian_nll, [X23, X23, X23]),
    'gelu': (F.gelu, [X23]),
    'get_item': (lambda x: F.get_item(x, (slice(None), A([2, 0, 2]))), [X23]),
    'group_normalization': (lambda x, g, b: F.group_normalization(x, 2, g, b),
                            [u(2, 4, 2), u(4), u(4)]),
    'hard_sigmoid': (F.hard_sigmoid, [X23]),
    'gumbel_softmax': (lambda x: _seeded(F.gumbel_softmax, x, 0.7), [X23]),
    'hinge': (lambda x: F.hinge(x, T3), [u(2, 3, lo=-0.5, hi=0.5)]),
    'hstack': (lambda a, b: F.hstack((a, b)), [X23, X23]),
    'huber_loss': (lambda x, t: F.huber_loss(x, t, 1.0),
                   [lambda rng: np.array([[0.2, 3.0, -0.4], [-2.5, 0.1, 0.5]]), X23]),
    'identity': (F.identity, [X23]),
    'ifft': (lambda r, i: F.ifft((r, i)), [X23, X23]),
    'im2col': (lambda x: F.im2col(x, 2, pad=1), [u(1, 2, 3, 3)]),
    'inv': (F.inv, [well(3)]),
    'layer_normalization': (F.layer_normalization, [u(2, 4), u(4), u(4)]),
    'leaky_relu': (F.leaky_relu, [away(2, 3)]),
    'lgamma': (F.lgamma, [POS]),
    'linear': (F.linear, [X23, u(4, 3), u(4)]),
    'linear_interpolate': (F.linear_interpolate, [u(2, 3, lo=0, hi=1), X23, X23]),
    'local_response_normalization': (F.local_response_normalization, [u(1, 6, 2, 2)]),
    'log': (F.log, [POS]),
    'log10': (F.log10, [POS]),
    'log1p': (F.log1p, [u(2, 3, lo=-0.5, hi=1)]),
    'log2': (F.log2, [POS]),
    'log_ndtr': (F.log_ndtr, [X23]),
    'log_softmax': (F.log_softmax, [X23]),
    'logsumexp': (lambda x: F.logsumexp(x, axis=1), [X23]),
    'lstm': (F.lstm, [u(2, 2), u(2, 8)]),
    'matmul': (F.matmul, [X23, u(3, 2)]),
    'max': (lambda x: F.max(x, axis=1), [distinct(2, 3)]),
    'max_pooling_1d': (lambda x: F.max_pooling_1d(x, 2), [distinct(1, 2, 4)]),
    'max_pooling_3d': (lambda x: F.max_pooling_3d(x, 2), [distinct(1, 1, 2, 2, 2)]),
    'max_pooling_2d': (lambda x: F.max_pooling_2d(x, 2), [distinct(1, 1, 4, 4)]),
    'max_pooling_nd': (lambda x: F.max_pooling_nd(x, 2), [distinct(1, 1, 2, 2, 2)]),
    'maximum': (F.maximum, [X23, lambda rng: np.full((2, 3), 3.0) * rng.choice([-1, 1], 3)]),
    'maxout': (lambda x: F.maxout(x, 2), [distinct(2, 4)]),
    'mean': (lambda x: F.mean(x, axis=0), [X23]),
    'mean_absolute_error': (F.mean_absolute_error, [u(2, 3, lo=1, hi=2), X23]),
    'mean_squared_error': (F.mean_squared_error, [X23, X23]),
    'min': (lambda x: F.min(x, axis=0), [distinct(2, 3)]),
    'minimum': (F.minimum, [X23, lambda rng: np.full((2, 3), 3.0) * rng.choice([-1, 1], 3)]),
    'moveaxis': (lambda x: F.moveaxis(x, 0, 2), [u(2, 3, 2)]),
    'ndtr': (F.ndtr, [X23]),
    'ndtri': (F.ndtri, [u(2, 3, lo=0.2, hi=0.8)]),
    'normalize': (F.normalize, [X23]),
    'negative_sampling': (lambda x, W: F.negative_sampling(
        x, A([0, -1], np.int32), W, lambda shape: np.ones(shape, np.int32), 2), [X23, u(4, 3)]),
    'pad': (lambda x: F.pad(x, ((0, 1), (2, 0)), 'constant'), [X23]),
    'pad_sequence': (lambda a, b: F.pad_sequence((a, b)), [u(3, 2), u(1, 2)]),
    'permutate': (lambda x: F.permutate(x, A([2, 0, 1], np.int32), axis=1), [X23]),
    'polygamma': (lambda x: F.polygamma(A([0, 1, 2]), x), [u(2, 3, lo=0.5, hi=2)]),
    'prelu': (F.prelu, [away(2, 3), u(3)]),
    'prod': (lambda x: F.prod(x, axis=1), [away(2, 3)]),
    'relu': (F.relu, [away(2, 3)]),
    'relu6': (F.relu6, [lambda rng: np.array([[-0.5, 1.0, 7.0], [2.0, 5.5, -3.0]])]),
    'repeat': (lambda x: F.repeat(x, 2, axis=1), [X23]),
    'reshape': (lambda x: F.reshape(x, (3, 2)), [X23]),
    'resize_images': (lambda x: F.resize_images(x, (3, 4)), [u(1, 1, 2, 2)]),
    'rollaxis': (lambda x: F.rollaxis(x, 2), [u(2, 3, 2)]),
    'rsqrt': (F.rsqrt, [POS]),
    'scale': (F.scale, [X23, u(3)]),
    # A float mask is an input too (a learned bias gets a gradient).
    'scaled_dot_product_attention': (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, mask=m, is_causal=True),
        [u(2, 3, 4), u(2, 5, 4), u(2, 5, 2), u(3, 5)]),
    'scatter_add': (lambda a, b: F.scatter_add(a, (slice(None), A([0, 2, 0])), b),
                    [X23, X23]),
    'select_item': (lambda x: F.select_item(x, T3), [X23]),
    'selu': (F.selu, [away(2, 3)]),
    'separate': (lambda x: F.separate(x, axis=1), [X23]),
    'sigmoid': (F.sigmoid, [X23]),
    'sigmoid_cross_entropy': (lambda x: F.sigmoid_cross_entropy(x, A([[0, 1, 1], [1, 0, 0]])),
                              [X23]),
    'simplified_dropconnect': (lambda x, W, b: F.simplified_dropconnect(
        x, W, b, mask=np.array([[[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]]])), [u(1, 3), u(2, 3), u(2)]),
    'sin': (F.sin, [X23]),
    'sinh': (F.sinh, [X23]),
    'softmax': (F.softmax, [X23]),
    'slstm': (F.slstm, [u(2, 2), u(2, 2), u(2, 8), u(2, 8)]),
    'softmax_cross_entropy': (lambda x: F.softmax_cross_entropy(x, T3), [X23]),
    'softplus': (F.softplus, [X23]),
    'space2depth': (lambda x: F.space2depth(x, 2), [u(1, 1, 4, 4)]),
    # A fixed sparse matrix times a dense one: the dense operand is differentiated.
    'sparse_matmul': (lambda b: F.sparse_matmul(
        sparse.to_coo(np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, 0.5]])), b), [u(3, 2)]),
    'roi_average_align_2d': (lambda x: F.roi_average_align_2d(
        x, A([[0.5, 0.2, 2.6, 3.1]]), A([0], np.int32), 2, 1.0), [u(1, 2, 4, 4)]),
    'roi_average_pooling_2d': (lambda x: F.roi_average_pooling_2d(
        x, A([[0.0, 0.0, 3.0, 4.0]]), A([0], np.int32), 2, 1.0), [u(1, 2, 4, 4)]),
    'roi_max_align_2d': (lambda x: F.roi_max_align_2d(
        x, A([[0.5, 0.2, 2.6, 3.1]]), A([0], np.int32), 2, 1.0), [distinct(1, 2, 4, 4)]),
    'roi_max_pooling_2d': (lambda x: F.roi_max_pooling_2d(
        x, A([[0.0, 0.0, 3.0, 4.0]]), A([0], np.int32), 2, 1.0), [distinct(1, 2, 4, 4)]),
    'roi_pooling_2d': (lambda x: F.roi_pooling_2d(x, A([[0.0, 0.0, 0.0, 3.0, 2.0]]), 2, 2, 1.0),
                       [distinct(1, 2, 4, 4)]),
    'shift': (lambda x: F.shift(x, 3, 2), [u(1, 10, 4, 5)]),
    'spatial_pyramid_pooling_2d': (lambda x: F.spatial_pyramid_pooling_2d(x, 2, 'max'),
                                   [distinct(1, 1, 4, 4)]),
    'spatial_transformer_grid': (lambda t: F.spatial_transformer_grid(t, (2, 3)), [u(1, 2, 3)]),
    'split_axis': (lambda x: F.split_axis(x, 3, axis=1), [X23]),
    'sqrt': (F.sqrt, [POS]),
    'square': (F.square, [X23]),
    'squared_difference': (F.squared_difference, [X23, X23]),
    'squared_error': (F.squared_error, [X23, X23]),
    'squeeze': (lambda x: F.squeeze(x, 0), [u(1, 3)]),
    'stack': (lambda a, b: F.stack((a, b), axis=1), [X23, X23]),
    'sum': (lambda x: F.sum(x, axis=1), [X23]),
    'sum_to': (lambda x: F.sum_to(x, (1, 3)), [X23]),
    'swapaxes': (lambda x: F.swapaxes(x, 0, 1), [X23]),
    'swish': (F.swish, [X23, u(3)]),
    'tan': (F.tan, [X23]),
    'tanh': (F.tanh, [X23]),
    'tensordot': (lambda a, b: F.tensordot(a, b, 1), [X23, u(3, 2)]),
    'tile': (lambda x: F.tile(x, (2, 1)), [X23]),
    'transpose': (F.transpose, [X23]),
    'transpose_sequence': (lambda a, b: F.transpose_sequence((a, b)), [u(3, 2), u(1, 2)]),
    'tree_lstm': (F.tree_lstm, [u(2, 2), u(2, 2), u(2, 10)]),
    'triplet': (lambda a, p, n: F.triplet(a, p, n, margin=5.0), [X23, X23, X23]),
    'unpooling_1d': (lambda x: F.unpooling_1d(x, 2), [u(1, 1, 3)]),
    'unpooling_3d': (lambda x: F.unpooling_3d(x, 2), [u(1, 1, 2, 2, 1)]),
    'unpooling_nd': (lambda x: F.unpooling_nd(x, 2), [u(1, 1, 2, 2)]),
    'unpooling_2d': (lambda x: F.unpooling_2d(x, 2), [u(1, 1, 2, 2)]),
    'upsampling_2d': (lambda x: F.upsampling_2d(x, A([[[[0, 3], [2, 1]]]]), 2),
                      [u(1, 1, 2, 2)]),
    'vstack': (lambda a, b: F.vstack((a, b)), [X23, X23]),
    'where': (lambda a, b: F.where(A([[True, False, True], [False, False, True]]), a, b),
              [X23, X23]),
    'zoneout': (lambda h, x: _seeded(F.zoneout, h, x), [X23, X23]),
    'zeta': (lambda q: F.zeta(np.full((2, 3), 2.5), q), [POS]),
}


def _rnn(fn, n_w, bi=False, cell=False):
    # One layer (two directions when bi), 2 input and 2 hidden units, two sequences.
    dirs = 2 if bi else 1
    n_params = dirs * 2 * n_w  # ws and bs, one list per direction

    def f(*arrays):
        hx = arrays[0]
        k = 1
        cx = None
        if cell:
            cx = arrays[1]
            k = 2
        ws, bs = [], []
        for d in range(dirs):
            ws.append(list(arrays[k:k + n_w]))
            k += n_w
            bs.append(list(arrays[k:k + n_w]))
            k += n_w
        xs = list(arrays[k:])
        args = (1, 0.0, hx) + ((cx,) if cell else ()) + (ws, bs, xs)
        flat = []
        for o in fn(*args):  # (hy, [cy,] ys): ys is a list, one Variable per sequence
            flat.extend(o if isinstance(o, (tuple, list)) else [o])
        return tuple(flat)

    shapes = [u(dirs, 2, 2)] + ([u(dirs, 2, 2)] if cell else [])
    for d in range(dirs):
        shapes += [u(2, 2)] * n_w + [u(2)] * n_w
    shapes += [u(2, 2), u(1, 2)]
    assert len(shapes) == 1 + cell + n_params + 2
    return f, shapes


SPECS.update({
    'n_step_rnn': _rnn(F.n_step_rnn, 2),
    'n_step_birnn': _rnn(F.n_step_birnn, 2, bi=True),
    'n_step_gru': _rnn(F.n_step_gru, 6),
    'n_step_bigru': _rnn(F.n_step_bigru, 6, bi=True),
    'n_step_lstm': _rnn(F.n_step_lstm, 8, cell=True),
    'n_step_bilstm': _rnn(F.n_step_bilstm, 8, bi=True, cell=True),
})

if hasattr(F, 'forget'):  # being added in parallel; checked as soon as it is exported
    SPECS['forget'] = (lambda x, y: F.forget(lambda a, b: F.sin(a) * b, x, y), [X23, X23])

# Issue 11's functions. Sampling points stay off integer pixel positions (bilinear kinks);
# batch_renormalization with rmax=1, dmax=0 has r = 1 and d = 0 whatever its input.
SPECS.update({
    'rrelu': (lambda x: F.rrelu(x, r=np.full((2, 3), 0.2)), [away(2, 3)]),
    'cross_covariance': (F.cross_covariance, [u(4, 3), u(4, 2)]),
    'spatial_transformer_sampler': (F.spatial_transformer_sampler,
                                    [u(1, 2, 3, 3), u(1, 2, 2, 2, lo=-0.9, hi=-0.1)]),
    'batch_renormalization': (lambda x, g, b: F.batch_renormalization(
        x, g, b, 1, 0, running_mean=np.zeros(3), running_var=np.ones(3)), [u(4, 3), u(3), u(3)]),
    'fixed_batch_renormalization': (lambda x, g, b, m, v: _quiet(
        F.fixed_batch_renormalization, x, g, b, m, v), [u(4, 3), u(3), u(3), u(3), POS3]),
    'decorrelated_batch_normalization': (lambda x: F.decorrelated_batch_normalization(
        x, groups=1, eps=0.1), [u(5, 2)]),
    'fixed_decorrelated_batch_normalization': (
        lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=1),
        [u(3, 2), u(1, 2), u(1, 2, 2)]),
    'local_convolution_2d': (F.local_convolution_2d,
                             [u(1, 2, 3, 3), u(2, 2, 2, 2, 2, 2), u(2, 2, 2)]),
    'deformable_convolution_2d_sampler': (F.deformable_convolution_2d_sampler, [
        u(1, 2, 3, 3), u(1, 8, 2, 2, lo=0.1, hi=0.4), u(2, 2, 2, 2), u(2)]),
})

SKIPPED = {
    'accuracy': 'an evaluation metric: piecewise constant, no gradient',
    'binary_accuracy': 'an evaluation metric: piecewise constant, no gradient',
    'r2_score': 'an evaluation metric: not differentiable, as in Chainer',
    'classification_summary': 'evaluation metrics: piecewise constant, no gradient',
    'f1_score': 'an evaluation metric: piecewise constant, no gradient',
    'fbeta_score': 'an evaluation metric: piecewise constant, no gradient',
    'precision': 'an evaluation metric: piecewise constant, no gradient',
    'recall': 'an evaluation metric: piecewise constant, no gradient',
    'argmax': 'integer output',
    'argmin': 'integer output',
    'ceil': 'piecewise constant (zero derivative almost everywhere)',
    'floor': 'piecewise constant (zero derivative almost everywhere)',
    'fix': 'piecewise constant (zero derivative almost everywhere)',
    'sign': 'piecewise constant (zero derivative almost everywhere)',
}


def _public_functions():
    return sorted(n for n in dir(F) if not n.startswith('_')
                  and inspect.isfunction(getattr(F, n)))


def test_every_function_is_listed():
    names = set(_public_functions())
    assert not set(SPECS) & set(SKIPPED)
    missing = sorted(names - set(SPECS) - set(SKIPPED))
    assert not missing, 'add these functions to SPECS or SKIPPED: %s' % missing
    assert not (set(SPECS) | set(SKIPPED)) - names


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _arrays(f, xs):
    return [y.array for y in _as_tuple(f(*xs))]


@pytest.mark.parametrize('name', sorted(SPECS))
def test_jvp_matches_finite_differences(name):
    f, makers = SPECS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    xs = [np.asarray(m(rng), np.float64) for m in makers]
    vs = [rng.standard_normal(x.shape) for x in xs]
    ys, jv = forward_mode.jvp(f, xs, vs)
    eps = 1e-6
    plus = _arrays(f, [x + eps * v for x, v in zip(xs, vs)])
    minus = _arrays(f, [x - eps * v for x, v in zip(xs, vs)])
    ys, jv = _as_tuple(ys), _as_tuple(jv)
    assert len(ys) == len(jv) == len(plus)
    for y, t, p, m in zip(ys, jv, plus, minus):
        assert t.shape == y.shape and t.dtype == y.dtype
        np.testing.assert_allclose(t, (p - m) / (2 * eps), rtol=1e-5, atol=1e-6)
