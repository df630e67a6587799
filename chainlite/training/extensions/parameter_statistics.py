"""ParameterStatistics: summary statistics of parameters and gradients, reported over time."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union, cast

import numpy

from chainlite import backend
from chainlite import reporter
from chainlite.training import extension
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec


def _xp(x: Any) -> Any:
    return backend.get_array_module(x)


_default_statistics = {
    'mean': lambda x: _xp(x).mean(x),
    'std': lambda x: _xp(x).std(x),
    'min': lambda x: _xp(x).min(x),
    'max': lambda x: _xp(x).max(x),
    'zeros': lambda x: _xp(x).count_nonzero(x == 0),
    'percentile': lambda x: _xp(x).percentile(
        x, (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)),
}


class ParameterStatistics(extension.Extension):
    """Reports statistics of the parameters (and gradients) of links, averaged over intervals.

    Each call computes, for every parameter of every link, each statistic function on the
    flattened ``data`` and/or ``grad``, and adds them to a summary; when ``trigger`` fires,
    the means are reported and the summary restarts. Keys read
    ``'{prefix}/{link name}{parameter path}/{data or grad}/{statistic}'``, e.g.
    ``'None/l1/W/data/mean'`` for a root link (whose ``name`` is None, as in Chainer); a
    statistic returning several values gets ``'/0'``, ``'/1'``... appended.

    Parameters without an array (uninitialized) or without a gradient are skipped.

    Args:
        links: A link or a list/tuple of links.
        statistics: Statistic functions by name (each takes a 1-d array and returns a number
            or an array of numbers); ``'default'`` for :attr:`default_statistics` (mean, std,
            min, max, zeros, percentile), None for none.
        report_params: Whether to report statistics of the parameter values.
        report_grads: Whether to report statistics of the gradients.
        prefix: A prefix for the keys.
        trigger: When to report the averages: a trigger or ``(period, unit)``.
        skip_nan_params: If True, a parameter array containing NaN reports NaN for every
            statistic without computing it.

    Example:
        >>> from types import SimpleNamespace
        >>> import numpy as np
        >>> import chainlite
        >>> import chainlite.links as L
        >>> from chainlite.training import extensions
        >>> model = L.Linear(2, 3, initialW=np.ones((3, 2), np.float32))
        >>> ext = extensions.ParameterStatistics(model, {'max': np.max}, report_grads=False,
        ...                                      trigger=(1, 'iteration'))
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=1, epoch_detail=0.1))
        >>> observation = {}
        >>> with chainlite.Reporter().scope(observation):
        ...     ext(trainer)
        >>> sorted(observation.items())
        [('None/W/data/max', np.float32(1.0)), ('None/b/data/max', np.float32(0.0))]
    """

    default_name = 'parameter_statistics'
    priority = extension.PRIORITY_WRITER
    # prefix ends with '/' if given; param_name starts with '/'.
    report_key_template = '{prefix}{link_name}{param_name}/{attr_name}/{function_name}'
    default_statistics = _default_statistics

    def __init__(self, links: Link | Sequence[Link],
                 statistics: Union[str, dict[str, Callable[[Any], Any]], None] = 'default',
                 report_params: bool = True, report_grads: bool = True,
                 prefix: Optional[str] = None, trigger: TriggerSpec = (1, 'epoch'),
                 skip_nan_params: bool = False) -> None:
        self._links: Sequence[Link] = (links if isinstance(links, (list, tuple))
                                       else (cast('Link', links),))
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != 'default':
                raise ValueError("ParameterStatistics: statistics must be a dict, None or "
                                 "'default', got %r" % statistics)
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        self._attrs = [attr for attr, on in (('data', report_params), ('grad', report_grads))
                       if on]
        self._prefix = prefix
        self._trigger = triggers.get_trigger(trigger)
        self._summary = reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer: Trainer) -> None:
        """Adds the current statistics to the summary; reports the means when the trigger
        fires."""
        statistics = {}
        prefix = self._prefix + '/' if self._prefix else ''
        for link in self._links:
            link_name = getattr(link, 'name', 'None')
            for param_name, param in link.namedparams():
                for attr_name in self._attrs:
                    array = getattr(param, attr_name)
                    if array is None:
                        continue
                    # Flattened: statistic functions must not depend on the axes.
                    array = array.ravel()
                    has_nan = self._skip_nan_params and bool(_xp(array).isnan(array).any())
                    for function_name, function in self._statistics.items():
                        value: Any = numpy.nan if has_nan else function(array)
                        key = self.report_key_template.format(
                            prefix=prefix, link_name=link_name, param_name=param_name,
                            attr_name=attr_name, function_name=function_name)
                        if getattr(value, 'size', 1) > 1:
                            for i, v in enumerate(value):
                                statistics['%s/%d' % (key, i)] = v
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            reporter.report(self._summary.compute_mean())
            self._summary = reporter.DictSummary()

    def register_statistics(self, name: str, function: Callable[[Any], Any]) -> None:
        """Adds (or replaces) a statistic function.

        Args:
            name: The statistic's name, used in the keys.
            function: Takes a 1-d array, returns a number or an array of numbers.
        """
        self._statistics[name] = function
