"""What the ops with a constant operand share (``x * c``, ``c / x``, ``x ** c``, ``c ** x``):
the constant and a label in Chainer's form."""
from __future__ import annotations

from chainlite import function_node
from chainlite.functions.math import add


class ConstantOp(function_node.FunctionNode):
    """An op of one input and the constant ``value``; subclasses set ``_label_format``, the
    label with ``%s`` for the constant (``'_ * %s'`` gives ``'_ * (-2)'`` for -2)."""

    _label_format: str  # set by each subclass

    def __init__(self, value):
        self.value = value

    @property
    def label(self) -> str:
        return self._label_format % add._constant_label(self.value)
