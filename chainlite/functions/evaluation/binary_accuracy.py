"""Accuracy of binary classification from logits (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class BinaryAccuracy(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 't'))
        y, t = in_types
        type_check.expect(y.dtype.kind == 'f', t.dtype.kind == 'i', y.shape == t.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        valid = t != -1
        # No count is read on the host: with none valid, 0 hits / 1 gives the accuracy 0.
        count = xp.maximum(valid.sum(), 1)
        hit = ((y >= 0) == t) & valid
        return xp.asarray(hit.sum() / count, y.dtype),


def binary_accuracy(y: VariableOrArray, t: VariableOrArray) -> Variable:
    """The fraction of elements where ``y >= 0`` agrees with the binary label ``t``.

    Not differentiable: as in Chainer, the result is a Variable outside the graph
    (``requires_grad=False``).

    Args:
        y: A float Variable or array of logits (a positive one predicts 1).
        t: An integer Variable or array of the shape of ``y`` with labels 0 or 1; ``-1``
            marks an ignored element. If every element is ignored, the accuracy is 0.

    Returns:
        A scalar Variable of the dtype of ``y``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.binary_accuracy(np.array([2.0, -1.0, 0.5, 3.0]), np.array([1, 1, 0, -1])).array
        array(0.33333333)
    """
    with configuration.no_backprop_mode():
        acc = BinaryAccuracy().apply((y, t))[0]
    return variable.Variable(acc.array, requires_grad=False)
