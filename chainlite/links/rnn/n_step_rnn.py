"""Stacked Elman RNN links over lists of sequences, and the base of all NStep* links."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy

from chainlite import backend
from chainlite import link
from chainlite import variable
from chainlite.functions.array import permutate
from chainlite.functions.array import transpose_sequence
from chainlite.functions.rnn import n_step_rnn
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


def argsort_list_descent(lst: Sequence[Any]) -> numpy.ndarray:
    """Returns the order that sorts sequences from the longest to the shortest.

    Args:
        lst: Sequences (arrays, Variables, lists).

    Returns:
        An int32 array of indices into ``lst``, longest first (ties keep their order).

    Example:
        >>> argsort_list_descent([[1], [1, 2, 3], [1, 2]])
        array([1, 2, 0], dtype=int32)
    """
    return numpy.argsort([-len(x) for x in lst], kind='stable').astype(numpy.int32)


def permutate_list(lst: Sequence[Any], indices: Sequence[int], inv: bool) -> list:
    """Reorders a list by ``indices``, or undoes that reordering.

    Args:
        lst: The items.
        indices: A permutation of ``range(len(lst))``.
        inv: False: item ``i`` of the result is ``lst[indices[i]]``; True: the inverse,
            ``lst[i]`` goes to position ``indices[i]``.

    Returns:
        A new list.

    Example:
        >>> permutate_list(['a', 'b', 'c'], [2, 0, 1], False)
        ['c', 'a', 'b']
        >>> permutate_list(['c', 'a', 'b'], [2, 0, 1], True)
        ['a', 'b', 'c']
    """
    ret: list = [None] * len(lst)
    if inv:
        for i, index in enumerate(indices):
            ret[index] = lst[i]
    else:
        for i, index in enumerate(indices):
            ret[i] = lst[index]
    return ret


class NStepRNNBase(link.ChainList):
    """The base of the stacked recurrent links (``NStepLSTM``, ``NStepGRU``, ``NStepRNNTanh``...).

    The link holds one child :class:`~chainlite.Link` per layer and direction (index
    ``layer * direction + d``), with the parameters ``w0 .. w{n-1}`` and ``b0 .. b{n-1}``
    that its function (:func:`~chainlite.functions.n_step_lstm` and the like) takes as
    ``ws[k]`` and ``bs[k]``: ``(out_size, in_size)`` for the first half of the weights in
    layer 0, ``(out_size, direction * out_size)`` for them in later layers, and
    ``(out_size, out_size)`` for the second half. Unlike the functions, the links take the
    sequences as they are, in any order of length: they sort, transpose and restore them.

    Subclasses set ``n_weights`` (the weights per layer and direction), ``use_bi_direction``,
    and ``rnn`` (the function).

    Args:
        n_layers: The number of layers.
        in_size: The size of the input vectors.
        out_size: The size of the hidden states and outputs (per direction).
        dropout: The dropout ratio on the inputs of the layers after the first, in ``[0, 1)``
            (applied in training mode only).
        initialW: The initializer of the weights (None: LeCunNormal).
        initial_bias: The initializer of the biases (None: 0).

    Attributes:
        n_layers: The number of layers.
        dropout: The dropout ratio.
        out_size: The size of the hidden states.
        direction: 2 if bidirectional, else 1.
        ws: For each layer and direction, the list of its weight Parameters.
        bs: For each layer and direction, the list of its bias Parameters.
    """

    n_weights = 0
    use_bi_direction = False

    def __init__(self, n_layers: int, in_size: int, out_size: int, dropout: float, *,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None) -> None:
        name = type(self).__name__
        for argname, value in (('n_layers', n_layers), ('in_size', in_size),
                               ('out_size', out_size)):
            if not isinstance(value, (int, numpy.integer)) or value < 1:
                raise ValueError('%s: %s must be a positive int, got %r'
                                 % (name, argname, value))
        if not 0 <= dropout < 1:
            raise ValueError('%s: dropout must be in [0, 1), got %r' % (name, dropout))
        W_init = _param_args.initializer(self, 'initialW', initialW)
        b_init = _param_args.initializer(self, 'initial_bias',
                                         0 if initial_bias is None else initial_bias)
        direction = 2 if self.use_bi_direction else 1
        half = self.n_weights // 2
        cells = []
        for layer in range(n_layers):
            layer_in = in_size if layer == 0 else out_size * direction
            for _ in range(direction):
                cell = link.Link()
                with cell.init_scope():
                    for j in range(self.n_weights):
                        w_in = layer_in if j < half else out_size
                        setattr(cell, 'w%d' % j, variable.Parameter(W_init, (out_size, w_in)))
                        setattr(cell, 'b%d' % j, variable.Parameter(b_init, (out_size,)))
                cells.append(cell)
        super().__init__(*cells)
        self.n_layers = n_layers
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    @property
    def ws(self) -> list:
        """``ws[k][j]``: the weight ``w{j}`` of layer and direction ``k``."""
        return [[getattr(cell, 'w%d' % j) for j in range(self.n_weights)] for cell in self]

    @property
    def bs(self) -> list:
        """``bs[k][j]``: the bias ``b{j}`` of layer and direction ``k``."""
        return [[getattr(cell, 'b%d' % j) for j in range(self.n_weights)] for cell in self]

    @property
    def n_cells(self) -> int:
        """The number of state arrays (1: ``h``; 2 for LSTMs: ``h`` and ``c``)."""
        return 1

    def rnn(self, *args: Any) -> tuple:
        """Calls the function of the link on ``(n_layers, dropout, *states, ws, bs, xs)``."""
        raise NotImplementedError('%s must implement rnn()' % type(self).__name__)

    def forward(self, hx: Optional[VariableOrArray], xs: Sequence[VariableOrArray]
                ) -> tuple[variable.Variable, list[variable.Variable]]:
        """Runs the stacked RNN over a list of sequences.

        Args:
            hx: The initial hidden states ``(direction * n_layers, B, out_size)`` (row
                ``layer * direction + d``), or None for zeros.
            xs: A list of ``B`` sequences: ``xs[i]`` is ``(L_i, in_size)``, in any order of
                length.

        Returns:
            ``(hy, ys)``: the final hidden states, shaped as ``hx``, and a list of the
            outputs of the last layer for each sequence, ``(L_i, direction * out_size)``.
        """
        (hy,), ys = self._call([hx], xs)
        return hy, ys

    def _call(self, states: list, xs: Any) -> tuple:
        # Sorts by decreasing length (stable), runs the function on the time-major batch,
        # then puts the states and sequences back in the caller's order.
        if not isinstance(xs, (list, tuple)):
            raise TypeError('%s: xs must be a list or tuple of sequences, got %s'
                            % (type(self).__name__, type(xs).__name__))
        order = numpy.argsort([-len(x) for x in xs], kind='stable').astype(numpy.int32)
        identity = bool((order == numpy.arange(len(xs))).all())
        if not identity:
            xs = [xs[i] for i in order]
            states = [None if s is None else
                      permutate.permutate(s, backend.get_device_from_array(s).send(order),
                                          axis=1)
                      for s in states]
        result = self.rnn(self.n_layers, self.dropout, *states, self.ws, self.bs,
                          transpose_sequence.transpose_sequence(xs))
        states = list(result[:-1])
        ys = list(transpose_sequence.transpose_sequence(result[-1]))
        if not identity:
            states = [permutate.permutate(s, backend.get_device_from_array(s).send(order),
                                          axis=1, inv=True) for s in states]
            restored: list[Any] = [None] * len(ys)
            for y, i in zip(ys, order):
                restored[i] = y
            ys = restored
        return states, ys


class NStepRNNTanh(NStepRNNBase):
    """Stacked unidirectional tanh RNN over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_rnn`. Each layer holds ``w0`` (input),
    ``w1`` (recurrent) and the biases ``b0``, ``b1``; see :class:`NStepRNNBase` for the
    arguments and ``forward`` for the call ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
        >>> xs = [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)]
        >>> hy, ys = rnn(None, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_rnn` with ``activation='tanh'``."""
        n_layers, dropout_ratio, hx, ws, bs, xs = args
        return n_step_rnn.n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')


class NStepRNNReLU(NStepRNNBase):
    """Stacked unidirectional ReLU RNN over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_rnn`; the parameters and the call are those
    of :class:`NStepRNNTanh`.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> rnn = L.NStepRNNReLU(1, 3, 4, 0.0)
        >>> hy, ys = rnn(None, [np.ones((2, 3), np.float32)])
        >>> bool((ys[0].array >= 0).all())
        True
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_rnn` with ``activation='relu'``."""
        n_layers, dropout_ratio, hx, ws, bs, xs = args
        return n_step_rnn.n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='relu')


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bidirectional tanh RNN over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_birnn`. Children ``2 * layer`` and
    ``2 * layer + 1`` run forward and backward in time; outputs concatenate the two
    directions (``2 * out_size``).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> rnn = L.NStepBiRNNTanh(1, 3, 4, 0.0)
        >>> hy, ys = rnn(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_birnn` with ``activation='tanh'``."""
        n_layers, dropout_ratio, hx, ws, bs, xs = args
        return n_step_rnn.n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bidirectional ReLU RNN over a list of sequences.

    It runs :func:`~chainlite.functions.n_step_birnn`; the parameters and the call are
    those of :class:`NStepBiRNNTanh`.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> rnn = L.NStepBiRNNReLU(1, 3, 4, 0.0)
        >>> hy, ys = rnn(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        """Calls :func:`~chainlite.functions.n_step_birnn` with ``activation='relu'``."""
        n_layers, dropout_ratio, hx, ws, bs, xs = args
        return n_step_rnn.n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='relu')
