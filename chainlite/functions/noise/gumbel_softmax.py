"""Gumbel-softmax: a differentiable relaxation of sampling from a categorical distribution."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import backend
from chainlite import variable
from chainlite.functions.activation import softmax as softmax_mod

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def gumbel_softmax(log_pi: VariableOrArray, tau: float | VariableOrArray = 0.1,
                   axis: int = 1) -> Variable:
    """Draws a Gumbel-softmax sample, ``softmax((log_pi + g) / tau)`` with ``g ~ Gumbel(0, 1)``.

    As ``tau`` goes to 0 the samples approach one-hot vectors distributed as
    ``softmax(log_pi)`` (Jang et al., 2017). The noise is drawn from NumPy's global random
    state (``numpy.random.seed`` makes it repeatable; CuPy's for GPU arrays) in ``log_pi``'s
    dtype; the result is differentiable in ``log_pi`` and ``tau`` to any order.

    Args:
        log_pi: Unnormalised log-probabilities, a float Variable or array.
        tau: The temperature, a positive float (or a Variable or array that broadcasts).
        axis (int): The axis of the categories.

    Returns:
        A Variable of ``log_pi``'s shape and dtype; for a 0-d ``log_pi``, the 0-d array 1.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> np.random.seed(0)
        >>> y = F.gumbel_softmax(np.log(np.array([[0.2, 0.8]])), tau=0.5)
        >>> y.shape, round(float(y.array.sum()), 6)
        ((1, 2), 1.0)
    """
    xp = backend.get_array_module(variable.as_array(log_pi))
    if log_pi.ndim < 1:
        return variable.Variable(xp.ones((), log_pi.dtype))
    g = xp.random.gumbel(size=log_pi.shape).astype(log_pi.dtype)
    return softmax_mod.softmax((log_pi + g) / tau, axis=axis)
