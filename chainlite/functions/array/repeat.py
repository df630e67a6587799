"""Repeat each element of an array."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _is_int(a):
    return isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)


class Repeat(function_node.FunctionNode):

    def __init__(self, repeats: tuple[int, ...], axis: int | None = None) -> None:
        self.repeats = repeats
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        if len(self.repeats) == 1:
            return
        x, = in_types
        if self.axis is None:
            type_check.expect(x.size == len(self.repeats))
            return
        ndim = type_check.eval(x.ndim)
        if -ndim <= self.axis < ndim:  # else normalize_axis raises in forward
            type_check.expect(x.shape[self.axis] == len(self.repeats))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        if self.axis is not None:
            self.axis = _axis.normalize_axis(self.axis, x.ndim, self.label)
        repeats = self.repeats[0] if len(self.repeats) == 1 else self.repeats
        return numpy.repeat(x, repeats, self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return _RepeatGrad(self.repeats, self.axis, in_nodes[0].shape).apply((gy,))


class _RepeatGrad(function_node.FunctionNode):
    # Sums each run of repeated elements; its own gradient is Repeat again.

    def __init__(self, repeats, axis, in_shape):
        self.repeats = repeats
        self.axis = axis
        self._in_shape = in_shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        # With axis None, gy is 1-d: one run per element of the flattened input.
        axis = 0 if self.axis is None else self.axis
        n = (int(numpy.prod(self._in_shape)) if self.axis is None
             else self._in_shape[axis])
        if len(self.repeats) == 1:
            split = gy.shape[:axis] + (n, self.repeats[0]) + gy.shape[axis + 1:]
            gx = gy.reshape(split).sum(axis=axis + 1)
        else:
            xp = backend.get_array_module(gy)
            # The runs are known on the host (repeats); their starts go to gy's device.
            reps = numpy.asarray(self.repeats)
            starts = numpy.cumsum(reps) - reps
            nonzero = reps > 0
            # reduceat cannot sum an empty run: those stay zero.
            if nonzero.all():
                gx = xp.add.reduceat(gy, xp.asarray(starts), axis=axis)
            else:
                gx = xp.zeros(gy.shape[:axis] + (n,) + gy.shape[axis + 1:], gy.dtype)
                if nonzero.any():
                    gx[(slice(None),) * axis + (xp.asarray(nonzero),)] = xp.add.reduceat(
                        gy, xp.asarray(starts[nonzero]), axis=axis)
        return gx.reshape(self._in_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return Repeat(self.repeats, self.axis).apply((ggx,))


class RepeatGrad(_RepeatGrad):
    """repeat's gradient node (Chainer's): ``RepeatGrad(repeats, axis, in_shape,
    in_dtype).apply((gy,))`` sums each run of repeated elements back into an array of
    ``in_shape``; its own gradient is repeat again."""

    def __init__(self, repeats: int | Sequence[int], axis: int | None,
                 in_shape: tuple[int, ...], in_dtype: Any) -> None:
        reps = (repeats,) if _is_int(repeats) else tuple(cast(Sequence[int], repeats))
        if axis is not None and axis < 0:
            axis += len(in_shape)
        super().__init__(reps, axis, in_shape)
        self.in_shape = in_shape
        self.in_dtype = in_dtype


def repeat(x: VariableOrArray, repeats: int | Sequence[int], axis: int | None = None) -> Variable:
    """Repeats each element of ``x``, as :func:`numpy.repeat`.

    Args:
        x: A Variable or array.
        repeats: An int or a tuple of ints (each ``>= 0``): how many times each element is
            repeated; a tuple gives one count per element along ``axis``.
        axis: The axis along which to repeat (an int; negative values count from the end),
            or None to repeat the elements of the flattened ``x`` into a 1-d result.

    Returns:
        A Variable; its gradient adds up the copies of each element.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.repeat(np.array([0.0, 1.0, 2.0]), 2).array
        array([0., 0., 1., 1., 2., 2.])
        >>> F.repeat(np.array([[1.0, 2.0], [3.0, 4.0]]), (1, 2), axis=0).array
        array([[1., 2.],
               [3., 4.],
               [3., 4.]])
    """
    repeats_t = tuple(repeats) if isinstance(repeats, (tuple, list)) else (repeats,)
    # bools count as 0 and 1, as in Chainer and numpy.repeat.
    if not repeats_t or not all(_is_int(r) or isinstance(r, bool) for r in repeats_t):
        raise TypeError('repeat: repeats must be an int or a tuple of ints, got %r'
                        % (repeats_t,))
    if any(r < 0 for r in repeats_t):
        raise ValueError('repeat: all elements of repeats must be zero or larger, got %r'
                         % (repeats_t,))
    if axis is not None and not _is_int(axis):
        raise TypeError('repeat: axis must be None or an int, got %r' % (axis,))
    return Repeat(tuple(int(r) for r in repeats_t),
                  None if axis is None else int(axis)).apply((x,))[0]
