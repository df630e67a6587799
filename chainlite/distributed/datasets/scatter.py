"""Splitting a dataset among the ranks."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite.datasets import sub_dataset

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.dataset.dataset_mixin import DatasetLike


class DataSizeError(RuntimeError):
    """Raised when a dataset is too large to be scattered."""


def scatter_dataset(dataset: DatasetLike, comm: CommunicatorBase, root: int = 0,
                    shuffle: bool = False,
                    seed: Optional[int] = None, max_buf_len: int = 256 * 1024 * 1024,
                    *, force_equal_length: bool = True) -> Any:
    """Gives every rank its part of root's dataset.

    Root's dataset (the argument is ignored on other ranks, and may be None there) is
    broadcast, optionally in a shuffled order, and each rank keeps a contiguous slice of it
    as a :class:`~chainlite.datasets.SubDataset`.

    Args:
        dataset: The dataset on root (list, array, ``TupleDataset``, ...).
        comm: A communicator.
        root: The rank holding the dataset.
        shuffle: If True, the examples are permuted before splitting.
        seed: The permutation's seed (an int gives the same split on every run); a random
            one if None.
        max_buf_len: The largest broadcast piece, in bytes.
        force_equal_length: If True, every rank gets ``ceil(n / size)`` examples (some are
            then on two ranks), as the multi-node evaluator and updaters expect; if False
            the slices do not overlap and their lengths differ by at most one.

    Returns:
        This rank's ``SubDataset``.

    Example:
        ::

            train = chainlite.datasets.get_digits()[0] if comm.rank == 0 else None
            train = chainlite.distributed.scatter_dataset(train, comm, shuffle=True)
    """
    if not 0 <= root < comm.size:
        raise ValueError('scatter_dataset: root must be a rank in 0 .. %d, got %r'
                         % (comm.size - 1, root))
    data = None
    if comm.rank == root:
        if dataset is None:
            raise ValueError('scatter_dataset: the dataset on root (rank %d) is None' % root)
        order = (numpy.random.RandomState(seed).permutation(len(dataset))
                 if shuffle else None)
        data = (dataset, order)
    dataset, order = comm.bcast_obj(data, max_buf_len=max_buf_len, root=root)
    b, e = scatter_index(len(dataset), comm, root, force_equal_length=force_equal_length)
    return sub_dataset.SubDataset(dataset, b, e, order)


def scatter_index(n_total_samples: int, comm: CommunicatorBase, root: int = 0, *,
                  force_equal_length: bool = True) -> tuple[int, int]:
    """Returns this rank's ``(begin, end)`` slice of ``n_total_samples`` examples.

    The core of :func:`scatter_dataset`, for datasets every rank can load itself: only the
    indices travel.

    Args:
        n_total_samples: The number of examples (root's value counts).
        comm: A communicator.
        root: The rank that decides.
        force_equal_length: See :func:`scatter_dataset`.

    Returns:
        ``(begin, end)``, end excluded.

    Example:
        ::

            b, e = scatter_index(len(dataset), comm)
            mine = chainlite.datasets.SubDataset(dataset, b, e)
    """
    if comm.rank == root:
        mine = (0, 0)
        for i, b, e in _scatter_index(int(n_total_samples), comm.size, force_equal_length):
            if i == root:
                mine = (b, e)
            else:
                comm.send_obj((b, e), dest=i)
        return mine
    return comm.recv_obj(source=root)


def _scatter_index(n: int, size: int, force_equal_length: bool) -> list:
    if n < 0:
        raise ValueError('scatter_index: n_total_samples must be >= 0, got %d' % n)
    if force_equal_length:
        length = -(-n // size)
        return [(i, n * i // size, n * i // size + length) for i in range(size)]
    out, b = [], 0
    for i in range(size):
        e = b + n // size + (1 if i < n % size else 0)
        out.append((i, b, e))
        b = e
    return out


def get_n_iterations_for_one_epoch(dataset: Any, local_batch_size: int, comm: Any) -> int:
    """Deprecated as in ChainerMN (warns): the iterations of one epoch of rank 0's dataset.

    Use an ``(n, 'epoch')`` trigger instead.

    Args:
        dataset: This rank's part of the dataset.
        local_batch_size: The batch size of each rank.
        comm: A communicator (``bcast_obj`` is called on every rank).

    Returns:
        ``ceil(len(dataset) / local_batch_size)`` on rank 0, broadcast to all ranks.
    """
    warnings.warn('get_n_iterations_for_one_epoch is deprecated. Please use standard epoch '
                  'triggers.', DeprecationWarning, stacklevel=2)
    n_iterations = None
    if comm.rank == 0:
        n_iterations = -(-len(dataset) // local_batch_size)
    return comm.bcast_obj(n_iterations)


def get_epoch_trigger(n_epochs: int, dataset: Any, local_batch_size: int,
                      comm: Any) -> tuple[int, str]:
    """Deprecated as in ChainerMN (warns): an iteration trigger as long as ``n_epochs``.

    Args:
        n_epochs: The number of epochs.
        dataset: This rank's part of the dataset.
        local_batch_size: The batch size of each rank.
        comm: A communicator.

    Returns:
        ``(n_epochs * get_n_iterations_for_one_epoch(...), 'iteration')``.
    """
    warnings.warn('get_epoch_trigger is deprecated. Please use standard epoch triggers.',
                  DeprecationWarning, stacklevel=2)
    return n_epochs * get_n_iterations_for_one_epoch(dataset, local_batch_size, comm), \
        'iteration'
