"""Linear-chain conditional random field: negative log-likelihood and Viterbi decoding."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy

from chainlite import backend
from chainlite import variable
from chainlite.functions.array import concat as concat_mod
from chainlite.functions.array import select_item as select_item_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import logsumexp as logsumexp_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check(cost, xs, ys=None):
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise TypeError('crf1d: xs must be a non-empty list of (B, K) arrays, got %r'
                        % (type(xs).__name__,))
    if ys is not None and (not isinstance(ys, (list, tuple)) or len(ys) != len(xs)):
        raise TypeError('crf1d: ys must be a list as long as xs (%d), got %r'
                        % (len(xs), ys if not isinstance(ys, (list, tuple)) else len(ys)))
    names = ('cost',) + tuple('xs[%d]' % i for i in range(len(xs)))
    values = (cost,) + tuple(xs)
    if ys is not None:
        names += tuple('ys[%d]' % i for i in range(len(ys)))
        values += tuple(ys)

    def condition(in_types):
        n = len(xs)
        c_type = in_types[0]
        type_check.expect(c_type.dtype.kind == 'f', c_type.ndim == 2,
                          c_type.shape[0] == c_type.shape[1])
        for i in range(n):
            x_type = in_types[1 + i]
            type_check.expect(x_type.dtype == c_type.dtype, x_type.ndim == 2,
                              x_type.shape[1] == c_type.shape[0])
            if i:
                type_check.expect(x_type.shape[0] <= in_types[i].shape[0])
            if ys is not None:
                y_type = in_types[1 + n + i]
                type_check.expect(y_type.dtype.kind == 'i', y_type.ndim == 1,
                                  y_type.shape[0] == x_type.shape[0])
    _composite_check.check('crf1d', names, values, condition)


def crf1d(cost: VariableOrArray, xs: Sequence[VariableOrArray], ys: Sequence[VariableOrArray],
          reduce: str = 'mean') -> Variable:
    """Negative log-likelihood of label sequences under a linear-chain CRF.

    With ``cost[s, t]`` the score of moving from label ``s`` to label ``t`` and ``x_i[t]``
    the score of label ``t`` at position ``i``, the loss of a sequence ``y`` of length ``l``
    is ``log Z - (sum_i x_i[y_i] + sum_{i<l} cost[y_i, y_{i+1}])``, where ``Z`` sums the
    exponentiated score over every label sequence (the forward algorithm, in log space).

    Sequences of different lengths are given time-major and sorted by decreasing length (as
    :func:`~chainlite.functions.transpose_sequence` makes them): ``xs[i]`` holds the scores
    at position ``i`` of the sequences still running, so ``len(xs[i])`` never grows with
    ``i``. A composition of differentiable functions: differentiable to any order in
    ``cost`` and ``xs``.

    Args:
        cost: The transition scores, a float Variable or array ``(K, K)``.
        xs: A list of float Variables or arrays ``(B_i, K)``, one per position, with
            ``B_0 >= B_1 >= ...``.
        ys: A list of integer label arrays ``(B_i,)``, one per position.
        reduce (str): ``'mean'`` (the sum divided by ``B_0``) or ``'no'`` (one loss per
            sequence, ``(B_0,)``).

    Returns:
        A Variable: a scalar, or ``(B_0,)`` with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.
        TypeError, InvalidType: For inputs of the wrong kind, dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> cost = np.zeros((2, 2))
        >>> xs = [np.zeros((1, 2)), np.zeros((1, 2))]
        >>> ys = [np.array([0]), np.array([1])]
        >>> round(float(F.crf1d(cost, xs, ys).array), 4)  # log 4: four equal paths
        1.3863
    """
    if reduce not in ('mean', 'no'):
        raise ValueError("crf1d: reduce must be 'mean' or 'no', got %r" % (reduce,))
    _check(cost, xs, ys)
    cost = variable.as_variable(cost)
    n_label = cost.shape[0]
    n_batch = xs[0].shape[0]
    ys = [variable.as_array(y) for y in ys]

    # Forward algorithm; rows of sequences that ended are set aside (longest first).
    alpha = xs[0]
    finished = []
    for x in xs[1:]:
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            finished.append(alpha[batch:])
            alpha = alpha[:batch]
        alpha = logsumexp_mod.logsumexp(alpha[:, :, None] + cost[None], axis=1) + x
    if finished:
        alpha = concat_mod.concat([alpha] + finished[::-1], axis=0)
    logz = logsumexp_mod.logsumexp(alpha, axis=1)

    # The score of the given labels.
    flat_cost = cost.reshape(n_label * n_label)
    score = select_item_mod.select_item(xs[0], ys[0])
    done = []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1]):
        batch = x.shape[0]
        if score.shape[0] > batch:
            done.append(score[batch:])
            score = score[:batch]
        trans = flat_cost[y_prev[:batch] * n_label + y]
        score = score + select_item_mod.select_item(x, y) + trans
    if done:
        score = concat_mod.concat([score] + done[::-1], axis=0)
    loss = logz - score
    if reduce == 'mean':
        return sum_mod.sum(loss) / loss.dtype.type(n_batch)
    return loss


def argmax_crf1d(cost: VariableOrArray, xs: Sequence[VariableOrArray]
                 ) -> tuple[Variable, list[numpy.ndarray]]:
    """The most likely label sequences under a linear-chain CRF (Viterbi decoding).

    Takes the inputs of :func:`crf1d` without the labels.

    Args:
        cost: The transition scores ``(K, K)``.
        xs: A list of float Variables or arrays ``(B_i, K)``, one per position, with
            ``B_0 >= B_1 >= ...``.

    Returns:
        A tuple ``(score, path)``: ``score`` is a Variable ``(B_0,)`` holding the score of
        each best sequence (differentiable in ``cost`` and ``xs``), and ``path`` a list of
        ``int`` arrays, ``path[i]`` of shape ``(B_i,)`` holding the best label at position
        ``i``.

    Raises:
        TypeError, InvalidType: For inputs of the wrong kind, dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> cost = np.array([[0.0, -5.0], [-5.0, 0.0]])  # changing label is costly
        >>> xs = [np.array([[1.0, 0.0]]), np.array([[0.0, 0.5]])]
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> score.array, [p.tolist() for p in path]
        (array([1.]), [[0], [0]])
    """
    _check(cost, xs)
    cost = variable.as_variable(cost)
    alpha = variable.as_variable(xs[0])
    xp = backend.get_array_module(alpha.array)
    labels = xp.arange(cost.shape[0])[None, :]
    finished: list[Variable | None] = []
    back = []
    for x in xs[1:]:
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            finished.append(alpha[batch:])
            alpha = alpha[:batch]
        else:
            finished.append(None)
        scores = alpha[:, :, None] + cost[None]
        # (B, K): the best previous labels.
        best = variable.as_array(scores).argmax(axis=1).astype(numpy.int32)
        back.append(best)
        rows = xp.arange(batch)[:, None]
        alpha = scores[rows, best, labels] + x
    inds = variable.as_array(alpha).argmax(axis=1).astype(numpy.int32)
    path = [inds]
    score = alpha[xp.arange(len(inds)), inds]
    for best, rest in zip(back[::-1], finished[::-1]):
        inds = best[xp.arange(len(inds)), inds]
        if rest is not None:
            rest_inds = variable.as_array(rest).argmax(axis=1).astype(numpy.int32)
            inds = xp.concatenate([inds, rest_inds])
            score = concat_mod.concat(
                [score, rest[xp.arange(len(rest_inds)), rest_inds]], axis=0)
        path.append(inds)
    path.reverse()
    return score, path
