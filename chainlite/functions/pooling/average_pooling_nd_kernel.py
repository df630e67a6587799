"""CUDA source text of N-d average pooling (Chainer's ``average_pooling_nd_kernel``).

Chainer compiles these on the GPU; chainlite pools with NumPy and never does. ``generate(ndim)``
gives ``(in_params, out_params, operation, name)`` of the elementwise kernels, for code that
builds on them (see :mod:`~chainlite.functions.pooling.pooling_nd_kernel`).

Example:
    >>> from chainlite.functions.pooling import average_pooling_nd_kernel as k
    >>> k.AveragePoolingNDKernelForward.generate(2)[3]
    'avg_pool_2d_fwd'
"""
from __future__ import annotations

from chainlite.functions.pooling import pooling_nd_kernel


class AveragePoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):
    """The forward kernel: the window's sum times ``coeff`` (one over the window size)."""

    def name(self) -> str:
        """Returns ``'avg'``."""
        return 'avg'

    def in_params(self) -> list[str]:
        """The scale of the sum, ``T coeff``."""
        return ['T coeff']

    def before(self) -> str:
        """Starts the sum."""
        return 'T val = 0;'

    def main(self, offset: str, xs: list[str]) -> str:
        """Adds the input at ``offset``."""
        return 'val = val + in[{}];'.format(offset)

    def after(self, out_xs: list[str]) -> str:
        """Writes the scaled sum."""
        return 'out = val * coeff;'


class AveragePoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):
    """The backward kernel: the sum of the (already scaled) ``gy`` of the covering windows."""

    def name(self) -> str:
        """Returns ``'avg'``."""
        return 'avg'

    def before(self) -> str:
        """Starts the sum."""
        return 'T val = 0;'

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        """Adds the output gradient at ``offset``."""
        return 'val = val + gy[{}];'.format(offset)

    def after(self, xs: list[str]) -> str:
        """Writes the sum."""
        return 'gx = val;'
