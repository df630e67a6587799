"""Linear (fully connected) transformation ``y = x W^T + b``."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _blas
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import broadcast
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class LinearFunction(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x, W = in_types[:2]
        # W may have another float dtype (Chainer's mixed precision); y has x's dtype.
        type_check.expect(x.dtype.kind == 'f', W.dtype.kind == 'f', x.ndim == 2, W.ndim == 2,
                          x.shape[1] == W.shape[1])
        if len(in_types) == 3:
            b = in_types[2]
            type_check.expect(b.dtype == x.dtype, b.ndim == 1, b.shape[0] == W.shape[0])

    def _check_data_type_forward(self, in_data: tuple) -> None:
        # The usual case (2-d x and W of float dtypes, a matching bias) is accepted with a
        # few comparisons; anything else gets check_type_forward and its message.
        if len(in_data) == 3:
            x, W, b = in_data
            if x.ndim == 2 and W.ndim == 2 and b.ndim == 1 and x.dtype.kind == 'f' and \
                    W.dtype.kind == 'f' and b.dtype == x.dtype and \
                    x.shape[1] == W.shape[1] and b.shape[0] == W.shape[0]:
                return
        super()._check_data_type_forward(in_data)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))  # b is not needed by backward
        x, W = inputs[:2]
        if x.dtype is W.dtype and x.dtype.char != 'e':
            y = _blas.matmul(x, W.T)  # BLAS reads the transposed W in place
        else:
            y = matmul.matmul_arrays(x, W.T)
            if y.dtype != x.dtype:
                y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        return _LinearGrad(indexes).apply((x, W, gy))

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): dy = dx W^T + x dW^T + db, from retained x, W.
        in_nodes = self.inputs
        assert in_nodes is not None
        x, W = in_nodes[0].data, in_nodes[1].data
        tx, tW = tangents[0], tangents[1]
        t = None if tx is None else matmul.matmul_arrays(tx, W.T)
        if tW is not None:
            xtW = matmul.matmul_arrays(x, tW.T)
            t = xtW if t is None else t + xtW
        if len(tangents) == 3 and tangents[2] is not None:
            t = numpy.broadcast_to(tangents[2], (x.shape[0], W.shape[0])) + (
                0 if t is None else t)
        return t,

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        return _linear_grads(indexes, inputs[0], inputs[1], grad_outputs[0])



def _sum_rows(gy: numpy.ndarray) -> numpy.ndarray:
    # The bias gradient: gy summed over the batch, as F.sum computes it (float16 is
    # accumulated in float32).
    if gy.dtype == numpy.float16:
        with numpy.errstate(over='ignore'):
            return gy.sum(axis=(0,), dtype=numpy.float32).astype(gy.dtype)
    return numpy.add.reduce(gy, 0)  # gy.sum(axis=0) without its Python wrapper


def _linear_grads(indexes: tuple[int, ...], x: numpy.ndarray, W: numpy.ndarray,
                  gy: numpy.ndarray) -> tuple[numpy.ndarray, ...]:
    # gx = gy W, gW = gy^T x, gb = sum(gy, 0) for the indexes asked for (0 x, 1 W, 2 b), each
    # in its input's dtype: _LinearGrad's forward, and linear's backward on arrays.
    ret = []
    # One dtype, not half precision: no casts to make.
    plain = x.dtype is W.dtype and gy.dtype is W.dtype and W.dtype.char != 'e'
    for i in indexes:
        if i == 0:
            ret.append(_blas.matmul(gy, W) if plain else
                       matmul.matmul_arrays(gy, W).astype(x.dtype, copy=False))
        elif i == 1:
            ret.append(_blas.matmul(gy.T, x) if plain else
                       matmul.matmul_arrays(gy.T, x).astype(W.dtype, copy=False))
        else:
            ret.append(_sum_rows(gy))
    return tuple(ret)


class _LinearGrad(function_node.FunctionNode):
    # linear's gradients for the inputs asked for (indexes: 0 x, 1 W, 2 b; the outputs follow
    # them) in one node: gx = gy W, gW = gy^T x, gb = sum(gy, 0), each in its input's dtype.
    # Linear in gy and in (x, W), so its own backward is linear and matmul again.

    def __init__(self, indexes: tuple[int, ...]) -> None:
        self.indexes = tuple(indexes)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, W, gy = inputs
        return _linear_grads(self.indexes, x, W, gy)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W, gy = self.get_retained_inputs()
        gg = dict(zip(self.indexes, grad_outputs))
        ggx, ggW, ggb = gg.get(0), gg.get(1), gg.get(2)
        ret: list[Variable | None] = []
        for i in indexes:
            if i == 0:
                ret.append(None if ggW is None else
                           cast.cast_to(matmul.matmul(gy, ggW), x.dtype))
            elif i == 1:
                ret.append(None if ggx is None else
                           cast.cast_to(matmul.matmul(gy, ggx, transa=True), W.dtype))
            else:
                ret.append(self._grad_gy(x, W, gy, ggx, ggW, ggb))
        return tuple(ret)

    @staticmethod
    def _grad_gy(x, W, gy, ggx, ggW, ggb):
        # d/dgy of <ggx, gy W> + <ggW, gy^T x> + <ggb, sum(gy)> = ggx W^T + x ggW^T + ggb.
        g = None
        if ggx is not None:
            g = linear(ggx, W)
        if ggW is not None:
            h = linear(x, ggW, ggb)
            g = h if g is None else g + h
        elif ggb is not None:
            h = broadcast.broadcast_to(ggb, gy.shape)
            g = h if g is None else g + h
        return None if g is None else cast.cast_to(g, gy.dtype)

    def _jvp(self, tangents):
        # Forward-mode rule (chainlite.jvp): each output is bilinear in (x, W) and gy.
        in_nodes = self.inputs
        assert in_nodes is not None
        x, W, gy = in_nodes[0].data, in_nodes[1].data, in_nodes[2].data
        tx, tW, tgy = tangents
        ret = []
        for i in self.indexes:
            if i == 2:
                t = None if tgy is None else _sum_rows(tgy)
            else:
                other, t_other = (W, tW) if i == 0 else (x, tx)
                dtype = x.dtype if i == 0 else W.dtype
                t = None
                if tgy is not None:
                    t = (matmul.matmul_arrays(tgy, other) if i == 0 else
                         matmul.matmul_arrays(tgy.T, other)).astype(dtype, copy=False)
                if t_other is not None:
                    u = (matmul.matmul_arrays(gy, t_other) if i == 0 else
                         matmul.matmul_arrays(gy.T, t_other)).astype(dtype, copy=False)
                    t = u if t is None else t + u
            ret.append(t)
        return tuple(ret)


class LinearGradData(function_node.FunctionNode):
    """linear's input-gradient node (Chainer's): ``LinearGradData().apply((W, gy))`` is
    ``gy W`` in ``gy``'s dtype, for a 2-D ``gy``."""

    _float_inputs = True
    _arg_names = ('W', 'gy')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        W, gy = inputs
        return matmul.matmul_arrays(gy, W).astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        W, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        if 0 in indexes:
            gW, = LinearGradWeight(W.dtype).apply((ggx, gy))
            ret.append(cast.cast_to(gW, W.dtype))
        if 1 in indexes:
            ret.append(cast.cast_to(linear(ggx, W), gy.dtype))
        return tuple(ret)


class LinearGradWeight(function_node.FunctionNode):
    """linear's weight-gradient node (Chainer's): ``LinearGradWeight(w_dtype).apply((x,
    gy))`` is ``gy^T x`` in ``w_dtype``, for 2-D ``x`` and ``gy``."""

    _float_inputs = True
    _arg_names = ('x', 'gy')

    def __init__(self, w_dtype: Any) -> None:
        self._w_dtype = numpy.dtype(w_dtype)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return matmul.matmul_arrays(gy.T, x).astype(self._w_dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        if 0 in indexes:
            gx, = LinearGradData().apply((ggW, gy))
            ret.append(cast.cast_to(gx, x.dtype))
        if 1 in indexes:
            ret.append(cast.cast_to(linear(x, ggW), gy.dtype))
        return tuple(ret)


def linear(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
           n_batch_axes: int = 1) -> Variable:
    """Linear function (affine transformation): ``y = x W^T + b``.

    The first ``n_batch_axes`` axes of ``x`` are batch axes; the others are flattened into
    one axis of length ``N``, which must match ``W``'s second axis.

    Args:
        x: A float Variable or array of shape ``(s_1, ..., s_n)`` with
            ``s_{n_batch_axes + 1} * ... * s_n == N``.
        W: The weight, a Variable or array of shape ``(M, N)``;
            any float dtype (the output has ``x``'s).
        b: The bias, of shape ``(M,)`` (optional).
        n_batch_axes: The number of batch axes (at least 1).

    Returns:
        A Variable of shape ``(s_1, ..., s_{n_batch_axes}, M)``.

    Raises:
        ValueError: If ``n_batch_axes`` is not positive.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[1.0, 2.0]])
        >>> W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
        >>> F.linear(x, W, np.array([0.0, 0.5, -1.0])).array
        array([[1. , 3.5, 3. ]])
        >>> F.linear(np.ones((2, 3, 4, 2)), W, n_batch_axes=3).shape
        (2, 3, 4, 3)
    """
    if n_batch_axes == 1 and getattr(x, 'ndim', None) == 2:
        # The usual call, a batch of vectors: nothing to reshape.
        if x.__class__ is numpy.ndarray:
            # (a bare array costs FunctionNode.apply an exception and its slow road)
            x = variable._new_variable(x, None, False)
        return LinearFunction().apply((x, W) if b is None else (x, W, b))[0]
    if n_batch_axes <= 0:
        raise ValueError('linear: n_batch_axes must be greater than 0, got %r'
                         % (n_batch_axes,))
    try:
        batch_shape = tuple(x.shape[:n_batch_axes])
    except AttributeError:
        seen = 'a Variable without data' if isinstance(x, variable.Variable) else \
            type(x).__name__
        raise TypeError('linear: x must be a Variable or a numpy.ndarray with data, got %s'
                        % seen) from None
    if n_batch_axes > 1 or x.ndim > 2:
        x = reshape.reshape(x, (math.prod(batch_shape), math.prod(x.shape[n_batch_axes:])))
    y, = LinearFunction().apply((x, W) if b is None else (x, W, b))
    if n_batch_axes > 1:
        y = reshape.reshape(y, batch_shape + (y.shape[1],))
    return y
