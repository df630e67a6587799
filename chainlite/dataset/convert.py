"""Converters: from a minibatch (a list of examples) to arrays on a device.

:func:`concat_examples` is the default converter of updaters and evaluators: it stacks a list
of examples (arrays, tuples of arrays or dicts of arrays) into one array, a tuple of arrays or
a dict of arrays, padding examples of different shapes when asked. :func:`converter` turns a
``(batch, device)`` function into a :class:`Converter`, whose device argument is always a
:class:`chainlite.backend.Device` (or None).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy

from chainlite import backend
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite.types import DeviceSpec


class Converter:
    """Base class of converters: callables that turn a minibatch into arrays on a device.

    A subclass implements ``__call__(batch, device)``, where ``device`` is a
    :class:`chainlite.backend.Device` or None (leave the arrays where they are). Updaters and
    evaluators hand their converter such devices; a plain function given instead receives
    ``-1`` for the CPU, as in Chainer 6. :func:`converter` makes one from a function.

    Example:
        >>> import numpy as np
        >>> from chainlite.dataset import Converter
        >>> class Doubled(Converter):
        ...     def __call__(self, batch, device):
        ...         return 2 * np.asarray(batch)
        >>> Doubled()([1, 2], None)
        array([2, 4])
    """

    def __call__(self, batch: Sequence[Any], device: DeviceSpec) -> Any:
        """Converts ``batch`` and sends it to ``device``.

        Args:
            batch: The minibatch, usually a list of examples from an iterator.
            device: The :class:`chainlite.backend.Device` to send the result to, or None.

        Returns:
            The converted minibatch.
        """
        raise NotImplementedError('%s must implement __call__(batch, device)'
                                  % type(self).__name__)


class _ArbitraryCallableConverter(Converter):
    """A function made a :class:`Converter`: its second argument becomes a Device."""

    def __init__(self, base_callable: Callable[..., Any]) -> None:
        if not callable(base_callable):
            raise TypeError('converter: a callable is expected, got %s'
                            % type(base_callable).__name__)
        self.base_callable = base_callable
        functools.update_wrapper(self, base_callable)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) >= 2:
            args = (args[0], _get_device(args[1])) + args[2:]
        elif 'device' in kwargs:
            kwargs['device'] = _get_device(kwargs['device'])
        return self.base_callable(*args, **kwargs)


def converter() -> Callable[[Callable], Converter]:
    """Returns a decorator that makes a ``(batch, device)`` function a :class:`Converter`.

    The decorated converter accepts any device specifier (``-1``, ``'@numpy'``, a
    :class:`chainlite.backend.Device` or None) and hands the function a
    :class:`chainlite.backend.Device`, or None.

    Returns:
        The decorator.

    Example:
        >>> import chainlite
        >>> from chainlite.dataset import converter
        >>> @converter()
        ... def as_list(batch, device):
        ...     return device, list(batch)
        >>> as_list((1, 2), -1)
        (<CpuDevice (numpy)>, [1, 2])
        >>> isinstance(as_list, chainlite.dataset.Converter)
        True
    """
    def wrap(func: Callable[..., Any]) -> Converter:
        return _ArbitraryCallableConverter(func)
    return wrap


def _get_device(device_spec: Any) -> Any:
    # chainlite.get_device, plus None for "leave the arrays where they are".
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


def _call_converter(converter: Any, batch: Any, device: Any) -> Any:
    """Calls a converter as updaters do: a Device for a Converter, -1 for a plain function."""
    device = _get_device(device)
    if isinstance(converter, Converter):
        return converter(batch, device)
    if device is None:
        return converter(batch, None)
    if device.xp is numpy:
        return converter(batch, -1)
    if isinstance(device, backend.GpuDevice):
        return converter(batch, device.device.id)  # Chainer 6's integer id of the GPU
    raise RuntimeError('the converter %r is a plain function, which takes the CPU (-1) or a '
                       'GPU id only: decorate it with chainlite.dataset.converter()'
                       % (converter,))


def to_device(device: DeviceSpec, x: Any) -> Any:
    """Sends an array (or a tuple, list or dict of arrays) to a device.

    Args:
        device: A device specifier (``-1``, ``'@numpy'``, a :class:`chainlite.backend.Device`)
            or None to leave ``x`` where it is.
        x: The array or arrays.

    Returns:
        ``x`` on ``device``.

    Example:
        >>> from chainlite.dataset import to_device
        >>> to_device(-1, [1.0, 2.0])
        [array(1.), array(2.)]
        >>> to_device(None, [1.0, 2.0])
        [1.0, 2.0]
    """
    target = _get_device(device)
    if target is None:
        return x
    return target.send(x)


def concat_examples_func(batch: Sequence[Any], device: DeviceSpec = None,
                         padding: Any = None) -> Any:
    """Stacks a list of examples into arrays along a new first axis (the batch axis).

    Examples that are tuples give a tuple of arrays, one per position; examples that are dicts
    give a dict of arrays, one per key of the first example; any other examples (arrays,
    scalars, lists) give one array. Examples of different shapes raise an error unless
    ``padding`` is given: then each array has the smallest shape that holds all the examples,
    and the cells no example fills hold the padding value. Arrays keep their dtype (padded
    ones take the first example's); Python numbers and lists become NumPy arrays.

    Args:
        batch: A non-empty list of examples, typically a minibatch from an iterator.
        device: Where to send the arrays: a device specifier (``-1``, ``'@numpy'``, a
            :class:`chainlite.backend.Device`), or None (default) to leave them where they are.
        padding: None (default) for no padding, a scalar for all the arrays, or, for tuple
            (dict) examples, a tuple (dict) with one value (or None) per position (key).

    Returns:
        An array, a tuple of arrays or a dict of arrays, like the examples.

    Raises:
        ValueError: An empty batch, examples of different shapes without padding, or of
            different numbers of dimensions.

    Example:
        >>> import numpy as np
        >>> from chainlite.dataset import concat_examples
        >>> concat_examples([(np.array([1, 2]), 0), (np.array([3, 4]), 1)])
        (array([[1, 2],
               [3, 4]]), array([0, 1]))
        >>> concat_examples([np.array([1, 2]), np.array([3])], padding=-1)
        array([[ 1,  2],
               [ 3, -1]])
        >>> concat_examples([{'x': np.array([1.0]), 't': 3}], padding={'x': 0})
        {'x': array([[1.]]), 't': array([3])}
    """
    if len(batch) == 0:
        raise ValueError('concat_examples: batch is empty')
    first = batch[0]
    if isinstance(first, tuple):
        if isinstance(padding, tuple):
            if len(padding) != len(first):
                raise ValueError('concat_examples: padding has %d values for examples of %d '
                                 'elements' % (len(padding), len(first)))
            paddings = padding
        else:
            paddings = (padding,) * len(first)
        return tuple(to_device(device, _concat_arrays([example[i] for example in batch], pad))
                     for i, pad in enumerate(paddings))
    if isinstance(first, dict):
        if isinstance(padding, dict):
            key_paddings = padding
        else:
            key_paddings = dict.fromkeys(first, padding)
        return {key: to_device(device, _concat_arrays([example[key] for example in batch],
                                                      key_paddings.get(key)))
                for key in first}
    return to_device(device, _concat_arrays(batch, padding))


def _concat_arrays(arrays: Sequence[Any], padding: Any) -> Any:
    # Arrays stack in their own array module (on their own GPU); Python values become NumPy
    # arrays first.
    first = arrays[0]
    if isinstance(first, numpy.ndarray):
        dtype = first.dtype
        xp: Any = numpy
    elif cuda.is_gpu_array(first):
        with backend.get_device_from_array(first) as device:
            return _concat_arrays_in(arrays, padding, first.dtype, device.xp)
    else:
        if padding is None:
            return numpy.asarray(arrays)
        arrays = [numpy.asarray(a) for a in arrays]
        dtype = numpy.result_type(*{a.dtype for a in arrays})
        xp = numpy
    return _concat_arrays_in(arrays, padding, dtype, xp)


def _concat_arrays_in(arrays: Sequence[Any], padding: Any, dtype: Any, xp: Any) -> Any:
    if padding is None:
        arrays = [xp.asarray(a) for a in arrays]
        shape = arrays[0].shape
        for i, a in enumerate(arrays):
            if a.shape != shape:
                raise ValueError('concat_examples: example %d has shape %s, example 0 has %s '
                                 '(pass padding= to pad them to one shape)'
                                 % (i, a.shape, shape))
        return xp.stack(arrays)
    return _concat_arrays_with_padding(arrays, padding, dtype, xp)


def _concat_arrays_with_padding(arrays: Sequence[Any], padding: Any, dtype: Any,
                                xp: Any) -> Any:
    ndim = numpy.ndim(arrays[0])
    shape = list(numpy.shape(arrays[0]))
    for i, a in enumerate(arrays):
        if numpy.ndim(a) != ndim:
            raise ValueError('concat_examples: example %d has %d dimensions, example 0 has %d '
                             '(padding needs the same number of dimensions)'
                             % (i, numpy.ndim(a), ndim))
        shape = [max(d, e) for d, e in zip(shape, numpy.shape(a))]
    result = xp.full([len(arrays)] + shape, padding, dtype=dtype)
    for i, a in enumerate(arrays):
        result[(i,) + tuple(slice(d) for d in numpy.shape(a))] = a
    return result


concat_examples = _ArbitraryCallableConverter(concat_examples_func)


class ConcatWithAsyncTransfer:
    """A converter that concatenates examples and copies them to a GPU asynchronously.

    On a GPU, each array of the minibatch goes through a :class:`Conveyor`: it is copied to
    page-locked (pinned) host memory, then to the GPU on a CUDA stream of its own, so that
    the copy of the next minibatch can overlap the computation on the current one. The
    pinned buffers and device arrays are kept and reused (double buffering) while the
    shapes stay the same. On the CPU (or with device None) a call is
    :func:`concat_examples`. As in Chainer, the device is fixed by the first call, and a
    later call with another device is an error.

    Args:
        stream: The ``cupy.cuda.Stream`` of the copies; one is made at the first call to a
            GPU if None.
        compute_stream: The ``cupy.cuda.Stream`` the model computes on; if given, CUDA events
            order the copies and the computation instead of synchronizing the whole device.

    Example:
        >>> import numpy as np
        >>> from chainlite.dataset import ConcatWithAsyncTransfer
        >>> convert = ConcatWithAsyncTransfer()
        >>> convert([(np.zeros(2), 0), (np.ones(2), 1)], -1)
        (array([[0., 0.],
               [1., 1.]]), array([0, 1]))
        >>> convert([np.zeros(2)], None)
        Traceback (most recent call last):
        ...
        ValueError: ConcatWithAsyncTransfer: device is different from the first call's ...
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self._stream = stream
        self.compute_stream = compute_stream
        self._device: Any = None
        self._device_set = False
        self._conveyor: dict = {}
        self._events: Any = None

    def __call__(self, batch: Any, device: Any = None, padding: Any = None) -> Any:
        """Concatenates ``batch`` and sends it to ``device``.

        Args:
            batch: A non-empty list of examples (arrays, tuples or dicts of arrays).
            device: A device specifier (``0``, ``'@cupy:0'``, ``-1``, a
                :class:`chainlite.backend.Device`), or None to leave the arrays where they
                are; it must be the same at every call (the first call fixes it).
            padding: As in :func:`concat_examples`.

        Returns:
            An array, a tuple of arrays or a dict of arrays, like the examples.

        Raises:
            ValueError: If ``batch`` is empty or ``device`` differs from the first call's.
        """
        if len(batch) == 0:
            raise ValueError('ConcatWithAsyncTransfer: batch is empty')
        device = _get_device(device)
        if not self._device_set:
            self._device, self._device_set = device, True
            if isinstance(device, backend.GpuDevice):
                self._start(device)
        elif device != self._device:
            raise ValueError("ConcatWithAsyncTransfer: device is different from the first "
                             "call's (%r), got %r" % (self._device, device))
        if not isinstance(device, backend.GpuDevice):
            return concat_examples_func(batch, device, padding)
        with device:
            return self._transfer(batch, padding)

    def _start(self, device: backend.GpuDevice) -> None:
        # The copy stream (where CuPy can copy asynchronously) and, with a compute stream,
        # the two events: one keeps the host from overwriting buffers a kernel still reads,
        # the other keeps kernels from reading arrays still being copied.
        cp = device.xp
        if self._stream is None and _can_copy_async(cp):
            with device:
                self._stream = cp.cuda.Stream(non_blocking=True)
        if self.compute_stream is not None:
            self._events = (cp.cuda.Event(), cp.cuda.Event())

    def __getstate__(self) -> dict:
        # Streams, events and device buffers stay in this process.
        state = dict(self.__dict__)
        state.update(_conveyor={}, _events=None, _stream=None, compute_stream=None)
        return state

    def _transfer(self, batch: Any, padding: Any) -> Any:
        first = batch[0]
        if isinstance(first, tuple):
            keys: Any = range(len(first))
            if not isinstance(padding, tuple):
                padding = (padding,) * len(first)
            paddings = dict(enumerate(padding))
        elif isinstance(first, dict):
            keys = list(first)
            paddings = padding if isinstance(padding, dict) else dict.fromkeys(first, padding)
        else:
            return to_device(self._device, _concat_arrays(batch, padding))
        if self._events is not None:
            self._events[0].synchronize()
            self._events[0].record(stream=self.compute_stream)
        for key in keys:
            self._conveyor_of(key).put(
                _concat_arrays([example[key] for example in batch], paddings.get(key)))
        sync = self._events is None
        results = [self._conveyor[key].get(sync=sync) for key in keys]
        if self._events is not None:
            self._events[1].record(stream=self._stream)
            self.compute_stream.wait_event(self._events[1])
        if isinstance(first, dict):
            return dict(zip(keys, results))
        return tuple(results)

    def _conveyor_of(self, key: Any) -> 'Conveyor':
        conveyor = self._conveyor.get(key)
        if conveyor is None:
            conveyor = self._conveyor[key] = Conveyor(self._device, self._stream)
        return conveyor


def _can_copy_async(cp: Any) -> bool:
    # Pinned host memory is what makes a host-to-GPU copy asynchronous (the stand-in CuPy of
    # the tests has none, so there the copies go through ordinary host memory).
    return hasattr(cp.cuda, 'alloc_pinned_memory')


class Conveyor:
    """Double-buffered transfer of arrays to a GPU: :meth:`put`, then :meth:`get`.

    With a GPU device and a CUDA stream, :meth:`put` copies the array into pinned host memory
    and starts its copy to the GPU on the stream; :meth:`get` (with ``sync``) waits for the
    device. The last two pinned buffers and device arrays are reused while the sizes stay the
    same. Otherwise (no device, the CPU, no stream) ``put`` sends the array with
    :func:`to_device` at once. ``get`` returns the arrays in the order put.

    Args:
        device: A device specifier (a GPU id such as ``0``, ``'@cupy:0'``, a negative id for
            the CPU) or None to leave arrays where they are.
        stream: A ``cupy.cuda.Stream``, or None for synchronous transfer.

    Example:
        >>> import numpy as np
        >>> conveyor = Conveyor(-1)
        >>> conveyor.put(np.arange(3))
        >>> conveyor.get()
        array([0, 1, 2])
    """

    def __init__(self, device: Any = None, stream: Any = None) -> None:
        self._device = device
        self._stream = stream
        self._array_set: list = [[None, None], [None, None]]
        self._ret_array: list = []

    def _gpu(self) -> Any:
        # The GPU of an asynchronous transfer, or None.
        if self._device is None or self._stream is None:
            return None
        device = _get_device(self._device)
        return device if isinstance(device, backend.GpuDevice) else None

    def put(self, array: Any) -> None:
        """Starts sending ``array`` to the device.

        Args:
            array: A NumPy array.

        Raises:
            RuntimeError: For a GPU where none can be used (the message says why).
        """
        device = self._gpu()
        if device is None or not _can_copy_async(device.xp) or \
                not isinstance(array, numpy.ndarray):
            self._ret_array.append(to_device(self._device, array))
            return
        cp = device.xp
        pin_array, cp_array = self._array_set.pop(0)
        if pin_array is not None and (pin_array.nbytes != array.nbytes
                                      or cp_array.dtype != array.dtype):
            pin_array = None
        with device:
            if pin_array is None:
                # Kernels and copies on other streams may still use the buffers dropped
                # here: wait for the whole device before allocating new ones.
                cp.cuda.runtime.deviceSynchronize()
                memory = cp.cuda.alloc_pinned_memory(array.nbytes)
                pin_array = numpy.frombuffer(memory, array.dtype, array.size)
                cp_array = cp.empty(array.shape, array.dtype)
            if pin_array.shape != array.shape:  # same size, another shape: views
                pin_array = pin_array.reshape(array.shape)
                cp_array = cp_array.reshape(array.shape)
            pin_array[...] = array
            cp_array.set(pin_array, self._stream)
        self._array_set.append([pin_array, cp_array])
        self._ret_array.append(cp_array)

    def get(self, sync: bool = True) -> Any:
        """Returns the first array put and not yet got.

        Args:
            sync: Whether to wait for the GPU copy to end; with False the caller orders the
                copy and its use (as :class:`ConcatWithAsyncTransfer` does with events).

        Returns:
            The array, on the device.

        Raises:
            IndexError: If every array put has been got.
        """
        if not self._ret_array:
            raise IndexError('Conveyor.get: no array was put (call put first)')
        device = self._gpu()
        if sync and device is not None and _can_copy_async(device.xp):
            device.xp.cuda.runtime.deviceSynchronize()
        return self._ret_array.pop(0)
