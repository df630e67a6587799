"""Discrete Fourier transform along the last axis, on (real, imag) pairs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import backend
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class FFT(function_node.FunctionNode):

    def __init__(self, method: str) -> None:
        self._method = method  # 'fft' or 'ifft'

    @property
    def label(self) -> str:
        return self._method.upper()

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('real', 'imag'))
        real, imag = in_types
        type_check.expect(real.dtype.kind == 'f', real.ndim > 0, real.dtype == imag.dtype,
                          real.shape == imag.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        real, imag = inputs
        xp = backend.get_array_module(real)
        x = xp.empty(real.shape, numpy.result_type(real.dtype, numpy.complex64))
        x.real[...] = real  # (CuPy's real and imag of a complex array are views too)
        x.imag[...] = imag
        y = getattr(xp.fft, self._method)(x)
        return y.real.astype(real.dtype, copy=False), y.imag.astype(real.dtype, copy=False)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gr, gi = grad_outputs
        if gr is None:
            gr = backend.get_array_module(gi.array).zeros_like(gi.array)
        if gi is None:
            gi = backend.get_array_module(gr.array).zeros_like(gr.array)
        # The adjoint of the transform W is conj(W): conj(W conj(g)) is W applied to
        # i conj(g) = gi + i gr, with the real and imaginary parts of the result swapped.
        gxi, gxr = FFT(self._method).apply((gi, gr))
        return gxr, gxi


def fft(x: tuple[VariableOrArray, VariableOrArray]) -> tuple[Variable, Variable]:
    """Fast Fourier transform along the last axis (:func:`numpy.fft.fft`).

    Complex numbers travel as a pair of float arrays, as in Chainer.

    Args:
        x: A pair ``(real, imag)`` of float Variables or arrays of one shape (``ndim > 0``)
            and dtype.

    Returns:
        A pair ``(real, imag)`` of Variables of that shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> yr, yi = F.fft((np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4)))
        >>> yr.array, yi.array
        (array([10., -2., -2., -2.]), array([ 0.,  2.,  0., -2.]))
    """
    real, imag = x
    yr, yi = FFT('fft').apply((real, imag))
    return yr, yi


# Chainer's module also has ifft; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'ifft': 'chainlite.functions.math.ifft'})[:2]
