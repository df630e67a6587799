"""Defines a new differentiable function as a FunctionNode, checks it, and trains with it.

Follows Chainer's documentation on defining your own functions: a ``FunctionNode`` subclass
whose ``forward`` works on arrays and whose ``backward`` is written with differentiable
functions (so double backprop works too), checked with ``chainer.gradient_check``
(``check_backward`` and ``check_double_backward``), then used in a link that a training loop
fits with an optimizer. Plain Chainer API; no data set is needed.

Usage: python -m chainlite.compat custom_function_node.py --steps 200
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer import initializers
from chainer.utils import type_check


class MulAdd(chainer.FunctionNode):
    """Computes ``x * y + z`` elementwise."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 3)
        x_type, y_type, z_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.dtype == y_type.dtype,
            x_type.dtype == z_type.dtype,
            x_type.shape == y_type.shape,
            x_type.shape == z_type.shape,
        )

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        return x * y + z,

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        gw, = grad_outputs
        return gw * y, gw * x, gw


def muladd(x, y, z):
    return MulAdd().apply((x, y, z))[0]


class ScaleShift(chainer.Link):
    """Learns ``W * x + b`` elementwise, with the new function."""

    def __init__(self, size):
        super(ScaleShift, self).__init__()
        with self.init_scope():
            self.W = chainer.Parameter(initializers.One(), (size,))
            self.b = chainer.Parameter(initializers.Zero(), (size,))

    def forward(self, x):
        W = F.broadcast_to(self.W, x.shape)
        b = F.broadcast_to(self.b, x.shape)
        return muladd(x, W, b)


def main():
    parser = argparse.ArgumentParser(description='Chainer tutorial: a new FunctionNode')
    parser.add_argument('--steps', type=int, default=300)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    x, y, z = (rng.uniform(-1, 1, (3, 4)) for _ in range(3))
    gw = rng.uniform(-1, 1, (3, 4))
    ggx, ggy, ggz = (rng.uniform(-1, 1, (3, 4)) for _ in range(3))
    gradient_check.check_backward(muladd, (x, y, z), gw, dtype=np.float64)
    gradient_check.check_double_backward(muladd, (x, y, z), gw, (ggx, ggy, ggz),
                                         dtype=np.float64)
    print('gradient checks passed')

    # Fit y = 3 x - 1 on two features.
    x_data = rng.uniform(-1, 1, (64, 2)).astype(np.float32)
    t_data = (3 * x_data - 1).astype(np.float32)
    model = ScaleShift(2)
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    for step in range(1, args.steps + 1):
        loss = F.mean_squared_error(model(x_data), t_data)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        if step == 1 or step % 50 == 0 or step == args.steps:
            print('step {} loss {:.6f}'.format(step, float(loss.array)))
    print('W', model.W.array, 'b', model.b.array)


if __name__ == '__main__':
    main()
