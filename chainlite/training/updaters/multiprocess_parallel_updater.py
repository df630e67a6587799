"""Chainer's NCCL-based multi-GPU updater and its gradient packing helpers, on a CPU framework.

``MultiprocessParallelUpdater`` needs NVIDIA NCCL and one GPU per process; chainlite has
neither, so :meth:`MultiprocessParallelUpdater.available` is False and constructing one
raises, exactly as Chainer does on a machine without NCCL. :class:`ParallelUpdater` runs the
same data-parallel algorithm on CPU devices. The packing helpers keep Chainer's contract:
``gather_*`` work only on GPU arrays (they raise on the CPU), ``scatter_*`` copy a flat
array back into the parameters.
"""
from __future__ import annotations

import multiprocessing
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional, Sequence

import numpy

from chainlite.backends import cuda
from chainlite.training.updaters import standard_updater

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.optimizer import Optimizer
    from chainlite.types import DeviceSpec


def _no_nccl(what: str) -> RuntimeError:
    return RuntimeError('%s: NCCL is not available (chainlite runs on the CPU); use '
                        'chainlite.training.updaters.ParallelUpdater for data-parallel '
                        'training on CPU devices' % what)


class _Worker(multiprocessing.Process):
    """Chainer's worker process of one GPU: it joins an NCCL communicator, so it fails here.

    Args:
        proc_id: The index of the worker's device.
        pipe: The worker's end of a pipe to the master.
        master: The updater (read: ``converter``, ``_master``, ``_devices``,
            ``_mpu_iterators``).
    """

    def __init__(self, proc_id: int, pipe: Any, master: Any) -> None:
        super().__init__()
        self.proc_id = proc_id
        self.pipe = pipe
        self.converter = master.converter
        self.model = master._master
        self.device = master._devices[proc_id]
        self.iterator = master._mpu_iterators[proc_id]
        self.n_devices = len(master._devices)

    def setup(self) -> NoReturn:
        """Receives the NCCL id from the master, then raises: there is no NCCL."""
        self.pipe.recv()
        raise _no_nccl('MultiprocessParallelUpdater worker %d' % self.proc_id)

    def run(self) -> None:
        self.device.use()
        self.setup()


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
        raise _no_nccl('MultiprocessParallelUpdater')

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


def _calc_loss(model: Any, in_arrays: Any) -> Any:
    """Calls ``model`` on a converted batch: a tuple as arguments, a dict as keywords."""
    if isinstance(in_arrays, tuple):
        return model(*in_arrays)
    if isinstance(in_arrays, dict):
        return model(**in_arrays)
    return model(in_arrays)


def _memcpy_gather() -> Any:
    """Chainer's CUDA kernel that gathers parameters (needs a GPU)."""
    return cuda.elementwise('', '', '', '_memcpy_gather')


def _memcpy_scatter() -> Any:
    """Chainer's CUDA kernel that scatters parameters (needs a GPU)."""
    return cuda.elementwise('', '', '', '_memcpy_scatter')


def _gather(link: Any, target: str) -> NoReturn:
    """Chainer's GPU packing of ``target`` (``'grad'`` or ``'data'``): raises RuntimeError,
    CUDA is not available."""
    cuda.check_cuda_available()
    raise RuntimeError('_gather: packing parameters on a GPU needs NCCL, which chainlite '
                       'does not use (MultiprocessParallelUpdater runs on the CPU)')


def _get_nccl_data_type(dtype: Any) -> NoReturn:
    """Chainer's NCCL type of a float dtype: raises RuntimeError, NCCL is not available.

    Raises:
        RuntimeError: For float16/32/64 (no NCCL), and for any other dtype (unexpected, as
            in Chainer).
    """
    if dtype not in (numpy.float16, numpy.float32, numpy.float64):
        raise RuntimeError('Unexpected data type:{}'.format(dtype))
    raise _no_nccl('_get_nccl_data_type')


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
    for _, param in sorted(link.namedparams(), key=lambda item: item[0]):  # Chainer's order
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
