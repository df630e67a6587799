"""The maxout layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import initializer as initializer_module
from chainlite import link
from chainlite.backends import cuda
from chainlite import variable
from chainlite.functions.activation import maxout
from chainlite.links.connection import linear

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class Maxout(link.Chain):
    """Maxout layer: the maximum over ``pool_size`` affine maps, for each output unit.

    A child :class:`~chainlite.links.Linear` named ``linear`` computes
    ``out_size * pool_size`` values, which :func:`~chainlite.functions.maxout` reduces over
    groups of ``pool_size``. Array initializers have the natural shapes, ``initialW``
    ``(out_size, pool_size, in_size)`` and ``initial_bias`` ``(out_size, pool_size)``;
    plain callables receive arrays of those shapes too.

    Args:
        in_size: The input size.
        out_size: The output size.
        pool_size: The number of affine maps per output unit.
        initialW: The initializer of the weight (None: LeCunNormal).
        initial_bias: The initializer of the bias, or None for no bias.

    Attributes:
        linear: The Linear link computing all the affine maps.
        out_size: The output size.
        pool_size: The pool size.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> W = np.array([[[1.0], [-1.0]]])  # out_size=1, pool_size=2, in_size=1
        >>> L.Maxout(1, 1, 2, initialW=W)(np.array([[-3.0], [2.0]], np.float32)).array
        array([[3.],
               [2.]], dtype=float32)
    """

    def __init__(self, in_size: int, out_size: int, pool_size: int,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = 0) -> None:
        super().__init__()
        linear_out_size = out_size * pool_size
        initialW = _flat_initializer('initialW', initialW, (out_size, pool_size, in_size))
        initial_bias = _flat_initializer('initial_bias', initial_bias, (out_size, pool_size))
        with self.init_scope():
            self.linear = linear.Linear(in_size, linear_out_size, nobias=initial_bias is None,
                                        initialW=initialW, initial_bias=initial_bias)
        self.out_size = out_size
        self.pool_size = pool_size

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the maxout layer.

        Args:
            x: The inputs, of shape ``(n, in_size)``.

        Returns:
            A Variable of shape ``(n, out_size)``.
        """
        return maxout.maxout(self.linear(x), self.pool_size)


def _flat_initializer(argname: str, spec: Any, shape: tuple) -> Any:
    # The Linear link's parameter is the flattening of ``shape``; arrays are reshaped, plain
    # callables see the array with ``shape``. Initializer objects fill the flat array, whose
    # fans are those of the Linear weight.
    if spec is None or numpy.isscalar(spec) or isinstance(spec, initializer_module.Initializer):
        return spec
    if isinstance(spec, numpy.ndarray) or cuda.is_gpu_array(spec):
        if spec.ndim != len(shape):
            raise ValueError('Maxout: %s must have %d dimensions %s, got shape %s'
                             % (argname, len(shape), shape, spec.shape))
        return spec.reshape(-1, *shape[2:]) if len(shape) == 3 else spec.reshape(-1)
    if callable(spec):
        def fill(array: Any) -> None:
            spec(array.reshape(shape))
        # A function attribute, read like an Initializer's dtype.
        fill.dtype = getattr(spec, 'dtype', None)  # type: ignore[attr-defined]
        return fill
    return spec
