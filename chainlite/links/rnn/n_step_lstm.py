"""Stacked uni- and bidirectional LSTM links over lists of sequences."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from chainlite.functions.rnn import n_step_lstm
from chainlite.links.rnn import n_step_rnn

if TYPE_CHECKING:
    from chainlite import variable
    from chainlite.types import VariableOrArray


class NStepLSTMBase(n_step_rnn.NStepRNNBase):
    """The base of :class:`NStepLSTM` and :class:`NStepBiLSTM`: eight weights per layer.

    ``w0 .. w3`` act on the input and ``w4 .. w7`` on the hidden state, for the input gate,
    the forget gate, the cell input and the output gate (see
    :func:`~chainlite.functions.n_step_lstm`); ``b0 .. b7`` likewise. The arguments are
    those of :class:`~chainlite.links.rnn.n_step_rnn.NStepRNNBase`.
    """

    n_weights = 8

    @property
    def n_cells(self) -> int:
        """The number of state arrays: 2 (``h`` and ``c``)."""
        return 2

    # Chainer's API: an LSTM takes the cell states too (so the override adds cx).
    def forward(  # type: ignore[override]
            self, hx: Optional[VariableOrArray], cx: Optional[VariableOrArray],
            xs: Sequence[VariableOrArray]
    ) -> tuple[variable.Variable, variable.Variable, list[variable.Variable]]:
        """Runs the stacked LSTM over a list of sequences.

        Args:
            hx: The initial hidden states ``(direction * n_layers, B, out_size)`` (row
                ``layer * direction + d``), or None for zeros.
            cx: The initial cell states, shaped as ``hx``, or None for zeros.
            xs: A list of ``B`` sequences: ``xs[i]`` is ``(L_i, in_size)``, in any order of
                length.

        Returns:
            ``(hy, cy, ys)``: the final hidden and cell states, shaped as ``hx``, and a list
            of the outputs of the last layer for each sequence,
            ``(L_i, direction * out_size)``.
        """
        (hy, cy), ys = self._call([hx, cx], xs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked unidirectional LSTM over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_lstm` on sequences given in any order of
    length; see :class:`NStepLSTMBase` for the parameters.

    Args:
        n_layers: The number of layers.
        in_size: The size of the input vectors.
        out_size: The size of the hidden states and outputs.
        dropout: The dropout ratio between layers, in ``[0, 1)`` (training mode only).
        initialW: The initializer of the weights (None: LeCunNormal).
        initial_bias: The initializer of the biases (None: 0).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> lstm = L.NStepLSTM(2, 3, 4, 0.0)
        >>> xs = [np.ones((2, 3), np.float32), np.ones((5, 3), np.float32)]
        >>> hy, cy, ys = lstm(None, None, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((2, 2, 4), (2, 2, 4), [(2, 4), (5, 4)])
    """

    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_lstm`."""
        return n_step_lstm.n_step_lstm(*args)


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bidirectional LSTM over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_bilstm`: children ``2 * layer`` and
    ``2 * layer + 1`` run forward and backward in time, and outputs concatenate the two
    directions (``2 * out_size``). The arguments are those of :class:`NStepLSTM`.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> lstm = L.NStepBiLSTM(1, 3, 4, 0.0)
        >>> hy, cy, ys = lstm(None, None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_bilstm`."""
        return n_step_lstm.n_step_bilstm(*args)
