"""BlackOut loss: a softmax over the true class and a few sampled negatives."""
from __future__ import annotations

from typing import TYPE_CHECKING


from chainlite import backend
from chainlite import variable
from chainlite.functions.connection import embed_id as embed_id_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import exp as exp_mod
from chainlite.functions.math import log1p as log1p_mod
from chainlite.functions.math import logsumexp as logsumexp_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check(x, t, W, samples):
    def condition(in_types):
        x_type, t_type, w_type, s_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 2,
            t_type.dtype.kind == 'i',
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
            w_type.shape[1] == x_type.shape[1],
            s_type.dtype.kind == 'i',
            s_type.ndim == 2,
            s_type.shape[0] == x_type.shape[0],
        )
    _composite_check.check('black_out', ('x', 't', 'W', 'samples'), (x, t, W, samples),
                           condition)


def black_out(x: VariableOrArray, t: VariableOrArray, W: VariableOrArray,
              samples: VariableOrArray, reduce: str = 'mean') -> Variable:
    """BlackOut loss, ``-log p(t) - sum_{s in samples} log(1 - p(s))``.

    ``p`` is a softmax over the true class and the row's negative samples only:
    ``p(y) = exp(W[y] . x) / (exp(W[t] . x) + sum_s exp(W[s] . x))``. A composition of
    differentiable functions: ``x`` and ``W`` are differentiable to any order.

    Args:
        x: The inputs, a float Variable or array ``(N, D)``.
        t: The integer labels ``(N,)``.
        W: The class vectors ``(V, D)``, of ``x``'s dtype.
        samples: The integer negative samples ``(N, S)`` (a Variable or array).
        reduce (str): ``'mean'`` over the rows, or ``'no'`` for one loss per row.

    Returns:
        A Variable: a scalar, or ``(N,)`` with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.
        InvalidType: For inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x, W = np.zeros((1, 2)), np.ones((3, 2))
        >>> loss = F.black_out(x, np.array([0]), W, np.array([[1, 2]]))
        >>> round(float(loss.array), 4)  # -log(1/3) - 2 log(2/3)
        1.9095
    """
    if reduce not in ('mean', 'no'):
        raise ValueError("black_out: reduce must be 'mean' or 'no', got %r" % (reduce,))
    _check(x, t, W, samples)
    x = variable.as_variable(x)
    samples = variable.as_array(samples)
    t = variable.as_array(t)
    ids = backend.get_array_module(t).concatenate([t[:, None], samples], axis=1)
    emb = embed_id_mod.embed_id(ids, W)  # (N, 1 + S, D)
    y = sum_mod.sum(emb * x[:, None, :], axis=2)
    logz = logsumexp_mod.logsumexp(y, axis=1)
    log_p = y - logz[:, None]
    # log(1 - p(s)) = log1p(-exp(log p(s)))
    loss = -(log_p[:, 0] + sum_mod.sum(log1p_mod.log1p(-exp_mod.exp(log_p[:, 1:])), axis=1))
    if reduce == 'mean':
        loss = sum_mod.sum(loss) / x.dtype.type(max(len(t), 1))
    return loss
