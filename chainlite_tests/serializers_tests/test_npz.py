import io
import os
import pathlib
import pickle
import stat
import tracemalloc
import zipfile

import numpy
import pytest

import chainlite
from chainlite import serializers
from chainlite.serializers import npz
from numpy.lib import format as npy_format


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


class LazyHolder:
    """Mimics Link.serialize for an uninitialised parameter: created from the loaded shape."""

    def __init__(self):
        self.W = None

    def serialize(self, serializer):
        data = serializer('W', self.W)
        if self.W is None and data is not None:
            self.W = numpy.empty(data.shape, numpy.float32)
            numpy.copyto(self.W, data)


def _model(scale=1.0):
    return Tree({'t': 3}, {
        'predictor': Tree(children={
            'l1': Tree({'W': numpy.arange(6, dtype=numpy.float32).reshape(2, 3) * scale,
                        'b': numpy.zeros(2, numpy.float32)}),
            'bn': Tree({'avg_mean': numpy.ones(2, numpy.float32) * scale, 'N': 0}),
        })})


def _saved(obj, compression=True):
    buf = io.BytesIO()
    serializers.save_npz(buf, obj, compression=compression)
    return io.BytesIO(buf.getvalue())


def _npz_with(**arrays):
    """An .npz archive written by NumPy itself (pickle allowed, as Chainer does)."""
    buf = io.BytesIO()
    numpy.savez(buf, **arrays)
    return io.BytesIO(buf.getvalue())


# -- DictionarySerializer ---------------------------------------------------------------------

def test_dictionary_serializer_key_layout():
    s = serializers.DictionarySerializer()
    s.save(_model())
    assert sorted(s.target) == ['predictor/bn/N', 'predictor/bn/avg_mean', 'predictor/l1/W',
                                'predictor/l1/b', 't']


def test_dictionary_serializer_strips_slashes_and_shares_target():
    target = {}
    s = serializers.DictionarySerializer(target, 'root/')
    child = s['/a/']['b']
    assert child.path == 'root/a/b/' and child.target is target
    x = numpy.ones(2)
    assert child('/W', x) is x
    assert list(target) == ['root/a/b/W']
    assert target['root/a/b/W'] is x  # stored as it is, as Chainer does


@pytest.mark.parametrize('value, dtype', [
    (3, numpy.int64), (2.5, numpy.float64), (True, numpy.bool_), ('abc', numpy.str_),
    (numpy.float32(1.5), numpy.float32), (numpy.int32(7), numpy.int32)])
def test_dictionary_serializer_stores_scalars_as_0d_arrays(value, dtype):
    s = serializers.DictionarySerializer()
    assert s('x', value) is value
    stored = s.target['x']
    assert isinstance(stored, numpy.ndarray) and stored.shape == () and stored.dtype.type is dtype
    assert stored[()] == value


def test_dictionary_serializer_stores_none_as_chainer_does():
    s = serializers.DictionarySerializer()
    assert s('x', None) is None
    stored = s.target['x']
    assert stored.dtype == object and stored.shape == () and stored[()] is None


@pytest.mark.parametrize('value', [{'a': 1}, numpy.array([None, 1], dtype=object), object()])
def test_dictionary_serializer_refuses_values_that_need_pickle(value):
    s = serializers.DictionarySerializer()
    with pytest.raises(TypeError, match="cannot serialize 'p/x'.*pickle"):
        s['p']('x', value)


def test_dictionary_serializer_refuses_variables():
    with pytest.raises(TypeError, match=r'Variable.*\.array'):
        serializers.DictionarySerializer()('W', chainlite.Variable(numpy.ones(2)))


def test_serialize_returns_the_dictionary():
    d = npz.serialize(_model())
    assert set(d) == {'t', 'predictor/l1/W', 'predictor/l1/b', 'predictor/bn/avg_mean',
                      'predictor/bn/N'}


# -- round trips ------------------------------------------------------------------------------

@pytest.mark.parametrize('compression', [True, False])
def test_round_trip(compression):
    f = _saved(_model(2.0), compression)
    with zipfile.ZipFile(f) as archive:
        methods = {info.compress_type for info in archive.infolist()}
    assert methods == {zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED}
    f.seek(0)
    m = _model(0.0)
    W = m.children['predictor'].children['l1'].values['W']
    m.values['t'] = 0
    serializers.load_npz(f, m)
    assert m.values['t'] == 3 and type(m.values['t']) is int
    assert m.children['predictor'].children['l1'].values['W'] is W  # filled in place
    numpy.testing.assert_array_equal(W, numpy.arange(6).reshape(2, 3) * 2)
    numpy.testing.assert_array_equal(m.children['predictor'].children['bn'].values['avg_mean'],
                                     [2, 2])


@pytest.mark.parametrize('value, like', [
    (7, 0), (2.5, 0.0), (False, True), ('hello', ''), (numpy.float32(0.25), numpy.float32(0)),
    (3, 0.0)])
def test_scalars_load_back_as_the_type_of_the_value(value, like):
    f = _saved(Tree({'x': value}))
    tree = Tree({'x': like})
    serializers.load_npz(f, tree)
    loaded = tree.values['x']
    assert type(loaded) is type(like)
    assert loaded == value


def test_scalar_that_would_lose_precision_raises_type_error():
    f = _saved(Tree({'x': 2.5}))
    with pytest.raises(TypeError, match="'x'.*float64.*int"):
        serializers.load_npz(f, Tree({'x': 0}))


def test_array_into_scalar_raises_value_error():
    f = _saved(Tree({'x': numpy.ones(3)}))
    with pytest.raises(ValueError, match=r"'x'.*expected a float scalar.*\(3,\)"):
        serializers.load_npz(f, Tree({'x': 0.0}))


def test_none_round_trip_leaves_value_untouched():
    f = _saved(Tree({'W': None, 'n': None}))
    a = numpy.full(2, 5.0)
    t = Tree({'W': a, 'n': 3})
    serializers.load_npz(f, t)
    assert t.values == {'W': None, 'n': None}
    numpy.testing.assert_array_equal(a, [5, 5])


def test_none_is_written_in_numpys_format():
    f = _saved(Tree({'W': None}))
    # NumPy (as Chainer loads it, with pickle allowed) reads it back as a 0-d None array.
    with numpy.load(f, allow_pickle=True) as loaded:
        assert loaded['W'].dtype == object and loaded['W'][()] is None


def test_loading_into_an_uninitialized_value_returns_the_array():
    f = _saved(Tree({'W': numpy.arange(4, dtype=numpy.float32).reshape(2, 2)}))
    holder = LazyHolder()
    serializers.load_npz(f, holder)
    numpy.testing.assert_array_equal(holder.W, [[0, 1], [2, 3]])
    d = serializers.NpzDeserializer({'W': numpy.ones(3)})
    assert d('W', None).shape == (3,)


def test_stored_none_keeps_a_lazy_value_uninitialized():
    holder = LazyHolder()
    serializers.load_npz(_saved(Tree({'W': None})), holder)
    assert holder.W is None


def test_save_npz_of_a_dict_saves_it_as_it_is():
    f = _saved({'a/b': numpy.ones(2, numpy.float32), '/t': 4, 'n': None})
    t = Tree({'t': 0, 'n': 1}, {'a': Tree({'b': numpy.zeros(2, numpy.float32)})})
    serializers.load_npz(f, t)
    assert t.values == {'t': 4, 'n': None}
    numpy.testing.assert_array_equal(t.children['a'].values['b'], [1, 1])


# -- NpzDeserializer options ------------------------------------------------------------------

def test_missing_key_strict_raises_key_error_naming_key_and_file(tmp_path):
    path = tmp_path / 'model.npz'
    serializers.save_npz(path, Tree({'a': 1}))
    with pytest.raises(KeyError, match=r"'p/b' is not in '.*model\.npz'.*strict=False"):
        serializers.load_npz(path, Tree(children={'p': Tree({'b': 1})}))


def test_missing_key_not_strict_is_skipped():
    t = Tree({'a': 0, 'b': 7})
    serializers.load_npz(_saved(Tree({'a': 1})), t, strict=False)
    assert t.values == {'a': 1, 'b': 7}


def test_path_loads_a_sub_tree():
    f = _saved(Tree(children={'updater': Tree(children={'model:main': _model(3.0)})}))
    m = _model(0.0)
    serializers.load_npz(f, m, path='updater/model:main/')
    numpy.testing.assert_array_equal(m.children['predictor'].children['bn'].values['avg_mean'],
                                     [3, 3])
    d = serializers.NpzDeserializer({'a/b/c': numpy.array(1)}, path='a/')
    child = d['/b/']
    assert child.path == 'a/b/' and child('/c', 0) == 1


@pytest.mark.parametrize('ignore_names', [
    'predictor/l1/W', ['predictor/l1/W'], ('x', 'predictor/l1/W'),
    lambda key: key.endswith('/W'), ['nothing', lambda key: key == 'predictor/l1/W']])
def test_ignore_names(ignore_names):
    f = _saved(_model(2.0))
    m = _model(0.0)
    serializers.load_npz(f, m, ignore_names=ignore_names)
    l1 = m.children['predictor'].children['l1'].values
    numpy.testing.assert_array_equal(l1['W'], numpy.zeros((2, 3)))
    numpy.testing.assert_array_equal(m.children['predictor'].children['bn'].values['avg_mean'],
                                     [2, 2])


def test_ignored_names_need_not_exist():
    t = Tree({'a': 0, 'extra': 5})
    serializers.load_npz(_saved(Tree({'a': 1})), t, ignore_names='extra')
    assert t.values == {'a': 1, 'extra': 5}


@pytest.mark.parametrize('ignore_names', [3, ['W', 3]])
def test_invalid_ignore_names(ignore_names):
    with pytest.raises(ValueError, match='ignore_names must be a string, a callable'):
        serializers.NpzDeserializer({}, ignore_names=ignore_names)


def test_children_keep_options():
    d = serializers.NpzDeserializer({}, path='p/', strict=False, ignore_names=['x'])
    child = d['c']
    assert (child.path, child.strict, child.ignore_names) == ('p/c/', False, ['x'])


# -- safety -----------------------------------------------------------------------------------

def test_shape_mismatch_raises_value_error_naming_key_expected_and_actual():
    f = _saved(Tree(children={'l1': Tree({'W': numpy.ones((2, 3), numpy.float32)})}))
    with pytest.raises(ValueError, match=r"'l1/W'.*expected shape \(3, 2\).*shape \(2, 3\)"):
        serializers.load_npz(f, Tree(children={'l1': Tree({'W': numpy.ones((3, 2))})}))


def test_broadcastable_shape_is_still_a_mismatch():
    f = _saved(Tree({'W': numpy.ones(1, numpy.float32)}))
    with pytest.raises(ValueError, match=r'expected shape \(4,\)'):
        serializers.load_npz(f, Tree({'W': numpy.zeros(4, numpy.float32)}))


def test_dtype_mismatch_raises_value_error_naming_key_expected_and_actual():
    f = _saved(Tree({'W': numpy.full(2, 0.5)}))
    with pytest.raises(ValueError, match="'W'.*expected dtype int32.*dtype float64"):
        serializers.load_npz(f, Tree({'W': numpy.zeros(2, numpy.int32)}))


def test_same_kind_dtype_is_cast_as_chainer_does():
    # Chainer copies with numpy.copyto (same_kind): a float64 file loads into float32.
    f = _saved(Tree({'W': numpy.full(2, 0.1)}))
    W = numpy.zeros(2, numpy.float32)
    serializers.load_npz(f, Tree({'W': W}))
    numpy.testing.assert_array_equal(W, numpy.float32([0.1, 0.1]))


def test_loading_into_a_variable_raises():
    d = serializers.NpzDeserializer({'W': numpy.ones(2)})
    with pytest.raises(TypeError, match=r'Variable.*\.array'):
        d('W', chainlite.Variable(numpy.zeros(2)))


class _RunsCodeWhenUnpickled:
    def __reduce__(self):
        return exec, ("import os; os.environ['CHAINLITE_TEST_UNPICKLED'] = '1'",)


@pytest.mark.parametrize('array', [
    numpy.array([None, 1], dtype=object),
    numpy.array(5, dtype=object),
    numpy.array(_RunsCodeWhenUnpickled(), dtype=object)])
def test_object_arrays_are_refused_without_unpickling(array, monkeypatch, tmp_path):
    monkeypatch.delenv('CHAINLITE_TEST_UNPICKLED', raising=False)
    path = tmp_path / 'evil.npz'
    numpy.savez(path, ok=numpy.ones(2), evil=array)
    t = Tree({'ok': numpy.zeros(2), 'evil': None})
    with pytest.raises(ValueError, match=r"'evil' from '.*evil\.npz'.*object array.*pickle"):
        serializers.load_npz(path, t)
    assert 'CHAINLITE_TEST_UNPICKLED' not in os.environ


def test_a_none_among_other_opcodes_is_refused():
    # A pickle that builds a None array but also calls exec must not pass as a saved None.
    payload = pickle.dumps(numpy.asarray(None), protocol=4)
    evil = pickle.dumps(_RunsCodeWhenUnpickled(), protocol=4)
    assert npz._pickles_none(payload)
    assert not npz._pickles_none(evil)
    assert not npz._pickles_none(evil[:-1] + b'0' + payload[2:])  # exec'd, popped, then None
    assert not npz._pickles_none(b'not a pickle')
    assert not npz._pickles_none(pickle.dumps(numpy.asarray(0, dtype=object), protocol=4))


@pytest.mark.parametrize('protocol', [2, 3, 4, 5])
def test_saved_none_is_recognized_in_every_pickle_protocol(protocol):
    assert npz._pickles_none(pickle.dumps(numpy.asarray(None), protocol=protocol))


def test_npz_file_opened_by_numpy_without_pickle_names_the_key():
    f = _npz_with(ok=numpy.ones(2), evil=numpy.asarray(None))
    with numpy.load(f, allow_pickle=False) as loaded:
        d = serializers.NpzDeserializer(loaded)
        numpy.testing.assert_array_equal(d('ok', None), [1, 1])
        with pytest.raises(ValueError, match="cannot load 'evil'"):
            d('evil', None)


def test_dict_holding_an_object_array_is_refused():
    d = serializers.NpzDeserializer({'x': numpy.array([1, None], dtype=object)})
    with pytest.raises(ValueError, match="'x' from the given dict.*object array"):
        d('x', None)
    assert serializers.NpzDeserializer({'x': numpy.asarray(None)})('x', 3) is None


def test_not_an_npz_file(tmp_path):
    path = tmp_path / 'weights.npy'
    numpy.save(path, numpy.ones(2))
    with pytest.raises(ValueError, match=r"'.*weights\.npy' is not an NPZ file"):
        serializers.load_npz(path, Tree({'x': 0}))


def test_members_that_are_not_npy_are_ignored():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as archive:
        archive.writestr('README.txt', 'hello')
        with archive.open('x.npy', 'w') as member:
            npy_format.write_array(member, numpy.arange(3))
    t = Tree({'x': numpy.zeros(3, numpy.int64)})
    serializers.load_npz(io.BytesIO(buf.getvalue()), t)
    numpy.testing.assert_array_equal(t.values['x'], [0, 1, 2])
    with npz._NpzArchive(io.BytesIO(buf.getvalue())) as archive:
        assert list(archive) == ['x'] and len(archive) == 1 and 'README.txt' not in archive


def test_files_written_by_numpy_savez_load():
    f = _npz_with(**{'l1/W': numpy.ones((2, 2), numpy.float32), 't': numpy.asarray(5)})
    t = Tree({'t': 0}, {'l1': Tree({'W': numpy.zeros((2, 2), numpy.float32)})})
    serializers.load_npz(f, t)
    assert t.values['t'] == 5
    numpy.testing.assert_array_equal(t.children['l1'].values['W'], numpy.ones((2, 2)))


# -- files and atomic writes ------------------------------------------------------------------

def test_save_to_path_like_without_extension(tmp_path):
    path = tmp_path / 'snapshot_iter_10'
    serializers.save_npz(path, Tree({'t': 10}))
    assert sorted(os.listdir(tmp_path)) == ['snapshot_iter_10']  # no '.npz' appended
    t = Tree({'t': 0})
    serializers.load_npz(str(path), t)
    assert t.values['t'] == 10


def test_save_to_file_object_writes_directly(tmp_path):
    with open(tmp_path / 'm.npz', 'wb') as f:
        serializers.save_npz(f, Tree({'t': 1}))
        assert not f.closed
    assert os.listdir(tmp_path) == ['m.npz']
    with open(tmp_path / 'm.npz', 'rb') as f:
        t = Tree({'t': 0})
        serializers.load_npz(f, t)
    assert t.values['t'] == 1


def test_failed_save_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / 'model.npz'
    serializers.save_npz(path, _model(1.0))
    before = path.read_bytes()
    real_write_array = npy_format.write_array
    written = []

    def write_array_then_fail(fp, array, *args, **kwargs):
        if written:
            fp.write(b'partial')
            raise OSError('disk full')
        written.append(array)
        real_write_array(fp, array, *args, **kwargs)

    monkeypatch.setattr(npy_format, 'write_array', write_array_then_fail)
    with pytest.raises(OSError, match='disk full'):
        serializers.save_npz(path, _model(2.0))
    assert written  # it failed in the middle of the archive
    assert os.listdir(tmp_path) == ['model.npz']
    assert path.read_bytes() == before
    m = _model(0.0)
    monkeypatch.undo()
    serializers.load_npz(path, m)
    numpy.testing.assert_array_equal(m.children['predictor'].children['bn'].values['avg_mean'],
                                     [1, 1])


def test_interrupted_save_leaves_no_temporary_file(tmp_path):
    class Interrupting:
        def serialize(self, serializer):
            serializer('a', 1)

    class Boom(Exception):
        pass

    path = tmp_path / 'model.npz'
    with pytest.raises(Boom):
        with npz._atomic.replacing(str(path)) as tmp:
            with open(tmp, 'wb') as f:
                serializers.save_npz(f, Interrupting())
            raise Boom
    assert os.listdir(tmp_path) == []


def test_save_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / 'model.npz'
    serializers.save_npz(path, Tree({'t': 1}))
    os.chmod(path, 0o640)
    serializers.save_npz(path, Tree({'t': 2}))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    t = Tree({'t': 0})
    serializers.load_npz(pathlib.Path(path), t)
    assert t.values['t'] == 2
    assert os.listdir(tmp_path) == ['model.npz']


def test_save_into_missing_directory_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        serializers.save_npz(tmp_path / 'missing' / 'model.npz', Tree({'t': 1}))
    assert os.listdir(tmp_path) == []


# -- what loading reads: sizes are checked before anything is allocated -----------------------

def _npy_header(shape, descr='<f4'):
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {'descr': descr, 'fortran_order': False,
                                            'shape': shape})
    return buf.getvalue()


def _zip_of(members, compression=zipfile.ZIP_STORED, compresslevel=None):
    """An NPZ archive (bytes) of ``{member name: bytes}``, written without zip64."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression=compression, compresslevel=compresslevel) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _raises_with_peak(exc_type, call, match=None):
    """Runs ``call``, which must raise ``exc_type``; returns the error and the peak memory."""
    tracemalloc.start()
    try:
        with pytest.raises(exc_type, match=match) as e:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return e.value, peak


@pytest.mark.parametrize('target', ['array', 'lazy'])
def test_header_claiming_more_data_than_the_member_holds(tmp_path, target):
    # 40 GB declared in a file of a few hundred bytes: refused from the header, whether or not
    # the value it loads into has a shape to compare with.
    path = tmp_path / 'bad.npz'
    path.write_bytes(_zip_of({'W.npy': _npy_header((100000, 100000)) + bytes(300)}))
    assert path.stat().st_size < 600
    obj = Tree({'W': numpy.zeros((2, 3), numpy.float32)}) if target == 'array' else LazyHolder()
    _, peak = _raises_with_peak(
        ValueError, lambda: serializers.load_npz(path, obj),
        match=r"cannot load 'W' from '.*bad\.npz': its \.npy header declares shape "
              r"\(100000, 100000\) of float32 \(40000000000 bytes\), but the member holds "
              r"only 300 bytes of data")
    assert peak < 1 << 20
    if target == 'array':
        numpy.testing.assert_array_equal(obj.values['W'], numpy.zeros((2, 3)))
    else:
        assert obj.W is None


def test_zip_bomb_is_refused_before_inflating(tmp_path):
    # 64 MB of zeros deflated to a few hundred KB; the header's shape does not fit the
    # parameter, so nothing is inflated.
    n = 1 << 24
    path = tmp_path / 'bomb.npz'
    path.write_bytes(_zip_of({'W.npy': _npy_header((n,)) + bytes(4 * n)},
                             zipfile.ZIP_DEFLATED, compresslevel=1))
    assert path.stat().st_size < (4 * n) // 100
    t = Tree({'W': numpy.ones((2, 3), numpy.float32)})
    _, peak = _raises_with_peak(
        ValueError, lambda: serializers.load_npz(path, t),
        match=r"cannot load 'W' from '.*bomb\.npz': expected shape \(2, 3\), but the file "
              r"holds shape \(16777216,\)")
    assert peak < 1 << 20  # far below the 64 MB it would inflate to
    numpy.testing.assert_array_equal(t.values['W'], numpy.ones((2, 3)))


def test_zip_bomb_in_a_numpy_npz_file_is_refused_before_inflating():
    n = 1 << 22
    data = _zip_of({'W.npy': _npy_header((n,)) + bytes(4 * n)}, zipfile.ZIP_DEFLATED,
                   compresslevel=1)
    with numpy.load(io.BytesIO(data)) as loaded:
        d = serializers.NpzDeserializer(loaded)
        _, peak = _raises_with_peak(ValueError, lambda: d('W', numpy.ones(2, numpy.float32)),
                                    match=r"'W' from the given NpzFile: expected shape \(2,\)")
    assert peak < 1 << 20


def _patched_central_directory(data, offset, value):
    # The one member's central directory record: compressed size at +20, size at +24.
    at = data.rindex(b'PK\x01\x02') + offset
    return data[:at] + value.to_bytes(4, 'little') + data[at + 4:]


@pytest.mark.parametrize('field,match', [
    (24, r"its zip entry claims \d+ bytes inflated from \d+ compressed bytes, more than the "
         r"1100 times that deflate"),
    (20, r"its zip entry claims 1000000000 compressed bytes, more than the \d+ bytes of the "
         r"archive"),
])
def test_zip_entry_claiming_impossible_sizes_is_refused(tmp_path, field, match):
    # The header declares 2 GiB and the zip directory is patched to claim as much: the sizes
    # the zip directory claims are checked against each other and against the archive.
    n = 1 << 31
    data = _zip_of({'W.npy': _npy_header((n,), '|u1') + bytes(1000)}, zipfile.ZIP_DEFLATED)
    value = 10 ** 9 if field == 20 else n + 128
    path = tmp_path / 'lying.npz'
    path.write_bytes(_patched_central_directory(data, field, value))
    holder = LazyHolder()
    _, peak = _raises_with_peak(ValueError, lambda: serializers.load_npz(path, holder),
                                match=r"cannot load 'W' from '.*lying\.npz': " + match)
    assert peak < 1 << 20
    assert holder.W is None


def test_damaged_members_name_the_key_and_the_file(tmp_path):
    path = tmp_path / 'damaged.npz'
    path.write_bytes(_zip_of({'W.npy': b'\x93NUMPY\x01\x00\x10\x00{not a header}  \n'}))
    with pytest.raises(ValueError, match=r"cannot load 'W' from '.*damaged\.npz': the member "
                                         r"is not a valid \.npy array"):
        serializers.load_npz(path, Tree({'W': numpy.zeros(2)}))
    # A flipped byte in the data: the zip's CRC check fails at the end of the member.
    data = bytearray(_zip_of({'W.npy': _npy_header((2,)) + numpy.ones(2, '<f4').tobytes()}))
    data[data.index(numpy.ones(2, '<f4').tobytes())] ^= 1
    path.write_bytes(bytes(data))
    w = numpy.zeros(2, numpy.float32)
    with pytest.raises(ValueError, match=r"cannot load 'W' from '.*damaged\.npz': the archive "
                                         r"is damaged \(Bad CRC-32"):
        serializers.load_npz(path, Tree({'W': w}))


def test_object_array_with_a_huge_declared_shape_is_refused_unread(tmp_path):
    path = tmp_path / 'evil.npz'
    path.write_bytes(_zip_of({'x.npy': _npy_header((10 ** 12,), '|O') + b'\x80\x04N.'}))
    _, peak = _raises_with_peak(
        ValueError, lambda: serializers.load_npz(path, Tree({'x': None})),
        match=r"'x' from '.*evil\.npz': it is an object array.*pickle")
    assert peak < 1 << 20


def test_a_file_opened_in_text_mode_is_refused(tmp_path):
    path = tmp_path / 'model.npz'
    serializers.save_npz(path, Tree({'t': 1}))
    with open(path, 'r') as f:
        with pytest.raises(TypeError, match=r"load_npz: the file .*model\.npz.* is open in text "
                                            r"mode; open it in binary mode \('rb'\)"):
            serializers.load_npz(f, Tree({'t': 0}))
    with open(tmp_path / 'out.npz', 'w') as f:
        with pytest.raises(TypeError, match=r"save_npz: the file .*out\.npz.* is open in text "
                                            r"mode; open it in binary mode \('wb'\)"):
            serializers.save_npz(f, Tree({'t': 1}))


def test_arrays_that_fit_still_load_from_every_kind_of_archive():
    # The checks pass files written by save_npz (zip64 members), numpy.savez and
    # numpy.savez_compressed, including a highly compressible one.
    zeros = numpy.zeros((256, 256), numpy.float32)
    for write in (lambda f: serializers.save_npz(f, {'W': zeros + 1, 't': 3}),
                  lambda f: numpy.savez(f, W=zeros + 1, t=numpy.asarray(3)),
                  lambda f: numpy.savez_compressed(f, W=zeros + 1, t=numpy.asarray(3))):
        buf = io.BytesIO()
        write(buf)
        t = Tree({'W': numpy.empty((256, 256), numpy.float32), 't': 0})
        serializers.load_npz(io.BytesIO(buf.getvalue()), t)
        numpy.testing.assert_array_equal(t.values['W'], zeros + 1)
        assert t.values['t'] == 3
