"""Stacked uni- and bidirectional Elman RNNs (tanh or ReLU) over sequences."""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Sequence

from chainlite import function
from chainlite import variable
from chainlite.backends import cuda
from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.array import separate
from chainlite.functions.array import split_axis
from chainlite.functions.array import stack
from chainlite.functions.math import matmul
from chainlite.functions.noise import dropout as dropout_mod
from chainlite.functions.rnn import _n_step
from chainlite.utils import argument

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


# -- Chainer's internals of the n-step RNNs ----------------------------------------------------

def _extract_apply_in_data(inputs: Sequence[Any]) -> tuple[bool, tuple[Any, ...]]:
    # The arrays of the inputs (Variables or arrays), and whether one is a ChainerX array:
    # never here (no ChainerX).
    if not inputs:
        return False, ()
    return False, tuple(x.array if isinstance(x, variable.Variable) else x for x in inputs)


def _combine_inputs(hx, ws, bs, xs, num_layers, directions):
    # One flat list: hx, the xs, then per layer and direction its 2 weights and 2 biases.
    combined = [hx, *xs]
    for k in range(num_layers * directions):
        combined += list(ws[k][:2]) + list(bs[k][:2])
    return combined


def _seperate_inputs(combined, num_layers, seq_length, directions):
    # The inverse of _combine_inputs: (hx, ws, bs, xs). (Chainer's spelling.)
    return _split_combined(combined, 1, 2, num_layers, seq_length, directions)


def _split_combined(combined, n_states, n_params, num_layers, seq_length, directions):
    # The states, then the xs, then per layer and direction n_params weights and biases.
    states = list(combined[:n_states])
    xs = combined[n_states:n_states + seq_length]
    ws, bs = [], []
    index = n_states + seq_length
    for _ in range(num_layers * directions):
        ws.append(combined[index:index + n_params])
        bs.append(combined[index + n_params:index + 2 * n_params])
        index += 2 * n_params
    return (*states, ws, bs, xs)


def _dropout_sequence(xs, dropout_ratio):
    # Dropout applied to each step of a sequence.
    return [dropout_mod.dropout(x, ratio=dropout_ratio) for x in xs]


def _one_directional_loop(f, xs, h, c, w, b):
    # Runs the cell f(x, h, c, w, b) -> (h, c) over the steps xs (batch sizes non-increasing:
    # the rows of the states beyond a step's batch pass through). Returns the last h and c
    # and the list of each step's h.
    h_list = []
    for x in xs:
        batch = len(x)
        split = len(h) > batch
        if split:
            h, h_rest = split_axis.split_axis(h, [batch], axis=0)
            if c is not None:
                c, c_rest = split_axis.split_axis(c, [batch], axis=0)
        h, c = f(x, h, c, w, b)
        h_list.append(h)
        if split:
            h = concat.concat([h, h_rest], axis=0)
            if c is not None:
                c = concat.concat([c, c_rest], axis=0)
    return h, c, h_list


def n_step_rnn_impl(f: Any, n_layers: Any, dropout_ratio: Any, hx: Any, cx: Any, ws: Any, bs: Any,
                    xs: Any, use_bi_direction: Any) -> Any:
    """Runs a stacked (optionally bidirectional) recurrence with the cell function ``f``.

    Chainer's generic loop behind the n-step RNNs: ``f(x, h, c, w, b)`` computes one step
    of one layer and direction from its weights ``w`` and biases ``b`` (``c`` is None for
    cells without a cell state) and returns ``(h, c)``. Layers after the first see their
    input through dropout with ``dropout_ratio``; a bidirectional layer concatenates the
    forward and backward outputs.

    Args:
        f: The cell function.
        n_layers: The number of layers.
        dropout_ratio: The dropout ratio between layers.
        hx: The initial hidden states ``(n_layers * directions, B, N)``.
        cx: The initial cell states of the same shape, or None.
        ws: The weights per layer and direction.
        bs: The biases per layer and direction.
        xs: The input sequence: a list of ``(B_t, I)`` with non-increasing ``B_t``.
        use_bi_direction: Whether the layers are bidirectional.

    Returns:
        ``(hy, cy, ys)``: the last hidden (and cell, or None) states stacked like ``hx``,
        and the tuple of the last layer's outputs per step.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> def f(x, h, c, w, b):
        ...     return F.tanh(F.linear(x, w[0], b[0]) + F.linear(h, w[1], b[1])), None
        >>> w = [np.eye(2), np.zeros((2, 2))]
        >>> b = [np.zeros(2), np.zeros(2)]
        >>> hy, cy, ys = n_step_rnn_impl(f, 1, 0.0, np.zeros((1, 1, 2)), None, [w], [b],
        ...                              [np.ones((1, 2))], False)
        >>> hy.shape, cy, len(ys)
        ((1, 1, 2), None, 1)
    """
    directions = 2 if use_bi_direction else 1
    hx = separate.separate(hx)
    use_cell = cx is not None
    cx = separate.separate(cx) if use_cell else [None] * len(hx)
    xs_next = list(xs)
    hy, cy = [], []
    for layer in range(n_layers):
        outputs = []
        for d in range(directions):
            k = directions * layer + d
            xs = xs_next if layer == 0 else _dropout_sequence(xs_next, dropout_ratio)
            if d == 1:
                xs = list(reversed(xs))
            h, c, hs = _one_directional_loop(f, xs, hx[k], cx[k], ws[k], bs[k])
            if d == 1:
                hs.reverse()
            hy.append(h)
            cy.append(c)
            outputs.append(hs)
        if directions == 2:
            xs_next = [concat.concat([hf, hb], axis=1) for hf, hb in zip(*outputs)]
        else:
            xs_next = outputs[0]
    return stack.stack(hy), stack.stack(cy) if use_cell else None, tuple(xs_next)


def n_step_rnn_base(n_layers: Any, dropout_ratio: Any, hx: Any, ws: Any, bs: Any, xs: Any,
                    activation: Any, use_bi_direction: Any, **kwargs: Any) -> Any:
    """The stacked Elman RNN behind :func:`n_step_rnn` and :func:`n_step_birnn` (Chainer's).

    Args:
        n_layers: The number of layers.
        dropout_ratio: The dropout ratio between layers.
        hx: The initial hidden states, or None.
        ws: Two weights per layer and direction.
        bs: Two biases per layer and direction.
        xs: The input sequence.
        activation: ``'tanh'`` or ``'relu'``.
        use_bi_direction: Whether the layers are bidirectional.
        **kwargs: ``train`` and ``use_cudnn`` are errors, as in Chainer 2 and later.

    Returns:
        ``(hy, ys)``, as :func:`n_step_rnn`.

    Raises:
        ValueError: For an unknown activation or an input size that does not match the
            weights.
    """
    if kwargs:
        argument.check_unexpected_kwargs(
            kwargs, train='train argument is not supported anymore. Use chainer.using_config',
            use_cudnn='use_cudnn argument is not supported anymore. Use chainer.using_config')
        argument.assert_kwargs_empty(kwargs)
    name = 'n_step_birnn' if use_bi_direction else 'n_step_rnn'
    if activation not in ('tanh', 'relu'):
        raise ValueError('%s: invalid activation "%s"; select from [tanh, relu]'
                         % (name, activation))
    if xs[0].shape[1] != ws[0][0].shape[1]:
        raise ValueError('%s: inconsistent input size in input values and weight parameters: '
                         '%d != %d' % (name, xs[0].shape[1], ws[0][0].shape[1]))
    return _n_step_rnn(name, n_layers, dropout_ratio, hx, ws, bs, xs, activation,
                       2 if use_bi_direction else 1)


class CudnnRNNWeightConcat(function.Function):
    """Chainer's packing of RNN weights into cuDNN's single weight array.

    It needs cuDNN: constructing it raises RuntimeError (without CUDA, as in Chainer without
    a GPU; with CUDA too, as chainlite does not call cuDNN's RNN).

    Args:
        n_layers: The number of layers.
        states: cuDNN's dropout states.
        rnn_dir: ``'uni'`` or ``'bi'``.
        rnn_mode: ``'rnn_relu'``, ``'rnn_tanh'``, ``'gru'`` or ``'lstm'``.
    """

    def __init__(self, n_layers: int, states: Any, rnn_dir: str, rnn_mode: str) -> None:
        _check_cudnn_rnn(rnn_dir, rnn_mode)


def cudnn_rnn_weight_concat(n_layers: Any, states: Any, use_bi_direction: Any, rnn_mode: Any,
                            ws: Any, bs: Any) -> Any:
    """Packs the weights and biases into cuDNN's weight array; needs cuDNN (RuntimeError here).

    Args:
        n_layers: The number of layers.
        states: cuDNN's dropout states.
        use_bi_direction: Whether the RNN is bidirectional.
        rnn_mode: ``'rnn_relu'``, ``'rnn_tanh'``, ``'gru'`` or ``'lstm'``.
        ws: The weights per layer and direction.
        bs: The biases per layer and direction.

    Returns:
        The packed weights, on a GPU.
    """
    rnn_dir = 'bi' if use_bi_direction else 'uni'
    inputs = [*itertools.chain.from_iterable(ws), *itertools.chain.from_iterable(bs)]
    return CudnnRNNWeightConcat(n_layers, states, rnn_dir, rnn_mode)(*inputs)


_RNN_DIRS = ('uni', 'bi')
_RNN_MODES = ('rnn_relu', 'rnn_tanh', 'gru', 'lstm')


def _check_cudnn_rnn(rnn_dir, rnn_mode):
    # cuDNN's RNN needs CUDA; the names are checked first for a clearer message. With CUDA,
    # chainlite still runs its recurrences through CuPy's array operations, not cuDNN's
    # packed RNN: these nodes say so rather than fail later.
    if rnn_dir not in _RNN_DIRS:
        raise ValueError('Invalid rnn_dir: "%s". Please select from [%s]'
                         % (rnn_dir, ','.join(_RNN_DIRS)))
    if rnn_mode not in _RNN_MODES:
        raise ValueError('Invalid rnn_mode: "%s". Please select from [%s]'
                         % (rnn_mode, ','.join(_RNN_MODES)))
    cuda.check_cuda_available()
    raise RuntimeError('cuDNN\'s packed RNN is not used by chainlite: n_step_rnn, '
                       'n_step_gru, n_step_lstm and their bidirectional forms run on GPU '
                       'arrays through CuPy')


class BaseNStepRNN(function.Function):
    """Chainer's cuDNN n-step RNN, on cuDNN's packed weights.

    It runs on cuDNN only: constructing it raises RuntimeError (without CUDA, as in Chainer
    without a GPU; with CUDA too, as chainlite does not call cuDNN's RNN).
    :func:`n_step_rnn` and its siblings run the same recurrences on NumPy or CuPy arrays.

    Args:
        n_layers: The number of layers.
        states: cuDNN's dropout states.
        lengths: The batch size of each time step.
        rnn_dir: ``'uni'`` or ``'bi'``.
        rnn_mode: ``'rnn_relu'``, ``'rnn_tanh'``, ``'gru'`` or ``'lstm'``.
        **kwargs: ``train`` is an error, as in Chainer 2 and later.
    """

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int], rnn_dir: str,
                 rnn_mode: str, **kwargs: Any) -> None:
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs,
                train='train argument is not supported anymore. Use chainer.using_config')
            argument.assert_kwargs_empty(kwargs)
        _check_cudnn_rnn(rnn_dir, rnn_mode)


class NStepRNNTanh(BaseNStepRNN):
    """cuDNN's unidirectional tanh RNN (needs CUDA, see :class:`BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'uni', 'rnn_tanh', **kwargs)


class NStepRNNReLU(BaseNStepRNN):
    """cuDNN's unidirectional ReLU RNN (needs CUDA, see :class:`BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'uni', 'rnn_relu', **kwargs)


class NStepBiRNNTanh(BaseNStepRNN):
    """cuDNN's bidirectional tanh RNN (needs CUDA, see :class:`BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'bi', 'rnn_tanh', **kwargs)


class NStepBiRNNReLU(BaseNStepRNN):
    """cuDNN's bidirectional ReLU RNN (needs CUDA, see :class:`BaseNStepRNN`)."""

    def __init__(self, n_layers: int, states: Any, lengths: Sequence[int],
                 **kwargs: Any) -> None:
        super().__init__(n_layers, states, lengths, 'bi', 'rnn_relu', **kwargs)


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: VariableOrArray | None,
               ws: Sequence[Sequence[VariableOrArray]], bs: Sequence[Sequence[VariableOrArray]],
               xs: Sequence[VariableOrArray],
               activation: str = 'tanh') -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked unidirectional Elman RNN over a batch of sequences.

    For each layer, ``h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)`` with ``f`` tanh or ReLU.
    The input of layer ``k > 0`` is the output ``h_t`` of layer ``k - 1``, passed through
    dropout in training mode (``chainlite.config.train``), with masks drawn from
    ``numpy.random`` (``cupy.random`` for GPU inputs).

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
