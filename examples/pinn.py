#!/usr/bin/env python3
"""A physics-informed neural network (PINN): solving a differential equation by training.

The problem is the 1-D Poisson equation with zero boundary values,

    u''(x) = -pi^2 sin(pi x)  on [0, 1],    u(0) = u(1) = 0,

whose exact solution is u(x) = sin(pi x). No values of u are given to the network. It only
learns that its output must satisfy the equation at a set of collocation points and the
boundary conditions at the two ends:

    loss = mean_i (u''(x_i) + pi^2 sin(pi x_i))^2 + u(0)^2 + u(1)^2

The network u(x) is a small tanh MLP (a ``chainlite.Chain`` of ``L.Linear`` layers). Its
second derivative with respect to its *input* comes from double backprop: ``chainlite.grad``
once with ``enable_double_backprop=True`` gives u'(x) with a graph behind it, and a second
``chainlite.grad`` of that gives u''(x), also recorded. ``loss.backward()`` then reaches the
weights through both derivative graphs (a third-order computation), and Adam updates them.
Because each row of the output depends only on the same row of the input, seeding the
backward pass with ones gives every collocation point's own derivative in one pass.

The example prints the loss while training, then the maximum error against sin(pi x) on a
fine grid (about 1e-3 with the default settings, in a few seconds):

    python examples/pinn.py
    python examples/pinn.py --steps 500 --units 16    # a quicker, rougher run
"""
import argparse
import time

import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L


class MLP(chainlite.Chain):
    """x -> tanh -> tanh -> u, for inputs of shape (N, 1)."""

    def __init__(self, n_units: int):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(1, n_units)
            self.l2 = L.Linear(n_units, n_units)
            self.l3 = L.Linear(n_units, 1)

    def forward(self, x):
        # tanh, unlike relu, has non-zero second derivatives: u'' must not vanish everywhere.
        h = F.tanh(self.l1(x))
        h = F.tanh(self.l2(h))
        return self.l3(h)


def second_derivative(model: MLP, x: chainlite.Variable):
    """u''(x) at every row of ``x``, differentiable with respect to the weights."""
    u = model(x)
    ones = np.ones_like(u.array)
    u_x, = chainlite.grad([u], [x], grad_outputs=[ones], enable_double_backprop=True)
    u_xx, = chainlite.grad([u_x], [x], grad_outputs=[ones], enable_double_backprop=True)
    return u_xx


def pinn_loss(model: MLP, x: chainlite.Variable, boundary: np.ndarray):
    """The mean squared residual of the equation plus the squared boundary values."""
    residual = second_derivative(model, x) + np.pi ** 2 * np.sin(np.pi * x.array)
    u_b = model(boundary)
    return F.mean(residual * residual) + F.sum(u_b * u_b)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--steps', type=int, default=2000, help='Adam steps')
    p.add_argument('--units', type=int, default=20, help='units per hidden layer')
    p.add_argument('--points', type=int, default=32, help='collocation points in (0, 1)')
    p.add_argument('--lr', type=float, default=0.01, help="Adam's learning rate")
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    np.random.seed(args.seed)           # the initializers draw from NumPy's global generator
    dtype = np.float32
    model = MLP(args.units)
    optimizer = chainlite.optimizers.Adam(alpha=args.lr)
    optimizer.setup(model)

    # Interior points, evenly spaced; the input is a Variable because we differentiate by it.
    x = chainlite.Variable(np.linspace(0.0, 1.0, args.points + 2, dtype=dtype)[1:-1, None])
    boundary = np.array([[0.0], [1.0]], dtype)

    start = time.perf_counter()
    print('  step  loss')
    for step in range(1, args.steps + 1):
        loss = pinn_loss(model, x, boundary)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        if step == 1 or step % max(1, args.steps // 10) == 0:
            print('  %4d  %.3e' % (step, loss.array))

    grid = np.linspace(0.0, 1.0, 201, dtype=dtype)[:, None]
    with chainlite.no_backprop_mode():
        u = model(grid).array
    max_error = np.abs(u - np.sin(np.pi * grid)).max()
    print('trained in %.1f s' % (time.perf_counter() - start))
    print('u(0.5) = %.4f (exact 1)' % model(np.array([[0.5]], dtype)).array.item())
    print('max error against sin(pi x) on 201 points: %.2e' % max_error)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
