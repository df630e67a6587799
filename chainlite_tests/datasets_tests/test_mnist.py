import gzip
import os
import struct

import numpy
import pytest

from chainlite.datasets import fashion_mnist
from chainlite.datasets import mnist
from chainlite.datasets import TupleDataset

_N_TRAIN, _N_TEST = 5, 3


def _idx_images(images):
    header = struct.pack('>IIII', 0x803, *images.shape)
    return gzip.compress(header + images.tobytes())


def _idx_labels(labels):
    return gzip.compress(struct.pack('>II', 0x801, len(labels)) + labels.tobytes())


def _make_files():
    rng = numpy.random.RandomState(3)
    raw = {}
    files = {}
    for prefix, n in (('train', _N_TRAIN), ('t10k', _N_TEST)):
        x = rng.randint(0, 256, size=(n, 28, 28)).astype(numpy.uint8)
        x[0, 0, 0], x[0, 0, 1] = 0, 255  # the extremes of the scale are present
        y = rng.randint(0, 10, size=n).astype(numpy.uint8)
        files[prefix + '-images-idx3-ubyte.gz'] = _idx_images(x)
        files[prefix + '-labels-idx1-ubyte.gz'] = _idx_labels(y)
        raw[prefix] = x, y
    return raw, files


@pytest.fixture
def served_mnist(file_server, refused_url, dataset_root, monkeypatch):
    raw, files = _make_files()
    hashes = file_server.publish('mnist', files)
    # a refused connection, then a 404, then the mirror that has the files
    mirrors = (refused_url, file_server.url + '/missing/', file_server.url + '/mnist/')
    monkeypatch.setattr(mnist, 'MNIST_MIRRORS', mirrors)
    monkeypatch.setattr(mnist, 'MNIST_SHA256', hashes)
    return raw


def test_get_mnist_default_shapes_dtypes_scaling(served_mnist, file_server, dataset_root):
    train, test = mnist.get_mnist()
    assert isinstance(train, TupleDataset) and isinstance(test, TupleDataset)
    assert (len(train), len(test)) == (_N_TRAIN, _N_TEST)
    x, t = train[0]
    assert x.shape == (784,) and x.dtype == numpy.float32
    assert t.dtype == numpy.int32
    raw_x, raw_y = served_mnist['train']
    numpy.testing.assert_allclose(x, raw_x[0].reshape(784) / 255., rtol=1e-6)
    assert x.min() == 0 and x.max() == 1
    assert [int(train[i][1]) for i in range(_N_TRAIN)] == raw_y.tolist()
    x_test, t_test = test[_N_TEST - 1]
    numpy.testing.assert_allclose(x_test, served_mnist['t10k'][0][-1].reshape(784) / 255.,
                                  rtol=1e-6)
    assert int(t_test) == served_mnist['t10k'][1][-1]
    assert os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'mnist' / 'train.npz')
    assert '/missing/train-images-idx3-ubyte.gz' in file_server.requests


def test_get_mnist_served_from_cache_after_server_stops(served_mnist, file_server):
    first_train, _ = mnist.get_mnist(withlabel=False)
    file_server.stop()
    train, test = mnist.get_mnist(withlabel=False)
    numpy.testing.assert_array_equal(train, first_train)
    assert test.shape == (_N_TEST, 784)


@pytest.mark.parametrize('ndim, rgb_format, shape', [
    (1, False, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)), (3, True, (3, 28, 28)),
])
def test_get_mnist_ndim(served_mnist, ndim, rgb_format, shape):
    train, _ = mnist.get_mnist(ndim=ndim, rgb_format=rgb_format)
    x, _ = train[1]
    assert x.shape == shape
    expected = served_mnist['train'][0][1] / 255.
    for channel in x.reshape(-1, 784):
        numpy.testing.assert_allclose(channel, expected.reshape(784), rtol=1e-6)


def test_get_mnist_withlabel_false_scale_dtypes(served_mnist):
    train, test = mnist.get_mnist(withlabel=False, scale=2., dtype=numpy.float64)
    assert isinstance(train, numpy.ndarray) and train.shape == (_N_TRAIN, 784)
    assert train.dtype == numpy.float64 and train.max() == 2.
    numpy.testing.assert_allclose(test, served_mnist['t10k'][0].reshape(-1, 784) * 2. / 255.)
    labelled, _ = mnist.get_mnist(label_dtype=numpy.int64)
    assert labelled[0][1].dtype == numpy.int64


def test_get_mnist_bad_ndim_raises_before_downloading(served_mnist, file_server):
    with pytest.raises(ValueError, match='get_mnist: ndim'):
        mnist.get_mnist(ndim=4)
    assert file_server.requests == []


def test_get_mnist_corrupt_file_caches_nothing(served_mnist, file_server, dataset_root,
                                               monkeypatch):
    hashes = dict(mnist.MNIST_SHA256)
    hashes['train-labels-idx1-ubyte.gz'] = '0' * 64
    monkeypatch.setattr(mnist, 'MNIST_SHA256', hashes)
    with pytest.raises(OSError, match='SHA-256 mismatch: expected 0{64}, got'):
        mnist.get_mnist()
    assert not os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'mnist' / 'train.npz')
    cached = os.listdir(dataset_root / '_dl_cache')
    assert not any('labels' in name for name in cached)


def test_get_mnist_mismatched_pair_raises(file_server, dataset_root, monkeypatch):
    _, files = _make_files()
    files['train-labels-idx1-ubyte.gz'] = _idx_labels(numpy.zeros(2, numpy.uint8))
    monkeypatch.setattr(mnist, 'MNIST_MIRRORS', (file_server.url + '/m/',))
    monkeypatch.setattr(mnist, 'MNIST_SHA256', file_server.publish('m', files))
    with pytest.raises(RuntimeError, match='5 images but 2 labels'):
        mnist.get_mnist()


def test_get_mnist_not_idx_raises(file_server, dataset_root, monkeypatch):
    _, files = _make_files()
    files['train-images-idx3-ubyte.gz'] = gzip.compress(b'not an idx file')
    monkeypatch.setattr(mnist, 'MNIST_MIRRORS', (file_server.url + '/m/',))
    monkeypatch.setattr(mnist, 'MNIST_SHA256', file_server.publish('m', files))
    with pytest.raises(ValueError, match='not an IDX file'):
        mnist.get_mnist()


def test_get_fashion_mnist(file_server, dataset_root, monkeypatch):
    raw, files = _make_files()
    monkeypatch.setattr(fashion_mnist, 'FASHION_MNIST_MIRRORS', (file_server.url + '/f/',))
    monkeypatch.setattr(fashion_mnist, 'FASHION_MNIST_SHA256', file_server.publish('f', files))
    _, test = fashion_mnist.get_fashion_mnist(ndim=3)
    x, t = test[2]
    assert x.shape == (1, 28, 28) and x.dtype == numpy.float32 and t.dtype == numpy.int32
    numpy.testing.assert_allclose(x[0], raw['t10k'][0][2] / 255., rtol=1e-6)
    assert os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'fashion-mnist' / 'test.npz')
    names = fashion_mnist.get_fashion_mnist_labels()
    assert len(names) == 10 and names[0] == 'T-shirt/top'
    names.append('mutated')
    assert len(fashion_mnist.get_fashion_mnist_labels()) == 10


def test_real_mirrors_and_hashes_are_https_sha256():
    for mirrors in (mnist.MNIST_MIRRORS, fashion_mnist.FASHION_MNIST_MIRRORS[:1]):
        assert all(m.startswith('https://') and m.endswith('/') for m in mirrors)
    for hashes in (mnist.MNIST_SHA256, fashion_mnist.FASHION_MNIST_SHA256):
        assert len(hashes) == 4
        assert all(len(h) == 64 and int(h, 16) >= 0 for h in hashes.values())
