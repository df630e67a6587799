"""Converters of the activation functions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.activation import clipped_relu
from chainlite.functions.activation import crelu
from chainlite.functions.activation import elu
from chainlite.functions.activation import gelu
from chainlite.functions.activation import hard_sigmoid
from chainlite.functions.activation import leaky_relu
from chainlite.functions.activation import log_softmax
from chainlite.functions.activation import prelu
from chainlite.functions.activation import relu
from chainlite.functions.activation import relu6
from chainlite.functions.activation import selu
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import softmax
from chainlite.functions.activation import softplus
from chainlite.functions.activation import swish
from chainlite.functions.activation import tanh
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _unary(op_type, **attrs):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        return onnx_helper.make_node(op_type, p.input_names, p.output_names, **attrs),
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


@converter.onnx_chainer_signature
def convert_ClippedReLU(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    _ops.clip(gb, p.opset_version, p.input_names[0], 0.0, p.func.cap, p.input_dtypes[0],
              p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ReLU6(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    _ops.clip(gb, p.opset_version, p.input_names[0], 0.0, 6.0, p.input_dtypes[0],
              p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_CReLU(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    pos = gb.op('Relu', [x])
    neg = gb.op('Relu', [gb.op('Neg', [x])])
    gb.op_output_named('Concat', [pos, neg], p.output_names, axis=p.func.axis)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ELU(p: FunctionConverterParams) -> tuple[Any, ...]:
    if p.func.scale == 1:
        return onnx_helper.make_node('Elu', p.input_names, p.output_names,
                                     alpha=float(p.func.alpha)),
    gb = onnx_helper.GraphBuilder()
    y = gb.op('Elu', p.input_names, alpha=float(p.func.alpha))
    gb.op_output_named('Mul', [y, _ops.scalar(gb, p.func.scale, p.input_dtypes[0])],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_SELU(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('Selu', p.input_names, p.output_names,
                                 alpha=float(p.func.alpha), gamma=float(p.func.scale)),


@converter.onnx_chainer_signature
def convert_GELU(p: FunctionConverterParams) -> tuple[Any, ...]:
    if p.opset_version >= 20:
        return onnx_helper.make_node('Gelu', p.input_names, p.output_names),
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    dtype = p.input_dtypes[0]
    e = gb.op('Erf', [gb.op('Mul', [x, _ops.scalar(gb, 1 / numpy.sqrt(2.0), dtype)])])
    half = gb.op('Mul', [x, _ops.scalar(gb, 0.5, dtype)])
    gb.op_output_named('Mul', [half, gb.op('Add', [e, _ops.scalar(gb, 1.0, dtype)])],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_HardSigmoid(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('HardSigmoid', p.input_names, p.output_names,
                                 alpha=0.2, beta=0.5),


@converter.onnx_chainer_signature
def convert_LeakyReLU(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('LeakyRelu', p.input_names, p.output_names,
                                 alpha=float(p.func.slope)),


def _softmax_like(op_type):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        axis = p.func.axis
        ndim = len(p.input_shapes[0])
        axis = axis + ndim if axis < 0 else axis
        if p.opset_version >= 13 or axis == ndim - 1:
            return onnx_helper.make_node(op_type, p.input_names, p.output_names, axis=axis),
        # Before opset 13 the operator flattens the axes from `axis` on: move it last.
        gb = onnx_helper.GraphBuilder()
        perm = [a for a in range(ndim) if a != axis] + [axis]
        t = gb.op('Transpose', p.input_names, perm=perm)
        s = gb.op(op_type, [t], axis=ndim - 1)
        gb.op_output_named('Transpose', [s], p.output_names,
                           perm=[int(i) for i in numpy.argsort(perm)])
        return gb.nodes()
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


@converter.onnx_chainer_signature
def convert_PReLUFunction(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x_shape, w_shape = p.input_shapes[:2]
    # W lines up with x's axes 1, 2, ...: trailing unit axes make it broadcast that way.
    extra = len(x_shape) - len(w_shape) - 1
    w = p.input_names[1]
    if extra:
        w = _ops.reshape(gb, w, tuple(w_shape) + (1,) * extra)
    gb.op_output_named('PRelu', [p.input_names[0], w], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Softplus(p: FunctionConverterParams) -> tuple[Any, ...]:
    beta = float(p.func.beta)
    if beta == 1.0:
        return onnx_helper.make_node('Softplus', p.input_names, p.output_names),
    gb = onnx_helper.GraphBuilder()
    dtype = p.input_dtypes[0]
    bx = gb.op('Mul', [p.input_names[0], _ops.scalar(gb, beta, dtype)])
    gb.op_output_named('Div', [gb.op('Softplus', [bx]), _ops.scalar(gb, beta, dtype)],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Swish(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x_shape, b_shape = p.input_shapes[:2]
    x, beta = p.input_names[:2]
    extra = len(x_shape) - len(b_shape) - 1
    if extra:
        beta = _ops.reshape(gb, beta, tuple(b_shape) + (1,) * extra)
    s = gb.op('Sigmoid', [gb.op('Mul', [x, beta])])
    gb.op_output_named('Mul', [x, s], p.output_names)
    return gb.nodes()


# onnx_chainer's names for the converters above.
convert_LogSoftmax = _softmax_like('LogSoftmax')
convert_ReLU = _unary('Relu')
convert_Selu = convert_SELU
convert_Sigmoid = _unary('Sigmoid')
convert_Softmax = _softmax_like('Softmax')
convert_Tanh = _unary('Tanh')


CONVERTERS = {
    clipped_relu.ClippedReLU: convert_ClippedReLU,
    crelu.CReLU: convert_CReLU,
    elu.ELU: convert_ELU,
    gelu.GELU: convert_GELU,
    hard_sigmoid.HardSigmoid: convert_HardSigmoid,
    leaky_relu.LeakyReLU: convert_LeakyReLU,
    log_softmax.LogSoftmax: convert_LogSoftmax,
    prelu.PReLUFunction: convert_PReLUFunction,
    relu.ReLU: convert_ReLU,
    relu6.ReLU6: convert_ReLU6,
    selu.SELU: convert_SELU,
    sigmoid.Sigmoid: convert_Sigmoid,
    softmax.Softmax: convert_Softmax,
    softplus.Softplus: convert_Softplus,
    swish.Swish: convert_Swish,
    tanh.Tanh: convert_Tanh,
}
