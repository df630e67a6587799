"""Converters of the pooling functions."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.pooling import average_pooling_2d
from chainlite.functions.pooling import average_pooling_nd
from chainlite.functions.pooling import max_pooling_2d
from chainlite.functions.pooling import max_pooling_nd
from chainlite.functions.pooling import roi_pooling_2d
from chainlite.functions.pooling import unpooling_2d
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops
from chainlite.onnx.functions import connection

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _pool_attrs(p):
    f = p.func
    x_shape = p.input_shapes[0]
    ksize = [int(k) for k in f.ksize]
    stride = [int(s) for s in f.stride]
    pad = [int(v) for v in f.pad]
    # cover_all (max pooling's default) adds windows at the far end: more end padding.
    ends = connection._end_pads(x_shape[2:], p.output_shapes[0][2:], ksize, stride, pad,
                                [1] * len(ksize))
    return dict(kernel_shape=ksize, strides=stride, pads=pad + ends)


@converter.onnx_chainer_signature
def convert_MaxPooling(p: FunctionConverterParams) -> tuple[Any, ...]:
    if getattr(p.func, 'return_indices', False):
        raise ValueError('chainlite.onnx: max_pooling with return_indices=True cannot be '
                         'exported')
    return onnx_helper.make_node('MaxPool', p.input_names[:1], p.output_names[:1],
                                 **_pool_attrs(p)),


@converter.onnx_chainer_signature
def convert_AveragePooling(p: FunctionConverterParams) -> tuple[Any, ...]:
    attrs = _pool_attrs(p)
    if p.func.pad_value is None:
        # Padding left out of each window's average.
        include = 0
    elif p.func.pad_value == 0:
        include = 1 if any(attrs['pads']) else 0
    else:
        raise ValueError('chainlite.onnx: average_pooling with pad_value %r cannot be '
                         'exported (0 or None can)' % (p.func.pad_value,))
    return onnx_helper.make_node('AveragePool', p.input_names, p.output_names,
                                 count_include_pad=include, **attrs),


@converter.onnx_chainer_signature
def convert_Unpooling2D(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    in_shape = p.input_shapes[0]
    out_shape = p.output_shapes[0]
    kh, kw = f.ksize
    if tuple(f.stride) != (kh, kw) or any(f.pad) or \
            tuple(out_shape[2:]) != (in_shape[2] * kh, in_shape[3] * kw):
        raise ValueError('chainlite.onnx: unpooling_2d can be exported only with stride == '
                         'ksize, no padding and an output of ksize times the input')
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    if p.opset_version >= 11:
        sizes = _ops.shape_with_head(gb, p.opset_version, x, 2, out_shape[2:])
        gb.op_output_named('Resize', [x, '', '', sizes], p.output_names,
                           mode='nearest', coordinate_transformation_mode='asymmetric',
                           nearest_mode='floor')
    else:
        scales = gb.const(numpy.asarray([1, 1, kh, kw], numpy.float32))
        op = 'Upsample' if p.opset_version < 10 else 'Resize'
        gb.op_output_named(op, [x, scales], p.output_names, mode='nearest')
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ROIPooling2D(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Both take rois of rows (batch_index, x_min, y_min, x_max, y_max).
    warnings.warn('chainlite.onnx: roi_pooling_2d becomes ONNX MaxRoiPool, which rounds '
                  'the scaled regions half away from zero where chainlite rounds half to '
                  'even, and some runtimes clamp the outputs at 0; check the exported '
                  "model's outputs in your runtime", UserWarning)
    return onnx_helper.make_node('MaxRoiPool', p.input_names, p.output_names,
                                 pooled_shape=[int(p.func.outh), int(p.func.outw)],
                                 spatial_scale=float(p.func.spatial_scale)),


# onnx_chainer's names for the converters above.
convert_AveragePooling2D = convert_AveragePooling
convert_AveragePoolingND = convert_AveragePooling
convert_MaxPooling2D = convert_MaxPooling
convert_MaxPoolingND = convert_MaxPooling


CONVERTERS = {
    average_pooling_2d.AveragePooling2D: convert_AveragePooling2D,
    average_pooling_nd.AveragePoolingND: convert_AveragePoolingND,
    max_pooling_2d.MaxPooling2D: convert_MaxPooling2D,
    max_pooling_nd.MaxPoolingND: convert_MaxPoolingND,
    roi_pooling_2d.ROIPooling2D: convert_ROIPooling2D,
    unpooling_2d.Unpooling2D: convert_Unpooling2D,
}
