"""One call that runs the gradient checks an op's test needs (after HIPS autograd's check_grads)."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import gradient_check
from chainlite import variable

# Fixed, so a failing check fails the same way on every run.
_SEED = 0


def check_grads(func: Callable, inputs: Any, order: int = 2, y_grad: Any = None,
                eps: float = 1e-3, atol: float = 1e-4, rtol: float = 1e-3,
                no_grads: Optional[Sequence[bool]] = None) -> None:
    """Checks the first (and second) derivatives of ``func`` numerically, in float64.

    Float inputs are converted to float64, so the finite differences are precise and the
    default tolerances fit every op. Output gradients (when ``y_grad`` is None) and the
    gradients of the first-order gradients are drawn from a NumPy Generator with a fixed seed,
    their shapes taken from one forward run.

    Args:
        func: A function taking Variables (one per input) and returning a Variable or a tuple
            of Variables.
        inputs: An array or a tuple of arrays (NumPy, or GPU arrays: then checked there).
        order: 1 runs :func:`~chainlite.gradient_check.check_backward`; 2 also runs
            :func:`~chainlite.gradient_check.check_double_backward`.
        y_grad: The output gradients (an array or a tuple); random if None.
        eps: The step of the finite differences.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        no_grads: One bool per input: True for inputs whose gradient is not checked (default:
            the non-float ones).

    Raises:
        AssertionError: If a check fails.
        ValueError: If ``order`` is not 1 or 2.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> check_grads(lambda x: F.sin(F.exp(x)), np.array([[0.1, -0.4], [0.3, 0.8]]))
    """
    if order not in (1, 2):
        raise ValueError('check_grads: order must be 1 or 2, got %r' % (order,))
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    # GPU inputs stay on their device; the random gradients are drawn on the host (the same
    # values as for NumPy inputs) and sent there.
    xp = backend.get_array_module(*inputs)
    asarray = numpy.asarray if xp is numpy else xp.asarray
    xs = tuple(asarray(x, numpy.float64) if asarray(x).dtype.kind == 'f'
               else asarray(x) for x in inputs)
    rng = numpy.random.default_rng(_SEED)
    if y_grad is None:
        with configuration.no_backprop_mode():
            ys = func(*[variable.Variable(x, requires_grad=False) for x in xs])
        ys = tuple(ys) if isinstance(ys, (tuple, list)) else (ys,)
        y_grad = tuple(None if y is None else asarray(rng.standard_normal(y.shape))
                       for y in ys)
    else:
        y_grad = tuple(y_grad) if isinstance(y_grad, (tuple, list)) else (y_grad,)
        y_grad = tuple(None if gy is None else asarray(gy, numpy.float64)
                       for gy in y_grad)
    gradient_check.check_backward(func, xs, y_grad, eps=eps, atol=atol, rtol=rtol,
                                  no_grads=no_grads)
    if order >= 2:
        x_grad_grad = tuple(asarray(rng.standard_normal(x.shape))
                            for x in xs if x.dtype.kind == 'f')
        gradient_check.check_double_backward(func, xs, y_grad, x_grad_grad, eps=eps,
                                             atol=atol, rtol=rtol, no_grads=no_grads)
