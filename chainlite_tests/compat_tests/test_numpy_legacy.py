"""NumPy-1 legacy mode (chainlite.compat.numpy_legacy): the removed names, on and off."""
import os
import subprocess
import sys

import numpy
import pytest

from chainlite import compat
from chainlite.compat import numpy_legacy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def legacy():
    added = numpy_legacy.install_numpy_legacy()
    try:
        yield added
    finally:
        numpy_legacy.uninstall_numpy_legacy()


def test_off_by_default():
    assert not numpy_legacy.is_numpy_legacy_installed()
    # Names that every NumPy 2 release lacks (in1d, product, ... went later, in 2.4).
    for name in ('asscalar', 'float_', 'NaN', 'alltrue', 'unicode_'):
        assert name not in vars(numpy), name


def test_removed_names_mean_what_they_meant_in_numpy_1(legacy):
    names = numpy_legacy.legacy_names()
    # What the installed NumPy lacked is now there; what it had is still its own.
    assert legacy and all(repr(getattr(numpy, name)) == repr(names[name]) for name in legacy)
    assert numpy.int is int and numpy.float is float and numpy.complex is complex
    assert numpy.object is object and numpy.str is str and numpy.unicode is str
    assert numpy.float_ is numpy.float64 and numpy.complex_ is numpy.complex128
    assert numpy.unicode_ is numpy.str_ and numpy.string_ is numpy.bytes_
    assert numpy.bool8 is numpy.bool_ and numpy.int0 is numpy.intp
    assert numpy.zeros(2, dtype=numpy.float).dtype == numpy.float64
    assert numpy.array([1, 2], dtype=numpy.int).dtype == numpy.dtype(int)
    assert numpy.isinf(numpy.Inf) and numpy.isnan(numpy.NaN) and numpy.NINF == -numpy.inf
    value = numpy.asscalar(numpy.array([[2.5]]))
    assert value == 2.5 and type(value) is float
    # The functions as legacy mode defines them (an older NumPy 2 may still have its own,
    # deprecated, which the mode leaves in place).
    in1d = names['in1d']
    assert in1d([[1, 2], [3, 4]], [2, 3]).tolist() == [False, True, True, False]
    assert in1d([1, 2], [2], invert=True).tolist() == [True, False]
    assert names['product']([2, 3, 4]) == 24 and names['cumproduct']([2, 3]).tolist() == [2, 6]
    assert names['alltrue']([True, True]) and not names['sometrue']([False, False])
    assert names['msort'](numpy.array([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
    assert names['asfarray']([1, 2]).dtype == numpy.float64
    assert names['asfarray']([1, 2], numpy.float32).dtype == numpy.float32
    assert names['round_'](1.26, 1) == 1.3 and names['trapz']([1.0, 1.0]) == 1.0
    assert names['issubclass_'](numpy.float64, numpy.floating)
    assert not names['issubclass_'](1, int)


def test_existing_names_are_left_alone_and_uninstall_removes_only_what_was_added(legacy):
    assert 'bool' not in legacy and numpy.bool is numpy.bool_  # NumPy 2's own numpy.bool
    assert 'asscalar' in legacy
    assert numpy_legacy.install_numpy_legacy() == []  # twice: nothing more
    numpy_legacy.uninstall_numpy_legacy()
    assert not [name for name in legacy if name in vars(numpy)]
    assert numpy.bool is numpy.bool_ and numpy.prod([2, 3]) == 6


def test_compat_install_turns_it_on_and_uninstall_off():
    compat.install(numpy_legacy=True)
    try:
        import chainer
        assert numpy.float is float and chainer.__version__ == '7.8.1'
        assert numpy_legacy.is_numpy_legacy_installed()
    finally:
        compat.uninstall()
    assert not numpy_legacy.is_numpy_legacy_installed() and 'float_' not in vars(numpy)


def test_compat_install_without_it_leaves_numpy_alone():
    compat.install()
    try:
        assert 'asscalar' not in vars(numpy)
    finally:
        compat.uninstall()


def _compat(*args):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, '-m', 'chainlite.compat', *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_command_line_switch():
    code = ('import numpy, chainer\n'
            'x = chainer.Variable(numpy.ones(3, dtype=numpy.float))\n'
            'print(x.dtype, numpy.asscalar(numpy.array([7])))')
    proc = _compat('--numpy-legacy', '-c', code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ['float64', '7']
    proc = _compat('-c', code)
    assert proc.returncode == 1 and "has no attribute 'float'" in proc.stderr
    assert '--numpy-legacy' in _compat('--help').stdout
