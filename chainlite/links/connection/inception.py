"""The Inception module of GoogLeNet."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import relu
from chainlite.functions.array import concat
from chainlite.functions.pooling import max_pooling_2d
from chainlite.links.connection import convolution_2d

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class Inception(link.Chain):
    """The Inception module of GoogLeNet (Szegedy et al., https://arxiv.org/abs/1409.4842).

    Four paths see the same input: a 1x1 convolution (``conv1``); a 1x1 projection
    (``proj3``), ReLU and a 3x3 convolution (``conv3``); a 1x1 projection (``proj5``), ReLU
    and a 5x5 convolution (``conv5``); a 3x3 max pooling (stride 1) and a 1x1 projection
    (``projp``). Their outputs, of the input's spatial size, are concatenated along the
    channels and passed through ReLU.

    Args:
        in_channels: Input channels, or None to infer them at the first forward.
        out1: Output channels of the 1x1 path.
        proj3: Channels of the projection before the 3x3 convolution.
        out3: Output channels of the 3x3 path.
        proj5: Channels of the projection before the 5x5 convolution.
        out5: Output channels of the 5x5 path.
        proj_pool: Output channels of the pooling path.
        conv_init: The initializer of the filters.
        bias_init: The initializer of the biases.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> inc = L.Inception(3, 2, 2, 3, 2, 4, 5)
        >>> inc(np.zeros((1, 3, 6, 6), np.float32)).shape
        (1, 14, 6, 6)
    """

    def __init__(self, in_channels: Optional[int], out1: int, proj3: int, out3: int, proj5: int,
                 out5: int, proj_pool: int, conv_init: InitializerSpec = None,
                 bias_init: InitializerSpec = None) -> None:
        super().__init__()
        kw: dict[str, Any] = {'initialW': conv_init, 'initial_bias': bias_init}
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(in_channels, out1, 1, **kw)
            self.proj3 = convolution_2d.Convolution2D(in_channels, proj3, 1, **kw)
            self.conv3 = convolution_2d.Convolution2D(proj3, out3, 3, pad=1, **kw)
            self.proj5 = convolution_2d.Convolution2D(in_channels, proj5, 1, **kw)
            self.conv5 = convolution_2d.Convolution2D(proj5, out5, 5, pad=2, **kw)
            self.projp = convolution_2d.Convolution2D(in_channels, proj_pool, 1, **kw)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Runs the four paths and concatenates them.

        Args:
            x: The input images ``(N, C, H, W)``.

        Returns:
            A Variable of shape ``(N, out1 + out3 + out5 + proj_pool, H, W)``.
        """
        out1 = self.conv1(x)
        out3 = self.conv3(relu.relu(self.proj3(x)))
        out5 = self.conv5(relu.relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d.max_pooling_2d(x, 3, stride=1, pad=1))
        return relu.relu(concat.concat((out1, out3, out5, pool), axis=1))
