"""The Inception module with batch normalization (Inception v2)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.activation import relu
from chainlite.functions.array import concat
from chainlite.functions.pooling import average_pooling_2d
from chainlite.functions.pooling import max_pooling_2d
from chainlite.links.connection import convolution_2d
from chainlite.links.normalization import batch_normalization

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, InitializerSpec, VariableOrArray


class _PoolTypeError(ValueError, NotImplementedError):
    # A ValueError; also a NotImplementedError, which Chainer raises here.
    pass


class _StrideError(ValueError, AssertionError):
    # A ValueError; also an AssertionError, which Chainer raises here.
    pass


class InceptionBN(link.Chain):
    """Inception module with batch normalization (Ioffe & Szegedy,
    https://arxiv.org/abs/1502.03167).

    As :class:`~chainlite.links.Inception`, but every convolution (without bias) is followed
    by :class:`~chainlite.links.BatchNormalization` and ReLU, the 5x5 path is two 3x3
    convolutions (``conv33a``, ``conv33b``), the pooling is max or average, and the module
    can downsample (``stride``). Links: ``proj3``/``proj3n``, ``conv3``/``conv3n``,
    ``proj33``/``proj33n``, ``conv33a``/``conv33an``, ``conv33b``/``conv33bn``; with
    ``out1 > 0`` also ``conv1``/``conv1n``; with ``proj_pool`` also ``poolp``/``poolpn``.

    Args:
        in_channels: Input channels, or None to infer them at the first forward.
        out1: Output channels of the 1x1 path (0: no such path).
        proj3: Channels of the projection before the 3x3 convolution.
        out3: Output channels of the 3x3 path.
        proj33: Channels of the projection before the two 3x3 convolutions.
        out33: Output channels of the double 3x3 path.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: Output channels of the projection after pooling, or None for no projection
            (the pooled input is passed on).
        stride: The stride of the 3x3 convolutions and the pooling.
        conv_init: The initializer of the filters.
        dtype: The dtype of the batch normalization parameters.

    Attributes:
        out1, proj_pool, stride, pooltype: The arguments of the same names.

    Raises:
        ValueError: If ``pooltype`` is neither (also a NotImplementedError, as Chainer's), or
            ``out1 > 0`` without ``proj_pool`` or with a stride other than 1 (also an
            AssertionError, as Chainer's).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> inc = L.InceptionBN(3, 2, 2, 3, 2, 4, 'avg', proj_pool=5)
        >>> inc(np.ones((2, 3, 6, 6), np.float32)).shape
        (2, 14, 6, 6)
        >>> L.InceptionBN(3, 0, 2, 3, 2, 4, 'max', stride=2)(
        ...     np.ones((2, 3, 6, 6), np.float32)).shape
        (2, 10, 3, 3)
    """

    def __init__(self, in_channels: Optional[int], out1: int, proj3: int, out3: int, proj33: int,
                 out33: int, pooltype: str, proj_pool: Optional[int] = None, stride: int = 1,
                 conv_init: InitializerSpec = None, dtype: DTypeSpec = None) -> None:
        super().__init__()
        if pooltype not in ('max', 'avg'):
            raise _PoolTypeError("InceptionBN: pooltype must be 'max' or 'avg', got %r"
                             % (pooltype,))
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise _StrideError('InceptionBN: the 1x1 path (out1 > 0) needs stride=1 and a '
                             'proj_pool, got stride=%r, proj_pool=%r' % (stride, proj_pool))
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype

        def conv(n_in, n_out, ksize, **kw):
            return convolution_2d.Convolution2D(n_in, n_out, ksize, nobias=True,
                                                initialW=conv_init, **kw)

        def bn(size):
            return batch_normalization.BatchNormalization(size, dtype=dtype)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, pad=1, stride=stride)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3, pad=1)
            self.conv33b = conv(out33, out33, 3, pad=1, stride=stride)
            self.proj3n = bn(proj3)
            self.conv3n = bn(out3)
            self.proj33n = bn(proj33)
            self.conv33an = bn(out33)
            self.conv33bn = bn(out33)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1, stride=stride)
                self.conv1n = bn(out1)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = bn(proj_pool)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Runs the paths and concatenates them along the channels.

        Args:
            x: The input images ``(N, C, H, W)``.

        Returns:
            A Variable with ``out1 + out3 + out33 + (proj_pool or C)`` channels.
        """
        outs = []
        if self.out1 > 0:
            outs.append(relu.relu(self.conv1n(self.conv1(x))))
        h3 = relu.relu(self.proj3n(self.proj3(x)))
        outs.append(relu.relu(self.conv3n(self.conv3(h3))))
        h33 = relu.relu(self.proj33n(self.proj33(x)))
        h33 = relu.relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu.relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == 'max':
            p = max_pooling_2d.max_pooling_2d(x, 3, stride=self.stride, pad=1,
                                              cover_all=False)
        else:
            p = average_pooling_2d.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            p = relu.relu(self.poolpn(self.poolp(p)))
        outs.append(p)
        return concat.concat(outs, axis=1)
