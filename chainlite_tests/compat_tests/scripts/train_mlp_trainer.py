"""Trains a multi-layer perceptron on handwritten digits with Chainer's Trainer.

Written the way Chainer's documentation and its MNIST example teach, in plain Chainer API,
with one substitution: the data set is ``chainer.datasets.get_digits()`` (the 8x8 UCI digits
that chainlite bundles, so no download) instead of ``chainer.datasets.get_mnist()``.
``get_digits`` is a chainlite addition; everything else is Chainer's.

Usage: python -m chainlite.compat train_mlp_trainer.py --epoch 3 --out result
"""
import argparse

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            # the size of the inputs to each layer is inferred
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description='Chainer example: digits MLP')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=20)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--unit', '-u', type=int, default=100)
    parser.add_argument('--device', '-d', type=str, default='@numpy')
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(device)
    device.use()

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train, test = chainer.datasets.get_digits()
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.run()


if __name__ == '__main__':
    main()
