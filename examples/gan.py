#!/usr/bin/env python
"""A small Wasserstein GAN with gradient penalty (WGAN-GP) on the bundled 8x8 digits.

What it teaches:

* two models trained against each other with two optimizers in a custom loop: a generator
  MLP turns noise ``z`` into images, a critic MLP scores images (high for real ones);
* the critic's loss ``mean D(fake) - mean D(real)`` and the generator's ``-mean D(G(z))``:
  the generator's gradient flows *through* the critic into the generator, while the
  critic's update sees the fake images as constants (``Variable.array``, no graph);
* a gradient penalty, which differentiates through a gradient (double backprop): on random
  points ``x_hat`` between real and fake images, ``chainlite.grad([D(x_hat)], [x_hat],
  enable_double_backprop=True)`` returns ``dD/dx_hat`` as a Variable still linked to the
  critic's parameters; the penalty ``lambda * mean((||dD/dx_hat|| - 1) ** 2)`` keeps the
  critic roughly 1-Lipschitz, and its backward pass is a second-order derivative;
* measuring quality without looking: a Frechet distance between Gaussians fitted to the
  pixels of generated and of real test images (the idea of the FID score, on raw pixels).

An epoch here is one pass of the critic over the training images, with one generator step
per ``--n-critic`` critic steps. Per epoch it prints the critic loss (its negative is an
estimate of the Wasserstein distance), the penalty term, the generator loss and the Frechet
distance, which falls from about 10 towards the distance between the training and test
sets themselves. With matplotlib installed it writes ``gan.png``, a grid of samples. About
ten seconds:

    python examples/gan.py
    python examples/gan.py --epoch 3                  # a quick smoke run
    python examples/gan.py --epoch 100 --out /tmp     # longer, picture in /tmp/gan.png
"""
import argparse
import os
import sys

import numpy as np

import chainlite as chainer
import chainlite.functions as F
import chainlite.links as L


class Generator(chainer.Chain):
    """Noise of size ``n_z`` -> two ReLU layers -> pixels in (0, 1) through a sigmoid."""

    def __init__(self, n_z: int, n_hidden: int, n_out: int):
        super().__init__()
        self.n_z = n_z
        with self.init_scope():
            self.l1 = L.Linear(n_z, n_hidden)
            self.l2 = L.Linear(n_hidden, n_hidden)
            self.l3 = L.Linear(n_hidden, n_out)

    def make_noise(self, n: int) -> np.ndarray:
        """``n`` codes from the standard normal distribution, drawn from NumPy's global state."""
        return np.random.standard_normal((n, self.n_z)).astype(np.float32)

    def forward(self, z) -> chainer.Variable:
        """Images (shape ``(B, n_out)``) for codes ``z`` (shape ``(B, n_z)``)."""
        h = F.relu(self.l1(z))
        h = F.relu(self.l2(h))
        return F.sigmoid(self.l3(h))


class Critic(chainer.Chain):
    """Image -> two leaky-ReLU layers -> one unbounded score (no sigmoid in a WGAN).

    No batch normalization: the gradient penalty is taken per image, and batch statistics
    would mix the images of a batch together.
    """

    def __init__(self, n_in: int, n_hidden: int):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.l2 = L.Linear(n_hidden, n_hidden)
            self.l3 = L.Linear(n_hidden, 1)

    def forward(self, x) -> chainer.Variable:
        """Scores, shape ``(B, 1)``."""
        h = F.leaky_relu(self.l1(x), slope=0.2)
        h = F.leaky_relu(self.l2(h), slope=0.2)
        return self.l3(h)


def gradient_penalty(critic: Critic, real: np.ndarray, fake: np.ndarray) -> chainer.Variable:
    """``mean((||dD/dx_hat|| - 1) ** 2)`` on random interpolations ``x_hat`` of the batches.

    The returned Variable depends on the critic's parameters through the gradient, so
    ``backward`` on it differentiates the gradient once more.
    """
    eps = np.random.uniform(size=(len(real), 1)).astype(np.float32)
    x_hat = chainer.Variable(eps * real + (1 - eps) * fake)
    score = critic(x_hat)
    # enable_double_backprop keeps the graph of this backward pass, so that gx is itself a
    # differentiable function of the critic's weights (and of x_hat).
    gx, = chainer.grad([score], [x_hat], enable_double_backprop=True)
    # A tiny constant keeps sqrt differentiable where a gradient happens to be zero.
    norm = F.sqrt(F.sum(gx * gx, axis=1) + 1e-12)
    return F.mean((norm - 1) ** 2)


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Frechet distance between Gaussians fitted to the rows of ``a`` and of ``b``.

    ``||mu_a - mu_b||^2 + tr(S_a + S_b - 2 (S_a S_b)^(1/2))``: zero for identical pixel
    means and covariances, larger as the two sets of images differ in their statistics.
    """
    a, b = a.astype(np.float64), b.astype(np.float64)
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    cov_a, cov_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    # tr((S_a S_b)^(1/2)) = tr((R S_b R)^(1/2)) with R = S_a^(1/2): a symmetric form that
    # eigh handles even though the always-blank border pixels make both matrices singular.
    w, v = np.linalg.eigh(cov_a)
    root_a = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    trace_root = np.sqrt(np.clip(np.linalg.eigvalsh(root_a @ cov_b @ root_a), 0, None)).sum()
    return float(((mu_a - mu_b) ** 2).sum() + np.trace(cov_a) + np.trace(cov_b)
                 - 2 * trace_root)


def generate(gen: Generator, n: int) -> np.ndarray:
    """``n`` generated images as an array, without building a graph."""
    with chainer.no_backprop_mode():
        return gen(gen.make_noise(n)).array


def draw(path: str, images: np.ndarray) -> bool:
    """Writes a grid of 8x8 images to ``path``; False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    n = int(np.ceil(np.sqrt(len(images))))
    fig, axes = plt.subplots(n, n, figsize=(n, n))
    for ax in axes.ravel():
        ax.axis('off')
    for ax, image in zip(axes.ravel(), images):
        ax.imshow(image.reshape(8, 8), cmap='gray_r', vmin=0, vmax=1)
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--epoch', '-e', type=int, default=60, help='critic passes over the data')
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--n-hidden', type=int, default=128)
    parser.add_argument('--n-z', type=int, default=16, help='size of the noise code')
    parser.add_argument('--n-critic', type=int, default=5, help='critic steps per generator step')
    parser.add_argument('--gp', type=float, default=10.0, help='gradient penalty weight lambda')
    parser.add_argument('--lr', type=float, default=1e-3, help="Adam's alpha for both models")
    parser.add_argument('--out', '-o', default='result', help='folder for gan.png')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)

    np.random.seed(args.seed)
    train, test = chainer.datasets.get_digits(withlabel=False, scale=1.0)
    print('UCI digits: %d training and %d test images, pixels in [0, 1]'
          % (len(train), len(test)))

    gen = Generator(args.n_z, args.n_hidden, train.shape[1])
    critic = Critic(train.shape[1], args.n_hidden)
    # The beta values of the WGAN-GP paper: little momentum suits the adversarial game.
    opt_gen = chainer.optimizers.Adam(alpha=args.lr, beta1=0.5, beta2=0.9)
    opt_gen.setup(gen)
    opt_critic = chainer.optimizers.Adam(alpha=args.lr, beta1=0.5, beta2=0.9)
    opt_critic.setup(critic)

    floor = frechet_distance(train, test)
    print('Frechet pixel distance, training vs test images (the floor): %.3f' % floor)
    print('Frechet pixel distance, untrained generator vs test images:  %.3f'
          % frechet_distance(generate(gen, len(test)), test))
    print('%6s  %12s  %12s  %12s  %12s' % ('epoch', 'critic loss', 'penalty', 'gen loss',
                                           'Frechet'))
    step = 0
    for epoch in range(1, args.epoch + 1):
        order = np.random.permutation(len(train))
        sums, counts = np.zeros(3), np.zeros(3)
        for i in range(0, len(train) - args.batchsize + 1, args.batchsize):
            real = train[order[i:i + args.batchsize]]
            # The critic sees the fakes as plain arrays: its update must not reach the generator.
            fake = generate(gen, len(real))
            wasserstein = F.mean(critic(fake)) - F.mean(critic(real))
            penalty = gradient_penalty(critic, real, fake)
            critic.cleargrads()
            (wasserstein + args.gp * penalty).backward()
            opt_critic.update()
            sums[:2] += float(wasserstein.array), float(penalty.array)
            counts[:2] += 1

            step += 1
            if step % args.n_critic == 0:
                # Here the graph runs through the critic into the generator; only the
                # generator's optimizer steps, and the critic's gradients are cleared above.
                gen_loss = -F.mean(critic(gen(gen.make_noise(args.batchsize))))
                gen.cleargrads()
                gen_loss.backward()
                opt_gen.update()
                sums[2] += float(gen_loss.array)
                counts[2] += 1
        critic_loss, penalty, gen_loss = sums / np.maximum(counts, 1)
        distance = frechet_distance(generate(gen, len(test)), test)
        print('%6d  %12.4f  %12.4f  %12.4f  %12.3f'
              % (epoch, critic_loss, penalty, gen_loss, distance))

    print('final Frechet pixel distance: %.3f (training vs test images: %.3f)'
          % (distance, floor))
    path = os.path.join(args.out, 'gan.png')
    if draw(path, generate(gen, 64)):
        print('wrote %s' % os.path.abspath(path))
    else:
        print('install matplotlib to draw the figure')
    return 0


if __name__ == '__main__':
    sys.exit(main())
