"""The communicator that owns every MPI call: arrays, objects, parameters and gradients.

Arrays travel as MPI buffers (no pickling); a small header (shapes and dtypes) goes first
where the receiver cannot know them. ``float16`` arrays move as 16-bit words, and are summed
in ``float32``. Objects (the ``_obj`` methods) are pickled by mpi4py; only processes of the
same MPI job can send them, and only they are unpickled.

Before each collective call the ranks meet on the communicator's watch (see
:mod:`chainlite.distributed._stopping`): a tiny nonblocking allreduce, waited on with short
sleeps, that also checks every rank makes the same call, and notices a rank that has left.

GPU arrays (CuPy's) are accepted everywhere an array is: MPI moves host memory, so they are
staged through it, the arrays of one call packed into one device buffer that crosses once
each way (as ChainerMN packs gradients). Results of a GPU call are GPU arrays: in place on
the arrays' own device for models (``bcast_data``, ``multi_node_mean_grad``), on the device
of the argument for ``allreduce``, ``allgather`` and ``alltoall``, and on the current device
where the data comes from another rank that sent GPU arrays (``recv``, ``bcast``,
``scatter``; ``gather`` follows root's own array), as in ChainerMN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import configuration
from chainlite.backends import cuda
from chainlite.distributed import _mpi
from chainlite.distributed import _stopping
from chainlite.distributed.communicators import _communication_utility
from chainlite.distributed.communicators import _packing
from chainlite.distributed.communicators import communicator_base

if TYPE_CHECKING:
    from chainlite.link import Link

_KINDS = 'fiub'
_mpi_types: dict = {}


def _mpi_type(dtype: numpy.dtype) -> Any:
    t = _mpi_types.get(dtype)
    if t is None:
        t = _mpi_types[dtype] = _mpi.dtlib().from_numpy_dtype(dtype)
    return t


def _wire(a: numpy.ndarray) -> numpy.ndarray:
    # A contiguous array whose dtype MPI moves bit for bit (float16 as 16-bit words).
    a = numpy.ascontiguousarray(a)
    return a.view(numpy.uint16) if a.dtype == numpy.float16 else a


def _check_array(caller: str, name: str, x: Any) -> Any:
    if not isinstance(x, numpy.ndarray) and not cuda.is_gpu_array(x):
        hint = ' (pass its .array)' if hasattr(x, 'array') else ''
        raise TypeError('%s: %s must be a numpy.ndarray or cupy.ndarray, got %s%s'
                        % (caller, name, type(x).__name__, hint))
    if x.dtype.kind not in _KINDS:
        raise TypeError('%s: %s has dtype %s; only bool, integer and floating point arrays '
                        'can be sent' % (caller, name, x.dtype))
    return x


def _check_arrays(caller: str, name: str, xs: Any) -> tuple:
    if isinstance(xs, numpy.ndarray) or cuda.is_gpu_array(xs) or \
            not isinstance(xs, (tuple, list)):
        raise TypeError('%s: %s must be a tuple or list of numpy (or cupy) arrays, got %s'
                        % (caller, name, type(xs).__name__))
    return tuple(_check_array(caller, '%s[%d]' % (name, i), x) for i, x in enumerate(xs))


def _host(a: Any) -> numpy.ndarray:
    # The array in host memory: itself, or a copy from its GPU.
    return a if isinstance(a, numpy.ndarray) else a.get()


def _to_gpu(a: numpy.ndarray, device: Any) -> Any:
    # A host array copied to ``device`` (None: the current device).
    if device is None:
        return cuda.cupy.asarray(a)
    with device:
        return cuda.cupy.asarray(a)


def _packed_host(arrays: tuple, device: Any) -> numpy.ndarray:
    # The arrays flattened one after the other into one host array (one copy from a GPU).
    if device is None:
        return numpy.concatenate([_wire(x).reshape(-1) for x in arrays])
    with device:
        flat = cuda.cupy.concatenate([x.reshape(-1) for x in arrays]).get()
    return _wire(flat)


def _deliver(flat: numpy.ndarray, headers: list, dtype: numpy.dtype, device: Any,
             gpu: bool) -> tuple:
    # Splits a received flat host buffer into arrays of ``headers``; with ``gpu``, on
    # ``device`` (None: the current one), in one copy.
    if dtype == numpy.float16:
        flat = flat.view(numpy.float16)
    if gpu:
        flat = _to_gpu(flat, device)
    return _split(flat, headers)


def _header(a: numpy.ndarray) -> tuple:
    return a.shape, a.dtype.str


def _displacements(counts: list) -> list:
    out, o = [], 0
    for c in counts:
        out.append(o)
        o += c
    return out


# Buffers from this size on are averaged by the ring below rather than MPI_Allreduce.
_RING_BYTES = 1 << 18


def _even_counts(total: int, n: int) -> list:
    # ``total`` elements split into ``n`` nearly equal segments.
    return [total // n + (1 if k < total % n else 0) for k in range(n)]


def _same_dtype(caller: str, headers: list) -> numpy.dtype:
    dtypes = {h[1] for h in headers}
    if len(dtypes) != 1:
        raise TypeError('%s: every rank must pass arrays of one dtype, got %s'
                        % (caller, sorted(dtypes)))
    return numpy.dtype(dtypes.pop())


def _model_layout(model: Any) -> list:
    # (name, shape, dtype) of every parameter; None for an uninitialized one's.
    return [(name, None if p.array is None else p.array.shape,
             None if p.array is None else p.array.dtype.name)
            for name, p in sorted(model.namedparams())]


def _grad_layout(model: Any) -> list:
    return [(name, p.grad.shape, p.grad.dtype.name)
            for name, p in sorted(model.namedparams()) if p.grad is not None]


def _split(flat: numpy.ndarray, headers: list) -> tuple:
    out, o = [], 0
    for shape, _ in headers:
        n = int(numpy.prod(shape, dtype=numpy.int64))
        out.append(flat[o:o + n].reshape(shape))
        o += n
    return tuple(out)


class _PendingMean:
    """A mean over the ranks in flight: ``Wait()`` completes it and scales the sum."""

    def __init__(self, request: Any, buf: numpy.ndarray, scale: float) -> None:
        self.request, self.buf, self.scale = request, buf, scale

    def Wait(self) -> None:  # noqa: N802 (MPI's name)
        if self.request is not None:
            self.request.Wait()
            self.request = None
            self.buf *= self.buf.dtype.type(self.scale)


class MpiCommunicatorBase(communicator_base.CommunicatorBase):
    """A communicator on an mpi4py communicator: every collective, point-to-point and model
    operation, with the gradient averaging of the subclass.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm`` (``MPI.COMM_WORLD`` for the whole job).

    Attributes:
        mpi_comm: The mpi4py communicator.
    """

    def __init__(self, mpi_comm: Any) -> None:
        self.mpi_comm = mpi_comm
        self._watch = _stopping.Watch(mpi_comm) if mpi_comm.Get_size() > 1 else None
        self._buffers = _packing.Buffers()
        self._scratch = _packing.Buffers()
        self._device_buffers = _packing.Buffers()
        (_, self._intra_rank, self._intra_size, self._inter_rank,
         self._inter_size) = _communication_utility.init_ranks(mpi_comm)
        with self.config_scope():
            self.batched_copy = True

    @property
    def rank(self) -> int:
        """This process's rank."""
        return self.mpi_comm.rank

    @property
    def size(self) -> int:
        """The number of processes."""
        return self.mpi_comm.size

    @property
    def intra_rank(self) -> int:
        """The rank among the processes on this machine (by MPI processor name)."""
        return self._intra_rank

    @property
    def intra_size(self) -> int:
        """The number of processes on this machine."""
        return self._intra_size

    @property
    def inter_rank(self) -> int:
        """The rank of this machine, in the order of the lowest rank on each."""
        return self._inter_rank

    @property
    def inter_size(self) -> int:
        """The number of machines."""
        return self._inter_size

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Sets ``'batched_copy'`` (accepted for ChainerMN; gradients are always packed).

        Args:
            name: The configuration's name.
            value: Its value.
            kwargs: Unused.
        """
        if name == 'batched_copy':
            with self.config_scope():
                self.batched_copy = value
        else:
            super().set_config(name, value, **kwargs)

    def split(self, color: int, key: int) -> 'MpiCommunicatorBase':
        """Splits the communicator as ``MPI_Comm_split``.

        Args:
            color: Processes with the same color form one new communicator.
            key: Orders the ranks in the new communicator.

        Returns:
            A communicator of the same class on the new group.
        """
        self._sync('split')
        return type(self)(mpi_comm=self.mpi_comm.Split(color, key))

    def _sync(self, what: str, key: int = 0, check: int = 0, describe: Any = None,
              detail: Any = None, explain: Any = None, error: type = RuntimeError) -> None:
        # Meets the other ranks before a collective call (see _stopping.Watch.sync).
        if self._watch is not None:
            self._watch.sync(what, key, check, describe, detail, explain, error)

    def _await_message(self, source: int, tag: int, what: str) -> None:
        # Waits (with sleeps, watching for ranks that leave) until a message is there.
        if self._watch is None:
            return
        mpi = _mpi.mpi()
        sources = ({source} if source != mpi.ANY_SOURCE
                   else set(range(self.size)) - {self.rank})
        self._watch.wait(lambda: self.mpi_comm.Iprobe(source=source, tag=tag),
                         '%s from %s' % (what, 'any rank' if source == mpi.ANY_SOURCE
                                         else 'rank %d' % source), sources)

    # -- arrays ----------------------------------------------------------------------------

    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        """Sends an array, or a tuple/list of arrays, to rank ``dest``.

        Args:
            data: A numpy array or a tuple/list of them.
            dest: The receiver's rank.
            tag: The message tag (MPI).
        """
        is_tuple = isinstance(data, (tuple, list))
        arrays = _check_arrays('send', 'data', data) if is_tuple else (
            _check_array('send', 'data', data),)
        gpu = _packing.device_of(arrays, 'send') is not None
        self.mpi_comm.send((is_tuple, [_header(a) for a in arrays], gpu), dest=dest, tag=tag)
        for a in arrays:
            self.mpi_comm.Send(_wire(_host(a)), dest=dest, tag=tag)

    def recv(self, source: int, tag: int = 0) -> Any:
        """Receives what rank ``source`` sent with :meth:`send`.

        Args:
            source: The sender's rank.
            tag: The message tag (MPI).

        Returns:
            An array, or a tuple of arrays if a tuple or list was sent; CuPy arrays on the
            current device if the sender sent CuPy arrays.
        """
        self._await_message(source, tag, 'recv')
        is_tuple, headers, gpu = self.mpi_comm.recv(source=source, tag=tag)
        out = []
        for shape, dtype in headers:
            a = numpy.empty(shape, dtype)
            self.mpi_comm.Recv(_wire(a), source=source, tag=tag)
            out.append(_to_gpu(a, None) if gpu else a)
        return tuple(out) if is_tuple else out[0]

    def bcast(self, x: Any, root: int = 0) -> Any:
        """Broadcasts root's array.

        Args:
            x: The array on root; ignored (may be None) elsewhere.
            root: The sending rank.

        Returns:
            Root's array (on root, ``x`` itself); a CuPy array on the current device if
            root's is one.
        """
        self._sync('bcast', root, describe='bcast (root %d)' % root)
        if self.rank == root:
            _check_array('bcast', 'x', x)
            self.mpi_comm.bcast(_header(x) + (not isinstance(x, numpy.ndarray),), root=root)
            self.mpi_comm.Bcast(_wire(_host(x)), root=root)
            return x
        shape, dtype, gpu = self.mpi_comm.bcast(None, root=root)
        y = numpy.empty(shape, dtype)
        self.mpi_comm.Bcast(_wire(y), root=root)
        return _to_gpu(y, None) if gpu else y

    def gather(self, x: Any, root: int = 0) -> Optional[tuple]:
        """Gathers every rank's array on root.

        Args:
            x: This rank's array (shapes may differ between ranks, dtypes may not).
            root: The receiving rank.

        Returns:
            On root, the tuple of arrays by rank (CuPy arrays on the device of root's ``x``
            if that is one); None elsewhere.
        """
        x = _check_array('gather', 'x', x)
        self._sync('gather', root, describe='gather (root %d)' % root)
        headers = self.mpi_comm.gather(_header(x), root=root)
        if self.rank != root:
            self.mpi_comm.Gatherv(_wire(_host(x)), None, root=root)
            return None
        dtype = _same_dtype('gather', headers)
        flat, spec = self._receive_buffer(headers, dtype)
        self.mpi_comm.Gatherv(_wire(_host(x)), spec, root=root)
        gpu = not isinstance(x, numpy.ndarray)
        return _deliver(flat, headers, dtype, x.device if gpu else None, gpu)

    def allgather(self, x: Any) -> tuple:
        """Gathers every rank's array on every rank.

        Args:
            x: This rank's array (shapes may differ between ranks, dtypes may not).

        Returns:
            The tuple of arrays by rank (on ``x``'s device if it is a CuPy array).
        """
        x = _check_array('allgather', 'x', x)
        self._sync('allgather')
        headers = self.mpi_comm.allgather(_header(x))
        dtype = _same_dtype('allgather', headers)
        flat, spec = self._receive_buffer(headers, dtype)
        self.mpi_comm.Allgatherv(_wire(_host(x)), spec)
        gpu = not isinstance(x, numpy.ndarray)
        return _deliver(flat, headers, dtype, x.device if gpu else None, gpu)

    def allreduce(self, x: Any) -> Any:
        """Sums an array over the ranks.

        Args:
            x: This rank's array; every rank passes the same shape and dtype.

        Returns:
            A new array with the sum, of ``x``'s dtype (float16 is summed in float32), on
            ``x``'s device.
        """
        x = _check_array('allreduce', 'x', x)
        self._sync('allreduce')
        if not isinstance(x, numpy.ndarray):
            return self._allreduce_gpu(x)
        wire = _packing.wire_dtype(x.dtype)
        y = numpy.ascontiguousarray(x, dtype=wire).copy()
        self.mpi_comm.Allreduce(_mpi.mpi().IN_PLACE, y)
        return y.astype(x.dtype, copy=False)

    def _allreduce_gpu(self, x: Any) -> Any:
        # allreduce of a CuPy array, through host memory.
        wire = _packing.wire_dtype(x.dtype)
        y = numpy.ascontiguousarray(x.get(), dtype=wire)
        self.mpi_comm.Allreduce(_mpi.mpi().IN_PLACE, y)
        return _to_gpu(y.astype(x.dtype, copy=False), x.device)

    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Sends ``xs[i]`` from root to rank ``i``.

        Args:
            xs: On root, a tuple/list of ``size`` arrays of one dtype, or an array whose
                first axis has length ``size``; ignored elsewhere.
            root: The sending rank.

        Returns:
            This rank's piece (a CuPy array on the current device if root's are CuPy's).
        """
        if self.rank == root:
            if isinstance(xs, numpy.ndarray) or cuda.is_gpu_array(xs):
                if xs.ndim == 0 or xs.shape[0] != self.size:
                    raise ValueError('scatter: xs has shape %s; its first axis must have the '
                                     'communicator size %d' % (xs.shape, self.size))
                xs = tuple(xs)
            xs = _check_arrays('scatter', 'xs', xs)
            if len(xs) != self.size:
                raise ValueError('scatter: xs has %d arrays; it needs one per rank (%d)'
                                 % (len(xs), self.size))
            headers = [_header(x) for x in xs]
            dtype = _same_dtype('scatter', headers)
            device = _packing.device_of(xs, 'scatter')
            gpu = device is not None
            self._sync('scatter', root, describe='scatter (root %d)' % root)
            mine = self.mpi_comm.scatter([h + (gpu,) for h in headers], root=root)
            counts = [x.size for x in xs]
            send = _packed_host(xs, device) if xs else numpy.empty(0, dtype)
            spec = [send, (counts, _displacements(counts)), _mpi_type(send.dtype)]
        else:
            self._sync('scatter', root, describe='scatter (root %d)' % root)
            mine = self.mpi_comm.scatter(None, root=root)
            spec = None
        y = numpy.empty(mine[0], mine[1])
        self.mpi_comm.Scatterv(spec, _wire(y), root=root)
        return _to_gpu(y, None) if mine[2] else y

    def alltoall(self, xs: Any) -> tuple:
        """Sends ``xs[i]`` to rank ``i``; receives one array from every rank.

        Args:
            xs: A tuple/list of ``size`` arrays of one dtype (shapes may differ).

        Returns:
            The tuple of arrays received, by sender rank.
        """
        xs = _check_arrays('alltoall', 'xs', xs)
        if len(xs) != self.size:
            raise ValueError('alltoall: xs has %d arrays; it needs one per rank (%d)'
                             % (len(xs), self.size))
        headers = [_header(x) for x in xs]
        _same_dtype('alltoall', headers)
        device = _packing.device_of(xs, 'alltoall')
        self._sync('alltoall')
        received = self.mpi_comm.alltoall(headers)
        dtype = _same_dtype('alltoall', received)
        scounts = [x.size for x in xs]
        send = _packed_host(xs, device)
        flat, spec = self._receive_buffer(received, dtype)
        self.mpi_comm.Alltoallv(
            [send, (scounts, _displacements(scounts)), _mpi_type(send.dtype)], spec)
        return _deliver(flat, received, dtype, device, device is not None)

    @staticmethod
    def _receive_buffer(headers: list, dtype: numpy.dtype) -> tuple:
        # A flat buffer for arrays of these headers, and its MPI vector spec.
        counts = [int(numpy.prod(s, dtype=numpy.int64)) for s, _ in headers]
        wire = numpy.dtype(numpy.uint16) if dtype == numpy.float16 else dtype
        flat = numpy.empty(sum(counts), wire)
        return flat, [flat, (counts, _displacements(counts)), _mpi_type(wire)]

    # -- objects ---------------------------------------------------------------------------

    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        """Sends a picklable object to rank ``dest``.

        Args:
            obj: The object.
            dest: The receiver's rank.
            tag: The message tag (MPI).
        """
        self.mpi_comm.send(obj, dest=dest, tag=tag)

    def recv_obj(self, source: int, status: Any = None, tag: Any = None) -> Any:
        """Receives an object sent with :meth:`send_obj`.

        Args:
            source: The sender's rank.
            status: An ``mpi4py.MPI.Status`` to fill, or None.
            tag: The message tag; None accepts any tag.

        Returns:
            The object.
        """
        if tag is None:
            tag = _mpi.mpi().ANY_TAG
        self._await_message(source, tag, 'recv_obj')
        return self.mpi_comm.recv(source=source, status=status, tag=tag)

    def bcast_obj(self, obj: Any, max_buf_len: Optional[int] = 256 * 1024 * 1024,
                  root: int = 0) -> Any:
        """Broadcasts root's object, pickled and sent in pieces of at most ``max_buf_len`` bytes
        (MPI counts are 32-bit, so a single message tops out at 2 GiB).

        Args:
            obj: The object on root; ignored elsewhere.
            max_buf_len: The largest piece, in bytes (``1 .. 2**31 - 1``).
            root: The sending rank.

        Returns:
            Root's object.
        """
        if max_buf_len is None:
            max_buf_len = 256 * 1024 * 1024
        self._sync('bcast_obj', root, describe='bcast_obj (root %d)' % root)
        return _communication_utility.chunked_bcast_obj(obj, self.mpi_comm, max_buf_len, root)

    def gather_obj(self, obj: Any, root: int = 0) -> Optional[list]:
        """Gathers every rank's object on root.

        Args:
            obj: This rank's object.
            root: The receiving rank.

        Returns:
            On root, the list of objects by rank; None elsewhere.
        """
        self._sync('gather_obj', root, describe='gather_obj (root %d)' % root)
        return self.mpi_comm.gather(obj, root=root)

    def allreduce_obj(self, obj: Any) -> Any:
        """Sums (with ``+``) every rank's object.

        Args:
            obj: This rank's object (a number, an array, or anything with ``+``).

        Returns:
            The sum, on every rank.
        """
        self._sync('allreduce_obj')
        return self.mpi_comm.allreduce(obj)

    # -- models ----------------------------------------------------------------------------

    def bcast_data(self, model: Link) -> None:
        """Overwrites every initialized parameter of ``model`` with rank 0's, in place.

        Parameters are packed into one buffer per dtype, so one broadcast moves them all
        (a model on a GPU is packed there and staged through host memory). First the ranks
        compare a checksum of their parameters' names, shapes and dtypes: models that differ
        are an error that names the parameters and ranks.

        Args:
            model: A link; every rank's copy has the same parameters.

        Raises:
            ValueError: If the ranks' models differ in their parameters' names, shapes or
                dtypes (on every rank).
        """
        if self._watch is not None:
            layout = _model_layout(model)
            self._sync('bcast_data', check=_stopping.layout_check(layout),
                       detail=lambda: layout, error=ValueError,
                       explain=lambda infos: _stopping.explain_layouts(
                           infos, "the ranks' models", ' (every rank must build the same '
                           'model)'))
        self._bcast_arrays([p.array for p in _packing.data_params(model)], 0)

    def multi_node_mean_grad(self, model: Link, zero_fill: bool = False) -> None:
        """Replaces every gradient of ``model`` by its mean over the ranks, in place.

        All gradients are packed into one buffer (per transfer dtype) and averaged with one
        ``MPI_Allreduce``; gradients on a GPU are packed there, and the buffer crosses to
        the host and back once (each gradient keeps its dtype and device).

        Args:
            model: A link; every rank's copy has the same parameters.
            zero_fill: If True, a parameter with data but no gradient (unused in this step)
                gets a zero gradient and takes part; if False it is skipped, so it must be
                unused on every rank.
        """
        self._mean_grad(model, zero_fill, 'multi_node_mean_grad')

    def _mean_grad(self, model: Link, zero_fill: bool, what: str, key: int = 0,
                   describe: Any = None) -> None:
        # multi_node_mean_grad, its meeting being ``what`` (``key``, ``describe``) and the
        # gradients' layout.
        params = _packing.grad_params(model, zero_fill)
        if self.size == 1 and not configuration.config.debug:
            return  # the mean over one rank is the gradient itself
        self._sync_grads(model, params, what, key, describe)
        grads = [p.grad for p in params]
        for dtype, idx in _packing.group(grads, self._transfer_dtype).items():
            group = [grads[i] for i in idx]
            n = sum(g.size for g in group)
            device = _packing.device_of(group, what)
            if device is not None:
                self._mean_gpu(group, dtype, n, device)
                continue
            buf = self._buffers.get(dtype, n)
            _packing.pack(group, buf)
            _packing.unpack(buf, group, self._reduce_sum(buf))

    def _mean_gpu(self, arrays: list, dtype: numpy.dtype, n: int, device: Any) -> None:
        # Replaces GPU ``arrays`` (``n`` elements on ``device``) by their mean over the
        # ranks, packed there in ``dtype`` and reduced in host memory.
        buf = self._buffers.get(dtype, n)
        _packing.pack_to_host(arrays, buf, self._device_buffers, device)
        scale = self._reduce_sum(buf)
        _packing.unpack_from_host(buf, arrays, self._device_buffers, device, scale)

    def _sync_grads(self, model: Link, params: list, what: str, key: int = 0,
                   describe: Any = None) -> None:
        """Meets the other ranks before exchanging ``params``' gradients; checks the layout.

        Args:
            model: The link the parameters belong to (to name them in an error).
            params: The parameters whose gradients are exchanged, in order.
            what: The call (the ranks must agree).
            key: A number the ranks must agree on (an update number).
            describe: Text of this rank's call (or a callable giving it), for messages.

        Raises:
            RuntimeError: If the ranks are out of step, or exchange different gradients.
        """
        if self._watch is None:
            return
        sizes: dict = {}
        for p in params:
            n, total = sizes.get(p.grad.dtype.str, (0, 0))
            sizes[p.grad.dtype.str] = (n + 1, total + p.grad.size)
        self._sync(what, key, check=_stopping.layout_check(sorted(sizes.items())),
                   describe=describe, detail=lambda: _grad_layout(model),
                   explain=lambda infos: _stopping.explain_layouts(
                       infos, 'the gradients the ranks exchange', ' (with zero_fill=False, '
                       'every rank must leave the same parameters unused)'))

    def _reduce_sum(self, buf: numpy.ndarray) -> float:
        # Sums a flat buffer over the ranks in place; returns the factor giving the mean.
        if configuration.config.debug:
            self._check_same_layout(buf)
        if buf.nbytes >= _RING_BYTES and self.size > 1:
            counts = _even_counts(buf.size, self.size)
            self._ring_reduce_scatter(buf, counts)
            self._ring_allgather(buf, counts)
        else:
            self.mpi_comm.Allreduce(_mpi.mpi().IN_PLACE, buf)
        if configuration.config.debug and not numpy.isfinite(buf).all():
            raise ValueError('multi_node_mean_grad: parameters diverged after allreduce: the '
                             'averaged gradients are not finite (debug mode)')
        return 1.0 / self.size

    def _ring_reduce_scatter(self, buf: numpy.ndarray, counts: list) -> None:
        # Sums a flat buffer over the ranks, segment by segment (``counts[k]`` elements for
        # rank k, in rank order): afterwards this rank's segment of ``buf`` holds the sum of
        # every rank's segment; the other segments hold partial sums. A ring of size - 1
        # exchanges with the neighbours, each a single large message: on shared memory Open
        # MPI moves it with one copy, where its Allreduce and Reduce_scatter of a few MB go
        # through many small fragments and stall whenever either process is descheduled.
        n, r = self.size, self.rank
        displs = _displacements(counts)
        right, left = (r + 1) % n, (r - 1) % n
        tmp = self._scratch.get(buf.dtype, max(counts))
        for step in range(n - 1):
            send = (r - step - 1) % n
            recv = (r - step - 2) % n
            got = tmp[:counts[recv]]
            self.mpi_comm.Sendrecv(buf[displs[send]:displs[send] + counts[send]], right, 77,
                                   got, left, 77)
            mine = buf[displs[recv]:displs[recv] + counts[recv]]
            numpy.add(mine, got, out=mine)

    def _ring_allgather(self, buf: numpy.ndarray, counts: list) -> None:
        # The inverse: every rank's segment of ``buf`` (``counts`` as above) to every rank.
        n, r = self.size, self.rank
        displs = _displacements(counts)
        right, left = (r + 1) % n, (r - 1) % n
        for step in range(n - 1):
            send = (r - step) % n
            recv = (r - step - 1) % n
            self.mpi_comm.Sendrecv(buf[displs[send]:displs[send] + counts[send]], right, 78,
                                   buf[displs[recv]:displs[recv] + counts[recv]], left, 78)

    def _reduce_scatter_sum(self, buf: numpy.ndarray, counts: list) -> float:
        # Sums a flat buffer over the ranks into this rank's segment (``counts[k]`` elements
        # for rank k, in rank order); returns the factor giving the mean. The other segments
        # are left with partial sums.
        if configuration.config.debug:
            self._check_same_layout(buf)
        self._ring_reduce_scatter(buf, counts)
        return 1.0 / self.size

    def _reduce_scatter_arrays(self, groups: list) -> float:
        # Sums arrays over the ranks, ``groups[k]`` being the arrays rank k receives the sums
        # of (the same shapes and one dtype on every rank): afterwards this rank's group
        # holds the sums; the other groups are unspecified. Returns the factor giving the
        # mean. Two processes send each other the arrays directly (nothing is packed);
        # more go round the ring on a packed buffer.
        mine = groups[self.rank]
        if configuration.config.debug:
            self._check_same_layout(numpy.empty(sum(a.size for g in groups for a in g)))
        if self.size == 2:
            mpi = _mpi.mpi()
            peer = 1 - self.rank
            tmp = self._scratch.get(mine[0].dtype if mine else numpy.float32,
                                    sum(a.size for a in mine))
            parts, requests, o = [], [], 0
            for a in mine:
                parts.append(tmp[o:o + a.size])
                requests.append(self.mpi_comm.Irecv(parts[-1], source=peer, tag=79))
                o += a.size
            for a in groups[peer]:
                requests.append(self.mpi_comm.Isend(numpy.ascontiguousarray(a), dest=peer,
                                                    tag=79))
            mpi.Request.Waitall(requests)
            for a, part in zip(mine, parts):
                a += part.reshape(a.shape)
            return 0.5
        arrays = [a for g in groups for a in g]
        counts = [sum(a.size for a in g) for g in groups]
        buf = self._buffers.get(arrays[0].dtype, sum(counts))
        _packing.pack(arrays, buf)
        scale = self._reduce_scatter_sum(buf, counts)
        start = sum(counts[:self.rank])
        _packing.unpack(buf[start:start + counts[self.rank]], mine)
        return scale

    def _allgather_segments(self, buf: numpy.ndarray, counts: list) -> None:
        # Every rank's segment of a flat buffer (as in _reduce_scatter_sum) to every rank.
        self._ring_allgather(buf, counts)

    def _bcast_arrays(self, arrays: list, root: int) -> None:
        # Overwrites ``arrays`` (same shapes and dtypes on every rank) with root's, in place,
        # packed into one broadcast per dtype (GPU arrays packed on their device).
        for dtype, idx in _packing.group(arrays, numpy.dtype).items():
            group = [arrays[i] for i in idx]
            n = sum(a.size for a in group)
            device = _packing.device_of(group, 'bcast_data')
            if device is not None:
                self._bcast_gpu(group, dtype, n, device, root)
                continue
            buf = self._buffers.get(dtype, n)
            if self.rank == root:
                _packing.pack(group, buf)
            self.mpi_comm.Bcast(_wire(buf), root=root)
            if self.rank != root:
                _packing.unpack(buf, group)

    def _bcast_gpu(self, arrays: list, dtype: numpy.dtype, n: int, device: Any,
                   root: int) -> None:
        # _bcast_arrays of GPU arrays of ``dtype`` (``n`` elements on ``device``), through
        # host memory.
        buf = self._buffers.get(dtype, n)
        if self.rank == root:
            _packing.pack_to_host(arrays, buf, self._device_buffers, device)
        self.mpi_comm.Bcast(_wire(buf), root=root)
        if self.rank != root:
            _packing.unpack_from_host(buf, arrays, self._device_buffers, device)

    def _transfer_dtype(self, dtype: numpy.dtype) -> numpy.dtype:
        # The dtype a gradient travels in; subclasses choose.
        return _packing.wire_dtype(dtype)

    def _reduce_mean(self, buf: numpy.ndarray) -> None:
        # The mean over the ranks of a flat buffer, in place.
        scale = self._reduce_sum(buf)
        if scale != 1.0:
            buf *= buf.dtype.type(scale)

    def _start_reduce_mean(self, buf: numpy.ndarray) -> '_PendingMean':
        # Starts averaging a flat buffer in place (MPI_Iallreduce); Wait() finishes it.
        request = self.mpi_comm.Iallreduce(_mpi.mpi().IN_PLACE, buf)
        return _PendingMean(request, buf, 1.0 / self.size)

    def _check_same_layout(self, buf: numpy.ndarray) -> None:
        layouts = self.mpi_comm.allgather((buf.size, buf.dtype.str))
        if len(set(layouts)) != 1:
            raise ValueError('multi_node_mean_grad: the ranks pack different gradients '
                             '(elements, dtype by rank: %s); pass zero_fill=True when some '
                             'parameters are unused on some ranks' % layouts)

    def _multi_node_mean(self, sendbuf: Any, recvbuf: numpy.ndarray) -> None:
        """Stores the mean over the ranks of ``sendbuf`` (of ``recvbuf`` if None) in ``recvbuf``.

        Args:
            sendbuf: The array to average, or None to average ``recvbuf`` in place.
            recvbuf: The output array (any float dtype; float16 is averaged in float32);
                a CuPy array is written in place on its device.
        """
        src = recvbuf if sendbuf is None else sendbuf
        wire = _packing.wire_dtype(recvbuf.dtype)
        if not isinstance(recvbuf, numpy.ndarray):
            self._multi_node_mean_gpu(src, recvbuf, wire)
            return
        tmp = numpy.ascontiguousarray(_host(src), dtype=wire).copy()
        self._reduce_mean(tmp.reshape(-1))
        recvbuf[...] = tmp

    def _multi_node_mean_gpu(self, src: Any, recvbuf: Any, wire: numpy.dtype) -> None:
        # _multi_node_mean into a CuPy ``recvbuf``, through host memory.
        tmp = numpy.array(_host(src), dtype=wire)
        self._reduce_mean(tmp.reshape(-1))
        recvbuf[...] = _to_gpu(tmp, recvbuf.device)
