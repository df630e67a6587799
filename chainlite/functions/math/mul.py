"""Elementwise multiplication: ``x * y`` (broadcasting) and ``x * c``."""
from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import _constant


class Mul(function_node.FunctionNode):

    @property
    def label(self):
        return '_ * _'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 * x1,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        xs = self.get_retained_inputs()
        return tuple([sum_to.sum_to(gy * xs[1 - i], self.inputs[i].shape) for i in indexes])


class MulConstant(_constant.ConstantOp):

    _label_format = '_ * %s'

    def forward(self, inputs):
        x, = inputs
        return x * self.value,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return MulConstant(self.value)._apply1(gy),

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = c dx.
        return tangents[0] * self.value,

