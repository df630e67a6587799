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
from typing import Any, Callable, Dict, Iterable, Iterator, List, Sequence

import numpy

from chainlite.testing import _bundle

_MAX_VALUE_CHARS = 100  # one parameter value in a class name
_MAX_PARAMS_CHARS = 5000  # all of them


def _param_to_str(obj: Any) -> str:
    # A parameter value in a class name: the name of a class, function or module, else repr.
    name = getattr(obj, '__name__', None)
    return name if isinstance(name, str) else repr(obj)


def _shorten(s: str, maxlen: int) -> str:
    # ``s`` cut down to ``maxlen`` characters by replacing its middle with '...'.
    if len(s) <= maxlen:
        return s
    head = (maxlen - 3) // 2
    tail = maxlen - 3 - head
    return s[:head] + '...' + s[len(s) - tail:]


def _make_class_name(base_class_name: str, i_param: int, param: dict) -> str:
    # ``<Base>_param_<i>_{k=v, ...}``, each value and the whole list shortened.
    items = ', '.join('%s=%s' % (k, _shorten(_param_to_str(v), _MAX_VALUE_CHARS))
                      for k, v in sorted(param.items()))
    return '%s_param_%d_{%s}' % (base_class_name, i_param,
                                  _shorten(items, _MAX_PARAMS_CHARS))


def _class_name(base: type, index: int, param: dict) -> str:
    return _make_class_name(base.__name__, index, param)


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


def _parameterize_test_case(base: type, i: int, param: dict) -> _bundle.Spec:
    # The spec of the class for parameter set ``i``: its name, attributes and method wrapper.
    attributes = {k: staticmethod(v) if isinstance(v, types.FunctionType) else v
                  for k, v in param.items()}

    def __str__(self):
        return '%s  parameter: %s' % (unittest.TestCase.__str__(self)
                                      if isinstance(self, unittest.TestCase)
                                      else object.__str__(self), param)

    attributes['__str__'] = __str__
    return _class_name(base, i, param), attributes, _add_parameters_to_failure(base, param)


def _parameterize_test_case_generator(base: type, params: Iterable[dict]
                                      ) -> Iterable[_bundle.Spec]:
    for i, param in enumerate(params):
        yield _parameterize_test_case(base, i, param)


_generate = _parameterize_test_case_generator


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


_values_to_dicts = from_pytest_parameterize  # Chainer's name


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


def _pairwise_product_dict(*parameters: List[dict]) -> List[dict]:
    # A subset of product_dict's combinations that still holds every pair of values of any
    # two lists (Chainer's CHAINER_TEST_PAIRWISE_PARAMETERIZATION); all of them for <= 2 lists.
    if len(parameters) <= 2:
        return _product_dict_orig(*parameters)
    return list(_pairwise_product_dict_iter(*parameters))


def _pairwise_product_dict_iter(*parameters: Iterable[dict]) -> Iterator[dict]:
    lists = [list(dicts) for dicts in parameters]
    for nd_index in sorted(_nd_indices_to_cover_each_2d([len(dicts) for dicts in lists])):
        yield {k: v for i, dicts in zip(nd_index, lists) for k, v in dicts[i].items()}


def _nd_indices_to_cover_each_2d(shape: Sequence[int]) -> Iterator[tuple]:
    # Walks all indices of an array of ``shape`` in a fixed shuffled order (seed 0) and
    # yields each one that covers a pair of (axis i, axis j) positions not covered yet.
    axes = range(len(shape))
    uncovered = {(i, j): set(itertools.product(range(shape[i]), range(shape[j])))
                 for i, j in itertools.combinations(axes, 2)}
    nd_indices = list(itertools.product(*[range(n) for n in shape]))
    numpy.random.RandomState(seed=0).shuffle(nd_indices)
    for nd_index in nd_indices:
        covers = False
        for i, j in itertools.combinations(axes, 2):
            pair = (nd_index[i], nd_index[j])
            if pair in uncovered[i, j]:
                uncovered[i, j].remove(pair)
                covers = True
        if covers:
            yield nd_index
