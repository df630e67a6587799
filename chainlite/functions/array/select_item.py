"""Pick one element per row: ``y[i] = x[i, t[i]]``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check_range(t, n_columns):
    # A negative t would silently pick from the end; one too large would be an IndexError
    # without saying which function raised it.
    if t.size and not (0 <= t.min() and t.max() < n_columns):
        raise ValueError('select_item: each t must satisfy 0 <= t < x.shape[1] = %d, got %s'
                         % (n_columns, t))


class SelectItem(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(t.dtype.kind == 'i', x.ndim == 2, t.ndim == 1,
                          x.shape[0] == t.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((1,))
        x, t = inputs
        _check_range(t, x.shape[1])
        xp = backend.get_array_module(x)
        return x[xp.arange(len(t)), t],

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        t, = self.get_retained_inputs()
        return _SelectItemGrad(in_nodes[0].shape).apply((gy, t))[0], None


class _SelectItemGrad(function_node.FunctionNode):
    # Puts gy[i] at (i, t[i]) in zeros of x's shape; its own gradient is select_item again.

    def __init__(self, shape):
        self.shape = shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((1,))
        gy, t = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, gy.dtype)
        # One element per row: no index repeats, so a plain assignment suffices.
        gx[xp.arange(len(t)), t] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        t, = self.get_retained_inputs()
        return SelectItem().apply((ggx, t))[0], None


class Assign(function_node.FunctionNode):
    """select_item's gradient node in Chainer: ``Assign(shape, dtype, t).apply((gy,))`` puts
    ``gy[i]`` at ``(i, t[i])`` in zeros of ``shape`` and ``dtype``; its own gradient is
    select_item again.

    Args:
        shape: The shape of ``x``, ``(n, m)``.
        dtype: The dtype of the result.
        t: The 1-D int Variable or array of column indices.
    """

    def __init__(self, shape: tuple[int, ...], dtype: Any, t: VariableOrArray) -> None:
        self.shape = shape
        self.dtype = dtype
        self.t = variable.as_array(t)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, self.dtype)
        gx[xp.arange(self.t.size), self.t] = gy
        return gx,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return SelectItem().apply((ggx, self.t))[0],


def select_item(x: VariableOrArray, t: VariableOrArray) -> Variable:
    """Selects one element from each row: ``y[i] = x[i, t[i]]``.

    Args:
        x: A 2-d Variable or array.
        t: A 1-d int Variable or array of length ``x.shape[0]``, with ``0 <= t < x.shape[1]``;
            it gets no gradient.

    Returns:
        A 1-d Variable of the dtype of ``x``; the gradient of ``x`` is zero but at the
        selected elements.

    Raises:
        ValueError: If some ``t`` is out of range.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        >>> F.select_item(x, np.array([0, 2])).array
        array([0., 5.])
    """
    return SelectItem().apply((x, t))[0]
