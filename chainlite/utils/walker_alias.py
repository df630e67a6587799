"""Walker's alias method: O(1) sampling from a fixed discrete distribution."""
from __future__ import annotations

import warnings
from typing import Any

import numpy

from chainlite import backend


class WalkerAlias:
    """Draws integers ``i`` with probability ``probs[i] / sum(probs)`` in constant time.

    The table is built once: ``n`` buckets of equal mass ``1 / n``, each split by a
    ``threshold`` between its own index and one alias. A draw picks a bucket and a side with
    one uniform number from ``numpy.random`` (so ``numpy.random.seed`` makes it repeatable).

    Args:
        probs: Non-negative weights, one per outcome (normalised by their sum).

    Attributes:
        threshold: The ``float32`` split point of each bucket, ``(n,)``.
        values: The ``int32`` outcomes of each bucket, left then right, ``(2 * n,)``.

    Example:
        >>> import numpy as np
        >>> from chainlite.utils import WalkerAlias
        >>> sampler = WalkerAlias([0.0, 1.0, 3.0])
        >>> s = sampler.sample((1000,))
        >>> s.dtype, int((s == 0).sum())
        (dtype('int32'), 0)
    """

    def __init__(self, probs: Any) -> None:
        prob = numpy.array(probs, numpy.float32)
        if prob.ndim != 1 or len(prob) == 0:
            raise ValueError('WalkerAlias: probs must be a non-empty 1-d sequence, got shape %s'
                             % (prob.shape,))
        if (prob < 0).any() or not numpy.isfinite(prob).all() or prob.sum() <= 0:
            raise ValueError('WalkerAlias: probs must be finite, non-negative and not all '
                             'zero, got %r' % (probs,))
        prob /= prob.sum()
        n = len(prob)
        threshold = numpy.zeros(n, numpy.float32)
        values = numpy.zeros(2 * n, numpy.int32)
        # Fill buckets in increasing order of mass; the large masses lend the excess of
        # each bucket they complete (the Chainer construction, so seeded draws agree).
        il = ir = 0
        for i in numpy.argsort(prob, kind='stable'):
            p = prob[i] * n
            while p > 1 and ir < il:
                values[ir * 2 + 1] = i
                p -= 1.0 - threshold[ir]
                ir += 1
            threshold[il] = p
            values[il * 2] = i
            il += 1
        self.threshold = threshold
        self.values = values
        self._device = backend.get_device('@numpy')

    @property
    def device(self) -> backend.Device:
        """The device of the tables (the CPU until they are sent elsewhere)."""
        return self._device

    @property
    def use_gpu(self) -> bool:
        """Whether the tables are on a GPU (CuPy arrays)."""
        return self._device.xp is not numpy

    def to_device(self, device: Any) -> 'WalkerAlias':
        """Moves the tables to ``device`` (see :func:`chainlite.get_device`). Returns self."""
        dev = backend.get_device(device)
        self.threshold = dev.send(self.threshold)
        self.values = dev.send(self.values)
        self._device = dev
        return self

    def to_cpu(self) -> 'WalkerAlias':
        """Deprecated as in Chainer 7 (warns): ``to_device('@numpy')``. Returns self."""
        warnings.warn("to_cpu is deprecated. Please use to_device('@numpy') instead.",
                      DeprecationWarning, stacklevel=2)
        return self.to_device('@numpy')

    def device_resident_accept(self, visitor: Any) -> None:
        """Lets a device visitor send the tables (``visitor.visit_array``), as links do."""
        visitor.visit_device_resident(self)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

    def sample(self, shape: Any) -> numpy.ndarray:
        """Draws an ``int32`` array of outcomes of the given shape, on the tables' device.

        Args:
            shape: The shape of the result (an int or a tuple of ints).

        Returns:
            An array of ``int32`` outcomes (NumPy's, or CuPy's on a GPU).
        """
        xp = backend.get_array_module(self.threshold)
        if xp is numpy:
            return self.sample_xp(numpy, shape)
        with backend.get_device_from_array(self.threshold):  # (CuPy draws on the current GPU)
            return self.sample_xp(xp, shape)

    def sample_xp(self, xp: Any, shape: Any) -> numpy.ndarray:
        """Draws outcomes with the random generator of the array module ``xp``.

        Args:
            xp: The array module of the tables (``numpy``, or ``cupy`` on a GPU).
            shape: The shape of the result.
        """
        n = len(self.threshold)
        pb = xp.random.uniform(0, n, shape)
        index = pb.astype(numpy.int32)
        index[index >= n] = n - 1  # uniform may round up to n in float
        right = self.threshold[index] < (pb - index).astype(self.threshold.dtype)
        return self.values[index * 2 + right.astype(numpy.int32)]
