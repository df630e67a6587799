"""Elementwise division: ``x / y`` (broadcasting), ``x / c`` and ``c / x``."""
from chainlite import function_node
from chainlite.functions.array import sum_to
from chainlite.functions.math import _constant


class Div(function_node.FunctionNode):

    @property
    def label(self):
        return '_ / _'

    _float_inputs = True
    _elementwise = True
    _arg_names = ('lhs', 'rhs')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 / x1,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        x0, x1 = self.get_retained_inputs()
        gx0 = gy / x1
        ret = []
        if 0 in indexes:
            ret.append(sum_to.sum_to(gx0, self.inputs[0].shape))
        if 1 in indexes:
            ret.append(sum_to.sum_to(-gx0 * x0 / x1, self.inputs[1].shape))
        return tuple(ret)


class DivFromConstant(_constant.ConstantOp):

    _label_format = '%s / _'
    _float_inputs = True

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return self.value / x,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        x, = self.get_retained_inputs()
        return gy * (-self.value) / (x * x),
