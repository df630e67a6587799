"""``CUDAProfileHook``: NVTX ranges around each function, for NVIDIA's profilers (CUDA only)."""
from __future__ import annotations

from typing import Any

from chainlite import function_hook
from chainlite.backends import cuda


class CUDAProfileHook(function_hook.FunctionHook):
    """Marks each function's forward and backward as an NVTX range (Chainer's, CUDA only).

    chainlite has no CUDA backend, so making one raises, as Chainer does without CuPy.

    Raises:
        RuntimeError: Always: CUDA is not available.

    Example:
        >>> from chainlite.function_hooks.cuda_profile import CUDAProfileHook
        >>> try:
        ...     CUDAProfileHook()
        ... except RuntimeError as e:
        ...     print('CUDA is not available' in str(e))
        True
    """

    name = 'CUDAProfileHook'

    def __init__(self) -> None:
        cuda.check_cuda_available()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        cuda.cupy.cuda.nvtx.RangePush(function.label + '.forward')

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        cuda.cupy.cuda.nvtx.RangePop()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        cuda.cupy.cuda.nvtx.RangePush(function.label + '.backward')

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        cuda.cupy.cuda.nvtx.RangePop()
