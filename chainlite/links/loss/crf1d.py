"""The linear-chain CRF layer: a transition cost matrix and its loss and decoder."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence


from chainlite import link
from chainlite import variable
from chainlite.functions.array import transpose_sequence
from chainlite.functions.loss import crf1d
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


def _by_length(xs: Any) -> list:
    # The indices of the sequences from longest to shortest (stable among equal lengths).
    return sorted(range(len(xs)), key=lambda i: -len(xs[i]))


class CRF1d(link.Link):
    """Linear-chain conditional random field (:func:`~chainlite.functions.crf1d`).

    Args:
        n_label (int): The number of labels.
        initial_cost: The initializer of the ``(n_label, n_label)`` transition costs
            (None: zeros).

    Attributes:
        cost: The transition cost Parameter.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> crf = L.CRF1d(2)
        >>> xs = [np.array([[1.0, 0.0]], np.float32), np.array([[0.0, 2.0]], np.float32)]
        >>> ys = [np.array([0]), np.array([1])]
        >>> round(float(crf(xs, ys).array), 4)
        0.4402
        >>> score, path = crf.argmax(xs)
        >>> [p.tolist() for p in path]
        [[0], [1]]
    """

    def __init__(self, n_label: int, initial_cost: InitializerSpec = None) -> None:
        super().__init__()
        init = _param_args.initializer(self, 'initial_cost',
                                       0 if initial_cost is None else initial_cost)
        with self.init_scope():
            self.cost = variable.Parameter(init, (n_label, n_label))

    def forward(self, xs: Sequence[VariableOrArray], ys: Sequence[VariableOrArray],
                reduce: str = 'mean', transpose: bool = False) -> variable.Variable:
        """The negative log-likelihood of the label sequences ``ys`` given the scores ``xs``.

        Args:
            xs: Time-major score arrays ``(B_i, n_label)`` (see
                :func:`~chainlite.functions.crf1d`), or with ``transpose`` a list of
                batch-major sequences ``(length_b, n_label)`` in any order of length.
            ys: The labels, laid out like ``xs``.
            reduce (str): ``'mean'`` or ``'no'``.
            transpose (bool): Whether ``xs`` and ``ys`` are batch-major (they are then
                sorted by decreasing length and transposed; with ``reduce='no'`` the losses
                are in the sorted order, as in Chainer).

        Returns:
            The loss Variable.
        """
        if transpose:
            order = _by_length(xs)
            xs = transpose_sequence.transpose_sequence([xs[i] for i in order])
            ys = transpose_sequence.transpose_sequence([ys[i] for i in order])
        return crf1d.crf1d(self.cost, xs, ys, reduce)

    def argmax(self, xs: Sequence[VariableOrArray], transpose: bool = False) -> tuple:
        """The best label sequences (see :func:`~chainlite.functions.argmax_crf1d`).

        Args:
            xs: The scores, laid out as in :meth:`forward`.
            transpose (bool): Whether ``xs`` is batch-major; then the returned path is a
                list of one label array per sequence, in the input order.

        Returns:
            A tuple ``(score, path)``.
        """
        if not transpose:
            return crf1d.argmax_crf1d(self.cost, xs)
        order = _by_length(xs)
        trans_x = transpose_sequence.transpose_sequence([xs[i] for i in order])
        score, path = crf1d.argmax_crf1d(self.cost, trans_x)
        path = [p.array for p in transpose_sequence.transpose_sequence(path)]
        restored = [None] * len(order)
        for pos, i in enumerate(order):
            restored[i] = path[pos]
        return score, restored
