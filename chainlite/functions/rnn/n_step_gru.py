"""Stacked uni- and bidirectional GRUs over sequences of shrinking batch size."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.array import split_axis
from chainlite.functions.math import matmul
from chainlite.functions.rnn import _n_step
from chainlite.functions.rnn import n_step_rnn
from chainlite.utils import argument

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


# -- Chainer's internals of the n-step GRUs ----------------------------------------------------

_extract_apply_in_data = n_step_rnn._extract_apply_in_data


def _combine_inputs(hx, ws, bs, xs, num_layers, directions):
    # One flat list: hx, the xs, then per layer and direction its 6 weights and 6 biases.
    combined = [hx, *xs]
    for k in range(num_layers * directions):
        combined += list(ws[k][:6]) + list(bs[k][:6])
    return combined


def _seperate_inputs(combined, num_layers, seq_length, directions):
    # The inverse of _combine_inputs: (hx, ws, bs, xs). (Chainer's spelling.)
    return n_step_rnn._split_combined(combined, 1, 6, num_layers, seq_length, directions)


def _gru(x, h, c, w, b):
    """One GRU step from the six weights and biases of :func:`n_step_gru` (Chainer's helper).

    Args:
        x: The input, ``(B, I)``.
        h: The hidden state, ``(B, N)``.
        c: Unused (GRUs have no cell state); Chainer's cell functions take it.
        w: Six weights: ``w[0..2]`` ``(N, I)`` act on ``x``, ``w[3..5]`` ``(N, N)`` on ``h``,
            for the reset gate, the update gate and the new state.
        b: Six biases ``(N,)``, in the order of ``w``.

    Returns:
        ``(h, None)``: the new hidden state.

    Example:
        >>> import numpy as np
        >>> w = [np.zeros((2, 3))] * 3 + [np.zeros((2, 2))] * 3
        >>> h, c = _gru(np.ones((1, 3)), np.ones((1, 2)), None, w, [np.zeros(2)] * 6)
        >>> h.array, c  # z = 1/2, new state tanh(0) = 0: h / 2
        (array([[0.5, 0.5]]), None)
    """
    Wx, bx, step = _cell(w, b)
    return step(matmul.matmul(x, Wx, transb=True) + bx, h, c)


def n_step_gru_base(n_layers: Any, dropout_ratio: Any, hx: Any, ws: Any, bs: Any, xs: Any,
                    use_bi_direction: Any, **kwargs: Any) -> Any:
    """The stacked GRU behind :func:`n_step_gru` and :func:`n_step_bigru` (Chainer's).

    Args:
        n_layers: The number of layers.
        dropout_ratio: The dropout ratio between layers.
        hx: The initial hidden states, or None.
        ws: Six weights per layer and direction.
        bs: Six biases per layer and direction.
        xs: The input sequence.
        use_bi_direction: Whether the layers are bidirectional.
        **kwargs: ``train`` and ``use_cudnn`` are errors, as in Chainer 2 and later.

    Returns:
        ``(hy, ys)``, as :func:`n_step_gru`.
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, train='train argument is not supported anymore. Use chainer.using_config',
            use_cudnn='use_cudnn argument is not supported anymore. Use chainer.using_config')
        argument.assert_kwargs_empty(kwargs)
    name = 'n_step_bigru' if use_bi_direction else 'n_step_gru'
    return _n_step_gru(name, n_layers, dropout_ratio, hx, ws, bs, xs,
                       2 if use_bi_direction else 1)


class NStepGRU(n_step_rnn.BaseNStepRNN):
    """cuDNN's unidirectional GRU (needs CUDA, see :class:`~.n_step_rnn.BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'uni', 'gru', **kwargs)


class NStepBiGRU(n_step_rnn.BaseNStepRNN):
    """cuDNN's bidirectional GRU (needs CUDA, see :class:`~.n_step_rnn.BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'bi', 'gru', **kwargs)


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
    ``numpy.random`` (``cupy.random`` for GPU inputs).

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
