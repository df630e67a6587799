"""``static_code``: code with side effects that a static chain's replay must run every call."""
from __future__ import annotations

import functools
from typing import Any, Callable

from chainlite import function_node


def static_code(*dec_args: Any, **dec_kwargs: Any) -> Callable:
    """Marks a function (or method) to run on every call of a static chain.

    A chain whose forward is decorated with :func:`~chainlite.static_graph` runs its Python
    code only on the first call: later calls replay the recorded array operations. Code that
    must still run every time (a counter, a print, an array computed outside chainlite's
    functions) goes into a function decorated with ``static_code``; its calls are recorded
    in the schedule at the place they happened and repeated on every replay.

    Arrays the function shares with the rest of the schedule are passed in the keyword
    argument ``inputs`` (a list of arrays, replaced on replay by the arrays of the current
    call) and its results are returned as a tuple of arrays (or written in place into arrays
    passed as ``outputs``). Outside a static chain the function is simply called.

    Args:
        func_name (str): Optional name for the schedule's debug output (keyword only).

    Returns:
        The decorated function.

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> class Counted(chainlite.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.calls = 0
        ...         with self.init_scope():
        ...             self.l = L.Linear(3, 2)
        ...     @chainlite.static_code
        ...     def count(self):
        ...         self.calls += 1
        ...     @chainlite.static_graph
        ...     def forward(self, x):
        ...         self.count()
        ...         return self.l(x)
        >>> model = Counted()
        >>> x = np.ones((4, 3), np.float32)
        >>> _ = model(x); _ = model(x); _ = model(x)
        >>> model.calls
        3
    """
    def decorate(func: Callable, name: Any) -> Callable:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            recorder = function_node._recorder
            if recorder is None or recorder.depth:
                return func(*args, **kwargs)
            return recorder.record_code(func, name, args, kwargs)
        return wrapped

    if len(dec_args) == 1 and not dec_kwargs and callable(dec_args[0]):
        return decorate(dec_args[0], None)
    if dec_args:
        raise TypeError('static_code takes only the keyword argument func_name, got %d '
                        'positional arguments' % len(dec_args))
    unknown = set(dec_kwargs) - {'func_name'}
    if unknown:
        raise TypeError('static_code got unexpected keyword arguments %s; its only option is '
                        'func_name' % sorted(unknown))
    return lambda func: decorate(func, dec_kwargs.get('func_name'))


def static_forward_optimizations(func: Any, inputs: tuple) -> tuple:
    """Runs ``func.forward(inputs)`` so that a static chain being recorded records it.

    Chainer's ``FunctionNode.apply`` calls this in place of ``forward`` while a static
    schedule is recorded; chainlite's ``apply`` records by itself, so this is for code that
    runs a node's forward directly. Outside a recording it is simply ``func.forward(inputs)``.

    Args:
        func: A :class:`~chainlite.FunctionNode`.
        inputs: Its input arrays.

    Returns:
        The output arrays, as a tuple.

    Example:
        >>> import numpy as np
        >>> from chainlite.functions.math import exp
        >>> y, = static_forward_optimizations(exp.Exp(), (np.zeros(2, np.float32),))
        >>> y
        array([1., 1.], dtype=float32)
    """
    recorder = function_node._recorder
    if recorder is None:
        return tuple(func.forward(tuple(inputs)))
    return recorder.record(func, tuple(inputs))
