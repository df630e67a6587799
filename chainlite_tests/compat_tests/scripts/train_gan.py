"""Trains a small GAN on the 8x8 handwritten digits, in the style of a Chainer DCGAN script.

Plain Chainer API: a generator of ``L.Deconvolution2D`` and ``L.BatchNormalization``, a
discriminator of ``L.Convolution2D``, a ``StandardUpdater`` subclass that updates both with
their own optimizers, ``--device`` given as a string (``'-1'``, as argparse hands it over),
snapshots of the generator and an extension that stores sample images. The data set is
``chainer.datasets.get_digits`` (bundled with chainlite) instead of a download.

Usage: python -m chainlite.compat train_gan.py --epoch 2 --out result
"""
import argparse
import os

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class Generator(chainer.Chain):

    def __init__(self, n_hidden=8):
        super(Generator, self).__init__()
        self.n_hidden = n_hidden
        with self.init_scope():
            self.l0 = L.Linear(n_hidden, 16 * 2 * 2)
            self.dc1 = L.Deconvolution2D(16, 8, 4, stride=2, pad=1)     # 2 -> 4
            self.dc2 = L.Deconvolution2D(8, 1, 4, stride=2, pad=1)      # 4 -> 8
            self.bn0 = L.BatchNormalization(16 * 2 * 2)
            self.bn1 = L.BatchNormalization(8)

    def make_hidden(self, batchsize):
        return numpy.random.uniform(-1, 1, (batchsize, self.n_hidden)).astype(numpy.float32)

    def forward(self, z):
        h = F.reshape(F.relu(self.bn0(self.l0(z))), (len(z), 16, 2, 2))
        h = F.relu(self.bn1(self.dc1(h)))
        return F.sigmoid(self.dc2(h))


class Discriminator(chainer.Chain):

    def __init__(self):
        super(Discriminator, self).__init__()
        with self.init_scope():
            self.c0 = L.Convolution2D(1, 8, 3, stride=2, pad=1)        # 8 -> 4
            self.c1 = L.Convolution2D(8, 16, 3, stride=2, pad=1)       # 4 -> 2
            self.l2 = L.Linear(None, 1)

    def forward(self, x):
        h = F.leaky_relu(self.c0(x))
        h = F.leaky_relu(self.c1(h))
        return self.l2(h)


class GANUpdater(training.updaters.StandardUpdater):

    def __init__(self, *args, **kwargs):
        self.gen, self.dis = kwargs.pop('models')
        super(GANUpdater, self).__init__(*args, **kwargs)

    def update_core(self):
        gen_optimizer = self.get_optimizer('gen')
        dis_optimizer = self.get_optimizer('dis')
        batch = self.get_iterator('main').next()
        x_real = chainer.Variable(self.converter(batch, self.device))
        y_real = self.dis(x_real)
        z = chainer.Variable(self.device.xp.asarray(self.gen.make_hidden(len(batch))))
        x_fake = self.gen(z)
        y_fake = self.dis(x_fake)
        n = len(batch)
        loss_dis = (F.sum(F.softplus(-y_real)) + F.sum(F.softplus(y_fake))) / n
        loss_gen = F.sum(F.softplus(-y_fake)) / n
        self.dis.cleargrads()
        loss_dis.backward()
        dis_optimizer.update()
        self.gen.cleargrads()
        x_fake.unchain_backward()  # the generator's own graph is rebuilt below
        loss_gen = F.sum(F.softplus(-self.dis(self.gen(z)))) / n
        loss_gen.backward()
        gen_optimizer.update()
        chainer.report({'loss': loss_gen}, self.gen)
        chainer.report({'loss': loss_dis}, self.dis)


def sample_images(gen, n, out):
    @chainer.training.make_extension()
    def store(trainer):
        numpy.random.seed(0)
        with chainer.using_config('train', False), chainer.no_backprop_mode():
            x = gen(gen.make_hidden(n))
        numpy.random.seed()
        x = numpy.clip(chainer.backends.cuda.to_cpu(x.array) * 255, 0, 255).astype(numpy.uint8)
        path = os.path.join(out, 'preview_iter_%d.npy' % trainer.updater.iteration)
        numpy.save(path, x)
    return store


def main():
    parser = argparse.ArgumentParser(description='Chainer example: digits GAN')
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--epoch', '-e', type=int, default=2)
    parser.add_argument('--device', '-d', type=str, default='-1')
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    print('Device: {}'.format(device))
    gen, dis = Generator(), Discriminator()
    gen.to_device(device)
    dis.to_device(device)
    device.use()

    def make_optimizer(model):
        optimizer = chainer.optimizers.Adam(alpha=0.002, beta1=0.5)
        optimizer.setup(model)
        optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001), 'hook_dec')
        return optimizer

    train, _ = chainer.datasets.get_digits(withlabel=False, ndim=3, scale=1. / 16)
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    updater = GANUpdater(models=(gen, dis), iterator=train_iter,
                         optimizer={'gen': make_optimizer(gen), 'dis': make_optimizer(dis)},
                         device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.snapshot_object(gen, 'gen_epoch_{.updater.epoch}.npz'),
                   trigger=(1, 'epoch'))
    trainer.extend(extensions.LogReport(trigger=(10, 'iteration')))
    trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'gen/loss', 'dis/loss']),
                   trigger=(10, 'iteration'))
    trainer.extend(sample_images(gen, 4, args.out), trigger=(1, 'epoch'))
    trainer.run()


if __name__ == '__main__':
    main()
