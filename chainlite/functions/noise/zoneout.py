"""Zoneout: each unit keeps its previous value at random instead of taking the new one."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Zoneout(function_node.FunctionNode):

    def __init__(self, zoneout_ratio: float) -> None:
        self.zoneout_ratio = zoneout_ratio

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('h', 'x'))
        h, x = in_types
        type_check.expect(h.dtype.kind == 'f', x.dtype == h.dtype, x.shape == h.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        # One draw from the array module's global random state per call, as Chainer does.
        self.flag_x = xp.random.rand(*x.shape) >= self.zoneout_ratio
        self.flag_h = ~self.flag_x
        return xp.where(self.flag_x, x, h),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy * self.flag_h.astype(gy.dtype))
        if 1 in indexes:
            ret.append(gy * self.flag_x.astype(gy.dtype))
        return tuple(ret)


def zoneout(h: VariableOrArray, x: VariableOrArray, ratio: float = .5, **kwargs: Any) -> Variable:
    """Zoneout regularization: keeps each unit's previous value ``h`` with probability ``ratio``.

    While training, each element of the result is ``h`` with probability ``ratio`` and ``x``
    otherwise (the draw uses NumPy's global random state, so ``numpy.random.seed`` makes it
    repeatable, or CuPy's for GPU arrays; the flags are kept on the function node as
    ``flag_h`` and ``flag_x``). With ``chainlite.config.train`` False it returns ``x``.

    Args:
        h: The previous value, a float Variable or array.
        x: The new value, of ``h``'s shape and dtype.
        ratio (float): The probability of keeping ``h``.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        ValueError: If the removed ``train`` argument is given.
        TypeError: For any other unexpected keyword argument.

    Example:
        >>> import numpy as np, chainlite
        >>> import chainlite.functions as F
        >>> h, x = np.zeros(3), np.ones(3)
        >>> F.zoneout(h, x, ratio=1.0).array
        array([0., 0., 0.])
        >>> with chainlite.using_config('train', False):
        ...     F.zoneout(h, x).array
        array([1., 1., 1.])
    """
    if 'train' in kwargs:
        raise ValueError('zoneout: the train argument is not supported anymore; use '
                         "chainlite.using_config('train', ...)")
    if kwargs:
        raise TypeError('zoneout() got unexpected keyword argument(s): %s'
                        % ', '.join(sorted(kwargs)))
    if configuration.config.train:
        return Zoneout(ratio).apply((h, x))[0]
    return variable.as_variable(x)
