"""PickleDataset and its writer: random access, atomic writes, forks and pickling."""
import io
import os
import pickle

import numpy as np
import pytest

from chainlite import datasets
from chainlite import iterators


def _write(path, items):
    with datasets.open_pickle_dataset_writer(path) as w:
        for item in items:
            w.write(item)


def test_round_trip_in_any_order(tmp_path):
    items = [(i, np.arange(i, dtype=np.float32), 'x' * i) for i in range(5)]
    path = tmp_path / 'data.pkl'
    _write(path, items)
    with datasets.open_pickle_dataset(path) as dataset:
        assert len(dataset) == 5
        for i in (3, 0, 4, 1, 2, -1):
            got, want = dataset[i], items[i]
            assert got[0] == want[0] and got[2] == want[2]
            np.testing.assert_array_equal(got[1], want[1])
        assert [x[0] for x in dataset[1:4]] == [1, 2, 3]


def test_writer_on_a_file_object_and_an_empty_dataset():
    f = io.BytesIO()
    assert len(datasets.PickleDataset(f)) == 0
    w = datasets.PickleDatasetWriter(f, protocol=2)
    w.write({'a': 1})
    w.flush()
    assert datasets.PickleDataset(f)[0] == {'a': 1}


def test_reader_must_seek():
    class Stream(io.RawIOBase):
        def readable(self):
            return True

    with pytest.raises(ValueError, match='PickleDataset: reader must support random access'):
        datasets.PickleDataset(Stream())


def test_writes_are_atomic(tmp_path):
    path = tmp_path / 'data.pkl'
    _write(path, ['old'])
    with pytest.raises(RuntimeError):
        with datasets.open_pickle_dataset_writer(path) as w:
            w.write('new')
            assert not os.path.getsize(path) == 0
            raise RuntimeError('interrupted')
    with datasets.open_pickle_dataset(path) as dataset:
        assert list(dataset) == ['old']          # the previous file is intact
    assert os.listdir(tmp_path) == ['data.pkl']  # and no temporary file is left
    w = datasets.open_pickle_dataset_writer(path)
    w.write('new')
    with datasets.open_pickle_dataset(path) as dataset:
        assert list(dataset) == ['old']          # not there before close()
    w.close()
    with datasets.open_pickle_dataset(path) as dataset:
        assert list(dataset) == ['new']


def test_pickled_dataset_reopens_its_file(tmp_path):
    path = tmp_path / 'data.pkl'
    _write(path, [1, 2, 3])
    with datasets.open_pickle_dataset(path) as dataset:
        clone = pickle.loads(pickle.dumps(dataset))
        try:
            assert clone[2] == 3 and dataset[0] == 1 and clone[0] == 1
        finally:
            clone.close()


def test_multiprocess_iterator_reads_it(tmp_path):
    path = tmp_path / 'data.pkl'
    _write(path, [np.full(2, i, np.float32) for i in range(8)])
    with datasets.open_pickle_dataset(path) as dataset:
        it = iterators.MultiprocessIterator(dataset, 4, repeat=False, shuffle=False,
                                            n_processes=2)
        try:
            batches = [np.stack(b)[:, 0].tolist() for b in it]
        finally:
            it.finalize()
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7]]
