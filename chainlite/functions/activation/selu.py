"""Scaled exponential linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.activation import elu

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class SELU(elu.ELU):
    # ELU with a scale, under its own name for error messages.
    pass


def selu(x: VariableOrArray, alpha: float = 1.6732632423543772,
         scale: float = 1.0507009873554805) -> Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)``.

    The defaults are the self-normalizing constants of Klambauer et al. (2017).

    Args:
        x: A float Variable or array.
        alpha: The parameter ``alpha`` (a scalar).
        scale: The parameter ``lambda`` that scales the output (a scalar).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.selu(np.array([-1.0, 0.0, 2.0])).array
        array([-1.11133074,  0.        ,  2.10140197])
    """
    return SELU(alpha, scale).apply((x,))[0]
