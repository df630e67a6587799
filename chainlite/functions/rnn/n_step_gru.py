"""Stacked uni- and bidirectional GRUs over sequences of shrinking batch size."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.array import split_axis
from chainlite.functions.math import matmul
from chainlite.functions.rnn import _n_step

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _cell(w, b):
    # W_0..W_2 act on x, W_3..W_5 on h, for the reset gate, the update gate and the new state.
    Wx = concat.concat(w[:3], axis=0)
    Wh = concat.concat(w[3:], axis=0)
    bx = concat.concat(b[:3], axis=0)
    bh = concat.concat(b[3:], axis=0)
    units = w[0].shape[0]

    def step(p, h, c):
        q = matmul.matmul(h, Wh, transb=True) + bh
        p_rz, p_n = split_axis.split_axis(p, [2 * units], 1)
        q_rz, q_n = split_axis.split_axis(q, [2 * units], 1)
        r, z = split_axis.split_axis(_n_step.sigmoid(p_rz + q_rz), 2, 1)
        n = tanh.tanh(p_n + r * q_n)
        return n + z * (h - n), None  # (1 - z) n + z h

    return Wx, bx, step


def _n_step_gru(name, n_layers, dropout_ratio, hx, ws, bs, xs, directions):
    hy, _, ys = _n_step.run(name, _cell, 6, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                            directions)
    return hy, ys


def n_step_gru(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
               ws: Sequence[Sequence[VariableOrArray]], bs: Sequence[Sequence[VariableOrArray]],
               xs: Sequence[VariableOrArray]) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked unidirectional GRU over a batch of sequences.

    For each layer, with ``W_0 .. W_5`` and ``b_0 .. b_5`` its weights and biases:

        ``r_t = sigmoid(W_0 x_t + W_3 h_{t-1} + b_0 + b_3)``,
        ``z_t = sigmoid(W_1 x_t + W_4 h_{t-1} + b_1 + b_4)``,
        ``n_t = tanh(W_2 x_t + b_2 + r_t (W_5 h_{t-1} + b_5))``,
        ``h_t = (1 - z_t) n_t + z_t h_{t-1}``.

    The input of layer ``k > 0`` is the output ``h_t`` of layer ``k - 1``, passed through
    dropout in training mode (``chainlite.config.train``), with masks drawn from
    ``numpy.random``.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(S, B, N)``, or None for zeros.
        ws: ``S`` lists of six weight matrices: ``ws[k][j]`` is ``W_j`` of layer ``k``,
            ``(N, I)`` for ``ws[0][0:3]`` (``I`` the input size), ``(N, N)`` otherwise.
        bs: ``S`` lists of six biases of shape ``(N,)``.
        xs: A list of ``T`` inputs: ``xs[t]`` is ``(B_t, I)``, with
            ``B = B_0 >= B_1 >= ...`` (sequences sorted by decreasing length, then
            transposed, e.g. with ``F.transpose_sequence``).

    Returns:
        A tuple ``(hy, ys)``: the final hidden states ``(S, B, N)`` (for each sequence, those
        after its last step) and a tuple of the ``T`` outputs ``ys[t]`` of the last layer,
        ``(B_t, N)``. All share the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3), np.float32) for b in (3, 2, 1)]
        >>> ws = [[np.full((2, 3 if j < 3 else 2), 0.1, np.float32) for j in range(6)]]
        >>> bs = [[np.zeros(2, np.float32) for j in range(6)]]
        >>> hy, ys = F.n_step_gru(1, 0.0, None, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    return _n_step_gru('n_step_gru', n_layers, dropout_ratio, hx, ws, bs, xs, 1)


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
                 ws: Sequence[Sequence[VariableOrArray]], bs: Sequence[Sequence[VariableOrArray]],
                 xs: Sequence[VariableOrArray]) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bidirectional GRU over a batch of sequences.

    Each layer runs the recurrence of :func:`n_step_gru` forward in time (weights
    ``ws[2 * k]``) and backward in time (``ws[2 * k + 1]``); its output is the concatenation
    ``[h_forward_t; h_backward_t]``, the input of the next layer.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(2S, B, N)`` (row ``2 * k + d`` for layer ``k`` and
            direction ``d``, 0 forward, 1 backward), or None for zeros.
        ws: ``2S`` lists of six weight matrices: ``ws[2 * k + d][j]``; ``(N, I)`` for
            ``j < 3`` in layer 0, ``(N, 2N)`` for ``j < 3`` in later layers, ``(N, N)`` for
            ``j >= 3``.
        bs: ``2S`` lists of six biases of shape ``(N,)``.
        xs: A list of ``T`` inputs ``(B_t, I)`` with non-increasing ``B_t``.

    Returns:
        A tuple ``(hy, ys)``: the final states ``(2S, B, N)`` (for the backward direction,
        those after the first time step) and the ``T`` outputs ``(B_t, 2N)`` of the last
        layer.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3)) for b in (2, 1)]
        >>> ws = [[np.full((2, 3 if j < 3 else 2), 0.1) for j in range(6)] for d in (0, 1)]
        >>> bs = [[np.zeros(2) for j in range(6)] for d in (0, 1)]
        >>> hy, ys = F.n_step_bigru(1, 0.0, None, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 2), [(2, 4), (1, 4)])
    """
    return _n_step_gru('n_step_bigru', n_layers, dropout_ratio, hx, ws, bs, xs, 2)
