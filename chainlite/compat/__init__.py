"""Runs scripts written for Chainer unchanged: ``chainer`` and ``chainerx`` resolve to chainlite.

``python -m chainlite.compat SCRIPT.py [ARGS...]`` installs an import hook, then runs the
script. While the hook is installed, ``import chainer`` gives the ``chainlite`` package under
Chainer's name and version (``chainer.__version__`` is ``'7.8.1'``, the release whose API
chainlite implements, so version checks in old code take Chainer 7's branch; every other
attribute is chainlite's own, read and written through), ``import chainermn`` gives
:mod:`chainlite.distributed` (ChainerMN's API) the same way,
every ``chainer.X.Y`` gives ``chainlite.X.Y`` (the same module objects, so
``chainer.Variable is chainlite.Variable``), ``chainer.cuda`` gives
``chainlite.backends.cuda`` as in Chainer, and ``chainerx`` gives
:mod:`chainlite.compat.chainerx`, whose ``is_available()`` is False. ``onnx_chainer``
(Chainer's ONNX exporter) and its submodules give :mod:`chainlite.onnx` and its submodules.

What chainlite does not implement fails where it is used, with a message that names it:
importing ``chainer.links.theano.theano_function`` raises ``ModuleNotFoundError`` and reading
``chainer.links.TheanoFunction`` raises ``AttributeError``, both saying
``chainer.X is not implemented by chainlite``.

``import chainlite`` never installs the hook; only the command line above or an explicit
:func:`install` does, and :func:`uninstall` restores ``sys.modules`` as it was.

Example:
    >>> from chainlite import compat
    >>> compat.install()
    >>> import chainer
    >>> import chainlite
    >>> chainer.Variable is chainlite.Variable
    True
    >>> compat.uninstall()
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

from chainlite.compat import numpy_legacy as numpy_legacy_module
from chainlite.compat.numpy_legacy import install_numpy_legacy, uninstall_numpy_legacy

__all__ = ['install', 'uninstall', 'is_installed', 'chainer_name', 'chainlite_name',
           'CHAINER_VERSION', 'install_numpy_legacy', 'uninstall_numpy_legacy']

#: What ``chainer.__version__`` and ``chainermn.__version__`` say under the hook, and what
#: ``chainer.testing.with_requires('chainer>=7')`` compares with: the Chainer release whose
#: API chainlite implements. ``chainlite.__version__`` stays chainlite's own.
CHAINER_VERSION = '7.8.1'
# The packages that are chainlite's under Chainer's name and version (see _VersionedAlias).
_VERSIONED = ('chainer', 'chainermn')

# Chainer modules whose chainlite counterpart lives under another name.
_RENAMED = {
    'chainer.basic_math': 'chainlite.functions.math.basic_math',
    'chainer.cuda': 'chainlite.backends.cuda',
    'chainer.sequential': 'chainlite.link',
    'chainerx': 'chainlite.compat.chainerx',
    'onnx_chainer': 'chainlite.onnx',
}
# Chainer modules that gather what chainlite keeps in one module per op: the alias is a
# module of its own whose names are those of the chainlite modules listed (the same objects).
_MERGED = {
    'chainer.functions.loss.vae': ('chainlite.functions.loss.bernoulli_nll',
                                   'chainlite.functions.loss.gaussian_kl_divergence',
                                   'chainlite.functions.loss.gaussian_nll'),
    'chainer.functions.math.exponential': ('chainlite.functions.math.exp',
                                           'chainlite.functions.math.log',
                                           'chainlite.functions.math.log2',
                                           'chainlite.functions.math.log10'),
    'chainer.functions.math.exponential_m1': ('chainlite.functions.math.expm1',),
    'chainer.functions.math.hyperbolic': ('chainlite.functions.math.cosh',
                                          'chainlite.functions.math.sinh'),
    'chainer.functions.math.logarithm_1p': ('chainlite.functions.math.log1p',),
    'chainer.functions.math.minmax': ('chainlite.functions.math.max',
                                      'chainlite.functions.math.min',
                                      'chainlite.functions.math.argmax',
                                      'chainlite.functions.math.argmin'),
    'chainer.functions.math.trigonometric': ('chainlite.functions.math.sin',
                                             'chainlite.functions.math.cos',
                                             'chainlite.functions.math.tan',
                                             'chainlite.functions.math.arcsin',
                                             'chainlite.functions.math.arccos',
                                             'chainlite.functions.math.arctan',
                                             'chainlite.functions.math.arctan2'),
    'chainer.functions.normalization.l2_normalization': (
        'chainlite.functions.normalization.normalize',),
    'chainer.training.util': ('chainlite.training.triggers',),
}
# Attributes of the ``chainer`` package that are modules living elsewhere in chainlite.
_RENAMED_ATTRIBUTES = {name[len('chainer.'):]: lite for name, lite in _RENAMED.items()
                       if name.startswith('chainer.') and name.count('.') == 1}

_finder: _ChainerFinder | None = None
_saved_modules: dict[str, types.ModuleType] = {}
# Modules given a __getattr__ by the hook, each with the __getattr__ it had before (or None).
_patched: dict[str, tuple[types.ModuleType, Any]] = {}
_attributes_before: set[str] = set()
_legacy_by_install = False  # install(numpy_legacy=True) turned the legacy mode on


def _is_chainer_name(name: str) -> bool:
    return name in ('chainer', 'chainerx', 'chainermn', 'onnx_chainer') or name.startswith(
        ('chainer.', 'chainerx.', 'chainermn.', 'onnx_chainer.'))


def chainlite_name(name: str) -> str | None:
    """Returns the chainlite module that stands for the Chainer module ``name``.

    Args:
        name: A module name such as ``'chainer.training.extensions'``.

    Returns:
        The chainlite module name (``'chainlite.training.extensions'``), or None where
        ``name`` is neither ``chainer``, ``chainerx``, ``onnx_chainer`` nor one of their
        submodules, or is a submodule of ``chainerx`` (chainlite offers none).

    Example:
        >>> chainlite_name('chainer.backends.cuda'), chainlite_name('numpy')
        ('chainlite.backends.cuda', None)
    """
    if name in _RENAMED:
        return _RENAMED[name]
    if name == 'chainermn' or name.startswith('chainermn.'):
        return 'chainlite.distributed' + name[len('chainermn'):]
    if name.startswith('onnx_chainer.'):
        return 'chainlite.onnx' + name[len('onnx_chainer'):]
    if name == 'chainer' or name.startswith('chainer.'):
        return 'chainlite' + name[len('chainer'):]
    return None


def chainer_name(name: str) -> str:
    """Returns the name a Chainer script uses for the chainlite module ``name``.

    Args:
        name: A module name such as ``'chainlite.links'``.

    Returns:
        ``'chainer.links'`` for it; ``chainlite.compat.chainerx`` is ``'chainerx'``.

    Example:
        >>> chainer_name('chainlite.functions'), chainer_name('chainlite.compat.chainerx')
        ('chainer.functions', 'chainerx')
    """
    if name == _RENAMED['chainerx']:
        return 'chainerx'
    if name == 'chainlite.distributed' or name.startswith('chainlite.distributed.'):
        return 'chainermn' + name[len('chainlite.distributed'):]
    if name == 'chainlite.onnx' or name.startswith('chainlite.onnx.'):
        return 'onnx_chainer' + name[len('chainlite.onnx'):]
    if name == 'chainlite' or name.startswith('chainlite.'):
        return 'chainer' + name[len('chainlite'):]
    return name


def _not_implemented(name: str) -> str:
    return ('%s is not implemented by chainlite (docs/migrating_from_chainer.md lists what '
            'is)' % name)


def _make_getattr(module: types.ModuleType, previous: Any) -> Any:
    public = chainer_name(module.__name__)

    def __getattr__(attr: str) -> Any:
        if previous is not None:
            try:
                value = previous(attr)
            except AttributeError:
                pass
            else:
                # A package's lazy import hands out a chainlite module the hook has not seen.
                if isinstance(value, types.ModuleType) and value.__name__.startswith(
                        'chainlite.'):
                    _patch(value)
                return value
        if module.__name__ == 'chainlite' and attr in _RENAMED_ATTRIBUTES:
            return importlib.import_module(_RENAMED_ATTRIBUTES[attr])
        if '%s.%s' % (public, attr) in _MERGED:
            return importlib.import_module('%s.%s' % (public, attr))
        if ('__path__' in vars(module) and not attr.startswith('__')
                and importlib.util.find_spec('%s.%s' % (module.__name__, attr)) is not None):
            # Chainer's packages import all their submodules, so Chainer code reads
            # ``chainer.functions.array.flip`` without importing it: import it here.
            submodule = importlib.import_module('%s.%s' % (module.__name__, attr))
            _patch(submodule)
            return submodule
        if attr.startswith('__') and attr.endswith('__'):
            # Introspection (doctest, inspect, copy) probes dunders: keep Python's message.
            raise AttributeError('module %r has no attribute %r' % (module.__name__, attr))
        if hasattr(module, '__path__') and not attr.startswith('_') and \
                importlib.util.find_spec('%s.%s' % (module.__name__, attr)) is not None:
            # Chainer's packages import all their modules, so `chainer.functions.math.identity`
            # works without an import statement; chainlite's load lazily.
            return importlib.import_module('%s.%s' % (module.__name__, attr))
        raise AttributeError(_not_implemented('%s.%s' % (public, attr)))

    return __getattr__


class _KeepsBoundNames(types.ModuleType):
    """A chainlite package under the hook: a submodule's import does not unbind a name.

    The first ``import chainer.dataset.tabular.from_data`` loads an alias, and the import
    system then sets the package's attribute ``from_data`` to that module, replacing the
    function the package bound under the same name (Chainer imports the submodule in its
    ``__init__`` first, so there the function stays). This class keeps the bound object.
    """

    def __setattr__(self, attr: str, value: Any) -> None:
        if (isinstance(value, types.ModuleType)
                and value.__name__ == '%s.%s' % (self.__name__, attr)):
            current = vars(self).get(attr)
            if current is not None and not isinstance(current, types.ModuleType):
                return
        super().__setattr__(attr, value)


def _patch(module: types.ModuleType) -> None:
    name = module.__name__
    if name in _patched or name.startswith('chainlite.compat'):
        return
    previous = vars(module).get('__getattr__')
    _patched[name] = (module, previous)
    setattr(module, '__getattr__', _make_getattr(module, previous))
    if type(module) is types.ModuleType:
        module.__class__ = _KeepsBoundNames


def _unpatch_all() -> None:
    for module, previous in _patched.values():
        if previous is None:
            vars(module).pop('__getattr__', None)
        else:
            setattr(module, '__getattr__', previous)
        if type(module) is _KeepsBoundNames:
            setattr(module, '__class__', types.ModuleType)
    _patched.clear()


class _VersionedAlias(types.ModuleType):
    """A chainlite package under a Chainer name (``chainer``, ``chainermn``) and version.

    Its own namespace holds only the module's dunders (``__name__``, ``__spec__``, ``__path__``,
    ``__version__``, ...). Every other attribute is read from, written to and deleted from the
    chainlite package, so ``chainer.Variable is chainlite.Variable`` and a test that patches
    ``chainer.config`` patches chainlite's.
    """

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        vars(self)['__wrapped_module__'] = target
        for attr in ('__file__', '__path__'):
            if attr in vars(target):
                vars(self)[attr] = vars(target)[attr]
        vars(self)['__version__'] = CHAINER_VERSION

    def __getattr__(self, attr: str) -> Any:
        return getattr(vars(self)['__wrapped_module__'], attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        if attr.startswith('__') and attr.endswith('__'):
            super().__setattr__(attr, value)
        else:
            setattr(vars(self)['__wrapped_module__'], attr, value)

    def __delattr__(self, attr: str) -> None:
        if attr.startswith('__') and attr.endswith('__'):
            super().__delattr__(attr)
        else:
            delattr(vars(self)['__wrapped_module__'], attr)

    def __dir__(self) -> list:
        return sorted(set(dir(vars(self)['__wrapped_module__'])) | set(vars(self)))


class _AliasLoader(importlib.abc.Loader):
    """Loads a ``chainer.*`` name by handing out the already imported chainlite module."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._own_spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        _patch(module)
        # The import system overwrites ``__spec__`` of what this returns with the alias's
        # spec (no origin, no loader of files); keep the module's own, so that
        # ``importlib.resources``, ``pickle`` and ``inspect`` still find its files.
        self._own_spec = module.__spec__
        if spec.name in _VERSIONED:
            return _VersionedAlias(spec.name, module)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The chainlite module ran when it was first imported under its own name.
        if self._own_spec is not None:
            module.__spec__ = self._own_spec


class _MergedLoader(importlib.abc.Loader):
    """Builds a Chainer module that gathers the names of several chainlite modules."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default: a new, empty module named spec.name

    def exec_module(self, module: types.ModuleType) -> None:
        sources = _MERGED[module.__name__]
        for name in sources:
            source = importlib.import_module(name)
            public = getattr(source, '__all__', None)
            for attr, value in vars(source).items():
                if attr.startswith('__') or (public is not None and attr not in public):
                    continue
                vars(module).setdefault(attr, value)
        module.__doc__ = ('Chainer\'s %s: the names of %s.'
                          % (module.__name__, ', '.join(sources)))


class _ChainerFinder(importlib.abc.MetaPathFinder):
    """The ``sys.meta_path`` entry that maps ``chainer``/``chainerx`` names to chainlite."""

    def find_spec(self, fullname: str, path: Any = None,
                  target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if not _is_chainer_name(fullname):
            return None
        if fullname in _MERGED:
            return importlib.machinery.ModuleSpec(fullname, _MergedLoader())
        lite = chainlite_name(fullname)
        spec = None
        if lite is not None:
            try:
                spec = importlib.util.find_spec(lite)
            except ModuleNotFoundError:
                spec = None
        if spec is None or lite is None:
            raise ModuleNotFoundError(_not_implemented(fullname), name=fullname)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(lite),
            is_package=spec.submodule_search_locations is not None)


def is_installed() -> bool:
    """Returns whether the ``chainer`` import hook is installed.

    Returns:
        True between :func:`install` and :func:`uninstall`.

    Example:
        >>> from chainlite import compat
        >>> compat.is_installed()
        False
    """
    return _finder is not None


def install(numpy_legacy: bool = False) -> None:
    """Makes ``import chainer`` (and ``chainer.*``, ``chainerx``) import chainlite.

    Puts a finder at the front of ``sys.meta_path``, so an installed Chainer cannot be mixed
    in: any ``chainer``/``chainerx`` modules already in ``sys.modules`` are set aside until
    :func:`uninstall`. The chainlite modules get a module ``__getattr__`` whose error says
    which Chainer name chainlite lacks. Installing twice does nothing.

    Args:
        numpy_legacy: Also put back the names NumPy 2 removed (``numpy.float``,
            ``numpy.asscalar``, ...) for code written for NumPy 1:
            :func:`install_numpy_legacy`, off by default; :func:`uninstall` removes them.

    Example:
        >>> from chainlite import compat
        >>> compat.install()
        >>> import chainer.links as L
        >>> import chainlite.links
        >>> L is chainlite.links
        True
        >>> compat.uninstall()
    """
    global _finder, _legacy_by_install
    if numpy_legacy and not numpy_legacy_module.is_numpy_legacy_installed():
        numpy_legacy_module.install_numpy_legacy()
        _legacy_by_install = True
    if _finder is not None:
        return
    import chainlite  # the chainlite modules a script sees first
    _attributes_before.update(a for a in _RENAMED_ATTRIBUTES if a in vars(chainlite))
    for name in [n for n in sys.modules if _is_chainer_name(n)]:
        _saved_modules[name] = sys.modules.pop(name)
    for name, module in list(sys.modules.items()):
        if (name == 'chainlite' or name.startswith('chainlite.')) and module is not None:
            _patch(module)
    _finder = _ChainerFinder()
    sys.meta_path.insert(0, _finder)
    importlib.invalidate_caches()


def uninstall() -> None:
    """Removes the hook of :func:`install` and restores ``sys.modules`` as it was.

    The ``chainer``/``chainerx`` aliases leave ``sys.modules``, the modules set aside by
    :func:`install` come back, and the chainlite modules lose the added ``__getattr__``.
    Uninstalling when not installed does nothing.

    Example:
        >>> from chainlite import compat
        >>> compat.install(); compat.uninstall()
        >>> import sys
        >>> 'chainer' in sys.modules
        False
    """
    global _finder, _legacy_by_install
    if _legacy_by_install:
        numpy_legacy_module.uninstall_numpy_legacy()
        _legacy_by_install = False
    if _finder is None:
        return
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _finder]
    _finder = None
    for name in [n for n in sys.modules if _is_chainer_name(n)]:
        module = sys.modules.pop(name)
        if name in _MERGED:
            # Importing it set an attribute of its chainlite parent: that belongs to the hook.
            parent, _, attr = name.rpartition('.')
            parent_module = sys.modules.get(chainlite_name(parent) or '')
            if parent_module is not None and vars(parent_module).get(attr) is module:
                delattr(parent_module, attr)
    sys.modules.update(_saved_modules)
    _saved_modules.clear()
    _unpatch_all()
    # Importing chainer.cuda sets the attribute chainlite.cuda: it belongs to the hook.
    chainlite = sys.modules['chainlite']
    for attr in _RENAMED_ATTRIBUTES:
        if attr not in _attributes_before:
            vars(chainlite).pop(attr, None)
    _attributes_before.clear()
    importlib.invalidate_caches()
