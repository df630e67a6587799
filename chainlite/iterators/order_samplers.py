"""Order samplers: the callables that choose the order of examples for each epoch."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

OrderSamplerLike = Callable[[numpy.ndarray, int], numpy.ndarray]
"""What iterators accept as ``order_sampler``: an :class:`OrderSampler` or any callable
``(current_order, current_position) -> next_order``."""


class OrderSampler:
    """Base class of order samplers, which an iterator calls once per epoch.

    An iterator calls ``sampler(current_order, current_position)`` when it creates or resets
    its sweep and whenever an epoch ends; the returned array of indices is the order in which
    the next epoch visits the dataset. It must have the length of ``current_order``.

    Example:
        >>> import numpy as np
        >>> from chainlite import iterators
        >>> class Reversed(iterators.OrderSampler):
        ...     def __call__(self, current_order, current_position):
        ...         return np.arange(len(current_order))[::-1]
        >>> it = iterators.SerialIterator([10, 11, 12], 2, order_sampler=Reversed())
        >>> next(it), next(it)
        ([12, 11], [10, 12])
    """

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        """Returns the order of the next epoch.

        Args:
            current_order: The 1-d array of dataset indices of the epoch that ends.
            current_position: The iterator's position in ``current_order``.

        Returns:
            A 1-d array of dataset indices, as long as ``current_order``.
        """
        raise NotImplementedError('%s must implement __call__' % type(self).__name__)


class ShuffleOrderSampler(OrderSampler):
    """Draws a new random permutation for every epoch.

    With the default ``random_state`` it calls ``numpy.random.permutation``, so that
    ``numpy.random.seed`` fixes the orders (the same ones as Chainer's for the same seed).

    Args:
        random_state: A ``numpy.random.RandomState`` to draw from; None for NumPy's global
            one.

    Example:
        >>> import numpy as np
        >>> from chainlite import iterators
        >>> sampler = iterators.ShuffleOrderSampler(np.random.RandomState(0))
        >>> sampler(np.arange(5), 0)
        array([2, 0, 1, 3, 4])
    """

    def __init__(self, random_state: Optional[numpy.random.RandomState] = None) -> None:
        self._random = random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        random = numpy.random if self._random is None else self._random
        return random.permutation(len(current_order))

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state of its ``random_state``, so a resumed run shuffles alike.

        Iterators call it under the key ``order_sampler``. Keys: ``state_keys`` (the 624
        words of the Mersenne Twister), ``state_pos``, ``state_has_gauss`` and
        ``state_cached_gaussian``. Without a ``random_state`` (NumPy's global generator,
        which the sampler does not own) nothing is saved.

        Args:
            serializer: A serializer or deserializer.
        """
        if self._random is None:
            return
        name, keys, pos, has_gauss, cached = self._random.get_state()
        keys = serializer('state_keys', numpy.array(keys, dtype=numpy.uint32))
        pos = serializer('state_pos', int(pos))
        has_gauss = serializer('state_has_gauss', int(has_gauss))
        cached = serializer('state_cached_gaussian', float(cached))
        self._random.set_state((name, numpy.asarray(keys, dtype=numpy.uint32), int(pos),
                                int(has_gauss), float(cached)))
