"""Chainer's NCCL-based multi-GPU updater and its gradient packing helpers.

``MultiprocessParallelUpdater`` runs one process per GPU and sums their gradients through
NVIDIA NCCL. chainlite does not run that scheme: :meth:`MultiprocessParallelUpdater.available`
is False and constructing one raises a RuntimeError that says what is missing (CuPy, a GPU,
NCCL) or, where all of them are there, points to the ways chainlite trains on several GPUs:
:class:`ParallelUpdater` with GPU devices (``'@cupy:0'``, ``'@cupy:1'``) in one process, or
``chainlite.distributed`` with the ``'pure_nccl'`` communicator. The packing helpers keep
Chainer's contract: ``gather_*`` pack a link's gradients or parameters on its GPU into one
float32 array (in the order of the sorted parameter paths) and raise on the CPU;
``scatter_*`` copy such a flat array back.
"""
from __future__ import annotations

import importlib
import multiprocessing
import warnings
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional, Sequence

import numpy

from chainlite import backend
from chainlite.backends import cuda
from chainlite.training.updaters import standard_updater

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.optimizer import Optimizer
    from chainlite.types import DeviceSpec


def _nccl() -> Any:
    """CuPy's NCCL module; RuntimeError saying what is missing where there is none."""
    cp = cuda._cupy()  # raises, saying whether CuPy, a driver or a GPU is missing
    nccl = getattr(cp.cuda, 'nccl', None)
    if nccl is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                nccl = importlib.import_module('cupy.cuda.nccl')
        except Exception:  # CuPy built without NCCL support
            nccl = None
    if not getattr(nccl, 'available', False):
        raise RuntimeError('NCCL is not available: CuPy %s finds no NCCL library (install '
                           'NCCL, e.g. pip install nvidia-nccl-cu12)' % cp.__version__)
    return nccl


def _no_nccl(what: str) -> RuntimeError:
    try:
        _nccl()
    except RuntimeError as e:
        reason = str(e)
    else:
        reason = 'chainlite does not run the NCCL multi-process updater'
    return RuntimeError('%s needs NCCL and a GPU per process: %s. Use '
                        "chainlite.training.updaters.ParallelUpdater with devices such as "
                        "{'main': '@cupy:0', 'second': '@cupy:1'} (or CPU devices), or "
                        "chainlite.distributed with the 'pure_nccl' communicator"
                        % (what, reason))


class _Worker(multiprocessing.Process):
    """Chainer's worker process of one GPU: chainlite does not run it, so it fails here.

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
        """Receives the NCCL id from the master, then raises (see the module's note)."""
        self.pipe.recv()
        raise _no_nccl('MultiprocessParallelUpdater worker %d' % self.proc_id)

    def run(self) -> None:
        self.device.use()
        self.setup()


class MultiprocessParallelUpdater(standard_updater.StandardUpdater):
    """Chainer's multi-process, multi-GPU updater: not available in chainlite.

    Args:
        iterators: One iterator per device.
        optimizer: The optimizer.
        converter: The converter.
        devices: The GPU devices.
        auto_new_epoch: As in :class:`StandardUpdater`.

    Raises:
        RuntimeError: Always, saying what is missing (CuPy, a GPU, NCCL); use
            :class:`ParallelUpdater` with GPU devices instead.

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
        """Whether this updater can run: never in chainlite (it does not run Chainer's
        NCCL worker processes, with or without NCCL)."""
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


def _packed_params(link: Any) -> list:
    # Chainer's packing order: the non-empty parameters by sorted path.
    return [param for _, param in sorted(link.namedparams(), key=lambda item: item[0])
            if param.size != 0]


def _gather(link: Any, target: str) -> Any:
    """Packs ``target`` (``'grad'`` or ``'data'``) of the parameters of ``link`` into one
    float32 array on their GPU; a missing gradient packs as zeros."""
    params = _packed_params(link)
    arrays = [getattr(param, target) for param in params]
    first = next((a for a in arrays if a is not None), None)
    if not cuda.is_gpu_array(first):
        cuda.check_cuda_available()
        raise RuntimeError('_gather: the parameters of %s are not on a GPU'
                           % type(link).__name__)
    with backend.get_device_from_array(first) as device:
        xp = device.xp
        chunks = [xp.zeros(param.size, numpy.float32) if a is None
                  else a.ravel().astype(numpy.float32, copy=False)
                  for param, a in zip(params, arrays)]
        return xp.concatenate(chunks) if chunks else xp.zeros(0, numpy.float32)


def _get_nccl_data_type(dtype: Any) -> Any:
    """The NCCL type of a float dtype.

    Raises:
        RuntimeError: Where NCCL is missing (saying what is missing), and for a dtype other
            than float16/32/64 (unexpected, as in Chainer).
    """
    if dtype not in (numpy.float16, numpy.float32, numpy.float64):
        raise RuntimeError('Unexpected data type:{}'.format(dtype))
    try:
        nccl = _nccl()
    except RuntimeError:
        raise _no_nccl('_get_nccl_data_type') from None
    return {numpy.dtype(numpy.float16): nccl.NCCL_HALF, numpy.dtype(numpy.float32):
            nccl.NCCL_FLOAT, numpy.dtype(numpy.float64): nccl.NCCL_DOUBLE}[numpy.dtype(dtype)]


def gather_grads(link: Any) -> Any:
    """Packs the gradients of ``link`` into one float32 GPU array (zeros for a parameter
    without one), in the order of the sorted parameter paths.

    Args:
        link: A link whose parameters are on a GPU.

    Returns:
        The flat CuPy array.

    Raises:
        RuntimeError: If the parameters are not on a GPU (as in Chainer).
    """
    _check_on_gpu(link, 'gather_grads')
    return _gather(link, 'grad')


def gather_params(link: Any) -> Any:
    """Packs the parameters of ``link`` into one float32 GPU array, in the order of the sorted
    parameter paths.

    Args:
        link: A link whose parameters are on a GPU.

    Returns:
        The flat CuPy array.

    Raises:
        RuntimeError: If the parameters are not on a GPU (as in Chainer).
    """
    _check_on_gpu(link, 'Link.gather_params')
    return _gather(link, 'data')


def _check_on_gpu(link: Any, what: str) -> None:
    if not any(cuda.is_gpu_array(param.array) for param in _packed_params(link)):
        raise RuntimeError('%s works only on GPU (the parameters of %s are not CuPy arrays)'
                           % (what, type(link).__name__))


def _scatter(link: Any, array: Any, target: str) -> None:
    if not cuda.is_gpu_array(array):
        array = numpy.asarray(array)
    size, _ = size_num_grads(link)
    if size != array.size:
        raise ValueError('scatter_%s: the array has %d elements, the parameters of %s %d'
                         % ('grads' if target == 'grad' else 'params', array.size,
                            type(link).__name__, size))
    offset = 0
    for param in _packed_params(link):
        chunk = array[offset:offset + param.size].reshape(param.shape)
        offset += param.size
        if target == 'grad':
            param.grad = _on_param_device(param, chunk.astype(param.dtype, copy=True))
        else:
            param.array[...] = _on_param_device(param, chunk)


def _on_param_device(param: Any, chunk: Any) -> Any:
    # The flat array may live elsewhere than the parameter (the host, another GPU).
    array = param.array
    if array is None or backend.get_device_from_array(array).is_array_supported(chunk):
        return chunk
    return backend.get_device_from_array(array).send(chunk)


def scatter_grads(link: Any, array: Any) -> None:
    """Copies consecutive slices of the flat ``array`` into the gradients of ``link``.

    Args:
        link: The link.
        array: A flat array (NumPy or CuPy) of the size of all its parameters, as
            :func:`gather_grads` makes.
    """
    _scatter(link, array, 'grad')


def scatter_params(link: Any, array: Any) -> None:
    """Copies consecutive slices of the flat ``array`` into the parameters of ``link``.

    Args:
        link: The link.
        array: A flat array (NumPy or CuPy) of the size of all its parameters, as
            :func:`gather_params` makes.
    """
    _scatter(link, array, 'data')
