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
