"""Converters of the connection functions: linear, (de)convolutions and embed_id."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.connection import convolution_2d
from chainlite.functions.connection import convolution_nd
from chainlite.functions.connection import deconvolution_2d
from chainlite.functions.connection import deconvolution_nd
from chainlite.functions.connection import embed_id
from chainlite.functions.connection import linear
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


@converter.onnx_chainer_signature
def convert_LinearFunction(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x, W = p.input_names[:2]
    if len(p.input_names) == 3:
        gb.op_output_named('Gemm', [x, W, p.input_names[2]], p.output_names, transB=1)
    elif p.opset_version >= 11:
        gb.op_output_named('Gemm', [x, W], p.output_names, transB=1)
    else:
        gb.op_output_named('MatMul', [x, gb.op('Transpose', [W], perm=[1, 0])],
                           p.output_names)
    return gb.nodes()


def _end_pads(in_sizes, out_sizes, ksizes, strides, pads, dilates):
    # The padding after each axis that gives exactly the recorded output size: more than
    # `pad` where cover_all windows run past the input.
    ends = []
    for i, o, k, s, pd, d in zip(in_sizes, out_sizes, ksizes, strides, pads, dilates):
        dk = (k - 1) * d + 1
        ends.append(max(pd, (o - 1) * s + dk - i - pd))
    return ends


@converter.onnx_chainer_signature
def convert_Convolution(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    x_shape, W_shape = p.input_shapes[:2]
    nd = len(x_shape) - 2
    ksize = list(W_shape[2:])
    stride = [int(s) for s in f.stride]
    pad = [int(v) for v in f.pad]
    dilate = [int(d) for d in f.dilate]
    ends = _end_pads(x_shape[2:], p.output_shapes[0][2:], ksize, stride, pad, dilate)
    assert len(stride) == nd
    return onnx_helper.make_node(
        'Conv', p.input_names, p.output_names, kernel_shape=ksize, strides=stride,
        pads=pad + ends, dilations=dilate, group=int(f.groups)),


@converter.onnx_chainer_signature
def convert_Deconvolution(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    x_shape, W_shape = p.input_shapes[:2]
    out = p.output_shapes[0][2:]
    ksize = list(W_shape[2:])
    stride = [int(s) for s in f.stride]
    pad = [int(v) for v in f.pad]
    dilate = [int(d) for d in f.dilate]
    ends, extra = [], []
    # The full transposed convolution has s * (in - 1) + dk elements; the output takes `out`
    # of them after the first `pad`. The rest is cut at the end, or padded if negative.
    for i, o, k, s, pd, d in zip(x_shape[2:], out, ksize, stride, pad, dilate):
        full = s * (i - 1) + (k - 1) * d + 1
        end = full - pd - o
        ends.append(max(end, 0))
        extra.append(max(-end, 0))
    attrs = dict(kernel_shape=ksize, strides=stride, pads=pad + ends, dilations=dilate,
                 group=int(f.groups))
    if any(extra):
        attrs['output_padding'] = extra
    return onnx_helper.make_node('ConvTranspose', p.input_names, p.output_names, **attrs),


@converter.onnx_chainer_signature
def convert_EmbedIDFunction(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x, W = p.input_names[:2]
    ignore = p.func.ignore_label
    if ignore is None:
        gb.op_output_named('Gather', [W, x], p.output_names, axis=0)
        return gb.nodes()
    from chainlite.onnx import _deps
    onnx = _deps.onnx()
    x_dtype = numpy.dtype(p.input_dtypes[0])
    keep = gb.op('Not', [gb.op('Equal', [x, gb.const(numpy.asarray(ignore, x_dtype))])])
    index = gb.op('Where', [keep, x, gb.const(numpy.asarray(0, x_dtype))])
    rows = gb.op('Gather', [W, index], axis=0)
    to = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(p.output_dtypes[0]))
    mask = _ops.unsqueeze(gb, p.opset_version, gb.op('Cast', [keep], to=to),
                          [len(p.input_shapes[0])])
    gb.op_output_named('Mul', [rows, mask], p.output_names)
    return gb.nodes()


# onnx_chainer's names for the converters above.
convert_Convolution2DFunction = convert_Convolution
convert_ConvolutionND = convert_Convolution
convert_Deconvolution2DFunction = convert_Deconvolution
convert_DeconvolutionND = convert_Deconvolution


CONVERTERS = {
    convolution_2d.Convolution2DFunction: convert_Convolution2DFunction,
    convolution_nd.ConvolutionND: convert_ConvolutionND,
    deconvolution_2d.Deconvolution2DFunction: convert_Deconvolution2DFunction,
    deconvolution_nd.DeconvolutionND: convert_DeconvolutionND,
    embed_id.EmbedIDFunction: convert_EmbedIDFunction,
    linear.LinearFunction: convert_LinearFunction,
}
