"""A linear layer whose weights are dropped at random (simplified dropconnect)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import einsum as einsum_mod
from chainlite.functions.math import matmul as matmul_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _as_mat(x: numpy.ndarray) -> numpy.ndarray:
    # A batch of samples as a matrix: one row per sample.
    return x if x.ndim == 2 else x.reshape(len(x), -1)


def _matmul(a: numpy.ndarray, b: numpy.ndarray, xp: Any) -> numpy.ndarray:
    # Batched matrix product with Chainer's argument order (array module last).
    return xp.matmul(a, b)


class SimplifiedDropconnect(function_node.FunctionNode):

    def __init__(self, ratio: float, mask: numpy.ndarray | None = None,
                 use_batchwise_mask: bool = True, train: bool = True) -> None:
        if not 0.0 <= ratio < 1.0:
            raise ValueError('SimplifiedDropconnect: ratio must be in the range [0, 1), got %r'
                             % (ratio,))
        self.ratio = ratio
        self.mask = mask
        self.use_batchwise_mask = use_batchwise_mask
        self.train = train

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x, W = in_types[:2]
        type_check.expect(
            x.dtype.kind == 'f',
            W.dtype.kind == 'f',  # W may have another float dtype (as in Chainer)
            x.ndim >= 2,
            W.ndim == 2,
            type_check.prod(x.shape[1:]) == W.shape[1],
        )
        if len(in_types) == 3:
            b = in_types[2]
            type_check.expect(b.dtype == x.dtype, b.ndim == 1, b.shape[0] == W.shape[0])
        mask = self.mask
        if mask is not None:
            if mask.ndim == 3:  # one mask per sample
                type_check.expect(
                    x.shape[0] == type_check.make_variable(mask.shape[0], 'mask.shape[0]'),
                    W.shape == type_check.make_variable(mask.shape[1:], 'mask.shape[1:]'))
            else:
                type_check.expect(
                    W.shape == type_check.make_variable(mask.shape, 'mask.shape'))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        x = x.reshape(len(x), -1)
        plain = False
        if self.mask is None:
            shape = ((len(x),) if self.use_batchwise_mask else ()) + W.shape
            if self.train:
                self.mask = xp.random.rand(*shape) >= self.ratio
            else:
                # Test mode: a plain linear layer. The mask keeps every weight, as Chainer
                # reports it, and costs no memory (a broadcast view).
                self.mask = xp.broadcast_to(xp.ones((), dtype=bool), shape)
                plain = True
        if plain:
            self.coef = None
            y = x @ W.T
        else:
            # The kept weights, scaled by 1 / (1 - ratio), as one constant factor.
            self.coef = self.mask * W.dtype.type(1. / (1 - self.ratio))
            Wm = W * self.coef
            if Wm.ndim == 3:
                y = xp.matmul(Wm, x[:, :, None])[:, :, 0]
            else:
                y = x @ Wm.T
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        c = self.coef
        x2: Any = reshape.reshape(x, (len(x), x.size // max(len(x), 1)))
        gb = sum_mod.sum(gy, axis=0) if 2 in indexes else None
        x_dtype = x.dtype
        if x_dtype != W.dtype:
            # Mixed dtypes: differentiate in W's dtype; gx is cast back to x's.
            gy, x2 = cast.cast_to(gy, W.dtype), cast.cast_to(x2, W.dtype)
        ret = []
        if 0 in indexes:
            if c is None:
                gx = matmul_mod.matmul(gy, W)
            elif c.ndim == 3:
                gx = einsum_mod.einsum('ij,ijk->ik', gy, W * c)
            else:
                gx = matmul_mod.matmul(gy, W * c)
            ret.append(cast.cast_to(reshape.reshape(gx, x.shape), x_dtype))
        if 1 in indexes:
            if c is None:
                ret.append(matmul_mod.matmul(gy, x2, transa=True))
            elif c.ndim == 3:
                ret.append(einsum_mod.einsum('ij,ik,ijk->jk', gy, x2, c))
            else:
                ret.append(matmul_mod.matmul(gy, x2, transa=True) * c)
        if 2 in indexes:
            ret.append(gb)
        return tuple(ret)


def simplified_dropconnect(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                           ratio: float = .5, train: bool = True, mask: numpy.ndarray | None = None,
                           use_batchwise_mask: bool = True) -> Variable:
    """A linear layer ``y = x W^T + b`` whose weights are dropped at random while training.

    Each weight is kept with probability ``1 - ratio`` and scaled by ``1 / (1 - ratio)``.
    With ``use_batchwise_mask`` every sample of the batch draws its own mask (a ``(n, M, N)``
    array); otherwise one ``(M, N)`` mask is shared. With ``train=False`` it is a plain
    linear layer.

    Args:
        x: A float Variable or array of shape ``(n, ...)``; the axes after the first are
            flattened into ``N`` input units.
        W: The weights, of shape ``(M, N)``; a float dtype, not necessarily ``x``'s (``y``
            has ``x``'s dtype, each gradient its input's).
        b: None, or the bias of shape ``(M,)``.
        ratio (float): The probability of dropping a weight, in ``[0, 1)``.
        train (bool): Whether to drop weights (this argument, not ``chainlite.config.train``,
            decides, as in Chainer).
        mask: None to draw the mask from NumPy's (CuPy's for GPU arrays) global random
            state, or a boolean (or 0/1) array of shape ``(n, M, N)`` or ``(M, N)`` to use;
            then ``use_batchwise_mask`` is not used, and the mask applies (scaled) even with
            ``train=False``, with ratio taken as 0 there, as in Chainer.
        use_batchwise_mask (bool): Draw one mask per sample rather than one for the batch.

    Returns:
        A Variable of shape ``(n, M)``.

    Example:
        >>> import numpy as np
        >>> x, W = np.ones((1, 2)), np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> mask = np.array([[True, False], [True, True]])
        >>> simplified_dropconnect(x, W, ratio=0.5, mask=mask).array
        array([[ 2., 14.]])
        >>> simplified_dropconnect(x, W, np.ones(2), train=False).array
        array([[4., 8.]])
    """
    if not train:
        ratio = 0
    func = SimplifiedDropconnect(ratio, variable.as_array(mask), use_batchwise_mask, train)
    inputs = (x, W) if b is None else (x, W, b)
    return func.apply(inputs)[0]
