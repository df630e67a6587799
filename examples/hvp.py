#!/usr/bin/env python3
"""Hessian-vector products by double backprop, without ever forming the Hessian.

For f: R^n -> R with gradient g(x) = grad f(x), the Hessian times a vector v is

    H v = grad_x <g(x), v>,

so one backward pass that *records* its computation (``enable_double_backprop=True``) gives
g, and a second backward pass through g, seeded with v, gives H v. That costs a small
multiple of one gradient, in time and memory, whatever n is, where the Hessian needs n^2
numbers. Newton-CG, trust-region methods and curvature analysis of networks rely on it.

The example checks ``hvp`` on two small problems where the full Hessian can still be built,
column by column, and prints the largest difference:

1. f(x) = sum_i log(1 + exp((A x)_i)) (logistic-regression style), whose Hessian is known in
   closed form: A^T diag(s (1 - s)) A with s = sigmoid(A x). Its columns are also built as
   H e_j, one HVP per unit vector, to show the two agree to rounding error.
2. The loss of a tiny tanh MLP as a function of all its parameters flattened into one
   vector theta. Here the Hessian's columns come from central differences of the gradient,
   (g(theta + h e_j) - g(theta - h e_j)) / 2h, an independent check (agreeing to ~1e-9).

    python examples/hvp.py
    python examples/hvp.py --n 20 --hidden 8
"""
import argparse

import numpy as np

import chainlite
import chainlite.functions as F


def gradient(f, x: chainlite.Variable, record: bool):
    """grad f(x); with ``record`` the result has a graph and can be differentiated again."""
    g, = chainlite.grad([f(x)], [x], enable_double_backprop=record)
    return g


def hvp(f, x0: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The Hessian of ``f`` at ``x0`` times ``v``, by two backward passes.

    Args:
        f: A function from a Variable of shape ``x0.shape`` to a scalar Variable.
        x0: The point, a float64 array.
        v: The vector, of the shape of ``x0``.

    Returns:
        ``H v`` as an array of the shape of ``x0``.
    """
    x = chainlite.Variable(x0.copy())
    g = gradient(f, x, record=True)
    # v is a constant, so grad <g, v> = H^T v = H v; grad_outputs=[v] would skip the sum.
    Hv, = chainlite.grad([F.sum(g * v)], [x])
    return Hv.array


def hessian_by_hvp(f, x0: np.ndarray) -> np.ndarray:
    """The full Hessian, column j = H e_j: n HVPs (only sensible for small n)."""
    n = x0.size
    return np.stack([hvp(f, x0, np.eye(n)[j]) for j in range(n)], axis=1)


def hessian_by_differences(f, x0: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """The full Hessian, column j = central difference of the gradient along e_j."""
    n = x0.size
    columns = []
    for j in range(n):
        e = np.eye(n)[j] * h
        g_plus = gradient(f, chainlite.Variable(x0 + e), record=False).array
        g_minus = gradient(f, chainlite.Variable(x0 - e), record=False).array
        columns.append((g_plus - g_minus) / (2 * h))
    return np.stack(columns, axis=1)


def make_softplus_problem(rng: np.random.Generator, n: int):
    """f(x) = sum(softplus(A x)) for a random (2n, n) matrix A, and its exact Hessian."""
    A = rng.standard_normal((2 * n, n))

    def f(x):
        return F.sum(F.softplus(F.matmul(A, F.reshape(x, (n, 1)))))

    def exact_hessian(x0):
        s = 1 / (1 + np.exp(-(A @ x0)))
        return A.T @ (A * (s * (1 - s))[:, None])
    return f, exact_hessian


def make_mlp_problem(rng: np.random.Generator, n_in: int, n_hidden: int, n_samples: int):
    """The mean squared error of a 1-hidden-layer tanh MLP, as a function of theta.

    Returns:
        ``(f, theta0)``: the loss as a function of the flattened parameters, and a random
        starting point for them.
    """
    x = rng.standard_normal((n_samples, n_in))
    t = np.sin(x.sum(axis=1, keepdims=True))
    shapes = [(n_in, n_hidden), (n_hidden,), (n_hidden, 1), (1,)]
    sizes = [int(np.prod(s)) for s in shapes]
    offsets = np.cumsum([0] + sizes)

    def f(theta):
        # Slicing and reshaping are differentiable, so one flat vector can feed all layers.
        W1, b1, W2, b2 = [F.reshape(theta[offsets[i]:offsets[i + 1]], shapes[i])
                          for i in range(len(shapes))]
        y = F.matmul(F.tanh(F.matmul(x, W1) + b1), W2) + b2
        return F.mean_squared_error(y, t)
    theta0 = rng.standard_normal(offsets[-1]) / np.sqrt(n_in)
    return f, theta0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--n', type=int, default=8, help='dimension of the softplus problem')
    p.add_argument('--hidden', type=int, default=5, help='hidden units of the MLP problem')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)

    # 1. softplus: HVP against the closed form, and the Hessian assembled from HVPs.
    f, exact_hessian = make_softplus_problem(rng, args.n)
    x0 = rng.standard_normal(args.n)
    v = rng.standard_normal(args.n)
    H = exact_hessian(x0)
    diff_hvp = np.abs(hvp(f, x0, v) - H @ v).max()
    diff_full = np.abs(hessian_by_hvp(f, x0) - H).max()
    print('softplus problem, n = %d:' % args.n)
    print('  max |Hv - H_exact v|          = %.2e' % diff_hvp)
    print('  max |[H e_j]_j - H_exact|     = %.2e' % diff_full)

    # 2. MLP loss over its flattened parameters: HVP against finite-difference columns.
    f, theta0 = make_mlp_problem(rng, n_in=3, n_hidden=args.hidden, n_samples=16)
    v = rng.standard_normal(theta0.size)
    H = hessian_by_differences(f, theta0)
    print('tiny MLP loss, %d parameters:' % theta0.size)
    print('  Hessian asymmetry (differences) = %.2e' % np.abs(H - H.T).max())
    diff_mlp = np.abs(hvp(f, theta0, v) - H @ v).max()
    print('  max |Hv - H_fd v|             = %.2e' % diff_mlp)
    print('max difference: %.2e' % max(diff_hvp, diff_full, diff_mlp))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
