"""Trains a word-level LSTM language model with truncated backpropagation through time.

Written like Chainer's PTB example: a ``ParallelSequentialIterator`` over one long sequence, a
``StandardUpdater`` subclass that accumulates the loss over ``bproplen`` steps and then calls
``unchain_backward``, an ``Evaluator`` whose model is reset before it runs, gradient clipping,
a snapshot every epoch and ``--resume`` from it. ``--device`` is a string (``'-1'``). The
corpus is made here (a small deterministic grammar) instead of ``get_ptb_words``.

Usage: python -m chainlite.compat train_lm_bptt.py --epoch 3 --out result [--resume FILE]
"""
import argparse

import numpy

import chainer
import chainer.links as L
from chainer import training
from chainer.training import extensions


def make_corpus(n_vocab, length, seed):
    # Each word is followed by one of two words: a language a small LSTM learns quickly.
    rs = numpy.random.RandomState(seed)
    words = [0]
    for _ in range(length - 1):
        words.append((words[-1] * 3 + 1 + rs.randint(2)) % n_vocab)
    return numpy.asarray(words, numpy.int32)


class RNNLM(chainer.Chain):

    def __init__(self, n_vocab, n_units):
        super(RNNLM, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.Linear(n_units, n_vocab)

    def reset_state(self):
        self.l1.reset_state()

    def forward(self, x):
        return self.l2(self.l1(self.embed(x)))


class ParallelSequentialIterator(chainer.dataset.Iterator):

    def __init__(self, dataset, batch_size, repeat=True):
        super(ParallelSequentialIterator, self).__init__()
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        length = len(dataset)
        self.offsets = [i * length // batch_size for i in range(batch_size)]
        self.reset()

    def reset(self):
        self.epoch = 0
        self.is_new_epoch = False
        self.iteration = 0
        self._previous_epoch_detail = -1.

    def __next__(self):
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            raise StopIteration
        cur_words = self.get_words()
        self._previous_epoch_detail = self.epoch_detail
        self.iteration += 1
        next_words = self.get_words()
        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch
        return list(zip(cur_words, next_words))

    @property
    def epoch_detail(self):
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self):
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def get_words(self):
        return [self.dataset[(offset + self.iteration) % len(self.dataset)]
                for offset in self.offsets]

    def serialize(self, serializer):
        self.iteration = serializer('iteration', self.iteration)
        self.epoch = serializer('epoch', self.epoch)
        try:
            self._previous_epoch_detail = serializer(
                'previous_epoch_detail', self._previous_epoch_detail)
        except KeyError:
            self._previous_epoch_detail = self.epoch_detail - 1. / len(self.dataset)


class BPTTUpdater(training.updaters.StandardUpdater):

    def __init__(self, train_iter, optimizer, bprop_len, device):
        super(BPTTUpdater, self).__init__(train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    def update_core(self):
        loss = 0
        train_iter = self.get_iterator('main')
        optimizer = self.get_optimizer('main')
        for _ in range(self.bprop_len):
            batch = train_iter.__next__()
            x, t = self.converter(batch, self.device)
            loss += optimizer.target(x, t)
        optimizer.target.cleargrads()
        loss.backward()
        loss.unchain_backward()
        optimizer.update()


def compute_perplexity(result):
    result['perplexity'] = numpy.exp(result['main/loss'])
    if 'validation/main/loss' in result:
        result['val_perplexity'] = numpy.exp(result['validation/main/loss'])


def main():
    parser = argparse.ArgumentParser(description='Chainer example: LSTM language model')
    parser.add_argument('--batchsize', '-b', type=int, default=10)
    parser.add_argument('--bproplen', '-l', type=int, default=8)
    parser.add_argument('--epoch', '-e', type=int, default=3)
    parser.add_argument('--device', '-d', type=str, default='-1')
    parser.add_argument('--gradclip', '-c', type=float, default=5)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--resume', '-r', type=str)
    parser.add_argument('--unit', '-u', type=int, default=32)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    numpy.random.seed(args.seed)

    device = chainer.get_device(args.device)
    n_vocab = 10
    train = make_corpus(n_vocab, 800, 0)
    val = make_corpus(n_vocab, 200, 1)
    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)

    rnn = RNNLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False
    for param in model.params():
        param.array[...] = numpy.random.uniform(-0.1, 0.1, param.shape)
    model.to_device(device)
    device.use()

    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(args.gradclip))

    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    eval_model = model.copy()
    eval_rnn = eval_model.predictor
    trainer.extend(extensions.Evaluator(
        val_iter, eval_model, device=device,
        eval_hook=lambda _: eval_rnn.reset_state()))
    trainer.extend(extensions.LogReport(postprocess=compute_perplexity, trigger=(1, 'epoch')))
    trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'perplexity',
                                           'val_perplexity']), trigger=(1, 'epoch'))
    trainer.extend(extensions.snapshot(filename='snapshot_epoch_{.updater.epoch}'),
                   trigger=(1, 'epoch'))
    if args.resume is not None:
        chainer.serializers.load_npz(args.resume, trainer)
    trainer.run()


if __name__ == '__main__':
    main()
