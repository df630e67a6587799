"""Converters of the mathematical functions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.math import absolute
from chainlite.functions.math import add
from chainlite.functions.math import arccos
from chainlite.functions.math import arcsin
from chainlite.functions.math import arctan
from chainlite.functions.math import arctanh
from chainlite.functions.math import batch_matmul
from chainlite.functions.math import bias
from chainlite.functions.math import clip
from chainlite.functions.math import cos
from chainlite.functions.math import cosh
from chainlite.functions.math import cumsum
from chainlite.functions.math import div
from chainlite.functions.math import einsum
from chainlite.functions.math import erf
from chainlite.functions.math import exp
from chainlite.functions.math import expm1
from chainlite.functions.math import fmod
from chainlite.functions.math import identity
from chainlite.functions.math import linear_interpolate
from chainlite.functions.math import log
from chainlite.functions.math import log10
from chainlite.functions.math import log1p
from chainlite.functions.math import log2
from chainlite.functions.math import logsumexp
from chainlite.functions.math import matmul
from chainlite.functions.math import max as max_mod
from chainlite.functions.math import maximum
from chainlite.functions.math import mean
from chainlite.functions.math import min as min_mod
from chainlite.functions.math import minimum
from chainlite.functions.math import mul
from chainlite.functions.math import neg
from chainlite.functions.math import pow as pow_mod
from chainlite.functions.math import prod
from chainlite.functions.math import rsqrt
from chainlite.functions.math import scale
from chainlite.functions.math import sin
from chainlite.functions.math import sinh
from chainlite.functions.math import sqrt
from chainlite.functions.math import square
from chainlite.functions.math import squared_difference
from chainlite.functions.math import sub
from chainlite.functions.math import sum as sum_mod
from chainlite.functions.math import tan
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops
from chainlite.onnx.functions import _recorded
from chainlite.onnx.functions import array

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _unary(op_type):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        return onnx_helper.make_node(op_type, p.input_names, p.output_names),
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


def _binary(op_type):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        return onnx_helper.make_node(op_type, p.input_names[:2], p.output_names),
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


def _with_constant(op_type, constant_first=False):
    # x op value (or value op x), the constant in the output's dtype as NumPy computes it.
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        value = gb.const(numpy.asarray(p.func.value, dtype=p.output_dtypes[0]))
        x = p.input_names[0]
        gb.op_output_named(op_type, [value, x] if constant_first else [x, value],
                           p.output_names)
        return gb.nodes()
    convert.__name__ = 'convert_%s_constant' % op_type
    return converter.onnx_chainer_signature(convert)


def _then(op_type, second, value):
    # op_type(x), then `second` with a scalar constant.
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        y = gb.op(op_type, p.input_names[:1])
        gb.op_output_named(second, [y, _ops.scalar(gb, value, p.output_dtypes[0])],
                           p.output_names)
        return gb.nodes()
    return converter.onnx_chainer_signature(convert)


@converter.onnx_chainer_signature
def convert_Log1p(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    s = gb.op('Add', [p.input_names[0], _ops.scalar(gb, 1, p.input_dtypes[0])])
    gb.op_output_named('Log', [s], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Rsqrt(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    gb.op_output_named('Reciprocal', [gb.op('Sqrt', p.input_names)], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Square(p: FunctionConverterParams) -> tuple[Any, ...]:
    x = p.input_names[0]
    return onnx_helper.make_node('Mul', [x, x], p.output_names),


@converter.onnx_chainer_signature
def convert_SquaredDifference(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    d = gb.op('Sub', p.input_names[:2])
    gb.op_output_named('Mul', [d, d], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Clip(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    _ops.clip(gb, p.opset_version, p.input_names[0], p.func.x_min, p.func.x_max,
              p.input_dtypes[0], p.output_names)
    return gb.nodes()


def _reduction(op_type):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        _ops.reduce(gb, p.opset_version, op_type, p.input_names[0], p.func.axis,
                    p.func.keepdims, p.output_names)
        return gb.nodes()
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


@converter.onnx_chainer_signature
def convert_LogSumExp(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    _ops.reduce(gb, p.opset_version, 'ReduceLogSumExp', p.input_names[0], p.func.axis, False,
                p.output_names)
    return gb.nodes()


def _last_two(ndim):
    perm = list(range(ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


@converter.onnx_chainer_signature
def convert_MatMul(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    a, b = p.input_names[:2]
    sa, sb = p.input_shapes[:2]
    if p.func.transa and len(sa) >= 2:
        a = gb.op('Transpose', [a], perm=_last_two(len(sa)))
    if p.func.transb and len(sb) >= 2:
        b = gb.op('Transpose', [b], perm=_last_two(len(sb)))
    gb.op_output_named('MatMul', [a, b], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_BatchMatMul(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    names = []
    for name, shape, trans in zip(p.input_names, p.input_shapes,
                                  (p.func.transa, p.func.transb)):
        if len(shape) == 2:  # a batch of column vectors
            name = _ops.unsqueeze(gb, p.opset_version, name, [2])
        if trans:
            name = gb.op('Transpose', [name], perm=[0, 2, 1])
        names.append(name)
    gb.op_output_named('MatMul', names, p.output_names)
    return gb.nodes()


def _aligned(gb, p, y, y_shape, axis, x_ndim):
    # The second operand of bias/scale lines up with x's axes from `axis` on: unit axes
    # before and after it (its own sizes stay whatever they are in the graph).
    ndim = len(y_shape)
    axes = list(range(axis)) + list(range(axis + ndim, x_ndim))
    return _ops.unsqueeze(gb, p.opset_version, y, axes) if axes else y


def _caffe(op_type):
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        y = _aligned(gb, p, p.input_names[1], p.input_shapes[1], p.func.axis,
                     len(p.input_shapes[0]))
        gb.op_output_named(op_type, [p.input_names[0], y], p.output_names)
        return gb.nodes()
    convert.__name__ = 'convert_caffe_' + op_type
    return converter.onnx_chainer_signature(convert)


@converter.onnx_chainer_signature
def convert_Cumsum(p: FunctionConverterParams) -> tuple[Any, ...]:
    _ops.requires(p, 11)
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    axis = p.func.axis
    if axis is None:
        x = _ops.reshape(gb, x, [-1])
        axis = 0
    gb.op_output_named('CumSum', [x, gb.const(numpy.asarray(axis, numpy.int64))],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Fmod(p: FunctionConverterParams) -> tuple[Any, ...]:
    _ops.requires(p, 10)
    return onnx_helper.make_node('Mod', p.input_names[:2], p.output_names, fmod=1),


@converter.onnx_chainer_signature
def convert_EinSum(p: FunctionConverterParams) -> tuple[Any, ...]:
    _ops.requires(p, 12)
    equation = ','.join(p.func.in_terms) + '->' + p.func.out_term
    return onnx_helper.make_node('Einsum', p.input_names, p.output_names, equation=equation),


@converter.onnx_chainer_signature
def convert_Identity(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    for i, o in zip(p.input_names, p.output_names):
        gb.op_output_named('Identity', [i], [o])
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_LinearInterpolate(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    prob, x, y = p.input_names[:3]
    # p * x + (1 - p) * y = y + p * (x - y)
    gb.op_output_named('Add', [y, gb.op('Mul', [prob, gb.op('Sub', [x, y])])],
                       p.output_names)
    return gb.nodes()


# The converters made by the factories above, under onnx_chainer's names.
convert_Absolute = _unary('Abs')
convert_Add = _binary('Add')
convert_AddConstant = _with_constant('Add')
convert_Arccos = _unary('Acos')
convert_Arcsin = _unary('Asin')
convert_Arctan = _unary('Atan')
convert_Arctanh = _unary('Atanh')
convert_Bias = _caffe('Add')
convert_Cos = _unary('Cos')
convert_Cosh = _unary('Cosh')
convert_Div = _binary('Div')
convert_DivFromConstant = _with_constant('Div', constant_first=True)
convert_Erf = _unary('Erf')
convert_Exp = _unary('Exp')
convert_Expm1 = _then('Exp', 'Sub', 1)
convert_Log = _unary('Log')
convert_Log10 = _then('Log', 'Div', numpy.log(10.0))
convert_Log2 = _then('Log', 'Div', numpy.log(2.0))
convert_Max = _reduction('ReduceMax')
convert_Maximum = _binary('Max')
convert_Mean = _reduction('ReduceMean')
convert_Min = _reduction('ReduceMin')
convert_Minimum = _binary('Min')
convert_Mul = _binary('Mul')
convert_MulConstant = _with_constant('Mul')
convert_Neg = _unary('Neg')
convert_PowConstVar = _with_constant('Pow', constant_first=True)
convert_PowVarConst = _with_constant('Pow')
convert_PowVarVar = _binary('Pow')
convert_Prod = _reduction('ReduceProd')
convert_Scale = _caffe('Mul')
convert_Sin = _unary('Sin')
convert_Sinh = _unary('Sinh')
convert_Sqrt = _unary('Sqrt')
convert_Sub = _binary('Sub')
convert_SubFromConstant = _with_constant('Sub', constant_first=True)
convert_Sum = _reduction('ReduceSum')
convert_Tan = _unary('Tan')
convert_ArgMax = _recorded.convert_ArgMax
convert_ArgMin = _recorded.convert_ArgMin
convert_BroadcastTo = array.convert_BroadcastTo
convert_RsqrtGPU = convert_Rsqrt  # Chainer's rsqrt on a GPU; the same nodes
convert_sign = _unary('Sign')


CONVERTERS = {
    absolute.Absolute: convert_Absolute,
    add.Add: convert_Add,
    add.AddConstant: convert_AddConstant,
    arccos.Arccos: convert_Arccos,
    arcsin.Arcsin: convert_Arcsin,
    arctan.Arctan: convert_Arctan,
    arctanh.Arctanh: convert_Arctanh,
    batch_matmul.BatchMatMul: convert_BatchMatMul,
    bias.Bias: convert_Bias,
    clip.Clip: convert_Clip,
    cos.Cos: convert_Cos,
    cosh.Cosh: convert_Cosh,
    cumsum.Cumsum: convert_Cumsum,
    div.Div: convert_Div,
    div.DivFromConstant: convert_DivFromConstant,
    einsum.EinSum: convert_EinSum,
    erf.Erf: convert_Erf,
    exp.Exp: convert_Exp,
    expm1.Expm1: convert_Expm1,
    fmod.Fmod: convert_Fmod,
    identity.Identity: convert_Identity,
    linear_interpolate.LinearInterpolate: convert_LinearInterpolate,
    log.Log: convert_Log,
    log10.Log10: convert_Log10,
    log1p.Log1p: convert_Log1p,
    log2.Log2: convert_Log2,
    logsumexp.LogSumExp: convert_LogSumExp,
    matmul.MatMul: convert_MatMul,
    max_mod.Max: convert_Max,
    maximum.Maximum: convert_Maximum,
    mean.Mean: convert_Mean,
    min_mod.Min: convert_Min,
    minimum.Minimum: convert_Minimum,
    mul.Mul: convert_Mul,
    mul.MulConstant: convert_MulConstant,
    neg.Neg: convert_Neg,
    pow_mod.PowConstVar: convert_PowConstVar,
    pow_mod.PowVarConst: convert_PowVarConst,
    pow_mod.PowVarVar: convert_PowVarVar,
    prod.Prod: convert_Prod,
    rsqrt.Rsqrt: convert_Rsqrt,
    scale.Scale: convert_Scale,
    sin.Sin: convert_Sin,
    sinh.Sinh: convert_Sinh,
    sqrt.Sqrt: convert_Sqrt,
    square.Square: convert_Square,
    squared_difference.SquaredDifference: convert_SquaredDifference,
    sub.Sub: convert_Sub,
    sub.SubFromConstant: convert_SubFromConstant,
    sum_mod.Sum: convert_Sum,
    tan.Tan: convert_Tan,
}
