#!/usr/bin/env python3
"""Higher derivatives by repeated differentiation, and Newton's method built on them.

``chainlite.grad(outputs, inputs, enable_double_backprop=True)`` returns gradients that have
a graph of their own, so they can be differentiated again. Repeating it gives the 2nd, 3rd,
4th, ... derivative. The example

1. differentiates sin and tanh four times on a grid of points and compares every order with
   the analytic formula (for tanh, with t = tanh x and s = 1 - t^2: t' = s, t'' = -2ts,
   t''' = -2s(1 - 3t^2), t'''' = 8ts(2 - 3t^2));
2. minimises f(x) = exp(x) + x^2 - 3x with Newton's method, x <- x - f'(x) / f''(x), where
   both derivatives come from the graph, and prints the iterates converging quadratically
   (the number of correct digits doubles each step).

    python examples/higher_order.py
    python examples/higher_order.py --order 6 --x0 -3
"""
import argparse

import numpy as np

import chainlite
import chainlite.functions as F


def nth_derivatives(fn, xs: np.ndarray, order: int) -> list:
    """Returns [f(xs), f'(xs), ..., f^(order)(xs)] as arrays, for an elementwise ``fn``.

    For an elementwise function the gradient of ``sum(f(x))`` is the vector of f'(x_i), so
    one backward pass per order gives every point's derivative at once.
    """
    x = chainlite.Variable(xs)
    out = [fn(x)]
    for k in range(order):
        # The last derivative is not differentiated again, so it need not be recorded.
        g, = chainlite.grad([F.sum(out[-1])], [x], enable_double_backprop=k < order - 1)
        out.append(g)
    return [v.array for v in out]


def sin_derivative(xs: np.ndarray, k: int) -> np.ndarray:
    """The k-th derivative of sin: a phase shift by k quarter turns."""
    return np.sin(xs + k * np.pi / 2)


def tanh_derivative(xs: np.ndarray, k: int) -> np.ndarray:
    """The k-th derivative of tanh for k <= 4, written in t = tanh(x) and s = 1 - t^2."""
    t = np.tanh(xs)
    s = 1 - t * t
    return [t, s, -2 * t * s, -2 * s * (1 - 3 * t * t), 8 * t * s * (2 - 3 * t * t)][k]


def f(x):
    """The function Newton's method minimises: convex, with its minimum near x = 0.594."""
    return F.exp(x) + x * x - 3 * x


def newton(x0: float, steps: int, tol: float = 1e-12) -> float:
    """Minimises ``f`` from ``x0`` with Newton steps, printing each iterate."""
    x = chainlite.Variable(np.array(x0))
    print('  step  x                    f(x)                 f\'(x)')
    for step in range(steps + 1):
        y = f(x)
        g1, = chainlite.grad([y], [x], enable_double_backprop=True)
        g2, = chainlite.grad([g1], [x])
        print('  %4d  %-19.15f  %-19.15f  %.3e' % (step, x.array, y.array, g1.array))
        if abs(g1.array) < tol or step == steps:
            break
        # Update the data in place: the step itself is not part of any graph.
        x.array -= g1.array / g2.array
    return float(x.array)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--order', type=int, default=4, help='highest derivative for sin (>= 1)')
    p.add_argument('--x0', type=float, default=3.0, help="Newton's starting point")
    p.add_argument('--steps', type=int, default=20, help="at most this many Newton steps")
    args = p.parse_args()

    xs = np.linspace(-2.0, 2.0, 9)
    print('Derivatives on %d points in [-2, 2], max |autodiff - analytic|:' % len(xs))
    for name, fn, exact, order in [('sin', F.sin, sin_derivative, args.order),
                                   ('tanh', F.tanh, tanh_derivative, min(args.order, 4))]:
        for k, d in enumerate(nth_derivatives(fn, xs, order)):
            err = np.abs(d - exact(xs, k)).max()
            print('  %-4s order %d: %.2e' % (name, k, err))
            assert err < 1e-10, (name, k, err)

    print("Newton's method on f(x) = exp(x) + x^2 - 3x from x0 = %g:" % args.x0)
    x_min = newton(args.x0, args.steps)
    # f'(x) = exp(x) + 2x - 3 = 0; check the answer without autodiff.
    print('minimum at x = %.12f, f\'(x) = %.1e' % (x_min, np.exp(x_min) + 2 * x_min - 3))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
