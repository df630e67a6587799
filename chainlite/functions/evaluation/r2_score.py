"""R^2, the coefficient of determination of a regression (not differentiable)."""
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

_MULTIOUTPUT = ('uniform_average', 'raw_values')


class R2Score(function_node.FunctionNode):

    def __init__(self, sample_weight: None = None, multioutput: str = 'uniform_average') -> None:
        if sample_weight is not None:
            raise ValueError('r2_score: sample_weight must be None (weights are not '
                             'supported, as in Chainer); got {!r}'.format(type(sample_weight)))
        if multioutput not in _MULTIOUTPUT:
            raise ValueError('r2_score: multioutput must be one of {}; got {!r}'.format(
                _MULTIOUTPUT, multioutput))
        self.multioutput = multioutput

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('pred', 'true'))
        pred, true = in_types
        type_check.expect(pred.dtype.kind == 'f', true.dtype.kind == 'f',
                          pred.shape == true.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        pred, true = inputs
        xp = backend.get_array_module(pred)
        ss_res = ((pred - true) ** 2).sum(axis=0)
        ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
        constant = ss_tot == 0
        # A constant target scores 0 (as in Chainer), whatever the prediction.
        score = xp.where(constant, 0.0, 1 - ss_res / xp.where(constant, 1, ss_tot))
        score = xp.asarray(score).astype(pred.dtype, copy=False)
        if self.multioutput == 'uniform_average':
            return xp.asarray(score.mean(), pred.dtype),
        return score,


class R2_score(R2Score):
    """r2_score as Chainer's old-style function: ``R2_score(sample_weight,
    multioutput)(pred, true)`` (``sample_weight`` must be None), also ``.apply((pred,
    true))``."""

    def __init__(self, sample_weight: None, multioutput: str) -> None:
        super().__init__(sample_weight, multioutput)

    def __call__(self, pred: VariableOrArray, true: VariableOrArray) -> Variable:
        return self.apply((pred, true))[0]


def r2_score(pred: VariableOrArray, true: VariableOrArray, sample_weight: None = None,
             multioutput: str = 'uniform_average') -> Variable:
    """R^2 (the coefficient of determination) of a regression, along the first axis.

    For every output (every index past the first axis), ``1 - SS_res / SS_tot`` with
    ``SS_res = sum((pred - true) ** 2)`` and ``SS_tot = sum((true - mean(true)) ** 2)`` over
    the samples of the first axis; an output whose ``true`` is constant scores 0. Not
    differentiable: the result is a Variable outside the graph.

    Args:
        pred: A float Variable or array of predictions, samples along the first axis.
        true: A float Variable or array of targets of the same shape.
        sample_weight: Must be None (kept for scikit-learn's signature, as in Chainer).
        multioutput: ``'uniform_average'`` (the mean score over the outputs, a scalar) or
            ``'raw_values'`` (one score per output, of shape ``pred.shape[1:]``).

    Returns:
        A Variable of the dtype of ``pred``.

    Raises:
        ValueError: For a ``sample_weight`` or an unknown ``multioutput``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> true = np.array([1.0, 2.0, 3.0, 4.0])
        >>> F.r2_score(np.array([1.0, 2.0, 3.0, 5.0]), true).array
        array(0.8)
    """
    node = R2Score(sample_weight, multioutput)
    with configuration.no_backprop_mode():
        score = node.apply((pred, true))[0]
    return variable.Variable(score.array, requires_grad=False)
