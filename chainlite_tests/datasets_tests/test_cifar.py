import io
import os
import tarfile

import numpy
import pytest

from chainlite.datasets import cifar
from chainlite.datasets import TupleDataset


def _tar_gz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w:gz') as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _records(rng, n, n_labels, n_classes):
    labels = rng.randint(0, n_classes, size=(n, n_labels)).astype(numpy.uint8)
    images = rng.randint(0, 256, size=(n, 3072)).astype(numpy.uint8)
    images[0, :2] = 0, 255  # the extremes of the scale are present
    return labels, images, numpy.concatenate([labels, images], axis=1).tobytes()


def _cifar10_archive():
    rng = numpy.random.RandomState(0)
    members, train_x, train_y = {}, [], []
    for i in range(1, 6):
        labels, images, data = _records(rng, 2, 1, 10)
        members['cifar-10-batches-bin/data_batch_%d.bin' % i] = data
        train_x.append(images)
        train_y.append(labels[:, 0])
    test_labels, test_images, members['cifar-10-batches-bin/test_batch.bin'] = _records(
        rng, 3, 1, 10)
    members['cifar-10-batches-bin/batches.meta.txt'] = b'airplane\n'
    expected = (numpy.concatenate(train_x), numpy.concatenate(train_y), test_images,
                test_labels[:, 0])
    return _tar_gz(members), expected


def _cifar100_archive():
    rng = numpy.random.RandomState(1)
    train_labels, train_images, train = _records(rng, 4, 2, 100)
    test_labels, test_images, test = _records(rng, 3, 2, 100)
    archive = _tar_gz({'cifar-100-binary/train.bin': train, 'cifar-100-binary/test.bin': test})
    # the second label byte is the fine label, the one returned
    return archive, (train_images, train_labels[:, 1], test_images, test_labels[:, 1])


@pytest.fixture
def served_cifar(file_server, refused_url, dataset_root, monkeypatch):
    archive10, expected10 = _cifar10_archive()
    archive100, expected100 = _cifar100_archive()
    hashes = file_server.publish('kriz', {'cifar-10-binary.tar.gz': archive10,
                                          'cifar-100-binary.tar.gz': archive100})
    monkeypatch.setattr(cifar, 'CIFAR_MIRRORS',
                        (refused_url, file_server.url + '/none/', file_server.url + '/kriz/'))
    monkeypatch.setattr(cifar, 'CIFAR_SHA256', hashes)
    return {'cifar-10': expected10, 'cifar-100': expected100}


@pytest.mark.parametrize('name, get', [('cifar-10', cifar.get_cifar10),
                                       ('cifar-100', cifar.get_cifar100)])
def test_get_cifar_default(served_cifar, dataset_root, name, get):
    train_x, train_y, test_x, test_y = served_cifar[name]
    train, test = get()
    assert isinstance(train, TupleDataset)
    assert (len(train), len(test)) == (len(train_x), len(test_x))
    x, t = train[len(train) - 1]
    assert x.shape == (3, 32, 32) and x.dtype == numpy.float32 and t.dtype == numpy.int32
    numpy.testing.assert_allclose(x, train_x[-1].reshape(3, 32, 32) / 255., rtol=1e-6)
    assert [int(test[i][1]) for i in range(len(test))] == test_y.tolist()
    assert [int(train[i][1]) for i in range(len(train))] == train_y.tolist()
    assert train[0][0].min() == 0 and train[0][0].max() == 1
    assert os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'cifar' / (name + '.npz'))


def test_get_cifar_cached_npz_has_chainer_keys(served_cifar, dataset_root):
    cifar.get_cifar10()
    with numpy.load(dataset_root / 'pfnet' / 'chainer' / 'cifar' / 'cifar-10.npz') as f:
        assert sorted(f.files) == ['test_x', 'test_y', 'train_x', 'train_y']
        assert f['train_x'].shape == (10, 3072) and f['train_x'].dtype == numpy.uint8
        assert f['test_y'].shape == (3,) and f['test_y'].dtype == numpy.uint8


def test_get_cifar_ndim1_withlabel_false_scale_dtype(served_cifar):
    test_x = served_cifar['cifar-100'][2]
    train, test = cifar.get_cifar100(withlabel=False, ndim=1, scale=3., dtype=numpy.float64)
    assert train.shape == (4, 3072) and train.dtype == numpy.float64
    numpy.testing.assert_allclose(test, test_x * 3. / 255.)


def test_get_cifar_from_cache_after_server_stops(served_cifar, file_server):
    first, _ = cifar.get_cifar10(withlabel=False)
    file_server.stop()
    again, _ = cifar.get_cifar10(withlabel=False)
    numpy.testing.assert_array_equal(first, again)


def test_get_cifar_bad_ndim_raises_before_downloading(served_cifar, file_server):
    with pytest.raises(ValueError, match='get_cifar10: ndim must be one of 1, 3, got 2'):
        cifar.get_cifar10(ndim=2)
    assert file_server.requests == []


def test_get_cifar_corrupt_archive(served_cifar, file_server, dataset_root):
    file_server.files['/kriz/cifar-10-binary.tar.gz'] += b'garbage'
    with pytest.raises(OSError, match='kriz/cifar-10-binary.tar.gz: SHA-256 mismatch'):
        cifar.get_cifar10()
    assert not os.path.exists(dataset_root / 'pfnet' / 'chainer' / 'cifar' / 'cifar-10.npz')
    assert os.listdir(dataset_root / '_dl_cache') == []


def test_get_cifar_truncated_records_and_missing_member(file_server, dataset_root, monkeypatch):
    bad = _tar_gz({'cifar-100-binary/train.bin': b'\x00' * 3075,
                   'cifar-100-binary/test.bin': b''})
    no_test = _tar_gz({'cifar-100-binary/train.bin': b''})
    monkeypatch.setattr(cifar, 'CIFAR_MIRRORS', (file_server.url + '/k/',))
    monkeypatch.setattr(cifar, 'CIFAR_SHA256', {'cifar-100-binary.tar.gz': None})
    file_server.files['/k/cifar-100-binary.tar.gz'] = bad
    with pytest.raises(ValueError, match='not a whole number of 3074-byte records'):
        cifar.get_cifar100()
    file_server.files['/k/cifar-100-binary.tar.gz'] = no_test
    # without a hash the cache is keyed by URL, so clear it to fetch the new archive
    for name in os.listdir(dataset_root / '_dl_cache'):
        os.remove(dataset_root / '_dl_cache' / name)
    with pytest.raises(ValueError, match="no regular file 'cifar-100-binary/test.bin'"):
        cifar.get_cifar100()


def test_real_mirrors_and_hashes():
    assert all(m.startswith('https://') for m in cifar.CIFAR_MIRRORS)
    assert sorted(cifar.CIFAR_SHA256) == ['cifar-10-binary.tar.gz', 'cifar-100-binary.tar.gz']
    assert all(len(h) == 64 for h in cifar.CIFAR_SHA256.values())
