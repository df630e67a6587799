"""Ready-made function hooks (Chainer's ``chainer.function_hooks``).

Use one as a context manager to observe every function applied in the block, or register it
on a single function with ``FunctionNode.add_hook``:

- :class:`TimerHook`: time spent in each function's forward and backward;
- :class:`PrintHook`: prints each function with a description of its inputs;
- :class:`MemoryHook`: bytes of the arrays each function's forward and backward return.
"""
from chainlite.function_hooks.debug_print import PrintHook  # noqa: F401
from chainlite.function_hooks.memory import MemoryHook  # noqa: F401
from chainlite.function_hooks.timer import TimerHook  # noqa: F401
