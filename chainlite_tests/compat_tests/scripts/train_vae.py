"""Trains a variational autoencoder on the 8x8 handwritten digits with chainer.distributions.

Written the way Chainer's VAE example builds one: the encoder returns a distribution
(``D.Independent(D.Normal(loc, log_scale=...))``), the decoder a ``D.Bernoulli`` over pixels
given by logits, the prior a standard ``D.Normal``, and the loss is the negative ELBO with
``chainer.kl_divergence`` and a reparameterized ``sample``; Trainer, Evaluator, LogReport,
snapshots. Plain Chainer API with one substitution: ``chainer.datasets.get_digits`` (the UCI
digits that chainlite bundles, pixels in [0, 1]) instead of ``get_mnist``.

Usage: python -m chainlite.compat train_vae.py --epoch 3 --out result
"""
import argparse

import numpy as np

import chainer
import chainer.distributions as D
import chainer.functions as F
import chainer.links as L
from chainer import reporter
from chainer import training
from chainer.training import extensions


class Encoder(chainer.Chain):

    def __init__(self, n_in, n_latent, n_h):
        super(Encoder, self).__init__()
        with self.init_scope():
            self.hidden = L.Linear(n_in, n_h)
            self.mu = L.Linear(n_h, n_latent)
            self.ln_sigma = L.Linear(n_h, n_latent)

    def forward(self, x):
        h = F.tanh(self.hidden(x))
        return D.Independent(D.Normal(loc=self.mu(h), log_scale=self.ln_sigma(h)))


class Decoder(chainer.Chain):

    def __init__(self, n_in, n_latent, n_h):
        super(Decoder, self).__init__()
        with self.init_scope():
            self.hidden = L.Linear(n_latent, n_h)
            self.output = L.Linear(n_h, n_in)

    def forward(self, z, inference=False):
        n_batch_axes = 1 if inference else 2
        h = F.tanh(self.hidden(z, n_batch_axes=n_batch_axes))
        logit = self.output(h, n_batch_axes=n_batch_axes)
        return D.Independent(D.Bernoulli(logit=logit), reinterpreted_batch_ndims=1)


class Prior(chainer.Link):

    def __init__(self, n_latent):
        super(Prior, self).__init__()
        self.loc = np.zeros(n_latent, np.float32)
        self.scale = np.ones(n_latent, np.float32)
        self.register_persistent('loc')
        self.register_persistent('scale')

    def forward(self):
        return D.Independent(D.Normal(self.loc, scale=self.scale),
                             reinterpreted_batch_ndims=1)


class AvgELBOLoss(chainer.Chain):

    def __init__(self, encoder, decoder, prior, k=1):
        super(AvgELBOLoss, self).__init__()
        self.k = k
        with self.init_scope():
            self.encoder = encoder
            self.decoder = decoder
            self.prior = prior

    def forward(self, x):
        q_z = self.encoder(x)
        z = q_z.sample(self.k)
        p_x = self.decoder(z)
        reconstr = F.mean(p_x.log_prob(F.broadcast_to(x[None, :], (self.k,) + x.shape)))
        kl_penalty = F.mean(chainer.kl_divergence(q_z, self.prior()))
        loss = -(reconstr - kl_penalty)
        reporter.report({'loss': loss, 'reconstr': reconstr, 'kl_penalty': kl_penalty}, self)
        return loss


def main():
    parser = argparse.ArgumentParser(description='Chainer example: VAE on digits')
    parser.add_argument('--epoch', '-e', type=int, default=10)
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--dim-z', '-z', type=int, default=8)
    parser.add_argument('--k', '-k', type=int, default=2)
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args()

    np.random.seed(0)
    encoder, decoder, prior = Encoder(64, args.dim_z, 64), Decoder(64, args.dim_z, 64), \
        Prior(args.dim_z)
    model = AvgELBOLoss(encoder, decoder, prior, k=args.k)
    optimizer = chainer.optimizers.Adam(alpha=3e-3)
    optimizer.setup(model)

    train, test = chainer.datasets.get_digits(withlabel=False)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, 200, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, loss_func=model)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/reconstr', 'main/kl_penalty']))
    trainer.run()

    # Reconstructions of test digits and decoded samples of the prior.
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        x = test[:9]
        y = decoder(encoder(x).mean, inference=True).mean.array
        sampled = decoder(prior().sample(9), inference=True).mean.array
    print('reconstruction error %.4f' % float(np.mean((y - x) ** 2)))
    print('sampled shape %s' % (sampled.shape,))


if __name__ == '__main__':
    main()
