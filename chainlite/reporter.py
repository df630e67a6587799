"""Reporting observed values (losses, accuracies...) to whoever is listening.

Code anywhere in a model calls :func:`report`; a :class:`Reporter` made current with ``with``
collects the values into its ``observation`` dictionary, prefixing each key with the name of
the observer (usually a link) that reported it. :class:`Summary` and :class:`DictSummary`
average the collected values over many iterations, as the training loop's logs do.

The current reporters form a per-thread stack, so reporting outside any ``with reporter:``
block does nothing.
"""
from __future__ import annotations

import collections
import contextlib
import json
import numbers
import threading
import warnings
from typing import Any, Iterable, Iterator

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import variable
from chainlite.backends import cuda

_thread_local = threading.local()


def _reporters() -> list:
    # The stack of current reporters of this thread, created on first use.
    stack = getattr(_thread_local, 'reporters', None)
    if stack is None:
        stack = _thread_local.reporters = []
    return stack


def _detach(value: Any) -> Any:
    # A Variable is stored as a graph-free copy sharing its array and gradient, so that a
    # kept observation does not keep the whole computational graph alive.
    if not isinstance(value, variable.Variable):
        return value
    node = value.node
    ret = object.__new__(type(value))
    ret.__dict__.update(value.__dict__)
    ret._node = variable.VariableNode(node.shape, node.dtype, node.requires_grad, node.name)
    ret._node.grad_var = node.grad_var
    return ret


class Reporter:
    """Collects reported values into a dictionary, naming them after their observers.

    Observers are arbitrary objects (usually links) registered under a name; a value reported
    with an observer is stored as ``'<observer name>/<key>'``, one reported without as
    ``'<key>'``. ``with reporter:`` makes the reporter current, so that the module-level
    :func:`report` (called from inside models) reaches it.

    Attributes:
        observation: The dictionary the reported values are written to.

    Example:
        >>> from chainlite.reporter import Reporter, report
        >>> reporter = Reporter()
        >>> model = object()
        >>> reporter.add_observer('main', model)
        >>> observation = {}
        >>> with reporter.scope(observation):
        ...     report({'loss': 0.5}, model)
        ...     report({'lr': 0.1})
        >>> observation
        {'main/loss': 0.5, 'lr': 0.1}
    """

    def __init__(self) -> None:
        self._observer_names: dict = {}
        self.observation: dict = {}

    def __enter__(self) -> 'Reporter':
        """Makes this reporter the current one (of this thread)."""
        _reporters().append(self)
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        """Makes the previously current reporter current again."""
        _reporters().pop()

    @contextlib.contextmanager
    def scope(self, observation: dict) -> Iterator[None]:
        """Makes this reporter current and writes reported values to ``observation``.

        Both the current reporter and ``observation`` are restored on exit.

        Args:
            observation: The dictionary to write the values reported inside the block to.
        """
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name: str, observer: Any) -> None:
        """Registers an observer under a name.

        Args:
            name: The prefix of the values it reports.
            observer: Any object; observers are told apart by identity (``id``), not equality.
        """
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers: Iterable) -> None:
        """Registers several observers, named ``prefix + name``.

        Args:
            prefix: Prepended to each name, e.g. ``'main'`` with ``link.namedlinks()``.
            observers: ``(name, observer)`` pairs.
        """
        for name, observer in observers:
            self._observer_names[id(observer)] = prefix + name

    def report(self, values: dict, observer: Any = None) -> None:
        """Writes values to ``observation``, under the observer's name if one is given.

        A Variable is stored as a copy detached from the computational graph (sharing the
        array), unless ``chainlite.config.keep_graph_on_report`` is True.

        Args:
            values: The observed values, by name.
            observer: A registered observer, or None for unprefixed names.

        Raises:
            KeyError: If ``observer`` was not registered with :meth:`add_observer`.
        """
        if not configuration.config.keep_graph_on_report:
            values = {k: _detach(v) for k, v in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        name = self._observer_names.get(id(observer))
        if name is None:
            raise KeyError('Reporter.report: the observer %s is not registered; call '
                           'reporter.add_observer(name, observer) first'
                           % type(observer).__name__)
        for key, value in values.items():
            self.observation['%s/%s' % (name, key)] = value


def get_current_reporter() -> Reporter:
    """The current reporter of this thread (the innermost ``with reporter:``).

    Raises:
        IndexError: If no reporter is current.

    Example:
        >>> from chainlite.reporter import Reporter, get_current_reporter
        >>> reporter = Reporter()
        >>> with reporter:
        ...     get_current_reporter() is reporter
        True
    """
    stack = _reporters()
    if not stack:
        raise IndexError('get_current_reporter: no reporter is current; enter one with '
                         '"with reporter:" or "with reporter.scope(observation):"')
    return stack[-1]


def report(values: dict, observer: Any = None) -> None:
    """Reports values to the current reporter; does nothing if no reporter is current.

    Models call it to expose what they compute (a loss, an accuracy) to the training loop.

    Args:
        values: The observed values, by name.
        observer: The reporting object (usually ``self`` in a link), registered with the
            reporter; its name prefixes the keys. None for unprefixed keys.

    Example:
        >>> from chainlite.reporter import Reporter, report
        >>> report({'loss': 1.0})  # no current reporter: ignored
        >>> observation = {}
        >>> with Reporter().scope(observation):
        ...     report({'loss': 1.0})
        >>> observation
        {'loss': 1.0}
    """
    stack = _reporters()
    if stack:
        stack[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict) -> Iterator[None]:
    """Writes the values reported inside the block to ``observation``.

    Like ``get_current_reporter().scope(observation)``, without pushing the reporter again.

    Args:
        observation: The dictionary that receives the values.

    Raises:
        IndexError: If no reporter is current.

    Example:
        >>> from chainlite.reporter import Reporter, report, report_scope
        >>> observation = {}
        >>> with Reporter():
        ...     with report_scope(observation):
        ...         report({'x': 2})
        >>> observation
        {'x': 2}
    """
    current = get_current_reporter()
    old = current.observation
    current.observation = observation
    try:
        yield
    finally:
        current.observation = old


def _as_scalar(value: Any) -> Any:
    # The array of a Variable; None for anything that is not a single number.
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, (numbers.Number, numpy.number, numpy.bool_)):
        return value
    if getattr(value, 'ndim', None) == 0 and getattr(value, 'dtype', None) is not None \
            and value.dtype.kind in 'biufc':
        return value
    return None


class Summary:
    """Running (weighted) mean and standard deviation of a sequence of scalars.

    Only the weighted sums of the values and of their squares are kept.

    Example:
        >>> from chainlite import reporter
        >>> s = reporter.Summary()
        >>> s.add(1.0)
        >>> s.add(4.0, weight=2)
        >>> s.compute_mean()
        3.0
        >>> s.make_statistics()
        (3.0, np.float64(1.4142135623730951))
    """

    def __init__(self) -> None:
        self._x: Any = 0.0
        self._x2: Any = 0.0
        self._n: Any = 0

    def add(self, value: Any, weight: Any = 1) -> None:
        """Adds a value.

        Args:
            value: A Python or NumPy scalar, a 0-d array, or a Variable holding one.
            weight: Its weight (a scalar or 0-d array).
        """
        if isinstance(value, variable.Variable):
            value = value.array
        if isinstance(weight, variable.Variable):
            weight = weight.array
        if cuda.is_gpu_array(value):
            # Accumulated on the value's GPU (made current), without a copy to the host.
            with value.device:
                self._accumulate(value, weight)
            return
        self._accumulate(value, weight)

    def _accumulate(self, value: Any, weight: Any) -> None:
        self._x += weight * value
        self._x2 += weight * value * value
        self._n += weight

    def _check_nonempty(self, where: str) -> None:
        if numpy.all(self._n == 0):
            raise ZeroDivisionError('Summary.%s: no value (or only zero weights) was added'
                                    % where)

    def compute_mean(self) -> Any:
        """The weighted mean of the values added so far.

        Raises:
            ZeroDivisionError: If nothing (or only a total weight of 0) was added.
        """
        self._check_nonempty('compute_mean')
        with backend.get_device_from_array(self._x):
            return self._x / self._n

    def make_statistics(self) -> tuple:
        """The weighted mean and standard deviation of the values added so far.

        Returns:
            ``(mean, std)``.

        Raises:
            ZeroDivisionError: If nothing (or only a total weight of 0) was added.
        """
        self._check_nonempty('make_statistics')
        with backend.get_device_from_array(self._x) as device:
            xp = device.xp
            mean = self._x / self._n
            # Rounding can make E[x^2] - E[x]^2 slightly negative for (nearly) constant
            # values.
            var = xp.maximum(self._x2 / self._n - mean * mean, 0)
            return mean, xp.sqrt(var)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the running sums (``_x``, ``_x2``, ``_n``) through ``serializer``.

        Loading from a snapshot that lacks them warns and keeps the current state.
        """
        try:
            self._x = serializer('_x', self._x)
            self._x2 = serializer('_x2', self._x2)
            self._n = serializer('_n', self._n)
        except KeyError:
            warnings.warn('The previous statistics are not saved.')


class DictSummary:
    """Running means and standard deviations of the entries of a sequence of dictionaries.

    Only numeric scalars are summarized: numbers, 0-d arrays and Variables holding one. Other
    entries (arrays of more than one element, strings, None...) are ignored. A value given as
    a ``(value, weight)`` tuple is added with that weight.

    Example:
        >>> from chainlite import reporter
        >>> s = reporter.DictSummary()
        >>> s.add({'loss': 1.0, 'note': 'ignored'})
        >>> s.add({'loss': 3.0})
        >>> s.compute_mean()
        {'loss': 2.0}
        >>> s.make_statistics()
        {'loss': 2.0, 'loss.std': np.float64(1.0)}
    """

    def __init__(self) -> None:
        self._summaries: dict = collections.defaultdict(Summary)

    def add(self, d: dict) -> None:
        """Adds the numeric scalar entries of a dictionary.

        Args:
            d: Values by name; a ``(value, weight)`` tuple gives the value a weight.

        Raises:
            ValueError: If a weight is not a scalar.
        """
        summaries = self._summaries
        for key, value in d.items():
            weight = 1
            if isinstance(value, tuple):
                value, weight = value[0], value[1]
                weight = _as_scalar(weight)
                if weight is None:
                    raise ValueError('DictSummary.add: the weight given to %s is not a scalar'
                                     % (key,))
            value = _as_scalar(value)
            if value is not None:
                summaries[key].add(value, weight=weight)

    def compute_mean(self) -> dict:
        """The mean of each entry, by name."""
        return {name: s.compute_mean() for name, s in self._summaries.items()}

    def make_statistics(self) -> dict:
        """The mean of each entry under its name, and its standard deviation under
        ``'<name>.std'``."""
        stats = {}
        for name, s in self._summaries.items():
            stats[name], stats[name + '.std'] = s.make_statistics()
        return stats

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the summaries through ``serializer``.

        The entry names are stored as JSON under ``_names``, the summary of the ``i``-th name
        under ``_summaries/<i>``. Loading replaces every current entry; loading from a
        snapshot without names warns and leaves the summary empty.
        """
        current = self._summaries
        try:
            # A serializer returns the value it was given; a deserializer the stored one.
            names = json.loads(serializer('_names', json.dumps(list(current))))
        except KeyError:
            current.clear()
            warnings.warn('The names of statistics are not saved.')
            return
        summaries = collections.defaultdict(Summary)
        for index, name in enumerate(names):
            s = current.get(name, Summary())
            s.serialize(serializer['_summaries'][str(index)])
            summaries[name] = s
        self._summaries = summaries
