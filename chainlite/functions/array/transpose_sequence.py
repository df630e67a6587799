"""Transpose a batch of sequences sorted by length: the i-th elements of all into one."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _transpose(xs: Sequence[numpy.ndarray], length: int) -> tuple[numpy.ndarray, ...]:
    # Arrays of sequences, longest first, transposed into ``length`` arrays: output t
    # stacks element t of every sequence longer than t.
    if length == 0:
        return ()
    xp = backend.get_array_module(*xs)
    counts = [sum(len(x) > t for x in xs) for t in range(length)]
    return tuple([xp.stack([x[t] for x in xs[:n]]) if n else
                  xp.empty((0,) + xs[0].shape[1:], xs[0].dtype)
                  for t, n in enumerate(counts)])


class TransposeSequence(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, tuple('xs[%d]' % i for i in range(len(in_types))))
        x0 = in_types[0]
        for i, x in enumerate(in_types):
            type_check.expect(x.ndim >= 1, x.shape[1:] == x0.shape[1:], x.dtype == x0.dtype)
            if i:
                type_check.expect(x.shape[0] <= in_types[i - 1].shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        xp = backend.get_array_module(*inputs)
        self._in_shapes = [x.shape for x in inputs]
        lengths = numpy.array([len(x) for x in inputs])
        if lengths[0] == 0:
            self._counts = []
            return ()
        # Output t holds element t of every sequence longer than t. Gathered in one take from
        # the concatenated sequences: sequence i's element t is at offsets[i] + t.
        steps = numpy.arange(lengths[0])[:, None]
        taken = steps < lengths[None, :]
        order = (numpy.cumsum(lengths) - lengths + steps)[taken]
        self._counts = taken.sum(axis=1).tolist()
        ys = xp.concatenate(inputs, axis=0)[xp.asarray(order)]
        return tuple(xp.split(ys, numpy.cumsum(self._counts[:-1]).tolist(), axis=0))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        xp = backend.get_array_module(*grad_outputs)
        dtype = in_nodes[0].dtype
        unit = self._in_shapes[0][1:]
        # An output left out of the loss has no gradient: it contributes zeros.
        gys = [xp.zeros((n,) + unit, dtype) if g is None else g
               for g, n in zip(grad_outputs, self._counts)]
        # Transposing is its own inverse; empty sequences, in no output, get empty gradients.
        gxs = TransposeSequence().apply(gys)
        return gxs + tuple([xp.zeros(s, dtype) for s in self._in_shapes[len(gxs):]])


def transpose_sequence(xs: Sequence[VariableOrArray]) -> tuple[Variable, ...]:
    """Transposes a list of sequences sorted by length, longest first.

    Output ``t`` stacks element ``t`` of every sequence longer than ``t``: sequences
    ``[0, 1, 2], [3, 4], [5]`` become ``[0, 3, 5], [1, 4], [2]``. Applied again, it gives the
    sequences back.

    Args:
        xs: A list or tuple of Variables or arrays of one dtype, at least 1-d, equal in
            shape but for their first axis (their lengths), in non-increasing length order.

    Returns:
        A tuple of ``len(xs[0])`` Variables (empty if there are no sequences).

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> xs = [np.array([0.0, 1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0])]
        >>> [y.array for y in F.transpose_sequence(xs)]
        [array([0., 3., 5.]), array([1., 4.]), array([2.])]
    """
    xs = tuple(xs)
    if not xs:
        return ()
    return TransposeSequence().apply(xs)
