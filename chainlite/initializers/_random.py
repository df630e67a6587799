"""What the random initializers share: block-wise filling and the fan-scaled base class."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

from chainlite import backend
from chainlite import initializer

# Elements drawn per call: bounds the float64 scratch array (512 KiB) whatever the array's size.
_BLOCK = 1 << 16


def fill(array: Any, draw: Callable[[Any], Any]) -> None:
    """Fills ``array`` with ``draw(n)`` for successive blocks of ``n`` elements.

    NumPy's global random state draws float64 only. Drawing a block at a time casts into the
    array's own dtype without a float64 copy of the whole array, and consumes the random stream
    in the same order as one draw of the full shape, so a seed gives Chainer's values.

    A GPU array is filled by one draw of its shape (one kernel, not one per block), copied
    from the host if ``draw`` is a NumPy generator the user gave.
    """
    if array.__class__ is not numpy.ndarray and not isinstance(array, numpy.ndarray):
        backend.copyto(array, draw(array.shape))
        return
    if not array.flags.c_contiguous:  # a strided view: no flat view to fill block-wise
        array[...] = draw(array.shape)
        return
    flat = array.reshape(-1)
    n = flat.size
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        flat[start:stop] = draw(stop - start)


class FanScaled(initializer.Initializer):
    """Base of initializers whose spread is ``scale`` times a function of the fans."""

    # The zero-centred initializer called with the spread: Normal (std) or Uniform (bound).
    _distribution: Any = None

    def __init__(self, scale: float = 1.0, dtype: Optional[Any] = None, *,
                 rng: Optional[Any] = None) -> None:
        self.scale = scale
        self.rng = rng
        super().__init__(dtype)

    def _spread(self, fan_in: int, fan_out: int) -> float:
        raise NotImplementedError

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        if array.size == 0:  # nothing to fill, and a zero fan would divide by zero
            return
        fan_in, fan_out = self._fans(array.shape)
        spread = self.scale * self._spread(fan_in, fan_out)
        self._distribution(spread, rng=self.rng)(array)
