"""Helpers shared by several distributions: ``x log x`` that is 0 at 0, support masks, and the
location-scale base class."""
from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import function_node
from chainlite import functions as F
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class ModifiedXLogX(function_node.FunctionNode):
    """``x * log(x)``, with the limit 0 where ``x == 0``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        with numpy.errstate(divide='ignore', invalid='ignore'):
            y = xp.where(x == 0, xp.zeros_like(x), x * xp.log(xp.where(x > 0, x, 1)))
        return xp.asarray(y, dtype=x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        zero = x.array == 0
        # The warning needs the host's answer (one bool; a wait on a GPU).
        if zero.any():
            warnings.warn('_modified_xlogx: the gradient at x == 0 is infinite; it is set to '
                          '0 there', RuntimeWarning)
        xp = backend.get_array_module(x.array)
        safe_x = F.where(zero, xp.ones_like(x.array), x)
        dx = (1 + F.log(safe_x)) * xp.asarray(~zero, dtype=x.dtype)
        return gy * dx,


def _modified_xlogx(x: Any) -> variable.Variable:
    # Entropy terms p log p of Bernoulli and categorical distributions, finite at p == 0.
    return ModifiedXLogX().apply((x,))[0]


def _values(param: variable.Variable) -> numpy.ndarray:
    """The array of a parameter Variable (never None: parameters are built from arrays)."""
    return param.array


def _array(x: Any) -> Any:
    """The array of ``x``: a Variable's, an array (NumPy or GPU) itself, a scalar's on the
    CPU."""
    if isinstance(x, variable.Variable):
        return x.array
    if variable._is_array(x):
        return x
    return numpy.asarray(x)


def _like(x: Any, param: variable.Variable) -> Any:
    """``x`` in the parameter's dtype unless it is a Variable (whose dtype is the caller's);
    a scalar or a list goes to the parameter's device."""
    if isinstance(x, variable.Variable):
        return x
    if variable._is_array(x):
        return x.astype(param.dtype, copy=False)
    return backend.get_array_module(param.array).asarray(x, dtype=param.dtype)


def _needs_fix(mask: Any) -> bool:
    """Whether a masked fix-up must run: on the CPU when an element of ``mask`` is set; on a
    GPU always (asking would wait for the device, and the fix-up is a no-op where unset)."""
    return not isinstance(mask, (numpy.ndarray, numpy.generic)) or bool(mask.any())


def _mask(condition: Any, value: variable.Variable, fill: float) -> variable.Variable:
    """``value`` where ``condition`` holds, the constant ``fill`` elsewhere."""
    xp = backend.get_array_module(value.array)
    condition = xp.broadcast_to(xp.asarray(condition), value.shape)
    return F.where(condition, value, xp.full(value.shape, fill, dtype=value.dtype))


def _random_dtype(dtype: Any) -> Any:
    # Samples follow the parameters' float dtype.
    return dtype if numpy.dtype(dtype).kind == 'f' else numpy.float32


class LocScale(distribution.Distribution):
    """A scalar distribution over the reals given by ``loc`` and ``scale`` (Cauchy, Gumbel,
    Laplace): the parameters as Variables, the shapes, ``params`` and ``support``.

    Args:
        loc: The location (array or Variable).
        scale: The scale (array or Variable), broadcastable to ``loc``.
    """

    def __init__(self, loc: VariableOrArray, scale: VariableOrArray) -> None:
        self._loc = loc
        self._scale = scale

    @functools.cached_property
    def loc(self) -> variable.Variable:
        """The location."""
        return variable.as_variable(self._loc)

    @functools.cached_property
    def scale(self) -> variable.Variable:
        """The scale."""
        return variable.as_variable(self._scale)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.loc.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self) -> str:
        return 'real'
