"""``CUDAProfileHook``: NVTX ranges around each function, for NVIDIA's profilers (CUDA only)."""
from __future__ import annotations

from typing import Any

from chainlite import function_hook
from chainlite.backends import cuda


class CUDAProfileHook(function_hook.FunctionHook):
    """Marks each function's forward and backward as an NVTX range (Chainer's, CUDA only).

    Each forward runs inside the range ``'<label>.forward'`` and each backward inside
    ``'<label>.backward'`` (``cupy.cuda.nvtx.RangePush``/``RangePop``), which Nsight Systems
    and nvprof show on their timelines. As in Chainer, making one raises where CUDA is not
    available, and where the CuPy in use has no NVTX (the tests' CuPy stand-in has none).

    Raises:
        RuntimeError: CUDA is not available, or CuPy offers no NVTX; the message says which.

    Example:
        >>> from chainlite.function_hooks.cuda_profile import CUDAProfileHook
        >>> try:
        ...     CUDAProfileHook()
        ... except RuntimeError as e:
        ...     print('CUDA is not available' in str(e))
        True
    """

    name = 'CUDAProfileHook'
    _nvtx: Any

    def __init__(self) -> None:
        cuda.check_cuda_available()
        nvtx = getattr(cuda.cupy.cuda, 'nvtx', None)
        if nvtx is None or not getattr(nvtx, 'available', False):
            raise RuntimeError('nvtx is required for CUDAProfileHook: the CuPy in use (%s) '
                               'offers no NVTX (cupy.cuda.nvtx)' % cuda.cupy.__version__)
        self._nvtx = nvtx

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Opens the range ``'<label>.forward'``."""
        self._nvtx.RangePush(function.label + '.forward')

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        """Closes the forward's range."""
        self._nvtx.RangePop()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Opens the range ``'<label>.backward'``."""
        self._nvtx.RangePush(function.label + '.backward')

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Closes the backward's range."""
        self._nvtx.RangePop()
