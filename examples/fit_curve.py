#!/usr/bin/env python3
"""Fits sin(x) on [-pi, pi] with a small tanh MLP, using only chainlite's core.

The network (1-16-16-1) is three pairs of ``chainlite.Parameter`` (a weight and a bias),
combined with ``F.matmul``, ``+`` and ``F.tanh``; the loss is the mean squared error written
out with ``F.sum``; training is plain full-batch gradient descent written out by hand:

    for each step: clear the gradients, forward, backward, p.array -= lr * p.grad

    python examples/fit_curve.py
    python examples/fit_curve.py --steps 20000 --lr 0.05
"""
import argparse
import sys

import numpy as np

import chainlite
import chainlite.functions as F

SIZES = (1, 16, 16, 1)
TOLERANCE = 0.1


def make_params(rng: np.random.Generator) -> list:
    """Weights with LeCun-normal scale (std = 1/sqrt(fan_in)) and zero biases."""
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        W = rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)
        params.append(chainlite.Parameter(W.astype(np.float32), name='W'))
        params.append(chainlite.Parameter(np.zeros(n_out, np.float32), name='b'))
    return params


def predict(params: list, x) -> chainlite.Variable:
    h = x
    n_layers = len(params) // 2
    for i in range(n_layers):
        W, b = params[2 * i], params[2 * i + 1]
        h = F.matmul(h, W) + b
        if i < n_layers - 1:
            h = F.tanh(h)
    return h


def mean_squared_error(y, t) -> chainlite.Variable:
    return F.sum((y - t) ** 2) / len(t)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--steps', type=int, default=10000, help='gradient descent steps')
    p.add_argument('--lr', type=float, default=0.1, help='learning rate')
    p.add_argument('--points', type=int, default=64, help='training points on [-pi, pi]')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    x = np.linspace(-np.pi, np.pi, args.points, dtype=np.float32).reshape(-1, 1)
    t = np.sin(x)
    params = make_params(np.random.default_rng(args.seed))
    every = max(1, args.steps // 10)

    print('%8s  %12s' % ('step', 'loss'))
    for step in range(args.steps + 1):
        for param in params:
            param.cleargrad()
        loss = mean_squared_error(predict(params, x), t)
        if step % every == 0 or step == args.steps:
            print('%8d  %12.6f' % (step, float(loss.array)))
        if step == args.steps:
            break
        loss.backward()
        for param in params:
            param.array -= args.lr * param.grad

    with chainlite.no_backprop_mode():
        err = float(np.abs(predict(params, x).array - t).max())
    print('max abs error: %.4f' % err)
    if err < TOLERANCE:
        print('fit OK')
    else:
        print('not within %.2f yet; try more --steps' % TOLERANCE)
    return 0


if __name__ == '__main__':
    sys.exit(main())
