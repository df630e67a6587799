import gzip
import os
import struct

import numpy
import pytest

from chainlite.datasets import get_kuzushiji_mnist_labels
from chainlite.datasets import kuzushiji_mnist
from chainlite.datasets import TupleDataset

_SIZES = {'train': 4, 't10k': 3}


def _make_files():
    rng = numpy.random.RandomState(11)
    raw, files = {}, {}
    for prefix, n in _SIZES.items():
        x = rng.randint(0, 256, size=(n, 28, 28)).astype(numpy.uint8)
        x[0, 0, :2] = 0, 255
        y = rng.randint(0, 10, size=n).astype(numpy.uint8)
        files[prefix + '-images-idx3-ubyte.gz'] = gzip.compress(
            struct.pack('>IIII', 0x803, n, 28, 28) + x.tobytes())
        files[prefix + '-labels-idx1-ubyte.gz'] = gzip.compress(
            struct.pack('>II', 0x801, n) + y.tobytes())
        raw[prefix] = x, y
    return raw, files


@pytest.fixture
def served(file_server, refused_url, dataset_root, monkeypatch):
    raw, files = _make_files()
    hashes = file_server.publish('kmnist', files)
    monkeypatch.setattr(kuzushiji_mnist, 'KUZUSHIJI_MNIST_MIRRORS',
                        (refused_url, file_server.url + '/kmnist/'))
    monkeypatch.setattr(kuzushiji_mnist, 'KUZUSHIJI_MNIST_SHA256', hashes)
    return raw


def test_default_shapes_values_and_cache(served, file_server, dataset_root):
    train, test = kuzushiji_mnist.get_kuzushiji_mnist()
    assert isinstance(train, TupleDataset) and isinstance(test, TupleDataset)
    assert (len(train), len(test)) == (4, 3)
    for split, dataset in (('train', train), ('t10k', test)):
        x_raw, y_raw = served[split]
        for i in range(len(dataset)):
            x, t = dataset[i]
            assert x.shape == (784,) and x.dtype == numpy.float32 and t.dtype == numpy.int32
            numpy.testing.assert_allclose(x, x_raw[i].reshape(784) / 255., rtol=1e-6)
            assert int(t) == y_raw[i]
    assert train[0][0].min() == 0 and train[0][0].max() == 1
    root = dataset_root / 'pfnet' / 'chainer' / 'kuzushiji_mnist'
    assert os.path.exists(root / 'train.npz') and os.path.exists(root / 'test.npz')
    file_server.stop()  # the second call reads the npz caches only
    again, _ = kuzushiji_mnist.get_kuzushiji_mnist(withlabel=False)
    numpy.testing.assert_array_equal(again, numpy.stack([train[i][0] for i in range(4)]))


@pytest.mark.parametrize('ndim, rgb_format, shape', [
    (1, True, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)), (3, True, (3, 28, 28)),
])
def test_ndim_rgb_format(served, ndim, rgb_format, shape):
    _, test = kuzushiji_mnist.get_kuzushiji_mnist(ndim=ndim, rgb_format=rgb_format)
    x, _ = test[2]
    assert x.shape == shape
    for channel in x.reshape(-1, 784):
        numpy.testing.assert_allclose(channel, served['t10k'][0][2].reshape(784) / 255.,
                                      rtol=1e-6)


def test_withlabel_false_scale_dtypes(served):
    train, test = kuzushiji_mnist.get_kuzushiji_mnist(withlabel=False, scale=255.,
                                                      dtype=numpy.float16)
    assert isinstance(train, numpy.ndarray) and train.dtype == numpy.float16
    assert test.shape == (3, 784)
    numpy.testing.assert_array_equal(test, served['t10k'][0].reshape(3, 784))
    labelled, _ = kuzushiji_mnist.get_kuzushiji_mnist(label_dtype=numpy.int64)
    assert labelled[1][1].dtype == numpy.int64


def test_bad_ndim_raises_before_downloading(served, file_server):
    with pytest.raises(ValueError, match='get_kuzushiji_mnist: ndim must be one of 1, 2, 3'):
        kuzushiji_mnist.get_kuzushiji_mnist(ndim=0)
    assert file_server.requests == []


def test_hash_mismatch_raises_and_caches_nothing(served, dataset_root, monkeypatch):
    hashes = dict(kuzushiji_mnist.KUZUSHIJI_MNIST_SHA256)
    hashes['t10k-images-idx3-ubyte.gz'] = 'f' * 64
    monkeypatch.setattr(kuzushiji_mnist, 'KUZUSHIJI_MNIST_SHA256', hashes)
    with pytest.raises(OSError, match='SHA-256 mismatch'):
        kuzushiji_mnist.get_kuzushiji_mnist()
    assert not os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'kuzushiji_mnist' /
                              'test.npz')


def test_labels():
    labels = get_kuzushiji_mnist_labels()
    assert len(labels) == 10
    assert labels[0] == ('o', '\u304a') and labels[9] == ('wo', '\u3092')
    assert all(isinstance(r, str) and len(c) == 1 for r, c in labels)
    labels.pop()
    assert len(get_kuzushiji_mnist_labels()) == 10


def test_real_mirrors_and_hashes():
    assert kuzushiji_mnist.KUZUSHIJI_MNIST_MIRRORS[0].startswith('https://')
    assert all(m.endswith('/') for m in kuzushiji_mnist.KUZUSHIJI_MNIST_MIRRORS)
    hashes = kuzushiji_mnist.KUZUSHIJI_MNIST_SHA256
    assert len(hashes) == 4 and len(set(hashes.values())) == 4
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in hashes.values())
