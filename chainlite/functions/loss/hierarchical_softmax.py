"""Hierarchical softmax over a binary tree: the function behind BinaryHierarchicalSoftmax."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import device_resident
from chainlite import variable
from chainlite.functions.activation import softplus as softplus_mod
from chainlite.functions.array import cast as cast_mod
from chainlite.functions.connection import embed_id as embed_id_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import DTypeSpec, VariableOrArray


def _parse_tree(tree):
    # Walks the tree without recursion (a Huffman tree over a large vocabulary is deep).
    # Internal nodes are numbered in pre-order; the code is +1 to the left, -1 to the right.
    paths, codes = {}, {}
    next_id = 0
    stack: list[tuple[Any, tuple[int, ...], tuple[float, ...]]] = [(tree, (), ())]
    while stack:
        node, path, code = stack.pop()
        if isinstance(node, tuple):
            if len(node) != 2:
                raise ValueError('BinaryHierarchicalSoftmax: every internal node of the tree '
                                 'must have two children, got %r' % (node,))
            left, right = node
            path = path + (next_id,)
            next_id += 1
            stack.append((right, path, code + (-1.0,)))
            stack.append((left, path, code + (1.0,)))
        else:
            if node in paths:
                raise ValueError('BinaryHierarchicalSoftmax: leaf %r appears twice in the tree'
                                 % (node,))
            paths[node] = path
            codes[node] = code
    return paths, codes, next_id


class BinaryHierarchicalSoftmaxFunction(device_resident.DeviceResident):
    """The loss of :class:`~chainlite.links.BinaryHierarchicalSoftmax`, for a fixed tree.

    The tree is parsed once into flat arrays; calling the object computes the loss as a
    composition of differentiable functions (differentiable to any order in ``x`` and
    ``W``). float16 inputs are computed in float32 and the loss returned in float16. The
    arrays move with ``to_device`` (a DeviceResident, as in Chainer); called on another
    device's inputs, it sends a copy of them there once and keeps it.

    Args:
        tree: A binary tree of nested pairs whose leaves are the word ids (ints), e.g.
            ``((0, 1), 2)``.
        dtype: The dtype of ``codes``.

    Attributes:
        paths: The internal nodes on the path of every word, concatenated (``int32``).
        codes: The direction taken at each of those nodes, ``+1`` or ``-1``.
        begins: Where the path of word ``i`` starts in ``paths`` (``begins[i + 1]`` is where
            it ends), ``(n_vocab + 1,)``.
        parser_size: The number of internal nodes (the rows of ``W``).

    Example:
        >>> import numpy as np
        >>> f = BinaryHierarchicalSoftmaxFunction(((0, 1), 2), np.float32)
        >>> f.paths, f.codes, f.begins, f.parser_size
        (array([0, 1, 0, 1, 0], dtype=int32), array([ 1.,  1.,  1., -1., -1.], dtype=float32), \
array([0, 2, 4, 5], dtype=int32), 2)
    """

    def __init__(self, tree: Any, dtype: DTypeSpec) -> None:
        super().__init__()
        paths, codes, size = _parse_tree(tree)
        for leaf in paths:
            if not isinstance(leaf, (int, numpy.integer)) or leaf < 0:
                raise ValueError('BinaryHierarchicalSoftmax: the leaves of the tree must be '
                                 'non-negative int word ids, got %r' % (leaf,))
        n_vocab = max(paths) + 1
        self.paths = numpy.array([n for i in range(n_vocab) for n in paths.get(i, ())],
                                 numpy.int32)
        self.codes = numpy.array([c for i in range(n_vocab) for c in codes.get(i, ())],
                                 dtype)
        lengths = [len(paths.get(i, ())) for i in range(n_vocab)]
        self.begins = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int32)
        self.parser_size = size
        # The arrays sent to other devices, by device name; shared by copies of this object
        # (the link calls a copy each time).
        self._sent: dict[str, tuple[Any, Any, Any]] = {}

    def device_resident_accept(self, visitor: device_resident.DeviceResidentsVisitor) -> None:
        """Moves ``paths``, ``codes`` and ``begins`` with the visitor (``to_device``).

        Args:
            visitor: The visitor.
        """
        super().device_resident_accept(visitor)
        self.paths = visitor.visit_array(self.paths)
        self.codes = visitor.visit_array(self.codes)
        self.begins = visitor.visit_array(self.begins)

    def _tables(self, t):
        # paths, codes and begins on t's device.
        tables = (self.paths, self.codes, self.begins)
        if backend.get_array_module(self.begins) is backend.get_array_module(t):
            return tables
        device = backend.get_device_from_array(t)
        sent = self._sent.get(str(device))
        if sent is None:
            sent = self._sent[str(device)] = tuple(device.send(tables))
        return sent

    def _check(self, x, t, W):
        def condition(in_types):
            x_type, t_type, w_type = in_types
            type_check.expect(
                x_type.dtype.kind == 'f',
                x_type.ndim == 2,
                t_type.dtype == numpy.int32,
                t_type.ndim == 1,
                x_type.shape[0] == t_type.shape[0],
                w_type.dtype == x_type.dtype,
                w_type.ndim == 2,
                w_type.shape[0] == self.parser_size,
                w_type.shape[1] == x_type.shape[1],
            )
        _composite_check.check('BinaryHierarchicalSoftmaxFunction', ('x', 't', 'W'),
                               (x, t, W), condition)

    def __call__(self, x: VariableOrArray, t: VariableOrArray,
                 W: VariableOrArray) -> Variable:
        """The summed loss ``sum_b sum_{(e, c) in path(t_b)} softplus(-c * W[e] . x_b)``.

        Args:
            x: The inputs ``(B, D)``, a float Variable or array.
            t: The ``int32`` word ids ``(B,)``.
            W: The node vectors ``(parser_size, D)``.

        Returns:
            A scalar Variable of ``x``'s dtype: minus the summed log-likelihood.
        """
        self._check(x, t, W)
        t = variable.as_array(t)
        n_vocab = len(self.begins) - 1
        if ((t < 0) | (t >= n_vocab)).any():
            raise ValueError('BinaryHierarchicalSoftmax: word ids must be in [0, %d), got %s'
                             % (n_vocab, t))
        x = variable.as_variable(x)
        W = variable.as_variable(W)
        dtype = x.dtype
        if dtype == numpy.float16:
            x = cast_mod.cast(x, numpy.float32)
            W = cast_mod.cast(W, numpy.float32)
        xp = backend.get_array_module(t)
        paths, codes, begins = self._tables(t)
        begin = begins[t]
        length = begins[t + 1] - begin
        # The longest path sets the padded shape: one read of the lengths.
        steps = xp.arange(max(int(length.max()) if len(length) else 0, 1))
        valid = steps < length[:, None]  # (B, L): the padded paths
        idx = xp.where(valid, begin[:, None] + steps, 0)
        nodes = xp.where(valid, paths[idx] if len(paths) else 0, 0)
        codes = xp.where(valid, codes[idx] if len(codes) else 0, 0)
        w = embed_id_mod.embed_id(nodes, W)  # (B, L, D)
        wx = sum_mod.sum(w * x[:, None, :], axis=2)
        loss = softplus_mod.softplus(wx * (-codes).astype(x.dtype))
        loss = sum_mod.sum(loss * valid.astype(x.dtype))
        if loss.dtype != dtype:
            loss = cast_mod.cast(loss, dtype)
        return loss
