"""Multi-head attention, the layer of transformers."""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Literal, Optional, overload

import numpy

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.array import expand_dims
from chainlite.functions.array import reshape
from chainlite.functions.array import swapaxes
from chainlite.functions.array import transpose
from chainlite.functions.attention import scaled_dot_product_attention as sdpa
from chainlite.functions.math import mean
from chainlite.links.connection import _param_args
from chainlite.links.connection import linear

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class MultiHeadAttention(link.Chain):
    """Multi-head attention (Vaswani et al., 2017), as PyTorch's ``nn.MultiheadAttention``.

    The query, key and value are projected to ``embed_dim`` features by the child links
    ``q_proj``, ``k_proj`` and ``v_proj``, split into ``num_heads`` heads of
    ``embed_dim // num_heads`` features, attended with
    :func:`~chainlite.functions.scaled_dot_product_attention` head by head, concatenated and
    projected by ``out_proj``. The parameters, in this order, are ``/q_proj/W``,
    ``/q_proj/b``, ``/k_proj/W``, ``/k_proj/b``, ``/v_proj/W``, ``/v_proj/b``,
    ``/out_proj/W``, ``/out_proj/b``; PyTorch's ``in_proj_weight`` is the first three ``W``
    stacked (and ``in_proj_bias`` the three ``b``).

    The two masks of :meth:`forward` follow PyTorch's ``nn.MultiheadAttention``: **True means
    blocked** (a padded key, a forbidden pair), the opposite of the bool ``mask`` of
    :func:`~chainlite.functions.scaled_dot_product_attention` (True: allowed); a float mask
    is added to the scores. A query whose keys are all blocked gets a zero attention result
    (the output is then ``out_proj``'s bias), where PyTorch gives NaN.

    Args:
        embed_dim: The size of the queries and of the output.
        num_heads: The number of heads; it must divide ``embed_dim``.
        dropout: The dropout ratio of the attention weights (in training only).
        bias: If False, the four projections have no bias.
        kdim: The size of the keys (None: ``embed_dim``).
        vdim: The size of the values (None: ``embed_dim``).
        batch_first: If True (the default here; PyTorch's is False), inputs and output are
            ``(N, L, E)``; else ``(L, N, E)``.
        initialW: The initializer of the four ``W`` (None: GlorotUniform, PyTorch's
            ``xavier_uniform_``, for the input projections; LeCunNormal for ``out_proj``).
        initial_bias: The initializer of the four ``b`` (None: 0).

    Attributes:
        q_proj: The Linear link projecting the query.
        k_proj: The Linear link projecting the key.
        v_proj: The Linear link projecting the value.
        out_proj: The Linear link projecting the concatenated heads.
        embed_dim: ``embed_dim``.
        num_heads: ``num_heads``.
        head_dim: ``embed_dim // num_heads``.
        dropout: The dropout ratio.
        batch_first: Whether the batch axis comes first.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> mha = L.MultiHeadAttention(8, num_heads=2)
        >>> x = np.random.default_rng(0).standard_normal((3, 5, 8)).astype(np.float32)
        >>> mha(x).shape                      # self-attention: (N, L, E)
        (3, 5, 8)
        >>> padded = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 5])
        >>> y, w = mha(x, key_padding_mask=padded, need_weights=True)
        >>> w.shape, float(w.array[1, :, 3:].max())   # no weight on padded keys
        ((3, 5, 5), 0.0)
    """

    q_proj: linear.Linear
    k_proj: linear.Linear
    v_proj: linear.Linear
    out_proj: linear.Linear
    embed_dim: int
    num_heads: int
    head_dim: int
    kdim: int
    vdim: int
    dropout: float
    batch_first: bool

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 kdim: Optional[int] = None, vdim: Optional[int] = None,
                 batch_first: bool = True, initialW: InitializerSpec = None,
                 initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        _param_args.check_size(self, 'embed_dim', embed_dim, 1, optional=False)
        _param_args.check_size(self, 'num_heads', num_heads, 1, optional=False)
        _param_args.check_size(self, 'kdim', kdim, 1)
        _param_args.check_size(self, 'vdim', vdim, 1)
        if embed_dim % num_heads:
            raise ValueError('MultiHeadAttention: num_heads=%d must divide embed_dim=%d'
                             % (num_heads, embed_dim))
        if not isinstance(dropout, numbers.Real) or not 0.0 <= dropout < 1.0:
            raise ValueError('MultiHeadAttention: dropout must be in the range [0, 1), got %r'
                             % (dropout,))
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = float(dropout)
        self.batch_first = batch_first
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        in_W = initializers.GlorotUniform() if initialW is None else initialW
        with self.init_scope():
            self.q_proj = linear.Linear(embed_dim, embed_dim, not bias, in_W, initial_bias)
            self.k_proj = linear.Linear(self.kdim, embed_dim, not bias, in_W, initial_bias)
            self.v_proj = linear.Linear(self.vdim, embed_dim, not bias, in_W, initial_bias)
            self.out_proj = linear.Linear(embed_dim, embed_dim, not bias, initialW,
                                          initial_bias)

    @overload
    def forward(self, query: VariableOrArray, key: VariableOrArray | None = ...,
                value: VariableOrArray | None = ...,
                key_padding_mask: VariableOrArray | None = ...,
                attn_mask: VariableOrArray | None = ..., is_causal: bool = ...,
                need_weights: Literal[False] = ...,
                average_attn_weights: bool = ...) -> variable.Variable: ...

    @overload
    def forward(self, query: VariableOrArray, key: VariableOrArray | None = ...,
                value: VariableOrArray | None = ...,
                key_padding_mask: VariableOrArray | None = ...,
                attn_mask: VariableOrArray | None = ..., is_causal: bool = ..., *,
                need_weights: Literal[True],
                average_attn_weights: bool = ...
                ) -> tuple[variable.Variable, variable.Variable]: ...

    def forward(self, query: VariableOrArray, key: VariableOrArray | None = None,
                value: VariableOrArray | None = None,
                key_padding_mask: VariableOrArray | None = None,
                attn_mask: VariableOrArray | None = None, is_causal: bool = False,
                need_weights: bool = False, average_attn_weights: bool = True
                ) -> variable.Variable | tuple[variable.Variable, variable.Variable]:
        """Attends from ``query`` to ``key`` and ``value``.

        Shapes below are for ``batch_first=True``; with ``batch_first=False`` the first two
        axes of ``query``, ``key``, ``value`` and the output are swapped. 2-D inputs
        ``(L, E)`` are one unbatched sequence (masks and weights then lose their ``N``).

        Args:
            query: ``(N, L, embed_dim)``.
            key: ``(N, S, kdim)``; None: ``query`` (self-attention).
            value: ``(N, S, vdim)``; None: ``key``.
            key_padding_mask: ``(N, S)``: **True marks a padded key** that no query attends
                to (PyTorch's convention); a float mask is added to the scores instead.
            attn_mask: ``(L, S)``, ``(N * num_heads, L, S)`` or broadcastable to ``(N,
                num_heads, L, S)``: **True blocks** query ``i`` from key ``j`` (PyTorch's
                ``nn.MultiheadAttention`` convention); a float mask is added to the scores.
            is_causal: Also block key ``j > i`` for query ``i`` (combined with the masks;
                in PyTorch it is only a hint that ``attn_mask`` is causal).
            need_weights: Also return the attention weights.
            average_attn_weights: Return the weights averaged over the heads, ``(N, L,
                S)``, rather than per head, ``(N, num_heads, L, S)``.

        Returns:
            The output Variable ``(N, L, embed_dim)``, or ``(output, weights)`` when
            ``need_weights`` is True. The weights are taken before dropout (PyTorch's after).
        """
        if key is None:
            key = query
        if value is None:
            value = key
        unbatched = self._check_inputs(query, key, value)
        if unbatched:
            query, key, value = (expand_dims.expand_dims(x, 0) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = expand_dims.expand_dims(key_padding_mask, 0)
        elif not self.batch_first:
            query, key, value = (swapaxes.swapaxes(x, 0, 1) for x in (query, key, value))
        n, length = query.shape[:2]
        mask = self._mask(key_padding_mask, attn_mask, n, length, key.shape[1], query.dtype)
        # The batch is written -1 in every reshape, so an ONNX export with a symbolic batch
        # axis follows any batch size.
        q, k, v = (self._split_heads(proj(reshape.reshape(x, (-1, x.shape[2]))), x.shape[1])
                   for proj, x in ((self.q_proj, query), (self.k_proj, key),
                                   (self.v_proj, value)))
        y, weights = sdpa.scaled_dot_product_attention(
            q, k, v, mask, dropout_ratio=self.dropout, is_causal=is_causal,
            return_weights=True)
        y = reshape.reshape(transpose.transpose(y, (0, 2, 1, 3)), (-1, self.embed_dim))
        y = reshape.reshape(self.out_proj(y), (-1, length, self.embed_dim))
        if unbatched:
            y = reshape.reshape(y, y.shape[1:])
        elif not self.batch_first:
            y = swapaxes.swapaxes(y, 0, 1)
        if not need_weights:
            return y
        if average_attn_weights:
            weights = mean.mean(weights, axis=1)
        if unbatched:
            weights = reshape.reshape(weights, weights.shape[1:])
        return y, weights

    def _split_heads(self, x: variable.Variable, length: int) -> variable.Variable:
        # (N * L, embed_dim) -> (N, num_heads, L, head_dim)
        x = reshape.reshape(x, (-1, length, self.num_heads, self.head_dim))
        return transpose.transpose(x, (0, 2, 1, 3))

    def _check_inputs(self, query: Any, key: Any, value: Any) -> bool:
        # Clear errors for the inputs' shapes; returns whether they are unbatched.
        names = ('query', 'key', 'value')
        shapes: list[Any] = [getattr(x, 'shape', None) for x in (query, key, value)]
        for name, shape in zip(names, shapes):
            if not isinstance(shape, tuple):
                raise TypeError('MultiHeadAttention: %s must be a Variable or an array, got %s'
                                % (name, type(shape).__name__))
        ndim = len(shapes[0])
        layout = '(N, L, E)' if self.batch_first else '(L, N, E)'
        if ndim not in (2, 3) or any(len(s) != ndim for s in shapes):
            raise ValueError('MultiHeadAttention: query, key and value must all be %s, or all '
                             '(L, E) for one unbatched sequence; got query.shape=%s, '
                             'key.shape=%s, value.shape=%s' % ((layout,) + tuple(shapes)))
        for name, shape, size in zip(names, shapes, (self.embed_dim, self.kdim, self.vdim)):
            if shape[-1] != size:
                raise ValueError('MultiHeadAttention: %s has %d features (shape %s) but the '
                                 'link was built for %s=%d' % (
                                     name, shape[-1], shape,
                                     {'query': 'embed_dim', 'key': 'kdim',
                                      'value': 'vdim'}[name], size))
        batch_axis = 0 if self.batch_first else 1
        if ndim == 3 and not shapes[0][batch_axis] == shapes[1][batch_axis] == \
                shapes[2][batch_axis]:
            raise ValueError('MultiHeadAttention: query, key and value must have one batch '
                             'size (axis %d), got query.shape=%s, key.shape=%s, value.shape=%s'
                             % ((batch_axis,) + tuple(shapes)))
        seq_axis = ndim - 2 - (batch_axis if ndim == 3 else 0)
        if shapes[1][seq_axis] != shapes[2][seq_axis]:
            raise ValueError('MultiHeadAttention: key and value must have one length S '
                             '(axis %d), got key.shape=%s, value.shape=%s'
                             % (seq_axis, shapes[1], shapes[2]))
        return ndim == 2

    def _mask(self, key_padding_mask: Any, attn_mask: Any, n: int, length: int, source: int,
              dtype: Any) -> Any:
        # Both masks as one mask for scaled_dot_product_attention, broadcastable to
        # (N, num_heads, L, S): bool where both are bool (True: allowed), else additive.
        masks = []
        if key_padding_mask is not None:
            if getattr(key_padding_mask, 'shape', None) != (n, source):
                raise ValueError('MultiHeadAttention: key_padding_mask must have shape (N, S) '
                                 '= %s, got %s'
                                 % ((n, source), getattr(key_padding_mask, 'shape', None)))
            masks.append(reshape.reshape(key_padding_mask, (n, 1, 1, source))
                         if isinstance(key_padding_mask, variable.Variable) else
                         key_padding_mask.reshape(n, 1, 1, source))
        if attn_mask is not None:
            shape = getattr(attn_mask, 'shape', None)
            heads = (n * self.num_heads, length, source)
            if shape == heads:
                shape = (n, self.num_heads, length, source)
                attn_mask = reshape.reshape(attn_mask, shape) if isinstance(
                    attn_mask, variable.Variable) else attn_mask.reshape(shape)
            full = (n, self.num_heads, length, source)
            try:
                fits = shape is not None and len(shape) != 3 and \
                    numpy.broadcast_shapes(shape, full) == full
            except ValueError:
                fits = False
            if not fits:
                raise ValueError('MultiHeadAttention: attn_mask must have shape (L, S) = %s, '
                                 '(N * num_heads, L, S) = %s or one broadcastable to (N, '
                                 'num_heads, L, S) = %s, got %s'
                                 % ((length, source), heads, full, shape))
            masks.append(attn_mask)
        for m in masks:
            if m.dtype.kind not in 'bf':
                raise TypeError('MultiHeadAttention: a mask must be bool or float, got dtype %s'
                                % m.dtype)
        if not masks:
            return None
        if all(m.dtype.kind == 'b' for m in masks):
            allowed = numpy.logical_not(variable.as_array(masks[0]))
            for m in masks[1:]:
                allowed = allowed & numpy.logical_not(variable.as_array(m))
            return allowed
        total = None
        for m in masks:
            if m.dtype.kind == 'b':
                m = numpy.where(variable.as_array(m), dtype.type(-numpy.inf), dtype.type(0))
            total = m if total is None else total + m
        return total
