"""The converter table: one converter per chainlite FunctionNode class.

Each module beside this one converts the functions of the same category of
:mod:`chainlite.functions`. A converter takes a
:class:`~chainlite.onnx.converter.FunctionConverterParams` and returns ONNX nodes; the
``convert_<Function>`` names of onnx_chainer (imported here as there) also take
onnx_chainer's ``(func, opset_version, input_names, output_names, context)``.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlite.onnx.functions import _recorded
from chainlite.onnx.functions import activation
from chainlite.onnx.functions import array
from chainlite.onnx.functions import attention
from chainlite.onnx.functions import connection
from chainlite.onnx.functions import loss
from chainlite.onnx.functions import math
from chainlite.onnx.functions import noise
from chainlite.onnx.functions import normalization
from chainlite.onnx.functions import pooling
from chainlite.onnx.functions import rnn

# onnx_chainer's converter functions (each also takes a FunctionConverterParams).
from chainlite.onnx.functions.activation import (  # noqa: F401
    convert_ClippedReLU, convert_ELU, convert_HardSigmoid, convert_LeakyReLU,
    convert_LogSoftmax, convert_PReLUFunction, convert_ReLU, convert_Selu, convert_Sigmoid,
    convert_Softmax, convert_Softplus, convert_Tanh,
)
from chainlite.onnx.functions.array import (  # noqa: F401
    convert_Cast, convert_Concat, convert_Copy, convert_Depth2Space, convert_Dstack,
    convert_ExpandDims, convert_GetItem, convert_Hstack, convert_Moveaxis, convert_Pad,
    convert_Permutate, convert_Repeat, convert_Reshape, convert_ResizeImages, convert_Rollaxis,
    convert_SelectItem, convert_Separate, convert_Shape, convert_Space2Depth,
    convert_SplitAxis, convert_Squeeze, convert_Stack, convert_Swapaxes, convert_Tile,
    convert_Transpose, convert_TransposeSequence, convert_Vstack, convert_Where,
)
from chainlite.onnx.functions.connection import (  # noqa: F401
    convert_Convolution2DFunction, convert_ConvolutionND, convert_Deconvolution2DFunction,
    convert_DeconvolutionND, convert_EmbedIDFunction, convert_LinearFunction,
)
from chainlite.onnx.functions.loss import (  # noqa: F401
    convert_SoftmaxCrossEntropy,
)
from chainlite.onnx.functions.math import (  # noqa: F401
    convert_Absolute, convert_Add, convert_AddConstant, convert_Arccos, convert_Arcsin,
    convert_Arctan, convert_ArgMax, convert_ArgMin, convert_BroadcastTo, convert_Clip,
    convert_Cos, convert_Cosh, convert_Div, convert_DivFromConstant, convert_Exp,
    convert_Identity, convert_LinearInterpolate, convert_Log, convert_LogSumExp,
    convert_MatMul, convert_Max, convert_Maximum, convert_Mean, convert_Min, convert_Minimum,
    convert_Mul, convert_MulConstant, convert_Neg, convert_PowConstVar, convert_PowVarConst,
    convert_PowVarVar, convert_Prod, convert_RsqrtGPU, convert_sign, convert_Sin, convert_Sinh,
    convert_Sqrt, convert_Square, convert_Sub, convert_SubFromConstant, convert_Sum,
    convert_Tan,
)
from chainlite.onnx.functions.noise import (  # noqa: F401
    convert_Dropout,
)
from chainlite.onnx.functions.normalization import (  # noqa: F401
    convert_BatchNormalization, convert_FixedBatchNormalization, convert_GroupNormalization,
    convert_LocalResponseNormalization, convert_NormalizeL2,
)
from chainlite.onnx.functions.pooling import (  # noqa: F401
    convert_AveragePooling2D, convert_AveragePoolingND, convert_MaxPooling2D,
    convert_MaxPoolingND, convert_ROIPooling2D, convert_Unpooling2D,
)
from chainlite.onnx.functions.rnn import (  # noqa: F401
    convert_n_step_gru,
)

converters: dict[type, Callable[..., Any]] = {}
for _module in (activation, array, attention, connection, loss, math, noise, normalization,
                pooling, rnn, _recorded):
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
    'activation': 'Activation', 'array': 'Array', 'attention': 'Attention',
    'connection': 'Connection', 'loss': 'Loss',
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
