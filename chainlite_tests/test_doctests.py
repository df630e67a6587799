"""Runs the ``>>>`` examples in the docstrings of every module of the chainlite package.

One test per module; a module without examples is skipped. Examples are compared with
``NORMALIZE_WHITESPACE | ELLIPSIS``, and a failure shows doctest's own report.
"""
from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

import chainlite

_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _module_names() -> list[str]:
    names = ['chainlite']
    for info in pkgutil.walk_packages(chainlite.__path__, 'chainlite.'):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize('name', _module_names())
def test_docstring_examples(name: str):
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    if not tests:
        pytest.skip('%s has no docstring examples' % name)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    saved_config = dict(vars(chainlite.config))
    try:
        for test in tests:
            runner.run(test, out=report.write)
    finally:
        vars(chainlite.config).clear()
        vars(chainlite.config).update(saved_config)
    result = runner.summarize(verbose=False)
    if result.failed:
        pytest.fail('%d of %d examples failed in %s\n\n%s'
                    % (result.failed, result.attempted, name, report.getvalue()),
                    pytrace=False)
