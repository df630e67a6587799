"""``PrintHook``: prints each function and a description of its inputs as it runs."""
from __future__ import annotations

import sys
import warnings
from typing import Any, Optional, TextIO

import numpy

from chainlite import function_hook
from chainlite import variable


class PrintHook(function_hook.FunctionHook):
    """Prints, before each forward and backward, the function's label and its inputs.

    Every input is described by :meth:`chainlite.Variable.debug_print` (shape, dtype, mean
    and standard deviation); an input whose array was released is printed as ``(removed)``.
    Before a backward the output gradients follow, each as a zero-filled Variable whose
    ``grad`` is the gradient (so the ``grad:`` line holds its statistics), as Chainer does.

    Args:
        sep: Deprecated, unused (as in Chainer); giving it warns.
        end: The string written after each printed item.
        file: Where to print (``sys.stdout`` by default, looked up at each call).
        flush: Flush ``file`` after each function.

    Example:
        >>> import io, numpy as np, chainlite.functions as F
        >>> from chainlite.function_hooks import PrintHook
        >>> out = io.StringIO()
        >>> with PrintHook(file=out):
        ...     y = F.exp(np.zeros((2, 3), np.float32))
        >>> out.getvalue().splitlines()[0]
        'function\\texp'
        >>> '- shape: (2, 3)' in out.getvalue()
        True
    """

    name = 'PrintHook'

    def __init__(self, sep: Optional[str] = None, end: str = '\n',
                 file: Optional[TextIO] = None, flush: bool = True) -> None:
        if sep is not None:
            warnings.warn('the sep argument of PrintHook is deprecated and unused',
                          DeprecationWarning, stacklevel=2)
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, message: str) -> None:
        (sys.stdout if self.file is None else self.file).write(message + self.end)

    def _process(self, function: Any, in_data: tuple, out_grad: Optional[tuple] = None) -> None:
        self._print('function\t%s' % function.label)
        self._print('input data')
        for x in in_data:
            self._print('(removed)' if x is None else variable.Variable(x).debug_print())
        if out_grad is not None:
            self._print('output gradient')
            for g in out_grad:
                if g is None:
                    v = variable.Variable()
                else:
                    v = variable.Variable(numpy.zeros_like(g))
                    v.grad = g
                self._print(v.debug_print())
        file = sys.stdout if self.file is None else self.file
        if self.flush and hasattr(file, 'flush'):
            file.flush()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Prints the function and its inputs."""
        self._process(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Prints the function, its inputs and its output gradients."""
        self._process(function, in_data, out_grad)
