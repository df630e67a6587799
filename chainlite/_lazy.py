"""Lazy re-exports: a package names its public objects up front and imports each on first use.

``import chainlite`` should cost little more than ``import numpy``: a training script touches
a few dozen of the library's several hundred modules. A package lists what it re-exports as
``{public name: module}`` and gets a module-level ``__getattr__`` (PEP 562) that imports the
module when the name is first looked up, then keeps the object in the package's namespace
(later lookups are plain attribute reads). ``dir()`` and ``from package import *`` see every
listed name.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Callable

_MISSING = object()


def attach(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any],
                                                            Callable[[], list], list]:
    """Makes ``package`` import its re-exported names on first use.

    Args:
        package: The package's ``__name__``.
        exports: Public name -> the module defining it: absolute (``'chainlite.link'``) or
            relative to the package (``'.activation.relu'``). A module re-exported under its
            own name maps the name to the module itself (``'links': 'chainlite.links'`` with
            the name equal to the module's last part).

    Returns:
        ``(__getattr__, __dir__, __all__)`` to assign in the package.

    Example:
        >>> import chainlite.functions as F
        >>> 'relu' in dir(F) and F.relu.__module__
        'chainlite.functions.activation.relu'
    """
    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            # A subpackage or module not imported yet (``chainlite.functions.math``): import
            # it, as the eager imports of old did.
            if name.startswith('__') or importlib.util.find_spec(
                    '%s.%s' % (package, name)) is None:
                raise AttributeError('module %r has no attribute %r' % (package, name))
            return importlib.import_module('%s.%s' % (package, name))
        module = importlib.import_module(target, package)
        value = getattr(module, name, _MISSING)
        if value is _MISSING:
            # The module itself (``'links': '.links'``), or a submodule of a package that
            # does not import it (``'type_check': '.utils'``).
            value = module if module.__name__.rpartition('.')[2] == name else \
                importlib.import_module('%s.%s' % (module.__name__, name))
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__, sorted(exports)
