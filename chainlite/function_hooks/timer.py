"""``TimerHook``: wall-clock time spent in each function's forward and backward."""
from __future__ import annotations

import collections
import sys
import time
from typing import Any, Optional, TextIO

import numpy

from chainlite import backend
from chainlite import function_hook

# Seconds -> the factor that turns them into each unit.
_UNITS = {'sec': 1.0, 'ms': 1e3, 'us': 1e6, 'ns': 1e9}


def _impl_name(function: Any) -> str:
    """The class name of the function (of the wrapped one for an old-style Function)."""
    inner = getattr(function, '_function', None)
    return type(inner if inner is not None else function).__name__


def _choose_unit(seconds: float) -> tuple:
    # The largest unit in which the value is at least 1 (ns for anything smaller).
    for unit in ('sec', 'ms', 'us'):
        if seconds * _UNITS[unit] >= 1:
            return _UNITS[unit], unit
    return _UNITS['ns'], 'ns'


def summarize(call_history: list) -> dict:
    """A timer hook's ``(name, seconds)`` calls summed per name, in order of first appearance.

    Args:
        call_history: ``(name, seconds)`` pairs.

    Returns:
        An ordered dict, name -> ``{'elapsed_time': seconds, 'occurrence': calls}``.
    """
    summary: dict = collections.OrderedDict()
    for name, elapsed in call_history:
        record = summary.setdefault(name, {'elapsed_time': 0.0, 'occurrence': 0})
        record['elapsed_time'] += elapsed
        record['occurrence'] += 1
    return summary


def write_time_table(summary: dict, first_column: str, unit: str, file: TextIO) -> None:
    """Writes a ``summary()`` of a timer hook as a right-aligned table (Chainer's layout).

    Args:
        summary: name -> ``{'elapsed_time': seconds, 'occurrence': count}``.
        first_column: The heading of the names' column.
        unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, ``'auto'`` (the unit of the largest
            time, for every row) or ``'auto_foreach'`` (a unit per row).
        file: Where to write.
    """
    if unit not in _UNITS and unit not in ('auto', 'auto_foreach'):
        raise ValueError('unit must be one of %s, auto or auto_foreach; got %r'
                         % (', '.join(_UNITS), unit))
    rows = [(first_column, 'ElapsedTime', 'Occurrence')]
    factor = _UNITS.get(unit, 1.0)
    if unit == 'auto':
        longest = max((r['elapsed_time'] for r in summary.values()), default=0.0)
        factor, unit = _choose_unit(longest)
    for name, record in summary.items():
        seconds = record['elapsed_time']
        if unit == 'auto_foreach':
            f, u = _choose_unit(seconds)
        else:
            f, u = factor, unit
        rows.append((name, '%3.2f%s' % (seconds * f, u), str(record['occurrence'])))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    template = '  '.join('{:>%d}' % w for w in widths)
    file.writelines(template.format(*row) + '\n' for row in rows)
    file.flush()


class TimerHook(function_hook.FunctionHook):
    """Measures the time each function spends in its forward and backward.

    Forward and backward calls of one function class are added together under its class name
    (``Exp``, ``LinearFunction``, ...). A function on GPU arrays is timed with CUDA events,
    as Chainer does: an event is recorded before and after it, and the hook waits for the
    second (so the time is the GPU's, and each timed call synchronizes the device). When
    functions run inside other functions (as with :func:`chainlite.functions.forget`), each
    is timed, but :meth:`total_time` counts only the outermost ones, so nothing is counted
    twice.

    Attributes:
        call_history: ``(class name, seconds)`` per finished call, in the order they ended.

    Example:
        >>> import io, numpy as np, chainlite.functions as F
        >>> from chainlite.function_hooks import TimerHook
        >>> with TimerHook() as hook:
        ...     y = F.sum(F.exp(np.ones((2, 3))))
        >>> sorted(hook.summary())
        ['Exp', 'Sum']
        >>> hook.summary()['Exp']['occurrence']
        1
        >>> out = io.StringIO(); hook.print_report(file=out)
        >>> out.getvalue().split()[:3]
        ['FunctionName', 'ElapsedTime', 'Occurrence']
    """

    name = 'TimerHook'

    def __init__(self) -> None:
        self.call_history: list = []
        self._running: list = []
        self._total_time = 0.0

    def _start(self, arrays: tuple) -> None:
        xp = backend.get_array_module(*arrays)
        if xp is numpy:
            self._running.append(time.perf_counter())
            return
        start, stop = xp.cuda.Event(), xp.cuda.Event()
        start.record()
        self._running.append((xp, start, stop))

    def _stop(self, function: Any) -> None:
        started = self._running.pop()
        if started.__class__ is float:
            elapsed = time.perf_counter() - started
        else:
            xp, start, stop = started
            stop.record()
            stop.synchronize()
            elapsed = xp.cuda.get_elapsed_time(start, stop) / 1000  # milliseconds
        self.call_history.append((_impl_name(function), elapsed))
        if not self._running:
            self._total_time += elapsed

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Starts the clock (records a CUDA event for GPU inputs)."""
        self._start(in_data)

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        """Stops the clock and records the forward's time."""
        self._stop(function)

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Starts the clock (records a CUDA event for GPU arrays)."""
        # The gradients too: inputs that backward does not need may be released (None).
        self._start(tuple(in_data) + tuple(out_grad))

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Stops the clock and records the backward's time."""
        self._stop(function)

    def total_time(self) -> float:
        """The seconds spent in all the (outermost) hooked calls."""
        return self._total_time

    def summary(self) -> dict:
        """Times per function class.

        Returns:
            An ordered dict, class name -> ``{'elapsed_time': seconds, 'occurrence': calls}``,
            in order of first appearance.
        """
        return summarize(self.call_history)

    def print_report(self, unit: str = 'auto', file: Optional[TextIO] = None) -> None:
        """Prints the summary as a table: FunctionName, ElapsedTime, Occurrence.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, ``'auto'`` (the unit that suits the
                largest time, for all rows) or ``'auto_foreach'`` (a unit per row).
            file: Where to print (``sys.stdout`` by default).
        """
        write_time_table(self.summary(), 'FunctionName', unit,
                         sys.stdout if file is None else file)
