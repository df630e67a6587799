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
        TypeError: If ``singular_values`` is missing, another keyword is given, ``dtype``
            is neither float nor complex, or the singular values are not real.
        ValueError: If ``shape`` has fewer than two axes, a singular value is negative, or
            the singular values do not broadcast to the shape above.

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
        raise TypeError('generate_matrix: dtype must be float or complex, got %s' % dtype)
    s = numpy.asarray(singular_values)
    if not numpy.isrealobj(s):
        raise TypeError('generate_matrix: singular values must be real, got dtype %s'
                        % s.dtype)
    if (s < 0).any():
        raise ValueError('generate_matrix: singular values must be non-negative')
    batch, (m, n) = tuple(shape[:-2]), shape[-2:]
    k = min(m, n)
    s = _broadcast_to(s, batch + (k,))

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


def _broadcast_to(array: numpy.ndarray, shape: tuple) -> numpy.ndarray:
    """``array`` broadcast to ``shape`` (a read-only view), or a ValueError naming both."""
    try:
        return numpy.broadcast_to(array, shape)
    except ValueError:
        raise ValueError('generate_matrix: singular values of shape %s do not broadcast to '
                         '%s (the batch shape and min(M, N))' % (array.shape, shape)) from None
