"""The layer normalization layer."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.normalization import layer_normalization

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class LayerNormalization(link.Link):
    """Layer normalization layer (:func:`~chainlite.functions.layer_normalization`).

    Each row of a ``(batch_size, size)`` input is normalized by its own mean and variance,
    then scaled by ``gamma`` and shifted by ``beta`` per unit.

    Args:
        size: The number of units, or None to infer it at the first forward (the product of
            the input's non-batch axes).
        eps: Added to the variance for numerical stability.
        initial_gamma: The initializer of ``gamma`` (None: 1).
        initial_beta: The initializer of ``beta`` (None: 0).

    Attributes:
        gamma: The scale Parameter, of shape ``(size,)``.
        beta: The shift Parameter, of shape ``(size,)``.
        eps: The epsilon added to the variance.

    Example:
        >>> import numpy as np
        >>> from chainlite.links.normalization.layer_normalization import LayerNormalization
        >>> ln = LayerNormalization()
        >>> ln(np.array([[1.0, 3.0], [10.0, 30.0]], np.float32)).array.round(3)
        array([[-1.,  1.],
               [-1.,  1.]], dtype=float32)
        >>> ln.gamma.shape
        (2,)
    """

    def __init__(self, size: Optional[int] = None, eps: float = 1e-6,
                 initial_gamma: InitializerSpec = None,
                 initial_beta: InitializerSpec = None) -> None:
        super().__init__()
        self.eps = eps
        with self.init_scope():
            self.gamma = variable.Parameter(1 if initial_gamma is None else initial_gamma)
            self.beta = variable.Parameter(0 if initial_beta is None else initial_beta)
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: Any) -> None:
        shape = (size,) if isinstance(size, int) else tuple(size)
        for p in (self.gamma, self.beta):
            if p.array is None:
                p.initialize(shape)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Normalizes each row of ``x``.

        Args:
            x: A float input of shape ``(batch_size, size)``.

        Returns:
            A Variable of ``x``'s shape and dtype.
        """
        if self.gamma.array is None:
            self._initialize_params(math.prod(x.shape[1:]))
        return layer_normalization.layer_normalization(x, self.gamma, self.beta, self.eps)
