"""Chainer's NCCL-based multi-GPU updater and its gradient packing helpers, on a CPU framework.

``MultiprocessParallelUpdater`` needs NVIDIA NCCL and one GPU per process; chainlite has
neither, so :meth:`MultiprocessParallelUpdater.available` is False and constructing one
raises, exactly as Chainer does on a machine without NCCL. :class:`ParallelUpdater` runs the
same data-parallel algorithm on CPU devices. The packing helpers keep Chainer's contract:
``gather_*`` work only on GPU arrays (they raise on the CPU), ``scatter_*`` copy a flat
array back into the parameters.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import numpy

from chainlite.training.updaters import standard_updater

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.optimizer import Optimizer
    from chainlite.types import DeviceSpec


class MultiprocessParallelUpdater(standard_updater.StandardUpdater):
    """Chainer's multi-process, multi-GPU updater: not available without NCCL and GPUs.

    Args:
        iterators: One iterator per device.
        optimizer: The optimizer.
        converter: The converter.
        devices: The GPU devices.
        auto_new_epoch: As in :class:`StandardUpdater`.

    Raises:
        RuntimeError: Always: it needs NCCL (use :class:`ParallelUpdater` on CPU devices).

    Example:
        >>> from chainlite.training import updaters
        >>> updaters.MultiprocessParallelUpdater.available()
        False
    """

    def __init__(self, iterators: Sequence[Iterator], optimizer: Optimizer,
                 converter: Optional[Callable[..., Any]] = None,
                 devices: Optional[Sequence[DeviceSpec] | dict[str, DeviceSpec]] = None,
                 auto_new_epoch: bool = True) -> None:
        raise RuntimeError('MultiprocessParallelUpdater: NCCL is not available (chainlite runs '
                           'on the CPU); use chainlite.training.updaters.ParallelUpdater for '
                           'data-parallel training on CPU devices')

    @staticmethod
    def available() -> bool:
        """Whether NCCL is available: never, in chainlite."""
        return False


def size_num_grads(link: Any) -> tuple:
    """Returns ``(total size, count)`` of the non-empty parameters of ``link``."""
    size = num = 0
    for param in link.params():
        if param.size == 0:
            continue
        size += param.size
        num += 1
    return size, num


def gather_grads(link: Any) -> Any:
    """Packs the gradients of ``link`` into one GPU array; raises on the CPU, as in Chainer."""
    raise RuntimeError('gather_grads works only on GPU (the parameters of %s are NumPy '
                       'arrays)' % type(link).__name__)


def gather_params(link: Any) -> Any:
    """Packs the parameters of ``link`` into one GPU array; raises on the CPU, as in Chainer."""
    raise RuntimeError('Link.gather_params works only on GPU (the parameters of %s are NumPy '
                       'arrays)' % type(link).__name__)


def _scatter(link: Any, array: Any, target: str) -> None:
    array = numpy.asarray(array)
    size, _ = size_num_grads(link)
    if size != array.size:
        raise ValueError('scatter_%s: the array has %d elements, the parameters of %s %d'
                         % ('grads' if target == 'grad' else 'params', array.size,
                            type(link).__name__, size))
    offset = 0
    for param in link.params():
        if param.size == 0:
            continue
        chunk = array[offset:offset + param.size].reshape(param.shape)
        offset += param.size
        if target == 'grad':
            param.grad = chunk.astype(param.dtype, copy=True)
        else:
            param.array[...] = chunk


def scatter_grads(link: Any, array: Any) -> None:
    """Copies consecutive slices of the flat ``array`` into the gradients of ``link``."""
    _scatter(link, array, 'grad')


def scatter_params(link: Any, array: Any) -> None:
    """Copies consecutive slices of the flat ``array`` into the parameters of ``link``."""
    _scatter(link, array, 'data')
