"""What a converter receives, and the adapters to onnx_chainer's converter arguments.

chainlite's converters take one :class:`FunctionConverterParams` (the function, the opset,
the names, shapes and dtypes of its values); onnx_chainer's take five arguments
``(func, opset_version, input_names, output_names, context)``.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, cast

import numpy


class FunctionConverterParams:
    """The arguments of a converter (built-in or given in ``external_converters``).

    Args:
        func: The :class:`~chainlite.FunctionNode` to convert (for an old-style
            :class:`~chainlite.Function`, that Function).
        opset_version: The opset of the exported model.
        input_names: The names of the function's input values, in order.
        output_names: The names the converter must give its outputs, in order.
        context: The export's :class:`~chainlite.onnx.context.Context`.
        input_shapes: The shapes of the inputs.
        input_dtypes: The dtypes of the inputs.
        output_shapes: The shapes of the outputs.
        output_dtypes: The dtypes of the outputs.
        constants: For each input, its array when it is a constant of the graph (neither a
            model input, a parameter nor computed by another function), else None.

    Example:
        >>> def my_relu(params):
        ...     from chainlite.onnx import onnx_helper
        ...     return onnx_helper.make_node('Relu', params.input_names,
        ...                                  params.output_names),
    """

    def __init__(self, func: Any = None, opset_version: Optional[int] = None,
                 input_names: Optional[list] = None, output_names: Optional[list] = None,
                 context: Any = None, input_shapes: tuple = (), input_dtypes: tuple = (),
                 output_shapes: tuple = (), output_dtypes: tuple = (),
                 constants: tuple = ()) -> None:
        self.func = func
        # The exporter gives them all; None only in a params object made by hand.
        self.opset_version = cast(int, opset_version)
        self.input_names = cast('list[str]', input_names)
        self.output_names = cast('list[str]', output_names)
        self.context = context
        self.input_shapes = input_shapes
        self.input_dtypes = input_dtypes
        self.output_shapes = output_shapes
        self.output_dtypes = output_dtypes
        self.constants = constants

    def constant(self, index: int) -> Optional[numpy.ndarray]:
        """The array of input ``index`` if it is a constant of the graph, else None."""
        return self.constants[index] if index < len(self.constants) else None


_Converter = Callable[..., Any]


def params_of(func: Any, opset_version: int, input_names: list, output_names: list,
              context: Any) -> FunctionConverterParams:
    """onnx_chainer's five converter arguments as a :class:`FunctionConverterParams`.

    The shapes and dtypes are read from ``func``'s input and output nodes (an output that
    is gone has None). No input counts as a constant of the graph, so a converter computes
    everything it needs from the input values themselves.

    Args:
        func: The function to convert (a :class:`~chainlite.FunctionNode` or
            :class:`~chainlite.Function` that has been applied).
        opset_version: The opset of the exported model.
        input_names: The names of the function's input values.
        output_names: The names the converter must give its outputs.
        context: The export's :class:`~chainlite.onnx.context.Context`.

    Returns:
        The :class:`FunctionConverterParams`.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> y = F.relu(chainlite.Variable(np.ones((2, 3), np.float32)))
        >>> params_of(y.creator, 13, ['x'], ['y'], None).input_shapes
        ((2, 3),)
    """
    inputs = getattr(func, 'inputs', None)
    if inputs is None:
        raise ValueError('converting %s: the function has not been applied (it has no input '
                         'nodes), so its shapes are unknown' % type(func).__name__)
    outputs = [ref() for ref in (func.outputs or ())]
    return FunctionConverterParams(
        func, opset_version, input_names, output_names, context,
        tuple(n.shape for n in inputs), tuple(n.dtype for n in inputs),
        tuple(None if n is None else n.shape for n in outputs),
        tuple(None if n is None else n.dtype for n in outputs))


def onnx_chainer_signature(convert: _Converter) -> _Converter:
    """Lets a converter of :class:`FunctionConverterParams` also take onnx_chainer's arguments.

    The result takes either one :class:`FunctionConverterParams` (what
    :func:`~chainlite.onnx.export` passes) or onnx_chainer's
    ``(func, opset_version, input_names, output_names, context)``, and returns the ONNX
    nodes. A converter made so carries ``takes_params = True``.

    Args:
        convert: A function of one :class:`FunctionConverterParams`.

    Returns:
        The function that takes both.

    Example:
        >>> from chainlite.onnx import onnx_helper
        >>> @onnx_chainer_signature
        ... def convert_Neg(params):
        ...     return onnx_helper.make_node('Neg', params.input_names, params.output_names),
        >>> convert_Neg.takes_params
        True
    """
    @functools.wraps(convert)
    def converter(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], FunctionConverterParams):
            return convert(args[0])
        return convert(_five_arguments(convert.__name__, *args, **kwargs))
    converter.takes_params = True  # type: ignore[attr-defined]
    return converter


def _five_arguments(name: str, func: Any = None, opset_version: Any = None,
                    input_names: Any = None, output_names: Any = None, context: Any = None,
                    *rest: Any) -> FunctionConverterParams:
    if rest or func is None or opset_version is None or input_names is None or \
            output_names is None:
        raise TypeError('%s takes a FunctionConverterParams, or (func, opset_version, '
                        'input_names, output_names, context) as onnx_chainer\'s converters '
                        'do' % name)
    return params_of(func, opset_version, input_names, output_names, context)


class FunctionConverter:
    """Turns a converter of onnx_chainer's five arguments into a converter of params.

    :func:`~chainlite.onnx.export` calls each converter with one
    :class:`FunctionConverterParams`; onnx_chainer's converter functions take
    ``(func, opset_version, input_names, output_names, context)`` instead. Wrapped in a
    FunctionConverter, such a function can be given in ``external_converters``. A
    chainlite converter (one that takes the params too) gets the params as they are.

    Args:
        converter: A function of ``(func, opset_version, input_names, output_names,
            context)`` returning ONNX nodes.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import onnx as ox
        >>> def leaky(func, opset_version, input_names, output_names, context):
        ...     return ox.onnx_helper.make_node('LeakyRelu', input_names, output_names,
        ...                                     alpha=0.5),
        >>> m = ox.export(F.relu, np.ones((1, 2), np.float32),
        ...               external_converters={'ReLU': FunctionConverter(leaky)})
        >>> m.graph.node[0].op_type
        'LeakyRelu'
    """

    def __init__(self, converter: _Converter) -> None:
        self.converter = converter

    def __call__(self, params: FunctionConverterParams) -> Any:
        if getattr(self.converter, 'takes_params', False):
            return self.converter(params)
        return self.converter(params.func, params.opset_version, params.input_names,
                              params.output_names, params.context)
