#!/usr/bin/env python3
"""Writes one new differentiable function in both of chainlite's styles, and tests them.

The function is the Legendre polynomial P3(x) = (5x^3 - 3x) / 2, whose derivatives are
P3'(x) = (15x^2 - 3) / 2 and P3''(x) = 15x, so P3(1) = 1, P3'(1) = 6 and P3''(1) = 15.

- ``Legendre3Function`` is an old-style ``chainlite.Function``: ``forward`` and ``backward``
  both work on NumPy arrays. It is differentiable once; asking for a second derivative
  raises a RuntimeError that says so.
- ``Legendre3`` is a ``chainlite.FunctionNode``: its ``backward`` works on Variables, so
  the gradient has a graph of its own and can be differentiated again, any number of times.

Both are verified with ``chainlite.gradient_check.check_backward`` (first derivative against
central differences), and the FunctionNode with ``check_double_backward`` too. The example
prints the values at x = 1 and what each check found:

    python examples/custom_function.py
    python examples/custom_function.py --x 0.3    # evaluate at another point
"""
import argparse

import numpy as np

import chainlite
import chainlite.functions as F
from chainlite import gradient_check


class Legendre3Function(chainlite.Function):
    """P3 as an old-style Function: array in, array out, in both directions."""

    def forward(self, inputs):
        x, = inputs
        return (5 * x ** 3 - 3 * x) / 2,

    def backward(self, inputs, grad_outputs):
        x, = inputs
        gy, = grad_outputs
        # Plain arrays: the result carries no graph, hence no second derivative.
        return gy * (15 * x ** 2 - 3) / 2,


class Legendre3(chainlite.FunctionNode):
    """P3 as a FunctionNode: the backward is written with Variables."""

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return (5 * x ** 3 - 3 * x) / 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # Variable arithmetic is recorded under enable_double_backprop, so gx is differentiable.
        return gy * (15 * x * x - 3) / 2,


def legendre3(x):
    """Elementwise Legendre polynomial P3(x) = (5x^3 - 3x) / 2, differentiable to any order.

    Args:
        x: A Variable or array of floats.

    Returns:
        A Variable of the same shape and dtype.
    """
    return Legendre3().apply((x,))[0]


def legendre3_old_style(x):
    """The same polynomial through the old-style Function (differentiable once)."""
    return Legendre3Function()(x)


def derivatives(fn, x0: float, order: int) -> list:
    """[f(x0), f'(x0), ...] up to ``order`` with chainlite.grad (recording all but the last)."""
    x = chainlite.Variable(np.array(x0))
    values = [fn(x)]
    for k in range(order):
        g, = chainlite.grad([values[-1]], [x], enable_double_backprop=k < order - 1)
        values.append(g)
    return [float(v.array) for v in values]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--x', type=float, default=1.0, help='the point to evaluate P3 at')
    args = p.parse_args()

    x0 = args.x
    exact = [(5 * x0 ** 3 - 3 * x0) / 2, (15 * x0 ** 2 - 3) / 2, 15 * x0]

    # 1. The old-style Function: value and first derivative.
    y0, d1 = derivatives(legendre3_old_style, x0, 1)
    print('old-style Function:  P3(%g) = %g, P3\'(%g) = %g' % (x0, y0, x0, d1))
    assert np.allclose([y0, d1], exact[:2])

    # 2. The FunctionNode: value, first and second derivative.
    y0, d1, d2 = derivatives(legendre3, x0, 2)
    print('FunctionNode:        P3(%g) = %g, P3\'(%g) = %g, P3\'\'(%g) = %g'
          % (x0, y0, x0, d1, x0, d2))
    assert np.allclose([y0, d1, d2], exact)

    # 3. Both agree with NumPy's Legendre series on a grid.
    P3 = np.polynomial.legendre.Legendre.basis(3)
    grid = np.linspace(-1.0, 1.0, 9)
    for name, fn in [('old-style', legendre3_old_style), ('FunctionNode', legendre3)]:
        xs = chainlite.Variable(grid.copy())
        F.sum(fn(xs)).backward()
        assert np.allclose(fn(grid).array, P3(grid)) and np.allclose(xs.grad, P3.deriv()(grid))
    print('both match numpy.polynomial.legendre on %d points in [-1, 1]' % len(grid))

    # 4. Numerical gradient checks (float64, random inputs and output gradients).
    rng = np.random.default_rng(0)
    x_data = rng.uniform(-1.0, 1.0, (3, 4))
    gy = rng.standard_normal((3, 4))
    ggx = rng.standard_normal((3, 4))
    gradient_check.check_backward(legendre3_old_style, x_data, gy)
    print('check_backward:        passed for the old-style Function')
    gradient_check.check_backward(legendre3, x_data, gy)
    print('check_backward:        passed for the FunctionNode')
    gradient_check.check_double_backward(legendre3, x_data, gy, ggx)
    print('check_double_backward: passed for the FunctionNode')

    # 5. The old-style Function refuses a second derivative, with an error that says why.
    x = chainlite.Variable(np.array(x0))
    gx, = chainlite.grad([legendre3_old_style(x)], [x], enable_double_backprop=True)
    try:
        chainlite.grad([gx], [x])
    except RuntimeError as e:
        print('old-style second derivative refused: RuntimeError: %s' % e)
    else:
        raise AssertionError('the old-style Function gave a second derivative')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
