"""What log2 and log10 share: a logarithm to a constant base."""
from chainlite import function_node


class LogBase(function_node.FunctionNode):
    """The logarithm ``_log`` (``numpy.log2`` or ``numpy.log10``), to the base ``b`` with
    ``_inv_ln_base = 1 / ln(b)``; subclasses set the two."""

    _float_inputs = True
    _log = None
    _inv_ln_base = None

    @property
    def label(self):
        return self._log.__name__  # 'log2', 'log10'

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return self._log(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # A Python float constant takes the variable's dtype (float16 stays float16).
        return gy / x * self._inv_ln_base,
