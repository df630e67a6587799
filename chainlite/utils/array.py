"""Array helpers, as ``chainer.utils.array``."""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import numpy


def size_of_shape(shape: Any) -> int:
    """Returns the number of elements of an array of shape ``shape`` (1 for ``()``).

    Args:
        shape: A tuple of ints.

    Returns:
        The product of the axis lengths, as a Python int.

    Example:
        >>> from chainlite.utils import size_of_shape
        >>> size_of_shape((2, 3, 4)), size_of_shape(())
        (24, 1)
    """
    return int(functools.reduce(operator.mul, shape, 1))


def sum_to(x: Any, shape: Any) -> Any:
    """Sums the array ``x`` over the axes along which it was broadcast from ``shape``.

    Args:
        x: An array.
        shape: The target shape; ``x`` must be broadcastable from it.

    Returns:
        An array of shape ``shape`` (``x`` itself when the shapes match).

    Example:
        >>> import numpy
        >>> from chainlite.utils.array import sum_to
        >>> sum_to(numpy.ones((2, 3)), (1, 3))
        array([[2., 2., 2.]])
    """
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and x.shape[i + lead] != 1)
    y = x.sum(axis=axes, keepdims=True)
    return y.reshape(shape) if lead else y


def as_vec(x: Any) -> Any:
    """Returns ``x`` flattened to one axis (deprecated in Chainer; warns DeprecationWarning)."""
    warnings.warn('chainer.utils.array.as_vec is deprecated', DeprecationWarning)
    return x if x.ndim == 1 else x.ravel()


def as_mat(x: Any) -> Any:
    """Returns ``x`` as a matrix of ``len(x)`` rows (deprecated; warns DeprecationWarning)."""
    warnings.warn('chainer.utils.array.as_mat is deprecated', DeprecationWarning)
    return x if x.ndim == 2 else x.reshape(len(x), -1)


def empty_like(x: Any) -> Any:
    """Returns an uninitialized array like ``x`` (deprecated; warns DeprecationWarning)."""
    warnings.warn('chainer.utils.array.empty_like is deprecated', DeprecationWarning)
    return numpy.empty_like(x)
