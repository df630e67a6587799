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
    with pytest.raises(RuntimeError, match=r'install h5py \(pip install h5py, or the extra: '
                                           r'pip install "chainlite-dl\[hdf5\]"\)'):
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


# -- what loading reads: only the file it was given -------------------------------------------

def _params():
    return Tree(children={'l1': Tree({'W': numpy.zeros((2, 3), numpy.float32),
                                      'b': numpy.zeros(2, numpy.float32)})})


def _write(h5py, path, build):
    """Writes l1/W and l1/b (ones) to ``path``, letting ``build(f)`` replace parts of it."""
    with h5py.File(path, 'w') as f:
        f['l1/W'] = numpy.ones((2, 3), numpy.float32)
        f['l1/b'] = numpy.ones(2, numpy.float32)
        build(f)


@pytest.fixture
def elsewhere(h5py, tmp_path):
    """Another HDF5 file (with /W and /l1/W) and a raw file, each holding 0, 1, ..., 5."""
    data = numpy.arange(6, dtype='<f4').reshape(2, 3)
    (tmp_path / 'secret.bin').write_bytes(data.tobytes())
    with h5py.File(tmp_path / 'other.h5', 'w') as f:
        f['W'] = data
        f['l1/W'] = data
        f['l1/b'] = data[0, :2]
    return tmp_path


def _external_storage(f, d):
    del f['l1/W']
    f['l1'].create_dataset('W', shape=(2, 3), dtype='<f4',
                           external=[(str(d / 'secret.bin'), 0, 24)])


def _external_link(f, d):
    import h5py
    del f['l1/W']
    f['l1/W'] = h5py.ExternalLink(str(d / 'other.h5'), '/W')


def _soft_link_through_external_link(f, d):
    import h5py
    del f['l1/W']
    f['ext'] = h5py.ExternalLink(str(d / 'other.h5'), '/')
    f['l1/W'] = h5py.SoftLink('/ext/W')


def _virtual_dataset(f, d):
    import h5py
    del f['l1/W']
    layout = h5py.VirtualLayout(shape=(2, 3), dtype='<f4')
    layout[:] = h5py.VirtualSource(str(d / 'other.h5'), 'W', shape=(2, 3))
    f['l1'].create_virtual_dataset('W', layout)


def _group(f, d):
    del f['l1/W']
    f['l1'].create_group('W')


@pytest.mark.parametrize('build,message', [
    (_external_storage, r"its data is stored outside the file, in \['.*secret\.bin'\]"),
    (_external_link, r"it is an external link to '/W' in '.*other\.h5'"),
    (_soft_link_through_external_link,
     r"the link /ext on its path is an external link to '/' in '.*other\.h5'"),
    (_virtual_dataset, r"it is a virtual dataset, whose data comes from \['.*other\.h5'\]"),
    (_group, r"it is a group, where an array or a value is expected"),
])
def test_loading_reads_only_the_file_it_was_given(h5py, elsewhere, build, message):
    path = elsewhere / 'model.h5'
    _write(h5py, path, lambda f: build(f, elsewhere))
    m = _params()
    with pytest.raises(ValueError, match=r"cannot load 'W' from '.*model\.h5' \(group /l1\): "
                                         + message):
        serializers.load_hdf5(path, m)
    numpy.testing.assert_array_equal(m.children['l1'].values['W'], numpy.zeros((2, 3)))
    numpy.testing.assert_array_equal(m.children['l1'].values['b'], numpy.zeros(2))


@pytest.mark.parametrize('strict', [True, False])
def test_a_group_that_is_a_link_out_of_the_file_or_a_dataset_is_refused(h5py, elsewhere,
                                                                         strict):
    path = elsewhere / 'model.h5'

    def link_l1(f):
        del f['l1']
        f['l1'] = h5py.ExternalLink(str(elsewhere / 'other.h5'), '/l1')

    _write(h5py, path, link_l1)
    m = _params()
    with h5py.File(path, 'r') as f:
        with pytest.raises(ValueError, match=r"cannot load group 'l1' from '.*model\.h5' "
                                             r"\(group /\): it is an external link to '/l1' "
                                             r"in '.*other\.h5'"):
            serializers.HDF5Deserializer(f, strict=strict).load(m)

    def dataset_l1(f):
        del f['l1']
        f['l1'] = numpy.ones(3)

    _write(h5py, path, dataset_l1)
    with h5py.File(path, 'r') as f:
        with pytest.raises(ValueError, match=r"cannot load group 'l1' from '.*model\.h5' "
                                             r"\(group /\): it is a dataset, where a group "
                                             r"is expected"):
            serializers.HDF5Deserializer(f, strict=strict).load(m)
    numpy.testing.assert_array_equal(m.children['l1'].values['W'], numpy.zeros((2, 3)))


def test_soft_links_within_the_file_are_followed(h5py, tmp_path):
    path = tmp_path / 'model.h5'

    def share(f):
        del f['l1/W']
        f['shared/W'] = numpy.full((2, 3), 4, numpy.float32)
        f['l1/W'] = h5py.SoftLink('/shared/W')
        f['loop'] = h5py.SoftLink('/loop')

    _write(h5py, path, share)
    m = _params()
    serializers.load_hdf5(path, m)
    numpy.testing.assert_array_equal(m.children['l1'].values['W'], numpy.full((2, 3), 4))
    with h5py.File(path, 'r') as f:
        with pytest.raises(ValueError, match=r"cannot load 'loop' from .*: more than 16 soft "
                                             r"links in a row"):
            serializers.HDF5Deserializer(f)('loop', None)


@pytest.mark.parametrize('target', ['array', 'lazy'])
def test_a_dataset_declaring_more_than_the_file_stores_is_refused_unread(h5py, tmp_path,
                                                                         target):
    import tracemalloc
    path = tmp_path / 'model.h5'

    def declare_40_gb(f):  # chunked and gzipped, no chunk ever written
        del f['l1/W']
        f['l1'].create_dataset('W', shape=(100000, 100000), dtype='<f4', chunks=(100, 100),
                               compression='gzip')

    _write(h5py, path, declare_40_gb)
    assert path.stat().st_size < 1 << 16
    if target == 'array':
        m = _params()
        match = r"'W' from '.*model\.h5' \(group /l1\): expected shape \(2, 3\)"
    else:
        m = Tree(children={'l1': Tree({'W': None})})
        match = (r"'W' from '.*model\.h5' \(group /l1\): it declares shape \(100000, 100000\) "
                 r"of float32 \(40000000000 bytes\), but the file stores only 0 bytes for it")
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match):
            serializers.load_hdf5(path, m)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
