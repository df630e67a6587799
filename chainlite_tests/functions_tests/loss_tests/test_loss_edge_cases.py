"""A sweep of every loss and reduction in F at the edges of their inputs.

Equal inputs (distance zero, the kink of an absolute value or a margin), labels that are all
ignored, float16 inputs whose sums exceed float16's range while the result does not, and
empty batches. For each: forward and backward are finite, and equal to the same computation in
float64 (the float16 results within float16's precision), or to the value Chainer gives.
"""
import numpy
import pytest

import chainlite
import chainlite.functions as F

_F16, _F32, _F64 = numpy.float16, numpy.float32, numpy.float64


def _run(f, args, wrt):
    """Forward and the gradients of ``sum(y * 1)`` with respect to ``args[i]`` for i in wrt."""
    vs = [chainlite.Variable(a.copy()) if i in wrt else a for i, a in enumerate(args)]
    y = f(*vs)
    if y.size:
        y.grad = numpy.ones_like(y.array)
        y.backward()
    return y.array, [vs[i].grad for i in wrt]


def _check(f, args, wrt, expected_y=None, expected_grads=None):
    dtype = next(a.dtype for a in args if a.dtype.kind == 'f')
    y, grads = _run(f, args, wrt)
    assert y.dtype == dtype
    assert numpy.isfinite(y).all(), y
    for g, i in zip(grads, wrt):
        assert g is None or (g.dtype == dtype and g.shape == args[i].shape)
        assert g is None or numpy.isfinite(g).all(), g
    # The same computation in float64.
    wide = [a.astype(_F64) if a.dtype.kind == 'f' else a for a in args]
    y64, grads64 = _run(f, wide, wrt)
    tol = {_F16: 2e-2, _F32: 1e-5, _F64: 1e-12}[dtype.type]
    numpy.testing.assert_allclose(y.astype(_F64), y64, rtol=tol, atol=tol)
    for g, g64 in zip(grads, grads64):
        if g is not None:
            numpy.testing.assert_allclose(g.astype(_F64), g64, rtol=tol, atol=tol)
    if expected_y is not None:
        numpy.testing.assert_allclose(y.astype(_F64), expected_y, rtol=tol, atol=tol)
    if expected_grads is not None:
        for g, e in zip(grads, expected_grads):
            numpy.testing.assert_allclose(g.astype(_F64), e, rtol=tol, atol=tol)


def _rand(shape, dtype, low=-1.0, high=1.0, seed=0):
    return numpy.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


_DTYPES = [_F16, _F32, _F64]

# name -> (function, builder(dtype, n) -> args, differentiable argument indexes)
_PAIR = {
    'absolute_error': (F.absolute_error, (0, 1)),
    'squared_error': (F.squared_error, (0, 1)),
    'mean_absolute_error': (F.mean_absolute_error, (0, 1)),
    'mean_squared_error': (F.mean_squared_error, (0, 1)),
    'huber_loss': (lambda a, b: F.huber_loss(a, b, 1.0), (0, 1)),
    'huber_loss_no': (lambda a, b: F.huber_loss(a, b, 1.0, reduce='no'), (0, 1)),
}


# --- equal inputs: distance zero -----------------------------------------------------------

@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('name', sorted(_PAIR))
def test_equal_inputs_of_pair_losses(name, dtype):
    f, wrt = _PAIR[name]
    x = _rand((4, 3), dtype)
    # At x0 == x1 every one of them has the value 0 and the gradient 0 (|d| takes 0 at 0).
    zeros = numpy.zeros((4, 3))
    _check(f, (x, x.copy()), wrt, expected_grads=[zeros, zeros])


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('label', [0, 1])
def test_contrastive_at_zero_distance(label, reduce, dtype):
    x = _rand((5, 2), dtype)
    t = numpy.full(5, label, numpy.int32)
    # Similar pairs: loss 0. Dissimilar pairs: margin^2 / 2. Chainer's gradient is 0 for both
    # (the dissimilar loss has a kink at distance 0, and x0 - x1 = 0 there).
    per_pair = 0.0 if label == 1 else 0.5
    y = per_pair if reduce == 'mean' else numpy.full(5, per_pair)
    zeros = numpy.zeros((5, 2))
    _check(lambda a, b: F.contrastive(a, b, t, reduce=reduce), (x, x.copy()), (0, 1),
           expected_y=y, expected_grads=[zeros, zeros])


@pytest.mark.parametrize('dtype', _DTYPES)
def test_contrastive_double_backprop_stays_finite_at_zero_distance(dtype):
    x = chainlite.Variable(_rand((3, 2), dtype))
    x1 = chainlite.Variable(x.array.copy())
    t = numpy.array([0, 1, 0], numpy.int32)
    y = F.contrastive(x, x1, t)
    gx, = chainlite.grad([y], [x], enable_double_backprop=True)
    ggx, = chainlite.grad([F.sum(gx * gx)], [x1])
    assert numpy.isfinite(gx.array).all() and numpy.isfinite(ggx.array).all()


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_triplet_with_equal_inputs(reduce, dtype):
    a = _rand((4, 3), dtype)
    # dist = margin > 0: every row active, but all differences are 0, so the gradient is 0.
    zeros = numpy.zeros((4, 3))
    _check(lambda x, p, n: F.triplet(x, p, n, margin=0.5, reduce=reduce),
           (a, a.copy(), a.copy()), (0, 1, 2),
           expected_y=0.5 if reduce == 'mean' else numpy.full(4, 0.5),
           expected_grads=[zeros, zeros, zeros])


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('reduce', ['sum', 'mean', 'no'])
def test_gaussian_nll_at_its_mean(reduce, dtype):
    x = _rand((3, 4), dtype)
    ln_var = _rand((3, 4), dtype, seed=1)
    _check(lambda a, m, v: F.gaussian_nll(a, m, v, reduce=reduce), (x, x.copy(), ln_var),
           (0, 1, 2))


# --- all labels ignored ----------------------------------------------------------------------

@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_softmax_cross_entropy_all_ignored(reduce, normalize, dtype):
    x = _rand((4, 3), dtype)
    t = numpy.full(4, -1, numpy.int32)
    # Chainer: no label counts, the loss is 0 (the count is taken as at least 1) and so is
    # the gradient.
    _check(lambda a: F.softmax_cross_entropy(a, t, normalize=normalize, reduce=reduce),
           (x,), (0,), expected_y=0.0 if reduce == 'mean' else numpy.zeros(4),
           expected_grads=[numpy.zeros((4, 3))])


@pytest.mark.parametrize('dtype', _DTYPES)
def test_softmax_cross_entropy_ignore_label_other_than_minus_one(dtype):
    x = _rand((4, 3), dtype)
    t = numpy.full(4, 2, numpy.int32)
    _check(lambda a: F.softmax_cross_entropy(a, t, ignore_label=2), (x,), (0,),
           expected_y=0.0, expected_grads=[numpy.zeros((4, 3))])


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_sigmoid_cross_entropy_all_ignored(reduce, normalize, dtype):
    x = _rand((4, 3), dtype)
    t = numpy.full((4, 3), -1, numpy.int32)
    _check(lambda a: F.sigmoid_cross_entropy(a, t, normalize=normalize, reduce=reduce),
           (x,), (0,), expected_y=0.0 if reduce == 'mean' else numpy.zeros((4, 3)),
           expected_grads=[numpy.zeros((4, 3))])


# --- float16 sums beyond float16's range --------------------------------------------------

def test_mean_absolute_error_float16_does_not_overflow():
    # chainer#6702: 16384 differences of 4 sum to 65536 > float16's largest, 65504.
    x0 = numpy.full((64, 1, 16, 16), 2, _F16)
    x1 = numpy.full((64, 1, 16, 16), -2, _F16)
    g = numpy.full(x0.shape, 1.0 / x0.size)
    _check(F.mean_absolute_error, (x0, x1), (0, 1), expected_y=4.0, expected_grads=[g, -g])


_N = 20000  # rows: summed losses of about 1 each exceed 65504 in float16 after 3 per row

_BIG = {
    'mean_squared_error': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, -2, -1)),
                           F.mean_squared_error, (0, 1)),
    'mean_absolute_error': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, -2, -1)),
                            F.mean_absolute_error, (0, 1)),
    'contrastive': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, -2, -1),
                             numpy.arange(_N, dtype=numpy.int32) % 2),
                    lambda a, b, t: F.contrastive(a, b, t, margin=8.0), (0, 1)),
    'triplet': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, 3, 4),
                         _rand((_N, 4), _F16, -0.1, 0.1)),
                lambda a, p, n: F.triplet(a, p, n, margin=8.0), (0, 1, 2)),
    'hinge': (lambda: (_rand((_N, 4), _F16, 1, 2), numpy.arange(_N, dtype=numpy.int32) % 4),
              F.hinge, (0,)),
    'sigmoid_cross_entropy': (lambda: (_rand((_N, 4), _F16, 2, 3),
                                       numpy.zeros((_N, 4), numpy.int32)),
                              F.sigmoid_cross_entropy, (0,)),
    'softmax_cross_entropy': (lambda: (_rand((_N, 4), _F16, -3, 3),
                                       numpy.arange(_N, dtype=numpy.int32) % 4),
                              F.softmax_cross_entropy, (0,)),
    'bernoulli_nll': (lambda: (_rand((_N, 4), _F16, 0, 1), _rand((_N, 4), _F16, 2, 3)),
                      lambda x, y: F.bernoulli_nll(x, y, reduce='mean'), (0, 1)),
    'gaussian_kl_divergence': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, 0, 1)),
                               lambda m, v: F.gaussian_kl_divergence(m, v, reduce='mean'),
                               (0, 1)),
    'gaussian_nll': (lambda: (_rand((_N, 4), _F16, 1, 2), _rand((_N, 4), _F16, -1, 0),
                              _rand((_N, 4), _F16, 0, 1)),
                     lambda x, m, v: F.gaussian_nll(x, m, v, reduce='mean'), (0, 1, 2)),
    'huber_loss': (lambda: (_rand((4, _N), _F16, 1.5, 2), _rand((4, _N), _F16, -0.5, 0)),
                   lambda a, b: F.huber_loss(a, b, 1.0), (0, 1)),
    'mean': (lambda: (_rand((_N, 4), _F16, 1, 2),), F.mean, (0,)),
    'average': (lambda: (_rand((_N, 4), _F16, 1, 2),), F.average, (0,)),
    'average_axis': (lambda: (_rand((4, _N), _F16, 1, 2),), lambda x: F.average(x, axis=1),
                     (0,)),
    'logsumexp': (lambda: (numpy.zeros((4, 70000), _F16),), lambda x: F.logsumexp(x, axis=1),
                  (0,)),
    'batch_l2_norm_squared': (lambda: (_rand((2, 4, 5000), _F16, 2, 3) * _F16(0.5),),
                              lambda x: F.batch_l2_norm_squared(x) * 0.01, (0,)),
}


@pytest.mark.parametrize('name', sorted(_BIG))
def test_float16_sums_do_not_overflow(name):
    build, f, wrt = _BIG[name]
    _check(f, build(), wrt)


def test_sum_float16_accumulates_wider():
    # The total, 0, is representable; summing in float16 overflows after the third element.
    x = numpy.array([30000.0] * 4 + [-30000.0] * 4, _F16)
    _check(F.sum, (x,), (0,), expected_y=0.0, expected_grads=[numpy.ones(8)])
    # A total beyond float16's range is still infinite.
    numpy.testing.assert_array_equal(F.sum(x.reshape(2, 4), axis=1).array,
                                     numpy.array([numpy.inf, -numpy.inf], _F16))


# --- empty batches ----------------------------------------------------------------------------

_EMPTY = {
    'mean_squared_error': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros((0, 3), d)),
                           F.mean_squared_error, (0, 1)),
    'mean_absolute_error': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros((0, 3), d)),
                            F.mean_absolute_error, (0, 1)),
    'squared_error': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros((0, 3), d)),
                      F.squared_error, (0, 1)),
    'absolute_error': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros((0, 3), d)),
                       F.absolute_error, (0, 1)),
    'contrastive': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros((0, 3), d),
                               numpy.zeros(0, numpy.int32)), F.contrastive, (0, 1)),
    'triplet': (lambda d: (numpy.zeros((0, 3), d),) * 3, F.triplet, (0, 1, 2)),
    'hinge': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros(0, numpy.int32)), F.hinge, (0,)),
    'softmax_cross_entropy': (lambda d: (numpy.zeros((0, 3), d), numpy.zeros(0, numpy.int32)),
                              F.softmax_cross_entropy, (0,)),
    'sigmoid_cross_entropy': (lambda d: (numpy.zeros((0, 3), d),
                                         numpy.zeros((0, 3), numpy.int32)),
                              F.sigmoid_cross_entropy, (0,)),
    'bernoulli_nll': (lambda d: (numpy.zeros((0, 3), d),) * 2, F.bernoulli_nll, (0, 1)),
    'gaussian_kl_divergence': (lambda d: (numpy.zeros((0, 3), d),) * 2,
                               F.gaussian_kl_divergence, (0, 1)),
    'gaussian_nll': (lambda d: (numpy.zeros((0, 3), d),) * 3, F.gaussian_nll, (0, 1, 2)),
    'huber_loss': (lambda d: (numpy.zeros((0, 3), d),) * 2,
                   lambda a, b: F.huber_loss(a, b, 1.0), (0, 1)),
    'sum': (lambda d: (numpy.zeros((0, 3), d),), F.sum, (0,)),
    'batch_l2_norm_squared': (lambda d: (numpy.zeros((0, 3), d),), F.batch_l2_norm_squared,
                              (0,)),
}


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('name', sorted(_EMPTY))
def test_empty_batch(name, dtype):
    # A mean over nothing is 0 here (Chainer divides 0 by 0 and gives NaN with a warning; see
    # docs/migrating_from_chainer.md); sums are 0 and gradients are empty.
    build, f, wrt = _EMPTY[name]
    args = build(dtype)
    y, grads = _run(f, args, wrt)
    assert numpy.isfinite(y).all() and (y == 0).all()
    for g, i in zip(grads, wrt):
        assert g is None or (g.shape == args[i].shape and g.dtype == dtype)


@pytest.mark.parametrize('dtype', _DTYPES)
@pytest.mark.parametrize('f', [F.mean, F.average])
def test_mean_of_nothing_is_nan_as_in_chainer(f, dtype):
    with pytest.warns(RuntimeWarning):
        y = f(numpy.zeros((0, 3), dtype))
    assert y.dtype == dtype and numpy.isnan(y.array)
