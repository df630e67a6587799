#!/usr/bin/env python3
"""Chainer's classic MNIST example: an MLP trained with the Trainer, or with a plain loop.

The model is Chainer's: three ``L.Linear`` layers with ReLU in between, wrapped in
``L.Classifier`` (softmax cross entropy, plus accuracy), trained with Adam on batches of 100.
The same training runs in one of two styles:

- the default, with the ``Trainer``: a ``StandardUpdater`` does the "forward, backward,
  update" step, and extensions (``Evaluator``, ``LogReport``, ``PrintReport``) evaluate and
  report after each epoch;
- ``--custom-loop``: the same steps written by hand. The iterator counts epochs
  (``train_iter.epoch``, ``train_iter.is_new_epoch``), ``concat_examples`` turns a list of
  examples into arrays, and after ``model.cleargrads()`` and ``loss.backward()``,
  ``optimizer.update()`` applies Adam. Evaluation runs under ``no_backprop_mode()`` (no
  graph is recorded) and ``using_config('train', False)`` (test-mode behaviour for links
  such as dropout or batch normalization), as the Evaluator does.

MNIST (60,000 28x28 images) is downloaded on the first run and cached. Without internet the
script says so and falls back to the 8x8 UCI digits bundled with chainlite, which
``--dataset digits`` selects directly (seconds instead of minutes):

    python examples/mnist.py                          # MNIST, with the Trainer
    python examples/mnist.py --custom-loop            # MNIST, with a hand-written loop
    python examples/mnist.py --dataset digits --epoch 5
"""
import argparse
import tempfile
import time

import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import training
from chainlite.dataset import concat_examples
from chainlite.training import extensions


class MLP(chainlite.Chain):
    """Chainer's MNIST network: two ReLU hidden layers; input size inferred lazily."""

    def __init__(self, n_units: int, n_out: int):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def load_dataset(name: str) -> tuple:
    """``(train, test)`` for 'mnist' or 'digits'; MNIST falls back to digits when offline."""
    if name == 'mnist':
        try:
            return chainlite.datasets.get_mnist()
        except OSError as e:
            # get_mnist raises OSError when no mirror delivers a verified file.
            print('note: MNIST could not be downloaded, so this run uses the bundled UCI '
                  'digits instead (as with --dataset digits). The error was:')
            print('    ' + str(e).replace('\n', '\n    '))
    return chainlite.datasets.get_digits()


def train_with_trainer(model, optimizer, train, test, args, out: str) -> float:
    """Trains with the Trainer and its extensions; returns the last validation accuracy."""
    train_iter = chainlite.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainlite.iterators.SerialIterator(test, args.batchsize,
                                                   repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=out)
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss',
         'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
    trainer.run()
    return trainer.get_extension('LogReport').log[-1]['validation/main/accuracy']


def evaluate(model, iterator) -> tuple:
    """Mean loss and accuracy of ``model`` over one pass of a non-repeating iterator.

    The means are weighted by batch size; the Evaluator, like Chainer's, averages the batch
    means, so the two differ slightly when the last batch is smaller.
    """
    iterator.reset()               # start from the first batch again on every call
    total_loss = total_accuracy = 0.0
    n = 0
    with chainlite.no_backprop_mode(), chainlite.using_config('train', False):
        for batch in iterator:
            x, t = concat_examples(batch)
            loss = model(x, t)
            total_loss += float(loss.array) * len(t)
            total_accuracy += float(model.accuracy.array) * len(t)
            n += len(t)
    return total_loss / n, total_accuracy / n


def train_with_custom_loop(model, optimizer, train, test, args) -> float:
    """The Trainer's work, written out; returns the last validation accuracy."""
    train_iter = chainlite.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainlite.iterators.SerialIterator(test, args.batchsize,
                                                   repeat=False, shuffle=False)
    print('%-6s %-12s %-12s %-12s %-12s %s'
          % ('epoch', 'main/loss', 'val/loss', 'main/acc', 'val/acc', 'elapsed_time'))
    start = time.perf_counter()
    sum_loss = sum_accuracy = 0.0
    n = 0
    accuracy = float('nan')
    while train_iter.epoch < args.epoch:
        batch = train_iter.next()
        x, t = concat_examples(batch)
        loss = model(x, t)
        model.cleargrads()         # gradients accumulate; clear them before each backward
        loss.backward()
        optimizer.update()
        sum_loss += float(loss.array) * len(t)
        sum_accuracy += float(model.accuracy.array) * len(t)
        n += len(t)

        if train_iter.is_new_epoch:
            val_loss, accuracy = evaluate(model, test_iter)
            print('%-6d %-12.6g %-12.6g %-12.6g %-12.6g %.3f'
                  % (train_iter.epoch, sum_loss / n, val_loss, sum_accuracy / n, accuracy,
                     time.perf_counter() - start))
            sum_loss = sum_accuracy = 0.0
            n = 0
    return accuracy


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--dataset', choices=('mnist', 'digits'), default='mnist')
    p.add_argument('--custom-loop', action='store_true',
                   help='train with a hand-written loop instead of the Trainer')
    p.add_argument('--batchsize', '-b', type=int, default=100)
    p.add_argument('--epoch', '-e', type=int, default=20)
    p.add_argument('--unit', '-u', type=int, default=1000, help='units per hidden layer')
    p.add_argument('--out', '-o', default=None,
                   help="the Trainer's output directory (a temporary one if not given)")
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    np.random.seed(args.seed)      # initializers and the iterators' shuffles use it
    train, test = load_dataset(args.dataset)
    print('%d training and %d test examples of %d pixels; %s'
          % (len(train), len(test), train[0][0].size,
             'a hand-written loop' if args.custom_loop else 'the Trainer'))

    model = L.Classifier(MLP(args.unit, 10))
    optimizer = chainlite.optimizers.Adam()
    optimizer.setup(model)

    if args.custom_loop:
        accuracy = train_with_custom_loop(model, optimizer, train, test, args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            accuracy = train_with_trainer(model, optimizer, train, test, args, args.out or tmp)
    print('final validation accuracy: %.4f' % accuracy)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
