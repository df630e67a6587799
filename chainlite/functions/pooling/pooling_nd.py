"""Chainer's base of N-d pooling nodes and its cuDNN implementation, as
``chainer.functions.pooling.pooling_nd``.

In Chainer, :class:`_PoolingND` holds the parameters of an N-d pooling node and hands the
GPU computation to :class:`_CudnnPoolingNDImpl`. chainlite's pooling nodes keep their own
parameters and pool NumPy or CuPy arrays with array operations; these classes serve code
that builds on Chainer's. The cuDNN path raises ``RuntimeError``: without CUDA, as Chainer's
does where cuDNN is absent, and with CUDA too (chainlite does not call cuDNN's pooling).
"""
from __future__ import annotations

from typing import Any

from chainlite import function_node
from chainlite.functions.pooling import pooling_2d
from chainlite.utils import conv_nd
from chainlite.utils import type_check


class _PoolingND(function_node.FunctionNode):
    # Chainer's base of N-d pooling nodes: ndim, ksize, stride, pad as ndim-tuples.

    _cudnn_pool = None

    def __init__(self, ndim, ksize, stride=None, pad=0, cover_all=True,
                 return_indices=False):
        if stride is None:
            stride = ksize
        if ndim <= 0:
            raise ValueError('pooling operation requires at least one spatial dimension, '
                             'got ndim=%d' % ndim)
        self.ndim = ndim
        self.ksize = conv_nd.as_tuple(ksize, ndim)
        self.stride = conv_nd.as_tuple(stride, ndim)
        self.pad = conv_nd.as_tuple(pad, ndim)
        self.cover_all = cover_all
        self.return_indices = return_indices

    @property
    def is_cudnn_used(self):
        return self._cudnn_pool is not None

    def get_cudnn_pool_mode(self):
        # cuDNN's pooling mode, which each subclass names; chainlite does not use cuDNN.
        pooling_2d._no_cudnn()

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 2 + self.ndim, x.size > 0)

    def forward_cudnn(self, x):
        self._cudnn_pool = _CudnnPoolingNDImpl(self)
        return self._cudnn_pool.forward(x)

    def backward_cudnn(self, gy):
        assert self._cudnn_pool is not None
        return self._cudnn_pool.backward(gy)


class _CudnnPoolingNDImpl:
    # Chainer's cuDNN pooling of a _PoolingND node; raises RuntimeError without CUDA.

    def __init__(self, func):
        assert isinstance(func, _PoolingND)
        self.func = func

    def forward(self, x: Any) -> Any:
        pooling_2d._no_cudnn()

    def backward(self, gy: Any) -> Any:
        pooling_2d._no_cudnn()
