"""The generated function reference is up to date, and every exported function documented."""
import importlib.util
import inspect
import os

import chainlite.functions as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generator():
    path = os.path.join(ROOT, 'docs', 'generate_reference.py')
    spec = importlib.util.spec_from_file_location('generate_reference', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_pages_are_up_to_date(capsys):
    status = _generator().main(['--check'])
    assert status == 0, capsys.readouterr().out


def test_every_exported_function_has_args_returns_and_an_example():
    missing = []
    for name, f in sorted(vars(F).items()):
        if name.startswith('_') or not inspect.isfunction(f):
            continue
        doc = inspect.getdoc(f) or ''
        for part in ('Args:', 'Returns:', '>>>'):
            if part not in doc and not (part == 'Args:' and not inspect.signature(f).parameters):
                missing.append('%s: no %s' % (name, part))
    assert not missing, '\n'.join(missing)


def test_every_category_page_lists_its_functions():
    pages = _generator().collect()
    assert {'array', 'math', 'activation'} <= set(pages)
    listed = {name for functions in pages.values() for name, _ in functions}
    for name in ('sin', 'reshape', 'tanh', 'get_item', 'matmul'):
        assert name in listed
