"""Exporting a chainlite model to Caffe: a ``.prototxt`` network and a ``.caffemodel``.

:func:`export` runs the model once in test mode with a function hook that keeps each
function's input arrays, walks the graph from the outputs (a loop over a list, no
recursion), and turns each function into Caffe layers with the converter that the table
``_CONVERTERS`` names for its type. Layers are named ``<Function>-<rank>-<n>`` and each
writes one blob of the same name; the model's input is the blob ``data``.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy

from chainlite import configuration
from chainlite import function_hook
from chainlite import variable
from chainlite.backends import cuda
from chainlite.serializers import _atomic

if TYPE_CHECKING:
    from chainlite.link import Link

_PROTOTXT = 'chainer_model.prototxt'
_CAFFEMODEL = 'chainer_model.caffemodel'


class _Layer:
    # What a converter makes of one function: a Caffe layer type, which inputs are bottom
    # blobs (the rest are parameters), the layer's parameter messages and its blobs.

    def __init__(self, type_: str, bottoms: Sequence[int] | None = None,
                 params: dict[str, dict[str, Any]] | None = None,
                 blobs: Sequence[numpy.ndarray] = ()) -> None:
        self.type = type_
        self.bottoms = bottoms
        self.params = params or {}
        self.blobs = list(blobs)


class _Recorder(function_hook.FunctionHook):
    # Keeps every function's input arrays: the graph keeps only the nodes.

    name = 'CaffeExportRecorder'

    def __init__(self) -> None:
        self.in_data: dict[int, tuple[Any, tuple[Any, ...]]] = {}

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.in_data[id(function)] = (function, in_data)



def _host(x: Any) -> numpy.ndarray:
    # A NumPy array of the value: a model on a GPU is exported from its arrays' host copies.
    return cuda.to_cpu(x) if cuda.is_gpu_array(x) else numpy.asarray(x)

def _unsupported(func: Any, why: str) -> ValueError:
    return ValueError('chainlite.exporters.caffe.export: cannot convert %s to Caffe: %s'
                      % (type(func).__name__, why))


def _pair(values: Sequence[int], name: str) -> dict[str, int]:
    return {name + '_h': int(values[0]), name + '_w': int(values[1])}


def _linear(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    W = xs[1]
    param = {'num_output': W.shape[0], 'bias_term': len(xs) == 3}
    return [_Layer('InnerProduct', [0], {'inner_product_param': param}, xs[1:])]


def _convolution_param(func: Any, W: numpy.ndarray, num_output: int,
                       bias: bool) -> dict[str, Any]:
    param: dict[str, Any] = {'num_output': num_output, 'bias_term': bias}
    param.update(_pair(func.pad, 'pad'))
    param.update(_pair(func.stride, 'stride'))
    param.update(_pair(W.shape[2:], 'kernel'))
    param['group'] = func.groups
    if tuple(func.dilate) != (1, 1):
        param['dilation'] = [int(d) for d in func.dilate]
    return param


def _convolution(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    if func.cover_all:
        raise _unsupported(func, 'cover_all=True has no Caffe counterpart')
    W = xs[1]
    param = _convolution_param(func, W, W.shape[0], len(xs) == 3)
    return [_Layer('Convolution', [0], {'convolution_param': param}, xs[1:])]


def _deconvolution(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    if func.cover_all:
        raise _unsupported(func, 'its output size (outsize) is not the one Caffe computes')
    W = xs[1]
    param = _convolution_param(func, W, W.shape[1] * func.groups, len(xs) == 3)
    return [_Layer('Deconvolution', [0], {'convolution_param': param}, xs[1:])]


def _pooling(func: Any, method: int, floor: bool) -> list[_Layer]:
    if func.ndim != 2:
        raise _unsupported(func, 'Caffe pools over two spatial axes, this pools over %d'
                           % func.ndim)
    param: dict[str, Any] = {'pool': method}
    param.update(_pair(func.pad, 'pad'))
    param.update(_pair(func.stride, 'stride'))
    param.update(_pair(func.ksize, 'kernel'))
    if floor:
        # Caffe rounds the output size up unless told otherwise.
        param['round_mode'] = 1
    return [_Layer('Pooling', None, {'pooling_param': param})]


def _max_pooling(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    return _pooling(func, 0, not func.cover_all)


def _average_pooling(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    if func.pad_value is None and any(func.pad):
        raise _unsupported(func, 'Caffe averages over the padding too (pad_value=0)')
    return _pooling(func, 1, True)


def _lrn(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    n = 2 * func.half + 1
    # Caffe's alpha is divided by the window size.
    param = {'norm_region': 0, 'local_size': n, 'k': func.k, 'alpha': func.alpha * n,
             'beta': func.beta}
    return [_Layer('LRN', None, {'lrn_param': param})]


def _fixed_batch_normalization(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    x, gamma, beta, mean, var = xs
    if tuple(func.axis) != (0,) + tuple(range(2, x.ndim)):
        raise _unsupported(func, 'Caffe normalizes each channel (axis 1), this normalizes '
                           'over the axes %s' % (tuple(func.axis),))
    # Caffe's BatchNorm only normalizes (its third blob scales the statistics); a Scale
    # layer after it applies gamma and beta.
    norm = _Layer('BatchNorm', [0], {'batch_norm_param': {'use_global_stats': True,
                                                           'eps': func.eps}},
                  [mean.ravel(), var.ravel(), numpy.ones((1,), numpy.float32)])
    scale = _Layer('Scale', [0], {'scale_param': {'axis': 1, 'bias_term': True}},
                   [gamma.ravel(), beta.ravel()])
    return [norm, scale]


def _simple(type_: str, param: Callable[[Any], dict[str, dict[str, Any]]] | None = None
            ) -> Callable[[Any, tuple[numpy.ndarray, ...]], list[_Layer]]:
    def convert(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
        return [_Layer(type_, None, None if param is None else param(func))]
    return convert


def _softmax_param(func: Any) -> dict[str, dict[str, Any]]:
    return {} if func.axis == 1 else {'softmax_param': {'axis': func.axis}}


def _reshape(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
    return [_Layer('Reshape', None, {'reshape_param': {'shape': {'dim': list(func.shape)}}})]


def _eltwise(operation: int) -> Callable[[Any, tuple[numpy.ndarray, ...]], list[_Layer]]:
    def convert(func: Any, xs: tuple[numpy.ndarray, ...]) -> list[_Layer]:
        if any(x.shape != xs[0].shape for x in xs):
            raise _unsupported(func, "Caffe's Eltwise needs inputs of one shape, got %s"
                               % [x.shape for x in xs])
        params = {} if operation == 1 else {'eltwise_param': {'operation': operation}}
        return [_Layer('Eltwise', None, params)]
    return convert


def _converters() -> dict[type, Callable[[Any, tuple[numpy.ndarray, ...]], list[_Layer]]]:
    from chainlite.functions.activation import leaky_relu, relu, sigmoid, softmax
    from chainlite.functions.array import concat, reshape
    from chainlite.functions.connection import convolution_2d, deconvolution_2d, linear
    from chainlite.functions.math import add, maximum, mul
    from chainlite.functions.normalization import fixed_batch_normalization as fbn
    from chainlite.functions.normalization import local_response_normalization as lrn
    from chainlite.functions.pooling import average_pooling_nd, max_pooling_nd
    return {
        linear.LinearFunction: _linear,
        convolution_2d.Convolution2DFunction: _convolution,
        deconvolution_2d.Deconvolution2DFunction: _deconvolution,
        max_pooling_nd.MaxPoolingND: _max_pooling,
        average_pooling_nd.AveragePoolingND: _average_pooling,
        lrn.LocalResponseNormalization: _lrn,
        fbn.FixedBatchNormalization: _fixed_batch_normalization,
        relu.ReLU: _simple('ReLU'),
        leaky_relu.LeakyReLU: _simple(
            'ReLU', lambda f: {'relu_param': {'negative_slope': f.slope}}),
        concat.Concat: _simple('Concat', lambda f: {'concat_param': {'axis': f.axis}}),
        softmax.Softmax: _simple('Softmax', _softmax_param),
        sigmoid.Sigmoid: _simple('Sigmoid'),
        reshape.Reshape: _reshape,
        add.Add: _eltwise(1),
        mul.Mul: _eltwise(0),
        maximum.Maximum: _eltwise(2),
    }


def _converter(table: dict[type, Any], func: Any) -> Any:
    # Subclasses (MaxPooling2D of MaxPoolingND, ...) convert as their base.
    for cls in type(func).__mro__:
        convert = table.get(cls)
        if convert is not None:
            return convert
    raise ValueError('chainlite.exporters.caffe.export: cannot convert %s to Caffe; '
                     'supported: %s' % (type(func).__name__,
                                        ', '.join(sorted(c.__name__ for c in table))))


def _functions_in_order(outputs: Sequence[variable.Variable]) -> list[Any]:
    # Every function the outputs depend on, inputs before users (a function's rank exceeds
    # the ranks of the functions that made its inputs).
    seen: set[int] = set()
    found = []
    stack = [v.creator_node for v in outputs if v.creator_node is not None]
    while stack:
        func = stack.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        found.append(func)
        stack.extend(n.creator_node for n in func.inputs or () if n.creator_node is not None)
    found.reverse()
    return sorted(found, key=lambda f: f.rank)


def _set_fields(message: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, dict):
            _set_fields(getattr(message, key), value)
        elif isinstance(value, list):
            getattr(message, key)[:] = value
        else:
            setattr(message, key, value)


def _build(caffe_pb: Any, graph_name: str, inputs: Sequence[variable.Variable],
           outputs: Sequence[variable.Variable], recorder: _Recorder,
           with_blobs: bool) -> tuple[Any, Any]:
    # (the network with its blobs, the network without blobs that the prototxt shows)
    table = _converters()
    blob_of: dict[int, str] = {}
    input_names = ['data'] + ['data%d' % i for i in range(1, len(inputs))]
    for x, name in zip(inputs, input_names):
        blob_of[id(x.node)] = name
    model = caffe_pb.NetParameter(name=graph_name)
    text = caffe_pb.NetParameter(name=graph_name)
    data = text.layer.add(name='data', type='Input', top=input_names)
    for x in inputs:
        data.input_param.shape.add().dim[:] = list(x.shape)
    counts: dict[str, int] = {}
    for func in _functions_in_order(outputs):
        if id(func) not in recorder.in_data:
            raise _unsupported(func, 'it did not run inside export (a graph built before '
                               'the call?)')
        in_data = recorder.in_data[id(func)][1]
        layers = _converter(table, func)(func, tuple(_host(x) for x in in_data))
        prefix = '%s-%d' % (type(func).__name__, func.rank)
        counts[prefix] = counts.get(prefix, 0) + 1
        name = '%s-%d' % (prefix, counts[prefix])
        indexes = layers[0].bottoms
        bottoms = []
        for i in range(len(func.inputs)) if indexes is None else indexes:
            node = func.inputs[i]
            if id(node) not in blob_of:
                raise _unsupported(func, 'its input %d is neither an input of the model nor '
                                   'computed from one' % i)
            bottoms.append(blob_of[id(node)])
        for k, layer in enumerate(layers):
            # Several layers of one function chain through blobs named after the last one.
            top = name if k == len(layers) - 1 else '%s_%s' % (name, layer.type.lower())
            for net in (model, text):
                proto = net.layer.add(name=top, type=layer.type, bottom=bottoms, top=[top],
                                      phase=caffe_pb.TEST)
                _set_fields(proto, layer.params)
                if net is model and with_blobs:
                    for array in layer.blobs:
                        blob = proto.blobs.add()
                        blob.shape.dim[:] = list(array.shape)
                        blob.data[:] = numpy.asarray(
                            _host(array), numpy.float32).ravel().tolist()
            bottoms = [top]
        for ref in func.outputs:
            node = ref()
            if node is not None:
                blob_of[id(node)] = name
    return model, text


def export(model: Link | Callable[..., Any], args: Sequence[Any],
           directory: str | os.PathLike[str] | None = None, export_params: bool = True,
           graph_name: str = 'Graph') -> None:
    """Exports the computation of a model as a Caffe network (and its parameters).

    The model runs once on ``args`` in test mode (``chainlite.config.train`` False); the
    functions it applies become Caffe layers. Supported: ``linear``, ``convolution_2d``,
    ``deconvolution_2d``, ``max_pooling_2d``, ``average_pooling_2d``, ``batch_normalization``
    in test mode (``fixed_batch_normalization``; a BatchNorm and a Scale layer),
    ``local_response_normalization``, ``relu``, ``leaky_relu``, ``concat``, ``softmax``,
    ``sigmoid``, ``reshape``, and the elementwise ``+``, ``*`` and ``maximum`` of two inputs
    of one shape. Anything else raises a ValueError naming the function.

    Args:
        model: A Link (or any callable) applied as ``model(*args)``; it returns a Variable
            or a tuple or list of them.
        args: The inputs (Variables or arrays). The first is the blob ``data`` of the Caffe
            network, further ones ``data1``, ``data2``, ...
        directory: Where to write ``chainer_model.prototxt`` (the network) and
            ``chainer_model.caffemodel`` (the network with its parameters, which
            :class:`~chainlite.links.caffe.CaffeFunction` loads), each replaced atomically.
            None: the model is converted (and checked) but nothing is written.
        export_params: Also write the ``.caffemodel``.
        graph_name: The network's ``name``.

    Raises:
        ImportError: Without the ``protobuf`` package.
        ValueError: For a function that has no Caffe counterpart.

    Example:
        >>> import tempfile, numpy as np, chainlite.links as L
        >>> from chainlite.exporters import caffe
        >>> model = L.Linear(3, 2)
        >>> directory = tempfile.mkdtemp()
        >>> caffe.export(model, [np.zeros((1, 3), np.float32)], directory)
        >>> func = L.caffe.CaffeFunction(directory + '/chainer_model.caffemodel')
        >>> [name for name, _, _ in func.layers]
        ['LinearFunction-0-1']
    """
    from chainlite.links.caffe.protobuf3 import caffe_pb2
    if not isinstance(args, (tuple, list)) or not args:
        raise TypeError('chainlite.exporters.caffe.export: args must be a non-empty tuple or '
                        'list of inputs, got %r' % (type(args).__name__,))
    inputs = [a if isinstance(a, variable.Variable) else variable.Variable(a) for a in args]
    recorder = _Recorder()
    with configuration.force_backprop_mode(), configuration.using_config('train', False), \
            recorder:
        output = model(*inputs)
    outputs = [output] if isinstance(output, variable.Variable) else output
    if not isinstance(outputs, (tuple, list)) or not all(
            isinstance(y, variable.Variable) for y in outputs):
        raise TypeError('chainlite.exporters.caffe.export: the model must return a Variable '
                        'or a tuple or list of them, got %r' % (type(output).__name__,))
    net, text = _build(caffe_pb2, graph_name, inputs, outputs, recorder, export_params)
    if directory is None:
        return
    from google.protobuf import text_format
    with _atomic.replacing(os.path.join(directory, _PROTOTXT)) as tmp:
        with open(tmp, 'w') as f:
            f.write(text_format.MessageToString(text))
    if export_params:
        with _atomic.replacing(os.path.join(directory, _CAFFEMODEL)) as tmp:
            with open(tmp, 'wb') as f:
                f.write(net.SerializeToString())
