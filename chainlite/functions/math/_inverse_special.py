"""What erfinv, erfcinv and ndtri share: the inverse of a SciPy special function."""
from chainlite import function_node


class InverseSpecial(function_node.FunctionNode):
    """``y = _special(x)``, a SciPy inverse function; subclasses set ``_special`` and write
    backward, whose derivative ``1 / f'(y)`` is cheapest from the retained output."""

    _float_inputs = True
    _special = None

    @property
    def label(self):
        return self._special.__name__  # 'erfinv', 'erfcinv', 'ndtri'

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        # SciPy computes float16 in a wider type: cast back.
        return self._special(x).astype(x.dtype, copy=False),
