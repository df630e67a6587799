#!/usr/bin/env python
"""A character-level LSTM language model, trained with truncated backpropagation through time.

What it teaches:

* a recurrent model as a Chain: ``L.EmbedID`` (character -> vector), ``L.LSTM`` (a stateful
  layer that remembers its cell ``c`` and output ``h`` between calls) and ``L.Linear``
  (vector -> scores over the next character);
* truncated BPTT: the text is read in parallel streams, one character per step; the loss of
  ``--bptt`` steps is summed, backpropagated, and then cut off from the past with
  ``loss.unchain_backward()``, so the graph (and the memory) stays ``--bptt`` steps long
  while the LSTM state still carries information forward;
* Adam with the ``GradientClipping`` optimizer hook, which keeps exploding gradients in check;
* perplexity, ``exp(mean cross entropy per character)``: how many characters the model is
  choosing between, on average (the alphabet here has about 50);
* sampling: feeding the model its own output, one character at a time, with a seeded
  generator.

With so little text the model soon starts to memorize it: the training perplexity keeps
falling while the validation perplexity stops improving after about ten epochs (overfitting;
more text, dropout or a smaller ``--unit`` push that point later).

The text is the opening of *Pride and Prejudice* (1813, public domain), shipped as
``examples/data/tiny_text.txt``; the last tenth is held out for validation. It runs in about
ten seconds:

    python examples/rnn_lm.py
    python examples/rnn_lm.py --epoch 2 --sample-length 40      # a quick smoke run
    python examples/rnn_lm.py --epoch 40 --unit 128 --temperature 0.5
"""
import argparse
import math
import os
import sys

import numpy as np

import chainlite as chainer
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizer_hooks

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'tiny_text.txt')


class CharLM(chainer.Chain):
    """Embedding -> LSTM -> linear scores over the next character.

    Args:
        n_vocab: Number of distinct characters.
        n_units: Size of the embedding and of the LSTM state.
    """

    def __init__(self, n_vocab: int, n_units: int):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.rnn = L.LSTM(n_units, n_units)
            self.out = L.Linear(n_units, n_vocab)

    def reset_state(self) -> None:
        """Forgets the LSTM's state: call before reading a new text."""
        self.rnn.reset_state()

    def forward(self, x) -> chainer.Variable:
        """Scores of the next character for a batch of character ids ``x`` (shape ``(B,)``)."""
        return self.out(self.rnn(self.embed(x)))


def load_text(path: str) -> tuple[np.ndarray, list[str]]:
    """The text as an int32 array of character ids, and the characters in id order."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    return np.array([index[c] for c in text], np.int32), chars


def train_epoch(model: CharLM, optimizer, data: np.ndarray, batchsize: int, bptt: int) -> float:
    """One pass over ``data`` read as ``batchsize`` parallel streams; returns the perplexity.

    Stream ``i`` starts at offset ``i * len(data) // batchsize``, so at every step the batch
    holds one character from each stream and the LSTM state of row ``i`` always belongs to
    stream ``i``.
    """
    length = len(data) // batchsize
    streams = data[:length * batchsize].reshape(batchsize, length)
    model.reset_state()
    total, count = 0.0, 0
    loss = 0
    for t in range(length - 1):
        y = model(streams[:, t])
        loss += F.softmax_cross_entropy(y, streams[:, t + 1])
        if (t + 1) % bptt == 0 or t == length - 2:
            steps = t % bptt + 1
            total += float(loss.array)
            count += steps
            model.cleargrads()
            (loss / steps).backward()
            # Cut the graph here: the next window starts from the current LSTM state, but
            # its gradients stop at this point instead of reaching back to the beginning.
            loss.unchain_backward()
            optimizer.update()
            loss = 0
    return math.exp(total / count)


def evaluate(model: CharLM, data: np.ndarray) -> float:
    """Perplexity on ``data`` read as one stream, without building a graph."""
    model.reset_state()
    total = 0.0
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for t in range(len(data) - 1):
            y = model(data[t:t + 1])
            total += float(F.softmax_cross_entropy(y, data[t + 1:t + 2]).array)
    return math.exp(total / (len(data) - 1))


def sample(model: CharLM, chars: list[str], prime: str, length: int, temperature: float,
           rng: np.random.Generator) -> str:
    """Continues ``prime`` with ``length`` characters drawn from the model.

    The prime is read first to set the state; then each drawn character is fed back in.
    A temperature below 1 sharpens the distribution (safer, more repetitive text).
    """
    index = {c: i for i, c in enumerate(chars)}
    model.reset_state()
    out = list(prime)
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for c in prime[:-1]:
            model(np.array([index[c]], np.int32))
        x = np.array([index[prime[-1]]], np.int32)
        for _ in range(length):
            p = F.softmax(model(x) / temperature).array[0].astype(np.float64)
            i = rng.choice(len(chars), p=p / p.sum())
            out.append(chars[i])
            x = np.array([i], np.int32)
    return ''.join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epoch', '-e', type=int, default=10, help='passes over the text')
    parser.add_argument('--batchsize', '-b', type=int, default=32, help='parallel streams')
    parser.add_argument('--bptt', type=int, default=25, help='steps per truncated window')
    parser.add_argument('--unit', '-u', type=int, default=96, help='embedding and LSTM size')
    parser.add_argument('--lr', type=float, default=0.01, help="Adam's alpha")
    parser.add_argument('--clip', type=float, default=5.0, help='gradient norm threshold')
    parser.add_argument('--sample-length', type=int, default=200)
    parser.add_argument('--temperature', type=float, default=0.7)
    parser.add_argument('--prime', default='It is a ')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # Initializers draw from NumPy's global state: the seed makes the run reproducible.
    np.random.seed(args.seed)
    data, chars = load_text(TEXT)
    n_valid = len(data) // 10
    train, valid = data[:-n_valid], data[-n_valid:]
    print('%d characters (%d for training, %d for validation), %d distinct'
          % (len(data), len(train), len(valid), len(chars)))

    model = CharLM(len(chars), args.unit)
    optimizer = chainer.optimizers.Adam(alpha=args.lr)
    optimizer.setup(model)
    optimizer.add_hook(optimizer_hooks.GradientClipping(args.clip))

    print('uniform guessing has perplexity %d' % len(chars))
    print('%6s  %16s  %16s' % ('epoch', 'train perplexity', 'valid perplexity'))
    for epoch in range(1, args.epoch + 1):
        train_ppl = train_epoch(model, optimizer, train, args.batchsize, args.bptt)
        valid_ppl = evaluate(model, valid)
        print('%6d  %16.3f  %16.3f' % (epoch, train_ppl, valid_ppl))
    sys.stdout.flush()

    text = sample(model, chars, args.prime, args.sample_length, args.temperature,
                  np.random.default_rng(args.seed))
    print('sample (temperature %.2f):' % args.temperature)
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
