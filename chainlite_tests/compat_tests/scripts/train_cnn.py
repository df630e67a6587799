"""Trains a small convolutional network on the 8x8 handwritten digits as (1, 8, 8) images.

Written the way Chainer's documentation teaches a CNN (``L.Convolution2D``,
``F.max_pooling_2d``, ``F.dropout``, ``L.Classifier`` and the Trainer), in plain Chainer API,
with one substitution: the data set is ``chainer.datasets.get_digits(ndim=3)`` (the UCI digits
that chainlite bundles, so no download) instead of ``chainer.datasets.get_mnist(ndim=3)``.
``get_digits`` is a chainlite addition.

Usage: python -m chainlite.compat train_cnn.py --epoch 2 --out result
"""
import argparse

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class CNN(chainer.Chain):

    def __init__(self, n_out=10):
        super(CNN, self).__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, 8, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(8, 16, ksize=3, pad=1)
            self.fc3 = L.Linear(None, 64)
            self.fc4 = L.Linear(64, n_out)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)     # (16, 4, 4)
        h = F.dropout(F.relu(self.fc3(h)), ratio=0.2)
        return self.fc4(h)


def main():
    parser = argparse.ArgumentParser(description='Chainer example: digits CNN')
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--epoch', '-e', type=int, default=5)
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args()

    train, test = chainer.datasets.get_digits(ndim=3)
    model = L.Classifier(CNN())
    optimizer = chainer.optimizers.Adam(alpha=0.003)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(1e-5))

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, False, False)
    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.LogReport(trigger=(1, 'epoch')))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'main/accuracy', 'validation/main/accuracy']))
    trainer.run()


if __name__ == '__main__':
    main()
