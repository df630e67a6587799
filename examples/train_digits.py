#!/usr/bin/env python
"""Train a small network on the bundled UCI digits with the Trainer: the README's first command.

A Chainer-style script, written exactly as one would for Chainer 7 (only the import differs):
a Classifier around an MLP, Adam, SerialIterators, and a Trainer with Evaluator, LogReport,
PrintReport, ProgressBar, snapshots and (when matplotlib is installed) PlotReport. The data
ship inside the package, so it runs offline in a few seconds:

    python examples/train_digits.py
    python examples/train_digits.py --epoch 1 --out /tmp/digits   # a quick smoke run
    python examples/train_digits.py --resume result/snapshot_epoch_30
    python examples/train_digits.py --device @cupy:0   # on a GPU (CuPy), as Chainer's --device
"""
import argparse
import os

import numpy

import chainlite as chainer
import chainlite.functions as F
import chainlite.links as L
from chainlite import training
from chainlite.training import extensions


class MLP(chainer.Chain):
    """Two hidden layers of ReLU units; the input size is inferred at the first batch."""

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--epoch', '-e', type=int, default=30)
    parser.add_argument('--unit', '-u', type=int, default=128)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--resume', '-r', default=None, help='a snapshot to resume from')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--no-progress', action='store_true', help='hide the progress bar')
    parser.add_argument('--device', '-d', type=str, default='-1',
                        help="device specifier: -1 or '@numpy' for the CPU, 0 or '@cupy:0' "
                             'for the first GPU')
    parser.add_argument('--gpu', '-g', dest='device', type=int, nargs='?', const=0,
                        help='GPU ID (a negative value is the CPU); same as --device')
    args = parser.parse_args(argv)
    device = chainer.get_device(args.device)

    numpy.random.seed(args.seed)
    model = L.Classifier(MLP(args.unit, 10))
    device.use()
    model.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train, test = chainer.datasets.get_digits(scale=1.0)
    print('UCI digits: %d training and %d test images of 8x8 pixels, on %s'
          % (len(train), len(test), device))
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.snapshot(filename='snapshot_epoch_{.updater.epoch}'),
                   trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'],
                                         'epoch', filename='loss.png'))
    trainer.extend(extensions.PlotReport(['main/accuracy', 'validation/main/accuracy'],
                                         'epoch', filename='accuracy.png'))
    if not args.no_progress:
        trainer.extend(extensions.ProgressBar(update_interval=20))
    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    log = trainer.get_extension('LogReport').log
    accuracy = log[-1]['validation/main/accuracy']
    print('final validation accuracy: %.4f' % accuracy)
    print('outputs (log, snapshot, plot when matplotlib is installed) are in %s'
          % os.path.abspath(args.out))
    return accuracy


if __name__ == '__main__':
    main()
