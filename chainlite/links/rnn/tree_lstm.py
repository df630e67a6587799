"""TreeLSTM layers: Child-Sum (any number of children) and N-ary (a fixed number)."""
from __future__ import annotations

from typing import Any

from chainlite import link
from chainlite.functions.activation import sigmoid
from chainlite.functions.activation import tanh
from chainlite.functions.array import concat
from chainlite.functions.array import split_axis
from chainlite.functions.rnn import tree_lstm
from chainlite.links.connection import linear
from chainlite.links.rnn import _state


def _input_or_zeros(owner: Any, cs: tuple, hs: tuple, x: Any) -> Any:
    # A leaf may be given no input: zeros of the batch size and dtype of a child state.
    if x is not None:
        return x
    base = next((v for v in cs + hs if v is not None), None)
    if base is None:
        raise ValueError('%s: all inputs (cs, hs, x) are None' % type(owner).__name__)
    return _state.zeros(owner, (base.shape[0], owner.in_size), base.dtype)


def _zeros_for_none(owner: Any, vs: tuple, x: Any) -> tuple:
    if all(v is not None for v in vs):
        return vs
    zero = _state.zeros(owner, (x.shape[0], owner.state_size), x.dtype)
    return tuple(zero if v is None else v for v in vs)


class ChildSumTreeLSTM(link.Chain):
    """Child-Sum TreeLSTM (Tai et al., 2015): merges any number of children, in any order.

    Called as ``layer(c_1, ..., c_N, h_1, ..., h_N, x)`` with the children's cell states
    and outputs and the node's input (None for zeros); returns ``(c, h)``. With ``N = 0``
    it is ``layer(x)``. The gates ``a, i, o`` see the sum of the children's outputs; each
    child has its own forget gate ``f_n = sigmoid(W_x_f x + W_h_f h_n)``. A child given as
    None counts as zeros.

    Args:
        in_size (int): The input size.
        out_size (int): The size of the cell state and output.

    Attributes:
        W_x: The :class:`~chainlite.links.Linear` layer of the input, to ``4 * out_size``
            (``a, i, o, f`` in blocks).
        W_h_aio: The layer (no bias) of the summed outputs, to ``3 * out_size``.
        W_h_f: The layer (no bias) of each child's output to its forget gate.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.ChildSumTreeLSTM(3, 2)
        >>> x = np.ones((1, 3), np.float32)
        >>> c1, h1 = layer(x)  # a leaf
        >>> c, h = layer(c1, c1, h1, h1, x)  # a node with two children
        >>> c.shape, h.shape
        ((1, 2), (1, 2))
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_x = linear.Linear(in_size, 4 * out_size)
            self.W_h_aio = linear.Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = linear.Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx: Any) -> tuple:
        """Returns ``(c, h)`` of the node from ``c_1..c_N, h_1..h_N, x``."""
        if len(cshsx) % 2 != 1:
            raise TypeError('ChildSumTreeLSTM: expected c_1..c_N, h_1..h_N and x (an odd '
                            'number of arguments), got %d' % len(cshsx))
        n = len(cshsx) // 2
        cs, hs, x = tuple(cshsx[:n]), tuple(cshsx[n:-1]), cshsx[-1]
        x = _input_or_zeros(self, cs, hs, x)
        W_x_in = self.W_x(x)
        W_x_aio_in, W_x_f_in = split_axis.split_axis(W_x_in, [3 * self.state_size], axis=1)
        if n == 0:
            a, i, o = split_axis.split_axis(W_x_aio_in, 3, axis=1)
            c = sigmoid.sigmoid(i) * tanh.tanh(a)
            return c, sigmoid.sigmoid(o) * tanh.tanh(c)
        hs = _zeros_for_none(self, hs, x)
        cs = _zeros_for_none(self, cs, x)
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = h_sum + h
        aio_in = self.W_h_aio(h_sum) + W_x_aio_in
        # Every child's forget gate at once: one matmul over the children stacked on axis 0.
        f_h = split_axis.split_axis(self.W_h_f(concat.concat(hs, axis=0)), n, axis=0)
        f_in = concat.concat(f_h, axis=1) + concat.concat([W_x_f_in] * n, axis=1)
        return tree_lstm.tree_lstm(*(cs + (concat.concat([aio_in, f_in], axis=1),)))


class NaryTreeLSTM(link.Chain):
    """N-ary TreeLSTM (Tai et al., 2015, as extended by Bowman et al., 2016).

    Called as ``layer(c_1, ..., c_N, h_1, ..., h_N, x)`` with exactly ``n_ary`` children
    (None for a missing one: zeros) and the node's input (None for zeros); returns
    ``(c, h)``. Each child position has its own weight ``W_h<n>`` to every gate, so the
    order of the children matters.

    Args:
        in_size (int): The input size.
        out_size (int): The size of the cell state and output.
        n_ary (int): The number of children.

    Attributes:
        W_x: The input layer, to ``(3 + n_ary) * out_size`` (``a, i, o, f_1..f_N``).
        W_h1, ..., W_hN: The layers (no bias) of each child's output.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.NaryTreeLSTM(3, 2, n_ary=2)
        >>> c, h = layer(None, None, None, None, np.ones((1, 3), np.float32))
        >>> c.shape, h.shape
        ((1, 2), (1, 2))
    """

    def __init__(self, in_size: int, out_size: int, n_ary: int = 2) -> None:
        if n_ary < 1:
            raise ValueError('NaryTreeLSTM: n_ary must be at least 1, got %r' % (n_ary,))
        super().__init__()
        with self.init_scope():
            self.W_x = linear.Linear(in_size, (3 + n_ary) * out_size)
            for i in range(1, n_ary + 1):
                setattr(self, 'W_h%d' % i,
                        linear.Linear(out_size, (3 + n_ary) * out_size, nobias=True))
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx: Any) -> tuple:
        """Returns ``(c, h)`` of the node from ``c_1..c_N, h_1..h_N, x``."""
        if len(cshsx) != 2 * self.n_ary + 1:
            raise TypeError('NaryTreeLSTM: expected %d arguments (c_1..c_%d, h_1..h_%d, x), '
                            'got %d' % (2 * self.n_ary + 1, self.n_ary, self.n_ary,
                                        len(cshsx)))
        cs = tuple(cshsx[:self.n_ary])
        hs = tuple(cshsx[self.n_ary:-1])
        x = _input_or_zeros(self, cs, hs, cshsx[-1])
        tree_lstm_in = self.W_x(x)
        for i, h in enumerate(hs, start=1):
            if h is not None:
                tree_lstm_in = tree_lstm_in + getattr(self, 'W_h%d' % i)(h)
        cs = _zeros_for_none(self, cs, x)
        return tree_lstm.tree_lstm(*(cs + (tree_lstm_in,)))
