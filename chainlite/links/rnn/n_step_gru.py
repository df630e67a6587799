"""Stacked uni- and bidirectional GRU links over lists of sequences."""
from __future__ import annotations

from typing import Any

from chainlite.functions.rnn import n_step_gru
from chainlite.links.rnn import n_step_rnn


class NStepGRUBase(n_step_rnn.NStepRNNBase):
    """The base of :class:`NStepGRU` and :class:`NStepBiGRU`: six weights per layer.

    ``w0 .. w2`` act on the input and ``w3 .. w5`` on the hidden state, for the reset gate,
    the update gate and the new state (see :func:`~chainlite.functions.n_step_gru`);
    ``b0 .. b5`` likewise. The arguments and the call ``hy, ys = link(hx, xs)`` are those of
    :class:`~chainlite.links.rnn.n_step_rnn.NStepRNNBase`.
    """

    n_weights = 6


class NStepGRU(NStepGRUBase):
    """Stacked unidirectional GRU over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_gru` on sequences given in any order of
    length; see :class:`NStepGRUBase` for the parameters.

    Args:
        n_layers: The number of layers.
        in_size: The size of the input vectors.
        out_size: The size of the hidden states and outputs.
        dropout: The dropout ratio between layers, in ``[0, 1)`` (training mode only).
        initialW: The initializer of the weights (None: LeCunNormal).
        initial_bias: The initializer of the biases (None: 0).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> gru = L.NStepGRU(2, 3, 4, 0.0)
        >>> hy, ys = gru(None, [np.ones((3, 3), np.float32), np.ones((1, 3), np.float32)])
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(3, 4), (1, 4)])
    """

    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_gru`."""
        return n_step_gru.n_step_gru(*args)


class NStepBiGRU(NStepGRUBase):
    """Stacked bidirectional GRU over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_bigru`: children ``2 * layer`` and
    ``2 * layer + 1`` run forward and backward in time, and outputs concatenate the two
    directions (``2 * out_size``). The arguments are those of :class:`NStepGRU`.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> gru = L.NStepBiGRU(1, 3, 4, 0.0)
        >>> hy, ys = gru(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_bigru`."""
        return n_step_gru.n_step_bigru(*args)
