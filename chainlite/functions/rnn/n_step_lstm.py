"""Stacked uni- and bidirectional LSTMs over sequences of shrinking batch size."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from chainlite.functions.array import reshape
from chainlite.functions.array import stack
from chainlite.functions.math import matmul
from chainlite.functions.rnn import _n_step
from chainlite.functions.rnn import lstm as lstm_module
from chainlite.functions.rnn import n_step_rnn
from chainlite.utils import argument

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _interleave(params):
    # Four (N, ...) parameters to one (4N, ...) in the unit-by-unit gate order of F.lstm.
    s = stack.stack(params, axis=1)
    return reshape.reshape(s, (s.shape[0] * 4,) + s.shape[2:])


def _cell(w, b):
    # W_0..W_3 act on x, W_4..W_7 on h, for the gates i, f, a, o (cuDNN's order); F.lstm
    # wants a, i, f, o.
    Wx = _interleave([w[2], w[0], w[1], w[3]])
    Wh = _interleave([w[6], w[4], w[5], w[7]])
    bx = _interleave([b[2], b[0], b[1], b[3]]) + _interleave([b[6], b[4], b[5], b[7]])

    def step(p, h, c):
        c, h = lstm_module.lstm(c, p + matmul.matmul(h, Wh, transb=True))
        return h, c

    return Wx, bx, step


def _lstm(x, h, c, w, b):
    """One LSTM step from the eight weights and biases of :func:`n_step_lstm`.

    Chainer's helper of the same name, which ChainerRL imports to step a stateless LSTM.

    Args:
        x: The input, ``(B, I)``.
        h: The hidden state, ``(B, N)``.
        c: The cell state, ``(B, N)``.
        w: Eight weights: ``w[0..3]`` ``(N, I)`` act on ``x``, ``w[4..7]`` ``(N, N)`` on
            ``h``, for the input, forget, cell-candidate and output gates.
        b: Eight biases ``(N,)``, in the order of ``w``.

    Returns:
        ``(h, c)``: the new hidden and cell states, Variables of shape ``(B, N)``.

    Example:
        >>> import numpy as np
        >>> w = [np.full((2, 3), 0.1, np.float32)] * 4 + [np.zeros((2, 2), np.float32)] * 4
        >>> b = [np.zeros(2, np.float32)] * 8
        >>> h, c = _lstm(np.ones((1, 3), np.float32), np.zeros((1, 2), np.float32),
        ...              np.zeros((1, 2), np.float32), w, b)
        >>> h.shape, c.shape
        ((1, 2), (1, 2))
    """
    Wx, bx, step = _cell(w, b)
    return step(matmul.matmul(x, Wx, transb=True) + bx, h, c)


def _n_step_lstm(name, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions):
    return _n_step.run(name, _cell, 8, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                       directions, use_cell=True)


# -- Chainer's internals of the n-step LSTMs ---------------------------------------------------

_extract_apply_in_data = n_step_rnn._extract_apply_in_data


def _combine_inputs(hx, cx, ws, bs, xs, num_layers, directions):
    # One flat list: hx, cx, the xs, then per layer and direction 8 weights and 8 biases.
    combined = [hx, cx, *xs]
    for k in range(num_layers * directions):
        combined += list(ws[k][:8]) + list(bs[k][:8])
    return combined


def _seperate_inputs(combined, num_layers, seq_length, directions):
    # The inverse of _combine_inputs: (hx, cx, ws, bs, xs). (Chainer's spelling.)
    return n_step_rnn._split_combined(combined, 2, 8, num_layers, seq_length, directions)


def _stack_weight(ws):
    # Four (N, ...) parameters to one (4N, ...), unit by unit (the gate layout of F.lstm).
    return _interleave(ws)


def n_step_lstm_base(n_layers: Any, dropout_ratio: Any, hx: Any, cx: Any, ws: Any, bs: Any, xs: Any,
                     use_bi_direction: Any, **kwargs: Any) -> Any:
    """The stacked LSTM behind :func:`n_step_lstm` and :func:`n_step_bilstm` (Chainer's).

    Args:
        n_layers: The number of layers.
        dropout_ratio: The dropout ratio between layers.
        hx: The initial hidden states, or None.
        cx: The initial cell states, or None.
        ws: Eight weights per layer and direction.
        bs: Eight biases per layer and direction.
        xs: The input sequence.
        use_bi_direction: Whether the layers are bidirectional.
        **kwargs: ``train`` and ``use_cudnn`` are errors, as in Chainer 2 and later.

    Returns:
        ``(hy, cy, ys)``, as :func:`n_step_lstm`.

    Raises:
        ValueError: For an input size that does not match the weights.
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, train='train argument is not supported anymore. Use chainer.using_config',
            use_cudnn='use_cudnn argument is not supported anymore. Use chainer.using_config')
        argument.assert_kwargs_empty(kwargs)
    name = 'n_step_bilstm' if use_bi_direction else 'n_step_lstm'
    if xs[0].shape[1] != ws[0][0].shape[1]:
        raise ValueError('%s: inconsistent input size in input values and weight parameters: '
                         '%d != %d' % (name, xs[0].shape[1], ws[0][0].shape[1]))
    return _n_step_lstm(name, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                        2 if use_bi_direction else 1)


class NStepLSTM(n_step_rnn.BaseNStepRNN):
    """cuDNN's unidirectional LSTM (needs CUDA, see :class:`~.n_step_rnn.BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int]) -> None:
        super().__init__(n_layers, states, lengths, 'uni', 'lstm')


class NStepBiLSTM(n_step_rnn.BaseNStepRNN):
    """cuDNN's bidirectional LSTM (needs CUDA, see :class:`~.n_step_rnn.BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int]) -> None:
        super().__init__(n_layers, states, lengths, 'bi', 'lstm')


def n_step_lstm(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
                cx: VariableOrArray | None, ws: Sequence[Sequence[VariableOrArray]],
                bs: Sequence[Sequence[VariableOrArray]],
                xs: Sequence[VariableOrArray]) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked unidirectional LSTM over a batch of sequences.

    For each layer, with ``W_0 .. W_7`` and ``b_0 .. b_7`` its weights and biases:

        ``i_t = sigmoid(W_0 x_t + W_4 h_{t-1} + b_0 + b_4)``,
        ``f_t = sigmoid(W_1 x_t + W_5 h_{t-1} + b_1 + b_5)``,
        ``a_t = tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6)``,
        ``o_t = sigmoid(W_3 x_t + W_7 h_{t-1} + b_3 + b_7)``,
        ``c_t = f_t c_{t-1} + i_t a_t``, ``h_t = o_t tanh(c_t)``.

    (This is the order Chainer computes, cuDNN's; Chainer's docstring swaps ``W_2`` and
    ``W_3``.) The input of layer ``k > 0`` is the output ``h_t`` of layer ``k - 1``, passed
    through dropout in training mode (``chainlite.config.train``), with masks drawn from
    ``numpy.random`` (``cupy.random`` for GPU inputs).

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(S, B, N)``, or None for zeros.
        cx: The initial cell states, ``(S, B, N)``, or None for zeros.
        ws: ``S`` lists of eight weight matrices: ``ws[k][j]`` is ``W_j`` of layer ``k``,
            ``(N, I)`` for ``ws[0][0:4]`` (``I`` the input size), ``(N, N)`` otherwise.
        bs: ``S`` lists of eight biases of shape ``(N,)``.
        xs: A list of ``T`` inputs: ``xs[t]`` is ``(B_t, I)``, with
            ``B = B_0 >= B_1 >= ...`` (sequences sorted by decreasing length, then
            transposed, e.g. with ``F.transpose_sequence``).

    Returns:
        A tuple ``(hy, cy, ys)``: the final hidden and cell states ``(S, B, N)`` (for each
        sequence, those after its last step) and a tuple of the ``T`` outputs ``ys[t]`` of
        the last layer, ``(B_t, N)``. All share the inputs' dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3), np.float32) for b in (3, 2, 1)]
        >>> ws = [[np.full((2, 3 if j < 4 else 2), 0.1, np.float32) for j in range(8)]]
        >>> bs = [[np.zeros(2, np.float32) for j in range(8)]]
        >>> hy, cy, ys = F.n_step_lstm(1, 0.0, None, None, ws, bs, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((1, 3, 2), (1, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    return _n_step_lstm('n_step_lstm', n_layers, dropout_ratio, hx, cx, ws, bs, xs, 1)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
                  cx: VariableOrArray | None, ws: Sequence[Sequence[VariableOrArray]],
                  bs: Sequence[Sequence[VariableOrArray]],
                  xs: Sequence[VariableOrArray]) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked bidirectional LSTM over a batch of sequences.

    Each layer runs the recurrence of :func:`n_step_lstm` forward in time (weights
    ``ws[2 * k]``) and backward in time (``ws[2 * k + 1]``); its output is the concatenation
    ``[h_forward_t; h_backward_t]``, the input of the next layer.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio in ``[0, 1)`` between layers.
        hx: The initial hidden states, ``(2S, B, N)`` (row ``2 * k + d`` for layer ``k`` and
            direction ``d``, 0 forward, 1 backward), or None for zeros.
        cx: The initial cell states, like ``hx``, or None for zeros.
        ws: ``2S`` lists of eight weight matrices: ``ws[2 * k + d][j]``; ``(N, I)`` for
            ``j < 4`` in layer 0, ``(N, 2N)`` for ``j < 4`` in later layers, ``(N, N)`` for
            ``j >= 4``.
        bs: ``2S`` lists of eight biases of shape ``(N,)``.
        xs: A list of ``T`` inputs ``(B_t, I)`` with non-increasing ``B_t``.

    Returns:
        A tuple ``(hy, cy, ys)``: the final states ``(2S, B, N)`` (for the backward direction,
        those after the first time step) and the ``T`` outputs ``(B_t, 2N)`` of the last
        layer.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.ones((b, 3)) for b in (2, 1)]
        >>> ws = [[np.full((2, 3 if j < 4 else 2), 0.1) for j in range(8)] for d in (0, 1)]
        >>> bs = [[np.zeros(2) for j in range(8)] for d in (0, 1)]
        >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, None, None, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 2), [(2, 4), (1, 4)])
    """
    return _n_step_lstm('n_step_bilstm', n_layers, dropout_ratio, hx, cx, ws, bs, xs, 2)
