"""The bias layer: adds a (learned or given) bias broadcast from an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.math import bias
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray


class Bias(link.Link):
    """Adds a bias broadcast from axis ``axis`` of the input (:func:`~chainlite.functions.bias`).

    With ``shape``, the bias is a learned Parameter ``b`` (zero at first) and the layer takes
    one input; without it, the layer has no parameter and takes the bias as a second input.

    Args:
        axis: The first axis of the input along which the bias is applied.
        shape: The shape of the learned bias, or None to take the bias as an input.

    Attributes:
        b: The bias Parameter (only when ``shape`` is given).
        axis: The axis given.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.Bias(shape=(3,))
        >>> layer.b.array[...] = [1, 2, 3]
        >>> layer(np.zeros((2, 3), np.float32)).array
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
        >>> L.Bias(axis=1)(np.zeros((1, 2)), np.array([5.0, 6.0])).array
        array([[5., 6.]])
    """

    def __init__(self, axis: int = 1, shape: Optional[ShapeSpec] = None) -> None:
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(0, shape)
        self.axis = axis

    def forward(self, *xs: VariableOrArray) -> variable.Variable:
        """Adds the bias.

        Args:
            *xs: ``x`` alone if the bias is learned, else ``x`` and the bias ``y``.

        Returns:
            A Variable of the shape of ``x``.
        """
        if hasattr(self, 'b'):
            if len(xs) != 1:
                raise _param_args.InputCountError(
                    'Bias: with a learned bias, forward takes one input (x), got %d' % len(xs))
            return bias.bias(xs[0], self.b, self.axis)
        if len(xs) != 2:
            raise _param_args.InputCountError(
                'Bias: without a learned bias (shape=None), forward takes two '
                'inputs (x, y), got %d' % len(xs))
        return bias.bias(xs[0], xs[1], self.axis)
