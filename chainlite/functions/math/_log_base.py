"""What log2 and log10 share: a logarithm to a constant base."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable


class LogBase(function_node.FunctionNode):
    """The logarithm ``_log`` (``numpy.log2`` or ``numpy.log10``), to the base ``b`` with
    ``_inv_ln_base = 1 / ln(b)``; subclasses set the two."""

    _float_inputs = True
    _log: numpy.ufunc  # set by each subclass
    _inv_ln_base: float

    @property
    def label(self) -> str:
        return self._log.__name__  # 'log2', 'log10'

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return self._log(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # A Python float constant takes the variable's dtype (float16 stays float16).
        return gy / x * self._inv_ln_base,
