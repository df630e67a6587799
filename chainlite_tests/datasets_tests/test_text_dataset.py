import pickle

import pytest

from chainlite.datasets import TextDataset


@pytest.fixture
def files(tmp_path):
    def write(name, text, encoding='utf-8', newline=None):
        path = tmp_path / name
        with open(path, 'w', encoding=encoding, newline=newline) as f:
            f.write(text)
        return str(path)
    return write


@pytest.fixture
def opened():
    datasets = []
    yield datasets.append
    for ds in datasets:
        ds.close()


def test_one_file(files, opened):
    ds = TextDataset(files('a.txt', 'hello\nworld\nlast'))
    opened(ds)
    assert len(ds) == 3
    assert ds[0] == 'hello\n'
    assert ds[2] == 'last'
    assert ds[-2] == 'world\n'
    assert ds[::-1] == ['last', 'world\n', 'hello\n']
    assert ds[[1, 1]] == ['world\n', 'world\n']
    assert list(ds) == ['hello\n', 'world\n', 'last']


def test_random_access_after_reads(files, opened):
    ds = TextDataset(files('a.txt', ''.join('line %d\n' % i for i in range(50))))
    opened(ds)
    for i in [49, 0, 25, 3, 48]:
        assert ds[i] == 'line %d\n' % i


def test_empty_file(files, opened):
    ds = TextDataset(files('a.txt', ''))
    opened(ds)
    assert len(ds) == 0
    with pytest.raises(IndexError):
        ds[0]


def test_several_files_give_tuples(files, opened):
    ds = TextDataset([files('a.txt', 'a0\na1\n'), files('b.txt', 'b0\nb1\n')])
    opened(ds)
    assert len(ds) == 2
    assert ds[1] == ('a1\n', 'b1\n')
    assert ds[:] == [('a0\n', 'b0\n'), ('a1\n', 'b1\n')]


def test_list_of_one_file_gives_strings(files, opened):
    # As in Chainer: one file gives strings, whether named alone or in a list.
    ds = TextDataset([files('a.txt', 'x\n')])
    opened(ds)
    assert ds[0] == 'x\n'


def test_path_object(files, tmp_path, opened):
    files('a.txt', 'x\n')
    ds = TextDataset(tmp_path / 'a.txt')
    opened(ds)
    assert ds[:] == ['x\n']


def test_filter_func(files, opened):
    ds = TextDataset([files('a.txt', 'a0\na1\na2\n'), files('b.txt', 'keep\n\nkeep\n')],
                     filter_func=lambda a, b: b.strip() == 'keep')
    opened(ds)
    assert len(ds) == 2
    assert ds[1] == ('a2\n', 'keep\n')


def test_encoding_errors_and_newline(files, opened):
    path = files('a.txt', 'caf\u00e9\r\nna\u00efve\r\n', encoding='latin-1', newline='')
    ds = TextDataset(path, encoding='latin-1')
    opened(ds)
    assert ds[:] == ['caf\u00e9\n', 'na\u00efve\n']
    ds = TextDataset(path, encoding='latin-1', newline='')
    opened(ds)
    assert ds[0] == 'caf\u00e9\r\n'
    ds = TextDataset(path, encoding='utf-8', errors='replace')
    opened(ds)
    assert ds[0] == 'caf\ufffd\n'
    with pytest.raises(UnicodeDecodeError):
        TextDataset(path, encoding='utf-8')


def test_options_per_file(files, opened):
    a = files('a.txt', '\u00e9\n', encoding='latin-1')
    b = files('b.txt', '\u00e9\n', encoding='utf-8')
    ds = TextDataset([a, b], encoding=['latin-1', 'utf-8'])
    opened(ds)
    assert ds[0] == ('\u00e9\n', '\u00e9\n')
    with pytest.raises(ValueError, match='encoding has 1 values for 2 files'):
        TextDataset([a, b], encoding=['utf-8'])


def test_pickle_reopens_the_files(files, opened):
    ds = TextDataset(files('a.txt', 'p\nq\n'))
    opened(ds)
    copy = pickle.loads(pickle.dumps(ds))
    opened(copy)
    assert copy[:] == ['p\n', 'q\n']
    assert copy._fps[0] is not ds._fps[0]


def test_close(files):
    ds = TextDataset(files('a.txt', 'p\n'))
    ds.close()
    ds.close()
    with pytest.raises(ValueError):
        ds[0]


class _FailingFile:
    closed = False

    def close(self):
        raise OSError('disk gone')


def test_close_closes_every_file_then_raises_the_first_error(files):
    path = files('a.txt', 'p\n')
    ds = TextDataset([path, path, path])
    first, last = ds._fps[0], ds._fps[2]
    ds._fps[1].close()
    ds._fps[1] = _FailingFile()
    with pytest.raises(OSError, match='disk gone'):
        ds.close()
    assert first.closed and last.closed
    del ds  # collecting it closes again: the error is not raised from __del__


def test_errors(files):
    with pytest.raises(ValueError, match='at least one text file'):
        TextDataset([])
    with pytest.raises(ValueError, match='different numbers of lines'):
        TextDataset([files('a.txt', 'a\nb\n'), files('b.txt', 'a\n')])
    with pytest.raises(FileNotFoundError):
        TextDataset([files('c.txt', 'a\n'), files('d.txt', 'a\n') + '.missing'])
