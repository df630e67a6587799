"""Generation of test classes from a base class, shared by parameterize and inject_backend_tests.

A decorator built by :func:`make_decorator` replaces the decorated class with a
:class:`CaseBundle`, which is not a class, so neither pytest nor unittest collects the
unparameterized base; the generated subclasses are put into the base's module instead, where
both collect them. Decorators stack: applied to a bundle, one expands each of its classes and
takes the old ones out of the module.
"""
from __future__ import annotations

import collections
import inspect
import sys
from typing import Any, Callable, Iterable, Optional, Tuple


# A generated test class, its module's name and its name (Chainer's record of a case).
_TestCaseTuple = collections.namedtuple('_TestCaseTuple', ('klass', 'module_name', 'class_name'))


class CaseBundle:
    """The generated test classes, standing in for the decorated base class.

    Args:
        classes: The classes, or Chainer's ``_TestCaseTuple`` records of them.
    """

    def __init__(self, classes: list) -> None:
        self.classes = [c.klass if isinstance(c, _TestCaseTuple) else c for c in classes]

    @property
    def cases(self) -> list:
        """The classes as ``(klass, module_name, class_name)`` records (Chainer's view)."""
        return [_TestCaseTuple(c, c.__module__, c.__name__) for c in self.classes]

    def __repr__(self) -> str:
        return '<test classes %s>' % ', '.join(c.__name__ for c in self.classes)


_ParameterizedTestCaseBundle = CaseBundle  # Chainer's name


# A generator spec: (class name, class attributes, method wrapper). The wrapper receives each
# ``test_*`` method of the base and returns its replacement, or None to drop the test.
Spec = Tuple[str, dict, Callable[[Callable], Optional[Callable]]]


def classes_of(target: Any) -> list:
    """The classes a decorator applies to: the bundle's, or the class itself."""
    return list(target.classes) if isinstance(target, CaseBundle) else [target]


def _module_of(cls: type) -> Any:
    module = sys.modules.get(cls.__module__)
    if module is None:
        raise RuntimeError('cannot generate test classes: module %r of %s is not imported'
                           % (cls.__module__, cls.__qualname__))
    return module


def make_decorator(generate: Callable[[type], Iterable[Spec]]) -> Callable[[Any], CaseBundle]:
    """Returns a class decorator that makes test classes out of ``generate(base)``."""

    def decorator(target: Any) -> CaseBundle:
        generated = []
        for base in classes_of(target):
            module = _module_of(base)
            base_name = base.__name__
            if isinstance(target, CaseBundle) and getattr(module, base_name, None) is base:
                delattr(module, base_name)
            generated += [case.klass for case in
                          _generate_test_cases(module.__name__, base, generate)]
        return CaseBundle(generated)

    return decorator


def _generate_case(base: type, module: Any, cls_name: str, mb: dict,
                   method_generator: Callable[[Callable], Optional[Callable]]) -> Any:
    # Makes the subclass ``cls_name`` of ``base`` with the attributes ``mb`` and every test
    # method passed through ``method_generator``, and puts it into ``module``.
    members = dict(mb)
    for method_name, method in inspect.getmembers(base, inspect.isfunction):
        if method_name.startswith('test_'):
            # None hides the inherited test from both pytest and unittest.
            members[method_name] = method_generator(method)
    cls = type(cls_name, (base,), members)
    cls.__module__ = module.__name__
    cls.__qualname__ = cls_name
    setattr(module, cls_name, cls)
    return _TestCaseTuple(cls, module.__name__, cls_name)


def _generate_test_cases(module_name: str, base_class: type,
                         test_case_generator: Callable[[type], Iterable[Spec]]) -> list:
    # The cases ``test_case_generator(base_class)`` specifies, made and put into the module.
    module = sys.modules[module_name]
    return [_generate_case(base_class, module, name, members, wrap)
            for name, members, wrap in test_case_generator(base_class)]
