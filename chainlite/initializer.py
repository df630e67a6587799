"""The base of initializers (``chainlite.Initializer``) and the fan computation they share.

The concrete initializers live in :mod:`chainlite.initializers`; this module mirrors Chainer's
``chainer.initializer``, where custom initializers find their base class.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from chainlite import configuration

if TYPE_CHECKING:
    import numpy

    from chainlite.types import DTypeSpec


class Initializer:
    """Base class of initializers: callables that fill an array in place.

    A subclass implements ``__call__(array)``, which overwrites every element of ``array``.
    Any such callable works wherever an initializer is expected (:class:`~chainlite.Parameter`,
    links), its optional ``dtype`` attribute choosing the dtype; subclassing this class is the
    usual way to write one.

    Args:
        dtype: The dtype of the arrays the initializer makes, or None to follow
            ``chainlite.config.dtype``.

    Attributes:
        dtype: The dtype given at construction (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializer
        >>> class Twos(initializer.Initializer):
        ...     def __call__(self, array):
        ...         array[...] = 2
        >>> a = np.empty((2,), np.float32)
        >>> Twos()(a)
        >>> a
        array([2., 2.], dtype=float32)
    """

    def __init__(self, dtype: DTypeSpec = None) -> None:
        self.dtype = dtype

    def __call__(self, array: numpy.ndarray) -> None:
        """Fills ``array`` in place.

        Args:
            array: The array to overwrite.
        """
        raise NotImplementedError(
            '%s must implement __call__(array)' % type(self).__name__)

    def _check_dtype(self, array: numpy.ndarray) -> None:
        # The array is usually made by generate_array from self.dtype; a mismatch means the
        # caller built the array itself with another dtype.
        if self.dtype is None:
            return
        dtype = configuration.get_dtype(self.dtype)
        if array.dtype != dtype:
            raise ValueError('%s: the array has dtype %s but the initializer\'s dtype is %s'
                             % (type(self).__name__, array.dtype, dtype))

    def _fans(self, shape: tuple[int, ...]) -> tuple[int, int]:
        # get_fans with an error message that names the initializer.
        if len(shape) < 2:
            raise ValueError('%s needs an array of at least 2 dimensions (shape[0] = fan_out, '
                             'shape[1] = fan_in), got shape %s' % (type(self).__name__, shape))
        return get_fans(shape)


def get_fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Returns the fan-in and fan-out of a weight of the given shape.

    The shape is read as ``(out_channels, in_channels, *kernel)``, as in
    :class:`~chainlite.links.Linear` (``(out_size, in_size)``) and convolutions: each fan is the
    channel count times the number of kernel elements.

    Args:
        shape: A tuple of at least 2 ints.

    Returns:
        ``(fan_in, fan_out)``.

    Raises:
        ValueError: If ``shape`` is not a tuple or has fewer than 2 dimensions.

    Example:
        >>> from chainlite import initializer
        >>> initializer.get_fans((10, 3, 5, 5))
        (75, 250)
    """
    if not isinstance(shape, tuple):
        raise ValueError('get_fans: shape must be a tuple, got %s' % type(shape).__name__)
    if len(shape) < 2:
        raise ValueError('get_fans: shape must have at least 2 dimensions, got %s' % (shape,))
    receptive_field = math.prod(shape[2:])
    return shape[1] * receptive_field, shape[0] * receptive_field
