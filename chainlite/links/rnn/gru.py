"""Gated recurrent units: :class:`StatelessGRU`, :class:`StatefulGRU` and its alias :class:`GRU`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import tanh
from chainlite.functions.math import linear_interpolate
from chainlite.links.connection import linear
from chainlite.links.rnn import _state

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import InitializerSpec, VariableOrArray


class GRUBase(link.Chain):
    """The six fully-connected layers shared by the GRU links.

    ``W_r``, ``W_z`` and ``W`` act on the input, ``U_r``, ``U_z`` and ``U`` on the hidden
    state; all have biases. With ``h`` the state and ``x`` the input, the new state is

        ``r = sigmoid(W_r x + U_r h)``, ``z = sigmoid(W_z x + U_z h)``,
        ``h_bar = tanh(W x + U (r * h))``, ``h_new = z * h_bar + (1 - z) * h``.

    Args:
        in_size: The input size, or None to infer it at the first forward.
        out_size: The size of the hidden state.
        init: The initializer of ``W_r``, ``W_z`` and ``W`` (None: LeCunNormal).
        inner_init: The initializer of ``U_r``, ``U_z`` and ``U`` (None: LeCunNormal).
        bias_init: The initializer of every bias (None: 0).

    Attributes:
        W_r, U_r, W_z, U_z, W, U: The :class:`~chainlite.links.Linear` layers.
    """

    def __init__(self, in_size: Optional[int], out_size: int, init: InitializerSpec = None,
                 inner_init: InitializerSpec = None, bias_init: InitializerSpec = None) -> None:
        super().__init__()
        with self.init_scope():
            self.W_r = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = linear.Linear(out_size, out_size, initialW=inner_init,
                                     initial_bias=bias_init)
            self.W_z = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = linear.Linear(out_size, out_size, initialW=inner_init,
                                     initial_bias=bias_init)
            self.W = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = linear.Linear(out_size, out_size, initialW=inner_init,
                                   initial_bias=bias_init)


class StatelessGRU(GRUBase):
    """A GRU layer that takes the previous hidden state and returns the new one.

    See :class:`GRUBase` for the equations, the arguments and the parameters.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.StatelessGRU(None, 4)
        >>> h = np.zeros((2, 4), np.float32)
        >>> h = layer(h, np.ones((2, 3), np.float32))
        >>> h.shape, layer.W.W.shape
        ((2, 4), (4, 3))
    """

    def forward(self, h: VariableOrArray, x: VariableOrArray) -> variable.Variable:
        """Runs one step.

        Args:
            h: The previous hidden state ``(B, out_size)``.
            x: The input ``(B, in_size)``.

        Returns:
            The new hidden state ``(B, out_size)``.
        """
        r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid.sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh.tanh(self.W(x) + self.U(r * h))
        return linear_interpolate.linear_interpolate(z, h_bar, h)


class StatefulGRU(GRUBase):
    """A GRU layer that keeps its hidden state ``h`` between calls.

    Each call computes the new state from the input and ``h`` (see :class:`GRUBase`), stores
    it in ``h`` and returns it. With no state (at first, or after :meth:`reset_state`) the
    terms in ``h`` are left out: ``h_new = sigmoid(W_z x) * tanh(W x)``.

    Args:
        in_size: The input size, or None to infer it at the first forward.
        out_size: The size of the hidden state.
        init: The initializer of ``W_r``, ``W_z`` and ``W`` (None: LeCunNormal).
        inner_init: The initializer of ``U_r``, ``U_z`` and ``U`` (None: LeCunNormal).
        bias_init: The initializer of every bias (0 by default).

    Attributes:
        h: The hidden state Variable, or None.
        state_size: The size of the hidden state.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.StatefulGRU(3, 4)
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)
        >>> layer.h.shape
        (2, 4)
    """

    # The state: None until the first step (or set_state).
    h: Optional[variable.Variable]

    def __init__(self, in_size: Optional[int], out_size: int, init: InitializerSpec = None,
                 inner_init: InitializerSpec = None, bias_init: InitializerSpec = 0) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.state_size = out_size
        self.reset_state()

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the parameters and the state (``h``), so that ``to_device`` moves both.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        _state.visit(visitor, self.h)

    def set_state(self, h: variable.Variable) -> None:
        """Sets the hidden state.

        Args:
            h: The new hidden state, a Variable ``(B, out_size)``.
        """
        if not isinstance(h, variable.Variable):
            raise TypeError('%s.set_state: h must be a Variable, got %s'
                            % (type(self).__name__, type(h).__name__))
        _state.to_link_device(self, h)
        self.h = h

    def reset_state(self) -> None:
        """Forgets the hidden state (``h`` becomes None)."""
        self.h = None

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Runs one step and updates ``h``.

        Args:
            x: The input ``(B, in_size)``.

        Returns:
            The new hidden state ``(B, out_size)``, also stored in ``h``.
        """
        h = self.h
        z = self.W_z(x)
        h_bar = self.W(x)
        if h is not None:
            r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
            z = z + self.U_z(h)
            h_bar = h_bar + self.U(r * h)
        z = sigmoid.sigmoid(z)
        h_bar = tanh.tanh(h_bar)
        if h is None:
            self.h = z * h_bar
        else:
            self.h = linear_interpolate.linear_interpolate(z, h_bar, h)
        return self.h


class GRU(StatefulGRU):
    """The stateful GRU under Chainer's name: :class:`StatefulGRU`, called with one input.

    Until Chainer v2 ``GRU`` was stateless and took ``(h, x)``; such a call raises a
    ValueError that points to :class:`StatelessGRU`.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.GRU(3, 4)
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def forward(self, *args: Any) -> variable.Variable:
        """Runs one step, as :meth:`StatefulGRU.forward` (``forward(x)``)."""
        if len(args) != 1:
            msg = 'GRU.forward takes one argument (x), got %d.' % len(args)
            if len(args) == 2:
                msg += (' Since Chainer v2, GRU is stateful; for a stateless GRU called with '
                        '(h, x), use StatelessGRU.')
            raise ValueError(msg)
        return super().forward(args[0])
