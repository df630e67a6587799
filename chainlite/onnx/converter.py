"""What a converter receives: the function, the opset and the names of its values."""
from __future__ import annotations

from typing import Any, Optional, cast

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
