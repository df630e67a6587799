"""scaled_dot_product_attention: forward against a NumPy loop, masks, dropout, gradients to
second order, dtypes, memory kept for backward, and clear errors."""
import math
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.attention import scaled_dot_product_attention as sdpa_module
from chainlite.functions.attention.scaled_dot_product_attention import \
    scaled_dot_product_attention as sdpa

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 3e-3, 'rtol': 3e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-13, 'rtol': 1e-12}}
# (q.shape, k.shape, v.shape): no batch axes, one, two, broadcast keys and values (shared by
# every head), a broadcast query, L != S, and one position each.
SHAPES = [((3, 4), (5, 4), (5, 2)),
          ((2, 3, 4), (2, 5, 4), (2, 5, 6)),
          ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)),
          ((2, 3, 3, 4), (2, 1, 5, 4), (2, 1, 5, 3)),
          ((3, 4), (2, 5, 4), (2, 5, 3)),
          ((1, 1), (1, 1), (1, 1))]


def _normal(shape, dtype=numpy.float64, seed=0):
    # Attention is smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).standard_normal(shape).astype(dtype)


def _qkv(shapes, dtype=numpy.float64, seed=0):
    return tuple(_normal(s, dtype, seed + i) for i, s in enumerate(shapes))


def _reference(q, k, v, mask=None, is_causal=False, scale=None):
    """Attention row by row in float64, with Python's math; all-blocked rows give zeros."""
    q, k, v = (numpy.asarray(a, numpy.float64) for a in (q, k, v))
    L, E = q.shape[-2:]
    S = k.shape[-2]
    batch = numpy.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    scores_shape = batch + (L, S)
    if mask is not None:
        mask = numpy.broadcast_to(mask, scores_shape)
    q, k = numpy.broadcast_to(q, batch + q.shape[-2:]), numpy.broadcast_to(k, batch + (S, E))
    v = numpy.broadcast_to(v, batch + v.shape[-2:])
    scale = 1 / math.sqrt(E) if scale is None else scale
    y = numpy.zeros(batch + (L, v.shape[-1]))
    w = numpy.zeros(scores_shape)
    for b in numpy.ndindex(*batch):
        for i in range(L):
            scores = {}
            for j in range(S):
                s = scale * float(numpy.dot(q[b][i], k[b][j]))
                if mask is not None and mask.dtype == bool:
                    if not mask[b][i, j]:
                        continue
                elif mask is not None:
                    s += float(mask[b][i, j])
                if (is_causal and j > i) or s == -math.inf:
                    continue
                scores[j] = s
            if not scores:
                continue  # every key blocked: zeros
            top = max(scores.values())
            total = sum(math.exp(s - top) for s in scores.values())
            for j, s in scores.items():
                w[b][i, j] = math.exp(s - top) / total
            y[b][i] = w[b][i] @ v[b]
    return y, w


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', SHAPES)
def test_forward(shapes, dtype):
    q, k, v = _qkv(shapes, dtype)
    y, w = sdpa(q, k, v, return_weights=True)
    expected_y, expected_w = _reference(q, k, v)
    assert y.shape == expected_y.shape and w.shape == expected_w.shape
    assert y.dtype == dtype and w.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected_y, **TOL[dtype])
    numpy.testing.assert_allclose(w.array, expected_w, **TOL[dtype])


def test_default_scale_is_one_over_sqrt_e():
    q, k, v = _qkv(SHAPES[1])
    numpy.testing.assert_allclose(sdpa(q, k, v).array, sdpa(q, k, v, scale=0.5).array,
                                  rtol=1e-15)
    numpy.testing.assert_allclose(sdpa(q, k, v, scale=2.0).array,
                                  _reference(q, k, v, scale=2.0)[0], rtol=1e-12)


def test_is_exported_from_functions():
    assert F.scaled_dot_product_attention is sdpa


def _mask_cases():
    rng = numpy.random.RandomState(3)
    bool_mask = rng.uniform(size=(2, 3, 5)) > 0.3
    bool_mask[:, :, 0] = True  # no row fully blocked here (tested separately)
    return [
        ('bool', bool_mask, False),
        ('bool broadcast over the batch and the queries', numpy.array([True] * 4 + [False]),
         False),
        ('float', rng.uniform(-2, 2, (2, 3, 5)), False),
        ('float broadcast over the batch', rng.uniform(-2, 2, (3, 5)), False),
        ('causal', None, True),
        ('causal and bool', bool_mask, True),
        ('causal and float', rng.uniform(-2, 2, (1, 3, 5)), True),
    ]


@pytest.mark.parametrize('name, mask, is_causal', _mask_cases(), ids=lambda c: str(c))
def test_masks(name, mask, is_causal):
    q, k, v = _qkv(SHAPES[1])
    y, w = sdpa(q, k, v, mask=mask, is_causal=is_causal, return_weights=True)
    expected_y, expected_w = _reference(q, k, v, mask, is_causal)
    numpy.testing.assert_allclose(y.array, expected_y, rtol=1e-12, atol=1e-14)
    numpy.testing.assert_allclose(w.array, expected_w, rtol=1e-12, atol=1e-14)
    numpy.testing.assert_allclose(w.array.sum(axis=-1), 1, rtol=1e-14)


def test_bool_mask_true_means_allowed():
    q = numpy.zeros((1, 2))
    k = numpy.zeros((3, 2))
    v = numpy.array([[1.0], [2.0], [6.0]])
    w = sdpa(q, k, v, mask=numpy.array([True, False, True]), return_weights=True)[1]
    numpy.testing.assert_array_equal(w.array, [[0.5, 0.0, 0.5]])


def test_float_mask_minus_inf_blocks_like_false():
    q, k, v = _qkv(SHAPES[1])
    allowed = numpy.random.RandomState(4).uniform(size=(3, 5)) > 0.4
    allowed[:, 1] = True
    additive = numpy.where(allowed, 0.0, -numpy.inf)
    numpy.testing.assert_allclose(sdpa(q, k, v, mask=additive).array,
                                  sdpa(q, k, v, mask=allowed).array, rtol=1e-15)


def test_causal_blocks_later_keys_aligned_top_left():
    # L = 2 queries, S = 3 keys: query 0 sees key 0, query 1 keys 0 and 1 (numpy.tri(2, 3)).
    q = numpy.zeros((2, 1))
    k = numpy.zeros((3, 1))
    v = numpy.array([[1.0], [3.0], [100.0]])
    y, w = sdpa(q, k, v, is_causal=True, return_weights=True)
    numpy.testing.assert_array_equal(w.array, [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    numpy.testing.assert_array_equal(y.array, [[1.0], [2.0]])


@pytest.mark.parametrize('mask', [
    numpy.array([[True, True], [False, False], [True, False]]),
    numpy.array([[0.0, 0.0], [-numpy.inf, -numpy.inf], [0.0, -numpy.inf]]),
], ids=['bool', 'float'])
def test_fully_masked_rows_give_zeros_without_warnings(mask):
    # (The suite turns warnings into errors: 0/0 or inf-inf would fail here.)
    q, k, v = _qkv(((3, 4), (2, 4), (2, 3)))
    q, k, v = (chainlite.Variable(a) for a in (q, k, v))
    with numpy.errstate(all='raise'):
        y, w = sdpa(q, k, v, mask=mask, return_weights=True)
        y.grad = numpy.ones_like(y.array)
        y.backward()
    numpy.testing.assert_array_equal(y.array[1], 0)
    numpy.testing.assert_array_equal(w.array[1], 0)
    numpy.testing.assert_array_equal(q.grad[1], 0)
    expected_y, expected_w = _reference(q.array, k.array, v.array, mask)
    numpy.testing.assert_allclose(y.array, expected_y, rtol=1e-12)
    numpy.testing.assert_allclose(w.array, expected_w, rtol=1e-12)
    assert numpy.isfinite(k.grad).all() and numpy.isfinite(v.grad).all()


def test_no_keys_gives_zeros():
    y = sdpa(numpy.ones((2, 3)), numpy.ones((0, 3)), numpy.ones((0, 4)))
    numpy.testing.assert_array_equal(y.array, numpy.zeros((2, 4)))


def _check_grads(func, inputs, n_outputs=1, seed=10):
    y_shapes = [a.shape for a in _as_tuple(func(*inputs))]
    gys = tuple(_normal(s, seed=seed + i) for i, s in enumerate(y_shapes))[:n_outputs] + \
        (None,) * (len(y_shapes) - n_outputs)
    ggxs = tuple(_normal(x.shape, seed=seed + 5 + i) for i, x in enumerate(inputs))
    gradient_check.check_backward(func, inputs, gys)
    gradient_check.check_double_backward(func, inputs, gys, ggxs)


def _as_tuple(y):
    return y if isinstance(y, tuple) else (y,)


@pytest.mark.parametrize('shapes', SHAPES[:5])
def test_gradients(shapes):
    _check_grads(sdpa, _qkv(shapes))


@pytest.mark.parametrize('name, mask, is_causal', _mask_cases(), ids=lambda c: str(c))
def test_gradients_with_masks(name, mask, is_causal):
    _check_grads(lambda q, k, v: sdpa(q, k, v, mask=mask, is_causal=is_causal),
                 _qkv(SHAPES[1]))


def test_gradients_with_a_fully_masked_row():
    mask = numpy.array([[True, True, False], [False, False, False]])
    _check_grads(lambda q, k, v: sdpa(q, k, v, mask=mask), _qkv(((2, 4), (3, 4), (3, 2))))


@pytest.mark.parametrize('mask_shape', [(2, 3, 5), (3, 5), (1, 5)])
def test_gradients_reach_a_float_mask(mask_shape):
    # A float mask may be a learned bias: it is an input like q, k and v.
    q, k, v = _qkv(SHAPES[1])
    mask = _normal(mask_shape, seed=7)
    _check_grads(lambda q, k, v, mask: sdpa(q, k, v, mask=mask), (q, k, v, mask))


def test_gradients_through_the_weights():
    # Both outputs used: the weights' own gradient joins the output's.
    _check_grads(lambda q, k, v: sdpa(q, k, v, is_causal=True, return_weights=True),
                 _qkv(SHAPES[3]), n_outputs=2)


def test_gradients_with_dropout():
    def func(q, k, v):
        numpy.random.seed(0)  # the same dropout mask at every call
        return sdpa(q, k, v, dropout_ratio=0.4)
    _check_grads(func, _qkv(SHAPES[1]))


def test_dropout_applies_to_the_weights_in_training_only():
    q, k, v = _qkv(SHAPES[1])
    numpy.random.seed(1)
    y, w = sdpa(q, k, v, dropout_ratio=0.5, return_weights=True)
    numpy.random.seed(1)
    keep = numpy.random.rand(*w.shape) >= 0.5
    assert 0 < keep.sum() < keep.size
    # The weights are returned before dropout.
    numpy.testing.assert_allclose(w.array, _reference(q, k, v)[1], rtol=1e-12)
    numpy.testing.assert_allclose(y.array, (w.array * keep * 2) @ v, rtol=1e-12)
    with chainlite.using_config('train', False):
        y = sdpa(q, k, v, dropout_ratio=0.5)
    numpy.testing.assert_allclose(y.array, _reference(q, k, v)[0], rtol=1e-12)


@pytest.mark.parametrize('ratio', [-0.1, 1.0])
def test_dropout_ratio_outside_0_1_is_refused(ratio):
    q, k, v = _qkv(SHAPES[1])
    with pytest.raises(ValueError, match=re.escape(
            'scaled_dot_product_attention: dropout_ratio must be in the range [0, 1), got %r'
            % ratio)):
        sdpa(q, k, v, dropout_ratio=ratio)


@pytest.mark.parametrize('dtype', DTYPES)
def test_dtype_is_kept_by_outputs_and_gradients(dtype):
    q, k, v = (chainlite.Variable(a) for a in _qkv(SHAPES[3], dtype))
    mask = chainlite.Variable(_normal((3, 5), dtype, seed=5))
    y, w = sdpa(q, k, v, mask=mask, is_causal=True, return_weights=True)
    assert y.dtype == dtype and w.dtype == dtype
    y.grad = numpy.ones(y.shape, dtype)
    y.backward()
    for x in (q, k, v, mask):
        assert x.grad.dtype == dtype and x.grad.shape == x.shape
        assert numpy.isfinite(x.grad).all()


def test_float16_matches_float64_gradients():
    # float16 is computed in float32 inside: its gradients are float64's, rounded.
    inputs = _qkv(SHAPES[1])
    grads = {}
    for dtype in (numpy.float16, numpy.float64):
        xs = [chainlite.Variable(a.astype(dtype)) for a in inputs]
        y = sdpa(*xs, is_causal=True)
        y.grad = numpy.ones(y.shape, dtype)
        y.backward()
        grads[dtype] = [x.grad for x in xs]
    for g16, g64 in zip(grads[numpy.float16], grads[numpy.float64]):
        numpy.testing.assert_allclose(g16, g64, atol=1e-2, rtol=1e-2)


def test_backward_keeps_the_weights_not_the_scores():
    # Retained: q, k, v (for the products) and the weights; neither the scores nor the
    # output, and no mask (bool or float: the weights' zeros already tell where it blocked).
    q, k, v = (chainlite.Variable(a) for a in _qkv(SHAPES[1]))
    y = sdpa(q, k, v, mask=_normal((3, 5), seed=3), is_causal=True)
    node = y.creator
    assert isinstance(node, sdpa_module.ScaledDotProductAttention)
    assert tuple(node._input_indexes_to_retain) == (0, 1, 2)
    assert tuple(node._output_indexes_to_retain) == (1,)
    assert [a.shape for a in node._retained_output_data] == [(2, 3, 5)]
    assert node.keep is None
    assert not any(isinstance(a, numpy.ndarray) for a in vars(node).values())
    assert node.inputs[3].data is None  # the mask is not kept


def test_dropout_keeps_a_bool_mask():
    numpy.random.seed(0)
    y = sdpa(*(chainlite.Variable(a) for a in _qkv(SHAPES[1])), dropout_ratio=0.5)
    assert y.creator.keep.dtype == numpy.bool_ and y.creator.keep.shape == (2, 3, 5)


def test_a_bool_mask_gets_no_gradient():
    q, k, v = (chainlite.Variable(a) for a in _qkv(SHAPES[1]))
    mask = chainlite.Variable(numpy.ones((3, 5), bool))
    y = sdpa(q, k, v, mask=mask)
    y.grad = numpy.ones(y.shape)
    y.backward()
    assert mask.grad is None and q.grad is not None


@pytest.mark.parametrize('args, kwargs, error, message', [
    (((2, 3, 4), (2, 5, 3), (2, 5, 6)), {}, ValueError,
     'q and k must have the same last axis E, got q.shape=(2, 3, 4) and k.shape=(2, 5, 3)'),
    (((2, 3, 4), (2, 5, 4), (2, 6, 6)), {}, ValueError,
     'k and v must have the same source length S (axis -2), got k.shape=(2, 5, 4) and '
     'v.shape=(2, 6, 6)'),
    (((2, 3, 4), (3, 5, 4), (3, 5, 6)), {}, ValueError,
     'the batch axes (all but the last two) of q, k and v do not broadcast together: '
     'q.shape=(2, 3, 4), k.shape=(3, 5, 4), v.shape=(3, 5, 6)'),
    (((4,), (5, 4), (5, 6)), {}, ValueError,
     'q must have shape (..., L, E), at least 2 axes, got shape (4,)'),
    (((3, 4), (5, 4), (5,)), {}, ValueError,
     'v must have shape (..., S, Ev), at least 2 axes, got shape (5,)'),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {'mask': numpy.ones((3, 4), bool)}, ValueError,
     'mask.shape=(3, 4) does not broadcast to the shape (..., L, S) = (2, 3, 5) of the '
     'scores of q.shape=(2, 3, 4) and k.shape=(2, 5, 4)'),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {'mask': numpy.ones((4, 2, 3, 5))}, ValueError,
     'mask.shape=(4, 2, 3, 5) does not broadcast to the shape (..., L, S) = (2, 3, 5)'),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {'mask': numpy.ones((3, 5), numpy.int32)}, TypeError,
     'mask must be a bool or float array, got dtype int32'),
], ids=lambda v: v if isinstance(v, str) else '')
def test_bad_arguments_name_the_argument_and_the_shapes(args, kwargs, error, message):
    q, k, v = (numpy.zeros(s, numpy.float32) for s in args)
    with pytest.raises(error) as info:
        sdpa(q, k, v, **kwargs)
    assert str(info.value).startswith('scaled_dot_product_attention: ')
    assert message in str(info.value)


def test_bad_dtypes_are_type_errors():
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(TypeError, match='scaled_dot_product_attention: k must be a float '
                                        'array, got dtype int64'):
        sdpa(x, numpy.zeros((3, 4), numpy.int64), x)
    with pytest.raises(TypeError, match='scaled_dot_product_attention: q, k and v must have '
                                        'one dtype, got float32, float64 and float32'):
        sdpa(x, x.astype(numpy.float64), x)
    with pytest.raises(TypeError, match='scaled_dot_product_attention: q must be a Variable '
                                        'or an array, got list'):
        sdpa([[1.0]], x, x)
