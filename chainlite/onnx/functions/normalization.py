"""Converters of the normalization functions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.normalization import batch_normalization
from chainlite.functions.normalization import fixed_batch_normalization
from chainlite.functions.normalization import group_normalization
from chainlite.functions.normalization import layer_normalization
from chainlite.functions.normalization import local_response_normalization
from chainlite.functions.normalization import normalize
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _axes(axis, ndim):
    if axis is None:
        return [a for a in range(ndim) if a != 1]
    if numpy.isscalar(axis):
        axis = (axis,)
    return sorted(int(a) % ndim for a in axis)


def _kept(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _affine(gb, p, xhat, axes, out):
    # xhat * gamma + beta, with gamma and beta on the axes that are not reduced.
    kept = _kept(p.input_shapes[0], axes)
    gamma = _ops.reshape(gb, p.input_names[1], kept)
    beta = _ops.reshape(gb, p.input_names[2], kept)
    gb.op_output_named('Add', [gb.op('Mul', [xhat, gamma]), beta], out)


def _standardize(gb, p, x, axes, eps, dtype):
    mean = _ops.reduce(gb, p.opset_version, 'ReduceMean', x, axes, True)
    xc = gb.op('Sub', [x, mean])
    var = _ops.reduce(gb, p.opset_version, 'ReduceMean', gb.op('Mul', [xc, xc]), axes, True)
    std = gb.op('Sqrt', [gb.op('Add', [var, _ops.scalar(gb, eps, dtype)])])
    return gb.op('Div', [xc, std])


@converter.onnx_chainer_signature
def convert_FixedBatchNormalization(p: FunctionConverterParams) -> tuple[Any, ...]:
    ndim = len(p.input_shapes[0])
    axes = _axes(p.func.axis, ndim)
    if axes == [a for a in range(ndim) if a != 1]:
        return onnx_helper.make_node('BatchNormalization', p.input_names, p.output_names,
                                     epsilon=float(p.func.eps)),
    # Another layout: y = (x - mean) / sqrt(var + eps) * gamma + beta, spelled out.
    gb = onnx_helper.GraphBuilder()
    kept = _kept(p.input_shapes[0], axes)
    x = p.input_names[0]
    gamma, beta, mean, var = [_ops.reshape(gb, n, kept) for n in p.input_names[1:5]]
    std = gb.op('Sqrt', [gb.op('Add', [var, _ops.scalar(gb, p.func.eps, p.input_dtypes[0])])])
    xhat = gb.op('Div', [gb.op('Sub', [x, mean]), std])
    gb.op_output_named('Add', [gb.op('Mul', [xhat, gamma]), beta], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_BatchNormalization(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Training mode: the statistics of the batch itself.
    gb = onnx_helper.GraphBuilder()
    axes = _axes(p.func.axis, len(p.input_shapes[0]))
    xhat = _standardize(gb, p, p.input_names[0], axes, p.func.eps, p.input_dtypes[0])
    _affine(gb, p, xhat, axes, p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_LayerNormalization(p: FunctionConverterParams) -> tuple[Any, ...]:
    if p.opset_version >= 17:
        return onnx_helper.make_node('LayerNormalization', p.input_names, p.output_names,
                                     axis=-1, epsilon=float(p.func.eps)),
    gb = onnx_helper.GraphBuilder()
    xhat = _standardize(gb, p, p.input_names[0], [1], p.func.eps, p.input_dtypes[0])
    gb.op_output_named('Add', [gb.op('Mul', [xhat, p.input_names[1]]), p.input_names[2]],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_GroupNormalization(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    shape = tuple(p.input_shapes[0])
    g = int(p.func.groups)
    grouped = (shape[0], g, int(numpy.prod(shape[1:])) // g)
    x = _ops.reshape_like(gb, p.input_names[0], shape, grouped, (shape[0], g, -1))
    xhat = _standardize(gb, p, x, [2], p.func.eps, p.input_dtypes[0])
    xhat = _ops.reshape_like(gb, xhat, grouped, shape)
    _affine(gb, p, xhat, [a for a in range(len(shape)) if a != 1], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_LocalResponseNormalization(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    size = 2 * int(f.half) + 1
    # ONNX divides alpha by the window size; Chainer does not.
    return onnx_helper.make_node('LRN', p.input_names, p.output_names, size=size,
                                 alpha=float(f.alpha) * size, beta=float(f.beta),
                                 bias=float(f.k)),


@converter.onnx_chainer_signature
def convert_NormalizeL2(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    axes = _axes(p.func.axis, len(p.input_shapes[0]))
    sq = _ops.reduce(gb, p.opset_version, 'ReduceSum', gb.op('Mul', [x, x]), axes, True)
    norm = gb.op('Add', [gb.op('Sqrt', [sq]), _ops.scalar(gb, p.func.eps, p.input_dtypes[0])])
    gb.op_output_named('Div', [x, norm], p.output_names)
    return gb.nodes()


CONVERTERS = {
    batch_normalization.BatchNormalization: convert_BatchNormalization,
    fixed_batch_normalization.FixedBatchNormalization: convert_FixedBatchNormalization,
    group_normalization.GroupNormalization: convert_GroupNormalization,
    layer_normalization.LayerNormalization: convert_LayerNormalization,
    local_response_normalization.LocalResponseNormalization:
        convert_LocalResponseNormalization,
    normalize.NormalizeL2: convert_NormalizeL2,
}
