"""Gaussian sampling with the reparameterization trick."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions.math import exp
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Gaussian(function_node.FunctionNode):

    def __init__(self, eps: numpy.ndarray | None = None) -> None:
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('mean', 'ln_var'))
        mean, ln_var = in_types
        type_check.expect(
            mean.dtype.kind == 'f',
            ln_var.dtype == mean.dtype,
            ln_var.shape == mean.shape,
        )
        if self.eps is not None:
            type_check.expect(
                mean.shape == type_check.make_variable(self.eps.shape, 'eps.shape'))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((1,))
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            # Drawn from the global random state of the array module, as Chainer does.
            self.eps = xp.asarray(xp.random.standard_normal(ln_var.shape)).astype(mean.dtype)
        elif self.eps.dtype != mean.dtype:
            self.eps = self.eps.astype(mean.dtype)
        noise = xp.exp(ln_var * mean.dtype.type(0.5))
        noise *= self.eps
        noise += mean
        return noise,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ln_var, = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy)
        if 1 in indexes:
            # d y / d ln_var = exp(ln_var / 2) * eps / 2, differentiable again in ln_var.
            assert self.eps is not None  # drawn by forward
            ret.append(gy * exp.exp(ln_var * 0.5) * (self.eps * 0.5))
        return tuple(ret)


@overload
def gaussian(mean: VariableOrArray, ln_var: VariableOrArray, *, eps: numpy.ndarray | None = ...,
             return_eps: Literal[False] = ...) -> Variable: ...


@overload
def gaussian(mean: VariableOrArray, ln_var: VariableOrArray, *, eps: numpy.ndarray | None = ...,
             return_eps: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def gaussian(mean: VariableOrArray, ln_var: VariableOrArray, *, eps: numpy.ndarray | None = ...,
             return_eps: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def gaussian(mean: VariableOrArray, ln_var: VariableOrArray, *, eps: numpy.ndarray | None = None,
             return_eps: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """Draws a sample from the Gaussian ``N(mean, exp(ln_var))``, differentiably.

    ``y = mean + exp(ln_var / 2) * eps`` with ``eps`` drawn from the standard normal
    distribution (the reparameterization trick): gradients flow to both ``mean`` and
    ``ln_var``, ``eps`` being kept fixed for the backward pass.

    Args:
        mean: A float Variable or array: the mean.
        ln_var: A Variable or array of the same shape and dtype: the log of the variance.
        eps: None to draw the noise from NumPy's global random state (``numpy.random.seed``
            makes it reproducible; CuPy's for GPU arrays), or an array of ``mean``'s shape to
            use instead.
        return_eps (bool): Also return the ``eps`` used, to pass it again later.

    Returns:
        The sample as a Variable of ``mean``'s shape and dtype, or ``(sample, eps)`` when
        ``return_eps`` is True.

    Example:
        >>> import numpy as np
        >>> mean, ln_var = np.zeros(3), np.log(np.full(3, 4.0))
        >>> y = gaussian(mean, ln_var, eps=np.array([1.0, -0.5, 0.0]))
        >>> y.array
        array([ 2., -1.,  0.])
    """
    func = Gaussian(variable.as_array(eps))
    out, = func.apply((mean, ln_var))
    if return_eps:
        assert func.eps is not None  # drawn by forward if not given
        return out, func.eps
    return out
