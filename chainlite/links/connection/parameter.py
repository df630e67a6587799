"""A link that holds one parameter array and returns it (Chainer's old ``L.Parameter``)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainlite import link
from chainlite import variable
from chainlite.functions.math import identity

if TYPE_CHECKING:
    import numpy


class Parameter(link.Link):
    """Holds one parameter ``W``, initialised with a given array, and returns it when called.

    Kept for code written for Chainer's old API (Chainer marks it deprecated since v1.5:
    parameters are Variables; register a :class:`~chainlite.Parameter` in a link's
    ``init_scope`` instead).

    Args:
        array: The initial value of the parameter: a NumPy array, whose shape and dtype
            the parameter takes. It is used as the parameter's array, not copied.

    Attributes:
        W: The Parameter.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> p = L.Parameter(np.array([1.0, 2.0]))
        >>> y = p()
        >>> y.array
        array([1., 2.])
        >>> y.grad = np.ones(2)
        >>> y.backward()
        >>> p.W.grad
        array([1., 1.])
    """

    def __init__(self, array: numpy.ndarray) -> None:
        super().__init__()
        shape = getattr(array, 'shape', None)
        dtype = getattr(array, 'dtype', None)
        if shape is None or dtype is None:
            raise TypeError('Parameter: array must be an array with a shape and dtype; got '
                            '{}'.format(type(array).__name__))
        with self.init_scope():
            self.W = variable.Parameter(array)

    def forward(self, volatile: Any = 'off') -> variable.Variable:
        """Returns the parameter as a new Variable in the graph (its gradient flows to ``W``).

        Args:
            volatile: Ignored; kept for Chainer's old signature (volatility no longer
                exists: use :func:`~chainlite.no_backprop_mode`).

        Returns:
            A Variable equal to ``W``.
        """
        return identity.identity(self.W)
