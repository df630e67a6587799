#!/usr/bin/env python
"""A variational autoencoder (VAE) on the bundled 8x8 digits.

What it teaches:

* an encoder MLP that maps an image ``x`` to a Gaussian over a small latent code ``z``: its
  mean ``mu`` and the log of its variance ``ln_var`` (two linear heads on one hidden layer);
* the reparameterization trick, ``F.gaussian(mu, ln_var)`` = ``mu + exp(ln_var / 2) * eps``
  with random ``eps``: a sample through which gradients reach ``mu`` and ``ln_var``;
* a decoder MLP whose outputs are the logits of Bernoulli pixel probabilities, scored with
  ``F.bernoulli_nll`` (pixels scaled to [0, 1] act as soft targets);
* the evidence lower bound, ELBO = -(reconstruction NLL + KL(q(z|x) || N(0, I))), the KL
  term given in closed form by ``F.gaussian_kl_divergence``; training maximizes it (we
  minimize its negative with Adam in a plain loop);
* generation: decoding codes drawn from the prior ``N(0, I)``.

It prints the ELBO per image (in nats, higher is better) on the training and test sets per
epoch, then the mean squared reconstruction error of the test images against two baselines.
With matplotlib installed it also writes ``vae.png``: test images, their reconstructions,
and new samples. It runs in a few seconds:

    python examples/vae.py
    python examples/vae.py --epoch 2                  # a quick smoke run
    python examples/vae.py --n-latent 2 --out /tmp    # a 2-d code, picture in /tmp/vae.png
"""
import argparse
import os
import sys

import numpy as np

import chainlite as chainer
import chainlite.functions as F
import chainlite.links as L


class VAE(chainer.Chain):
    """An MLP encoder to ``(mu, ln_var)`` and an MLP decoder to pixel logits.

    Args:
        n_in: Number of pixels.
        n_hidden: Hidden units of the encoder and of the decoder.
        n_latent: Size of the code ``z``.
    """

    def __init__(self, n_in: int, n_hidden: int, n_latent: int):
        super().__init__()
        with self.init_scope():
            self.enc = L.Linear(n_in, n_hidden)
            self.enc_mu = L.Linear(n_hidden, n_latent)
            self.enc_ln_var = L.Linear(n_hidden, n_latent)
            self.dec_hidden = L.Linear(n_latent, n_hidden)
            self.dec_out = L.Linear(n_hidden, n_in)

    def encode(self, x) -> tuple[chainer.Variable, chainer.Variable]:
        """The mean and log variance of ``q(z | x)``."""
        h = F.relu(self.enc(x))
        return self.enc_mu(h), self.enc_ln_var(h)

    def decode(self, z) -> chainer.Variable:
        """Pixel logits of ``p(x | z)``; ``F.sigmoid`` of them gives the image."""
        return self.dec_out(F.relu(self.dec_hidden(z)))

    def loss(self, x, beta: float = 1.0) -> tuple[chainer.Variable, chainer.Variable,
                                                  chainer.Variable]:
        """The negative ELBO per image, with its reconstruction and KL parts.

        Args:
            x: A batch of images, shape ``(B, n_in)``, values in [0, 1].
            beta: Weight of the KL term (1 gives the true ELBO).

        Returns:
            ``(loss, reconstruction, kl)``, each averaged over the batch.
        """
        batchsize = len(x)
        mu, ln_var = self.encode(x)
        # One sample of z per image: a noisy but unbiased estimate of the expectation.
        z = F.gaussian(mu, ln_var)
        rec = F.bernoulli_nll(x, self.decode(z)) / batchsize
        kl = F.gaussian_kl_divergence(mu, ln_var) / batchsize
        return rec + beta * kl, rec, kl


def elbo(model: VAE, x: np.ndarray) -> float:
    """The ELBO per image on ``x`` (one sample of ``z`` per image), without a graph."""
    with chainer.no_backprop_mode():
        loss, _, _ = model.loss(x)
    return -float(loss.array)


def reconstruct(model: VAE, x: np.ndarray) -> np.ndarray:
    """Images decoded from the mean code of each image in ``x`` (no sampling noise)."""
    with chainer.no_backprop_mode():
        mu, _ = model.encode(x)
        return F.sigmoid(model.decode(mu)).array


def draw(path: str, originals: np.ndarray, recons: np.ndarray, samples: np.ndarray) -> bool:
    """Writes three rows of 8x8 images to ``path``; False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    rows = (('test images', originals), ('reconstructions', recons), ('samples', samples))
    n = len(originals)
    fig, axes = plt.subplots(3, n, figsize=(n, 3.3))
    for r, (title, images) in enumerate(rows):
        for c in range(n):
            axes[r, c].imshow(images[c].reshape(8, 8), cmap='gray_r', vmin=0, vmax=1)
            axes[r, c].axis('off')
        axes[r, 0].set_title(title, loc='left', fontsize=9)
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epoch', '-e', type=int, default=30)
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--n-hidden', type=int, default=128)
    parser.add_argument('--n-latent', type=int, default=8)
    parser.add_argument('--lr', type=float, default=2e-3, help="Adam's alpha")
    parser.add_argument('--out', '-o', default='result', help='folder for vae.png')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    # Initializers, F.gaussian's noise and the shuffles all draw from NumPy's global state.
    np.random.seed(args.seed)
    train, test = chainer.datasets.get_digits(withlabel=False, scale=1.0)
    print('UCI digits: %d training and %d test images, pixels in [0, 1]'
          % (len(train), len(test)))

    model = VAE(train.shape[1], args.n_hidden, args.n_latent)
    optimizer = chainer.optimizers.Adam(alpha=args.lr)
    optimizer.setup(model)

    print('%6s  %12s  %12s  %12s  %12s' % ('epoch', 'train ELBO', 'reconstruct', 'KL',
                                           'test ELBO'))
    for epoch in range(1, args.epoch + 1):
        order = np.random.permutation(len(train))
        sums = np.zeros(3)
        for i in range(0, len(train), args.batchsize):
            x = train[order[i:i + args.batchsize]]
            loss, rec, kl = model.loss(x)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            sums += len(x) * np.array([float(loss.array), float(rec.array), float(kl.array)])
        loss, rec, kl = sums / len(train)
        print('%6d  %12.3f  %12.3f  %12.3f  %12.3f' % (epoch, -loss, rec, kl, elbo(model, test)))

    recons = reconstruct(model, test)
    mse = float(((recons - test) ** 2).mean())
    mean_image_mse = float(((train.mean(axis=0) - test) ** 2).mean())
    print('test reconstruction error (mean squared, per pixel): %.4f' % mse)
    print('  predicting the mean training image instead:        %.4f' % mean_image_mse)
    print('  predicting blank images instead:                   %.4f' % float((test ** 2).mean()))

    with chainer.no_backprop_mode():
        z = np.random.standard_normal((10, args.n_latent)).astype(np.float32)
        samples = F.sigmoid(model.decode(z)).array
    path = os.path.join(args.out, 'vae.png')
    if draw(path, test[:10], recons[:10], samples):
        print('wrote %s' % os.path.abspath(path))
    else:
        print('install matplotlib to draw the figure')
    return 0


if __name__ == '__main__':
    sys.exit(main())
