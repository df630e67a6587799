"""Fully-connected LSTM layers: :class:`LSTM` keeps its state, :class:`StatelessLSTM` does not."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import link
from chainlite import link_hook
from chainlite import variable
from chainlite.functions.array import concat
from chainlite.functions.array import split_axis
from chainlite.functions.rnn import lstm
from chainlite.links.connection import _param_args
from chainlite.links.connection import linear
from chainlite.links.rnn import _state

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import InitializerSpec, VariableOrArray


class LSTMBase(link.Chain):
    """The parameters shared by :class:`LSTM` and :class:`StatelessLSTM`.

    ``upward`` maps the input and ``lateral`` (no bias) the previous output to the ``4 *
    out_size`` gate inputs of :func:`~chainlite.functions.lstm`, interleaved unit by unit
    (column ``4 * j + k`` is gate ``k`` of unit ``j``, gates in the order a, i, f, o).
    Each weight is initialized one gate block of ``out_size`` rows at a time, in Chainer's
    order, so that a seeded ``numpy.random`` gives Chainer's initial values.

    Args:
        in_size: The input size, or None to infer it at the first forward. If ``out_size`` is
            None, this is the output size and the input size is inferred.
        out_size: The output size (the number of units).
        lateral_init: The initializer of each gate block of ``lateral.W`` (None: LeCunNormal).
        upward_init: The initializer of each gate block of ``upward.W`` (None: LeCunNormal).
        bias_init: The initializer of the a, i and o gate biases (None: 0).
        forget_bias_init: The initializer of the forget gate biases (None: 1).

    Attributes:
        upward: The :class:`~chainlite.links.Linear` layer of the input.
        lateral: The :class:`~chainlite.links.Linear` layer (no bias) of the previous output.
        state_size: The output size.

    Example:
        >>> import chainlite.links as L
        >>> layer = L.StatelessLSTM(3, 2)
        >>> layer.upward.W.shape, layer.lateral.W.shape, layer.upward.b.array
        ((8, 3), (8, 2), array([0., 0., 1., 0., 0., 0., 1., 0.], dtype=float32))
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 lateral_init: InitializerSpec = None, upward_init: InitializerSpec = None,
                 bias_init: InitializerSpec = None,
                 forget_bias_init: InitializerSpec = None) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        if out_size is None:
            raise TypeError('%s: out_size must be given' % type(self).__name__)
        _param_args.check_size(self, 'in_size', in_size)
        _param_args.check_size(self, 'out_size', out_size, optional=False)
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        # Resolved now, so that a bad argument fails here rather than at a lazy first call.
        self._gate_inits = [_param_args.initializer(self, argname, getattr(self, argname))
                            for argname in ('lateral_init', 'upward_init', 'bias_init',
                                            'forget_bias_init')]
        with self.init_scope():
            # Zeros for now: _initialize_params fills the gate blocks once in_size is known.
            self.upward = linear.Linear(in_size, 4 * out_size, initialW=0)
            self.lateral = linear.Linear(out_size, 4 * out_size, initialW=0, nobias=True)
        if in_size is not None:
            self._initialize_params()

    def _initialize_params(self) -> None:
        lateral_init, upward_init, bias_init, forget_bias_init = self._gate_inits
        n = self.state_size
        lateral_w, upward_w = self.lateral.W.array, self.upward.W.array
        assert lateral_w is not None and upward_w is not None  # both sizes are known here
        for i in range(0, 4 * n, n):
            lateral_init(lateral_w[i:i + n])
            upward_init(upward_w[i:i + n])
        gates = self.upward.b.array.reshape(n, 4)
        for k, init in enumerate((bias_init, bias_init, forget_bias_init, bias_init)):
            init(gates[:, k])

    def _lazy_init(self, x: Any) -> None:
        width = math.prod(x.shape[1:])
        W = self.upward.W.array
        if W is None:
            self.upward._initialize_params(width)
            self._initialize_params()
        elif width != W.shape[1]:
            raise ValueError('%s: the input has %d features per example (shape %s) but the '
                             'link was built for in_size=%d'
                             % (type(self).__name__, width, tuple(x.shape), W.shape[1]))

    def _zero_state(self, x: Any) -> variable.Variable:
        return variable.Variable(_state.zeros(self, (x.shape[0], self.state_size), x.dtype))


class StatelessLSTM(LSTMBase):
    """A fully-connected LSTM layer that takes and returns its state.

    Computes ``F.lstm(c, upward(x) + lateral(h))``; the caller keeps ``c`` and ``h``. See
    :class:`LSTMBase` for the arguments and the parameter layout.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.StatelessLSTM(4)  # in_size inferred at the first call
        >>> x = np.ones((3, 5), np.float32)
        >>> c, h = layer(None, None, x)
        >>> c, h = layer(c, h, x)
        >>> c.shape, h.shape, layer.upward.W.shape
        ((3, 4), (3, 4), (16, 5))
    """

    def forward(self, c: VariableOrArray, h: VariableOrArray, x: VariableOrArray) -> tuple:
        """Runs one step.

        Args:
            c: The cell state ``(B, out_size)``, or None for zeros.
            h: The previous output ``(B', out_size)``, or None for none.
            x: The input ``(B, in_size)`` (further axes are flattened).

        Returns:
            ``(c_new, h_new)``, the new cell state and output.
        """
        self._lazy_init(x)
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in = lstm_in + self.lateral(h)
        if c is None:
            c = self._zero_state(x)
        return lstm.lstm(c, lstm_in)


class LSTM(LSTMBase):
    """A fully-connected LSTM layer that keeps its cell state ``c`` and output ``h``.

    Each call computes ``c, h = F.lstm(c, upward(x) + lateral(h))`` and returns ``h``. The
    state starts as None (zeros) and its batch size is that of the first input. A later input
    may have a smaller batch (sequences sorted by decreasing length): then only the first
    ``len(x)`` rows of ``c`` and ``h`` are updated and the others are carried over. See
    :class:`LSTMBase` for the arguments and the parameter layout.

    Attributes:
        c: The cell state Variable, or None.
        h: The output of the previous step, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.LSTM(5, 4)
        >>> layer(np.ones((3, 5), np.float32)).shape
        (3, 4)
        >>> layer(np.ones((2, 5), np.float32)).shape, layer.h.shape
        ((2, 4), (3, 4))
        >>> layer.reset_state()
        >>> layer.c is None and layer.h is None
        True
    """

    # The state: None until the first step (or set_state).
    c: Optional[variable.Variable]
    h: Optional[variable.Variable]

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 lateral_init: InitializerSpec = None, upward_init: InitializerSpec = None,
                 bias_init: InitializerSpec = None,
                 forget_bias_init: InitializerSpec = None) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init,
                         forget_bias_init)
        self.reset_state()

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits the parameters and the state (``c``, ``h``), so that ``to_device`` moves both.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        _state.visit(visitor, self.c, self.h)

    def set_state(self, c: variable.Variable, h: variable.Variable) -> None:
        """Sets the cell state and the previous output.

        Args:
            c: The new cell state, a Variable ``(B, out_size)``.
            h: The new previous output, a Variable ``(B, out_size)``.
        """
        for name, value in (('c', c), ('h', h)):
            if not isinstance(value, variable.Variable):
                raise TypeError('LSTM.set_state: %s must be a Variable, got %s'
                                % (name, type(value).__name__))
            _state.to_link_device(self, value)
        self.c = c
        self.h = h

    def reset_state(self) -> None:
        """Forgets the state: ``c`` and ``h`` become None."""
        self.c = self.h = None

    def _fused(self, x: Any, h: variable.Variable) -> bool:
        # Both products and the bias in one node (lstm.gate_inputs) when that computes what
        # the two child links would: same-dtype 2-D arrays, plain Linear children, no link
        # hooks to call, and a previous output for the whole batch.
        if (x.ndim != 2 or h.shape[0] != x.shape[0] or link_hook._hooks_active
                or type(self.upward) is not linear.Linear
                or type(self.lateral) is not linear.Linear):
            return False
        dtype = self.upward.W.dtype
        return (dtype != numpy.float16 and x.dtype == h.dtype == dtype
                and self.lateral.W.dtype == self.upward.b.dtype == dtype)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Runs one step and updates the state.

        Args:
            x: The input ``(B, in_size)`` (further axes are flattened); ``B`` may not exceed
                the batch size of the state.

        Returns:
            The output ``h`` of the updated units, ``(B, out_size)``.
        """
        self._lazy_init(x)
        batch = x.shape[0]
        h_rest = None
        h = self.h
        if h is not None and self._fused(x, h):
            lstm_in = lstm.gate_inputs(x, h, self.upward.W, self.lateral.W, self.upward.b)
        else:
            lstm_in = self.upward(x)
            if self.h is not None:
                h_size = self.h.shape[0]
                if batch == 0:
                    h_rest = self.h
                elif h_size < batch:
                    raise TypeError('LSTM: the batch size of x (%d) must not exceed that of '
                                    'the state h (%d)' % (batch, h_size))
                elif h_size > batch:
                    h_update, h_rest = split_axis.split_axis(self.h, [batch], axis=0)
                    lstm_in = lstm_in + self.lateral(h_update)
                else:
                    lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = self._zero_state(x)
        self.c, y = lstm.lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat.concat([y, h_rest], axis=0)
        return y
