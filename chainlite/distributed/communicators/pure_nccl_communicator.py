"""The ``'pure_nccl'`` communicator: GPU arrays averaged with NCCL, on the GPUs.

It needs CuPy with NCCL (``cupy.cuda.nccl``) and a GPU per process; without them creating
one raises RuntimeError saying what is missing, before any communication. Gradients and
parameters on the GPU never leave it: they are packed into one device buffer and reduced
or broadcast by NCCL. Objects, and arrays in host memory, go through MPI as with the other
communicators.
"""
from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy

from chainlite import configuration
from chainlite.backends import cuda
from chainlite.distributed import nccl
from chainlite.distributed.communicators import _communication_utility
from chainlite.distributed.communicators import _packing
from chainlite.distributed.communicators import mpi_communicator_base

# NCCL's names of the dtypes it reduces.
_NCCL_TYPES = {'float16': 'NCCL_FLOAT16', 'float32': 'NCCL_FLOAT32',
               'float64': 'NCCL_FLOAT64', 'int8': 'NCCL_INT8', 'uint8': 'NCCL_UINT8',
               'int32': 'NCCL_INT32', 'uint32': 'NCCL_UINT32', 'int64': 'NCCL_INT64',
               'uint64': 'NCCL_UINT64'}


def _stream_ptr() -> int:
    # CuPy's current stream, where the packing kernels ran (0: the default stream).
    get = getattr(cuda.cupy.cuda, 'get_current_stream', None)
    return 0 if get is None else int(get().ptr)


class _NcclCommunicatorBase(mpi_communicator_base.MpiCommunicatorBase):
    """What the NCCL communicators share: NCCL found (or a clear error) before any MPI call,
    and an NCCL communicator made at first use, on the GPU current then.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
    """

    def __init__(self, mpi_comm: Any) -> None:
        # Checked before the base class's collective calls, so every rank raises alone.
        self._nccl = nccl._module(type(self).__name__)
        version = int(self._nccl.get_build_version())
        if version < 2000:
            raise RuntimeError('%s needs NCCL 2.0 or newer, found %d'
                               % (type(self).__name__, version))
        if int(self._nccl.get_version()) < 2302:
            warnings.warn('NCCL 2.2 and older versions are deprecated.', DeprecationWarning)
        super().__init__(mpi_comm)
        self.nccl_comm: Any = None

    def _init_comms(self) -> None:
        # NCCL binds a communicator to the device current when it is made, so it is made at
        # the first GPU call, after the script has chosen its GPU.
        if self.nccl_comm is None:
            self.nccl_comm = _communication_utility.init_nccl_comm(self.mpi_comm)

    def finalize(self) -> None:
        """Destroys the NCCL communicator (a collective call); MPI stays usable."""
        super().finalize()
        if self.nccl_comm is not None:
            cuda.cupy.cuda.Device().synchronize()
            self.mpi_comm.barrier()
            self.nccl_comm.destroy()
            self.nccl_comm = None

    def _nccl_type(self, dtype: numpy.dtype) -> Optional[int]:
        name = _NCCL_TYPES.get(numpy.dtype(dtype).name)
        return None if name is None else getattr(self._nccl, name)

    def _check_finite(self, buf: Any) -> None:
        if configuration.config.debug and not bool(cuda.cupy.isfinite(buf).all()):
            raise ValueError('multi_node_mean_grad: parameters diverged after allreduce: the '
                             'averaged gradients are not finite (debug mode)')

    def _nccl_sum(self, buf: Any) -> None:
        # Sums a contiguous GPU buffer over the ranks in place.
        self._init_comms()
        self.nccl_comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size,
                                 self._nccl_type(buf.dtype), self._nccl.NCCL_SUM,
                                 _stream_ptr())

    def _bcast_gpu(self, arrays: list, dtype: numpy.dtype, n: int, device: Any,
                   root: int) -> None:
        type_id = self._nccl_type(dtype)
        if type_id is None:   # bool: through host memory
            super()._bcast_gpu(arrays, dtype, n, device, root)
            return
        self._init_comms()
        with device:
            buf = self._device_buffers.get(dtype, n, device)
            if self.rank == root:
                _packing.pack(arrays, buf)
            self.nccl_comm.bcast(buf.data.ptr, n, type_id, root, _stream_ptr())
            if self.rank != root:
                _packing.unpack(buf, arrays)

    def _allreduce_gpu(self, x: Any) -> Any:
        wire = _packing.wire_dtype(x.dtype)
        if self._nccl_type(wire) is None:
            return super()._allreduce_gpu(x)
        with x.device:
            y = cuda.cupy.array(x, dtype=wire, order='C')
            self._nccl_sum(y.reshape(-1))
            return y.astype(x.dtype, copy=False)

    def _multi_node_mean_gpu(self, src: Any, recvbuf: Any, wire: numpy.dtype) -> None:
        with recvbuf.device:
            tmp = cuda.cupy.array(src, dtype=wire, order='C')
            flat = tmp.reshape(-1)
            self._nccl_sum(flat)
            flat *= flat.dtype.type(1.0 / self.size)
            recvbuf[...] = tmp


class PureNcclCommunicator(_NcclCommunicatorBase):
    """ChainerMN's NCCL communicator: GPU gradients averaged by one NCCL all-reduce.

    Gradients travel in ``allreduce_grad_dtype`` if it is set, else in
    ``chainlite.config.dtype`` (float16 under ``mixed16``), whatever their own dtype, as in
    ChainerMN: float16 halves the traffic, with float16's precision. Parameters are
    broadcast in their own dtype.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.

    Raises:
        RuntimeError: Without CuPy, a GPU, or NCCL in CuPy (the message says which).
    """

    def __init__(self, mpi_comm: Any) -> None:
        super().__init__(mpi_comm)
        with self.config_scope():
            self.allreduce_grad_dtype: Optional[numpy.dtype] = None

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Sets ``'allreduce_grad_dtype'`` (a float dtype or None) or ``'batched_copy'``.

        Args:
            name: The configuration's name.
            value: Its value.
            kwargs: Unused.

        Raises:
            ValueError: For a dtype that is not a floating point one, or an unknown name.
        """
        if name != 'allreduce_grad_dtype':
            super().set_config(name, value, **kwargs)
            return
        dtype = None if value is None else numpy.dtype(value)
        if dtype is not None and dtype.kind != 'f':
            raise ValueError('allreduce_grad_dtype must be numpy.float16, numpy.float32, '
                             'numpy.float64 or None, got %s' % dtype)
        with self.config_scope():
            self.allreduce_grad_dtype = dtype

    def _transfer_dtype(self, dtype: numpy.dtype) -> numpy.dtype:
        if self.allreduce_grad_dtype is not None:
            return self.allreduce_grad_dtype
        return configuration.get_dtype()

    def _mean_gpu(self, arrays: list, dtype: numpy.dtype, n: int, device: Any) -> None:
        with device:
            buf = self._device_buffers.get(dtype, n, device)
            _packing.pack(arrays, buf)
            self._nccl_sum(buf)
            self._check_finite(buf)
            _packing.unpack(buf, arrays, 1.0 / self.size)
