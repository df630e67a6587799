"""Initializers drawing from zero-mean normal distributions."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite import backend
from chainlite import initializer
from chainlite.initializers import _random

if TYPE_CHECKING:
    import numpy
    from chainlite.types import DTypeSpec


class Normal(initializer.Initializer):
    """Fills an array with draws from the normal distribution of mean 0 and std ``scale``.

    Draws come from NumPy's global random state (``numpy.random.seed`` reproduces them, and
    gives the values Chainer gives), or from ``rng`` if one is given.

    Args:
        scale: The standard deviation.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` (or ``Generator``) to draw from.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> a = np.empty((100, 100), np.float32)
        >>> initializers.Normal(0.1)(a)
        >>> a.dtype, bool(abs(a.std() - 0.1) < 0.01)
        (dtype('float32'), True)
    """

    def __init__(self, scale: float = 0.05, dtype: DTypeSpec = None, *,
                 rng: Optional[Any] = None) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: numpy.ndarray) -> None:
        self._check_dtype(array)
        rng = self.rng
        if rng is None:
            rng = backend.get_array_module(array).random
        scale = self.scale
        _random.fill(array, lambda size: rng.normal(0.0, scale, size))


class LeCunNormal(_random.FanScaled):
    """Normal draws with std ``scale * sqrt(1 / fan_in)``: the default weight initializer.

    LeCun et al., *Efficient BackProp* (1998). The fans come from
    :func:`~chainlite.initializer.get_fans`, so the array needs at least 2 dimensions.

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.LeCunNormal(), (200, 400), np)
        >>> W.dtype, bool(abs(W.std() - (1 / 400) ** 0.5) < 0.002)
        (dtype('float32'), True)
    """

    _distribution = Normal

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(1. / fan_in)


class GlorotNormal(_random.FanScaled):
    """Normal draws with std ``scale * sqrt(2 / (fan_in + fan_out))`` (Xavier initialization).

    Glorot & Bengio, AISTATS 2010. The array needs at least 2 dimensions.

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.GlorotNormal(), (300, 100), np)
        >>> bool(abs(W.std() - (2 / 400) ** 0.5) < 0.005)
        True
    """

    _distribution = Normal

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(2. / (fan_in + fan_out))


class HeNormal(_random.FanScaled):
    """Normal draws with std ``scale * sqrt(2 / fan)``, for ReLU networks (Kaiming init).

    He et al., https://arxiv.org/abs/1502.01852. ``fan`` is ``fan_in`` or ``fan_out`` as
    ``fan_option`` says. The array needs at least 2 dimensions.

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        fan_option: ``'fan_in'`` (the default) or ``'fan_out'``.
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Raises:
        ValueError: If ``fan_option`` is neither ``'fan_in'`` nor ``'fan_out'``.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.HeNormal(), (64, 32, 3, 3), np)
        >>> bool(abs(W.std() - (2 / (32 * 9)) ** 0.5) < 0.003)
        True
    """

    def __init__(self, scale: float = 1.0, dtype: DTypeSpec = None,
                 fan_option: str = 'fan_in', *, rng: Optional[Any] = None) -> None:
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError('HeNormal: fan_option must be \'fan_in\' or \'fan_out\', got %r'
                             % (fan_option,))
        self.fan_option = fan_option
        super().__init__(scale, dtype, rng=rng)

    _distribution = Normal

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(2. / (fan_in if self.fan_option == 'fan_in' else fan_out))
