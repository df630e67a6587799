"""Trains a multi-layer perceptron on handwritten digits with a hand-written training loop.

Follows Chainer's tutorial on writing a training loop (iterator epochs, ``concat_examples``,
``cleargrads``/``backward``/``optimizer.update()``, evaluation under ``train=False``, saving
with ``serializers.save_npz``), in plain Chainer API, with one substitution: the data set is
``chainer.datasets.get_digits()`` (the 8x8 UCI digits that chainlite bundles, so no download)
instead of ``chainer.datasets.get_mnist()``. ``get_digits`` is a chainlite addition.

Usage: python -m chainlite.compat train_mlp_custom_loop.py --epoch 3 --out model.npz
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer.backends.cuda import to_cpu
from chainer.dataset import concat_examples


class MLP(chainer.Chain):

    def __init__(self, n_mid_units=100, n_out=10):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(n_mid_units, n_mid_units)
            self.l3 = L.Linear(n_mid_units, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description='Chainer tutorial: a training loop')
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--out', '-o', default='digits.model')
    args = parser.parse_args()

    np.random.seed(0)
    train, test = chainer.datasets.get_digits()
    train_iter = iterators.SerialIterator(train, args.batchsize)
    test_iter = iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    model = MLP()
    optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)

    while train_iter.epoch < args.epoch:
        train_batch = train_iter.next()
        x, t = concat_examples(train_batch)

        y = model(x)
        loss = F.softmax_cross_entropy(y, t)

        model.cleargrads()
        loss.backward()
        optimizer.update()

        if train_iter.is_new_epoch:
            print('epoch:{:02d} train_loss:{:.04f} '.format(
                train_iter.epoch, float(to_cpu(loss.array))), end='')

            test_losses = []
            test_accuracies = []
            while True:
                test_batch = test_iter.next()
                x_test, t_test = concat_examples(test_batch)
                with chainer.using_config('train', False), \
                        chainer.using_config('enable_backprop', False):
                    y_test = model(x_test)
                loss_test = F.softmax_cross_entropy(y_test, t_test)
                test_losses.append(to_cpu(loss_test.array))
                accuracy = F.accuracy(y_test, t_test)
                test_accuracies.append(to_cpu(accuracy.array))
                if test_iter.is_new_epoch:
                    test_iter.reset()
                    break

            print('val_loss:{:.04f} val_accuracy:{:.04f}'.format(
                np.mean(test_losses), np.mean(test_accuracies)))

    serializers.save_npz(args.out, model)
    reloaded = MLP()
    serializers.load_npz(args.out, reloaded)
    x, t = concat_examples(test[:10])
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        same = np.allclose(model(x).array, reloaded(x).array)
    print('reloaded model agrees:', same)


if __name__ == '__main__':
    main()
