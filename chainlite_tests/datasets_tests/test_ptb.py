import os

import numpy
import pytest

from chainlite.dataset import download
from chainlite.datasets import ptb

# The real files start each line with a space and end it with a newline.
_TRAIN = b' the cat sat\n a <unk> sat on the mat\n'
_VALID = b' the mat\n'
_TEST = b' a cat on <unk>\n the cat\n'


@pytest.fixture
def served_ptb(file_server, refused_url, dataset_root, monkeypatch):
    hashes = file_server.publish('lstm', {'ptb.train.txt': _TRAIN, 'ptb.valid.txt': _VALID,
                                          'ptb.test.txt': _TEST})
    monkeypatch.setattr(ptb, 'PTB_MIRRORS',
                        (refused_url, file_server.url + '/gone/', file_server.url + '/lstm/'))
    monkeypatch.setattr(ptb, 'PTB_SHA256', hashes)


def test_vocabulary_numbers_words_by_first_use(served_ptb, dataset_root):
    vocab = ptb.get_ptb_words_vocabulary()
    assert vocab == {'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'a': 4, '<unk>': 5, 'on': 6,
                     'mat': 7}
    path = dataset_root / 'pfnet' / 'chainer' / 'ptb' / 'vocab.txt'
    assert path.read_text().split('\n')[:4] == ['the', 'cat', 'sat', '<eos>']


def test_words_are_int32_sequences_with_eos(served_ptb):
    train, valid, test = ptb.get_ptb_words()
    vocab = ptb.get_ptb_words_vocabulary()
    for array in (train, valid, test):
        assert array.dtype == numpy.int32 and array.ndim == 1
    words = {i: w for w, i in vocab.items()}
    assert [words[i] for i in train] == ('the cat sat <eos> a <unk> sat on the mat <eos>'
                                         .split())
    assert [words[i] for i in valid] == ['the', 'mat', '<eos>']
    assert [words[i] for i in test] == 'a cat on <unk> <eos> the cat <eos>'.split()


def test_served_from_cache_after_server_stops(served_ptb, file_server, dataset_root):
    first = ptb.get_ptb_words()
    file_server.stop()
    again = ptb.get_ptb_words()
    for a, b in zip(first, again):
        numpy.testing.assert_array_equal(a, b)
    assert ptb.get_ptb_words_vocabulary()['mat'] == 7
    names = sorted(os.listdir(dataset_root / 'pfnet' / 'chainer' / 'ptb'))
    assert [n for n in names if not n.startswith('.')] == ['test.npz', 'train.npz',
                                                           'valid.npz', 'vocab.txt']


def test_dataset_root_from_environment(file_server, tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', None)
    monkeypatch.setenv('CHAINLITE_DATASET_ROOT', str(tmp_path / 'env-root'))
    monkeypatch.setattr(ptb, 'PTB_MIRRORS', (file_server.url + '/p/',))
    monkeypatch.setattr(ptb, 'PTB_SHA256', file_server.publish(
        'p', {'ptb.train.txt': _TRAIN, 'ptb.valid.txt': _VALID, 'ptb.test.txt': _TEST}))
    ptb.get_ptb_words_vocabulary()
    assert (tmp_path / 'env-root' / 'pfnet' / 'chainer' / 'ptb' / 'vocab.txt').exists()


def test_unknown_word_in_test_file(file_server, dataset_root, monkeypatch):
    monkeypatch.setattr(ptb, 'PTB_MIRRORS', (file_server.url + '/p/',))
    monkeypatch.setattr(ptb, 'PTB_SHA256', file_server.publish(
        'p', {'ptb.train.txt': _TRAIN, 'ptb.valid.txt': _VALID, 'ptb.test.txt': b' dog\n'}))
    with pytest.raises(ValueError, match="ptb.test.txt has the word 'dog'"):
        ptb.get_ptb_words()
    assert not (dataset_root / 'pfnet' / 'chainer' / 'ptb' / 'test.npz').exists()


def test_corrupt_training_file(served_ptb, file_server, dataset_root):
    file_server.files['/lstm/ptb.train.txt'] = _TRAIN.replace(b'cat', b'dog')
    with pytest.raises(OSError, match='lstm/ptb.train.txt: SHA-256 mismatch: expected'):
        ptb.get_ptb_words_vocabulary()
    assert not (dataset_root / 'pfnet' / 'chainer' / 'ptb' / 'vocab.txt').exists()


def test_real_mirrors_and_hashes():
    assert all(m.startswith('https://') for m in ptb.PTB_MIRRORS)
    assert sorted(ptb.PTB_SHA256) == ['ptb.test.txt', 'ptb.train.txt', 'ptb.valid.txt']
    assert all(len(h) == 64 for h in ptb.PTB_SHA256.values())
