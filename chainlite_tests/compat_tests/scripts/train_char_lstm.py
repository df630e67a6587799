"""Trains a tiny character-level LSTM language model with truncated backpropagation.

Written the way Chainer's documentation and its PTB example teach a recurrent language model
(``L.EmbedID`` + ``L.LSTM`` + ``L.Linear`` inside ``L.Classifier``, parallel streams over the
text, the loss summed over ``bprop_len`` steps, ``loss.unchain_backward()`` to truncate the
graph, gradient clipping), in plain Chainer API. The corpus is a short text embedded below
instead of ``chainer.datasets.get_ptb_words()``, which downloads.

Usage: python -m chainlite.compat train_char_lstm.py --epoch 3
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizer_hooks

TEXT = (
    'the quick brown fox jumps over the lazy dog. '
    'a lazy dog sleeps in the sun while the quick fox runs. '
    'the dog and the fox are friends; the fox is quick and the dog is lazy. '
) * 4


class RNNLM(chainer.Chain):

    def __init__(self, n_vocab, n_units):
        super(RNNLM, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.lstm = L.LSTM(n_units, n_units)
            self.out = L.Linear(n_units, n_vocab)

    def reset_state(self):
        self.lstm.reset_state()

    def forward(self, x):
        h = self.embed(x)
        h = self.lstm(F.dropout(h, ratio=0.1))
        return self.out(h)


def main():
    parser = argparse.ArgumentParser(description='Chainer example: character LSTM')
    parser.add_argument('--batchsize', '-b', type=int, default=8)
    parser.add_argument('--bproplen', '-l', type=int, default=12)
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--unit', '-u', type=int, default=64)
    args = parser.parse_args()

    np.random.seed(0)
    chars = sorted(set(TEXT))
    char_to_id = {c: i for i, c in enumerate(chars)}
    data = np.array([char_to_id[c] for c in TEXT], dtype=np.int32)

    rnn = RNNLM(len(chars), args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False
    optimizer = chainer.optimizers.Adam(alpha=0.01)
    optimizer.setup(model)
    optimizer.add_hook(optimizer_hooks.GradientClipping(5.0))

    # Each of the batchsize streams reads the text from its own offset.
    jump = len(data) // args.batchsize
    steps_per_epoch = jump
    position = 0
    for epoch in range(1, args.epoch + 1):
        total_loss = 0.0
        loss = 0
        for i in range(steps_per_epoch):
            offsets = [(k * jump + position) % len(data) for k in range(args.batchsize)]
            x = data[offsets]
            t = data[[(o + 1) % len(data) for o in offsets]]
            position += 1
            loss += model(x, t)
            total_loss += float(model.loss.array)
            if (i + 1) % args.bproplen == 0:
                model.cleargrads()
                loss.backward()
                loss.unchain_backward()     # truncate the graph here
                optimizer.update()
                loss = 0
        print('epoch {} perplexity {:.3f}'.format(
            epoch, float(np.exp(total_loss / steps_per_epoch))))

    # Greedy generation from the trained model.
    rnn.reset_state()
    text = 'the '
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for c in text[:-1]:
            rnn(np.array([char_to_id[c]], dtype=np.int32))
        for _ in range(30):
            y = rnn(np.array([char_to_id[text[-1]]], dtype=np.int32))
            text += chars[int(F.argmax(y, axis=1).array[0])]
    print('sample:', repr(text))


if __name__ == '__main__':
    main()
