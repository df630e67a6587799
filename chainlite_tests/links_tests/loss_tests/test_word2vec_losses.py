"""Skip-gram training with BinaryHierarchicalSoftmax and NegativeSampling learns a corpus.

The model is the shape of Chainer's word2vec example (an embedding whose rows are scored by
the loss link against the context words), written here; the corpus is periodic and the
context is the next word, so the center is predictable and the loss must fall far below
its starting value.
"""
import collections

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers

VOCAB = 8


class SkipGram(chainlite.Chain):

    def __init__(self, loss_func):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(VOCAB, 10, initialW=chainlite.initializers.Uniform(0.5))
            self.loss_func = loss_func

    def forward(self, center, context):
        e = self.embed(context)
        x = F.broadcast_to(center[:, None], context.shape)
        return self.loss_func(F.reshape(e, (-1, e.shape[-1])), x.array.reshape(-1))


def _corpus():
    return numpy.tile(numpy.arange(VOCAB, dtype=numpy.int32), 40)


def _batches(corpus):
    pos = numpy.arange(len(corpus) - 1)
    return corpus[pos], corpus[pos[:, None] + 1]


@pytest.mark.parametrize('out_type', ['hsm', 'ns'])
def test_skipgram_learns(out_type):
    numpy.random.seed(0)
    corpus = _corpus()
    counts = collections.Counter(corpus.tolist())
    if out_type == 'hsm':
        tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
        loss_func = L.BinaryHierarchicalSoftmax(10, tree)
    else:
        loss_func = L.NegativeSampling(10, [counts[w] for w in range(VOCAB)], 3)
    loss_func.W.array[...] = 0
    model = SkipGram(loss_func)
    opt = optimizers.Adam(0.05)
    opt.setup(model)
    center, context = _batches(corpus)
    losses = []
    for _ in range(60):
        loss = model(center, context)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    # Negative sampling keeps a floor: a drawn negative can be the true center word.
    assert losses[-1] < (0.2 if out_type == 'hsm' else 0.4) * losses[0]
    if out_type == 'ns':
        # The true center scores highest among all words for every context word.
        scores = model.embed.W.array @ loss_func.W.array.T  # (context word, center word)
        assert (scores.argmax(axis=1) == (numpy.arange(VOCAB) - 1) % VOCAB).all()
