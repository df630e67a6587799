"""A fully-connected LSTM layer with peephole connections."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import tanh
from chainlite.links.connection import linear
from chainlite.links.rnn import _state

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import VariableOrArray


def _split_gates(lstm_in: Any, units: int) -> list:
    # The gate pre-activations are interleaved unit by unit as in F.lstm: a, i, f, o.
    r = lstm_in.reshape((lstm_in.shape[0], units, 4))
    return [r[:, :, k] for k in range(4)]


class StatefulPeepholeLSTM(link.Chain):
    """An LSTM layer whose gates also see the cell state (peephole connections).

    With ``z = upward(x) + lateral(h)`` split into ``a, i, f, o`` (interleaved unit by unit
    as in :func:`~chainlite.functions.lstm`):

        ``i = sigmoid(i + peep_i(c))``, ``f = sigmoid(f + peep_f(c))``,
        ``c' = tanh(a) * i + f * c``, ``o = sigmoid(o + peep_o(c'))``, ``h' = o * tanh(c')``.

    The state starts as None (zeros of the input's dtype).

    Args:
        in_size (int): The input size.
        out_size (int): The state size.

    Attributes:
        upward, lateral: The input and recurrent :class:`~chainlite.links.Linear` layers
            (``lateral`` has no bias).
        peep_i, peep_f, peep_o: The peephole layers (no bias), ``out_size`` to
            ``out_size``.
        c, h: The cell state and output, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> lstm = L.StatefulPeepholeLSTM(3, 2)
        >>> lstm(np.ones((4, 3), np.float32)).shape, lstm.c.shape
        ((4, 2), (4, 2))
    """

    # The state: None until the first step (or set_state).
    c: Optional[variable.Variable]
    h: Optional[variable.Variable]

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = linear.Linear(out_size, out_size, nobias=True)
            self.peep_f = linear.Linear(out_size, out_size, nobias=True)
            self.peep_o = linear.Linear(out_size, out_size, nobias=True)

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the parameters and the state (``c``, ``h``), so that ``to_device`` moves both.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        _state.visit(visitor, self.c, self.h)

    def reset_state(self) -> None:
        """Forgets the state (``c`` and ``h`` become None)."""
        self.c = self.h = None

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """One step on ``x`` ``(B, in_size)``; returns the new output ``h``."""
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = variable.Variable(_state.zeros(self, (x.shape[0], self.state_size),
                                                    x.dtype))
        a, i, f, o = _split_gates(lstm_in, self.state_size)
        i = sigmoid.sigmoid(i + self.peep_i(self.c))
        f = sigmoid.sigmoid(f + self.peep_f(self.c))
        self.c = tanh.tanh(a) * i + f * self.c
        o = sigmoid.sigmoid(o + self.peep_o(self.c))
        self.h = o * tanh.tanh(self.c)
        return self.h
