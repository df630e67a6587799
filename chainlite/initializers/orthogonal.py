"""The orthogonal initializer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import backend
from chainlite import initializer

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

# mode -> (whether in_dim > out_dim is allowed, whether in_dim < out_dim is allowed)
_MODES = {
    'auto': (True, True),
    'projection': (True, False),  # orthonormal rows: out_dim <= in_dim
    'embedding': (False, True),  # orthonormal columns: in_dim <= out_dim
    'basis': (False, False),  # square: both
}


class Orthogonal(initializer.Initializer):
    """Fills an array with ``scale`` times a random (semi-)orthogonal matrix.

    The array is read as a matrix of ``out_dim = shape[0]`` rows and ``in_dim`` = the product
    of the other axes. A standard normal matrix of that shape is drawn and orthonormalized by
    a QR decomposition (with the signs fixed so that the diagonal of R is positive, which
    makes the result uniformly distributed): the rows come out orthonormal when
    ``out_dim <= in_dim``, the columns otherwise. Saxe et al., https://arxiv.org/abs/1312.6120.
    A 0-d array gets ``scale`` with a random sign.

    Args:
        scale: The factor on the orthonormal matrix.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        mode: Which shapes are accepted: ``'auto'`` (any), ``'projection'``
            (``out_dim <= in_dim``), ``'embedding'`` (``out_dim >= in_dim``) or ``'basis'``
            (square).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Raises:
        ValueError: If ``mode`` is unknown; when called, if the array is empty or its shape
            breaks ``mode``.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.Orthogonal(scale=1.0), (3, 5), np)
        >>> np.allclose(W @ W.T, np.eye(3), atol=1e-6)
        True
    """

    def __init__(self, scale: float = 1.1, dtype: DTypeSpec = None, mode: str = 'auto',
                 *, rng: Optional[Any] = None) -> None:
        if mode not in _MODES:
            raise ValueError('Orthogonal: mode must be one of %s, got %r'
                             % (', '.join(repr(m) for m in _MODES), mode))
        self.scale = scale
        self.mode = mode
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: numpy.ndarray) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        rng = xp.random if self.rng is None else self.rng
        if array.ndim == 0:
            array[...] = self.scale * (2 * int(rng.randint(2)) - 1)
            return
        if array.size == 0:
            raise ValueError('Orthogonal: cannot initialize an empty array (shape %s)'
                             % (array.shape,))
        out_dim = array.shape[0]
        in_dim = array.size // out_dim
        wide_ok, tall_ok = _MODES[self.mode]
        if (in_dim > out_dim and not wide_ok) or (in_dim < out_dim and not tall_ok):
            raise ValueError(
                'Orthogonal: mode %r cannot make shape %s orthonormal (read as out_dim=%d '
                'rows of in_dim=%d)' % (self.mode, array.shape, out_dim, in_dim))
        # Draws and QR in float64 (the random state's own dtype) for an accurate basis.
        a = rng.normal(size=(out_dim, in_dim))
        if xp is not numpy and self.rng is not None:
            a = xp.asarray(a)  # a NumPy generator's draws, for a GPU array
        wide = in_dim > out_dim
        if wide:
            a = a.T
        q, r = xp.linalg.qr(a)
        q *= xp.copysign(self.scale, xp.diag(r))
        if wide:
            q = q.T
        array[...] = q.reshape(array.shape)
