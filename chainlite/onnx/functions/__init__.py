"""The converter table: one converter per chainlite FunctionNode class.

Each module beside this one converts the functions of the same category of
:mod:`chainlite.functions`. A converter takes a
:class:`~chainlite.onnx.converter.FunctionConverterParams` and returns ONNX nodes.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlite.onnx.functions import _recorded
from chainlite.onnx.functions import activation
from chainlite.onnx.functions import array
from chainlite.onnx.functions import connection
from chainlite.onnx.functions import loss
from chainlite.onnx.functions import math
from chainlite.onnx.functions import noise
from chainlite.onnx.functions import normalization
from chainlite.onnx.functions import pooling
from chainlite.onnx.functions import rnn

converters: dict[type, Callable[..., Any]] = {}
for _module in (activation, array, connection, loss, math, noise, normalization, pooling,
                rnn, _recorded):
    converters.update(_module.CONVERTERS)
del _module


def converters_by_name() -> dict[str, Callable[..., Any]]:
    """The built-in converters keyed by function class name (``'ReLU'``)."""
    return {cls.__name__: conv for cls, conv in converters.items()}


# Wrappers that record only functions of the table (chainlite_tests/onnx_tests exports each).
_COMPOSED = {
    'activation': ('maxout',),
    'array': ('broadcast_to', 'flatten'),
    'connection': ('depthwise_convolution_2d', 'dilated_convolution_2d'),
    'math': ('average',),
    'pooling': ('spatial_pyramid_pooling_2d',),
}


def _categorised():
    # (category, function name) for every function a converter covers.
    pairs = {(c, n) for c, names in _COMPOSED.items() for n in names}
    for cls in converters:
        if cls is rnn.NStepRNNNode:
            pairs.update(('rnn', n) for n in ('n_step_lstm', 'n_step_bilstm', 'n_step_gru',
                                              'n_step_bigru', 'n_step_rnn', 'n_step_birnn'))
        elif cls is _recorded.ArgIndexNode:
            pairs.update([('math', 'argmax'), ('math', 'argmin')])
        elif cls is _recorded.ElementwiseNode:
            pairs.update(('math', n) for n in ('sign', 'floor', 'ceil', 'fix'))
        elif cls is _recorded.ZeroStateNode:
            continue  # a part of the LSTM links, not a function of its own
        else:
            parts = cls.__module__.split('.')
            pairs.add((parts[-2], parts[-1]))
    return pairs


def supported_functions() -> list[str]:
    """The names of the chainlite functions that export converts, sorted.

    A function is named by its wrapper in :mod:`chainlite.functions` (``relu``,
    ``max_pooling_2d``); arithmetic operators (``x + y``, ``x ** 2``) count under
    ``add``, ``pow`` and the like.

    Example:
        >>> from chainlite.onnx import functions
        >>> 'relu' in functions.supported_functions()
        True
    """
    return sorted({name for _, name in _categorised()})


_CATEGORY_TITLES = {
    'activation': 'Activation', 'array': 'Array', 'connection': 'Connection', 'loss': 'Loss',
    'math': 'Mathematical', 'noise': 'Noise', 'normalization': 'Normalization',
    'pooling': 'Pooling', 'rnn': 'Recurrent',
}


def supported_functions_markdown() -> str:
    """The supported functions as the Markdown list of docs/onnx.md, one line per category.

    Example:
        >>> from chainlite.onnx import functions
        >>> functions.supported_functions_markdown().splitlines()[0].split(':')[0]
        '- **Activation**'
    """
    by_category: dict[str, list[str]] = {}
    for category, name in _categorised():
        by_category.setdefault(category, []).append(name)
    lines = []
    for category in sorted(by_category, key=lambda c: _CATEGORY_TITLES.get(c, c)):
        names = ', '.join('`%s`' % n for n in sorted(by_category[category]))
        lines.append('- **%s**: %s' % (_CATEGORY_TITLES.get(category, category), names))
    return '\n'.join(lines) + '\n'
