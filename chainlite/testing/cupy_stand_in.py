"""A strict stand-in for CuPy, backed by NumPy, to test the GPU paths on a machine without one.

CuPy installs and imports where there is no GPU, but its kernels fail there. This module builds
an array module from the *installed* CuPy's own namespace: every public name of ``cupy`` (and of
``cupy.random``, ``cupy.linalg``, ``cupy.fft``, ``cupy.lib.stride_tricks``,
``cupyx.scipy.special``) that NumPy or SciPy also has is computed by NumPy or SciPy, with
CuPy's signature where CuPy declares one; a name CuPy lacks is missing here too. Its array type,
like ``cupy.ndarray``:

- refuses implicit conversion to NumPy (``numpy.asarray(x)`` raises TypeError; use
  ``x.get()`` or ``cupy.asnumpy(x)``), as CuPy does;
- refuses to be mixed with NumPy arrays in operators, ufuncs and functions (NumPy *scalars*
  and Python numbers are accepted, as in CuPy); only the transfers ``array``/``asarray``
  take NumPy arrays;
- answers NumPy's dispatch (``numpy.sum(x)``, ``numpy.maximum(x, 0)``) with the stand-in's
  own function of that name, or a TypeError where CuPy has none;
- returns 0-dimensional arrays, not NumPy scalars, from reductions and scalar indexing.

Kernels written in CUDA C (``ElementwiseKernel``, ``ReductionKernel``, ``RawKernel``) cannot
run here: creating one works, calling it raises RuntimeError.

Example:
    >>> from chainlite.testing import cupy_stand_in  # doctest: +SKIP
    >>> with cupy_stand_in.installed() as cp:  # doctest: +SKIP
    ...     x = cp.arange(3.0)
    ...     float(cp.sum(x * 2))
    6.0
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import operator
import re
import time
import types
from typing import Any, Callable, Iterator, cast

import numpy

_REFUSED = ('Unsupported type %s: the stand-in CuPy array does not mix with NumPy arrays '
            '(send it to the device with cupy.asarray first)')
_IMPLICIT = ('Implicit conversion to a NumPy array is not allowed. Please use `.get()` to '
             'construct a NumPy array explicitly.')
# Functions that take host data on purpose (transfers to the device).
_TRANSFERS = frozenset({'array', 'asarray', 'asanyarray', 'ascontiguousarray',
                        'asfortranarray', 'copyto_host'})
# Joining functions: CuPy takes a sequence of CuPy arrays only.
_JOINS = frozenset({'concatenate', 'stack', 'vstack', 'hstack', 'dstack', 'column_stack'})
# Functions CuPy answers with a 0-d array where some NumPy releases return a Python number.
_ARRAY_RESULTS = frozenset({'count_nonzero'})
N_DEVICES = 2
_current_device = [0]


def _refuse(value: Any) -> None:
    raise TypeError(_REFUSED % type(value))


def _unwrap(value: Any) -> Any:
    """The NumPy array behind a stand-in array; NumPy arrays refused; containers walked."""
    cls = type(value)
    if cls is ndarray:
        return value._a
    if isinstance(value, numpy.ndarray):
        _refuse(value)
    if cls is list or cls is tuple:
        return cls(_unwrap(v) for v in value)
    return value


def _check_device(values: Any) -> None:
    """Refuses arrays of a GPU other than the current one, as CuPy's kernels do where the
    GPUs have no peer access to each other's memory (the strict case)."""
    for value in values:
        cls = type(value)
        if cls is ndarray:
            if value._device_id != _current_device[0]:
                raise ValueError(
                    'The device where the array resides (%d) is different from the current '
                    'device (%d). Peer access is unavailable between these devices.'
                    % (value._device_id, _current_device[0]))
        elif cls is list or cls is tuple:
            _check_device(value)


def _unwrap_host(value: Any) -> Any:
    """As :func:`_unwrap`, but NumPy arrays are taken (the transfers)."""
    cls = type(value)
    if cls is ndarray:
        return value._a
    if cls is list or cls is tuple:
        return cls(_unwrap_host(v) for v in value)
    return value


def _wrap(value: Any) -> Any:
    """Stand-in arrays for NumPy arrays and NumPy scalars (CuPy returns 0-d arrays)."""
    if isinstance(value, numpy.ndarray):
        return ndarray._from_numpy(value)
    if isinstance(value, numpy.generic):
        return ndarray._from_numpy(numpy.asarray(value))
    if isinstance(value, tuple):
        items = [_wrap(v) for v in value]
        return type(value)(*items) if hasattr(value, '_fields') else tuple(items)
    if type(value) is list:
        return [_wrap(v) for v in value]
    return value


class _KernelNeedsGpu(RuntimeError):
    pass


class ndarray:
    """The stand-in's ``cupy.ndarray``: a NumPy array that behaves like a device array.

    Args:
        shape: The shape of the new, uninitialized array.
        dtype: Its dtype.
        memptr: Not supported (must be None).
        strides: Not supported (must be None).
        order: ``'C'`` or ``'F'``.
    """

    __slots__ = ('_a', '_device_id', '__weakref__')
    __array_priority__ = 100.0
    __hash__ = None  # type: ignore[assignment]  # unhashable, as cupy.ndarray

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None,
                 strides: Any = None, order: str = 'C') -> None:
        if memptr is not None or strides is not None:
            raise TypeError('the stand-in cupy.ndarray takes no memptr or strides')
        self._a = numpy.empty(shape, dtype, order=cast(Any, order))
        self._device_id = _current_device[0]

    @classmethod
    def _from_numpy(cls, a: numpy.ndarray) -> ndarray:
        obj = object.__new__(cls)
        obj._a = a
        obj._device_id = _current_device[0]
        return obj

    # -- what makes it a device array --------------------------------------------------------

    def __array__(self, *args: Any, **kwargs: Any) -> numpy.ndarray:
        raise TypeError(_IMPLICIT)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        impl = _MODULE_UFUNCS.get(ufunc.__name__)
        if impl is None:
            return NotImplemented
        out = kwargs.get('out')
        if type(out) is tuple:
            # NumPy hands ``out`` over as a tuple; CuPy unfolds it (one array only).
            if len(out) != 1:
                raise ValueError("The 'out' parameter must have exactly one array value")
            kwargs['out'] = out[0]
        return getattr(impl, method)(*inputs, **kwargs)

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        impl = _DISPATCH.get(func)
        if impl is None:
            return NotImplemented
        return impl(*args, **kwargs)

    def get(self, stream: Any = None, order: str = 'C', out: Any = None,
            blocking: bool = True) -> numpy.ndarray:
        """Copies the array to the host (a NumPy array)."""
        if out is not None:
            numpy.copyto(out, self._a)
            return out
        return numpy.array(self._a, order=cast(Any, order))

    def set(self, arr: numpy.ndarray, stream: Any = None) -> None:
        """Copies a NumPy array of the same shape into this array."""
        if not isinstance(arr, numpy.ndarray):
            raise TypeError('Only numpy.ndarray can be set to cupy.ndarray')
        if arr.shape != self._a.shape:
            raise ValueError('Shape mismatch. Old shape: %s, new shape: %s'
                             % (self._a.shape, arr.shape))
        self._a[...] = arr

    @property
    def device(self) -> Any:
        """The stand-in ``cuda.Device`` the array lives on."""
        return cuda.Device(self._device_id)

    @property
    def data(self) -> Any:
        """A pointer-like object (the device memory; ``.ptr`` is the host address here).

        ``.mem`` is the whole allocation the array lives in (CuPy's ``MemoryPointer.mem``:
        ``.ptr`` its start, ``.size`` its bytes), here the host buffer that owns the memory.
        """
        owner: Any = self._a
        while isinstance(getattr(owner, 'base', None), numpy.ndarray) or hasattr(
                getattr(owner, 'base', None), '__array_interface__'):
            owner = owner.base
        if isinstance(owner, numpy.ndarray):
            start, size = owner.ctypes.data, owner.nbytes
        else:  # NumPy's stride-trick holder: its interface's start, up to this array's end
            start = owner.__array_interface__['data'][0]
            size = max(self._a.ctypes.data + self._a.nbytes - start, 0)
        mem = types.SimpleNamespace(ptr=start, size=size, device_id=self._device_id)
        return types.SimpleNamespace(ptr=self._a.ctypes.data, device_id=self._device_id,
                                     mem=mem)

    def __repr__(self) -> str:
        return repr(self._a).replace('array(', 'stand_in_cupy_array(', 1)

    def __str__(self) -> str:
        return str(self._a)

    def __format__(self, spec: str) -> str:
        return format(self._a, spec)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Iterator[Any]:
        if self._a.ndim == 0:
            raise TypeError('iteration over a 0-d array')
        return (self[i] for i in range(len(self._a)))

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        return operator.index(self._a)

    def __getitem__(self, key: Any) -> Any:
        return _on_device_of(self, _wrap(self._a[_unwrap(key)]))

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = _unwrap(value)

    def __copy__(self) -> ndarray:
        # On the array's own device, as CuPy's (which copies under ``with self.device``).
        obj = ndarray._from_numpy(self._a.copy())
        obj._device_id = self._device_id
        return obj

    def __deepcopy__(self, memo: Any) -> ndarray:
        return self.__copy__()

    def __reduce__(self) -> Any:
        return (_from_host, (self._a,))

    @property
    def shape(self) -> tuple:
        """The shape (settable, as in CuPy)."""
        return self._a.shape

    @shape.setter
    def shape(self, value: Any) -> None:
        self._a.shape = value


def _from_host(a: numpy.ndarray) -> ndarray:
    return ndarray._from_numpy(numpy.array(a))


def _binary(ufunc_name: str, reflected: bool = False, inplace: bool = False) -> Callable:
    def op(self: ndarray, other: Any) -> Any:
        if type(other) is not ndarray:
            if isinstance(other, numpy.ndarray):
                _refuse(other)
            if not isinstance(other, (int, float, complex, bool, numpy.generic)):
                return NotImplemented
        ufunc = _MODULE_UFUNCS[ufunc_name]
        if inplace:
            return ufunc(self, other, out=self)
        return ufunc(other, self) if reflected else ufunc(self, other)
    return op


_BINARY = {'add': 'add', 'sub': 'subtract', 'mul': 'multiply', 'truediv': 'divide',
           'floordiv': 'floor_divide', 'mod': 'remainder', 'pow': 'power',
           'matmul': 'matmul', 'and': 'bitwise_and', 'or': 'bitwise_or',
           'xor': 'bitwise_xor', 'lshift': 'left_shift', 'rshift': 'right_shift'}
for _op, _uf in _BINARY.items():
    setattr(ndarray, '__%s__' % _op, _binary(_uf))
    setattr(ndarray, '__r%s__' % _op, _binary(_uf, reflected=True))
    setattr(ndarray, '__i%s__' % _op, _binary(_uf, inplace=True))
for _op, _uf in {'lt': 'less', 'le': 'less_equal', 'gt': 'greater', 'ge': 'greater_equal',
                 'eq': 'equal', 'ne': 'not_equal'}.items():
    setattr(ndarray, '__%s__' % _op, _binary(_uf))
for _op, _uf in {'neg': 'negative', 'pos': 'positive', 'abs': 'absolute',
                 'invert': 'invert'}.items():
    setattr(ndarray, '__%s__' % _op,
            (lambda name: lambda self: _MODULE_UFUNCS[name](self))(_uf))


def _on_device_of(self: ndarray, value: Any) -> Any:
    # A method's results (views above all) live where the array's memory does, as in CuPy.
    if type(value) is ndarray:
        value._device_id = self._device_id
    elif type(value) is tuple or type(value) is list:
        for v in value:
            if type(v) is ndarray:
                v._device_id = self._device_id
    return value


def _method_signature(cupy_method: Any) -> inspect.Signature | None:
    """The signature CuPy's (Cython) method states in its docstring's first line, e.g.
    ``_ndarray_base.max(self, axis=None, out=None, keepdims=False) -> _ndarray_base``."""
    doc = (getattr(cupy_method, '__doc__', None) or '').split('\n', 1)[0]
    match = re.match(r'^[\w.]+\((.*)\)(\s*->.*)?$', doc)
    if match is None:
        return None
    namespace: dict = {}
    try:
        exec('def _f(%s): pass' % match.group(1), {}, namespace)
    except SyntaxError:
        return None
    return inspect.signature(namespace['_f'])


def _method(name: str, signature: inspect.Signature | None = None) -> Callable:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        if signature is not None:
            try:
                signature.bind(self, *args, **kwargs)
            except TypeError as e:  # a NumPy keyword CuPy's method lacks, e.g. initial=
                raise TypeError('cupy.ndarray.%s: %s' % (name, e)) from None
        return _on_device_of(self, _wrap(getattr(self._a, name)(
            *_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})))
    method.__name__ = name
    return method


def _attribute(name: str) -> property:
    def getter(self: ndarray) -> Any:
        value = getattr(self._a, name)
        return _on_device_of(self, _wrap(value)) if isinstance(value, numpy.ndarray) \
            else value

    def setter(self: ndarray, value: Any) -> None:
        setattr(self._a, name, _unwrap(value))
    # CuPy lets .real and .imag be assigned (written into the array), as NumPy does.
    return property(getter, setter if name in ('real', 'imag') else None)


def _out_of(kwargs: dict) -> Any:
    out = kwargs.get('out')
    if out is not None and type(out) is not ndarray and not (
            type(out) is tuple and all(type(o) is ndarray for o in out)):
        raise TypeError('out must be a stand-in cupy.ndarray, not %s' % type(out))
    return out


def _implemented(cupy_ufunc: Any, method: str) -> bool:
    # CuPy's ufuncs all have these methods, but most raise NotImplementedError (reduce and
    # accumulate: add and multiply only; at: the scatter ops). Called with None, an
    # implemented one fails on the argument instead.
    if not hasattr(cupy_ufunc, method):
        return False
    try:
        getattr(cupy_ufunc, method)(*(None,) * (1 if method in ('reduce', 'accumulate') else 2))
    except NotImplementedError:
        return False
    except Exception:
        pass
    return True


class _Ufunc:
    """A CuPy ufunc computed by NumPy's ufunc of the same name."""

    def __init__(self, np_ufunc: numpy.ufunc, cupy_ufunc: Any) -> None:
        self._np = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin = np_ufunc.nin
        self.nout = np_ufunc.nout
        self.nargs = np_ufunc.nargs
        self.types = np_ufunc.types
        self._methods = {m for m in ('reduce', 'accumulate', 'reduceat', 'outer', 'at')
                         if _implemented(cupy_ufunc, m)}

    def _call(self, method: str, args: Any, kwargs: dict) -> Any:
        if method != '__call__' and method not in self._methods:
            raise NotImplementedError("the installed CuPy's %s.%s is not supported"
                                      % (self.__name__, method))
        _out_of(kwargs)
        _check_device(args)
        _check_device(kwargs.values())
        fn = self._np if method == '__call__' else getattr(self._np, method)
        result = fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
        out = kwargs.get('out')
        if out is not None:
            return out
        return _wrap(result)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call('__call__', args, kwargs)

    def reduce(self, *args: Any, **kwargs: Any) -> Any:
        return self._call('reduce', args, kwargs)

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        return self._call('accumulate', args, kwargs)

    def reduceat(self, *args: Any, **kwargs: Any) -> Any:
        return self._call('reduceat', args, kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return self._call('outer', args, kwargs)

    def at(self, a: ndarray, indices: Any, b: Any = None) -> None:
        if 'at' not in self._methods:
            raise NotImplementedError("the installed CuPy's %s.at is not supported"
                                      % self.__name__)
        if type(a) is not ndarray:
            _refuse(a)
        if b is None:
            self._np.at(a._a, _unwrap(indices))
        else:
            self._np.at(a._a, _unwrap(indices), _unwrap(b))

    def __repr__(self) -> str:
        return '<stand-in cupy ufunc %s>' % self.__name__


_MODULE_UFUNCS: dict[str, _Ufunc] = {}
_DISPATCH: dict[Any, Callable] = {}


def _signature(obj: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _function(name: str, np_fn: Callable, cupy_fn: Any, transfer: bool) -> Callable:
    """A stand-in for ``cupy_fn`` computed by ``np_fn``, bound to CuPy's signature."""
    cupy_sig = _signature(cupy_fn)
    np_sig = _signature(np_fn)
    np_params = set(np_sig.parameters) if np_sig is not None else None
    takes_var_kw = np_sig is None or any(
        p.kind is p.VAR_KEYWORD for p in np_sig.parameters.values())
    unwrap = _unwrap_host if transfer else _unwrap

    joins = name in _JOINS

    def stand_in(*args: Any, **kwargs: Any) -> Any:
        if joins and args and not all(type(a) is ndarray for a in args[0]):
            # CuPy: 'Only cupy arrays can be concatenated' (lists and scalars refused).
            raise TypeError('cupy.%s: only cupy arrays can be joined, got %s'
                            % (name, [type(a).__name__ for a in args[0]]))
        dtype = None
        if cupy_sig is not None:
            try:
                cupy_sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError('cupy.%s: %s' % (name, e)) from None
            if np_params is not None and not takes_var_kw:
                # Keywords CuPy has and NumPy lacks: dtype is applied after; others dropped
                # when left at their defaults.
                for key in list(kwargs):
                    if key not in np_params:
                        value = kwargs.pop(key)
                        if key == 'dtype':
                            dtype = value
        _out_of(kwargs)
        if not transfer:
            _check_device(args)
            _check_device(kwargs.values())
        result = np_fn(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})
        if transfer and isinstance(result, numpy.ndarray) and (
                result.base is not None or any(result is a for a in args)):
            result = result.copy()  # a transfer never shares host memory
        if dtype is not None and isinstance(result, numpy.ndarray):
            result = result.astype(dtype, copy=False)
        if name in _ARRAY_RESULTS and isinstance(result, (int, float, bool)):
            result = numpy.asarray(result)  # NumPy 2.0 gives a Python number, CuPy an array
        if kwargs.get('out') is not None:
            return kwargs['out']
        return _wrap(result)

    stand_in.__name__ = name
    stand_in.__qualname__ = name
    stand_in.__doc__ = 'Stand-in for cupy.%s, computed by NumPy/SciPy.' % name
    if cupy_sig is not None:
        stand_in.__signature__ = cupy_sig  # type: ignore[attr-defined]
    return stand_in


def _populate(target: types.ModuleType, cupy_mod: Any, host_mods: list[Any],
              dispatch: bool) -> None:
    """Fills ``target`` with the names of ``cupy_mod`` that one of ``host_mods`` also has."""
    for name in dir(cupy_mod):
        if name.startswith('_') or hasattr(target, name):
            continue
        cupy_obj = getattr(cupy_mod, name)
        for host in host_mods:
            if not hasattr(host, name):
                continue
            host_obj = getattr(host, name)
            if isinstance(host_obj, numpy.ufunc):
                # Only the dispatching modules' ufuncs answer NumPy's ufuncs and operators:
                # scipy.special.log1p (float16 in, float64 out) is not cupy.log1p.
                uf = _MODULE_UFUNCS.setdefault(name, _Ufunc(host_obj, cupy_obj)) if dispatch \
                    else _Ufunc(host_obj, cupy_obj)
                setattr(target, name, uf)
            elif isinstance(host_obj, type) or not callable(host_obj) or isinstance(
                    host_obj, types.ModuleType):
                if isinstance(host_obj, types.ModuleType):
                    continue
                setattr(target, name, host_obj)  # dtypes, constants, finfo, ...
            else:
                fn = _function(name, host_obj, cupy_obj, name in _TRANSFERS)
                setattr(target, name, fn)
                if dispatch:
                    _DISPATCH[host_obj] = fn
            break


class _Kernel:
    """A CUDA C kernel: it can be created, but running one needs a real GPU."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs
        self.name = kwargs.get('name') or (args[-1] if args and isinstance(args[-1], str)
                                           else 'kernel')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise _KernelNeedsGpu('%s: a CUDA C kernel cannot run on the stand-in CuPy; it needs '
                              'a real GPU' % self.name)


class _Event:
    """The stand-in ``cupy.cuda.Event``: it records the host's clock (the stand-in computes
    synchronously, so a recorded event is always done)."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:
        self._time: float | None = None
        self._disable_timing = disable_timing

    def record(self, stream: Any = None) -> None:
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        pass

    @property
    def done(self) -> bool:
        return True


def _get_elapsed_time(start_event: _Event, end_event: _Event) -> float:
    # Milliseconds between two recorded events, as cupy.cuda.get_elapsed_time.
    if start_event._time is None or end_event._time is None:
        raise RuntimeError('cudaErrorInvalidResourceHandle: an event was not recorded')
    if start_event._disable_timing or end_event._disable_timing:
        raise RuntimeError('cudaErrorInvalidResourceHandle: an event has timing disabled')
    return (end_event._time - start_event._time) * 1e3


class _MemoryPool:
    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_all_blocks(self, stream: Any = None) -> None:
        pass


def _build_cuda() -> types.ModuleType:
    mod = types.ModuleType('cupy.cuda')

    class Device:
        """The stand-in ``cupy.cuda.Device``: an id that can be made current."""

        def __init__(self, device: Any = None) -> None:
            if device is None:
                device = _current_device[0]
            device = int(device)
            if not 0 <= device < N_DEVICES:
                raise RuntimeError('cudaErrorInvalidDevice: invalid device ordinal %d'
                                   % device)
            self.id = device
            self._previous: list[int] = []

        def use(self) -> None:
            _current_device[0] = self.id

        def synchronize(self) -> None:
            pass

        def __enter__(self) -> Any:
            self._previous.append(_current_device[0])
            _current_device[0] = self.id
            return self

        def __exit__(self, *exc: Any) -> None:
            _current_device[0] = self._previous.pop()

        def __int__(self) -> int:
            return self.id

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Device) and other.id == self.id

        def __hash__(self) -> int:
            return hash(('stand-in device', self.id))

        def __repr__(self) -> str:
            return '<CUDA Device %d>' % self.id

    mod.Device = Device  # type: ignore[attr-defined]
    mod.get_device_id = lambda: _current_device[0]  # type: ignore[attr-defined]
    mod.runtime = types.SimpleNamespace(  # type: ignore[attr-defined]
        getDeviceCount=lambda: N_DEVICES, getDevice=lambda: _current_device[0],
        runtimeGetVersion=lambda: 12000,
        driverGetVersion=lambda: 12000, is_hip=False)
    mod.is_available = lambda: True  # type: ignore[attr-defined]
    mod.Stream = types.SimpleNamespace  # type: ignore[attr-defined]
    mod.Event = _Event  # type: ignore[attr-defined]
    mod.get_elapsed_time = _get_elapsed_time  # type: ignore[attr-defined]
    mod.nccl = types.SimpleNamespace(available=False)  # type: ignore[attr-defined]
    mod.cudnn_enabled = False  # type: ignore[attr-defined]
    pool = _MemoryPool()
    mod.get_default_memory_pool = lambda: pool  # type: ignore[attr-defined]
    return mod


cuda = _build_cuda()


def build() -> types.ModuleType:
    """Builds the stand-in ``cupy`` module from the installed CuPy's namespace.

    Returns:
        A module object usable where ``cupy`` is expected (``.random``, ``.linalg``,
        ``.fft``, ``.lib.stride_tricks``, ``.cuda`` and ``.special`` for
        ``cupyx.scipy.special`` included).

    Raises:
        ImportError: CuPy is not installed (its namespace is what the stand-in mirrors).
    """
    return _build()


@functools.lru_cache(maxsize=None)
def _build() -> types.ModuleType:
    try:
        import cupy
        import cupyx
        import cupyx.scipy.special
    except ImportError as e:
        raise ImportError('the CuPy stand-in mirrors the installed CuPy\'s namespace: '
                          'pip install cupy-cuda12x (it imports without a GPU)') from e
    import scipy.special

    mod = types.ModuleType('cupy')
    mod.__doc__ = __doc__
    mod.ndarray = ndarray  # type: ignore[attr-defined]
    mod._is_stand_in = True  # type: ignore[attr-defined]
    mod.cuda = cuda  # type: ignore[attr-defined]
    mod.__version__ = cupy.__version__  # type: ignore[attr-defined]
    for sub in ('random', 'linalg', 'fft'):
        submod = types.ModuleType('cupy.' + sub)
        _populate(submod, getattr(cupy, sub), [getattr(numpy, sub)], dispatch=True)
        setattr(mod, sub, submod)
    stride_tricks = types.ModuleType('cupy.lib.stride_tricks')
    _populate(stride_tricks, cupy.lib.stride_tricks, [numpy.lib.stride_tricks], dispatch=True)
    mod.lib = types.SimpleNamespace(stride_tricks=stride_tricks)  # type: ignore[attr-defined]
    special = types.ModuleType('cupyx.scipy.special')
    _populate(special, cupyx.scipy.special, [scipy.special], dispatch=False)
    mod.special = special  # type: ignore[attr-defined]
    _populate(mod, cupy, [numpy], dispatch=True)
    _add_cupy_only(mod, cupy)
    for name in dir(cupy.ndarray):
        if name.startswith('_') or name in vars(ndarray) or not hasattr(numpy.ndarray, name):
            continue
        attr = getattr(numpy.ndarray, name)
        if callable(attr):
            setattr(ndarray, name, _method(name, _method_signature(getattr(cupy.ndarray,
                                                                           name))))
        else:
            setattr(ndarray, name, _attribute(name))
    return mod


def _add_cupy_only(mod: types.ModuleType, cupy: Any) -> None:
    """CuPy's names that NumPy lacks and chainlite or Chainer users reach for."""
    def asnumpy(a: Any, stream: Any = None, order: str = 'C', out: Any = None,
                blocking: bool = True) -> numpy.ndarray:
        if type(a) is ndarray:
            return a.get(order=order, out=out)
        return numpy.asarray(a, order=cast(Any, order))

    def get_array_module(*args: Any) -> Any:
        return mod if any(type(a) is ndarray for a in args) else numpy

    def scatter_add(a: ndarray, slices: Any, value: Any) -> None:
        numpy.add.at(_unwrap(a), _unwrap(slices), _unwrap(value))

    def fuse(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

    extras: dict[str, Any] = {
        'asnumpy': asnumpy, 'get_array_module': get_array_module,
        'fuse': fuse, 'ElementwiseKernel': _Kernel, 'ReductionKernel': _Kernel,
        'RawKernel': _Kernel, 'RawModule': _Kernel, 'is_available': lambda: True,
        'get_default_memory_pool': cuda.get_default_memory_pool,
        'get_default_pinned_memory_pool': cuda.get_default_memory_pool,
    }
    for name, value in extras.items():
        if hasattr(cupy, name):
            setattr(mod, name, value)
    mod.scatter_add = scatter_add  # type: ignore[attr-defined]  # cupyx.scatter_add


@contextlib.contextmanager
def installed() -> Iterator[types.ModuleType]:
    """Makes the stand-in chainlite's CuPy (``cuda.available`` True) inside the block.

    Yields:
        The stand-in module (what ``chainlite.backends.cuda.cupy`` is in the block).
    """
    from chainlite.backends import cuda as chainlite_cuda
    mod = build()
    previous = chainlite_cuda._install(mod)
    device = _current_device[0]
    _current_device[0] = 0  # a fresh process starts on GPU 0
    try:
        yield mod
    finally:
        _current_device[0] = device
        chainlite_cuda._install(*previous)


