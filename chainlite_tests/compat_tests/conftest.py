"""Fixtures of the compat tests."""
import importlib

import pytest

from chainlite import compat


@pytest.fixture
def chainer():
    """``import chainer`` under :func:`chainlite.compat.install`, uninstalled afterwards."""
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()
