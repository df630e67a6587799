"""Generational checkpoints of a distributed run (ChainerMN's older checkpointer)."""
from __future__ import annotations

import os
import time
import warnings
from typing import TYPE_CHECKING, Any, Optional

from chainlite.serializers import npz
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.training.trainer import Trainer


def create_multi_node_checkpointer(name: str, comm: CommunicatorBase, cp_interval: int = 5,
                                   gc_interval: int = 5, path: Optional[str] = None) -> Any:
    """Creates a checkpointer: each rank saves ``<name>.<rank>.<iteration>`` files.

    As a trainer extension it saves the trainer at its trigger; ``maybe_load(trainer)``
    before ``trainer.run()`` resumes from the newest iteration that every rank has saved.
    Old files are removed, keeping the ``cp_interval`` newest common ones, and
    :meth:`finalize` removes them all once training ends normally. Deprecated, as in
    ChainerMN, in favour of :func:`~chainlite.distributed.extensions.multi_node_snapshot`.

    Args:
        name: The run's identifier (part of every file name; no dots).
        comm: A communicator.
        cp_interval: How many checkpoints to keep.
        gc_interval: Unused beyond validation (ChainerMN's knob).
        path: The directory; the trainer's ``out`` if None.

    Returns:
        The checkpointer extension.

    Example:
        ::

            checkpointer = create_multi_node_checkpointer('run1', comm)
            trainer.extend(checkpointer, trigger=(100, 'iteration'))
            checkpointer.maybe_load(trainer, optimizer)
            trainer.run()
    """
    warnings.warn('create_multi_node_checkpointer is deprecated; use '
                  'chainlite.distributed.extensions.multi_node_snapshot', DeprecationWarning,
                  stacklevel=2)
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)


class _MultiNodeCheckpointer(extension.Extension):

    def __init__(self, name: str, comm: CommunicatorBase, cp_interval: int, gc_interval: int,
                 path: Optional[str]) -> None:
        if not name or '.' in name:
            raise ValueError('create_multi_node_checkpointer: name must be a non-empty string '
                             'without dots, got %r' % (name,))
        if cp_interval <= 0 or gc_interval <= 0:
            raise ValueError('create_multi_node_checkpointer: cp_interval and gc_interval '
                             'must be positive, got %r and %r' % (cp_interval, gc_interval))
        self.name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        self.files: list = []
        self._durations: list = []
        if path is not None:
            os.makedirs(path, exist_ok=True)

    def __call__(self, trainer: Trainer) -> None:
        """Saves the trainer (every rank, at the same iteration)."""
        if self.path is None:
            self.path = trainer.out
        self.save(trainer, trainer.updater.iteration)

    def save(self, target: Any, iteration: int) -> None:
        """Saves ``target`` as this rank's checkpoint of ``iteration`` (atomically).

        Args:
            target: The object to save (usually the trainer).
            iteration: The iteration number in the file name.
        """
        directory = self._directory('save')
        os.makedirs(directory, exist_ok=True)
        filename = self._filename(iteration)
        start = time.perf_counter()
        npz.save_npz(os.path.join(directory, filename), target)
        self._durations.append(time.perf_counter() - start)
        self.files.append(filename)
        if len(self.files) - self.cp_interval > 5:
            self._sync_file_list(remove_remainder=True)

    def finalize(self) -> None:
        """Removes this rank's checkpoint files."""
        if self.path is not None:  # (no path: nothing was saved)
            for filename in self.files:
                try:
                    os.remove(os.path.join(self.path, filename))
                except OSError:
                    pass
        self.files = []

    def get_stats(self) -> str:
        """Average, shortest and longest save time so far, as text."""
        if not self._durations:
            return 'No stats available'
        d = self._durations
        return ('Snapshot duration stats (sec): avg=%f, min=%f, max=%f'
                % (sum(d) / len(d), min(d), max(d)))

    def _directory(self, caller: str) -> str:
        if self.path is None:
            raise RuntimeError('_MultiNodeCheckpointer.%s: no directory: pass path= or let '
                               'the trainer call the extension first (it uses trainer.out)'
                               % caller)
        return self.path

    def _filename(self, iteration: int) -> str:
        return '%s.%d.%d' % (self.name, self.comm.rank, iteration)

    def _iterations(self, filenames: list, rank: int) -> list:
        out = []
        for f in filenames:
            parts = f.split('.')
            if len(parts) == 3 and parts[0] == self.name and parts[1] == str(rank) \
                    and parts[2].isdigit():
                out.append(int(parts[2]))
        return out

    def _sync_file_list(self, remove_remainder: bool = False) -> None:
        gathered = self.comm.gather_obj(self._iterations(self.files, self.comm.rank))
        common: Any = None
        if self.comm.rank == 0 and gathered is not None:
            common = set(gathered[0])
            for iterations in gathered[1:]:
                common &= set(iterations)
            common = sorted(common)[-self.cp_interval:]
        common = self.comm.bcast_obj(common)
        keep = [self._filename(i) for i in common]
        if remove_remainder:
            for filename in set(self.files) - set(keep):
                try:
                    os.remove(os.path.join(self._directory('save'), filename))
                except OSError:
                    pass
        self.files = keep

    def maybe_load(self, trainer: Trainer, optimizer: Any = None,
                   path: Optional[str] = None) -> None:
        """Loads the newest checkpoint that every rank has, if any (every rank calls it).

        Args:
            trainer: The object to load into (usually the trainer).
            optimizer: Accepted for ChainerMN; unused.
            path: The directory, if not given at creation; the trainer's ``out`` otherwise.
        """
        if self.path is None:
            self.path = path if path is not None else trainer.out
        try:
            local = os.listdir(self.path)
        except OSError:
            local = []
        self.files = [self._filename(i) for i in self._iterations(local, self.comm.rank)]
        self._sync_file_list()
        iterations = self._iterations(self.files, self.comm.rank)
        if iterations:
            npz.load_npz(os.path.join(self.path, self._filename(max(iterations))), trainer)
