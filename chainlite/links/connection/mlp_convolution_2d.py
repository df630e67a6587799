"""The mlpconv layer of Network in Network."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import relu
from chainlite.links.connection import convolution_2d

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, ShapeSpec, VariableOrArray


class MLPConvolution2D(link.ChainList):
    """A 2-D convolution followed by 1x1 convolutions, with an activation between them (the
    "mlpconv" layer of Network in Network, https://arxiv.org/abs/1312.4400).

    The children are :class:`~chainlite.links.Convolution2D` links named ``0``, ``1``, ...;
    the activation is not applied after the last one.

    Args:
        in_channels: The number of input channels, or None to infer it at the first forward.
            May be omitted: ``MLPConvolution2D(out_channels, ksize)``.
        out_channels: A sequence of ints: the output channels of each convolution (at least
            one).
        ksize: The filter size of the first convolution (an int or a pair).
        stride: The stride of the first convolution.
        pad: The padding of the first convolution.
        activation: The function applied between the convolutions (not a Link).
        conv_init: The initializer of the filters (keyword only).
        bias_init: The initializer of the biases (keyword only).

    Attributes:
        activation: The activation function.

    Raises:
        ValueError: If ``out_channels`` is empty, or for ``wscale`` (Chainer v1's argument).
        TypeError: For arguments after ``activation`` given by position.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> mlp = L.MLPConvolution2D(3, (8, 4, 2), 3, pad=1)
        >>> mlp(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 5, 5)
        >>> [name for name, _ in mlp.namedparams()][:2]
        ['/0/W', '/0/b']
    """

    def __init__(self, in_channels: Optional[int] | Sequence[int],
                 out_channels: int | Sequence[int], ksize: ShapeSpec | None = None,
                 stride: ShapeSpec = 1, pad: ShapeSpec = 0, activation: Callable = relu.relu,
                 *args: Any, conv_init: InitializerSpec = None, bias_init: InitializerSpec = None,
                 **kwargs: Any) -> None:
        # Chainer v1 took wscale here (positionally or by keyword); say so rather than
        # ignoring it.
        if args:
            raise TypeError('MLPConvolution2D: wscale is not supported anymore; use '
                            'conv_init and bias_init to change the initial parameters')
        if 'wscale' in kwargs:
            raise ValueError('MLPConvolution2D: wscale is not supported anymore; use '
                             'conv_init and bias_init to change the initial parameters')
        if kwargs:
            raise TypeError('MLPConvolution2D got unexpected keyword arguments %s'
                            % sorted(kwargs))
        first_in: Any = in_channels
        outs: Any = out_channels
        if ksize is None:
            outs, ksize, first_in = in_channels, out_channels, None
        channels = list(outs) if isinstance(outs, Sequence) else None
        if not channels:
            raise ValueError('MLPConvolution2D: out_channels must be a non-empty sequence of '
                             'ints')
        convs = [convolution_2d.Convolution2D(first_in, channels[0], ksize, stride,
                                              pad, initialW=conv_init,
                                              initial_bias=bias_init)]
        for n_in, n_out in zip(channels, channels[1:]):
            convs.append(convolution_2d.Convolution2D(n_in, n_out, 1, initialW=conv_init,
                                                      initial_bias=bias_init))
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Runs the convolutions, with the activation between them.

        Args:
            x: The input images ``(N, C, H, W)``.

        Returns:
            The output of the last convolution (no activation after it).
        """
        f = self.activation
        for conv in self[:-1]:
            x = f(conv(x))
        return self[-1](x)
