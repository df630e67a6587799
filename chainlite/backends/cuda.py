"""The CUDA backend's public names, as ``chainer.backends.cuda``.

CuPy is not supported yet, so ``available`` is False; the names that scripts use on the CPU
(``to_cpu``, ``get_array_module``) work, and GPU requests fail with a clear message.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, NoReturn

import numpy

available = False
cudnn_enabled = False


class _NoCupy:
    """What ``cuda.cupy`` is without CuPy, as in Chainer: an object that no array module
    is, so ``xp is cuda.cupy`` is simply False."""

    def __repr__(self) -> str:
        return '<cupy: not available>'


cupy: Any = _NoCupy()


class ndarray:
    """Stands in for ``cupy.ndarray`` so ``isinstance(x, cuda.ndarray)`` is simply False."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_cuda_available()


def check_cuda_available() -> NoReturn:
    """Raises RuntimeError: CUDA (CuPy) is not available to chainlite."""
    raise RuntimeError('CUDA is not available: chainlite runs on NumPy on the CPU and has no '
                       'CuPy backend yet, so installing CuPy does not change this; use the CPU '
                       "(device -1 or '@numpy')")


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Returns ``array`` as a NumPy array (identity for NumPy arrays; lists and tuples are
    converted element by element, None stays None)."""
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a) for a in array)
    if isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, numpy.generic):
        return numpy.asarray(array)
    if hasattr(array, 'get'):
        return array.get()
    raise TypeError('to_cpu: an array is expected, got %s' % type(array))


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> NoReturn:
    """Raises RuntimeError: CUDA is not available."""
    check_cuda_available()


def get_array_module(*args: Any) -> Any:
    """Returns ``numpy`` (the only array module without CuPy)."""
    return numpy


def get_device_from_id(device_id: Any) -> Any:
    """Returns :data:`DummyDevice` for None (as Chainer); any GPU id raises RuntimeError, since
    CUDA is not available."""
    if device_id is None:
        return DummyDevice
    check_cuda_available()


def get_device_from_array(*arrays: Any) -> Any:
    """Returns :data:`DummyDevice`: as in Chainer for arrays none of which is on a GPU, which
    without CuPy is every array."""
    return DummyDevice


class DummyDeviceType:
    """The "no GPU" device of Chainer's cuda module: ``use()`` does nothing."""

    id = -1

    def use(self) -> None:
        """Does nothing."""

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __int__(self) -> int:
        return -1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __hash__(self) -> int:
        return -1


DummyDevice = DummyDeviceType()


def fuse(*args: Any, **kwargs: Any) -> Callable[..., Any]:
    """Without CuPy, returns the function unchanged (Chainer's fallback); usable as
    ``@fuse`` and ``@fuse(kernel_name=...)``."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


# Every cache made by memoize(), so that clear_memo() can empty them all.
_memos: list[dict[Any, Any]] = []


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Returns a decorator that caches a function's result for each set of arguments.

    As ``chainer.backends.cuda.memoize``, whose decorated functions (CUDA kernel source
    generators) are cached per argument; :func:`clear_memo` empties every cache. There is no
    GPU, so ``for_each_device`` changes nothing: all results belong to the CPU. Arguments must
    be hashable. (Chainer without CuPy makes this a pass-through; chainlite really caches, as
    Chainer with CuPy does.)

    Args:
        for_each_device: Whether to keep one cache per GPU device (one device here).

    Returns:
        A decorator.

    Example:
        >>> from chainlite.backends import cuda
        >>> calls = []
        >>> @cuda.memoize()
        ... def square(n):
        ...     calls.append(n)
        ...     return n * n
        >>> square(3), square(3), calls
        (9, 9, [3])
        >>> cuda.clear_memo(); square(3), calls
        (9, [3, 3])
    """
    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        memo: dict[Any, Any] = {}
        _memos.append(memo)

        @functools.wraps(f)
        def cached(*args: Any, **kwargs: Any) -> Any:
            key = (args, frozenset(kwargs.items()))
            try:
                return memo[key]
            except KeyError:
                result = memo[key] = f(*args, **kwargs)
                return result
        return cached
    return decorator


def clear_memo() -> None:
    """Empties the caches of every function decorated by :func:`memoize`."""
    for memo in _memos:
        memo.clear()


_CUDNN_LEVELS = ('==always', '>=auto')


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Returns False: there is no cuDNN. An unknown ``level`` raises ValueError as in Chainer.

    Args:
        level: ``'==always'`` or ``'>=auto'``.
        lowest_version: The cuDNN version a caller needs (ignored).

    Example:
        >>> from chainlite.backends import cuda
        >>> cuda.should_use_cudnn('>=auto')
        False
    """
    if level not in _CUDNN_LEVELS:
        raise ValueError('should_use_cudnn: invalid cuDNN use level %r (must be either of '
                         '"==always" or ">=auto")' % (level,))
    return False


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Returns False: there are no Tensor Cores without CUDA."""
    return False


from chainlite.backend import GpuDevice  # noqa: E402,F401  (Chainer's cuda.GpuDevice)


# -- the rest of Chainer's names, as Chainer defines them when CuPy does not import ---------------

class Device:
    """Stands in for ``cupy.cuda.Device`` as in Chainer without CuPy: a no-op context manager.

    Chainer defines it for annotations and ``isinstance`` checks; no chainlite device is one.

    Example:
        >>> with Device(None):
        ...     pass
    """

    def __init__(self, device: Any = None) -> None:
        pass

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *args: Any) -> None:
        pass


class Event:
    """Stands in for ``cupy.cuda.Event`` (for annotations; nothing creates one)."""


class Stream:
    """Stands in for ``cupy.cuda.Stream`` (for annotations; nothing creates one)."""


class _PerformanceWarning(Warning):
    # CuPy's PerformanceWarning where CuPy imports; a placeholder for warning filters here.
    pass


def get_device(*args: Any) -> Any:
    """Deprecated as in Chainer (warns): the CUDA device of the first id or GPU array.

    Use :func:`get_device_from_id` or :func:`get_device_from_array` instead.

    Returns:
        :data:`DummyDevice` (the CPU) when no argument is an integer id, as in Chainer.

    Raises:
        RuntimeError: An argument is an integer device id (CUDA is not available).

    Example:
        >>> import warnings, numpy
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     get_device(numpy.zeros(2)) is DummyDevice
        True
    """
    import warnings
    warnings.warn('get_device is deprecated. Please use get_device_from_id or '
                  'get_device_from_array instead.', DeprecationWarning, stacklevel=2)
    return _get_cuda_device(*args)


def _get_cuda_device(*args: Any) -> Any:
    # The first integer id selects a CUDA device (which raises here); otherwise the CPU.
    for arg in args:
        if type(arg) is not bool and isinstance(arg, (int, numpy.integer)):
            check_cuda_available()
    return DummyDevice


def _get_device_or_current(device: Any) -> NoReturn:
    # Chainer returns a cupy.cuda.Device (the current one for None); there is none.
    if device is not None and not (isinstance(device, (int, numpy.integer)) and device >= 0):
        raise ValueError('Invalid CUDA device specifier: {}'.format(device))
    check_cuda_available()


def _array_to_cpu(array: Any, stream: Any) -> Any:
    # One array (not a list) to NumPy; None stays None.
    return None if array is None else to_cpu(array)


def _array_to_gpu(array: Any, device: Any, stream: Any) -> NoReturn:
    check_cuda_available()


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> NoReturn:
    """Copies a CuPy array between devices in Chainer; raises RuntimeError (no CUDA) here."""
    check_cuda_available()


def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> NoReturn:
    """Creates a CuPy elementwise kernel in Chainer; raises RuntimeError (no CUDA) here."""
    check_cuda_available()


def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> NoReturn:
    """Creates a CuPy reduction kernel in Chainer; raises RuntimeError (no CUDA) here."""
    check_cuda_available()


def raw(code: str, name: str, *args: Any, **kwargs: Any) -> NoReturn:
    """Creates a CuPy raw kernel in Chainer; raises RuntimeError (no CUDA) here."""
    check_cuda_available()


def get_max_workspace_size() -> int:
    """Returns cuDNN's workspace size: 0, as Chainer does where cuDNN is not enabled."""
    return 0


def set_max_workspace_size(size: int) -> None:
    """Sets cuDNN's workspace size; does nothing, as Chainer where cuDNN is not enabled."""


def get_cudnn_dropout_states() -> NoReturn:
    """Raises RuntimeError, as Chainer does where cuDNN is not enabled."""
    raise RuntimeError('cuDNN is not enabled.')


def get_cudnn_dropout_states_core(thread_id: Any) -> NoReturn:
    """Raises RuntimeError: cuDNN's dropout states need CUDA."""
    check_cuda_available()


def _get_cudnn_tensor_layout_x(x_layout: Any) -> NoReturn:
    check_cuda_available()


def _get_cudnn_tensor_layout_w(w_layout: Any) -> NoReturn:
    check_cuda_available()
