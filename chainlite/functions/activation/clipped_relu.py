"""Clipped rectified linear unit."""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class ClippedReLU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, z: float) -> None:
        if not isinstance(z, numbers.Real) or isinstance(z, bool):
            raise TypeError('%s: z must be a real number, got %s'
                            % (self.label, type(z).__name__))
        if not z > 0:
            raise ValueError('%s: z must be positive, got %r' % (self.label, z))
        self.cap: float = z

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # The cap in x's dtype: a NumPy float64 scalar would promote float16/32.
        return numpy.clip(x, 0, x.dtype.type(self.cap)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        x = x.array
        # Gradient 1 strictly inside (0, z), 0 elsewhere: a constant mask keeps double
        # backprop exact.
        inside = (x > 0) & (x < x.dtype.type(self.cap))
        return gy * inside.astype(x.dtype),


class ClippedReLUGrad2(function_node.FunctionNode):
    """Clipped ReLU's gradient ``gy * (0 < x < z)`` as a node, built from ``x`` and ``z``.

    Chainer's backward node of :class:`ClippedReLU` (``ClippedReLUGrad2(x, z).apply((gy,))``).
    The mask is constant, so the node is linear in ``gy`` and is its own backward.

    Args:
        x: The input array of the clipped ReLU.
        z: The clipping value.
    """

    _float_inputs = True
    _arg_names = ('gy',)

    def __init__(self, x: numpy.ndarray, z: float) -> None:
        self.x = x
        self.cap = z

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        x = self.x
        return (gy * ((0 < x) & (x < self.cap))).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return ClippedReLUGrad2(self.x, self.cap).apply(grad_outputs)


class ClippedReLUGrad3(ClippedReLUGrad2):
    """Clipped ReLU's gradient node of Chainer's cuDNN path, ``ClippedReLUGrad3(x, y, z)``.

    Without cuDNN it computes what :class:`ClippedReLUGrad2` does; ``y`` (the output) is
    kept as Chainer keeps it.

    Args:
        x: The input array of the clipped ReLU.
        y: Its output array.
        z: The clipping value.
    """

    def __init__(self, x: numpy.ndarray, y: numpy.ndarray, z: float) -> None:
        super().__init__(x, z)
        self.y = y

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return ClippedReLUGrad3(self.x, self.y, self.cap).apply(grad_outputs)


def clipped_relu(x: VariableOrArray, z: float = 20.0) -> Variable:
    """Clipped rectified linear unit, ``min(max(0, x), z)``, elementwise.

    The gradient is 1 on the open interval ``(0, z)`` and 0 elsewhere (at 0 and at ``z``
    too).

    Args:
        x: A float Variable or array.
        z: The clipping value, a positive number.

    Returns:
        A Variable of the same shape and dtype.

    Raises:
        TypeError: If ``z`` is not a real number.
        ValueError: If ``z`` is not positive.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.clipped_relu(np.array([-1.0, 0.5, 3.0]), z=2.0).array
        array([0. , 0.5, 2. ])
    """
    return ClippedReLU(z).apply((x,))[0]


# Chainer's module also has relu6; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'relu6': 'chainlite.functions.activation.relu6'})[:2]
