import os
import stat
import sys

import numpy
import pytest

from chainlite import serializers


class Tree:
    """A hand-written serializable object: named values, then named children."""

    def __init__(self, values=None, children=None):
        self.values = dict(values or {})
        self.children = dict(children or {})

    def serialize(self, serializer):
        for name in self.values:
            self.values[name] = serializer(name, self.values[name])
        for name, child in self.children.items():
            child.serialize(serializer[name])


def _model(scale):
    return Tree({'t': 3, 'lr': 0.5 * scale}, {
        'predictor': Tree(children={
            'l1': Tree({'W': numpy.arange(6, dtype=numpy.float32).reshape(2, 3) * scale,
                        'b': numpy.zeros(2, numpy.float32)}),
            'bn': Tree({'avg_mean': numpy.ones(2, numpy.float32) * scale, 'N': 0}),
        })})


# -- without h5py -----------------------------------------------------------------------------

@pytest.fixture
def no_h5py(monkeypatch):
    monkeypatch.setitem(sys.modules, 'h5py', None)  # makes `import h5py` raise ImportError


@pytest.mark.parametrize('call', [
    lambda: serializers.save_hdf5('unused.h5', Tree()),
    lambda: serializers.load_hdf5('unused.h5', Tree()),
    lambda: serializers.HDF5Serializer(None),
    lambda: serializers.HDF5Deserializer(None)])
def test_without_h5py_the_error_says_how_to_install_it(no_h5py, call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match=r'install h5py \(pip install h5py, or the extra: pip install \"chainlite-dl\[hdf5\]\"\)'):
        call()
    assert os.listdir(tmp_path) == []


# -- with h5py --------------------------------------------------------------------------------

@pytest.fixture
def h5py():
    return pytest.importorskip('h5py')


def test_round_trip_and_layout(h5py, tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, _model(2.0))
    with h5py.File(path, 'r') as f:
        assert f['predictor/l1/W'].shape == (2, 3)
        assert f['predictor/bn/N'][()] == 0
        assert f['predictor/l1/W'].compression == 'gzip'
    m = _model(0.0)
    W = m.children['predictor'].children['l1'].values['W']
    serializers.load_hdf5(path, m)
    assert m.values == {'t': 3, 'lr': 1.0} and type(m.values['t']) is int
    assert m.children['predictor'].children['l1'].values['W'] is W
    numpy.testing.assert_array_equal(W, numpy.arange(6).reshape(2, 3) * 2)


def test_none_round_trip(h5py, tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, Tree({'W': None}))
    a = numpy.ones(2)
    t = Tree({'W': a})
    serializers.load_hdf5(path, t)
    assert t.values['W'] is None
    numpy.testing.assert_array_equal(a, [1, 1])


def test_strings_load_as_str(h5py, tmp_path):
    # h5py reads string datasets as bytes; loading into a str gives the text back.
    path = tmp_path / 'strings.h5'
    with h5py.File(path, 'w') as f:
        f.create_dataset('s', data='abc')
        f.create_dataset('names', data=['x', 'yz'])
    with h5py.File(path, 'r') as f:
        d = serializers.HDF5Deserializer(f)
        assert d('s', '') == 'abc'
        assert d('names', None).tolist() == ['x', 'yz']


def test_saving_none_needs_h5py_with_empty(h5py, tmp_path, monkeypatch):
    monkeypatch.setattr(h5py.version, 'version_tuple', (2, 6, 0))
    with h5py.File(tmp_path / 'old.h5', 'w') as f:
        with pytest.raises(RuntimeError, match=r'saving None .* needs h5py >= 2\.7\.0'):
            serializers.HDF5Serializer(f)('x', None)


def test_dict_and_uninitialized_value(h5py, tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, {'l/W': numpy.ones((2, 2), numpy.float32), 't': 4})
    with h5py.File(path, 'r') as f:
        d = serializers.HDF5Deserializer(f)
        assert d['l']('W', None).shape == (2, 2)
        assert d('t', 0) == 4


def test_missing_keys(h5py, tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, Tree({'a': 1}))
    with h5py.File(path, 'r') as f:
        with pytest.raises(KeyError, match=r"'b' is not in '.*model\.h5' \(group /\)"):
            serializers.HDF5Deserializer(f)('b', 0)
        with pytest.raises(KeyError, match=r"'W' is not in group 'l1' of '.*model\.h5'"):
            serializers.HDF5Deserializer(f)['l1']('W', 0)
        loose = serializers.HDF5Deserializer(f, strict=False)
        assert loose('b', 7) == 7 and loose['l1']['x']('W', 8) == 8


def test_shape_mismatch(h5py, tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, Tree({'W': numpy.ones((2, 3), numpy.float32)}))
    with pytest.raises(ValueError, match=r"'W'.*expected shape \(3, 2\).*shape \(2, 3\)"):
        serializers.load_hdf5(path, Tree({'W': numpy.ones((3, 2), numpy.float32)}))


def test_failed_save_keeps_the_old_file(h5py, tmp_path):
    class Failing:
        def serialize(self, serializer):
            serializer('a', numpy.ones(3))
            raise OSError('disk full')

    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, Tree({'a': numpy.zeros(3)}))
    os.chmod(path, 0o640)
    with pytest.raises(OSError, match='disk full'):
        serializers.save_hdf5(path, Failing())
    assert os.listdir(tmp_path) == ['model.h5']
    t = Tree({'a': numpy.ones(3)})
    serializers.load_hdf5(path, t)
    numpy.testing.assert_array_equal(t.values['a'], [0, 0, 0])
    serializers.save_hdf5(path, Tree({'a': numpy.ones(3)}))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
