"""Initializers drawing from zero-centred uniform distributions."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

from chainlite import backend
from chainlite import initializer
from chainlite.initializers import _random

if TYPE_CHECKING:
    import numpy
    from chainlite.types import DTypeSpec


class Uniform(initializer.Initializer):
    """Fills an array with draws from the uniform distribution on ``[-scale, scale)``.

    Draws come from NumPy's global random state (``numpy.random.seed`` reproduces them, and
    gives the values Chainer gives), or from ``rng`` if one is given.

    Args:
        scale: The half-width of the interval.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` (or ``Generator``) to draw from.

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> a = np.empty((50, 50), np.float32)
        >>> initializers.Uniform(0.5)(a)
        >>> bool(a.min() >= -0.5 and a.max() < 0.5)
        True
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
        _random.fill(array, lambda size: rng.uniform(-scale, scale, size))


class LeCunUniform(_random.FanScaled):
    """Uniform draws on ``[-s, s)`` with ``s = scale * sqrt(3 / fan_in)`` (std ``sqrt(1/fan_in)``).

    LeCun et al., *Efficient BackProp* (1998). The array needs at least 2 dimensions.

    Args:
        scale: A factor on the bound ``s``.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.LeCunUniform(), (10, 12), np)
        >>> bool(np.abs(W).max() < 0.5)
        True
    """

    _distribution = Uniform

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(3. / fan_in)


class GlorotUniform(_random.FanScaled):
    """Uniform draws on ``[-s, s)`` with ``s = scale * sqrt(6 / (fan_in + fan_out))``.

    Glorot & Bengio, AISTATS 2010 (Xavier initialization). The array needs at least 2
    dimensions.

    Args:
        scale: A factor on the bound ``s``.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.GlorotUniform(), (4, 2), np)
        >>> bool(np.abs(W).max() < 1.0)
        True
    """

    _distribution = Uniform

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(6. / (fan_in + fan_out))


class HeUniform(_random.FanScaled):
    """Uniform draws on ``[-s, s)`` with ``s = scale * sqrt(6 / fan_in)``, for ReLU networks.

    He et al., https://arxiv.org/abs/1502.01852. The array needs at least 2 dimensions.

    Args:
        scale: A factor on the bound ``s``.
        dtype: The dtype of the arrays it makes (None: ``chainlite.config.dtype``).
        rng: An optional ``numpy.random.RandomState`` to draw from (default: the global one).

    Example:
        >>> import numpy as np
        >>> from chainlite import initializers
        >>> W = initializers.generate_array(initializers.HeUniform(), (3, 6), np)
        >>> bool(np.abs(W).max() < 1.0)
        True
    """

    _distribution = Uniform

    def _spread(self, fan_in: int, fan_out: int) -> float:
        return math.sqrt(6. / fan_in)
