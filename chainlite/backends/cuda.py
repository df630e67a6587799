"""The CUDA backend's public names, as ``chainer.backends.cuda``: GPU arrays are CuPy's.

CuPy is imported the first time something asks for it (``cuda.available``, ``cuda.cupy``, a
``'@cupy:N'`` device, a CuPy array handed to chainlite), so ``import chainlite`` stays fast.
Without CuPy, or with CuPy but no usable GPU, ``available`` is False, everything on the CPU
works, and a GPU request raises one RuntimeError saying what is missing (CuPy, a driver, a
device). Tests put a strict NumPy-backed stand-in in CuPy's place
(:mod:`chainlite.testing.cupy_stand_in`).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, NoReturn, cast

import numpy

# Set by _load() on first use (module __getattr__), or by _install() (the tests' stand-in).
_loaded = False
_reason = ''
# The GPU array types (empty until CuPy is loaded and usable): the one check on hot paths.
_gpu_types: tuple = ()


class _NoCupy:
    """What ``cuda.cupy`` is without CuPy, as in Chainer: an object that no array module
    is, so ``xp is cuda.cupy`` is simply False."""

    def __repr__(self) -> str:
        return '<cupy: not available>'


class _NoNdarray:
    """Stands in for ``cupy.ndarray`` without CuPy, so ``isinstance(x, cuda.ndarray)`` is
    simply False."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_cuda_available()


def _load() -> None:
    """Imports CuPy and checks for a GPU, once; sets available, cupy, ndarray, cudnn."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    try:
        import cupy as module
    except ImportError as e:
        _set(None, 'CuPy is not installed (%s): install chainlite-dl[cuda12] or '
                   'chainlite-dl[cuda13] (cupy-cuda12x / cupy-cuda13x) on a machine with an '
                   'NVIDIA GPU' % e)
        return
    try:
        count = module.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDARuntimeError: no driver, or a driver too old
        _set(None, 'CuPy %s is installed but cannot use a GPU: %s (a GPU and its NVIDIA '
                   'driver are needed)' % (module.__version__, e))
        return
    if count < 1:
        _set(None, 'CuPy %s is installed but finds no GPU (a GPU and its NVIDIA driver are '
                   'needed)' % module.__version__)
        return
    _set(module, '')


def _set(module: Any, reason: str) -> None:
    global _reason, _gpu_types
    g = globals()
    _reason = reason
    if module is None:
        g.update(available=False, cupy=_NoCupy(), ndarray=_NoNdarray, cudnn_enabled=False,
                 cudnn=None)
        _gpu_types = ()
        return
    cudnn: Any = None
    if not getattr(module, '_is_stand_in', False):
        try:
            import cupy.cudnn
            cudnn = cupy.cudnn
        except Exception:  # CuPy without cuDNN
            cudnn = None
    g.update(available=True, cupy=module, ndarray=module.ndarray,
             cudnn_enabled=cudnn is not None, cudnn=cudnn)
    _gpu_types = (module.ndarray,)


def _install(module: Any, reason: str = '') -> tuple:
    """Puts ``module`` in CuPy's place (None: no CuPy) and returns what was there before.

    For tests: ``cupy_stand_in.installed()`` installs the stand-in and restores the previous
    state with ``_install(*previous)``.
    """
    global _loaded
    _load()
    previous = (globals()['cupy'] if globals()['available'] else None, _reason)
    _loaded = True
    _set(module, reason or ('' if module is not None else 'CuPy was removed'))
    clear_memo()
    return previous


def __getattr__(name: str) -> Any:
    if name in ('available', 'cupy', 'ndarray', 'cudnn_enabled', 'cudnn'):
        _load()
        return globals()[name]
    if name == 'cuda':  # Chainer's ``from cupy import cuda``, there only with CuPy
        _load()
        if globals()['available']:
            return globals()['cupy'].cuda
    raise AttributeError("module 'chainlite.backends.cuda' has no attribute %r" % name)


def _cupy() -> Any:
    """CuPy (or the stand-in); raises RuntimeError with the reason where there is none."""
    _load()
    if not globals()['available']:
        check_cuda_available()
    return globals()['cupy']


def check_cuda_available() -> None:
    """Raises RuntimeError saying what is missing unless a GPU can be used through CuPy."""
    _load()
    if not globals()['available']:
        raise RuntimeError('CUDA is not available: ' + _reason + "; or use the CPU (device "
                           "-1 or '@numpy')")


def is_gpu_array(array: Any) -> bool:
    """Whether ``array`` is a CuPy array (False for everything while CuPy is not in use)."""
    return bool(_gpu_types) and isinstance(array, _gpu_types)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Returns ``array`` as a NumPy array (a copy from the GPU for a CuPy array).

    NumPy arrays are returned as they are, NumPy scalars become 0-d arrays; lists and tuples
    are converted element by element; None stays None.
    """
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a) for a in array)
    if isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, numpy.generic):
        return numpy.asarray(array)
    if is_gpu_array(array):
        return array.get()
    if hasattr(array, 'get') and type(array).__module__.startswith('cupy'):
        return array.get()
    raise TypeError('to_cpu: an array is expected, got %s' % type(array))


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copies an array (or each array of a list or tuple) to a GPU; None stays None.

    Args:
        array: A NumPy or CuPy array, a NumPy scalar, or a list/tuple of them.
        device: The GPU: an id, a ``cupy.cuda.Device``, or None for the current one. A CuPy
            array already there is returned as it is.
        stream: Ignored (CuPy's current stream is used).

    Raises:
        RuntimeError: No GPU can be used (the message says why).
    """
    if isinstance(array, (list, tuple)):
        return type(array)(to_gpu(a, device) for a in array)
    return _array_to_gpu(array, device, stream)


def get_array_module(*args: Any) -> Any:
    """Returns ``cupy`` if any argument is a CuPy array (or a Variable holding one), else
    ``numpy``."""
    from chainlite import backend
    return backend.get_array_module(*args)


def get_device_from_id(device_id: Any) -> Any:
    """Returns the ``cupy.cuda.Device`` of an id, or :data:`DummyDevice` for None.

    Raises:
        RuntimeError: No GPU can be used.
    """
    if device_id is None:
        return DummyDevice
    return _cupy().cuda.Device(int(device_id))


def get_device_from_array(*arrays: Any) -> Any:
    """Returns the ``cupy.cuda.Device`` of the first CuPy array, or :data:`DummyDevice`."""
    for array in arrays:
        if is_gpu_array(array):
            return array.device
        inner = getattr(array, 'array', None)
        if inner is not None and is_gpu_array(inner):
            return inner.device
    return DummyDevice


class DummyDeviceType:
    """The "no GPU" device of Chainer's cuda module: ``use()`` does nothing."""

    id = -1

    def use(self) -> None:
        """Does nothing."""

    def synchronize(self) -> None:
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
    """``cupy.fuse`` where CuPy is in use; otherwise returns the function unchanged
    (Chainer's fallback). Usable as ``@fuse`` and ``@fuse(kernel_name=...)``."""
    _load()
    if globals()['available']:
        return globals()['cupy'].fuse(*args, **kwargs)
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


# Every cache made by memoize(), so that clear_memo() can empty them all.
_memos: list[dict[Any, Any]] = []


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Returns a decorator that caches a function's result for each set of arguments.

    As ``chainer.backends.cuda.memoize``, whose decorated functions (CUDA kernel source
    generators) are cached per argument; :func:`clear_memo` empties every cache. There is no
    ``for_each_device`` keeps one cache per current GPU. Arguments must be hashable. (Chainer
    without CuPy makes this a pass-through; chainlite always caches, as Chainer with CuPy
    does.)

    Args:
        for_each_device: Whether to keep one cache per GPU device.

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
            key: Any = (args, frozenset(kwargs.items()))
            if for_each_device and _gpu_types:
                key = (globals()['cupy'].cuda.get_device_id(), key)
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
    """Whether to call cuDNN, as Chainer decides: cuDNN is enabled in CuPy, and
    ``chainer.config.use_cudnn`` is ``'always'``, or ``'auto'`` with level ``'>=auto'``.

    Args:
        level: ``'==always'`` or ``'>=auto'``.
        lowest_version: The cuDNN version a caller needs.

    Raises:
        ValueError: An unknown ``level``.

    Example:
        >>> from chainlite.backends import cuda
        >>> cuda.should_use_cudnn('>=auto') == cuda.cudnn_enabled
        True
    """
    if level not in _CUDNN_LEVELS:
        raise ValueError('should_use_cudnn: invalid cuDNN use level %r (must be either of '
                         '"==always" or ">=auto")' % (level,))
    _load()
    if not globals()['cudnn_enabled']:
        return False
    if lowest_version > _cudnn_version():
        return False
    from chainlite import configuration
    config = configuration.config.use_cudnn
    if config == 'always':
        return True
    return config == 'auto' and level == '>=auto'


def _cudnn_version() -> int:
    try:
        return int(globals()['cudnn'].getVersion())
    except Exception:
        return 0


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN should use Tensor Cores for ``dtype``: as Chainer, float16 with
    ``config.use_cudnn_tensor_core`` ``'auto'`` (or ``'always'``) on a GPU that has them.

    Args:
        dtype: The computation's dtype.
    """
    from chainlite import configuration
    mode = getattr(configuration.config, 'use_cudnn_tensor_core', 'auto')
    if mode == 'always':
        return True
    if mode == 'never' or not should_use_cudnn('>=auto', 7000):
        return False
    if numpy.dtype(dtype) != numpy.float16:
        return False
    try:
        major = int(globals()['cupy'].cuda.Device().compute_capability) // 10
    except Exception:
        return False
    return major >= 7


from chainlite.backend import GpuDevice  # noqa: E402,F401  (Chainer's cuda.GpuDevice)


class Device:
    """``cupy.cuda.Device`` where CuPy is in use; otherwise, as in Chainer without CuPy, a
    no-op context manager.

    Example:
        >>> with Device(None):
        ...     pass
    """

    def __new__(cls, device: Any = None) -> Any:
        _load()
        if globals()['available']:
            return globals()['cupy'].cuda.Device(device)
        return super().__new__(cls)

    def __init__(self, device: Any = None) -> None:
        self.id = device

    def use(self) -> None:
        """Does nothing (no GPU)."""

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *args: Any) -> None:
        pass


class Event:
    """Stands in for ``cupy.cuda.Event`` in annotations (use ``cuda.cupy.cuda.Event``)."""


class Stream:
    """Stands in for ``cupy.cuda.Stream`` in annotations (use ``cuda.cupy.cuda.Stream``)."""


class _PerformanceWarning(Warning):
    # CuPy's PerformanceWarning where CuPy imports; a placeholder for warning filters here.
    pass


def get_device(*args: Any) -> Any:
    """Deprecated as in Chainer (warns): the CUDA device of the first id or GPU array.

    Use :func:`get_device_from_id` or :func:`get_device_from_array` instead.

    Returns:
        The ``cupy.cuda.Device`` of the first integer id or CuPy array; :data:`DummyDevice`
        (the CPU) when there is neither, as in Chainer.

    Raises:
        RuntimeError: An argument is an integer device id and no GPU can be used.

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
    # The first integer id or GPU array selects a CUDA device; otherwise the CPU.
    for arg in args:
        if type(arg) is not bool and isinstance(arg, (int, numpy.integer)):
            return get_device_from_id(int(arg))
        if is_gpu_array(arg):
            return cast(Any, arg).device
    return DummyDevice


def _get_device_or_current(device: Any) -> Any:
    # A cupy.cuda.Device for an id, a Device or None (the current one), as in Chainer.
    if device is None:
        return _cupy().cuda.Device()
    if type(device) is not bool and isinstance(device, (int, numpy.integer)):
        if device < 0:
            raise ValueError('Invalid CUDA device specifier: {}'.format(device))
        return _cupy().cuda.Device(int(device))
    if hasattr(device, 'id') and hasattr(device, 'use'):
        return device
    raise ValueError('Invalid CUDA device specifier: {}'.format(device))


def _array_to_cpu(array: Any, stream: Any) -> Any:
    # One array (not a list) to NumPy; None stays None.
    return None if array is None else to_cpu(array)


def _array_to_gpu(array: Any, device: Any, stream: Any) -> Any:
    if array is None:
        return None
    cp = _cupy()
    dev = _get_device_or_current(device)
    if is_gpu_array(array):
        if array.device.id == dev.id:
            return array
        with dev:
            return cp.array(array, copy=True)
    if isinstance(array, numpy.generic):
        array = numpy.asarray(array)
    if not isinstance(array, numpy.ndarray):
        raise TypeError('to_gpu: a NumPy or CuPy array is expected, got %s' % type(array))
    with dev:
        return cp.asarray(array)


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copies a CuPy array, to ``out`` or to a new array on ``out_device``.

    Args:
        array: The CuPy array.
        out: An existing CuPy array to copy into.
        out_device: Where the new array goes (its id or Device); default the array's device.
        stream: Ignored.

    Raises:
        TypeError: ``array`` is not a CuPy array.
        RuntimeError: No GPU can be used.
    """
    cp = _cupy()
    if not is_gpu_array(array):
        raise TypeError('copy: a CuPy array is expected, got %s' % type(array))
    if out is None:
        dev = array.device if out_device is None else _get_device_or_current(out_device)
        with dev:
            return cp.array(array, copy=True)
    if out_device is not None:
        raise ValueError('copy: give out or out_device, not both')
    out[...] = array
    return out


@functools.lru_cache(maxsize=None)
def _kernel(kind: str, *args: Any, **kwargs: Any) -> Any:
    return getattr(_cupy(), kind)(*args, **kwargs)


def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> Any:
    """Creates (once per argument set) a ``cupy.ElementwiseKernel``, as Chainer does.

    Raises:
        RuntimeError: No GPU can be used.
    """
    return _kernel('ElementwiseKernel', in_params, out_params, operation, name,
                   **kwargs)


def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    """Creates (once per argument set) a ``cupy.ReductionKernel``, as Chainer does.

    Raises:
        RuntimeError: No GPU can be used.
    """
    return _kernel('ReductionKernel', in_params, out_params, map_expr, reduce_expr,
                   post_map_expr, identity, name, **kwargs)


def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """Creates (once per argument set) a ``cupy.RawKernel``, as Chainer does.

    Raises:
        RuntimeError: No GPU can be used.
    """
    return _kernel('RawKernel', code, name, *args, **kwargs)


class using_device:
    """Makes the device of the first GPU array (or id) current inside a ``with`` block.

    As ``chainer.backends.cuda.using_device``: with no GPU array among the arguments, nothing
    changes.

    Args:
        *args: Arrays, Variables, device ids or None.
    """

    def __init__(self, *args: Any) -> None:
        self._device: Any = None
        for arg in args:
            inner = getattr(arg, 'array', arg)
            if is_gpu_array(inner):
                self._device = inner.device
                break
            if type(arg) is not bool and isinstance(arg, (int, numpy.integer)) and arg >= 0:
                self._device = get_device_from_id(int(arg))
                break

    def __enter__(self) -> Any:
        if self._device is not None:
            self._device.__enter__()
        return self._device

    def __exit__(self, *exc: Any) -> None:
        if self._device is not None:
            self._device.__exit__(*exc)


def get_max_workspace_size() -> int:
    """Returns cuDNN's workspace size (0 where cuDNN is not enabled, as Chainer)."""
    return _workspace_size[0] if globals().get('cudnn_enabled') else 0


_workspace_size = [8 * 1024 * 1024]


def set_max_workspace_size(size: int) -> None:
    """Sets cuDNN's workspace size (kept for the convolutions CuPy runs through cuDNN)."""
    _workspace_size[0] = int(size)


def get_cudnn_dropout_states() -> NoReturn:
    """Raises RuntimeError, as Chainer does where cuDNN is not enabled (chainlite's dropout
    draws its mask with the array module's random generator instead)."""
    raise RuntimeError('cuDNN is not enabled.')


def get_cudnn_dropout_states_core(thread_id: Any) -> NoReturn:
    """Raises RuntimeError: chainlite's dropout does not use cuDNN's dropout states."""
    raise RuntimeError('cuDNN dropout states are not used by chainlite (cuDNN is not '
                       'enabled for dropout)')


def _get_cudnn_tensor_layout_x(x_layout: Any) -> NoReturn:
    raise RuntimeError('cuDNN tensor layouts are not used by chainlite')


def _get_cudnn_tensor_layout_w(w_layout: Any) -> NoReturn:
    raise RuntimeError('cuDNN tensor layouts are not used by chainlite')
