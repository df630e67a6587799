"""Saves a model and an optimizer and loads them into fresh ones, as Chainer's serialization
example does: ``save_npz``/``load_npz`` (and HDF5 when ``h5py`` is installed), then prints the
stored keys and checks the loaded parameters.

Usage: python -m chainlite.compat serialize_model.py --out DIR
"""
import argparse
import os

import numpy

import chainer
import chainer.links as L


class MLP(chainer.Chain):

    def __init__(self):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 5)
            self.l2 = L.Linear(5, 3)
        self.add_persistent('persistent', numpy.arange(6.).reshape(2, 3))

    def forward(self, x):
        return self.l2(chainer.functions.relu(self.l1(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', '-o', default='.')
    args = parser.parse_args()

    model = MLP()
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    model.cleargrads()
    loss = chainer.functions.sum(model(numpy.ones((2, 4), numpy.float32)))
    loss.backward()
    optimizer.update()

    formats = [('npz', chainer.serializers.save_npz, chainer.serializers.load_npz)]
    try:
        import h5py  # noqa: F401
        formats.append(('h5', chainer.serializers.save_hdf5, chainer.serializers.load_hdf5))
    except ImportError:
        print('h5py is not installed: HDF5 skipped')
    for ext, save, load in formats:
        path = os.path.join(args.out, 'model.' + ext)
        save(path, model)
        save(os.path.join(args.out, 'optimizer.' + ext), optimizer)
        print('model.%s saved!' % ext)
        if ext == 'npz':
            with numpy.load(path) as f:
                for key in sorted(f):
                    print('%s\t: %s' % (key, f[key].shape))
        loaded = MLP()
        load(path, loaded)
        fresh_optimizer = chainer.optimizers.Adam()
        fresh_optimizer.setup(loaded)
        load(os.path.join(args.out, 'optimizer.' + ext), fresh_optimizer)
        for (name, p), (_, q) in zip(sorted(model.namedparams()), sorted(loaded.namedparams())):
            assert numpy.array_equal(p.array, q.array), name
        assert numpy.array_equal(loaded.persistent, model.persistent)
        assert fresh_optimizer.t == optimizer.t == 1
        print('model.%s loaded!' % ext)


if __name__ == '__main__':
    main()
