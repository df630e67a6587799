"""Stacked uni- and bidirectional Elman RNNs (tanh or ReLU) over sequences."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from chainlite.functions.activation import tanh
from chainlite.functions.math import matmul
from chainlite.functions.rnn import _n_step

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _relu(x):
    # A constant 0/1 mask: differentiable to any order (the kink at 0 gets slope 0).
    return x * (x.array > 0).astype(x.dtype)


def _make_cell(activation):
    act = tanh.tanh if activation == 'tanh' else _relu

    def cell(w, b):
        # W_0 acts on x, W_1 on h; both biases are added once to the input projection.
        Wh = w[1]

        def step(p, h, c):
            return act(p + matmul.matmul(h, Wh, transb=True)), None

        return w[0], b[0] + b[1], step

    return cell


def _n_step_rnn(name, n_layers, dropout_ratio, hx, ws, bs, xs, activation, directions):
    if activation not in ('tanh', 'relu'):
        raise ValueError('%s: invalid activation "%s"; select from [tanh, relu]'
                         % (name, activation))
    hy, _, ys = _n_step.run(name, _make_cell(activation), 2, n_layers, dropout_ratio, hx,
                            None, ws, bs, xs, directions)
    return hy, ys


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
               ws: Sequence[Sequence[VariableOrArray]], bs: Sequence[Sequence[VariableOrArray]],
               xs: Sequence[VariableOrArray],
               activation: str = 'tanh') -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked unidirectional Elman RNN over a batch of sequences.

    For each layer, ``h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)`` with ``f`` tanh or ReLU.
    The input of layer ``k > 0`` is the output ``h_t`` of layer ``k - 1``, passed through
    dropout in training mode (``chainlite.config.train``), with masks drawn from
    ``numpy.random``.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(S, B, N)``, or None for zeros.
        ws: ``S`` lists of two weight matrices: ``ws[k][0]`` is ``(N, I)`` for layer 0
            (``I`` the input size) and ``(N, N)`` above; ``ws[k][1]`` is ``(N, N)``.
        bs: ``S`` lists of two biases of shape ``(N,)``.
        xs: A list of ``T`` inputs: ``xs[t]`` is ``(B_t, I)``, with
            ``B = B_0 >= B_1 >= ...`` (sequences sorted by decreasing length, then
            transposed, e.g. with ``F.transpose_sequence``).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        A tuple ``(hy, ys)``: the final hidden states ``(S, B, N)`` (for each sequence, those
        after its last step) and a tuple of the ``T`` outputs ``ys[t]`` of the last layer,
        ``(B_t, N)``. All share the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3), np.float32) for b in (2, 1)]
        >>> ws = [[np.full((2, 3), 0.5, np.float32), np.eye(2, dtype=np.float32)]]
        >>> bs = [[np.zeros(2, np.float32), np.zeros(2, np.float32)]]
        >>> hy, ys = F.n_step_rnn(1, 0.0, None, ws, bs, xs, activation='relu')
        >>> ys[0].array  # relu(1.5 + 0): one step from zero states
        array([[1.5, 1.5],
               [1.5, 1.5]], dtype=float32)
        >>> hy.array  # the second sequence stops after one step
        array([[[3. , 3. ],
                [1.5, 1.5]]], dtype=float32)
    """
    return _n_step_rnn('n_step_rnn', n_layers, dropout_ratio, hx, ws, bs, xs, activation, 1)


def n_step_birnn(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
                 ws: Sequence[Sequence[VariableOrArray]], bs: Sequence[Sequence[VariableOrArray]],
                 xs: Sequence[VariableOrArray],
                 activation: str = 'tanh') -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bidirectional Elman RNN over a batch of sequences.

    Each layer runs the recurrence of :func:`n_step_rnn` forward in time (weights
    ``ws[2 * k]``) and backward in time (``ws[2 * k + 1]``); its output is the concatenation
    ``[h_forward_t; h_backward_t]``, the input of the next layer.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(2S, B, N)`` (row ``2 * k + d`` for layer ``k`` and
            direction ``d``, 0 forward, 1 backward), or None for zeros.
        ws: ``2S`` lists of two weight matrices: ``ws[2 * k + d][0]`` is ``(N, I)`` in layer
            0 and ``(N, 2N)`` above; ``ws[2 * k + d][1]`` is ``(N, N)``.
        bs: ``2S`` lists of two biases of shape ``(N,)``.
        xs: A list of ``T`` inputs ``(B_t, I)`` with non-increasing ``B_t``.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        A tuple ``(hy, ys)``: the final states ``(2S, B, N)`` (for the backward direction,
        those after the first time step) and the ``T`` outputs ``(B_t, 2N)`` of the last
        layer.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3)) for b in (2, 1)]
        >>> ws = [[np.full((2, 3), 0.1), np.eye(2)] for d in (0, 1)]
        >>> bs = [[np.zeros(2), np.zeros(2)] for d in (0, 1)]
        >>> hy, ys = F.n_step_birnn(1, 0.0, None, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 2), [(2, 4), (1, 4)])
    """
    return _n_step_rnn('n_step_birnn', n_layers, dropout_ratio, hx, ws, bs, xs, activation, 2)
