"""Exporting attention: F.scaled_dot_product_attention and L.MultiHeadAttention run in ONNX
Runtime with chainlite's outputs, masks (bool, float with -inf, causal) and opsets included."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L

_rng = numpy.random.RandomState(0)


def r(*shape, dtype=numpy.float32):
    return _rng.uniform(-1, 1, shape).astype(dtype)


def _blocking_bool(shape):
    mask = _rng.uniform(size=shape) > 0.3
    mask[..., 1, :] = False         # a query that may attend to nothing: zero weights
    return mask


def _blocking_float(shape):
    mask = _rng.uniform(-1, 1, shape).astype(numpy.float32)
    mask[..., 0, 2] = -numpy.inf
    mask[..., 2, :] = -numpy.inf    # blocked everywhere: zero weights, not NaN
    return mask


def _sdpa(**kwargs):
    return lambda q, k, v, *mask: F.scaled_dot_product_attention(q, k, v, *mask, **kwargs)


CASES = [
    ('plain', _sdpa(), [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 7)]),
    ('weights', _sdpa(return_weights=True), [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3)]),
    ('scale', _sdpa(scale=0.3), [r(4, 5), r(6, 5), r(6, 2)]),
    ('bool_mask', _sdpa(return_weights=True),
     [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 7), _blocking_bool((2, 1, 4, 6))]),
    ('float_mask', _sdpa(return_weights=True),
     [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3), _blocking_float((4, 6))]),
    ('causal', _sdpa(is_causal=True, return_weights=True), [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3)]),
    ('causal_and_mask', _sdpa(is_causal=True),
     [r(2, 5, 5), r(2, 5, 5), r(2, 5, 3), _blocking_bool((2, 5, 5))]),
    ('mask_broadcasts', _sdpa(return_weights=True),
     [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 3), _blocking_bool((4, 6))]),
    ('broadcast_heads', _sdpa(), [r(2, 3, 4, 5), r(2, 1, 6, 5), r(2, 1, 6, 7)]),
]


@pytest.mark.parametrize('name,fn,inputs', CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize('opset', [None, 9, 12])
def test_scaled_dot_product_attention(ox, name, fn, inputs, opset):
    proto = ox.check_export(ox.Fn(fn), inputs, opset_version=opset)
    assert {'MatMul', 'Softmax'} <= set(ox.op_types(proto))


def test_float64_and_float16(ox):
    inputs = [r(2, 4, 5, dtype=numpy.float64), r(2, 6, 5, dtype=numpy.float64),
              r(2, 6, 3, dtype=numpy.float64)]
    ox.check_export(ox.Fn(_sdpa(is_causal=True)), inputs, rtol=1e-12, atol=1e-12)
    half = [x.astype(numpy.float16) for x in inputs]
    proto = ox.check_export(ox.Fn(_sdpa(return_weights=True)), half, rtol=1e-3, atol=1e-3)
    assert 'Cast' in ox.op_types(proto)    # computed in float32, as the function does


def test_training_mode_export_keeps_dropout_as_onnx_dropout(ox):
    inputs = [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3)]
    fn = ox.Fn(_sdpa(dropout_ratio=0.5))
    for opset in (None, 11):
        proto = ox.export(fn, inputs, train=True, opset_version=opset)
        assert 'Dropout' in ox.op_types(proto)
        with chainlite.using_config('train', False):  # ONNX's Dropout drops nothing
            expected = fn(*inputs).array
        numpy.testing.assert_allclose(ox.run_onnx(proto, inputs)[0], expected, rtol=1e-5,
                                      atol=1e-6)


def _mha(**kwargs):
    numpy.random.seed(1)
    return L.MultiHeadAttention(8, 2, **kwargs)


def test_multi_head_attention_self_attention(ox):
    mha = _mha()
    x = r(3, 5, 8)
    proto = ox.check_export(ox.Fn(lambda x: mha(x, is_causal=True), mha=mha), [x])
    assert 'Softmax' in ox.op_types(proto)


def test_multi_head_attention_masks_and_weights(ox):
    mha = _mha(kdim=6, vdim=4)
    query, key, value = r(2, 5, 8), r(2, 7, 6), r(2, 7, 4)
    padding = numpy.zeros((2, 7), bool)
    padding[0, 5:] = True
    blocked = _rng.uniform(size=(5, 7)) > 0.8

    def fn(q, k, v, padding, blocked):
        return mha(q, k, v, key_padding_mask=padding, attn_mask=blocked, need_weights=True,
                   average_attn_weights=False)

    for opset in (None, 9):
        ox.check_export(ox.Fn(fn, mha=mha), [query, key, value, padding, blocked],
                        opset_version=opset)


def test_multi_head_attention_float_mask_sequence_first(ox):
    mha = _mha(batch_first=False)
    x = r(5, 3, 8)
    bias = _blocking_float((5, 5))
    ox.check_export(ox.Fn(lambda x, m: mha(x, attn_mask=m, need_weights=True), mha=mha),
                    [x, bias])


def test_multi_head_attention_dynamic_batch(ox):
    mha = _mha()
    ox.check_dynamic_batch(ox.Fn(lambda x: mha(x, is_causal=True), mha=mha),
                           lambda b: [r(b, 5, 8)])
