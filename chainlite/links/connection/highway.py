"""The highway layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import relu
from chainlite.functions.activation import sigmoid
from chainlite.links.connection import linear

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class Highway(link.Chain):
    """Highway layer: ``y = a(x W_H^T + b_H) * t + x * (1 - t)``, ``t = sigmoid(x W_T^T + b_T)``.

    The transform gate ``t`` chooses, per unit, between the transformed input and the input
    itself; its bias starts at ``-1`` so that the layer first passes most of ``x`` through.
    The two affine maps are child :class:`~chainlite.links.Linear` links ``plain`` and
    ``transform`` of size ``in_out_size`` to ``in_out_size``.

    Args:
        in_out_size: The input and output size.
        nobias: If True, the two Linear links have no bias.
        activate: The activation ``a`` of the plain path.
        init_Wh: The initializer of ``plain.W`` (None: LeCunNormal).
        init_Wt: The initializer of ``transform.W`` (None: LeCunNormal).
        init_bh: The initializer of ``plain.b`` (None: 0).
        init_bt: The initializer of ``transform.b``.

    Attributes:
        plain: The Linear link of the plain path.
        transform: The Linear link of the transform gate.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.Highway(3)
        >>> [name for name, _ in layer.namedparams()]
        ['/plain/W', '/plain/b', '/transform/W', '/transform/b']
        >>> layer(np.zeros((2, 3), np.float32)).shape
        (2, 3)
    """

    def __init__(self, in_out_size: int, nobias: bool = False, activate: Callable = relu.relu,
                 init_Wh: InitializerSpec = None, init_Wt: InitializerSpec = None,
                 init_bh: InitializerSpec = None, init_bt: InitializerSpec = -1) -> None:
        super().__init__()
        self.activate = activate
        with self.init_scope():
            self.plain = linear.Linear(in_out_size, in_out_size, nobias=nobias,
                                       initialW=init_Wh, initial_bias=init_bh)
            self.transform = linear.Linear(in_out_size, in_out_size, nobias=nobias,
                                           initialW=init_Wt, initial_bias=init_bt)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Applies the highway layer.

        Args:
            x: The inputs, of shape ``(n, in_out_size)``.

        Returns:
            A Variable of shape ``(n, in_out_size)``.
        """
        out_plain = self.activate(self.plain(x))
        t = sigmoid.sigmoid(self.transform(x))
        return out_plain * t + x * (1 - t)
