"""Chainer's private dataset helpers that code outside Chainer imports, under compat.

Each helper downloads from the local file server of ``conftest.py`` (nothing leaves the
machine) and is checked against the arrays served.
"""
import gzip
import importlib
import io
import pickle
import struct

import numpy
import pytest
from scipy import io as scipy_io

from chainlite import compat
from chainlite.datasets import TupleDataset


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


def _idx(array):
    header = struct.pack('>I', 0x800 + array.ndim) + struct.pack('>%dI' % array.ndim,
                                                                 *array.shape)
    return gzip.compress(header + array.tobytes())


def _pair(n, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.randint(0, 256, size=(n, 28, 28)).astype(numpy.uint8)
    y = rng.randint(0, 10, size=n).astype(numpy.uint8)
    return x, y


@pytest.mark.parametrize('module, name', [('mnist', 'mnist'),
                                          ('fashion_mnist', 'fashion_mnist'),
                                          ('kuzushiji_mnist', 'kuzushiji_mnist')])
def test_mnist_family_retrieve_helpers(chainer, file_server, dataset_root, monkeypatch,
                                       module, name):
    mod = importlib.import_module('chainer.datasets.' + module)
    (x_train, y_train), (x_test, y_test) = _pair(4, 0), _pair(3, 1)
    files = {'train-images-idx3-ubyte.gz': _idx(x_train),
             'train-labels-idx1-ubyte.gz': _idx(y_train),
             't10k-images-idx3-ubyte.gz': _idx(x_test),
             't10k-labels-idx1-ubyte.gz': _idx(y_test)}
    hashes = file_server.publish('m', files)
    prefix = module.upper()
    monkeypatch.setattr(mod, prefix + '_MIRRORS', (file_server.url + '/m/',))
    monkeypatch.setattr(mod, prefix + '_SHA256', hashes)
    train = getattr(mod, '_retrieve_%s_training' % name)()
    test = getattr(mod, '_retrieve_%s_test' % name)()
    numpy.testing.assert_array_equal(train['x'], x_train.reshape(4, 784))
    numpy.testing.assert_array_equal(train['y'], y_train)
    numpy.testing.assert_array_equal(test['x'], x_test.reshape(3, 784))
    # Chainer's form: a split from two URLs, cached under its own name.
    urls = [file_server.url + '/m/t10k-images-idx3-ubyte.gz',
            file_server.url + '/m/t10k-labels-idx1-ubyte.gz']
    raw = getattr(mod, '_retrieve_' + name)('other.npz', urls)
    numpy.testing.assert_array_equal(raw['y'], y_test)
    assert any(p.name == 'other.npz' for p in dataset_root.rglob('*.npz'))


def test_make_npz_and_preprocess_mnist(chainer, file_server, dataset_root, tmp_path):
    from chainer.datasets import _mnist_helper
    x, y = _pair(3, 2)
    file_server.publish('p', {'x.gz': _idx(x), 'y.gz': _idx(y), 'short.gz': _idx(y[:2])})
    path = str(tmp_path / 'pair.npz')
    raw = _mnist_helper.make_npz(path, (file_server.url + '/p/x.gz', file_server.url + '/p/y.gz'))
    assert raw['x'].shape == (3, 784) and raw['x'].dtype == numpy.uint8
    with numpy.load(path) as saved:
        numpy.testing.assert_array_equal(saved['y'], y)
    with pytest.raises(RuntimeError, match='wrong pair'):
        _mnist_helper.make_npz(str(tmp_path / 'bad.npz'),
                               (file_server.url + '/p/x.gz', file_server.url + '/p/short.gz'))
    data = _mnist_helper.preprocess_mnist(raw, True, 3, 2.0, numpy.float32, numpy.int64, True)
    assert isinstance(data, TupleDataset)
    image, label = data[1]
    assert image.shape == (3, 28, 28) and image.dtype == numpy.float32
    numpy.testing.assert_allclose(image[2], x[1] * 2.0 / 255, rtol=1e-6)
    assert label == y[1] and data[0][1].dtype == numpy.int64
    flat = _mnist_helper.preprocess_mnist(raw, False, 1, 1.0, numpy.float64, numpy.int32, False)
    assert flat.shape == (3, 784) and flat.max() <= 1.0
    with pytest.raises(ValueError):
        _mnist_helper.preprocess_mnist(raw, False, 4, 1.0, numpy.float32, numpy.int32, False)


def test_cifar_pickle_load_and_preprocess(chainer):
    from chainer.datasets import cifar
    batch = {'data': numpy.arange(2 * 3072, dtype=numpy.uint8).reshape(2, 3072),
             'labels': [3, 7], 'batch_label': 'caf\xe9'}
    loaded = cifar._pickle_load(io.BytesIO(pickle.dumps(batch, protocol=2)))
    assert loaded['labels'] == [3, 7] and loaded['batch_label'] == 'caf\xe9'
    images, labels = loaded['data'], numpy.array(loaded['labels'], numpy.uint8)
    data = cifar._preprocess_cifar(images, labels, True, 3, 1.0, numpy.float64)
    image, label = data[1]
    assert image.shape == (3, 32, 32) and image.dtype == numpy.float64
    numpy.testing.assert_allclose(image.ravel(), images[1] / 255.)
    assert label.dtype == numpy.int32 and label == 7
    assert cifar._preprocess_cifar(images, labels, False, 1, 1.0, None).shape == (2, 3072)
    with pytest.raises(ValueError):
        cifar._preprocess_cifar(images, labels, False, 2, 1.0, None)


def test_svhn_retrieve_helpers(chainer, file_server, refused_url, dataset_root, monkeypatch):
    from chainer.datasets import svhn
    rng = numpy.random.RandomState(4)
    files, raw = {}, {}
    for split, n in (('train', 3), ('test', 2), ('extra', 1)):
        x = rng.randint(0, 256, size=(32, 32, 3, n)).astype(numpy.uint8)
        y = numpy.full((n, 1), 10.0)
        buffer = io.BytesIO()
        scipy_io.savemat(buffer, {'X': x, 'y': y})
        files[split + '_32x32.mat'] = buffer.getvalue()
        raw[split] = x
    hashes = file_server.publish('s', files)
    monkeypatch.setattr(svhn, 'SVHN_MIRRORS', (refused_url, file_server.url + '/s/'))
    monkeypatch.setattr(svhn, 'SVHN_SHA256', hashes)
    for split, retrieve in (('train', svhn._retrieve_svhn_training),
                            ('test', svhn._retrieve_svhn_test),
                            ('extra', svhn._retrieve_svhn_extra)):
        got = retrieve()
        numpy.testing.assert_array_equal(got['x'], raw[split])
        assert got['y'].shape == (raw[split].shape[3], 1)
    got = svhn._retrieve_svhn('mine.npz', file_server.url + '/s/test_32x32.mat')
    numpy.testing.assert_array_equal(got['x'], raw['test'])
    made = svhn._make_npz(str(dataset_root / 'made.npz'), file_server.url + '/s/extra_32x32.mat')
    assert made['y'].dtype == numpy.uint8 and made['y'][0, 0] == 10
    data = svhn._preprocess_svhn(got, True, 1.0, numpy.float32, numpy.int32)
    image, label = data[0]
    assert image.shape == (3, 32, 32) and label == 0  # the files' 10 is the digit 0
    numpy.testing.assert_allclose(image, raw['test'][..., 0].transpose(2, 0, 1) / 255.,
                                  rtol=1e-6)


def test_ptb_retrieve_helpers(chainer, file_server, dataset_root, monkeypatch):
    from chainer.datasets import ptb
    hashes = file_server.publish('t', {'ptb.train.txt': b' the cat sat\n the mat\n',
                                       'ptb.valid.txt': b' the cat\n',
                                       'ptb.test.txt': b' mat\n', 'more.txt': b' cat cat\n'})
    monkeypatch.setattr(ptb, 'PTB_MIRRORS', (file_server.url + '/t/',))
    monkeypatch.setattr(ptb, 'PTB_SHA256', hashes)
    vocab = ptb._retrieve_word_vocabulary()
    assert vocab == {'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'mat': 4}
    assert ptb.get_ptb_words_vocabulary() == vocab
    assert ptb._retrieve_ptb_words('valid.npz', 'ptb.valid.txt').tolist() == [0, 1, 3]
    words = ptb._retrieve_ptb_words('more.npz', file_server.url + '/t/more.txt')
    assert words.dtype == numpy.int32 and words.tolist() == [1, 1, 3]


def test_image_dataset_helpers(chainer, tmp_path):
    # (Pillow is an optional extra; the path without it is the next test's.)
    Image = pytest.importorskip('PIL.Image')
    from chainer.datasets import image_dataset
    image_dataset._check_pillow_availability()  # Pillow is installed here: no error
    rgb = numpy.arange(2 * 3 * 3, dtype=numpy.uint8).reshape(2, 3, 3)
    Image.fromarray(rgb).save(tmp_path / 'rgb.png')
    Image.fromarray(rgb[..., 0]).save(tmp_path / 'grey.png')
    array = image_dataset._read_image_as_array(str(tmp_path / 'rgb.png'), numpy.float32)
    assert array.shape == (2, 3, 3) and array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, rgb)
    chw = image_dataset._postprocess_image(array)
    assert chw.shape == (3, 2, 3)
    numpy.testing.assert_array_equal(chw[1], rgb[..., 1])
    grey = image_dataset._read_image_as_array(str(tmp_path / 'grey.png'), numpy.uint8)
    assert image_dataset._postprocess_image(grey).shape == (1, 2, 3)


def test_check_pillow_availability_without_pillow(chainer, monkeypatch):
    import sys
    from chainer.datasets import image_dataset
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(ImportError, match='Pillow'):
        image_dataset._check_pillow_availability()
