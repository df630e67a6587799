"""Minimal gated units (MGU): a one-gate recurrent layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.math import linear_interpolate
from chainlite.links.connection import linear
from chainlite.links.rnn import _state

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import VariableOrArray


class MGUBase(link.Chain):
    """The parameters and the step shared by :class:`StatelessMGU` and :class:`StatefulMGU`.

    With ``f = sigmoid(W_f [h, x])`` and ``h_bar = tanh(W_h [f * h, x])``, the new state is
    ``f * h_bar + (1 - f) * h`` (Zhou et al., 2016).

    Args:
        n_inputs (int): The input size.
        n_units (int): The state size.

    Attributes:
        W_f: The :class:`~chainlite.links.Linear` layer of the forget gate.
        W_h: The :class:`~chainlite.links.Linear` layer of the candidate state.
    """

    def __init__(self, n_inputs: int, n_units: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_f = linear.Linear(n_inputs + n_units, n_units)
            self.W_h = linear.Linear(n_inputs + n_units, n_units)

    def _call_mgu(self, h: Any, x: Any) -> variable.Variable:
        f = sigmoid.sigmoid(self.W_f(concat.concat([h, x])))
        h_bar = tanh.tanh(self.W_h(concat.concat([f * h, x])))
        return linear_interpolate.linear_interpolate(f, h_bar, h)


class StatelessMGU(MGUBase):
    """An MGU layer that takes and returns its state: ``h_new = layer(h, x)``.

    See :class:`MGUBase` for the arguments.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> mgu = L.StatelessMGU(3, 2)
        >>> mgu(np.zeros((4, 2), np.float32), np.ones((4, 3), np.float32)).shape
        (4, 2)
    """

    def forward(self, h: VariableOrArray, x: VariableOrArray) -> variable.Variable:
        """One step from the state ``h`` ``(B, n_units)`` and input ``x`` ``(B, n_inputs)``.

        Returns:
            The new state ``(B, n_units)``.
        """
        return self._call_mgu(h, x)


class StatefulMGU(MGUBase):
    """An MGU layer that keeps its state ``h`` between calls.

    The state starts as zeros of ``chainlite.config.dtype`` (as in Chainer) with the
    batch size of the first input. See :class:`MGUBase` for the arguments.

    Attributes:
        h: The state Variable, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> mgu = L.StatefulMGU(3, 2)
        >>> y = mgu(np.ones((4, 3), np.float32))
        >>> y.shape, mgu.h is y
        ((4, 2), True)
    """

    # The state: None until the first step (or set_state).
    h: Optional[variable.Variable]

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self._state_size = out_size
        self.reset_state()

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the parameters and the state (``h``), so that ``to_device`` moves both.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        _state.visit(visitor, self.h)

    def set_state(self, h: variable.Variable) -> None:
        """Sets the state to the Variable ``h`` ``(B, out_size)``."""
        if not isinstance(h, variable.Variable):
            raise TypeError('StatefulMGU.set_state: h must be a Variable, got %s'
                            % type(h).__name__)
        _state.to_link_device(self, h)
        self.h = h

    def reset_state(self) -> None:
        """Forgets the state (``h`` becomes None)."""
        self.h = None

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """One step on the input ``x`` ``(B, in_size)``; returns and keeps the new state."""
        h = self.h
        if h is None:
            h = variable.Variable(_state.zeros(self, (x.shape[0], self._state_size), x.dtype))
        self.h = self._call_mgu(h, x)
        return self.h
