"""Function hooks: callbacks around every function's forward and backward (Chainer's API).

A hook is active for every function applied in the current thread inside ``with hook:``, or
for one function after ``function.add_hook(hook)``. While no hook is registered anywhere,
``FunctionNode.apply`` pays a single check per call for this feature.
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Optional, Self

from chainlite import _hook_registry
from chainlite import function_node

_state = threading.local()


def get_function_hooks() -> collections.OrderedDict[str, FunctionHook]:
    """The function hooks active in this thread (a name -> hook ordered dict)."""
    return _hook_registry.get_hooks(_state)


def _count(delta: int) -> None:
    # function_node reads this module-level counter on its hot path.
    function_node._hooks_active += delta


class FunctionHook:
    """Base class of function hooks.

    Override any of :meth:`forward_preprocess`, :meth:`forward_postprocess`,
    :meth:`backward_preprocess`, :meth:`backward_postprocess`, :meth:`added`, :meth:`deleted`.
    Use it as a context manager to hook every function applied inside the block, or register
    it on one function with ``FunctionNode.add_hook``.

    Attributes:
        name: The key of the hook in the registries (the class name by default).

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> class Count(chainlite.FunctionHook):
        ...     name = 'Count'
        ...     def __init__(self):
        ...         self.labels = []
        ...     def forward_postprocess(self, function, in_data):
        ...         self.labels.append(function.label)
        >>> with Count() as hook:
        ...     _ = F.exp(F.sin(np.array([0.5])))
        >>> hook.labels
        ['sin', 'exp']
    """

    name = 'FunctionHook'

    def __enter__(self) -> Self:
        return _hook_registry.enter(get_function_hooks(), self, _count)

    def __exit__(self, *exc: Any) -> None:
        _hook_registry.exit(get_function_hooks(), self, _count)

    def added(self, function: Optional[Any] = None) -> None:
        """Called when the hook is registered (``function`` is None for a global hook)."""

    def deleted(self, function: Optional[Any] = None) -> None:
        """Called when the hook is unregistered (``function`` is None for a global hook)."""

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called before ``function.forward(in_data)``."""

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called after ``function.forward(in_data)``."""

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        """Called before ``function.backward``; ``out_grad`` holds the output gradient arrays."""

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        """Called after ``function.backward``."""


def hooks_for(function: Any) -> list[FunctionHook]:
    """The hooks that apply to ``function``: the thread's global ones, then its own."""
    hooks = list(get_function_hooks().values())
    local = function.__dict__.get('_local_function_hooks')
    if local:
        hooks.extend(local.values())
    return hooks
