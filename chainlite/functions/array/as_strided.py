"""A strided view of an array's memory (``torch.Tensor.as_strided``), with negative strides."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import get_item as get_item_mod
from chainlite.functions.array import scatter_add as scatter_add_mod

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray

#: The signed integer type of each itemsize (Chainer's table, for index arrays that match an
#: element's size).
index_dtype = {numpy.dtype(t).itemsize: t
               for t in (numpy.int8, numpy.int16, numpy.int32, numpy.int64)}


def _byte2step(iterable: Sequence[int], itemsize: int) -> tuple[int, ...]:
    # Byte strides or offsets as element counts (each must be a multiple of itemsize).
    for i in iterable:
        if i % itemsize:
            raise ValueError('as_strided: %d bytes is not a whole number of %d-byte elements'
                             % (i, itemsize))
    return tuple([i // itemsize for i in iterable])


def _step2byte(iterable: Sequence[int], itemsize: int) -> tuple[int, ...]:
    # Element counts as bytes.
    return tuple([i * itemsize for i in iterable])


def _maybe_overlapping_memory(shape: Sequence[int], strides: Sequence[int]) -> bool:
    # Whether two elements of the view may share memory: an axis whose step (in absolute
    # value) does not clear the span of the axes with smaller steps. False is certain.
    span = 0
    for step, n in sorted(zip([abs(s) for s in strides], shape)):
        if step <= span:
            return True
        span += step * (n - 1)
    return False


def _min_index(shape: Sequence[int], strides: Sequence[int], storage_offset: int) -> int:
    # The lowest memory index the view reaches.
    return storage_offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)


def _max_index(shape: Sequence[int], strides: Sequence[int], storage_offset: int) -> int:
    # The highest memory index the view reaches.
    return storage_offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)


def _index_add(augend: numpy.ndarray, indices: Any, addend: Any) -> None:
    # augend[indices] += addend, with repeated indices adding up, in place.
    backend.get_array_module(augend).add.at(augend, indices, addend)


def _base_of(array):
    base = array
    while variable._is_array(base.base):
        base = base.base
    return base


def _address(array):
    # The address of an array's first element (in device memory for a GPU array).
    if isinstance(array, numpy.ndarray):
        return array.__array_interface__['data'][0]
    return array.data.ptr


def _span(views, low, high):
    # The lowest and highest memory index that the (shape, strides, offset) views reach,
    # starting from low and high (empty views reach nothing); computed from the geometry,
    # without reading any index array (which may be on a GPU).
    for shape, strides, offset in views:
        if 0 not in tuple(shape):
            low = min(low, _min_index(shape, strides, offset))
            high = max(high, _max_index(shape, strides, offset))
    return low, high


# Chainer's name: the array that owns ``array``'s memory (``array`` itself if it owns it).
_get_base_array = _base_of


def _geometry(array):
    # (storage, strides in elements, offset in elements) of ``array`` within the memory of
    # the array that owns it, as Chainer measures them.
    itemsize = array.itemsize
    if not isinstance(array, numpy.ndarray) and array.size:
        # A GPU array: measured within its memory allocation (as Chainer: CuPy's strided
        # views have no base to walk up to).
        gpu = _gpu_geometry(array)
        if gpu is not None:
            return gpu
    base = _base_of(array)
    if base.dtype.itemsize != itemsize or not base.flags.c_contiguous or any(
            s % itemsize for s in array.strides):
        # No shared element layout: use a copy.
        base = backend.get_array_module(array).ascontiguousarray(array)
        array = base
    storage = base.reshape(-1).view(array.dtype) if base.ndim else base.reshape(1)
    offset = (_address(array) - _address(base)) // itemsize
    return storage, tuple(s // itemsize for s in array.strides), offset


def _gpu_geometry(array):
    # (storage, strides, offset) of a GPU array within its memory allocation: the storage is
    # a flat view of the whole allocation (no copy); None where the layout is not in whole
    # elements.
    itemsize = array.itemsize
    mem = array.data.mem
    offset, rest = divmod(array.data.ptr - mem.ptr, itemsize)
    if rest or any(s % itemsize for s in array.strides):
        return None
    strided = backend.get_array_module(array).lib.stride_tricks.as_strided
    head = strided(array, (offset + 1,), (-itemsize,))[offset:]  # the allocation's start
    storage = strided(head, (mem.size // itemsize,), (itemsize,))
    return storage, tuple(s // itemsize for s in array.strides), offset


def _indices(shape, strides, offset, xp=numpy):
    # The storage index of every element of a view: offset + sum_k i_k * strides[k], made
    # by the array module xp (on the device of the array it indexes).
    idx = xp.full(tuple(shape), offset, numpy.intp)
    for axis, (n, step) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[axis] = n
        idx = idx + (xp.arange(n, dtype=numpy.intp) * step).reshape(view)
    return idx


def _check_bounds(shape, strides, offset, size):
    if 0 in tuple(shape):
        return
    low = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    if low < 0:
        raise ValueError('as_strided: out of buffer: the view reaches index %d, before the '
                         'start of the memory' % low)
    if high >= size:
        raise ValueError('as_strided: out of buffer: the view reaches index %d, past the %d '
                         'elements of the memory' % (high, size))


def _stride_array(array, shape, strides, storage_offset):
    """A view of ``array``'s memory; ``strides`` and ``storage_offset`` count elements.

    Args:
        array: A NumPy or GPU (CuPy) array (its owner's memory is what is viewed).
        shape: The shape of the view.
        strides: The step of each axis, in elements (negative steps allowed).
        storage_offset: The index, in elements, of the view's first element.

    Returns:
        A view (no copy) of the array's type.

    Raises:
        ValueError: If the view would reach outside the memory.
        TypeError: If ``array`` is not a NumPy or GPU array.
    """
    if not variable._is_array(array):
        raise TypeError('as_strided: only numpy.ndarray or cupy.ndarray is accepted, got %s'
                        % type(array).__name__)
    storage, _, _ = _geometry(array)
    _check_bounds(shape, strides, storage_offset, storage.size)
    itemsize = array.itemsize
    byte_strides = tuple(s * itemsize for s in strides)
    if isinstance(array, numpy.ndarray):
        return numpy.ndarray(tuple(shape), storage.dtype, storage, storage_offset * itemsize,
                             byte_strides)
    # A GPU array has no buffer constructor here: view the memory from the first element
    # (negative strides reach back before it, within the bounds checked above).
    return backend.get_array_module(array).lib.stride_tricks.as_strided(
        storage[storage_offset:], tuple(shape), byte_strides)


class TensorGeometry:
    """Where an array lies in the memory of the array that owns it (Chainer's class).

    Args:
        array: A NumPy or GPU (CuPy) array.

    Attributes:
        shape: The array's shape.
        strides: The step of each axis, in elements.
        storage_offset: The index, in elements, of its first element in the owner's memory.
        itemsize: The size of an element in bytes.
    """

    def __init__(self, array: numpy.ndarray) -> None:
        if not variable._is_array(array):
            raise ValueError('TensorGeometry: only numpy.ndarray or cupy.ndarray is '
                             'supported, got %s' % type(array).__name__)
        _, self.strides, self.storage_offset = _geometry(array)
        self.shape = array.shape
        self.itemsize = array.itemsize

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self.shape)


class AsStrided(function_node.FunctionNode):
    """as_strided as a node (Chainer's): ``AsStrided(shape, strides,
    storage_offset).apply((x,))``, strides and offset counted in elements (the offset of
    ``x`` itself by default); its gradient is :class:`AsStridedGrad`."""

    def __init__(self, shape: Sequence[int], strides: Sequence[int],
                 storage_offset: int | None = None) -> None:
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset
        self.input_geometry: TensorGeometry | None = None

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.input_geometry = TensorGeometry(x)
        storage, _, offset = _geometry(x)
        if self.storage_offset is None:
            self.storage_offset = offset
        _check_bounds(self.shape, self.strides, self.storage_offset, storage.size)
        xp = backend.get_array_module(x)
        return storage[_indices(self.shape, self.strides, self.storage_offset, xp)],

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        assert self.storage_offset is not None  # set by forward
        return AsStridedGrad(self.input_geometry, self.shape, self.strides,
                             self.storage_offset).apply(grad_outputs)


class AsStridedGrad(function_node.FunctionNode):
    """AsStrided's gradient node (Chainer's): ``AsStridedGrad(input_geometry, shape, strides,
    storage_offset).apply((gy,))`` adds up the output gradients read from each memory
    element, and gives each input element its memory element's sum, split equally where
    input elements share memory. Linear in ``gy``; its own gradient is the transposed map.

    Args:
        input_geometry: The :class:`TensorGeometry` of the forward's input.
        shape: The forward's output shape.
        strides: Its strides, in elements.
        storage_offset: Its storage offset, in elements.
    """

    def __init__(self, input_geometry: Any, shape: Sequence[int], strides: Sequence[int],
                 storage_offset: int, transposed: bool = False) -> None:
        self.input_geometry = input_geometry
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.storage_offset = storage_offset
        self._transposed = transposed  # the map from x's gradient to y's (double backprop)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        g, = inputs
        if g.dtype.kind != 'f':
            raise TypeError('AsStridedGrad: only float gradients are supported, got %s'
                            % g.dtype)
        geo = self.input_geometry
        xp = backend.get_array_module(g)
        in_idx = _indices(geo.shape, geo.strides, geo.storage_offset, xp)
        out_idx = _indices(self.shape, self.strides, self.storage_offset, xp)
        low, high = _span([(geo.shape, geo.strides, geo.storage_offset),
                           (self.shape, self.strides, self.storage_offset)], 0, 0)
        size = high - low + 1
        count = xp.bincount((in_idx - low).ravel(), minlength=size)
        share = 1.0 / numpy.maximum(count, 1)  # where input elements share memory
        if self._transposed:
            memory = xp.bincount((in_idx - low).ravel(), g.ravel(), size) * share
            return memory[out_idx - low].astype(g.dtype, copy=False),
        summed = xp.bincount((out_idx - low).ravel(), g.ravel(), size)
        return (summed * share)[in_idx - low].astype(g.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return AsStridedGrad(self.input_geometry, self.shape, self.strides,
                             self.storage_offset, not self._transposed).apply(grad_outputs)


class _NonFloatView(function_node.FunctionNode):
    # The view of a non-float Variable: kept in the graph so that asking for its gradient
    # fails clearly, as in Chainer.

    def __init__(self, values: numpy.ndarray) -> None:
        self.values = values

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        return self.values,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        raise TypeError('as_strided: only float arrays have gradients, got %s'
                        % self.values.dtype)


def as_strided(x: VariableOrArray, shape: Sequence[int], strides: Sequence[int],
               storage_offset: int | None = None) -> Variable:
    """A new array of ``shape`` read from ``x``'s memory with the given strides.

    As ``torch.Tensor.as_strided`` (and Chainer), but ``strides`` and ``storage_offset`` count
    elements, not bytes, and strides may be negative. The memory is that of the array that
    owns ``x``'s data, so a view ``x`` may read elements outside itself (they are constants
    for the gradient). The result is a copy. The gradient sums the output gradients of the
    elements read from the same memory; where several elements of ``x`` share memory (``x``
    is itself an overlapping view), it is split equally between them, as in Chainer. A
    composition of differentiable functions (differentiable to any order).

    Args:
        x: A Variable or array (float for gradients; other dtypes are only viewed).
        shape: The shape of the result.
        strides: The step in memory of each axis, in elements.
        storage_offset: The memory index of the first element (None: that of ``x``).

    Returns:
        A Variable of ``shape`` and ``x``'s dtype.

    Raises:
        ValueError: If the view reaches outside the memory, or the arguments disagree.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.arange(4.0)
        >>> F.as_strided(x, (4,), (-1,), 3).array
        array([3., 2., 1., 0.])
        >>> F.as_strided(x, (3, 2), (1, 1), 0).array  # sliding windows
        array([[0., 1.],
               [1., 2.],
               [2., 3.]])
    """
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError('as_strided: shape %s and strides %s must have the same length'
                         % (shape, strides))
    if any(n < 0 for n in shape):
        raise ValueError('as_strided: shape must not be negative, got %s' % (shape,))
    array = variable.as_array(x)
    storage, in_strides, in_offset = _geometry(array)
    if storage_offset is None:
        storage_offset = in_offset
    _check_bounds(shape, strides, storage_offset, storage.size)
    xp = backend.get_array_module(array)
    out_idx = _indices(shape, strides, storage_offset, xp)
    if not (isinstance(x, variable.Variable) and x.requires_grad):
        return variable.Variable(storage[out_idx], requires_grad=False)
    if array.dtype.kind != 'f':
        return _NonFloatView(storage[out_idx]).apply((x,))[0]
    in_idx = _indices(array.shape, in_strides, in_offset, xp)
    # Only the memory either side touches: x's elements (differentiable) and the rest.
    low, high = _span([(array.shape, in_strides, in_offset), (shape, strides, storage_offset)],
                      storage.size, -1)
    low, high = min(low, high + 1), max(high, low - 1)
    count = xp.bincount((in_idx - low).ravel(), minlength=high - low + 1)
    const = storage[low:high + 1].copy()
    const[count > 0] = 0
    share = xp.where(count > 0, 1.0 / numpy.maximum(count, 1), 0.0).astype(array.dtype)
    memory = scatter_add_mod.scatter_add(const, in_idx - low, x * share[in_idx - low])
    return get_item_mod.get_item(memory, out_idx - low)
