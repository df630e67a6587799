"""Classification accuracy (not differentiable)."""
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


class Accuracy(function_node.FunctionNode):

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 't'))
        y, t = in_types
        type_check.expect(y.dtype.kind == 'f', t.dtype.kind == 'i')
        t_ndim = type_check.eval(t.ndim)
        type_check.expect(y.ndim >= t.ndim + 1, y.shape[0] == t.shape[0],
                          y.shape[2:t_ndim + 1] == t.shape[1:])
        # Trailing axes of y beyond t's are allowed when they have length 1.
        for i in range(t_ndim + 1, type_check.eval(y.ndim)):
            type_check.expect(y.shape[i] == 1)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        pred = y.argmax(axis=1).reshape(t.shape)
        hit = pred == t
        if self.ignore_label is None:
            return xp.asarray(hit.mean() if t.size else 0.0, y.dtype),
        valid = t != self.ignore_label
        # No count is read on the host: with none valid, 0 hits / 1 gives the accuracy 0.
        count = xp.maximum(valid.sum(), 1)
        return xp.asarray((hit & valid).sum() / count, y.dtype),


def accuracy(y: VariableOrArray, t: VariableOrArray, ignore_label: int | None = None) -> Variable:
    """The fraction of rows of ``y`` whose highest score is at the label ``t``.

    Not differentiable: as in Chainer, the result is a Variable outside the graph
    (``requires_grad=False``).

    Args:
        y: A float Variable or array of scores, ``(N, C, ...)``; the class axis is 1.
        t: An integer Variable or array of labels, ``(N, ...)``.
        ignore_label: A label whose instances are left out of both counts; if every
            instance is ignored, the accuracy is 0.

    Returns:
        A scalar Variable of the dtype of ``y``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> F.accuracy(y, np.array([1, 1, 1])).array
        array(0.66666667)
    """
    with configuration.no_backprop_mode():
        acc = Accuracy(ignore_label).apply((y, t))[0]
    return variable.Variable(acc.array, requires_grad=False)
