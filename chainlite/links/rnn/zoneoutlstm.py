"""A fully-connected LSTM layer regularised with zoneout."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import tanh
from chainlite.functions.noise import zoneout
from chainlite.links.connection import linear
from chainlite.links.rnn import _state
from chainlite.links.rnn import peephole

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import VariableOrArray


class StatefulZoneoutLSTM(link.Chain):
    """An LSTM layer whose cell state and output keep their old values at random (zoneout).

    With ``z = upward(x) + lateral(h)`` split into ``a, i, f, o`` (interleaved as in
    :func:`~chainlite.functions.lstm`), ``c_new = tanh(a) sigmoid(i) + sigmoid(f) c``, then
    ``c = zoneout(c, c_new, c_ratio)`` and ``h = zoneout(h, sigmoid(o) tanh(c_new),
    h_ratio)`` (:func:`~chainlite.functions.zoneout`: only while
    ``chainlite.config.train``). The state starts as zeros of the input's dtype.

    Args:
        in_size (int): The input size.
        out_size (int): The state size.
        c_ratio (float): The zoneout ratio of the cell state.
        h_ratio (float): The zoneout ratio of the output.

    Attributes:
        upward, lateral: The input and recurrent :class:`~chainlite.links.Linear` layers.
        c, h: The cell state and output, or None.

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> lstm = L.StatefulZoneoutLSTM(3, 2)
        >>> with chainlite.using_config('train', False):
        ...     lstm(np.ones((4, 3), np.float32)).shape
        (4, 2)
    """

    # The state: None until the first step (or set_state).
    c: Optional[variable.Variable]
    h: Optional[variable.Variable]

    def __init__(self, in_size: int, out_size: int, c_ratio: float = 0.5,
                 h_ratio: float = 0.5, **kwargs: Any) -> None:
        if 'train' in kwargs:
            raise ValueError('StatefulZoneoutLSTM: the train argument is not supported '
                             "anymore; use chainlite.using_config('train', ...)")
        if kwargs:
            raise TypeError('StatefulZoneoutLSTM() got unexpected keyword argument(s): %s'
                            % ', '.join(sorted(kwargs)))
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        self.reset_state()
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the parameters and the state (``c``, ``h``), so that ``to_device`` moves both.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        _state.visit(visitor, self.c, self.h)

    def set_state(self, c: variable.Variable, h: variable.Variable) -> None:
        """Sets the cell state ``c`` and output ``h`` (Variables ``(B, out_size)``)."""
        for name, value in (('c', c), ('h', h)):
            if not isinstance(value, variable.Variable):
                raise TypeError('StatefulZoneoutLSTM.set_state: %s must be a Variable, got %s'
                                % (name, type(value).__name__))
            _state.to_link_device(self, value)
        self.c = c
        self.h = h

    def reset_state(self) -> None:
        """Forgets the state (``c`` and ``h`` become None)."""
        self.c = self.h = None

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """One step on ``x`` ``(B, in_size)``; returns the new output ``h``."""
        lstm_in = self.upward(x)
        zeros = (x.shape[0], self.state_size)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        else:
            self.h = variable.Variable(_state.zeros(self, zeros, x.dtype))
        if self.c is None:
            self.c = variable.Variable(_state.zeros(self, zeros, x.dtype))
        a, i, f, o = peephole._split_gates(lstm_in, self.state_size)
        c_tmp = tanh.tanh(a) * sigmoid.sigmoid(i) + sigmoid.sigmoid(f) * self.c
        self.c = zoneout.zoneout(self.c, c_tmp, self.c_ratio)
        self.h = zoneout.zoneout(self.h, sigmoid.sigmoid(o) * tanh.tanh(c_tmp), self.h_ratio)
        return self.h
