"""Rectified linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class ReLU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    _output_indexes_to_retain = (0,)  # retain_outputs((0,)), declared once for the class

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return numpy.maximum(x, 0),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # The mask needs only the retained array, not a Variable over it.
        retained = self._retained_output_data
        assert retained is not None
        gy, = grad_outputs
        return _ReLUGrad(retained[0] > 0)._apply1(gy),

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = dx where y > 0, from the retained output.
        assert self._retained_output_data is not None
        y, = self._retained_output_data
        return tangents[0] * (y > 0),

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return grad_outputs[0] * (outputs[0] > 0),  # _ReLUGrad's arithmetic



class _ReLUGrad(function_node.FunctionNode):
    # gx = gy * (y > 0) in one node; the mask is constant, so this node is linear in gy and
    # its own backward is itself.

    def __init__(self, mask: numpy.ndarray) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return gy * self.mask,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        g, = grad_outputs
        return _ReLUGrad(self.mask).apply((g,))


class ReLUGrad2(_ReLUGrad):
    """ReLU's gradient ``gy * (b > 0)`` as a node, Chainer's ``ReLUGrad2(b).apply((gy,))``.

    Args:
        b: The array whose positive entries pass the gradient (ReLU's output).
    """

    def __init__(self, b: numpy.ndarray) -> None:
        super().__init__(b > 0)
        self.b = b

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return ReLUGrad2(self.b).apply(grad_outputs)


class ReLUGradCudnn(function_node.FunctionNode):
    """ReLU's gradient node of Chainer's cuDNN path, ``ReLUGradCudnn(y)``.

    Its forward runs cuDNN, so here, as in Chainer without a GPU, it raises RuntimeError;
    its backward is :class:`ReLUGrad2`'s.

    Args:
        y: ReLU's output array.
    """

    def __init__(self, y: numpy.ndarray) -> None:
        self.y = y

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        cuda.check_cuda_available()
        raise AssertionError('unreachable: check_cuda_available raises without CUDA')

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return ReLUGrad2(self.y).apply(grad_outputs)


def relu(x: VariableOrArray) -> Variable:
    """Rectified linear unit, ``max(0, x)``, elementwise.

    The gradient at 0 is 0.

    Args:
        x: A float Variable or array.

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.relu(np.array([-1.0, 0.5, 2.0])).array
        array([0. , 0.5, 2. ])
    """
    return ReLU()._apply1(x)
