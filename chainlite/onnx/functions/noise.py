"""Converters of the noise functions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.noise import dropout
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


@converter.onnx_chainer_signature
def convert_Dropout(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Dropout is only recorded in training mode; the ONNX node drops nothing at inference.
    ratio = float(p.func.dropout_ratio)
    if p.opset_version >= 12:
        gb = onnx_helper.GraphBuilder()
        gb.op_output_named('Dropout', [p.input_names[0],
                                       gb.const(numpy.asarray(ratio, p.input_dtypes[0]))],
                           p.output_names)
        return gb.nodes()
    return onnx_helper.make_node('Dropout', p.input_names, p.output_names, ratio=ratio),


CONVERTERS = {
    dropout.Dropout: convert_Dropout,
}
