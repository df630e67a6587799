"""The scale layer: multiplies by a (learned or given) scale broadcast from an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.math import scale
from chainlite.links.connection import _param_args
from chainlite.links.connection import bias

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray


class Scale(link.Chain):
    """Multiplies by a scale broadcast from axis ``axis`` (:func:`~chainlite.functions.scale`),
    then optionally adds a learned bias.

    With ``W_shape``, the scale is a learned Parameter ``W`` (one at first) and the layer
    takes one input; without it, the layer takes the scale as a second input. With
    ``bias_term``, a child :class:`~chainlite.links.Bias` named ``bias`` (of shape
    ``W_shape``, or ``bias_shape`` when the scale is an input) is added after scaling.

    Args:
        axis: The first axis of the input along which the scale (and bias) is applied.
        W_shape: The shape of the learned scale, or None to take the scale as an input.
        bias_term: Whether to add a learned bias.
        bias_shape: The shape of the bias when ``W_shape`` is None.

    Attributes:
        W: The scale Parameter (only when ``W_shape`` is given).
        bias: The Bias child link (only with ``bias_term``).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.Scale(W_shape=(2,), bias_term=True)
        >>> [name for name, _ in layer.namedparams()]
        ['/W', '/bias/b']
        >>> layer(np.array([[1.0, 2.0]], np.float32)).array
        array([[1., 2.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, W_shape: Optional[ShapeSpec] = None, bias_term: bool = False,
                 bias_shape: Optional[ShapeSpec] = None) -> None:
        super().__init__()
        self.axis = axis
        if W_shape is None and bias_term and bias_shape is None:
            raise ValueError('Scale: bias_shape must be given when bias_term is True and W '
                             'is not learned (W_shape is None)')
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(1, W_shape)
            if bias_term:
                self.bias = bias.Bias(axis, W_shape if W_shape is not None else bias_shape)

    def forward(self, *xs: VariableOrArray) -> variable.Variable:
        """Scales the input (and adds the bias).

        Args:
            *xs: ``x`` alone if the scale is learned, else ``x`` and the scale ``y``.

        Returns:
            A Variable of the shape of ``x``.
        """
        if hasattr(self, 'W'):
            if len(xs) != 1:
                raise _param_args.InputCountError(
                    'Scale: with a learned W, forward takes one input (x), got %d' % len(xs))
            z = scale.scale(xs[0], self.W, self.axis)
        else:
            if len(xs) != 2:
                raise _param_args.InputCountError(
                    'Scale: without a learned W (W_shape=None), forward takes two '
                    'inputs (x, y), got %d' % len(xs))
            z = scale.scale(xs[0], xs[1], self.axis)
        if hasattr(self, 'bias'):
            return self.bias(z)
        return z
