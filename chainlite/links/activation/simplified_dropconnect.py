"""A linear layer trained with simplified dropconnect."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.noise import simplified_dropconnect
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    import numpy

    from chainlite.types import InitializerSpec, VariableOrArray


class SimplifiedDropconnect(link.Link):
    """Fully-connected layer whose weights are dropped at random while training.

    Wraps :func:`~chainlite.functions.simplified_dropconnect`: ``y = x (W * mask)^T / (1 -
    ratio) + b``, with a fresh mask per sample (or for the batch) at each call.

    Args:
        in_size: The input size, or None to infer it at the first forward.
        out_size (int): The output size.
        ratio (float): The probability of dropping a weight.
        nobias (bool): If True, there is no bias.
        initialW: The initializer of ``W`` (None: ``HeNormal(1 / sqrt(2))``, as in Chainer).
        initial_bias: The initializer of ``b`` (None: 0).

    Attributes:
        W: The weight Parameter ``(out_size, in_size)``.
        b: The bias Parameter ``(out_size,)``, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.SimplifiedDropconnect(3, 2, ratio=0.5, initialW=np.ones((2, 3)))
        >>> layer(np.ones((1, 3), np.float32), train=False).array
        array([[3., 3.]], dtype=float32)
    """

    def __init__(self, in_size: Optional[int], out_size: int, ratio: float = .5,
                 nobias: bool = False, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        self.out_size = out_size
        self.ratio = ratio
        if initialW is None:
            initialW = initializers.HeNormal(1. / math.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            self.b = _param_args.bias(self, nobias, initial_bias, out_size)

    def _initialize_params(self, in_size: int) -> None:
        _param_args.initialize(self, 'initialW', self.W, (self.out_size, in_size))

    def forward(self, x: VariableOrArray, train: bool = True,
                mask: Optional[numpy.ndarray] = None,
                use_batchwise_mask: bool = True) -> variable.Variable:
        """Applies the layer to ``x`` ``(n, ...)`` (axes after the first are flattened).

        Args:
            x: The input.
            train (bool): Whether to drop weights; if False it is a plain linear layer.
            mask: None to draw a mask, or a ``(n, out_size, in_size)`` or ``(out_size,
                in_size)`` array to use (then ``use_batchwise_mask`` is ignored). The first
                mask given is kept as the persistent value ``mask``, as in Chainer.
            use_batchwise_mask (bool): Draw one mask per sample.

        Returns:
            The output ``(n, out_size)``.
        """
        if self.W.array is None:
            self._initialize_params(x.size // x.shape[0])
        if mask is not None and 'mask' not in self.__dict__:
            self.add_persistent('mask', mask)
        return simplified_dropconnect.simplified_dropconnect(
            x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask)
