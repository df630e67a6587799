"""``CupyMemoryProfileHook``: the bytes each function takes from CuPy's memory pool (CUDA only).

CuPy is imported only when a hook is made, so :data:`MemoryHook` (the base class of CuPy's
memory hooks, in Chainer) is ``object`` here and :data:`memory_hook_available` False until
then; the hook itself registers a :class:`CupyMemoryCumulativeHook` derived from CuPy's own
``cupy.cuda.memory_hook.MemoryHook``, which CuPy's memory pool calls on every allocation.
Without CUDA, or with a CuPy that has no memory hooks (the tests' CuPy stand-in has none),
making a :class:`CupyMemoryProfileHook` raises RuntimeError saying which, as in Chainer. For
what chainlite can measure on the CPU, see :class:`chainlite.function_hooks.MemoryHook`.
"""
from __future__ import annotations

import collections
import functools
import sys
from typing import Any, TextIO

from chainlite import function_hook
from chainlite.backends import cuda

#: CuPy's ``cupy.cuda.memory_hook.MemoryHook``; ``object`` without CuPy.
MemoryHook: Any = object
#: Whether CuPy's memory hooks can be used: False without CuPy.
memory_hook_available = False

_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB']


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Measures the memory each function uses from CuPy's memory pool (Chainer's, CUDA only).

    Making one raises without CUDA or without CuPy's memory hooks; the report methods work
    on what :attr:`call_history` holds.

    Attributes:
        call_history: ``(function name, used bytes, acquired bytes, nesting depth)`` per call.

    Raises:
        RuntimeError: When made: CUDA is not available, or the CuPy in use has no memory
            hooks (``cupy.cuda.memory_hook``).

    Example:
        >>> from chainlite.function_hooks import cupy_memory_profile
        >>> try:
        ...     cupy_memory_profile.CupyMemoryProfileHook()
        ... except RuntimeError as e:
        ...     print('CUDA is not available' in str(e))
        True
    """

    name = 'CupyMemoryProfileHook'
    # Declared here: mypy sees __init__ end at the CUDA check.
    call_history: list
    _memory_hook: Any
    _running_stack: list
    _total_used_bytes: int
    _total_acquired_bytes: int
    _units = _UNITS
    _table = {unit: 1024.0 ** i for i, unit in enumerate(_UNITS)}

    def __init__(self) -> None:
        cuda.check_cuda_available()
        base = getattr(getattr(cuda.cupy.cuda, 'memory_hook', None), 'MemoryHook', None)
        if base is None:
            raise RuntimeError('CupyMemoryProfileHook needs CuPy\'s memory hooks '
                               '(cupy.cuda.memory_hook), which the CuPy in use (%s) lacks'
                               % cuda.cupy.__version__)
        self.call_history = []
        self._memory_hook = _cumulative_hook_class(base)()
        self._running_stack = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function: Any = None) -> None:
        self._memory_hook.__enter__()

    def deleted(self, function: Any = None) -> None:
        self._memory_hook.__exit__()

    def _preprocess(self) -> None:
        hook = self._memory_hook
        self._running_stack.append((hook.used_bytes, hook.acquired_bytes))

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._preprocess()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._preprocess()

    def _postprocess(self, function: Any) -> None:
        used_start, acquired_start = self._running_stack.pop()
        used = self._memory_hook.used_bytes - used_start
        acquired = self._memory_hook.acquired_bytes - acquired_start
        depth = len(self._running_stack)
        self.call_history.append((function._impl_name, used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        self._postprocess(function)

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._postprocess(function)

    def total_used_bytes(self) -> int:
        """Returns the bytes the outermost functions used from the pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Returns the bytes the pool acquired from the GPU for the outermost functions."""
        return self._total_acquired_bytes

    def summary(self) -> collections.OrderedDict:
        """Returns function name -> ``used_bytes``, ``acquired_bytes`` and ``occurrence``.

        Nested calls are counted in their own entry and in their caller's.
        """
        summary: collections.OrderedDict = collections.OrderedDict()
        for name, used, acquired, _ in self.call_history:
            record = summary.setdefault(name, {'used_bytes': 0, 'acquired_bytes': 0,
                                               'occurrence': 0})
            record['used_bytes'] += used
            record['acquired_bytes'] += acquired
            record['occurrence'] += 1
        return summary

    def _choose_unit(self, size: float) -> tuple:
        # The largest unit in which ``size`` is at least 1, with its divisor.
        denominator = 1.0
        if size <= 0:
            return denominator, _UNITS[0]
        for unit in _UNITS[:-1]:
            if size / (denominator * 1024) < 1:
                return denominator, unit
            denominator *= 1024
        return denominator, _UNITS[-1]

    def print_report(self, unit: str = 'auto', file: TextIO = sys.stdout) -> None:
        """Prints :meth:`summary` as a table.

        Args:
            unit: One of ``B``, ``KB``, ... ``ZB``; ``'auto'``: the unit of the largest value
                of each column; ``'auto_foreach'``: a unit per value.
            file: Where to write.
        """
        summary = self.summary()
        if unit == 'auto':
            used_unit = self._choose_unit(max(r['used_bytes'] for r in summary.values()))
            acquired_unit = self._choose_unit(
                max(r['acquired_bytes'] for r in summary.values()))
        elif unit != 'auto_foreach':
            used_unit = acquired_unit = (self._table[unit], unit)
        rows = [['FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence']]
        for name, record in summary.items():
            if unit == 'auto_foreach':
                used_unit = self._choose_unit(record['used_bytes'])
                acquired_unit = self._choose_unit(record['acquired_bytes'])
            rows.append([name,
                         '%3.2f%s' % (record['used_bytes'] / used_unit[0], used_unit[1]),
                         '%3.2f%s' % (record['acquired_bytes'] / acquired_unit[0],
                                      acquired_unit[1]),
                         str(record['occurrence'])])
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        template = '  '.join('{:>%d}' % w for w in widths)
        for row in rows:
            file.write(template.format(*row))
            file.write('\n')
        if hasattr(file, 'flush'):
            file.flush()


@functools.lru_cache(maxsize=None)
def _cumulative_hook_class(base: type) -> type:
    # CupyMemoryCumulativeHook on CuPy's MemoryHook, whose __enter__/__exit__ register it with
    # CuPy's memory pool.
    return type('CupyMemoryCumulativeHook', (CupyMemoryCumulativeHook, base), {})


class CupyMemoryCumulativeHook(MemoryHook):
    """A CuPy memory hook that adds up the bytes allocated (Chainer's).

    Attributes:
        used_bytes: The bytes taken from the memory pool so far.
        acquired_bytes: The bytes the pool acquired from the GPU so far.

    Example:
        >>> from chainlite.function_hooks import cupy_memory_profile
        >>> hook = cupy_memory_profile.CupyMemoryCumulativeHook()
        >>> hook.malloc_preprocess(mem_size=512); hook.alloc_preprocess(mem_size=1024)
        >>> hook.used_bytes, hook.acquired_bytes
        (512, 1024)
    """

    name = 'CupyMemoryCumulativeHook'

    def __init__(self) -> None:
        self.used_bytes = 0
        self.acquired_bytes = 0

    def alloc_preprocess(self, **kwargs: Any) -> None:
        """Counts bytes the pool acquires from the GPU."""
        self.acquired_bytes += kwargs['mem_size']

    def malloc_preprocess(self, **kwargs: Any) -> None:
        """Counts bytes taken from the pool."""
        self.used_bytes += kwargs['mem_size']
