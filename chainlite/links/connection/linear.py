"""The fully-connected layer."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterator, Optional

from chainlite import link
from chainlite import variable
from chainlite.functions.connection import linear
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class Linear(link.Link):
    """Fully-connected layer: ``y = x W^T + b`` (:func:`~chainlite.functions.linear`).

    ``W`` has shape ``(out_size, in_size)`` and is initialized with LeCunNormal by default;
    ``b`` has shape ``(out_size,)`` and is zero by default. Give ``in_size=None`` (or only
    one size, ``Linear(out_size)``) to create ``W`` at the first forward, from the input.

    Args:
        in_size: The input size, or None to infer it at the first forward. If ``out_size`` is
            omitted, this is the output size and the input size is inferred.
        out_size: The output size.
        nobias: If True, the layer has no bias (``b`` is None).
        initialW: The initializer of ``W``: an initializer, an array of ``W``'s shape, a
            scalar, or None (LeCunNormal).
        initial_bias: The initializer of ``b``: an initializer, array, scalar, or None (0).

    Attributes:
        W: The weight Parameter.
        b: The bias Parameter, or None.
        in_size: The input size given (None when it is inferred).
        out_size: The output size.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.Linear(3, 2, initialW=np.ones((2, 3)), initial_bias=0.5)
        >>> layer(np.array([[1.0, 2.0, 3.0]], np.float32)).array
        array([[6.5, 6.5]], dtype=float32)
        >>> lazy = L.Linear(4)
        >>> lazy(np.zeros((2, 5), np.float32)).shape, lazy.W.shape
        ((2, 4), (4, 5))
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None, nobias: bool = False,
                 initialW: InitializerSpec = None, initial_bias: InitializerSpec = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        _param_args.check_size(self, 'in_size', in_size)
        _param_args.check_size(self, 'out_size', out_size, optional=False)
        self.in_size = in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            self.b = _param_args.bias(self, nobias, initial_bias, out_size)

    def _initialize_params(self, in_size: int) -> None:
        _param_args.initialize(self, 'initialW', self.W, (self.out_size, in_size))

    @classmethod
    def from_params(cls, W: VariableOrArray, b: VariableOrArray | None = None,
                    nobias: bool = False) -> 'Linear':
        """A Linear layer whose parameters are copies of ``W`` (and ``b``).

        Args:
            W: The weight, of shape ``(out_size, in_size)`` (array or Variable).
            b: The bias, of ``out_size`` elements, or None (zeros).
            nobias: If True, the layer has no bias and ``b`` is ignored.

        Returns:
            The new layer.
        """
        out_size, in_size = W.shape
        if b is not None and b.size != out_size:
            raise ValueError('Linear.from_params: b has %d elements but W has out_size %d'
                             % (b.size, out_size))
        return cls(in_size, out_size, nobias, initialW=variable.as_array(W),
                   initial_bias=None if b is None else variable.as_array(b))

    def printable_specs(self) -> Iterator:
        """``in_size``, ``out_size`` and ``nobias``, shown by ``str(layer)``.

        A size inferred at the first call is shown once it is known (``in_size`` itself
        keeps the None it was given, as in Chainer).
        """
        W = self.W.array
        yield 'in_size', self.in_size if W is None else W.shape[1]
        yield 'out_size', self.out_size
        yield 'nobias', self.b is None

    def forward(self, x: VariableOrArray, n_batch_axes: int = 1) -> variable.Variable:
        """Applies the layer.

        Args:
            x: The input, of shape ``batch_shape + feature_shape``; the feature axes are
                flattened into ``in_size`` elements.
            n_batch_axes: How many leading axes are batch axes.

        Returns:
            A Variable of shape ``batch_shape + (out_size,)``.
        """
        if self.W.array is None:
            self._initialize_params(math.prod(x.shape[n_batch_axes:]))
        return linear.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
