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
    raise RuntimeError('the converter %r is a plain function, which can only run on the CPU: '
                       'decorate it with chainlite.dataset.converter()' % (converter,))


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
    # Arrays stack in their own array module; Python values become NumPy arrays first.
    if isinstance(arrays[0], numpy.ndarray):
        dtype = arrays[0].dtype
        xp = backend.get_array_module(arrays[0])
    else:
        if padding is None:
            return numpy.asarray(arrays)
        arrays = [numpy.asarray(a) for a in arrays]
        dtype = numpy.result_type(*{a.dtype for a in arrays})
        xp = numpy
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
    """A converter that concatenates examples and sends them to one fixed device.

    Chainer's class of this name overlaps the copy of the next minibatch to a GPU with the
    computation on the current one, through CUDA streams and pinned memory. chainlite runs
    on the CPU, where there is nothing to overlap: a call concatenates the batch as
    :func:`concat_examples` does and sends it to the device at once. What remains of
    Chainer's contract holds: the device is fixed by the first call, and a later call with
    another device is an error.

    Args:
        stream: Must be None (chainlite has no CUDA streams).
        compute_stream: Must be None.

    Raises:
        ValueError: If a stream is given.

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
        for name, value in (('stream', stream), ('compute_stream', compute_stream)):
            if value is not None:
                raise ValueError('ConcatWithAsyncTransfer: %s must be None (chainlite has no '
                                 'CUDA streams), got %r' % (name, value))
        self._stream = stream
        self.compute_stream = compute_stream
        self._device: Any = None
        self._device_set = False

    def __call__(self, batch: Any, device: Any = None, padding: Any = None) -> Any:
        """Concatenates ``batch`` and sends it to ``device``.

        Args:
            batch: A non-empty list of examples (arrays, tuples or dicts of arrays).
            device: A device specifier, or None to leave the arrays where they are; it must
                be the same at every call (the first call fixes it).
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
        elif device != self._device:
            raise ValueError("ConcatWithAsyncTransfer: device is different from the first "
                             "call's (%r), got %r" % (self._device, device))
        return concat_examples_func(batch, device, padding)


class Conveyor:
    """Chainer's double-buffered transfer of arrays to a GPU: :meth:`put` then :meth:`get`.

    Chainer copies to a GPU asynchronously when ``device >= 0`` and a CUDA stream is given;
    without CUDA that raises here. Otherwise (no device, the CPU, or no stream) ``put``
    sends the array with :func:`to_device` at once and ``get`` returns the results in the
    order put.

    Args:
        device: A device id: None leaves arrays where they are, a negative id is the CPU.
        stream: A CUDA stream, or None for synchronous transfer.

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
        self._ret_array: list = []

    def _is_async(self) -> bool:
        return self._device is not None and self._device >= 0 and self._stream is not None

    def put(self, array: Any) -> None:
        """Starts sending ``array`` to the device (at once: there is no CUDA stream).

        Args:
            array: A NumPy array.

        Raises:
            RuntimeError: For a GPU id with a stream (CUDA is not available).
        """
        if self._is_async():
            from chainlite.backends import cuda
            cuda.check_cuda_available()
        self._ret_array.append(to_device(self._device, array))

    def get(self, sync: bool = True) -> Any:
        """Returns the first array put and not yet got.

        Args:
            sync: Whether to wait for the GPU copy (nothing to wait for on the CPU).

        Returns:
            The array, on the device.

        Raises:
            IndexError: If every array put has been got.
        """
        if not self._ret_array:
            raise IndexError('Conveyor.get: no array was put (call put first)')
        return self._ret_array.pop(0)
