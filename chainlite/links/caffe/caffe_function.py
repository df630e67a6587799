"""CaffeFunction: a Chain that loads a Caffe ``.caffemodel`` and runs its layers.

The model file is a serialized ``caffe.NetParameter`` (protocol buffers, never pickle). Each
layer becomes either a child link holding the layer's blobs (Convolution, Deconvolution,
InnerProduct, BatchNorm, Scale) or a call of a chainlite function (Pooling, ReLU, LRN,
Softmax, ...). ``forward`` then interprets the network: it runs, in file order, every layer
whose bottom blobs are known, and names its outputs after the layer's top blobs.
"""
from __future__ import annotations

import functools
import math
import os
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy

from chainlite import configuration
from chainlite import functions
from chainlite import initializer
from chainlite import link
from chainlite.utils import argument

if TYPE_CHECKING:
    from chainlite.variable import Variable


def _caffe_pb() -> Any:
    # Imported on first use: protobuf is an optional dependency (the module's ImportError
    # says how to install it).
    from chainlite.links.caffe.protobuf3 import caffe_pb2
    return caffe_pb2


def __getattr__(name: str) -> Any:
    # ``caffe_function.caffe_pb``: the message module, as Chainer's module names it.
    if name == 'caffe_pb':
        return _caffe_pb()
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


def _blob_data(blob: Any) -> numpy.ndarray:
    # Caffe writes float blobs to ``data`` and double ones to ``double_data``.
    values = blob.data if len(blob.data) or not len(blob.double_data) else blob.double_data
    return numpy.array(values, dtype=numpy.float32)


def _blob_shape(blob: Any) -> tuple[int, ...]:
    if len(blob.shape.dim):
        return tuple(int(d) for d in blob.shape.dim)
    # The deprecated 4-d fields (num, channels, height, width).
    return (blob.num, blob.channels, blob.height, blob.width)


def _value_count(blob: Any) -> int:
    return len(blob.data) if len(blob.data) or not len(blob.double_data) \
        else len(blob.double_data)


def _blob(layer: Any, index: int, role: str, shaped: bool = False) -> Any:
    """Blob ``index`` of ``layer`` (its ``role``, e.g. ``'weight'``), checked before use.

    A missing blob is an error naming the layer and the blob. With ``shaped`` (the blob's
    declared shape sizes a parameter), the shape must account for exactly the values the
    blob holds, so that a small file cannot make chainlite allocate a huge parameter.
    """
    if len(layer.blobs) <= index:
        raise ValueError('CaffeFunction: layer %r has no blob %d (the %s): it holds %d blobs'
                         % (layer.name, index, role, len(layer.blobs)))
    blob = layer.blobs[index]
    if shaped:
        shape = _blob_shape(blob)
        declared, held = math.prod(shape), _value_count(blob)
        if declared != held:
            raise ValueError('CaffeFunction: blob %d (the %s) of layer %r declares shape %s '
                             '(%d values) but holds %d values'
                             % (index, role, layer.name, shape, declared, held))
    return blob


def _fill(layer_name: str, array: numpy.ndarray, data: numpy.ndarray) -> None:
    if data.size != array.size:
        raise ValueError('CaffeFunction: layer %r holds a blob of %d values where a '
                         'parameter of shape %s (%d values) is expected'
                         % (layer_name, data.size, array.shape, array.size))
    array[...] = data.reshape(array.shape)


class _Blob(initializer.Initializer):
    # Fills a parameter with a blob's values (in Caffe's row-major order).

    def __init__(self, layer_name: str, data: numpy.ndarray) -> None:
        super().__init__()
        self.layer_name = layer_name
        self.data = data

    def __call__(self, array: numpy.ndarray) -> None:
        _fill(self.layer_name, array, self.data)


class _GroupedBlob(_Blob):
    # A grouped convolution's filters as one dense, block-diagonal filter bank: group g
    # connects input channels of block g to output channels of block g only.

    def __init__(self, layer_name: str, data: numpy.ndarray, group: int) -> None:
        super().__init__(layer_name, data)
        self.group = group

    def __call__(self, array: numpy.ndarray) -> None:
        g = self.group
        rows, cols = array.shape[0] // g, array.shape[1] // g
        part = self.data.size // g
        array[...] = 0
        for i in range(g):
            block = array[i * rows:(i + 1) * rows, i * cols:(i + 1) * cols]
            _fill(self.layer_name, block, self.data[i * part:(i + 1) * part])


def _pair_or_scalar(values: Sequence[int], default: int) -> int | tuple[int, ...]:
    # Caffe's repeated geometry fields: none (the default), one for both axes, or one each.
    if len(values) == 0:
        return default
    if len(values) == 1:
        return int(values[0])
    return tuple(int(v) for v in values)


def _ksize(param: Any) -> int | tuple[int, ...]:
    if param.kernel_h > 0:
        return param.kernel_h, param.kernel_w
    if isinstance(param.kernel_size, int):  # PoolingParameter: a single value
        return param.kernel_size
    return _pair_or_scalar(param.kernel_size, 0)


def _stride(param: Any) -> int | tuple[int, ...]:
    if param.stride_h > 0:
        return param.stride_h, param.stride_w
    if isinstance(param.stride, int):
        return param.stride
    return _pair_or_scalar(param.stride, 1)


def _pad(param: Any) -> int | tuple[int, ...]:
    if param.pad_h > 0 or param.pad_w > 0:
        return param.pad_h, param.pad_w
    if isinstance(param.pad, int):
        return param.pad
    return _pair_or_scalar(param.pad, 0)


def _matrix_shape(layer_name: str, blob: Any) -> tuple[int, int]:
    # An InnerProduct weight: (out, in) stored as 2-d, or in the last two of 4 axes.
    shape = _blob_shape(blob)
    if len(shape) in (2, 4):
        return shape[-2], shape[-1]
    raise RuntimeError('CaffeFunction: the weight of InnerProduct layer %r has %d axes; '
                       'only 2 or 4 are supported' % (layer_name, len(shape)))


class _Unary:
    # ``func(x, *args, **kwargs)``.

    def __init__(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.func, self.args, self.kwargs = func, args, kwargs

    def __call__(self, x: Any) -> Any:
        return self.func(x, *self.args, **self.kwargs)


class _Listed:
    # ``func((x1, x2, ...), **kwargs)``: functions taking their inputs as one sequence.

    def __init__(self, func: Callable[..., Any], **kwargs: Any) -> None:
        self.func, self.kwargs = func, kwargs

    def __call__(self, *xs: Any) -> Any:
        return self.func(xs, **self.kwargs)


class _GlobalPooling:
    # Pooling over each whole feature map, whatever its size at run time.

    def __init__(self, func: Callable[..., Any], stride: Any, pad: Any, **kwargs: Any) -> None:
        self.func, self.stride, self.pad, self.kwargs = func, stride, pad, kwargs

    def __call__(self, x: Any) -> Any:
        return self.func(x, x.shape[2:], stride=self.stride, pad=self.pad, **self.kwargs)


class _Child:
    # Calls the child link ``name`` of the CaffeFunction.

    def __init__(self, owner: CaffeFunction, name: str, **kwargs: Any) -> None:
        self.owner, self.name, self.kwargs = owner, name, kwargs

    def __call__(self, *xs: Any) -> Any:
        return getattr(self.owner, self.name)(*xs, **self.kwargs)


class _PartialReshape:
    # Caffe's Reshape in full: it replaces the axes [axis, axis + num_axes) of the input (all
    # of them by default), and a 0 in the new shape keeps the input's size there.

    def __init__(self, shape: list[int], axis: int, num_axes: int) -> None:
        self.shape, self.axis, self.num_axes = shape, axis, num_axes

    def __call__(self, x: Any) -> Any:
        start = self.axis if self.axis >= 0 else self.axis + x.ndim + 1
        end = x.ndim if self.num_axes == -1 else start + self.num_axes
        middle = [x.shape[start + i] if d == 0 else d for i, d in enumerate(self.shape)]
        return functions.reshape(x, tuple(x.shape[:start]) + tuple(middle) +
                                 tuple(x.shape[end:]))


class _TestMode:
    # Runs a layer with ``train`` off (BatchNorm with use_global_stats).

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func

    def __call__(self, *xs: Any) -> Any:
        with configuration.using_config('train', False):
            return self.func(*xs)


class _CountMismatch(ValueError, AssertionError):
    # A ValueError that is also the AssertionError Chainer raises for the same input.
    pass


class _Eltwise:
    # Caffe's Eltwise: the product, the (weighted) sum or the maximum of the bottoms.

    def __init__(self, layer_name: str, operation: int, coeffs: Sequence[float]) -> None:
        self.layer_name, self.operation, self.coeffs = layer_name, operation, coeffs

    def __call__(self, *xs: Any) -> Any:
        if self.operation == 0:  # PROD
            return functools.reduce(lambda x, y: x * y, xs),
        if self.operation == 1:  # SUM
            if self.coeffs:
                if len(self.coeffs) != len(xs):
                    raise _CountMismatch(
                        'CaffeFunction: Eltwise layer %r has %d coefficients for %d bottoms'
                        % (self.layer_name, len(self.coeffs), len(xs)))
                xs = tuple(x * c for x, c in zip(xs, self.coeffs))
            return functools.reduce(lambda x, y: x + y, xs),
        if self.operation == 2:  # MAX
            maximum = functions.maximum
            return functools.reduce(lambda x, y: maximum(x, y), xs),
        raise ValueError('CaffeFunction: Eltwise layer %r has the unknown operation %d'
                         % (self.layer_name, self.operation))


# Caffe's old (V1) layer type enum names -> the type strings of the current format.
_V1_TYPES = {
    'CONCAT': 'Concat', 'CONVOLUTION': 'Convolution', 'DATA': 'Data',
    'DECONVOLUTION': 'Deconvolution', 'DROPOUT': 'Dropout', 'ELTWISE': 'Eltwise',
    'INNER_PRODUCT': 'InnerProduct', 'LRN': 'LRN', 'POOLING': 'Pooling', 'RELU': 'ReLU',
    'SIGMOID': 'Sigmoid', 'SLICE': 'Slice', 'SOFTMAX': 'Softmax',
    'SOFTMAX_LOSS': 'SoftmaxWithLoss', 'SPLIT': 'Split',
}
# Layers that only feed data into a Caffe net: skipped without a warning.
_DATA_LAYERS = ('Data', 'Input')


class CaffeFunction(link.Chain):
    """A Chain that emulates a Caffe network given as a binary ``.caffemodel`` file.

    The file's layers become child links (those with blobs: Convolution, Deconvolution,
    InnerProduct, BatchNorm, Scale, under the layer's name) and calls of chainlite functions
    (Concat, Dropout, Eltwise, LRN, Pooling, ReLU, Reshape, Sigmoid, Slice, Softmax,
    SoftmaxWithLoss, Split). Both the current (``layer``) and the old V1 (``layers``) network
    formats load. Data and Input layers are skipped; other layer types are skipped with a
    warning. Backprop works through the emulated network like through any chain.

    Args:
        model_path: Path of the binary protocol buffers file (``.caffemodel``). Reading it
            needs the ``protobuf`` package; the file is parsed, never unpickled.

    Attributes:
        forwards: Layer name -> the callable that runs the layer.
        layers: ``(layer name, bottom blob names, top blob names)`` for each layer run, in
            the file's order.
        split_map: Top blob name of a Split layer -> the blob it copies.
        variables: After a call, blob name -> the Variable computed for it.

    Raises:
        RuntimeError: For layer settings chainlite does not emulate (within-channel LRN,
            stochastic pooling, InnerProduct or Softmax on an axis other than 1).
        ValueError: If a layer lacks a blob it needs, a blob's declared shape does not
            account for exactly the values it holds, or a convolution's kernel size is not
            its weight's; the message names the layer and the blob, and is raised before
            the layer's parameters are allocated.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlite.links.caffe import CaffeFunction
        >>> from chainlite.links.caffe.protobuf3 import caffe_pb2
        >>> net = caffe_pb2.NetParameter()
        >>> fc = net.layer.add(name='fc', type='InnerProduct', bottom=['data'], top=['fc'])
        >>> fc.inner_product_param.num_output = 2
        >>> w = fc.blobs.add(data=[1, 2, 3, 4, 5, 6]); w.shape.dim[:] = [2, 3]
        >>> b = fc.blobs.add(data=[0.5, -0.5]); b.shape.dim[:] = [2]
        >>> _ = net.layer.add(name='relu', type='ReLU', bottom=['fc'], top=['fc'])
        >>> path = os.path.join(tempfile.mkdtemp(), 'net.caffemodel')
        >>> with open(path, 'wb') as f:
        ...     _ = f.write(net.SerializeToString())
        >>> func = CaffeFunction(path)
        >>> y, = func(inputs={'data': np.array([[1, 0, -1]], np.float32)}, outputs=['fc'])
        >>> y.array
        array([[0., 0.]], dtype=float32)
    """

    def __init__(self, model_path: str | os.PathLike[str]) -> None:
        super().__init__()
        caffe_pb = _caffe_pb()
        net = caffe_pb.NetParameter()
        with open(model_path, 'rb') as f:
            net.MergeFromString(f.read())
        self.forwards: dict[str, Callable[..., Any]] = {}
        self.split_map: dict[str, str] = {}
        self.layers: list[tuple[str, list[str], list[str]]] = []
        self.variables: dict[str, Any] = {}
        if len(net.layer):
            for layer in net.layer:
                self._setup(layer, layer.type)
        else:
            v1_types = caffe_pb.V1LayerParameter.LayerType
            for layer in net.layers:
                v1_name = v1_types.Name(layer.type) if layer.type in v1_types.values() \
                    else str(layer.type)
                self._setup(layer, _V1_TYPES.get(v1_name, v1_name))

    def _setup(self, layer: Any, type_name: str) -> None:
        setup = _SETUP.get(type_name)
        if setup is not None:
            setup(self, layer)
        elif type_name not in _DATA_LAYERS:
            warnings.warn('Skip the layer "%s", since CaffeFunction does not support %s layer'
                          % (layer.name, type_name))

    def forward(self, inputs: Mapping[str, Any], outputs: Iterable[str],
                disable: Iterable[str] = (), **kwargs: Any) -> tuple[Variable, ...]:
        """Runs the part of the network between the given blobs.

        Every layer (in file order) whose bottom blobs are all known runs, unless it is
        disabled; its results become its top blobs.

        Args:
            inputs: Blob name -> the Variable or array that the blob holds.
            outputs: Names of the blobs to return.
            disable: Names of layers to skip.

        Returns:
            The Variables of the blobs named in ``outputs``, in that order.

        Raises:
            KeyError: If a blob in ``outputs`` was neither given nor computed.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, train='train argument is not supported anymore. '
                'Use chainlite.using_config')
            argument.assert_kwargs_empty(kwargs)
        variables = dict(inputs)
        disabled = set(disable)
        for name, bottom, top in self.layers:
            if name in disabled or name not in self.forwards or \
                    any(blob not in variables for blob in bottom):
                continue
            ys = self.forwards[name](*[variables[blob] for blob in bottom])
            if not isinstance(ys, (tuple, list)):
                ys = ys,
            variables.update(zip(top, ys))
        self.variables = variables
        missing = [blob for blob in outputs if blob not in variables]
        if missing:
            raise KeyError('CaffeFunction: the blobs %s were neither given nor computed '
                           '(known blobs: %s)' % (missing, sorted(variables)))
        return tuple(variables[blob] for blob in outputs)

    def _add_layer(self, layer: Any, forward: Callable[..., Any] | None = None) -> None:
        # Without ``forward``, the layer runs what ``forwards`` holds for it (Chainer's call).
        if forward is not None:
            self.forwards[layer.name] = forward
        bottom = [self.split_map.get(blob, blob) for blob in layer.bottom]
        self.layers.append((layer.name, bottom, list(layer.top)))

    def _add_child(self, layer: Any, child: link.Link, **kwargs: Any) -> _Child:
        with self.init_scope():
            setattr(self, layer.name, child)
        return _Child(self, layer.name, **kwargs)


def _setup_concat(func: CaffeFunction, layer: Any) -> None:
    param = layer.concat_param
    # ``concat_dim`` is the old name of ``axis``.
    axis = param.concat_dim if param.axis == 1 and param.concat_dim != 1 else param.axis
    func._add_layer(layer, _Listed(functions.concat, axis=axis))


def _convolution_parts(layer: Any) -> tuple[Any, int, int, numpy.ndarray, Any]:
    param = layer.convolution_param
    weight = _blob(layer, 0, 'weight', shaped=True)
    shape = _blob_shape(weight)
    ksize = _ksize(param)
    kernel = ksize if isinstance(ksize, tuple) else (ksize, ksize)
    if len(shape) != 4 or tuple(shape[2:]) != tuple(kernel):
        # The parameter is sized by the layer's settings: they must agree with the blob.
        raise ValueError('CaffeFunction: layer %r has kernel size %s, but its weight (blob 0) '
                         'has shape %s' % (layer.name, tuple(kernel), shape))
    bias = _Blob(layer.name, _blob_data(_blob(layer, 1, 'bias'))) if param.bias_term else None
    return param, shape[0], shape[1], _blob_data(weight), bias


def _setup_convolution(func: CaffeFunction, layer: Any) -> None:
    from chainlite.links.connection import convolution_2d
    param, num, channels, weight, bias = _convolution_parts(layer)
    child = convolution_2d.Convolution2D(
        channels * param.group, num, _ksize(param), _stride(param), _pad(param),
        nobias=not param.bias_term, initialW=_GroupedBlob(layer.name, weight, param.group),
        initial_bias=bias, dilate=_pair_or_scalar(param.dilation, 1))
    func._add_layer(layer, func._add_child(layer, child))


def _setup_deconvolution(func: CaffeFunction, layer: Any) -> None:
    from chainlite.links.connection import deconvolution_2d
    param, num, channels, weight, bias = _convolution_parts(layer)
    child = deconvolution_2d.Deconvolution2D(
        num, channels * param.group, _ksize(param), _stride(param), _pad(param),
        nobias=not param.bias_term, initialW=_GroupedBlob(layer.name, weight, param.group),
        initial_bias=bias, dilate=_pair_or_scalar(param.dilation, 1))
    func._add_layer(layer, func._add_child(layer, child))


def _setup_dropout(func: CaffeFunction, layer: Any) -> None:
    func._add_layer(layer, _Unary(functions.dropout, ratio=layer.dropout_param.dropout_ratio))


def _setup_inner_product(func: CaffeFunction, layer: Any) -> None:
    from chainlite.links.connection import linear
    param = layer.inner_product_param
    if param.axis != 1:
        raise RuntimeError('CaffeFunction: InnerProduct layer %r has axis=%d; only axis=1 '
                           'is supported' % (layer.name, param.axis))
    weight_blob = _blob(layer, 0, 'weight', shaped=True)
    out_size, in_size = _matrix_shape(layer.name, weight_blob)
    weight = _blob_data(weight_blob)
    if param.transpose:
        # The weight is stored (in, out).
        in_size, out_size = out_size, in_size
        weight = weight.reshape(in_size, out_size).T
    bias = _Blob(layer.name, _blob_data(_blob(layer, 1, 'bias'))) if param.bias_term else None
    child = linear.Linear(in_size, out_size, nobias=not param.bias_term,
                          initialW=_Blob(layer.name, weight), initial_bias=bias)
    func._add_layer(layer, func._add_child(layer, child))


def _setup_lrn(func: CaffeFunction, layer: Any) -> None:
    param = layer.lrn_param
    if param.norm_region != param.ACROSS_CHANNELS:
        raise RuntimeError('CaffeFunction: LRN layer %r normalizes within channels; only '
                           'ACROSS_CHANNELS is supported' % layer.name)
    # Caffe divides alpha by the window size; chainlite's alpha is per element.
    func._add_layer(layer, _Unary(functions.local_response_normalization, n=param.local_size,
                                  k=param.k, alpha=param.alpha / param.local_size,
                                  beta=param.beta))


def _setup_pooling(func: CaffeFunction, layer: Any) -> None:
    param = layer.pooling_param
    pool: Callable[..., Any]
    if param.pool == param.MAX:
        pool = functions.max_pooling_2d
    elif param.pool == param.AVE:
        pool = functions.average_pooling_2d
    else:
        raise RuntimeError('CaffeFunction: Pooling layer %r uses stochastic pooling, which is '
                           'not supported' % layer.name)
    ksize, stride, pad = _ksize(param), _stride(param), _pad(param)
    extra = {}
    if param.pool == param.MAX and param.round_mode == param.FLOOR:
        # Caffe's default rounding up of the output size is max_pooling_2d's cover_all.
        extra['cover_all'] = False
    if param.global_pooling and not ksize:
        forward: Callable[..., Any] = _GlobalPooling(pool, stride, pad, **extra)
    else:
        forward = _Unary(pool, ksize, stride=stride, pad=pad, **extra)
    func._add_layer(layer, forward)


def _setup_relu(func: CaffeFunction, layer: Any) -> None:
    slope = layer.relu_param.negative_slope
    func._add_layer(layer, functions.relu if slope == 0 else
                    _Unary(functions.leaky_relu, slope=slope))


def _setup_reshape(func: CaffeFunction, layer: Any) -> None:
    param = layer.reshape_param
    shape = [int(d) for d in param.shape.dim]
    if 0 in shape or param.axis != 0 or param.num_axes != -1:
        func._add_layer(layer, _PartialReshape(shape, param.axis, param.num_axes))
    else:
        func._add_layer(layer, _Unary(functions.reshape, shape=shape))


def _setup_batch_norm(func: CaffeFunction, layer: Any) -> None:
    from chainlite.links.normalization import batch_normalization
    param = layer.batch_norm_param
    blobs = layer.blobs
    mean = _blob_data(_blob(layer, 0, 'mean'))
    var = _blob_data(_blob(layer, 1, 'variance'))
    child = batch_normalization.BatchNormalization(
        mean.size, decay=param.moving_average_fraction, eps=param.eps, use_gamma=False,
        use_beta=False)
    if len(blobs) >= 3:
        # Caffe keeps unnormalized sums and their weight; a weight of 0 means no statistics.
        factor_data = _blob_data(blobs[2])
        if not factor_data.size:
            raise ValueError('CaffeFunction: blob 2 (the moving average factor) of layer %r '
                             'holds no values' % layer.name)
        weight = float(factor_data[0])
        factor = 0.0 if weight == 0 else 1.0 / weight
        mean, var = mean * factor, var * factor
    _fill(layer.name, child.avg_mean, mean)
    _fill(layer.name, child.avg_var, var)
    call = func._add_child(layer, child, finetune=False)
    func._add_layer(layer, _TestMode(call) if param.use_global_stats else call)


def _setup_eltwise(func: CaffeFunction, layer: Any) -> None:
    param = layer.eltwise_param
    func._add_layer(layer, _Eltwise(layer.name, param.operation, list(param.coeff)))


def _setup_scale(func: CaffeFunction, layer: Any) -> None:
    from chainlite.links.connection import scale
    param = layer.scale_param
    if len(layer.bottom) == 1:
        # The scale is a learned parameter (the first blob).
        scale_blob = _blob(layer, 0, 'scale', shaped=True)
        bias_blob = _blob(layer, 1, 'bias') if param.bias_term else None  # sized by W
        child = scale.Scale(param.axis, _blob_shape(scale_blob), param.bias_term)
        _fill(layer.name, child.W.array, _blob_data(scale_blob))
    else:
        # The scale is the second bottom.
        bias_blob = _blob(layer, 0, 'bias', shaped=True) if param.bias_term else None
        shape = _blob_shape(bias_blob) if bias_blob is not None else None
        child = scale.Scale(param.axis, bias_term=param.bias_term, bias_shape=shape)
    if bias_blob is not None:
        _fill(layer.name, child.bias.b.array, _blob_data(bias_blob))
    func._add_layer(layer, func._add_child(layer, child))


def _setup_slice(func: CaffeFunction, layer: Any) -> None:
    param = layer.slice_param
    if param.HasField('axis'):
        axis = param.axis
    elif param.HasField('slice_dim'):
        axis = param.slice_dim
    else:
        axis = 1
    sections: int | list[int] = [int(p) for p in param.slice_point] if len(param.slice_point) \
        else len(layer.top)
    func._add_layer(layer, _Unary(functions.split_axis, indices_or_sections=sections,
                                  axis=axis))


def _setup_softmax(func: CaffeFunction, layer: Any) -> None:
    # The engine (Caffe's or cuDNN's kernel) does not change the result.
    if layer.softmax_param.axis != 1:
        raise RuntimeError('CaffeFunction: Softmax layer %r has axis=%d; only axis=1 is '
                           'supported' % (layer.name, layer.softmax_param.axis))
    func._add_layer(layer, functions.softmax)


def _setup_sigmoid(func: CaffeFunction, layer: Any) -> None:
    func._add_layer(layer, functions.sigmoid)


def _setup_softmax_with_loss(func: CaffeFunction, layer: Any) -> None:
    if layer.softmax_param.axis != 1:
        raise RuntimeError('CaffeFunction: SoftmaxWithLoss layer %r has axis=%d; only axis=1 '
                           'is supported' % (layer.name, layer.softmax_param.axis))
    func._add_layer(layer, functions.softmax_cross_entropy)


def _setup_split(func: CaffeFunction, layer: Any) -> None:
    for top in layer.top:
        func.split_map[top] = layer.bottom[0]


_SETUP: dict[str, Callable[[CaffeFunction, Any], None]] = {
    'BatchNorm': _setup_batch_norm,
    'Concat': _setup_concat,
    'Convolution': _setup_convolution,
    'Deconvolution': _setup_deconvolution,
    'Dropout': _setup_dropout,
    'Eltwise': _setup_eltwise,
    'InnerProduct': _setup_inner_product,
    'LRN': _setup_lrn,
    'Pooling': _setup_pooling,
    'ReLU': _setup_relu,
    'Reshape': _setup_reshape,
    'Scale': _setup_scale,
    'Sigmoid': _setup_sigmoid,
    'Slice': _setup_slice,
    'Softmax': _setup_softmax,
    'SoftmaxWithLoss': _setup_softmax_with_loss,
    'Split': _setup_split,
}


def _layer(typ: str, oldname: str | None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers a setup method for the Caffe layer type ``typ`` (Chainer's decorator).

    The decorated ``meth(caffe_function, layer)`` then sets up every layer of that type that
    a :class:`CaffeFunction` loads (all of them, the class's subclasses included, as in
    Chainer); ``oldname`` is the type's name in the old V1 format (None: no V1 name).

    Args:
        typ: The layer type string of the current format, e.g. ``'Normalize'``.
        oldname: The ``V1LayerParameter.LayerType`` name, e.g. ``'CONCAT'``, or None.

    Returns:
        A decorator that registers the method and returns it unchanged.

    Example:
        >>> from chainlite.links.caffe import caffe_function
        >>> @caffe_function._layer('MyLayer', None)
        ... def _setup_my_layer(self, layer):
        ...     pass
        >>> caffe_function._SETUP['MyLayer'] is _setup_my_layer
        True
        >>> del caffe_function._SETUP['MyLayer']
    """
    def decorator(meth: Callable[..., Any]) -> Callable[..., Any]:
        _SETUP[typ] = meth
        if oldname is not None:
            _V1_TYPES[oldname] = typ
        return meth
    return decorator


# Chainer's names of the helpers above, with Chainer's signatures.
_get_ksize = _ksize
_get_stride = _stride
_get_pad = _pad
_SingleArgumentFunction = _Unary
_ListArgumentFcuntion = _Listed  # (sic) Chainer's spelling


def _get_num(blob: Any) -> int:
    # The blob's first axis: the deprecated ``num`` field, else the shape's.
    return blob.num if blob.num > 0 else blob.shape.dim[0]


def _get_channels(blob: Any) -> int:
    return blob.channels if blob.channels > 0 else blob.shape.dim[1]


def _get_spatial(blob: Any, legacy: int, axis_of_2d: int, axis_of_4d: int) -> int:
    if legacy > 0:
        return legacy
    dims = blob.shape.dim
    if len(dims) in (2, 4):
        return dims[axis_of_2d if len(dims) == 2 else axis_of_4d]
    raise RuntimeError('{}-dimensional array is not supported'.format(len(dims)))


def _get_height(blob: Any) -> int:
    return _get_spatial(blob, blob.height, 0, 2)


def _get_width(blob: Any) -> int:
    return _get_spatial(blob, blob.width, 1, 3)


class _ConvolutionBlob(_GroupedBlob):
    # Chainer's signature: the blob message itself and the convolution's group count.

    def __init__(self, blob: Any, group: int) -> None:
        super().__init__('(unnamed)', _blob_data(blob), group)


class _SingleArgumentFunctionTestMode(_Unary):
    # ``func(x, ...)`` with ``train`` off.

    def __call__(self, x: Any) -> Any:
        with configuration.using_config('train', False):
            return super().__call__(x)


class _SingleArgumentFunctionWithCudnn(_Unary):
    # ``func(x, ...)`` under the given ``use_cudnn`` setting (no effect on the CPU).

    def __init__(self, use_cudnn: Any, func: Callable[..., Any], *args: Any,
                 **kwargs: Any) -> None:
        super().__init__(func, *args, **kwargs)
        self.use_cudnn = use_cudnn

    def __call__(self, x: Any) -> Any:
        with configuration.using_config('use_cudnn', self.use_cudnn):
            return super().__call__(x)


class _CallChildLink:
    # Calls the child ``name`` of ``caffe_func`` with whatever it is given.

    def __init__(self, caffe_func: CaffeFunction, name: str) -> None:
        self.name, self.caffe_func = name, caffe_func

    def __call__(self, *xs: Any, **kwargs: Any) -> Any:
        return self.caffe_func[self.name](*xs, **kwargs)


class _EltwiseFunction(_Eltwise):
    # Chainer's signature: ``(operation, coeffs=None)``, no layer name.

    def __init__(self, operation: int, coeffs: Sequence[float] | None = None) -> None:
        if coeffs is not None and not len(coeffs):
            raise _CountMismatch('CaffeFunction: Eltwise coefficients, when given, must not '
                                 'be empty')
        super().__init__('(unnamed)', operation, list(coeffs) if coeffs is not None else [])
