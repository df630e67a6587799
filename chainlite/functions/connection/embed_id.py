"""Embedding lookup: rows of a matrix picked by integer ids."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class EmbedIDFunction(function_node.FunctionNode):

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W'))
        x, W = in_types
        type_check.expect(x.dtype.kind == 'i', x.ndim >= 1,
                          W.dtype.kind == 'f', W.ndim == 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, W = inputs
        if x.__class__ is not numpy.ndarray and not configuration.config.debug:
            return _gpu_embed(x, W, self.ignore_label),
        ignored = _check_ids(x, len(W), self.ignore_label)
        if ignored is None:
            return W.take(x, axis=0),
        xp = backend.get_array_module(x)
        y = W.take(xp.where(ignored, 0, x), axis=0)
        y[ignored] = 0
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        gW, = _EmbedIDGrad(in_nodes[1].shape, self.ignore_label).apply((x, gy))
        return None, gW

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        gW = _embed_grad(inputs[0], grad_outputs[0], self._ins[1].shape, self.ignore_label)
        return tuple([gW if i == 1 else None for i in indexes])


# The largest ids x rows for which _EmbedIDGrad sums by a one-hot product.
_ONE_HOT_MAX = 1 << 14


class _EmbedIDGrad(function_node.FunctionNode):
    # Adds each gy row into the row of W its id picked; its own gradient is embed_id again.

    def __init__(self, w_shape, ignore_label):
        self.w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, gy = inputs
        return _embed_grad(x, gy, self.w_shape, self.ignore_label),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        ggW, = grad_outputs
        return None, EmbedIDFunction(self.ignore_label).apply((x, ggW))[0]


class EmbedIDGrad(_EmbedIDGrad):
    """embed_id's gradient node (Chainer's): ``EmbedIDGrad(w_shape, ignore_label).apply((x,
    gy))`` adds each row of ``gy`` into the row of zeros of ``w_shape`` its id picks
    (skipping ``ignore_label``); its own gradient is embed_id again."""

    def __init__(self, w_shape: tuple[int, ...], ignore_label: int | None = None) -> None:
        super().__init__(w_shape, ignore_label)


def _gpu_embed(x, W, ignore_label):
    # embed_id's forward on a GPU: no id is read on the host outside debug mode (as Chainer;
    # an out-of-range id then wraps around as CuPy's take does).
    if ignore_label is None:
        return W.take(x, axis=0)
    xp = backend.get_array_module(x)
    ignored = (x == ignore_label)[..., None]
    return xp.where(ignored, W.dtype.type(0), W.take(xp.where(ignored[..., 0], 0, x), axis=0))


def _embed_grad(x, gy, w_shape, ignore_label):
    # The gradient of W: each row of gy added into the row its id picked.
    xp = backend.get_array_module(gy)
    ids = x.ravel()
    rows = gy.reshape(len(ids), w_shape[1])
    if ids.__class__ is not numpy.ndarray:
        # On a GPU, one scatter-add, with no host read of the ids (the ignored ones add
        # zeros into row 0).
        gW = xp.zeros(w_shape, gy.dtype)
        if ignore_label is not None:
            kept = ids != ignore_label
            ids = xp.where(kept, ids, 0)
            rows = xp.where(kept[:, None], rows, gy.dtype.type(0))
        xp.add.at(gW, ids, rows)
        return gW
    if ignore_label is not None:
        kept = ids != ignore_label
        ids, rows = ids[kept], rows[kept]
    n_ids, n_rows = len(ids), w_shape[0]
    if 0 < n_ids * n_rows <= _ONE_HOT_MAX:
        # Few ids and rows (a language model's step): a one-hot matrix times the rows sums
        # each id's rows in one BLAS call, 3x faster than sorting and reduceat.
        onehot = xp.zeros((n_rows, n_ids), gy.dtype)
        onehot[ids, xp.arange(n_ids)] = 1
        return matmul.matmul_arrays(onehot, rows)
    gW = xp.zeros(w_shape, gy.dtype)
    if n_ids:
        # Rows with one id are summed together: sort by id, then one reduceat.
        order = xp.argsort(ids, kind='stable')
        ids = ids[order]
        starts = xp.flatnonzero(xp.concatenate((xp.ones(1, bool), ids[1:] != ids[:-1])))
        gW[ids[starts]] = xp.add.reduceat(rows[order], starts, axis=0)
    return gW


def _check_ids(x, n_rows, ignore_label):
    # Out-of-range ids would wrap around (negative) or fail deep in NumPy: say what is wrong.
    ignored = None if ignore_label is None else x == ignore_label
    if x.size and 0 <= x.min() and x.max() < n_rows:
        return ignored if ignored is not None and ignored.any() else None
    bad = (x < 0) | (x >= n_rows)
    if ignored is not None:
        bad &= ~ignored
    if bad.any():
        raise ValueError('embed_id: every id must satisfy 0 <= x < len(W) = %d (or equal '
                         'ignore_label=%r); got %d' % (n_rows, ignore_label, x[bad][0]))
    return ignored if ignored is not None and ignored.any() else None


def embed_id(x: VariableOrArray, W: VariableOrArray, ignore_label: int | None = None) -> Variable:
    """Word embedding: row ``x[i]`` of ``W`` for every id, a linear function of one-hot ids.

    Only ``W`` gets a gradient; rows picked by several ids get the sum of their gradients.

    Args:
        x: An integer Variable or array of ids, of any shape with at least one axis.
        W: A float Variable or array of shape ``(n_ids, size)``: one embedding per row.
        ignore_label: An id (or None) whose positions give zero vectors and send no
            gradient to ``W``.

    Returns:
        A Variable of shape ``x.shape + (size,)``, of ``W``'s dtype.

    Raises:
        ValueError: If an id other than ``ignore_label`` lies outside ``[0, n_ids)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> W = np.array([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embed_id(np.array([2, 1, -1]), W, ignore_label=-1).array
        array([[2., 2.],
               [1., 1.],
               [0., 0.]])
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]
