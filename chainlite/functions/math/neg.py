"""Elementwise negation: ``-x``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node

if TYPE_CHECKING:
    from chainlite.variable import Variable


class Neg(function_node.FunctionNode):

    @property
    def label(self) -> str:
        return '__neg__'  # Chainer's label

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return -x,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        return Neg()._apply1(gy),

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return -grad_outputs[0],
