#!/usr/bin/env python3
"""A small convolutional network on the bundled 8x8 digits, trained with the Trainer.

``get_digits(ndim=3)`` gives each image as a (1, 8, 8) array: channels, height, width, the
layout ``L.Convolution2D`` expects (batches are (N, 1, 8, 8)). The network

    conv 3x3 (16 channels) -> relu -> max pool 2x2      (N, 16, 4, 4)
    conv 3x3 (32 channels) -> relu -> max pool 2x2      (N, 32, 2, 2)
    linear (128 -> 10)

keeps the image size through each convolution (``pad=1``) and halves it in each pooling, so
the classifier sees 32 features at each of 2x2 positions. Weight sharing makes it small
(about 6,000 parameters) yet above 95% validation accuracy in a few seconds. The training
loop is Chainer's standard one: ``L.Classifier`` (softmax cross entropy and accuracy),
Adam, ``SerialIterator``, ``StandardUpdater``, and a ``Trainer`` with ``Evaluator``,
``LogReport`` and ``PrintReport``.

    python examples/cnn_digits.py
    python examples/cnn_digits.py --epoch 1     # a quick smoke run
"""
import argparse
import tempfile

import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import training
from chainlite.training import extensions


class CNN(chainlite.Chain):
    """Two convolution + pooling stages and a linear classifier, for (N, 1, 8, 8) input."""

    def __init__(self, n_out: int = 10):
        super().__init__()
        with self.init_scope():
            # in_channels=None: inferred from the first batch, like Linear(None, n).
            self.conv1 = L.Convolution2D(None, 16, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(16, 32, ksize=3, pad=1)
            self.fc = L.Linear(None, n_out)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        return self.fc(h)          # Linear flattens (N, 32, 2, 2) to (N, 128) itself


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--epoch', '-e', type=int, default=15)
    p.add_argument('--batchsize', '-b', type=int, default=32)
    p.add_argument('--out', '-o', default=None,
                   help='directory for the log (a temporary one if not given)')
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    np.random.seed(args.seed)      # initializers and the iterator's shuffle use it
    train, test = chainlite.datasets.get_digits(ndim=3)
    print('UCI digits: %d training and %d test images of shape %s'
          % (len(train), len(test), train[0][0].shape))

    model = L.Classifier(CNN())
    optimizer = chainlite.optimizers.Adam()
    optimizer.setup(model)
    train_iter = chainlite.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainlite.iterators.SerialIterator(test, 256, repeat=False, shuffle=False)

    with tempfile.TemporaryDirectory() as tmp:
        updater = training.updaters.StandardUpdater(train_iter, optimizer)
        trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out or tmp)
        trainer.extend(extensions.Evaluator(test_iter, model))
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
             'validation/main/accuracy', 'elapsed_time']))
        trainer.run()
        log = trainer.get_extension('LogReport').log

    n_params = sum(param.size for param in model.params())
    print('parameters: %d' % n_params)
    print('final validation accuracy: %.4f' % log[-1]['validation/main/accuracy'])
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
