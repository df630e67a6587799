"""Chainer's base class of 2-d pooling nodes, as ``chainer.functions.pooling.pooling_2d``.

In Chainer, :class:`Pooling2D` holds the window parameters of a 2-d pooling node and runs it
through cuDNN on the GPU; its subclasses write the CPU computation. chainlite's own pooling
nodes are N-dimensional (:mod:`~chainlite.functions.pooling.max_pooling_nd`,
:mod:`~chainlite.functions.pooling.average_pooling_nd`); this class serves code that
subclasses Chainer's. Its cuDNN path raises ``RuntimeError``: without CUDA, as Chainer's
does where cuDNN is absent, and with CUDA too (chainlite pools CuPy arrays with its own
array operations, not cuDNN).
"""
from __future__ import annotations

from typing import Any, NoReturn

from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.pooling import _pooling
from chainlite.utils import type_check

# Chainer's helper of this module: an int or a pair as a pair.
_pair = _pooling.pair


def _no_cudnn() -> NoReturn:
    # RuntimeError without CUDA (as Chainer's), and with it: chainlite pools without cuDNN.
    cuda.check_cuda_available()
    raise RuntimeError('cuDNN pooling is not used by chainlite: its pooling functions run '
                       'on GPU arrays through CuPy')


class Pooling2D(function_node.FunctionNode):
    """Base of 2-d pooling nodes: the window, stride and padding per axis.

    Subclasses implement ``forward`` (or ``forward_cpu``) and ``backward``; on the GPU,
    Chainer would call ``_get_pool_mode`` for cuDNN's pooling mode.

    Args:
        ksize: The window size, an int or a pair ``(kh, kw)``.
        stride: The stride, an int or a pair; None means ``ksize``.
        pad: The padding, an int or a pair.
        cover_all: Whether the output covers the whole input (extra windows at the end).
        return_indices: Whether the function returns the argmax indexes too.

    Example:
        >>> from chainlite.functions.pooling import pooling_2d
        >>> f = pooling_2d.Pooling2D(3, pad=1)
        >>> (f.kh, f.kw, f.sy, f.sx, f.ph, f.pw)
        (3, 3, 3, 3, 1, 1)
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        if stride is None:
            stride = ksize
        self.kh, self.kw = _pair(ksize)
        self.sy, self.sx = _pair(stride)
        self.ph, self.pw = _pair(pad)
        self.cover_all = cover_all
        self.return_indices = return_indices
        self._used_cudnn = False

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Pools with cuDNN in Chainer; raises RuntimeError here (see the module)."""
        _no_cudnn()

    def backward_gpu(self, x: tuple[Any, ...], gy: tuple[Any, ...]) -> tuple[Any, ...]:
        """The cuDNN gradient in Chainer; raises RuntimeError here (see the module)."""
        _no_cudnn()

    def _get_pool_mode(self) -> Any:
        # cuDNN's pooling mode, which each subclass names; chainlite does not use cuDNN.
        _no_cudnn()
