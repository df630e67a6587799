#!/usr/bin/env python
"""A small character-level transformer language model (a GPT in miniature).

What it teaches:

* a decoder-only transformer as a Chain: ``L.EmbedID`` for the characters plus a learned
  position embedding (a ``chainlite.Parameter``), a stack of blocks, a final layer norm and
  ``L.Linear`` scores over the next character;
* the block, pre-norm as in GPT-2: ``x + attention(norm(x))`` then ``x + mlp(norm(x))``, the
  attention being ``L.MultiHeadAttention`` with ``is_causal=True``, so that position ``i``
  sees only positions ``0..i`` and every position of a window is a training example at once;
* training on random windows of the text with Adam, and sampling one character at a time
  from the model's own output (a window of the last ``--context`` characters).

Where the LSTM of ``rnn_lm.py`` carries a state from step to step, the transformer looks at
the whole window at every position: no state, nothing to truncate, and a fixed longest context.

Four kilobytes of text are soon learnt by heart: past about five epochs the training loss
keeps falling while the validation loss turns back up (``--epoch 10`` shows it).

The text is the opening of *Pride and Prejudice* (1813, public domain), shipped as
``examples/data/tiny_text.txt``; the last tenth is held out for validation. It runs in about
twenty seconds on two cores; ``--quick`` in a few seconds:

    python examples/transformer_lm.py
    python examples/transformer_lm.py --quick                   # a smoke run
    python examples/transformer_lm.py --epoch 30 --layers 3 --temperature 0.5
"""
import argparse
import os
import sys
import time

import numpy as np

import chainlite as chainer
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'tiny_text.txt')


class Block(chainer.Chain):
    """One transformer block: causal self-attention, then a two-layer perceptron.

    Args:
        n_units: The width of the model.
        n_heads: The number of attention heads (it must divide ``n_units``).
    """

    def __init__(self, n_units: int, n_heads: int):
        super().__init__()
        with self.init_scope():
            self.norm1 = L.LayerNormalization(n_units)
            self.attention = L.MultiHeadAttention(n_units, n_heads)
            self.norm2 = L.LayerNormalization(n_units)
            self.fc1 = L.Linear(n_units, 4 * n_units)
            self.fc2 = L.Linear(4 * n_units, n_units)

    def forward(self, x) -> chainer.Variable:
        """``x``: ``(N, T, n_units)`` -> the same shape."""
        n, t, d = x.shape
        # LayerNormalization and Linear see rows: (N, T, d) is read as N * T rows of d.
        h = F.reshape(self.norm1(F.reshape(x, (n * t, d))), (n, t, d))
        x = x + self.attention(h, is_causal=True)
        h = self.fc2(F.gelu(self.fc1(self.norm2(F.reshape(x, (n * t, d))))))
        return x + F.reshape(h, (n, t, d))


class TransformerLM(chainer.Chain):
    """Character ids ``(N, T)`` -> scores of the next character ``(N * T, n_vocab)``.

    Args:
        n_vocab: Number of distinct characters.
        n_units: The width of the model.
        n_heads: Attention heads per block.
        n_layers: Number of blocks.
        context: The longest window the model reads (the size of the position embedding).
    """

    def __init__(self, n_vocab: int, n_units: int, n_heads: int, n_layers: int, context: int):
        super().__init__()
        self.context = context
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units, initialW=initializers.Normal(0.1))
            self.position = chainer.Parameter(initializers.Normal(0.1), (context, n_units))
            self.blocks = chainer.ChainList(*[Block(n_units, n_heads) for _ in range(n_layers)])
            self.norm = L.LayerNormalization(n_units)
            self.out = L.Linear(n_units, n_vocab)

    def forward(self, x) -> chainer.Variable:
        n, t = x.shape
        h = self.embed(x) + F.broadcast_to(self.position[:t], (n, t, self.position.shape[1]))
        for block in self.blocks:
            h = block(h)
        return self.out(self.norm(F.reshape(h, (n * t, h.shape[2]))))


def load_text(path: str) -> tuple[np.ndarray, list[str]]:
    """The text as an int32 array of character ids, and the characters in id order."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    return np.array([index[c] for c in text], np.int32), chars


def windows(data: np.ndarray, starts: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``data[s:s + length]`` and targets one character later, for each start ``s``."""
    index = starts[:, None] + np.arange(length)
    return data[index], data[index + 1]


def loss_of(model: TransformerLM, x: np.ndarray, t: np.ndarray) -> chainer.Variable:
    """Mean cross entropy (nats per character) of the next-character predictions."""
    return F.softmax_cross_entropy(model(x), t.reshape(-1))


def evaluate(model: TransformerLM, data: np.ndarray) -> float:
    """Mean loss on ``data`` cut into windows of the full context, without building a graph."""
    length = model.context
    starts = np.arange(0, len(data) - length - 1, length)
    x, t = windows(data, starts, length)
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        return float(loss_of(model, x, t).array)


def sample(model: TransformerLM, chars: list[str], prime: str, length: int,
           temperature: float, rng: np.random.Generator) -> str:
    """Continues ``prime`` with ``length`` characters drawn from the model.

    Each step reads the last ``context`` characters and draws the next one from the scores at
    the last position; a temperature below 1 sharpens the distribution.
    """
    index = {c: i for i, c in enumerate(chars)}
    ids = [index[c] for c in prime]
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for _ in range(length):
            x = np.array([ids[-model.context:]], np.int32)
            p = F.softmax(model(x)[-1:] / temperature).array[0].astype(np.float64)
            ids.append(int(rng.choice(len(chars), p=p / p.sum())))
    return ''.join(chars[i] for i in ids)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epoch', '-e', type=int, default=5, help='number of epochs')
    parser.add_argument('--steps', type=int, default=40, help='updates per epoch')
    parser.add_argument('--batchsize', '-b', type=int, default=32, help='windows per update')
    parser.add_argument('--context', type=int, default=48, help='characters per window')
    parser.add_argument('--unit', '-u', type=int, default=64, help='width of the model')
    parser.add_argument('--heads', type=int, default=4, help='attention heads per block')
    parser.add_argument('--layers', type=int, default=2, help='transformer blocks')
    parser.add_argument('--lr', type=float, default=3e-3, help="Adam's alpha")
    parser.add_argument('--quick', action='store_true',
                        help='a smoke run: 3 short epochs, a narrower model')
    parser.add_argument('--sample-length', type=int, default=200)
    parser.add_argument('--temperature', type=float, default=0.7)
    parser.add_argument('--prime', default='It is a ')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:
        args.epoch, args.steps, args.unit, args.context = 3, 25, 32, 32
        args.sample_length = min(args.sample_length, 40)

    # Initializers and the windows draw from NumPy's random state: the seed fixes the run.
    np.random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    data, chars = load_text(TEXT)
    n_valid = len(data) // 10
    train, valid = data[:-n_valid], data[-n_valid:]
    print('%d characters (%d for training, %d for validation), %d distinct'
          % (len(data), len(train), len(valid), len(chars)))

    model = TransformerLM(len(chars), args.unit, args.heads, args.layers, args.context)
    optimizer = chainer.optimizers.Adam(alpha=args.lr)
    optimizer.setup(model)
    print('%d parameters; uniform guessing has loss %.3f'
          % (sum(p.size for p in model.params()), np.log(len(chars))))

    start = time.perf_counter()
    print('%6s  %10s  %10s' % ('epoch', 'train loss', 'valid loss'))
    # Epoch 0: the untrained model, for comparison.
    print('%6d  %10.4f  %10.4f' % (0, evaluate(model, train), evaluate(model, valid)))
    for epoch in range(1, args.epoch + 1):
        total = 0.0
        for _ in range(args.steps):
            starts = rng.integers(0, len(train) - args.context - 1, args.batchsize)
            loss = loss_of(model, *windows(train, starts, args.context))
            model.cleargrads()
            loss.backward()
            optimizer.update()
            total += float(loss.array)
        print('%6d  %10.4f  %10.4f' % (epoch, total / args.steps, evaluate(model, valid)))
        sys.stdout.flush()
    print('trained in %.1f s' % (time.perf_counter() - start))

    text = sample(model, chars, args.prime, args.sample_length, args.temperature, rng)
    print('sample (temperature %.2f):' % args.temperature)
    print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
