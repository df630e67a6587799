"""Cast an array to a given dtype, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite import function_node
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import DTypeSpec, VariableOrArray


class Cast(function_node.FunctionNode):

    def __init__(self, typ: DTypeSpec) -> None:
        self.type = typ

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self._in_dtype = x.dtype
        return x.astype(self.type, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # An integer (or bool) input has no gradient.
        if self._in_dtype.kind != 'f':
            return None,
        gy, = grad_outputs
        return cast(gy, self._in_dtype),


def cast_to(g: Variable | None, dtype: DTypeSpec) -> Variable | None:
    """``g`` (a gradient Variable) cast to ``dtype``, or ``g`` itself when it already is.

    Mixed-dtype functions (float16 data with float32 parameters, as Chainer accepts) use it
    so that each input's gradient has that input's dtype.
    """
    return g if g is None or g.dtype == dtype else Cast(numpy.dtype(dtype)).apply((g,))[0]


def cast(x: VariableOrArray, typ: DTypeSpec) -> Variable:
    """Casts ``x`` to the dtype ``typ``; the gradient is cast back to ``x``'s dtype.

    Args:
        x: A Variable or array.
        typ: A dtype or anything :class:`numpy.dtype` takes (``numpy.float32``,
            ``'float16'``, ``'f'``).

    Returns:
        A Variable of dtype ``typ`` (sharing ``x``'s array when the dtype is already
        ``typ``). Inputs that are not floating point get no gradient.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = F.cast(np.arange(3.0), np.float32)
        >>> y.dtype, y.array
        (dtype('float32'), array([0., 1., 2.], dtype=float32))
    """
    typ = numpy.dtype(typ)
    if getattr(x, 'dtype', None) == typ and not configuration.config.enable_backprop:
        return variable.as_variable(x)
    return Cast(typ).apply((x,))[0]
