"""``MemoryHook``: the bytes of the arrays each function's forward and backward produce.

Chainer's ``CupyMemoryProfileHook`` asks CuPy's GPU memory pool how many bytes each function
allocated. chainlite has no memory pool (every array is a NumPy array), so this hook counts
what the function *returns* instead: the ``nbytes`` of its output arrays after a forward, and
of the input gradients it computed after a backward. Temporaries freed inside the function
are not seen, and outputs that are views of their inputs (``reshape``, ``transpose``, ...)
are counted at their full size although they share memory. For the peak memory of a whole
program use :mod:`tracemalloc`, to which NumPy reports its allocations.
"""
from __future__ import annotations

import collections
import sys
from typing import Any, Optional, TextIO

from chainlite import function_hook
from chainlite.function_hooks.timer import _impl_name

_UNITS = {'B': 1, 'KB': 1024, 'MB': 1024 ** 2, 'GB': 1024 ** 3, 'TB': 1024 ** 4}


def _choose_unit(nbytes: float) -> tuple:
    for unit in ('TB', 'GB', 'MB', 'KB'):
        if nbytes >= _UNITS[unit]:
            return _UNITS[unit], unit
    return 1, 'B'


def _nbytes(a: Any) -> int:
    # An array, a Variable (what backward returns) or None.
    a = getattr(a, 'array', a)
    return 0 if a is None else int(getattr(a, 'nbytes', 0))


class MemoryHook(function_hook.FunctionHook):
    """Counts the bytes of the arrays each function class produces, forward and backward.

    After a forward it adds the ``nbytes`` of the function's outputs; after a backward, the
    ``nbytes`` of the gradients it returned. See the module's description for what this
    measures and what it does not (it is not an allocator count like Chainer's
    ``CupyMemoryProfileHook``).

    Attributes:
        call_history: ``(class name, bytes)`` per finished call.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> from chainlite.function_hooks import MemoryHook
        >>> x = chainlite.Variable(np.ones((10, 10), np.float32))
        >>> with MemoryHook() as hook:
        ...     y = F.sum(F.exp(x))
        ...     y.backward()
        >>> hook.summary()['Exp']   # 400 bytes out of forward, 400 bytes of gradient
        {'used_bytes': 800, 'occurrence': 2}
        >>> hook.total_used_bytes() >= 800
        True
    """

    name = 'MemoryHook'

    def __init__(self) -> None:
        self.call_history: list = []
        self._total = 0
        self._pending: dict = {}

    def _record(self, function: Any, nbytes: int) -> None:
        self.call_history.append((_impl_name(function), nbytes))
        self._total += nbytes

    # apply() and backward call ``function.forward`` / ``function.backward`` right after the
    # preprocess callbacks; an instance attribute set there wraps that one call, so the hook
    # sees the arrays it returns. The postprocess callbacks remove the wrapper again.

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Wraps this call's ``forward`` to see its outputs."""
        forward = function.forward

        def counted(inputs):
            outputs = forward(inputs)
            seq = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
            self._pending[id(function)] = sum(_nbytes(y) for y in seq)
            return outputs

        function.__dict__['forward'] = counted

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        """Records the bytes of the outputs just computed."""
        function.__dict__.pop('forward', None)
        self._record(function, self._pending.pop(id(function), 0))

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Wraps this call's ``backward`` to see the gradients it returns."""
        backward = function.backward

        def counted(indexes, grad_outputs):
            gxs = backward(indexes, grad_outputs)
            seq = gxs if isinstance(gxs, (tuple, list)) else (gxs,)
            self._pending[id(function)] = sum(_nbytes(g) for g in seq)
            return gxs

        function.__dict__['backward'] = counted

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Records the bytes of the input gradients just computed."""
        function.__dict__.pop('backward', None)
        self._record(function, self._pending.pop(id(function), 0))

    def total_used_bytes(self) -> int:
        """All the bytes counted so far."""
        return self._total

    def summary(self) -> dict:
        """Bytes per function class.

        Returns:
            An ordered dict, class name -> ``{'used_bytes': bytes, 'occurrence': calls}``,
            in order of first appearance.
        """
        summary: dict = collections.OrderedDict()
        for name, nbytes in self.call_history:
            record = summary.setdefault(name, {'used_bytes': 0, 'occurrence': 0})
            record['used_bytes'] += nbytes
            record['occurrence'] += 1
        return summary

    def print_report(self, unit: str = 'auto', file: Optional[TextIO] = None) -> None:
        """Prints the summary as a table: FunctionName, UsedBytes, Occurrence.

        Args:
            unit: ``'B'``, ``'KB'``, ``'MB'``, ``'GB'``, ``'TB'``, ``'auto'`` (the unit that
                suits the largest count, for all rows) or ``'auto_foreach'`` (one per row).
            file: Where to print (``sys.stdout`` by default).
        """
        if unit not in _UNITS and unit not in ('auto', 'auto_foreach'):
            raise ValueError('unit must be one of %s, auto or auto_foreach; got %r'
                             % (', '.join(_UNITS), unit))
        summary = self.summary()
        factor = _UNITS.get(unit, 1)
        if unit == 'auto':
            factor, unit = _choose_unit(max((r['used_bytes'] for r in summary.values()),
                                            default=0))
        rows = [('FunctionName', 'UsedBytes', 'Occurrence')]
        for name, record in summary.items():
            f, u = (_choose_unit(record['used_bytes']) if unit == 'auto_foreach'
                    else (factor, unit))
            rows.append((name, '%3.2f%s' % (record['used_bytes'] / f, u),
                         str(record['occurrence'])))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        template = '  '.join('{:>%d}' % w for w in widths)
        out = sys.stdout if file is None else file
        for row in rows:
            out.write(template.format(*row) + '\n')
        out.flush()
