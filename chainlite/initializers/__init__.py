"""Initializers: callables that fill a new parameter's array in place.

Pass one to a :class:`~chainlite.Parameter` or as a link's ``initialW`` / ``initial_bias``.
Random ones draw from NumPy's global random state, so ``numpy.random.seed`` reproduces a
model's initial weights (the same values Chainer gives for the same seed).
"""
# ruff: noqa: F401  (re-exports)
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite.initializer import get_fans
from chainlite.initializer import Initializer
from chainlite.initializers import constant
from chainlite.initializers.constant import Constant
from chainlite.initializers.constant import Identity
from chainlite.initializers.constant import NaN
from chainlite.initializers.constant import One
from chainlite.initializers.constant import Zero
from chainlite.initializers.normal import GlorotNormal
from chainlite.initializers.normal import HeNormal
from chainlite.initializers.normal import LeCunNormal
from chainlite.initializers.normal import Normal
from chainlite.initializers.orthogonal import Orthogonal
from chainlite.initializers.sampling import DownsamplingConvFilter
from chainlite.initializers.sampling import UpsamplingDeconvFilter
from chainlite.initializers.uniform import GlorotUniform
from chainlite.initializers.uniform import HeUniform
from chainlite.initializers.uniform import LeCunUniform
from chainlite.initializers.uniform import Uniform

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, DeviceSpec, InitializerSpec, ShapeSpec, Xp


def generate_array(initializer: Callable[[numpy.ndarray], None], shape: ShapeSpec, xp: Xp,
                   dtype: DTypeSpec = None, device: DeviceSpec = None) -> numpy.ndarray:
    """Makes a new array of ``shape`` and fills it with ``initializer``.

    Args:
        initializer: A callable that fills an array in place (an :class:`Initializer`).
        shape: An int or a tuple of ints.
        xp: The array module (``numpy``).
        dtype: The dtype; if None, ``initializer.dtype``, and if that is None too,
            ``chainlite.config.dtype``.
        device: The device to make the array on (a specifier for
            :func:`chainlite.get_device`); None for ``xp``'s default.

    Returns:
        The filled array.

    Raises:
        ValueError: If ``dtype`` differs from the initializer's own dtype, or ``device`` does
            not belong to ``xp``.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> initializers.generate_array(initializers.Constant(3), (2,), np, dtype=np.float64)
        array([3., 3.])
    """
    own_dtype = getattr(initializer, 'dtype', None)
    if dtype is None:
        dtype = own_dtype
    elif own_dtype is not None and (configuration.get_dtype(dtype)
                                    != configuration.get_dtype(own_dtype)):
        raise ValueError('generate_array: dtype %s differs from the dtype %s of the initializer '
                         '%s' % (configuration.get_dtype(dtype),
                                 configuration.get_dtype(own_dtype), type(initializer).__name__))
    dtype = configuration.get_dtype(dtype)
    dev = backend.get_device(xp if device is None else device)
    if dev.xp is not xp:
        raise ValueError('generate_array: device %s does not hold arrays of %s'
                         % (dev, getattr(xp, '__name__', xp)))
    with backend.using_device(dev):
        array = xp.empty(shape, dtype=dtype)
        initializer(array)
    return array


def _get_initializer(initializer: Any) -> Any:
    # What links do with an initialW-like argument: None -> LeCunNormal, a scalar or an array
    # -> Constant (with no dtype of its own, as Chainer), any other callable -> itself.
    if initializer is None:
        return LeCunNormal()
    if constant._is_array(initializer) or constant._is_number(initializer):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError('an initializer must be None, a scalar, an array or a callable, got %s'
                        % type(initializer).__name__)
    return initializer


def _check_is_initializer_like(initializer: Any) -> None:
    # The check links may run on their initializer arguments before storing them.
    if not (initializer is None or callable(initializer)
            or constant._is_array(initializer) or constant._is_number(initializer)):
        raise TypeError('an initializer must be None, a scalar, an array or a callable, got %s'
                        % type(initializer).__name__)

