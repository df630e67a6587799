"""The parametric ReLU layer."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.activation import prelu

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


class PReLU(link.Link):
    """Parametric ReLU (:func:`~chainlite.functions.prelu`) with learned slopes ``W``.

    ``W`` has shape ``shape`` and lines up with the input's axes after the batch axis:
    ``shape=()`` is one slope for everything, ``shape=(C,)`` one per channel.

    Args:
        shape: The shape of ``W``.
        init: The initial slope: a scalar, an array of ``shape``, or an initializer.

    Attributes:
        W: The slope Parameter.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> L.PReLU()(np.array([[-2.0, 3.0]], np.float32)).array
        array([[-0.5,  3. ]], dtype=float32)
    """

    def __init__(self, shape: ShapeSpec = (), init: InitializerSpec = 0.25) -> None:
        super().__init__()
        try:
            initializer = initializers._get_initializer(init)
        except (TypeError, ValueError) as e:
            raise type(e)('PReLU: invalid init: %s' % e) from None
        with self.init_scope():
            self.W = variable.Parameter(initializer)
        try:
            self.W.initialize(shape)
        except ValueError as e:
            raise ValueError('PReLU: init cannot initialize W of shape %s: %s'
                             % (shape, e)) from None

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the parametric ReLU.

        Args:
            x: The input, of shape ``(n,) + W.shape + ...``.

        Returns:
            A Variable of the shape of ``x``.
        """
        return prelu.prelu(x, self.W)
