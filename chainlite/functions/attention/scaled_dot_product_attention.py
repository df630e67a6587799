"""Scaled dot-product attention: ``softmax(q k^T * scale + mask) v``."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, Optional, overload

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.functions.activation import softmax
from chainlite.functions.array import cast
from chainlite.functions.array import sum_to
from chainlite.functions.math import matmul

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

_NAME = 'scaled_dot_product_attention'


class ScaledDotProductAttention(function_node.FunctionNode):

    _arg_names = ('q', 'k', 'v', 'mask')

    def __init__(self, scale: float, is_causal: bool = False,
                 dropout_ratio: float = 0.0) -> None:
        self.scale = scale
        self.is_causal = is_causal
        self.dropout_ratio = dropout_ratio
        self.keep: Optional[numpy.ndarray] = None  # the weights dropout kept (bool), if any

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        q, k, v = inputs[:3]
        mask = inputs[3] if len(inputs) == 4 else None
        xp = backend.get_array_module(q)
        dtype = matmul.compute_dtype(q)  # float16 is computed in float32
        # The scores become the weights in place: only the weights outlive forward.
        s = matmul.matmul_arrays(matmul.as_dtype(q, dtype),
                                 matmul.as_dtype(k, dtype).swapaxes(-1, -2))
        s *= dtype.type(self.scale)
        allowed = None
        if mask is not None:
            shape = numpy.broadcast_shapes(s.shape, mask.shape)
            if shape != s.shape:
                s = xp.broadcast_to(s, shape).copy()  # the mask has batch axes q and k lack
            if mask.dtype.kind == 'b':
                allowed = mask
            else:
                s += mask
        if self.is_causal:
            causal = xp.tri(s.shape[-2], s.shape[-1], dtype=bool)
            allowed = causal if allowed is None else allowed & causal
        if allowed is not None:
            xp.copyto(s, -numpy.inf, where=xp.logical_not(allowed))
        # (No keys: no maximum; CuPy's max has no initial= to give one.)
        m = s.max(axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,),
                                                                           s.dtype)
        # A row masked everywhere has the maximum -inf: shifted by 0 instead, its exponentials
        # are all 0, and so are its weights (dividing by 1) and its output.
        # (copyto with where=, not boolean-mask indexing, which may wait for the GPU)
        xp.copyto(m, 0, where=m == -numpy.inf)
        s -= m
        xp.exp(s, out=s)
        z = s.sum(axis=-1, keepdims=True)
        xp.copyto(z, 1, where=z == 0)
        s /= z
        pd = s
        if self.dropout_ratio:
            self.keep = xp.random.rand(*s.shape) >= self.dropout_ratio
            pd = s * self._dropout_mask(dtype)
        y = matmul.matmul_arrays(pd, matmul.as_dtype(v, dtype))
        self.retain_inputs((0, 1, 2))
        self.retain_outputs((1,))  # the weights; the scores are gone
        return matmul.as_dtype(y, q.dtype), matmul.as_dtype(s, q.dtype)

    def _dropout_mask(self, dtype: Any) -> numpy.ndarray:
        # 0 where dropped, 1 / (1 - ratio) where kept; kept as bool between the passes.
        assert self.keep is not None
        return self.keep * numpy.dtype(dtype).type(1.0 / (1.0 - self.dropout_ratio))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        q, k, v = self.get_retained_inputs()
        p, = self.get_retained_outputs()
        gy, gw = grad_outputs
        dmask = None if self.keep is None else self._dropout_mask(p.dtype)
        ret: dict[int, Any] = {}
        gp = gw
        if gy is not None:
            if 2 in indexes:
                pd = p if dmask is None else p * dmask
                ret[2] = sum_to.sum_to(matmul.matmul(pd, gy, transa=True), v.shape)
            if any(i != 2 for i in indexes):  # q, k or the mask need the weights' gradient
                gpd = matmul.matmul(gy, v, transb=True)
                if dmask is not None:
                    gpd = gpd * dmask
                gpd = sum_to.sum_to(gpd, p.shape)
                gp = gpd if gp is None else gp + gpd
        if gp is not None and (0 in indexes or 1 in indexes or 3 in indexes):
            gs, = softmax._SoftmaxGrad(-1).apply((p, gp))
            if 3 in indexes:
                inputs = self.inputs
                assert inputs is not None
                mask = inputs[3]
                if mask.dtype.kind == 'f':
                    ret[3] = cast.cast_to(sum_to.sum_to(gs, mask.shape), mask.dtype)
            if 0 in indexes or 1 in indexes:
                gs = gs * self.scale
                if 0 in indexes:
                    ret[0] = sum_to.sum_to(matmul.matmul(gs, k), q.shape)
                if 1 in indexes:
                    ret[1] = sum_to.sum_to(matmul.matmul(gs, q, transa=True), k.shape)
        return tuple(ret.get(i) for i in indexes)


def _describe(x: Any, name: str) -> tuple[tuple[int, ...], numpy.dtype]:
    # The shape and dtype of an input, or a TypeError naming it.
    shape, dtype = getattr(x, 'shape', None), getattr(x, 'dtype', None)
    if not isinstance(shape, tuple) or not isinstance(dtype, numpy.dtype):
        raise TypeError('%s: %s must be a Variable or an array, got %s'
                        % (_NAME, name, type(x).__name__))
    return shape, dtype


def _check(q: Any, k: Any, v: Any, mask: Any, dropout_ratio: float) -> int:
    # Clear errors for the arguments; returns E, the size the default scale comes from.
    shapes = {}
    dtypes = []
    for name, x, axes in (('q', q, 'L, E'), ('k', k, 'S, E'), ('v', v, 'S, Ev')):
        shape, dtype = _describe(x, name)
        if dtype.kind != 'f':
            raise TypeError('%s: %s must be a float array, got dtype %s' % (_NAME, name, dtype))
        if len(shape) < 2:
            raise ValueError('%s: %s must have shape (..., %s), at least 2 axes, got shape %s'
                             % (_NAME, name, axes, shape))
        shapes[name] = shape
        dtypes.append(dtype)
    if not dtypes[0] == dtypes[1] == dtypes[2]:
        raise TypeError('%s: q, k and v must have one dtype, got %s, %s and %s'
                        % ((_NAME,) + tuple(dtypes)))
    qs, ks, vs = shapes['q'], shapes['k'], shapes['v']
    if qs[-1] != ks[-1]:
        raise ValueError('%s: q and k must have the same last axis E, got q.shape=%s and '
                         'k.shape=%s' % (_NAME, qs, ks))
    if ks[-2] != vs[-2]:
        raise ValueError('%s: k and v must have the same source length S (axis -2), got '
                         'k.shape=%s and v.shape=%s' % (_NAME, ks, vs))
    try:
        batch = numpy.broadcast_shapes(qs[:-2], ks[:-2], vs[:-2])
    except ValueError:
        raise ValueError('%s: the batch axes (all but the last two) of q, k and v do not '
                         'broadcast together: q.shape=%s, k.shape=%s, v.shape=%s'
                         % (_NAME, qs, ks, vs)) from None
    if mask is not None:
        shape, dtype = _describe(mask, 'mask')
        if dtype.kind not in 'bf':
            raise TypeError('%s: mask must be a bool or float array, got dtype %s'
                            % (_NAME, dtype))
        scores = batch + (qs[-2], ks[-2])
        try:
            fits = numpy.broadcast_shapes(shape, scores) == scores
        except ValueError:
            fits = False
        if not fits:
            raise ValueError('%s: mask.shape=%s does not broadcast to the shape (..., L, S) = '
                             '%s of the scores of q.shape=%s and k.shape=%s'
                             % (_NAME, shape, scores, qs, ks))
    if not 0.0 <= dropout_ratio < 1.0:
        raise ValueError('%s: dropout_ratio must be in the range [0, 1), got %r'
                         % (_NAME, dropout_ratio))
    return qs[-1]


@overload
def scaled_dot_product_attention(
        q: VariableOrArray, k: VariableOrArray, v: VariableOrArray,
        mask: VariableOrArray | None = ..., dropout_ratio: float = ..., is_causal: bool = ...,
        scale: float | None = ..., *, return_weights: Literal[False] = ...) -> Variable: ...


@overload
def scaled_dot_product_attention(
        q: VariableOrArray, k: VariableOrArray, v: VariableOrArray,
        mask: VariableOrArray | None = ..., dropout_ratio: float = ..., is_causal: bool = ...,
        scale: float | None = ..., *, return_weights: Literal[True]
) -> tuple[Variable, Variable]: ...


@overload
def scaled_dot_product_attention(
        q: VariableOrArray, k: VariableOrArray, v: VariableOrArray,
        mask: VariableOrArray | None = ..., dropout_ratio: float = ..., is_causal: bool = ...,
        scale: float | None = ..., *, return_weights: bool = ...
) -> Variable | tuple[Variable, Variable]: ...


def scaled_dot_product_attention(
        q: VariableOrArray, k: VariableOrArray, v: VariableOrArray,
        mask: VariableOrArray | None = None, dropout_ratio: float = 0.0,
        is_causal: bool = False, scale: float | None = None, *,
        return_weights: bool = False) -> Variable | tuple[Variable, Variable]:
    """Attention ``softmax(q k^T * scale + mask) v`` over the last two axes.

    Query position ``i`` takes the average of the values ``v[j]`` weighted by
    ``softmax_j(scale * q[i] . k[j])``, as in PyTorch's
    ``torch.nn.functional.scaled_dot_product_attention``. Leading (batch) axes broadcast, so
    keys and values of shape ``(B, 1, S, E)`` serve every head of a ``(B, H, L, E)`` query.

    Masks follow PyTorch's ``attn_mask`` of this function:

    * a **bool** ``mask`` is True where attention is **allowed** (False blocks it);
    * a **float** ``mask`` is added to the scores (``-inf`` blocks; it may be a Variable,
      a learned bias, and gets a gradient);
    * ``is_causal=True`` blocks key ``j > i`` for query ``i`` (the lower-left triangle
      ``numpy.tri(L, S)`` is allowed, aligned at the top left when ``L != S``), combined
      with ``mask`` if both are given (PyTorch refuses both).

    A query whose keys are **all blocked** gets zero weights and a zero output (and zero
    gradients), where PyTorch gives NaN.

    The backward pass keeps ``q``, ``k``, ``v`` and the weights (one array of the scores'
    shape, in the inputs' dtype), not the scores; with dropout, also a bool mask. It is
    built from differentiable functions, so the attention can be differentiated twice.
    float16 inputs are computed in float32 and the results cast back.

    Args:
        q: Queries, a float Variable or array of shape ``(..., L, E)``.
        k: Keys, of shape ``(..., S, E)`` and ``q``'s dtype.
        v: Values, of shape ``(..., S, Ev)`` and ``q``'s dtype.
        mask: None, or a bool or float array (or Variable) that broadcasts to the scores'
            shape ``(..., L, S)``, as described above.
        dropout_ratio: The probability of dropping each attention weight (the kept ones are
            scaled by ``1 / (1 - dropout_ratio)``), applied only when
            ``chainlite.config.train`` is True, as :func:`~chainlite.functions.dropout`.
        is_causal: Block key ``j`` for query ``i`` when ``j > i``.
        scale: The factor of the scores; None means ``1 / sqrt(E)``.
        return_weights: Also return the attention weights, of the scores' shape (before
            dropout; every row sums to 1, or is 0 where all keys are blocked).

    Returns:
        The output Variable of shape ``(..., L, Ev)`` and ``q``'s dtype, or ``(output,
        weights)`` when ``return_weights`` is True.

    Raises:
        TypeError: If ``q``, ``k`` or ``v`` is not float or their dtypes differ, or if
            ``mask`` is neither bool nor float.
        ValueError: If the shapes do not fit (the message names the argument and shows the
            shapes), or ``dropout_ratio`` is outside ``[0, 1)``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> q = np.array([[1.0, 0.0]])
        >>> k = np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> v = np.array([[1.0], [3.0]])
        >>> F.scaled_dot_product_attention(q, k, v, scale=np.log(3.0)).array  # weights 3:1
        array([[1.5]])
        >>> F.scaled_dot_product_attention(q, k, v, mask=np.array([[False, True]])).array
        array([[3.]])
    """
    size = _check(q, k, v, mask, dropout_ratio)
    if scale is None:
        scale = 1.0 / math.sqrt(size) if size else 1.0
    ratio = dropout_ratio if configuration.config.train else 0.0
    node = ScaledDotProductAttention(float(scale), bool(is_causal), ratio)
    y, weights = node.apply((q, k, v) if mask is None else (q, k, v, mask))
    return (y, weights) if return_weights else y
