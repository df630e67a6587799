"""Converters of the attention functions: scaled dot-product attention as MatMul and Softmax.

ONNX has no attention operator in the opsets the exporter targets, so the function is
spelled out: ``MatMul(q, k^T)``, ``Mul`` by the scale, the masks as ``Add`` (float) and
``Where`` (bool and causal), ``Softmax`` over the keys, ``MatMul`` with ``v``.
:class:`~chainlite.links.MultiHeadAttention` exports through it and the converters of its
projections, reshapes and transposes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.attention import scaled_dot_product_attention as sdpa
from chainlite.functions.math import matmul
from chainlite.onnx import _deps
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _onnx_dtype(dtype: Any) -> int:
    return _deps.onnx().helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))


def _swap_last_two(ndim: int) -> list[int]:
    perm = list(range(ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


@converter.onnx_chainer_signature
def convert_ScaledDotProductAttention(p: FunctionConverterParams) -> tuple[Any, ...]:
    func = p.func
    gb = onnx_helper.GraphBuilder()
    dtype = numpy.dtype(p.input_dtypes[0])
    # float16 is computed in float32, as the function does.
    compute = matmul.compute_dtype(numpy.empty(0, dtype))
    to = _onnx_dtype(compute) if compute != dtype else None

    def cast(name: str) -> str:
        return gb.op('Cast', [name], to=to) if to is not None else name

    q, k, v = (cast(n) for n in p.input_names[:3])
    kt = gb.op('Transpose', [k], perm=_swap_last_two(len(p.input_shapes[1])))
    s = gb.op('MatMul', [q, kt])
    s = gb.op('Mul', [s, _ops.scalar(gb, func.scale, compute)])
    lowest = _ops.scalar(gb, numpy.finfo(compute).min, compute)
    allowed = None
    if len(p.input_names) == 4:
        mask = p.input_names[3]
        if numpy.dtype(p.input_dtypes[3]).kind == 'b':
            allowed = mask
        else:
            if numpy.dtype(p.input_dtypes[3]) != compute:
                mask = gb.op('Cast', [mask], to=_onnx_dtype(compute))
            s = gb.op('Add', [s, mask])
            # -inf in a float mask blocks like False in a bool one (rows blocked everywhere
            # get zero weights, where Softmax would give NaN).
            allowed = gb.op('Not', [gb.op('Less', [s, lowest])])
    if func.is_causal:
        length, source = p.input_shapes[0][-2], p.input_shapes[1][-2]
        causal = gb.const(numpy.tri(length, source, dtype=bool))
        allowed = causal if allowed is None else gb.op('And', [allowed, causal])
    if allowed is not None:
        s = gb.op('Where', [allowed, s, lowest])
    ndim = max(len(shape) for shape in p.input_shapes)   # the scores' axes
    weights = gb.op('Softmax', [s], axis=ndim - 1)
    if allowed is not None:
        weights = gb.op('Mul', [weights, gb.op('Cast', [allowed],
                                               to=_onnx_dtype(compute))])
    dropped = weights
    if func.keep is not None:   # recorded in training mode: ONNX's Dropout, as F.dropout's
        ratio = float(func.dropout_ratio)
        if p.opset_version >= 12:
            dropped = gb.op('Dropout', [weights, _ops.scalar(gb, ratio, compute)])
        else:
            dropped = gb.op('Dropout', [weights], ratio=ratio)
    y = gb.op('MatMul', [dropped, v])
    for value, name in ((y, p.output_names[0]), (weights, p.output_names[1])):
        gb.op_output_named('Cast' if to is not None else 'Identity', [value], [name],
                           **({'to': _onnx_dtype(dtype)} if to is not None
                              else {}))
    return gb.nodes()


CONVERTERS = {
    sdpa.ScaledDotProductAttention: convert_ScaledDotProductAttention,
}
