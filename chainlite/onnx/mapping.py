"""onnx_chainer's ``mapping``: the built-in converters by function name, and the patch.

:func:`~chainlite.onnx.export` finds converters by function class itself; this module
gives the same converters under the names onnx_chainer's code looks up, for code that
extends or inspects onnx_chainer's table (``dict(mapping.converters, **mine)``).
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from chainlite.onnx import converter
from chainlite.onnx import functions
from chainlite.onnx.functions import _recorded


def _table() -> dict[str, converter.FunctionConverter]:
    # chainlite's class names, then onnx_chainer's names (functions.convert_<name>): where
    # the two differ (SELU and Selu) both are keys.
    table = {name: converter.FunctionConverter(conv)
             for name, conv in functions.converters_by_name().items()}
    for attr in dir(functions):
        if attr.startswith('convert_'):
            table[attr[len('convert_'):]] = converter.FunctionConverter(
                getattr(functions, attr))
    return table


#: The built-in converters keyed by function name (``'ReLU'``, ``'Convolution2DFunction'``,
#: ``'n_step_gru'``), each a :class:`~chainlite.onnx.converter.FunctionConverter`, which
#: takes a :class:`~chainlite.onnx.converter.FunctionConverterParams`.
converters = _table()


@contextlib.contextmanager
def patch_functions() -> Iterator[None]:
    """Inside the block, the functions that export records whole leave one node each.

    ``n_step_gru`` and the other ``n_step_*`` recurrences, ``argmax``, ``argmin``,
    ``sign``, ``floor``, ``ceil`` and ``fix`` are replaced in their modules and in
    :mod:`chainlite.functions` by wrappers that record a single node of the graph (which
    the converters of :data:`converters` turn into ONNX's own operator); on leaving, the
    originals come back. :func:`~chainlite.onnx.export` runs the model inside it.

    Example:
        >>> import numpy as np, chainlite
        >>> import chainlite.functions as F
        >>> x = chainlite.Variable(np.array([-1.5, 2.0], np.float32))
        >>> with patch_functions():
        ...     y = F.sign(x)
        >>> y.creator.custom_function_node_name, F.sign(x).creator is None
        ('sign', True)
    """
    with _recorded.recorded_functions():
        yield
