"""The embedding layer: a lookup table of vectors indexed by integer IDs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.connection import embed_id
from chainlite.links.connection import _param_args

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray


class EmbedID(link.Link):
    """Embedding layer: maps integer IDs to rows of ``W`` (:func:`~chainlite.functions.embed_id`).

    ``W`` has shape ``(in_size, out_size)`` and is initialized with a standard normal
    distribution by default.

    Args:
        in_size: The number of IDs (rows of ``W``).
        out_size: The size of each embedding vector.
        initialW: The initializer of ``W``: an initializer, an array, a scalar, or None
            (``Normal(1.0)``).
        ignore_label: An ID whose embedding is the zero vector (e.g. ``-1`` for padding).

    Attributes:
        W: The embedding Parameter.
        ignore_label: The ignored ID, or None.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> embed = L.EmbedID(3, 2, initialW=np.arange(6.0).reshape(3, 2), ignore_label=-1)
        >>> embed(np.array([2, -1, 0], np.int32)).array
        array([[4., 5.],
               [0., 0.],
               [0., 1.]], dtype=float32)
    """

    ignore_label = None

    def __init__(self, in_size: int, out_size: int, initialW: InitializerSpec = None,
                 ignore_label: Optional[int] = None) -> None:
        super().__init__()
        _param_args.check_size(self, 'in_size', in_size, optional=False)
        _param_args.check_size(self, 'out_size', out_size, optional=False)
        self.ignore_label = ignore_label
        if initialW is None:
            initialW = initializers.Normal(1.0)
        with self.init_scope():
            self.W = variable.Parameter(_param_args.initializer(self, 'initialW', initialW))
            _param_args.initialize(self, 'initialW', self.W, (in_size, out_size))

    @classmethod
    def from_params(cls, W: VariableOrArray, ignore_label: Optional[int] = None) -> 'EmbedID':
        """An EmbedID layer whose ``W`` is a copy of the given one.

        Args:
            W: The embeddings, of shape ``(in_size, out_size)``.
            ignore_label: As in the constructor.

        Returns:
            The new layer.
        """
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=variable.as_array(W), ignore_label=ignore_label)

    def forward(self, x: VariableOrArray) -> variable.Variable:
        """Looks up the embeddings.

        Args:
            x: An integer array (or Variable) of IDs, of any shape.

        Returns:
            A Variable of shape ``x.shape + (out_size,)``.
        """
        return embed_id.embed_id(x, self.W, ignore_label=self.ignore_label)
