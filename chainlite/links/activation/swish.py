"""The swish activation layer, with a learned ``beta``."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.activation import swish

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


class Swish(link.Link):
    """Swish activation :func:`~chainlite.functions.swish`, ``x * sigmoid(beta * x)``, with a
    learned ``beta``.

    Args:
        beta_shape: The shape of ``beta``, which lines up with the input's axes after the
            batch axis (``()`` for one ``beta``, ``(C,)`` for one per channel), or None to
            take the input's shape without the batch axis at the first forward.
        beta_init: The initial value of ``beta`` (a scalar, an array or an initializer).

    Attributes:
        beta: The Parameter ``beta``.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> s = L.Swish(None, beta_init=0.0)
        >>> s(np.array([[-2.0, 4.0]], np.float32)).array
        array([[-1.,  2.]], dtype=float32)
        >>> s.beta.shape
        (2,)
    """

    def __init__(self, beta_shape: ShapeSpec, beta_init: InitializerSpec = 1.0) -> None:
        super().__init__()
        with self.init_scope():
            if beta_shape is not None:
                self.beta = variable.Parameter(beta_init, beta_shape)
            else:
                self.beta = variable.Parameter(initializers._get_initializer(beta_init))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies swish with this link's ``beta``.

        Args:
            x: A float Variable or array with a batch axis first.

        Returns:
            A Variable of ``x``'s shape and dtype.
        """
        if self.beta.array is None:
            self.beta.initialize(x.shape[1:])
        return swish.swish(x, self.beta)
