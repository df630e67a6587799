"""Inverse discrete Fourier transform along the last axis, on (real, imag) pairs."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite.functions.math import fft

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def ifft(x: tuple[VariableOrArray, VariableOrArray]) -> tuple[Variable, Variable]:
    """Inverse fast Fourier transform along the last axis (:func:`numpy.fft.ifft`).

    Complex numbers travel as a pair of float arrays, as in Chainer.

    Args:
        x: A pair ``(real, imag)`` of float Variables or arrays of one shape (``ndim > 0``)
            and dtype.

    Returns:
        A pair ``(real, imag)`` of Variables of that shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> yr, yi = F.ifft((np.array([10.0, -2.0, -2.0, -2.0]), np.array([0.0, 2.0, 0.0, -2.0])))
        >>> yr.array, yi.array
        (array([1., 2., 3., 4.]), array([0., 0., 0., 0.]))
    """
    real, imag = x
    yr, yi = fft.FFT('ifft').apply((real, imag))
    return yr, yi
