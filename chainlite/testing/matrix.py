"""Random matrices with given singular values, as ``chainer.testing.generate_matrix``."""
from __future__ import annotations

from typing import Any

import numpy


def generate_matrix(shape: tuple, dtype: Any = float, **kwargs: Any) -> numpy.ndarray:
    """Returns a random array of matrices (the last two axes) with chosen singular values.

    Args:
        shape: The shape, at least two axes; the matrices are ``shape[-2:]``.
        dtype: A float or complex dtype.
        singular_values: Keyword-only, required: an array broadcastable to
            ``shape[:-2] + (min(shape[-2:]),)``, all non-negative.

    Returns:
        An array of ``shape`` whose matrices have exactly those singular values.

    Raises:
        TypeError: If ``singular_values`` is missing or another keyword is given.
        ValueError: If ``shape`` has fewer than two axes, ``dtype`` is neither float nor
            complex, or a singular value is negative.

    Example:
        >>> import numpy
        >>> from chainlite.testing import generate_matrix
        >>> a = generate_matrix((3, 3), singular_values=[3., 2., 1.])
        >>> numpy.allclose(numpy.linalg.svd(a, compute_uv=False), [3., 2., 1.])
        True
    """
    if 'singular_values' not in kwargs:
        raise TypeError('generate_matrix: singular_values is required')
    singular_values = kwargs.pop('singular_values')
    if kwargs:
        raise TypeError('generate_matrix: unexpected keyword argument(s) %s'
                        % ', '.join(sorted(kwargs)))
    if len(shape) < 2:
        raise ValueError('generate_matrix: shape must have at least two axes, got %r'
                         % (shape,))
    dtype = numpy.dtype(dtype)
    if dtype.kind not in 'fc':
        raise ValueError('generate_matrix: dtype must be float or complex, got %s' % dtype)
    s = numpy.asarray(singular_values)
    if (s < 0).any():
        raise ValueError('generate_matrix: singular values must be non-negative')
    batch, (m, n) = tuple(shape[:-2]), shape[-2:]
    k = min(m, n)
    s = numpy.broadcast_to(s, batch + (k,))

    def unitary(size: int) -> numpy.ndarray:
        a = numpy.random.normal(size=batch + (size, size))
        if dtype.kind == 'c':
            a = a + 1j * numpy.random.normal(size=batch + (size, size))
        q, _ = numpy.linalg.qr(a)
        return q

    u, v = unitary(m), unitary(n)
    middle = numpy.zeros(batch + (m, n), dtype=s.dtype)
    idx = numpy.arange(k)
    middle[..., idx, idx] = s
    return numpy.matmul(numpy.matmul(u, middle), v).astype(dtype)
