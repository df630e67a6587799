"""Tests of chainlite.print_runtime_info."""
import io
import platform

import numpy

import chainlite
from chainlite import _runtime_info


def test_print_runtime_info_writes_the_versions():
    out = io.StringIO()
    chainlite.print_runtime_info(out)
    text = out.getvalue()
    assert text == str(_runtime_info._get_runtime_info())
    lines = text.splitlines()
    assert lines[0] == 'Platform: %s' % platform.platform()
    assert 'chainlite: %s' % chainlite.__version__ in lines
    assert 'NumPy: %s' % numpy.__version__ in lines
    assert 'Python: %s' % platform.python_version() in lines
    assert 'CuPy: Not Available' in lines


def test_print_runtime_info_defaults_to_stdout(capsys):
    chainlite.print_runtime_info()
    assert capsys.readouterr().out.startswith('Platform: ')
