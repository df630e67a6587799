#!/usr/bin/env python
"""A ChainerMN data-parallel MNIST script, written against Chainer's and ChainerMN's API only.

It uses ``chainer.datasets.get_digits`` (the 8x8 UCI digits that chainlite bundles, so no
download) instead of ``chainer.datasets.get_mnist()``. Run it as
``mpiexec -n 2 python -m chainlite.compat train_mnist_chainermn.py``.
"""
import argparse

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import chainermn


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--communicator', default='flat')
    parser.add_argument('--epoch', '-e', type=int, default=3)
    parser.add_argument('--unit', '-u', type=int, default=64)
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args()

    comm = chainermn.create_communicator(args.communicator)
    model = L.Classifier(MLP(args.unit, 10))
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), comm)
    optimizer.setup(model)

    if comm.rank == 0:
        train, test = chainer.datasets.get_digits()
    else:
        train, test = None, None
    train = chainermn.scatter_dataset(train, comm, shuffle=True, seed=0)
    test = chainermn.scatter_dataset(test, comm, shuffle=True, seed=0)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False,
                                                 shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    evaluator = extensions.Evaluator(test_iter, model)
    trainer.extend(chainermn.create_multi_node_evaluator(evaluator, comm))
    snapshot = chainermn.extensions.multi_node_snapshot(
        comm, extensions.snapshot(autoload=True), [0])
    trainer.extend(snapshot, trigger=(1, 'epoch'))
    if comm.rank == 0:
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
             'validation/main/accuracy']))
    trainer.run()
    print('rank %d of %d done' % (comm.rank, comm.size))


if __name__ == '__main__':
    main()
