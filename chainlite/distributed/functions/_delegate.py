"""Delegate variables: the empty outputs that keep communication in the backward graph."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import variable

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def dummy() -> variable.Variable:
    """An empty float32 Variable that requires a gradient.

    Given as the input of a communication that has no real input on this rank, it makes
    backprop reach the function, so the matching communication of the backward pass runs.
    """
    return variable.Variable(numpy.empty((0,), numpy.float32))


def empty() -> numpy.ndarray:
    """The empty float32 array a delegate holds."""
    return numpy.empty((0,), numpy.float32)


def mark(v: variable.Variable) -> variable.Variable:
    """Names ``v`` a delegate and gives it an (empty) gradient, so ``v.backward()`` works."""
    v.name = 'delegate_variable'
    if v.grad is None:
        v.grad = empty()
    return v


def zeros_for(shape: tuple, dtype: DTypeSpec, xp: Any = numpy) -> variable.Variable:
    """A zero gradient Variable, standing in for an output gradient that is None.

    ``xp`` is the array module of the array it is the gradient of (CuPy for a GPU array).
    """
    return variable.Variable(xp.zeros(shape, dtype), requires_grad=False)

