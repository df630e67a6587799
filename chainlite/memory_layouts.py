"""Array memory layouts, as ``chainer.memory_layouts``.

Chainer 7 can keep a Variable's array in a channel-last layout for cuDNN
(``Variable(x, layout=CUDNN_CHANNEL_LAST_X)``). chainlite keeps every array in the standard
channel-first layout: the layout names exist so that code refers to them, the raw shape of
an array is its semantic shape, and asking for another layout raises ValueError.

Example:
    >>> import numpy
    >>> from chainlite import memory_layouts
    >>> memory_layouts.get_semantic_shape(numpy.zeros((2, 3, 4, 5)))
    (2, 3, 4, 5)
"""
from __future__ import annotations

from typing import Any

from chainlite import function_node

CUDNN_CHANNEL_FIRST_X = None
CUDNN_CHANNEL_LAST_X = 'CUDNN_CHANNEL_LAST_X'
CUDNN_CHANNEL_FIRST_W = None
CUDNN_CHANNEL_LAST_W = 'CUDNN_CHANNEL_LAST_W'


def _check_layout(layout: Any) -> None:
    if layout is not None:
        raise ValueError('memory layout %r is not supported: chainlite keeps arrays in the '
                         'standard (channel-first) layout only' % (layout,))


def get_raw_shape(arr_or_var: Any) -> tuple:
    """Returns the shape of the array as stored (the semantic shape in chainlite).

    Args:
        arr_or_var: An array or a Variable.

    Returns:
        Its shape.
    """
    return tuple(arr_or_var.shape)


def get_semantic_shape(arr_or_var: Any, *, assumed_layout: Any = None) -> tuple:
    """Returns the shape of the array in the standard layout.

    Args:
        arr_or_var: An array or a Variable.
        assumed_layout: The layout the array is in: only None (the standard one).

    Returns:
        Its shape.

    Raises:
        ValueError: For another layout.
    """
    _check_layout(assumed_layout)
    return tuple(arr_or_var.shape)


class AsLayout(function_node.FunctionNode):
    """Converts an array to a memory layout (Chainer's node; the standard layout only here).

    chainlite keeps every array in the standard layout, so the only layout is None and the
    conversion passes the array through; its gradient is passed back the same way.

    Args:
        layout: The layout to convert to: only None.

    Raises:
        ValueError: For another layout.

    Example:
        >>> import numpy as np
        >>> from chainlite import memory_layouts
        >>> y, = memory_layouts.AsLayout(None).apply((np.ones(2, np.float32),))
        >>> y.array
        array([1., 1.], dtype=float32)
    """

    axes = None
    in_layout = None

    def __init__(self, layout: Any) -> None:
        _check_layout(layout)
        self.out_layout = layout

    @property
    def label(self) -> str:
        return 'AsLayout'

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        self.output_layouts = (self.out_layout,)
        return x,

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        return AsLayout(self.in_layout).apply(grad_outputs)
