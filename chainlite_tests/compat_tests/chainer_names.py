"""Lists the module-level names of Chainer 7.8.1 that code outside Chainer can import.

A developer tool, not part of chainlite: it reads Chainer's source at the tag ``v7.8.1`` from
a git copy of chainer/chainer, walks every module of ``chainer/``, ``chainermn/`` and
``onnx_chainer/`` with :mod:`ast` (nothing of Chainer is imported or run), and writes
``chainer_names.json`` next to this file: for each module, the names other code can reach
as ``module.name``. ``test_chainer_names.py`` resolves every one of them under
:mod:`chainlite.compat`. The JSON file is a list of names, not Chainer's code.

Usage (from the repository root)::

    python chainlite_tests/compat_tests/chainer_names.py GIT_DIR [--tag v7.8.1]

A module's names are:

* what it defines at module level, also inside module-level ``if``/``try``/``with``
  blocks (both branches of ``if cuda.available: ... else: ...``): functions, classes and
  assignment targets. Names with a leading underscore are kept only where libraries reach
  for helpers, and only functions and classes: in the folders of :data:`PRIVATE_OK`
  (ChainerRL imports ``chainer.functions.rnn.n_step_lstm._lstm``, ChainerCV
  ``chainer.dataset.convert._concat_arrays`` and ``chainer.testing.attr._dummy_callable``).
  Underscore assignments are module state (``_kern`` CUDA kernels, ``_cudnn_version``,
  ``_error`` import flags), not something to import; dunders (``__all__``) are never listed;
* what a package's ``__init__.py`` imports from Chainer's own packages (``chainer.Variable``,
  ``chainer.functions.relu``): a package's imports are its API;
* what any other module imports from Chainer's own packages and does not use itself (an
  unused import is a re-export, e.g. ``chainer.function.FunctionHook``), unless it is a module
  (modules are listed as modules). Imports of other packages (``numpy``, ``six``) are not API.

Modules are listed by name; a package is listed under its own name. :data:`SKIPPED` are left
out of the tree, each with the reason, which is also written into the JSON file.
"""
import argparse
import ast
import json
import os
import subprocess
import sys

#: Packages of Chainer's source tree whose names are listed.
ROOTS = ('chainer', 'chainermn', 'onnx_chainer')

#: Folders (module-name prefixes) whose underscore names defined at module level are listed:
#: libraries built on Chainer import helpers from these.
PRIVATE_OK = tuple('chainer.' + p for p in (
    'functions.', 'links.', 'testing.', 'utils.', 'backends.', 'training.', 'dataset.',
    'datasets.', 'iterators.', 'serializers.', 'optimizers.', 'initializers.'))

#: Modules left out of the list (the module and everything below it), with the reason.
SKIPPED = {
    'chainer._environment_check': 'checks the installed NumPy/CuPy/setuptools at import '
                                  'time; tooling of the chainer package, nothing to import',
    'chainer._version': 'the version string lives in chainer.__version__',
    'chainer.links.caffe.protobuf3': 'protobuf code generated from caffe.proto; used by '
                                     'CaffeFunction only',
    'onnx_chainer.examples': 'example scripts (no __init__.py): not importable modules',
}


def _git(git_dir, *args):
    return subprocess.run(['git', '--git-dir', git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def module_name(path):
    """Returns the module name of a path: ``chainer/links/__init__.py`` is ``chainer.links``."""
    parts = path[:-3].split('/')
    if parts[-1] == '__init__':
        parts = parts[:-1]
    return '.'.join(parts)


def _skipped(name):
    return any(name == s or name.startswith(s + '.') for s in SKIPPED)


def _targets(node):
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            yield from _targets(elt)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _top_statements(body):
    """Yields module-level statements, entering if/try/with blocks (not defs or classes)."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _top_statements(node.body)
            yield from _top_statements(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_statements(node.body)
            for handler in node.handlers:
                yield from _top_statements(handler.body)
            yield from _top_statements(node.orelse)
            yield from _top_statements(node.finalbody)
        elif isinstance(node, ast.With):
            yield from _top_statements(node.body)


def _resolve_from(module, is_package, node):
    """The absolute module name of ``from X import ...`` in ``module``."""
    if not node.level:
        return node.module or ''
    base = module.split('.')
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return '.'.join(base + ([node.module] if node.module else []))


def _used_names(tree):
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            pass  # the base is a Name, counted above
    # Names listed in __all__ are exported even if unused.
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == '__all__' for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                for elt in node.value.elts:
                    if isinstance(elt, ast.Constant):
                        used.discard(elt.value)
    return used


def module_names(module, is_package, source, all_modules):
    """Returns the sorted names ``module`` offers, by the rules of this file's docstring."""
    tree = ast.parse(source)
    private_ok = module.startswith(PRIVATE_OK)
    defined = set()
    helpers = set()  # underscore functions and classes: helpers other code can call
    imported = {}  # bound name -> absolute origin (module or module.attr)
    for node in _top_statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
            helpers.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                defined.update(_targets(target))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            defined.update(_targets(node.target))
        elif isinstance(node, ast.ImportFrom):
            source_module = _resolve_from(module, is_package, node)
            for alias in node.names:
                if alias.name == '*':
                    continue
                imported[alias.asname or alias.name] = source_module + '.' + alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imported[alias.asname] = alias.name
    used = _used_names(tree)
    names = set()
    for name in defined:
        if name.startswith('__') and name.endswith('__'):
            continue
        if name.startswith('_') and not (private_ok and name in helpers):
            continue
        names.add(name)
    for name, origin in imported.items():
        if name in defined or name.startswith('_'):
            continue
        if origin.split('.')[0] not in ROOTS:
            continue
        if origin in all_modules:
            continue  # a module: listed as a module
        if is_package or name not in used:
            names.add(name)
    return sorted(names)


def collect(git_dir, tag='v7.8.1'):
    """Returns ``{'modules': {module: [names]}, 'skipped': {module: reason}}``."""
    paths = [p for p in _git(git_dir, 'ls-tree', '-r', '--name-only', tag, *ROOTS).split()
             if p.endswith('.py')]
    all_modules = {module_name(p) for p in paths}
    modules = {}
    for path in sorted(paths):
        name = module_name(path)
        if _skipped(name):
            continue
        source = _git(git_dir, 'show', '%s:%s' % (tag, path))
        modules[name] = module_names(name, path.endswith('__init__.py'), source, all_modules)
    return {'chainer_version': tag.lstrip('v'), 'generated_by': os.path.basename(__file__),
            'skipped': SKIPPED, 'modules': dict(sorted(modules.items()))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('git_dir', help='a git copy of chainer/chainer with the tag')
    parser.add_argument('--tag', default='v7.8.1')
    parser.add_argument('--output', default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), 'chainer_names.json'))
    args = parser.parse_args(argv)
    data = collect(args.git_dir, args.tag)
    with open(args.output, 'w') as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write('\n')
    count = sum(len(v) for v in data['modules'].values())
    print('%d modules, %d names -> %s' % (len(data['modules']), count, args.output))


if __name__ == '__main__':
    sys.exit(main())
