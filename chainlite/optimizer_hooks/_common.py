"""What the per-parameter optimizer hooks share."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import numpy

    from chainlite import variable


def array_and_grad(param: variable.Variable) -> Optional[tuple[numpy.ndarray, numpy.ndarray]]:
    """The array and the gradient a hook works on, or None when it has nothing to do.

    Nothing to do: the parameter is uninitialised (no array; reading its gradient would
    raise, as in Chainer) or has no gradient.
    """
    p = param.array
    if p is None:
        return None
    g = param.grad
    return None if g is None else (p, g)
