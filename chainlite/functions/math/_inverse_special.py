"""What erfinv, erfcinv and ndtri share: the inverse of a SciPy special function."""
from __future__ import annotations

import numpy

from chainlite import function_node
from chainlite.functions import _scipy


class InverseSpecial(function_node.FunctionNode):
    """``y = scipy.special.<_special>(x)``, a SciPy inverse function; subclasses name it in
    ``_special`` and write backward, whose derivative ``1 / f'(y)`` is cheapest from the
    retained output."""

    _float_inputs = True
    _special: str  # the function's name in scipy.special, also the label

    @property
    def label(self) -> str:
        return self._special  # 'erfinv', 'erfcinv', 'ndtri'

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_outputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return getattr(_scipy.special_of(x), self._special)(x).astype(x.dtype, copy=False),
