import os

import numpy as np
import pytest

from chainlite.training.extensions import snapshot_writers

_TARGET = {'W': np.arange(3, dtype=np.float32), 't': np.array(5)}


def _assert_saved(path):
    with np.load(path) as f:
        np.testing.assert_array_equal(f['W'], _TARGET['W'])
        assert int(f['t']) == 5


class _Touch:
    def __init__(self, path):
        self.path = path

    def __call__(self):
        self.path.write_text('yes')


@pytest.mark.parametrize('make', [
    snapshot_writers.SimpleWriter,
    snapshot_writers.ThreadWriter,
    snapshot_writers.ProcessWriter,
    snapshot_writers.ThreadQueueWriter,
    snapshot_writers.ProcessQueueWriter,
])
def test_every_writer_saves_atomically_and_runs_the_hooks(tmp_path, make):
    writer = make()
    writer._add_cleanup_hook(_Touch(tmp_path / 'hook_ran'))  # picklable, for processes
    writer('snap_1', str(tmp_path), _TARGET)
    writer('snap_2', str(tmp_path), _TARGET)
    writer.finalize()
    assert sorted(os.listdir(tmp_path)) == ['hook_ran', 'snap_1', 'snap_2']
    _assert_saved(tmp_path / 'snap_2')
    writer.finalize()  # twice is fine


def test_savefun_keyword_arguments_and_subdirectories(tmp_path):
    writer = snapshot_writers.SimpleWriter(compression=False)
    writer('a/b/snap', str(tmp_path), _TARGET)
    _assert_saved(tmp_path / 'a' / 'b' / 'snap')


def test_a_failing_save_leaves_no_file_and_skips_the_hooks(tmp_path):
    def failing(path, target):
        with open(path, 'wb') as f:
            f.write(b'partial')
        raise OSError('disk full')

    hooks = []
    writer = snapshot_writers.SimpleWriter(failing)
    writer._add_cleanup_hook(lambda: hooks.append(1))
    with pytest.raises(OSError, match='disk full'):
        writer('snap', str(tmp_path), _TARGET)
    assert os.listdir(tmp_path) == [] and hooks == []


def test_a_savefun_writing_elsewhere_is_an_error(tmp_path):
    def writes_with_suffix(path, target):
        np.savez(path, **target)  # appends '.npz'

    with pytest.raises(RuntimeError, match='wrote no file at the path'):
        snapshot_writers.SimpleWriter(writes_with_suffix)('snap', str(tmp_path), _TARGET)
    assert not any(name == 'snap' for name in os.listdir(tmp_path))


def _failing(path, target):
    raise ValueError('cannot save')


def test_background_errors_are_raised_not_lost(tmp_path, capsys):
    writer = snapshot_writers.ThreadWriter(_failing)
    writer('snap', str(tmp_path), _TARGET)
    with pytest.raises(ValueError, match='cannot save'):
        writer.finalize()

    writer = snapshot_writers.ThreadQueueWriter(_failing)
    writer('snap', str(tmp_path), _TARGET)
    writer('snap', str(tmp_path), _TARGET)  # the consumer survives the first error
    with pytest.raises(ValueError, match='cannot save'):
        writer.finalize()
    assert 'cannot save' in capsys.readouterr().err
    with pytest.raises(RuntimeError, match='finalized'):
        writer('snap', str(tmp_path), _TARGET)

    writer = snapshot_writers.ProcessWriter(_failing)
    writer('snap', str(tmp_path), _TARGET)
    with pytest.raises(RuntimeError, match='exit code'):
        writer.finalize()
