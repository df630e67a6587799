"""Dropout: elements zeroed at random during training, the rest scaled up."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.backends import cuda
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Dropout(function_node.FunctionNode):

    def __init__(self, dropout_ratio: float, mask: numpy.ndarray | None = None) -> None:
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError('dropout_ratio must be in the range [0, 1), got %r'
                             % (dropout_ratio,))
        self.dropout_ratio = dropout_ratio
        self.mask = mask

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f')
        if self.mask is not None:
            type_check.expect(
                x.shape == type_check.make_variable(self.mask.shape, 'mask.shape'))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        if self.mask is None:
            xp = backend.get_array_module(x)
            scale = x.dtype.type(1. / (1 - self.dropout_ratio))
            # The mask holds 0 or 1 / (1 - ratio) in x's dtype; x's module's global RNG
            # draws it (NumPy's, or CuPy's on a GPU).
            self.mask = xp.asarray((xp.random.rand(*x.shape) >= self.dropout_ratio) * scale)
        elif self.mask.dtype != x.dtype:
            self.mask = self.mask.astype(x.dtype)  # the output keeps x's dtype
        return x * self.mask,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return gy * self.mask,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        # backward on arrays, for a replayed chainlite.static_graph (this replay's mask).
        return grad_outputs[0] * self.mask,


class DropoutGrad(function_node.FunctionNode):
    """dropout's gradient node (Chainer's): ``DropoutGrad(mask).apply((gy,))`` is
    ``gy * mask``; its own gradient is the same node."""

    def __init__(self, mask: numpy.ndarray) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return (gy * self.mask).astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGradCuDNN(function_node.FunctionNode):
    """dropout's gradient node through cuDNN's dropout states (Chainer's): applying it needs
    CUDA, so it raises RuntimeError here, as the states cannot exist without it."""

    def __init__(self, states: Any, dropout_ratio: float) -> None:
        self.states = states
        self.dropout_ratio = dropout_ratio

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        cuda.get_cudnn_dropout_states()  # raises: no CUDA
        raise AssertionError('unreachable: get_cudnn_dropout_states raises without CUDA')

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return DropoutGradCuDNN(self.states, self.dropout_ratio).apply(grad_outputs)

@overload
def dropout(x: VariableOrArray, ratio: float = ..., *, mask: numpy.ndarray | None = ...,
            return_mask: Literal[False] = ...) -> Variable: ...


@overload
def dropout(x: VariableOrArray, ratio: float = ..., *, mask: numpy.ndarray | None = ...,
            return_mask: Literal[True]) -> tuple[Variable, numpy.ndarray | None]: ...


@overload
def dropout(x: VariableOrArray, ratio: float = ..., *, mask: numpy.ndarray | None = ...,
            return_mask: bool = ...) -> Variable | tuple[Variable, numpy.ndarray | None]: ...


def dropout(x: VariableOrArray, ratio: float = .5, *, mask: numpy.ndarray | None = None,
            return_mask: bool = False) -> Variable | tuple[Variable, numpy.ndarray | None]:
    """Drops elements of ``x`` at random with probability ``ratio`` during training.

    Kept elements are scaled by ``1 / (1 - ratio)``, so the expected value is unchanged.
    When ``chainlite.config.train`` is False it does nothing and returns ``x`` as a Variable.

    Args:
        x: A float Variable or array.
        ratio (float): The probability of dropping an element, in ``[0, 1)``.
        mask: None to draw a mask from NumPy's global random state (``numpy.random.seed``
            makes it reproducible; CuPy's for GPU arrays), or an array of ``x``'s shape to
            multiply ``x`` by; then ``ratio`` is not used. A mask returned by an earlier call
            can be passed again.
        return_mask (bool): Also return the mask used.

    Returns:
        The output Variable, or ``(output, mask)`` when ``return_mask`` is True; the mask,
        an array of ``x``'s shape and dtype holding 0 and ``1 / (1 - ratio)``, is None in
        test mode.

    Raises:
        ValueError: If ``ratio`` is outside ``[0, 1)``.

    Example:
        >>> import numpy as np, chainlite
        >>> x = np.ones((2, 3), np.float32)
        >>> np.random.seed(0)
        >>> y, mask = dropout(x, 0.5, return_mask=True)
        >>> y.array
        array([[2., 2., 2.],
               [2., 0., 2.]], dtype=float32)
        >>> with chainlite.using_config('train', False):
        ...     dropout(x).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    if configuration.config.train:
        func = Dropout(ratio, variable.as_array(mask))
        out, = func.apply((x,))
        mask = func.mask
    else:
        out = variable.as_variable(x)
        mask = None
    if return_mask:
        return out, mask
    return out
