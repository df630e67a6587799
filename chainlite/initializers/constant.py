"""Deterministic initializers: constants and the identity matrix."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import initializer
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, ScalarValue


class _Constant(initializer.Initializer):
    # Chainer's base of the constant initializers: a subclass sets the class attribute
    # ``fill_value`` (a scalar or an array) and is made with ``(dtype=None)``.

    fill_value: Any = None

    def __init__(self, dtype: DTypeSpec = None) -> None:
        if not (_is_array(self.fill_value) or _is_number(self.fill_value)):
            raise ValueError('%s: fill_value must be a scalar or an array, got %s'
                             % (type(self).__name__, type(self.fill_value).__name__))
        super().__init__(dtype)

    def __call__(self, array: numpy.ndarray) -> None:
        self._check_dtype(array)
        fill_value = self.fill_value
        try:
            if not cuda.is_gpu_array(fill_value) and (array.__class__ is numpy.ndarray
                                                      or not _is_array(fill_value)):
                array[...] = fill_value
            else:  # an array on another device: sent to the array's, then broadcast
                backend.copyto(array, fill_value.astype(array.dtype, copy=False))
        except ValueError:
            raise ValueError('%s: a fill_value of shape %s cannot fill an array of shape %s'
                             % (type(self).__name__, numpy.shape(self.fill_value),
                                array.shape)) from None


class Constant(_Constant):
    """Fills an array with a scalar, or with an array broadcast to its shape.

    Args:
        fill_value: A scalar, or an array (NumPy's or a GPU's) broadcastable to the arrays
            it fills, on whichever device they are.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Attributes:
        fill_value: The value given.
        dtype: The dtype given.

    Raises:
        ValueError: If ``fill_value`` is neither a scalar nor an array.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.Constant(np.arange(3)), (2, 3), np)
        array([[0., 1., 2.],
               [0., 1., 2.]], dtype=float32)
    """

    def __init__(self, fill_value: ScalarValue | numpy.ndarray, dtype: DTypeSpec = None) -> None:
        self.fill_value = fill_value
        super().__init__(dtype)


def _is_number(value: Any) -> bool:
    return numpy.isscalar(value) and not isinstance(value, (str, bytes))


def _is_array(value: Any) -> bool:
    # A NumPy or GPU (CuPy) array: Chainer's initializers take both as values.
    return isinstance(value, numpy.ndarray) or cuda.is_gpu_array(value)


class Zero(Constant):
    """Fills an array with zeros (the default initializer of biases).

    Args:
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.Zero(), (2,), np)
        array([0., 0.], dtype=float32)
    """

    def __init__(self, dtype: DTypeSpec = None) -> None:
        super().__init__(0.0, dtype)


class One(Constant):
    """Fills an array with ones.

    Args:
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.One(np.float64), (2,), np)
        array([1., 1.])
    """

    def __init__(self, dtype: DTypeSpec = None) -> None:
        super().__init__(1.0, dtype)


class NaN(Constant):
    """Fills an array with NaN (what a parameter's gradient holds until it is cleared).

    Args:
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.NaN(), (2,), np)
        array([nan, nan], dtype=float32)
    """

    def __init__(self, dtype: DTypeSpec = None) -> None:
        super().__init__(numpy.nan, dtype)


class Identity(initializer.Initializer):
    """Fills a square matrix with ``scale`` times the identity.

    Args:
        scale: The value of the diagonal.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).

    Raises:
        ValueError: (when called) If the array is not a square 2-d matrix.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.Identity(2.0), (2, 2), np)
        array([[2., 0.],
               [0., 2.]], dtype=float32)
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeSpec = None) -> None:
        self.scale = scale
        super().__init__(dtype)

    def __call__(self, array: numpy.ndarray) -> None:
        self._check_dtype(array)
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError('Identity: the array must be a square matrix, got shape %s'
                             % (array.shape,))
        array[...] = 0
        backend.get_array_module(array).fill_diagonal(array, self.scale)
