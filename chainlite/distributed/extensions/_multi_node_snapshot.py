"""Snapshots of a distributed run: written by one rank per replica set, loaded by all."""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from chainlite.serializers import npz
from chainlite.training import extension
from chainlite.training.extensions import _snapshot

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.training.trainer import Trainer


def multi_node_snapshot(comm: CommunicatorBase, snapshot: Any, replica_sets: Any) -> Any:
    """Wraps a snapshot extension for a multi-process run.

    Ranks whose snapshot targets are identical form a replica set; only its lowest rank
    (the master) writes, to the snapshot's file name with ``.<rank>`` appended. With
    ``autoload``, the master loads its newest snapshot and sends the loaded state to the
    rest of its set, so a restarted job (even with another number of processes in a set)
    resumes where it stopped.

    ``replica_sets`` lists the sets, each a rank or an iterable of ranks; ranks not named
    form one more set. ``[0]`` (usual when only rank 0 has reporting extensions) means
    ``{0}`` and ``{1, .., size-1}``; ``[]`` means one set of all ranks.

    Args:
        comm: A communicator.
        snapshot: A :func:`~chainlite.training.extensions.snapshot` extension.
        replica_sets: The replica sets, as above.

    Returns:
        The wrapping extension.

    Example:
        ::

            snap = multi_node_snapshot(comm, extensions.snapshot(autoload=True), [0])
            trainer.extend(snap, trigger=(1, 'epoch'))
    """
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)


def _parse_replica_sets(replica_sets: Any, size: int) -> list:
    sets = []
    for spec in replica_sets:
        members = {spec} if isinstance(spec, int) else set(spec)
        for r in members:
            if not (isinstance(r, int) and 0 <= r < size):
                raise ValueError('multi_node_snapshot: replica_sets names rank %r, outside '
                                 '0 .. %d' % (r, size - 1))
        sets.append(members)
    named = set().union(*sets) if sets else set()
    if sum(len(s) for s in sets) != len(named):
        raise ValueError('multi_node_snapshot: a rank is in two replica sets: %s' % sets)
    rest = set(range(size)) - named
    if rest:
        sets.append(rest)
    return sets


class _MultiNodeSnapshot(extension.Extension):

    def __init__(self, comm: CommunicatorBase, snapshot: Any, replica_sets: Any) -> None:
        self.comm = comm
        self.snapshot = snapshot
        self.trigger = getattr(snapshot, 'trigger', (1, 'epoch'))
        self.priority = getattr(snapshot, 'priority', extension.PRIORITY_READER)
        if callable(snapshot.filename):
            inner = snapshot.filename
            snapshot.filename = lambda trainer: '%s.%d' % (inner(trainer), comm.rank)
        else:
            snapshot.filename = '%s.%d' % (snapshot.filename, comm.rank)
        for members in _parse_replica_sets(replica_sets, comm.size):
            if comm.rank in members:
                self.replica_set = members
                self.master = min(members)

    @property
    def is_master(self) -> bool:
        """Whether this rank writes (and loads) its replica set's snapshots."""
        return self.master == self.comm.rank

    def initialize(self, trainer: Trainer) -> None:
        """Loads the newest snapshot (with ``autoload``) and shares it within the replica set.
        """
        if self.is_master:
            self.snapshot.initialize(trainer)
        if not self.snapshot.autoload:
            return
        target = trainer if self.snapshot._target is None else self.snapshot._target
        if self.is_master:
            data = None
            if _snapshot._find_snapshot_files(self.snapshot.filename, trainer.out):
                buf = io.BytesIO()
                npz.save_npz(buf, target)
                data = buf.getvalue()
            for rank in sorted(self.replica_set - {self.comm.rank}):
                self.comm.send_obj(data, dest=rank)
        else:
            data = self.comm.recv_obj(source=self.master)
            if data is not None:
                npz.load_npz(io.BytesIO(data), target)

    def on_error(self, trainer: Trainer, exc: BaseException, tb: Any) -> None:
        """Forwards to the snapshot on the master."""
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def __call__(self, trainer: Trainer) -> None:
        """Takes the snapshot on the master."""
        # An optimizer with shard_update=True holds parts of its state on each rank: every
        # rank takes part in gathering it before the masters save.
        get_all = getattr(trainer.updater, 'get_all_optimizers', None)
        for opt in (get_all() if get_all is not None else {}).values():
            gather = getattr(opt, '_gather_state', None)
            if gather is not None:
                gather()
        if self.is_master:
            self.snapshot(trainer)

    def finalize(self) -> None:
        """Finalizes the snapshot on the master."""
        if self.is_master:
            self.snapshot.finalize()
