import io
import os

import numpy
import pytest
from scipy import io as scipy_io

from chainlite.datasets import svhn
from chainlite.datasets import TupleDataset

_SIZES = {'train': 5, 'test': 3, 'extra': 2}


def _mat_bytes(arrays):
    buffer = io.BytesIO()
    scipy_io.savemat(buffer, arrays)
    return buffer.getvalue()


def _make_files():
    rng = numpy.random.RandomState(5)
    raw, files = {}, {}
    for split, n in _SIZES.items():
        x = rng.randint(0, 256, size=(32, 32, 3, n)).astype(numpy.uint8)
        x[0, 0, 0, 0], x[0, 1, 0, 0] = 0, 255
        y = rng.randint(1, 11, size=(n, 1)).astype(numpy.float64)  # the files store doubles
        y[0, 0] = 10  # the digit 0
        files[split + '_32x32.mat'] = _mat_bytes({'X': x, 'y': y})
        raw[split] = x, y
    return raw, files


@pytest.fixture
def served(file_server, refused_url, dataset_root, monkeypatch):
    raw, files = _make_files()
    hashes = file_server.publish('svhn', files)
    monkeypatch.setattr(svhn, 'SVHN_MIRRORS', (refused_url, file_server.url + '/svhn/'))
    monkeypatch.setattr(svhn, 'SVHN_SHA256', hashes)
    return raw


def _expected_label(value):
    return 0 if value == 10 else int(value)


def test_default_shapes_values_and_labels(served, dataset_root, file_server):
    result = svhn.get_svhn()
    assert len(result) == 2
    train, test = result
    assert isinstance(train, TupleDataset) and (len(train), len(test)) == (5, 3)
    for split, dataset in (('train', train), ('test', test)):
        x_raw, y_raw = served[split]
        for i in range(len(dataset)):
            x, t = dataset[i]
            assert x.shape == (3, 32, 32) and x.dtype == numpy.float32
            assert t.dtype == numpy.int32
            # channel c, row h, column w of image i is X[h, w, c, i]
            numpy.testing.assert_allclose(x, x_raw[..., i].transpose(2, 0, 1) / 255.,
                                          rtol=1e-6)
            assert int(t) == _expected_label(y_raw[i, 0])
    assert int(train[0][1]) == 0 and train[0][0].min() == 0 and train[0][0].max() == 1
    root = dataset_root / 'pfnet' / 'chainer' / 'svhn'
    assert sorted(n for n in os.listdir(root) if n.endswith('.npz')) == ['test.npz', 'train.npz']
    with numpy.load(root / 'train.npz') as cache:  # Chainer's cache layout
        assert cache['x'].shape == (32, 32, 3, 5) and cache['y'].shape == (5, 1)
        assert cache['x'].dtype == cache['y'].dtype == numpy.uint8
    file_server.stop()
    images, _ = svhn.get_svhn(withlabel=False)  # from the caches
    numpy.testing.assert_array_equal(images, numpy.stack([train[i][0] for i in range(5)]))


def test_withlabel_false_scale_dtypes_and_extra(served):
    train, test, extra = svhn.get_svhn(withlabel=False, scale=255., dtype=numpy.float64,
                                       add_extra=True)
    assert isinstance(extra, numpy.ndarray) and extra.shape == (2, 3, 32, 32)
    assert train.dtype == numpy.float64 and train.flags.c_contiguous
    numpy.testing.assert_array_equal(test, served['test'][0].transpose(3, 2, 0, 1))
    _, _, extra = svhn.get_svhn(label_dtype=numpy.int64, add_extra=True)
    assert extra[1][1].dtype == numpy.int64
    assert int(extra[0][1]) == 0 and int(extra[1][1]) == _expected_label(served['extra'][1][1, 0])


def test_hash_mismatch_raises_and_caches_nothing(served, dataset_root, monkeypatch):
    hashes = dict(svhn.SVHN_SHA256)
    hashes['train_32x32.mat'] = '0' * 64
    monkeypatch.setattr(svhn, 'SVHN_SHA256', hashes)
    with pytest.raises(OSError, match='SHA-256 mismatch'):
        svhn.get_svhn()
    assert not os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'svhn' / 'train.npz')


@pytest.mark.parametrize('arrays, match', [
    ({'X': numpy.zeros((32, 32, 3, 2), numpy.uint8)}, 'lacks the arrays X and y'),
    ({'X': numpy.zeros((32, 32, 3, 2), numpy.uint8), 'y': numpy.ones((3, 1))},
     r'holds X of shape \(32, 32, 3, 2\) and y of shape \(3, 1\)'),
    ({'X': numpy.zeros((32, 32, 2), numpy.uint8), 'y': numpy.ones((2, 1))}, 'holds X of shape'),
])
def test_wrong_contents_raise(file_server, dataset_root, monkeypatch, arrays, match):
    _, files = _make_files()
    files['train_32x32.mat'] = _mat_bytes(arrays)
    monkeypatch.setattr(svhn, 'SVHN_MIRRORS', (file_server.url + '/s/',))
    monkeypatch.setattr(svhn, 'SVHN_SHA256', file_server.publish('s', files))
    with pytest.raises(ValueError, match='get_svhn: train_32x32.mat ' + match):
        svhn.get_svhn()


def test_not_a_mat_file_raises(file_server, dataset_root, monkeypatch):
    _, files = _make_files()
    files['test_32x32.mat'] = b'not a MATLAB file at all' * 10
    monkeypatch.setattr(svhn, 'SVHN_MIRRORS', (file_server.url + '/s/',))
    monkeypatch.setattr(svhn, 'SVHN_SHA256', file_server.publish('s', files))
    with pytest.raises(ValueError, match='get_svhn: test_32x32.mat is not a readable MATLAB'):
        svhn.get_svhn()


def test_real_mirrors_and_hashes():
    assert all(m.endswith('/') for m in svhn.SVHN_MIRRORS)
    assert sorted(svhn.SVHN_SHA256) == ['extra_32x32.mat', 'test_32x32.mat', 'train_32x32.mat']
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in svhn.SVHN_SHA256.values())
