"""Elementwise negation: ``-x``."""
from chainlite import function_node


class Neg(function_node.FunctionNode):

    @property
    def label(self):
        return '__neg__'  # Chainer's label

    def forward(self, inputs):
        x, = inputs
        return -x,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return Neg()._apply1(gy),
