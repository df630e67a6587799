"""Class decorators that turn one test class into one class per parameter set.

Each parameter set is a dict; its entries become class attributes of a generated subclass
(named ``<Base>_param_<i>_{k=v, ...}``) that lives in the base class's module, so pytest and
unittest both collect it. Functions in a parameter set become static methods, so ``self.f(x)``
calls them without ``self``.
"""
from __future__ import annotations

import functools
import itertools
import types
import unittest
from typing import Any, Callable, Dict, Iterable, List

from chainlite.testing import _bundle

_MAX_VALUE_CHARS = 100


def _value_text(value: Any) -> str:
    name = getattr(value, '__name__', None)
    text = name if isinstance(name, str) else repr(value)
    if len(text) > _MAX_VALUE_CHARS:
        keep = (_MAX_VALUE_CHARS - 3) // 2
        text = text[:keep] + '...' + text[-keep:]
    return text


def _class_name(base: type, index: int, param: dict) -> str:
    items = ', '.join('%s=%s' % (k, _value_text(v)) for k, v in sorted(param.items()))
    return '%s_param_%d_{%s}' % (base.__name__, index, items)


def _add_parameters_to_failure(base: type, param: dict) -> Callable:
    def wrap(method: Callable) -> Callable:
        @functools.wraps(method)
        def test(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (unittest.SkipTest, KeyboardInterrupt):
                raise
            except Exception as e:
                if type(e).__name__ == 'Skipped':  # pytest.skip() inside the test
                    raise
                lines = ['Parameterized test failed.', '',
                         'Base test method: %s.%s' % (base.__name__, method.__name__),
                         'Test parameters:']
                lines += ['  %s: %r' % (k, v) for k, v in sorted(param.items())]
                e.add_note('\n'.join(lines))
                raise
        return test
    return wrap


def _generate(base: type, params: List[dict]) -> Iterable[_bundle.Spec]:
    for i, param in enumerate(params):
        attributes = {k: staticmethod(v) if isinstance(v, types.FunctionType) else v
                      for k, v in param.items()}

        def __str__(self, _param=param):
            return '%s  parameter: %s' % (unittest.TestCase.__str__(self)
                                          if isinstance(self, unittest.TestCase)
                                          else object.__str__(self), _param)

        attributes['__str__'] = __str__
        yield _class_name(base, i, param), attributes, _add_parameters_to_failure(base, param)


def parameterize(*params: Dict[str, Any]) -> Callable[[Any], _bundle.CaseBundle]:
    """Class decorator generating one test class per parameter set.

    Works on ``unittest.TestCase`` subclasses and on plain pytest-style classes, and stacks
    with itself, :func:`inject_backend_tests` and :func:`fix_random`. The decorated name is
    bound to a bundle of the generated classes (not a class), so the unparameterized base is
    not collected. A failing test gets its parameter set appended to the error message.

    Args:
        *params: Dicts mapping attribute names to values, one per generated class.

    Returns:
        The class decorator.

    Example:
        >>> import numpy as np
        >>> @parameterize({'shape': (2,)}, {'shape': ()})
        ... class TestZeros:
        ...     def test_shape(self):
        ...         assert np.zeros(self.shape).shape == self.shape
        >>> [c.__name__ for c in TestZeros.classes]
        ['TestZeros_param_0_{shape=(2,)}', 'TestZeros_param_1_{shape=()}']
    """
    for p in params:
        if not isinstance(p, dict):
            raise TypeError('parameterize: each parameter set must be a dict, got %r' % (p,))
    return _bundle.make_decorator(lambda base: _generate(base, list(params)))


def from_pytest_parameterize(names: str, values: Iterable) -> List[dict]:
    """Converts pytest-style ``(names, values)`` into a list of parameter dicts.

    Args:
        names: Comma-separated attribute names, e.g. ``'shape,dtype'``.
        values: One tuple per parameter set (a bare value when there is one name).

    Returns:
        A list of dicts for :func:`parameterize`.

    Example:
        >>> from_pytest_parameterize('a,b', [(1, 2), (3, 4)])
        [{'a': 1, 'b': 2}, {'a': 3, 'b': 4}]
    """
    if not isinstance(names, str):
        raise TypeError('names must be a comma-separated str, got %r' % (names,))
    keys = [k.strip() for k in names.split(',')]
    result = []
    for value in values:
        if len(keys) == 1:
            value = (value,)
        if not isinstance(value, (tuple, list)) or len(value) != len(keys):
            raise ValueError('%r does not give one value for each of %s' % (value, keys))
        result.append(dict(zip(keys, value)))
    return result


def parameterize_pytest(names: str, values: Iterable) -> Callable[[Any], _bundle.CaseBundle]:
    """:func:`parameterize` taking pytest's ``parametrize`` arguments.

    Args:
        names: Comma-separated attribute names.
        values: One tuple per parameter set.

    Returns:
        The class decorator.
    """
    return parameterize(*from_pytest_parameterize(names, values))


def product(parameter: Any) -> List[dict]:
    """All combinations of parameter values, as parameter dicts.

    Args:
        parameter: Either a dict mapping a name (or comma-separated names) to a list of
            values (tuples of values for several names), or a list of lists of dicts, whose
            dicts are merged across lists as in :func:`product_dict`.

    Returns:
        A list of dicts for :func:`parameterize`; with a dict argument the names vary in
        sorted order, the last fastest.

    Example:
        >>> product({'dtype': ['f', 'd'], 'n': [1, 2]})
        [{'dtype': 'f', 'n': 1}, {'dtype': 'f', 'n': 2}, {'dtype': 'd', 'n': 1}, {'dtype': 'd', 'n': 2}]
    """  # noqa: E501
    if isinstance(parameter, dict):
        return product_dict(*[from_pytest_parameterize(names, values)
                              for names, values in sorted(parameter.items())])
    if isinstance(parameter, list):
        if not all(isinstance(group, list) and all(isinstance(d, dict) for d in group)
                   for group in parameter):
            raise TypeError('product: a list argument must be a list of lists of dicts')
        return product_dict(*parameter)
    raise TypeError('product: parameter must be a dict or a list, got %s'
                    % type(parameter).__name__)


def product_dict(*parameters: List[dict]) -> List[dict]:
    """Merges one dict from each list, for every combination.

    Args:
        *parameters: Lists of dicts.

    Returns:
        One merged dict per element of the Cartesian product of the lists.

    Example:
        >>> product_dict([{'a': 1}, {'a': 2}], [{'b': 0, 'c': 0}])
        [{'a': 1, 'b': 0, 'c': 0}, {'a': 2, 'b': 0, 'c': 0}]
    """
    return [{k: v for d in combination for k, v in d.items()}
            for combination in itertools.product(*parameters)]


# The full product under the name Chainer's own tests check ``product_dict`` against (Chainer
# keeps it there when its test configuration swaps in a pairwise variant; chainlite has none).
_product_dict_orig = product_dict
