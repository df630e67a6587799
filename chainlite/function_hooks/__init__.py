"""Ready-made function hooks (Chainer's ``chainer.function_hooks``).

Use one as a context manager to observe every function applied in the block, or register it
on a single function with ``FunctionNode.add_hook``:

- :class:`TimerHook`: time spent in each function's forward and backward;
- :class:`PrintHook`: prints each function with a description of its inputs;
- :class:`MemoryHook`: bytes of the arrays each function's forward and backward return;
- :class:`CUDAProfileHook`, :class:`CupyMemoryProfileHook`: Chainer's CUDA-only hooks (NVTX
  ranges, bytes from CuPy's memory pool), which raise RuntimeError when made without CUDA.

On GPU arrays :class:`TimerHook` times each function with CUDA events, as Chainer does.
"""
from chainlite.function_hooks.cuda_profile import CUDAProfileHook  # noqa: F401
from chainlite.function_hooks.cupy_memory_profile import CupyMemoryProfileHook  # noqa: F401
from chainlite.function_hooks.debug_print import PrintHook  # noqa: F401
from chainlite.function_hooks.memory import MemoryHook  # noqa: F401
from chainlite.function_hooks.timer import TimerHook  # noqa: F401
