"""The converter table: one converter per chainlite FunctionNode class.

Each module beside this one converts the functions of the same category of
:mod:`chainlite.functions`. A converter takes a
:class:`~chainlite.onnx.converter.FunctionConverterParams` and returns ONNX nodes.
"""
from chainlite.onnx.functions import activation
from chainlite.onnx.functions import array
from chainlite.onnx.functions import connection
from chainlite.onnx.functions import loss
from chainlite.onnx.functions import math
from chainlite.onnx.functions import noise
from chainlite.onnx.functions import normalization
from chainlite.onnx.functions import pooling
from chainlite.onnx.functions import rnn

converters = {}
for _module in (activation, array, connection, loss, math, noise, normalization, pooling,
                rnn):
    converters.update(_module.CONVERTERS)
del _module


def supported_functions():
    """The names of the chainlite functions that export converts, sorted.

    A function is named by its wrapper in :mod:`chainlite.functions` (``relu``,
    ``max_pooling_2d``); arithmetic operators (``x + y``, ``x ** 2``) count under
    ``add``, ``pow`` and the like.

    Example:
        >>> from chainlite.onnx import functions
        >>> 'relu' in functions.supported_functions()
        True
    """
    names = set()
    for cls in converters:
        if cls is rnn.NStepRNNNode:
            names.update(['n_step_lstm', 'n_step_bilstm', 'n_step_gru', 'n_step_bigru',
                          'n_step_rnn', 'n_step_birnn'])
        elif cls is rnn.ArgIndexNode:
            names.update(['argmax', 'argmin'])
        else:
            names.add(cls.__module__.rsplit('.', 1)[1])
    return sorted(names)
