"""Elementwise remainder of division, with the sign of the dividend (C's fmod)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import sum_to

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Fmod(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return 'fmod'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('x', 'divisor')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, divisor = inputs
        return numpy.fmod(x, divisor),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x, divisor = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gy, in_nodes[0].shape))
        if 1 in indexes:
            # y = x - fix(x / divisor) * divisor; the quotient is piecewise constant, so a
            # constant array keeps double backprop exact.
            q = numpy.fix(x.array / divisor.array)
            ret.append(sum_to.sum_to(gy * -q, in_nodes[1].shape))
        return tuple(ret)


def fmod(x: VariableOrArray, divisor: VariableOrArray) -> Variable:
    """Elementwise remainder of ``x / divisor``, with the sign of ``x`` (C's ``fmod``).

    ``y = x - fix(x / divisor) * divisor``; its gradient is ``1`` for ``x`` and
    ``-fix(x / divisor)`` for ``divisor`` (the quotient is treated as a constant, as in
    Chainer). Unlike Chainer, which requires equal shapes, the inputs may broadcast against
    each other by NumPy's rules.

    Args:
        x: A float Variable or array: the dividend.
        divisor: A Variable or array of the same dtype, broadcastable with ``x``.

    Returns:
        A Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.fmod(np.array([5.5, -5.5]), np.array([2.0, 2.0])).array
        array([ 1.5, -1.5])
    """
    return Fmod().apply((x, divisor))[0]
