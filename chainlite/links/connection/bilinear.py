"""The bilinear layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import bilinear
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class Bilinear(link.Link):
    """Bilinear layer: ``y_k = e1^T W_k e2 + V1_k^T e1 + V2_k^T e2 + b_k``.

    A thin wrapper of :func:`~chainlite.functions.bilinear`. ``W`` has shape
    ``(left_size, right_size, out_size)``, ``V1`` ``(left_size, out_size)``, ``V2``
    ``(right_size, out_size)`` and ``b`` ``(out_size,)``; the linear terms ``V1``, ``V2`` and
    ``b`` exist unless ``nobias``.

    Args:
        left_size: The size of the first input ``e1``.
        right_size: The size of the second input ``e2``.
        out_size: The output size.
        nobias: If True, the layer has only ``W``.
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (LeCunNormal).
        initial_bias: A tuple ``(initialV1, initialV2, initialb)`` of initializers, or None
            (LeCunNormal for ``V1`` and ``V2``, 0 for ``b``).

    Attributes:
        W: The bilinear weight Parameter.
        V1: The Parameter of the linear term in ``e1`` (absent with ``nobias``).
        V2: The Parameter of the linear term in ``e2`` (absent with ``nobias``).
        b: The bias Parameter (absent with ``nobias``).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.Bilinear(2, 3, 4, nobias=True, initialW=np.ones((2, 3, 4)))
        >>> layer(np.ones((1, 2), np.float32), np.ones((1, 3), np.float32)).array
        array([[6., 6., 6., 6.]], dtype=float32)
    """

    def __init__(self, left_size: int, right_size: int, out_size: int, nobias: bool = False,
                 initialW: InitializerSpec = None,
                 initial_bias: Optional[tuple[InitializerSpec, InitializerSpec,
                                              InitializerSpec]] = None) -> None:
        super().__init__()
        self.in_sizes = (left_size, right_size)
        self.nobias = nobias
        biases: tuple[Any, ...]
        if initial_bias is None:
            biases = (None, None, 0)
        elif not isinstance(initial_bias, tuple) or len(initial_bias) != 3:
            raise ValueError('Bilinear: initial_bias must be None or a tuple (initialV1, '
                             'initialV2, initialb), got %r' % (initial_bias,))
        else:
            biases = initial_bias
        with self.init_scope():
            self.W = self._param('initialW', initialW, (left_size, right_size, out_size))
            if not nobias:
                initialV1, initialV2, initialb = biases
                self.V1 = self._param('initialV1', initialV1, (left_size, out_size))
                self.V2 = self._param('initialV2', initialV2, (right_size, out_size))
                self.b = self._param('initialb', initialb, (out_size,))

    def _param(self, argname: str, spec: Any, shape: tuple) -> variable.Parameter:
        p = variable.Parameter(_param_args.initializer(self, argname, spec))
        _param_args.initialize(self, argname, p, shape)
        return p

    def forward(self, e1: VariableOrArray, e2: VariableOrArray) -> variable.Variable:
        """Applies the bilinear layer.

        Args:
            e1: The left inputs, of shape ``(n, left_size)``.
            e2: The right inputs, of shape ``(n, right_size)``.

        Returns:
            A Variable of shape ``(n, out_size)``.
        """
        if self.nobias:
            return bilinear.bilinear(e1, e2, self.W)
        return bilinear.bilinear(e1, e2, self.W, self.V1, self.V2, self.b)
