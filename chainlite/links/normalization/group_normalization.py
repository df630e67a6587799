"""The group normalization layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy

from chainlite import configuration
from chainlite import link
from chainlite import variable
from chainlite.functions.normalization import group_normalization
from chainlite.links.normalization import _param_init

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class GroupNormalization(link.Link):
    """Group normalization layer (:func:`~chainlite.functions.group_normalization`).

    The channels (axis 1) of each sample are split into ``groups`` groups normalized by
    their own mean and variance, then ``gamma`` and ``beta`` scale and shift each channel.

    Args:
        groups: The number of channel groups; it must divide the number of channels.
        size: The number of channels, or None to infer it at the first forward.
        eps: Added to the variance for numerical stability.
        initial_gamma: The initializer of ``gamma`` (None: 1).
        initial_beta: The initializer of ``beta`` (None: 0).

    Attributes:
        groups: The number of groups.
        gamma: The scale Parameter, of shape ``(size,)``.
        beta: The shift Parameter, of shape ``(size,)``.
        eps: The epsilon added to the variance.

    Example:
        >>> import numpy as np
        >>> from chainlite.links.normalization.group_normalization import GroupNormalization
        >>> gn = GroupNormalization(2)
        >>> x = np.array([[[1.0], [3.0], [10.0], [30.0]]], np.float32)
        >>> gn(x).array[0, :, 0].round(3)
        array([-1.,  1., -1.,  1.], dtype=float32)
        >>> gn.gamma.shape
        (4,)
    """

    def __init__(self, groups: int, size: Optional[int] = None, eps: float = 1e-5,
                 initial_gamma: InitializerSpec = None,
                 initial_beta: InitializerSpec = None) -> None:
        super().__init__()
        self.groups = groups
        self.eps = eps
        # Parameters stay float32 under mixed16, as in Chainer.
        dtype = configuration.get_dtype(None, map_mixed16=numpy.float32)
        with self.init_scope():
            self.gamma = variable.Parameter(_param_init.initializer(initial_gamma, 1, dtype))
            self.beta = variable.Parameter(_param_init.initializer(initial_beta, 0, dtype))
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize((size,))
        self.beta.initialize((size,))

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Normalizes ``x`` group by group.

        Args:
            x: A float input of shape ``(batch_size, channels, ...)``.

        Returns:
            A Variable of ``x``'s shape and dtype.

        Raises:
            ValueError: If ``x`` has fewer than 2 axes when ``size`` is inferred.
        """
        if self.gamma.array is None:
            if x.ndim < 2:
                raise ValueError('GroupNormalization: the input must have a batch axis and a '
                                 'channel axis, got shape %s' % (x.shape,))
            self._initialize_params(x.shape[1])
        return group_normalization.group_normalization(x, self.groups, self.gamma, self.beta,
                                                       self.eps)
