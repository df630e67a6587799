"""Trains an MLP with static subgraph optimizations (``@static_graph``) and Chainer's Trainer.

Written in plain Chainer API the way Chainer 7's static-graph examples use it: the model's
``__call__`` carries ``@static_graph``, a side effect that must run on every call is a
``@static_code`` method, and ``--device -1`` is an integer device given as a string. The data
set is ``chainer.datasets.get_digits()`` (bundled with chainlite, no download) instead of
``get_mnist()``. At the end it trains the same model define-by-run
(``use_static_graph`` False) from the same seed and prints whether the two runs agree.

Usage: python -m chainlite.compat train_mlp_static.py --epoch 2 --out result
"""
import argparse

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import static_code
from chainer import static_graph
from chainer import training
from chainer.training import extensions


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.bn = L.BatchNormalization(n_units)
            self.l3 = L.Linear(None, n_out)
        self.side_effect_counter = 0

    @static_code
    def count(self):
        self.side_effect_counter += 1

    @static_graph
    def __call__(self, x):
        self.count()
        h1 = F.dropout(F.relu(self.l1(x)), 0.2)
        h2 = F.relu(self.bn(self.l2(h1)))
        return self.l3(h2)


def train(args, out):
    numpy.random.seed(0)
    device = chainer.get_device(args.device)
    predictor = MLP(args.unit, 10)
    model = L.Classifier(predictor)
    model.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    train, test = chainer.datasets.get_digits()
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy']))
    trainer.run()
    return model, predictor


def main():
    parser = argparse.ArgumentParser(description='Chainer example: static-graph digits MLP')
    parser.add_argument('--batchsize', '-b', type=int, default=100)
    parser.add_argument('--epoch', '-e', type=int, default=2)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--unit', '-u', type=int, default=100)
    parser.add_argument('--device', '-d', type=str, default='-1')
    args = parser.parse_args()

    model, predictor = train(args, args.out)
    print('side effects run:', predictor.side_effect_counter)
    with chainer.using_config('use_static_graph', False):
        reference, _ = train(args, args.out + '_define_by_run')
    same = all(numpy.array_equal(a.array, b.array)
               for a, b in zip(model.params(), reference.params()))
    print('static and define-by-run agree:', same)


if __name__ == '__main__':
    main()
