"""Mixed-precision helpers, as ``chainer.utils.precision``."""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy


def _fp16_mixed_precision_helper(fn: Callable) -> Callable:
    """Decorates ``forward(self, inputs)`` to compute float16 inputs in float32.

    float16 inputs are cast to float32 before ``fn`` runs; when no input was a float of
    another width, float32 outputs are cast back to float16. float32/float64 inputs pass
    through unchanged.

    Args:
        fn: A method taking a tuple of arrays and returning a tuple of arrays.

    Returns:
        The wrapped method.

    Example:
        >>> import numpy
        >>> from chainlite.utils.precision import _fp16_mixed_precision_helper
        >>> class F:
        ...     @_fp16_mixed_precision_helper
        ...     def forward(self, inputs):
        ...         return (inputs[0] * 2,)
        >>> F().forward((numpy.ones(2, numpy.float16),))[0].dtype
        dtype('float16')
    """
    @functools.wraps(fn)
    def wrapper(self: Any, inputs: tuple) -> tuple:
        all_half = all(x.dtype.kind != 'f' or x.dtype == numpy.float16 for x in inputs)
        widened = tuple(x.astype(numpy.float32) if x.dtype == numpy.float16 else x
                        for x in inputs)
        outputs = fn(self, widened)
        if all_half:
            outputs = tuple(y.astype(numpy.float16)
                            if y is not None and y.dtype == numpy.float32 else y
                            for y in outputs)
        return outputs
    return wrapper
