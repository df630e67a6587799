"""softmax_cross_entropy: hard labels (2-d and n-d, ignore_label, class_weight, normalize,
reduce) and soft targets, against a NumPy log-softmax; gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
# x shapes: (N, C), then one softmax per position for (N, C, d1, ...).
SHAPES = [(4, 3), (1, 5), (3, 4, 2), (2, 3, 2, 2)]
MSG = re.escape('Invalid operation is performed in: SoftmaxCrossEntropy (Forward)')


def _uniform(shape, dtype=numpy.float64, seed=0, low=-2, high=2):
    # The loss is smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _labels(shape, seed=0, ignore=True):
    # Labels for x of `shape`, some of them -1 (ignored) when `ignore`.
    rs = numpy.random.RandomState(seed)
    t = rs.randint(0, shape[1], (shape[0],) + shape[2:]).astype(numpy.int32)
    if ignore and t.size > 1:
        t.ravel()[::3] = -1
    return t


def _log_softmax(x):
    x = x.astype(numpy.float64)
    z = x - x.max(axis=1, keepdims=True)
    return z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))


def _expected(x, t, normalize=True, class_weight=None, ignore_label=-1, reduce='mean'):
    log_y = _log_softmax(x)
    valid = t != ignore_label
    tc = numpy.where(valid, t, 0)
    loss = -numpy.take_along_axis(log_y, tc[:, None], axis=1)[:, 0]
    if class_weight is not None:
        loss = loss * class_weight[tc]
    loss = loss * valid
    if reduce == 'no':
        return loss
    return loss.sum() / max(valid.sum() if normalize else len(x), 1)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    x, t = _uniform(shape, dtype), _labels(shape)
    y = softmax_cross_entropy(chainlite.Variable(x), t, reduce=reduce)
    expected = _expected(x, t, reduce=reduce)
    assert y.dtype == dtype
    assert y.shape == expected.shape
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('shape', SHAPES)
def test_forward_options(shape, normalize):
    x, t = _uniform(shape), _labels(shape, ignore=False)
    t.ravel()[:2] = 1  # ignore_label=1 in use below
    w = _uniform((shape[1],), seed=3, low=0.5, high=2)
    for reduce in ('mean', 'no'):
        y = softmax_cross_entropy(x, t, normalize=normalize, class_weight=w, ignore_label=1,
                                  reduce=reduce)
        numpy.testing.assert_allclose(
            y.array, _expected(x, t, normalize, w, 1, reduce), rtol=1e-12, atol=1e-12)


def test_hand_computed_value():
    # log(1 + e^2) - 2 and log 2, averaged.
    x = numpy.array([[2.0, 0.0], [0.0, 0.0]])
    y = softmax_cross_entropy(x, numpy.array([0, 1]))
    numpy.testing.assert_allclose(y.array, (numpy.log1p(numpy.exp(2.0)) - 2 + numpy.log(2)) / 2)


def test_all_ignored_gives_zero():
    x = chainlite.Variable(_uniform((2, 3)))
    y = softmax_cross_entropy(x, numpy.array([-1, -1], numpy.int32))
    assert y.array == 0
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros((2, 3)))


def test_empty_batch():
    x = chainlite.Variable(numpy.zeros((0, 3)))
    y = softmax_cross_entropy(x, numpy.zeros((0,), numpy.int32))
    assert y.shape == () and y.array == 0
    y.backward()
    assert x.grad.shape == (0, 3)


def test_large_logits_are_stable():
    # exp(1000) overflows: the log-sum-exp must be shifted by the maximum.
    x = numpy.array([[1000.0, 0.0], [-1000.0, 0.0]], numpy.float32)
    y = softmax_cross_entropy(x, numpy.array([0, 0]), reduce='no')
    numpy.testing.assert_allclose(y.array, [0.0, 1000.0])


@pytest.mark.parametrize('cache_score', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape, reduce, cache_score):
    x, t = _uniform(shape), _labels(shape)
    w = _uniform((shape[1],), seed=3, low=0.5, high=2)
    gy = None if reduce == 'mean' else _uniform(t.shape, seed=1)
    for cw in (None, w):
        gradient_check.check_backward(
            lambda x: softmax_cross_entropy(x, t, cache_score=cache_score, class_weight=cw,
                                            reduce=reduce), x, gy)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape, reduce):
    x, t = _uniform(shape), _labels(shape)
    w = _uniform((shape[1],), seed=3, low=0.5, high=2)
    gy = _uniform(() if reduce == 'mean' else t.shape, seed=1)
    ggx = _uniform(shape, seed=2)
    for cw in (None, w):
        gradient_check.check_double_backward(
            lambda x: softmax_cross_entropy(x, t, class_weight=cw, reduce=reduce), x, gy, ggx)


def test_third_order():
    # The backward of the backward is built from differentiable functions as well.
    t = numpy.array([0, 3, 1])

    def grad_of_squared_grad(x):
        gx, = chainlite.grad([softmax_cross_entropy(x, t)], [x], enable_double_backprop=True)
        return chainlite.grad([chainlite.functions.sum(gx * gx)], [x],
                              enable_double_backprop=True)[0]
    gradient_check.check_backward(grad_of_squared_grad, _uniform((3, 4)),
                                  _uniform((3, 4), seed=5))


def test_gradient_is_softmax_minus_onehot():
    x = chainlite.Variable(_uniform((3, 4)))
    t = numpy.array([0, 3, 1])
    softmax_cross_entropy(x, t).backward()
    p = numpy.exp(_log_softmax(x.array))
    p[numpy.arange(3), t] -= 1
    numpy.testing.assert_allclose(x.grad, p / 3, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize('soft_target_loss', ['cross-entropy', 'kl-divergence'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
def test_soft_target(shape, reduce, soft_target_loss):
    x = _uniform(shape)
    # Each target a distribution over axis 1, away from 0 so that log t stays finite.
    t = _uniform(shape, seed=4, low=0.1, high=1)
    t /= t.sum(axis=1, keepdims=True)
    y = softmax_cross_entropy(x, t, reduce=reduce, soft_target_loss=soft_target_loss)
    log_y = _log_softmax(x)
    if soft_target_loss == 'cross-entropy':
        loss = -(t * log_y).sum(axis=1)
    else:
        loss = (t * (numpy.log(t + 1e-7) - log_y)).sum(axis=1)
    numpy.testing.assert_allclose(y.array, loss.mean() if reduce == 'mean' else loss,
                                  rtol=1e-12, atol=1e-12)
    gy = _uniform(y.shape, seed=1)

    def f(x):
        return softmax_cross_entropy(x, t, reduce=reduce, soft_target_loss=soft_target_loss)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, _uniform(shape, seed=2))
    # Targets that do not sum to 1 still get the exact gradient.
    t *= 1.5
    gradient_check.check_backward(f, x, gy)


@pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2)])
def test_float32_in_float32_out(shape):
    x = chainlite.Variable(_uniform(shape, numpy.float32))
    w = _uniform((shape[1],), seed=3, low=0.5, high=2)  # float64 weights: no promotion
    t_soft = _uniform(shape, numpy.float64, seed=4, low=0.1, high=1)
    for y in (softmax_cross_entropy(x, _labels(shape), class_weight=w),
              softmax_cross_entropy(x, _labels(shape), reduce='no'),
              softmax_cross_entropy(x, t_soft)):
        assert y.dtype == numpy.float32
        x.cleargrad()
        y.grad = numpy.ones_like(y.array)
        y.backward()
        assert x.grad.dtype == numpy.float32


def test_float32_double_backward_dtype():
    x = chainlite.Variable(_uniform((3, 4), numpy.float32))
    gx, = chainlite.grad([softmax_cross_entropy(x, numpy.array([0, 1, 2]))], [x],
                         enable_double_backprop=True)
    assert gx.dtype == numpy.float32
    chainlite.functions.sum(gx * gx).backward()
    assert x.grad.dtype == numpy.float32


@pytest.mark.parametrize('tdtype', [numpy.int8, numpy.int64, numpy.uint8, numpy.uint32])
def test_integer_label_dtypes(tdtype):
    x = _uniform((3, 4))
    t = numpy.array([0, 3, 1], tdtype)
    y = softmax_cross_entropy(x, t)
    numpy.testing.assert_allclose(y.array, _expected(x, t.astype(numpy.int64)))


def test_variables_and_arrays():
    x, t = _uniform((3, 4)), numpy.array([0, 3, 1], numpy.int32)
    tv = chainlite.Variable(t)
    xv = chainlite.Variable(x)
    y1 = softmax_cross_entropy(x, t)
    y2 = softmax_cross_entropy(xv, tv)
    assert isinstance(y1, chainlite.Variable)
    numpy.testing.assert_array_equal(y1.array, y2.array)
    y2.backward()
    assert tv.grad is None and xv.grad.shape == (3, 4)


def test_float_labels_are_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG + '(.|\n)*t.dtype.kind == i'):
        softmax_cross_entropy(_uniform((3, 4)), numpy.array([0.0, 1.0, 2.0]))


@pytest.mark.parametrize('x_shape, t_shape', [((3, 4), (2,)), ((3, 4), (3, 1)),
                                              ((3, 4, 2), (3, 3)), ((4,), ()),
                                              ((3, 4), (3, 5))])
def test_wrong_shapes_are_invalid(x_shape, t_shape):
    t = numpy.zeros(t_shape, numpy.float64 if len(t_shape) == 2 and t_shape[1] == 5
                    else numpy.int32)
    with pytest.raises(type_check.InvalidType, match=MSG):
        softmax_cross_entropy(numpy.zeros(x_shape), t)


def test_integer_x_is_invalid():
    with pytest.raises(type_check.InvalidType, match=MSG):
        softmax_cross_entropy(numpy.zeros((3, 4), numpy.int32), numpy.zeros(3, numpy.int32))


@pytest.mark.parametrize('t, tdtype', [([0, 4, 1], numpy.int32), ([0, -2, 1], numpy.int32),
                                       ([0, -1, 5], numpy.int64), ([0, 200, 1], numpy.uint8)])
def test_labels_out_of_range(t, tdtype):
    with pytest.raises(ValueError, match='softmax_cross_entropy: each label'):
        softmax_cross_entropy(_uniform((3, 4)), numpy.array(t, tdtype))


def test_bad_options():
    x, t = _uniform((3, 4)), numpy.array([0, 1, 2])
    with pytest.raises(ValueError, match='reduce'):
        softmax_cross_entropy(x, t, reduce='sum')
    with pytest.raises(ValueError, match='soft_target_loss'):
        softmax_cross_entropy(x, t, soft_target_loss='l2')
    with pytest.raises(ValueError, match='class_weight'):
        softmax_cross_entropy(x, t, class_weight=numpy.ones(3))
    with pytest.raises(ValueError, match='class_weight'):
        softmax_cross_entropy(x, t, class_weight=numpy.ones((4, 1)))
    with pytest.raises(ValueError, match='class_weight'):
        softmax_cross_entropy(x, t, class_weight=chainlite.Variable(numpy.ones(4)))


@pytest.mark.parametrize('cache_score', [True, False])
def test_cached_softmax_is_the_creators_y(cache_score):
    # Chainer keeps the softmax as the function's ``y`` with cache_score.
    x = numpy.random.default_rng(0).uniform(-1, 1, (3, 4))
    loss = softmax_cross_entropy(chainlite.Variable(x), numpy.array([0, 3, 1], numpy.int32),
                                 cache_score=cache_score)
    if cache_score:
        e = numpy.exp(x - x.max(axis=1, keepdims=True))
        numpy.testing.assert_allclose(loss.creator.y, e / e.sum(axis=1, keepdims=True))
    else:
        assert loss.creator.y is None


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(1, 3), (5, 4), (32, 10)])
@pytest.mark.parametrize('tdtype', [numpy.int32, numpy.int64, numpy.uint8])
def test_common_case_path_matches_the_general_one(shape, dtype, tdtype):
    # Integer labels all in range with the defaults take a shorter path (forward and its
    # gradient); without the cached softmax the general path runs: the same bits.
    x = _uniform(shape, dtype, seed=3)
    t = numpy.random.RandomState(4).randint(0, shape[1], shape[0]).astype(tdtype)
    results = []
    for cache_score in (True, False):
        xv = chainlite.Variable(x.copy())
        loss = softmax_cross_entropy(xv, t, cache_score=cache_score)
        assert loss.creator._lean is cache_score
        loss.grad = numpy.asarray(0.75, dtype)  # a seed other than 1 scales the gradient
        loss.backward()
        assert loss.dtype == dtype and xv.grad.dtype == dtype
        results.append((loss.array, xv.grad))
    (lean_loss, lean_gx), (loss, gx) = results
    assert lean_loss.tobytes() == loss.tobytes()
    assert lean_gx.tobytes() == gx.tobytes()
    y = numpy.exp(x - x.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    y[numpy.arange(shape[0]), t] -= 1
    numpy.testing.assert_allclose(lean_gx, 0.75 * y / shape[0], **TOL[dtype])


def test_common_case_path_is_left_for_ignored_labels_and_double_backprop():
    x = _uniform((4, 3), seed=5)
    t = numpy.array([0, -1, 2, 1], numpy.int32)
    xv = chainlite.Variable(x)
    assert not softmax_cross_entropy(xv, t).creator._lean
    t[1] = 1
    loss = softmax_cross_entropy(xv, t)
    assert loss.creator._lean
    loss.backward(enable_double_backprop=True)  # through the differentiable gradient node
    gx = xv.grad_var
    xv.cleargrad()
    chainlite.functions.sum(gx * gx).backward()
    assert xv.grad is not None and numpy.isfinite(xv.grad).all()


@pytest.mark.parametrize('layout', ['fortran', 'transposed', 'strided'])
def test_scores_not_in_c_order_take_the_general_path(layout):
    # The short path gathers and scatters the labels' scores through flat positions, which
    # needs C order; other layouts give the same values through the general path.
    x = _uniform((6, 5), numpy.float32, seed=7)
    t = numpy.array([0, 4, 2, 1, 3, 4], numpy.int32)
    if layout == 'fortran':
        xa = numpy.asfortranarray(x)
    elif layout == 'transposed':
        xa = numpy.ascontiguousarray(x.T).T
    else:
        xa = numpy.repeat(x, 2, axis=1)[:, ::2]
    assert not xa.flags.c_contiguous
    results = []
    for a in (xa, x):
        xv = chainlite.Variable(a)
        loss = softmax_cross_entropy(xv, t)
        assert loss.creator._lean is a.flags.c_contiguous
        loss.backward()
        results.append((loss.array, xv.grad))
    # (a BLAS may sum a column-ordered softmax in another order: equal to rounding)
    numpy.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    numpy.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-7)
