"""Converters of the losses that ONNX can express."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.loss import absolute_error
from chainlite.functions.loss import mean_absolute_error
from chainlite.functions.loss import mean_squared_error
from chainlite.functions.loss import softmax_cross_entropy
from chainlite.functions.loss import squared_error
from chainlite.onnx import _deps
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


@converter.onnx_chainer_signature
def convert_SoftmaxCrossEntropy(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    _ops.requires(p, 12)
    if numpy.dtype(p.input_dtypes[1]).kind == 'f':
        raise ValueError('chainlite.onnx: softmax_cross_entropy with soft targets cannot be '
                         'exported')
    onnx = _deps.onnx()
    gb = onnx_helper.GraphBuilder()
    x, t = p.input_names[:2]
    dtype = p.input_dtypes[0]
    t64 = gb.op('Cast', [t], to=onnx.TensorProto.INT64)
    inputs = [x, t64]
    if f.class_weight is not None:
        inputs.append(gb.const(numpy.asarray(f.class_weight, dtype)))
    kw = {} if f.ignore_label is None else {'ignore_index': int(f.ignore_label)}
    if f.reduce == 'no':
        gb.op_output_named('SoftmaxCrossEntropyLoss', inputs, p.output_names,
                           reduction='none', **kw)
        return gb.nodes()
    total = gb.op('SoftmaxCrossEntropyLoss', inputs, reduction='sum', **kw)
    if f.normalize:
        # Chainer divides by the number of labels that are not ignored (at least 1).
        if f.ignore_label is None:
            count = _at_least_one(gb, gb.op('Size', [t]), dtype)
        else:
            keep = gb.op('Not', [gb.op('Equal', [t64, gb.const(
                numpy.asarray(f.ignore_label, numpy.int64))])])
            to = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))
            n = _ops.reduce(gb, p.opset_version, 'ReduceSum', gb.op('Cast', [keep], to=to),
                            None, False)
            count = gb.op('Max', [n, _ops.scalar(gb, 1, dtype)])
    else:
        batch = gb.op('Gather', [gb.op('Shape', [x]), gb.const(numpy.asarray(0, numpy.int64))],
                      axis=0)
        count = _at_least_one(gb, batch, dtype)
    gb.op_output_named('Div', [total, count], p.output_names)
    return gb.nodes()


def _at_least_one(gb, n, dtype):
    # max(n, 1) in dtype, for a count computed in the graph (it follows a symbolic batch).
    to = _deps.onnx().helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))
    return gb.op('Max', [gb.op('Cast', [n], to=to), _ops.scalar(gb, 1, dtype)])


def _error(op_type, mean):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        d = gb.op('Sub', p.input_names[:2])
        e = gb.op('Mul', [d, d]) if op_type == 'square' else gb.op('Abs', [d])
        if mean:
            _ops.reduce(gb, p.opset_version, 'ReduceMean', e, None, False, p.output_names)
        else:
            gb.op_output_named('Identity', [e], p.output_names)
        return gb.nodes()
    return converter.onnx_chainer_signature(convert)


CONVERTERS = {
    absolute_error.AbsoluteError: _error('abs', False),
    mean_absolute_error.MeanAbsoluteError: _error('abs', True),
    mean_squared_error.MeanSquaredError: _error('square', True),
    softmax_cross_entropy.SoftmaxCrossEntropy: convert_SoftmaxCrossEntropy,
    squared_error.SquaredError: _error('square', False),
}
