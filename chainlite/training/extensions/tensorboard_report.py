"""TensorBoardReport: the means of observed values as TensorBoard event files (tensorboardX)."""
from __future__ import annotations

import glob
import importlib
import os
import struct
import uuid
from typing import TYPE_CHECKING, Any, Iterable, Optional

from chainlite import backend
from chainlite import reporter
from chainlite.training import extension
from chainlite.training import triggers
from chainlite.training.extensions import log_report

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec

_MISSING = ('%s: tensorboardX is not installed, so no TensorBoard event file will be written '
            '(training is not affected); to get them, install tensorboardX '
            '(pip install tensorboardX, or the extra: pip install "chainlite-dl[tensorboard]")')
_noted: set = set()  # the extensions that said so already
_CPU = backend.CpuDevice()


def _summary_writer_class() -> Any:
    try:
        return importlib.import_module('tensorboardX').SummaryWriter
    except ImportError:
        return None


def tensorboard_available(extension_name: str = 'TensorBoardReport') -> bool:
    """Whether tensorboardX can be imported; if not, says so once per extension and process.

    A note on standard error rather than a warning, as :class:`PlotReport` does: a missing
    optional log is not a fault of the script, and ``python -W error`` should still train.
    """
    if _summary_writer_class() is not None:
        return True
    extension.note_missing_once(_noted, extension_name, _MISSING)
    return False


class TensorBoardReport(extension.Extension):
    """Writes the means of observed values (and optionally parameter histograms) for TensorBoard.

    Like :class:`LogReport`, it adds every iteration's observation to a summary and, when
    ``trigger`` fires, writes the mean of each key as a scalar whose step is the iteration;
    ``histograms=True`` also writes a histogram of every parameter of the updater's
    optimizers' targets (tag ``params/<optimizer>/<path>``, e.g. ``params/main/l1/W``).
    The event files go to ``logdir`` (relative paths are under ``trainer.out``;
    None means ``trainer.out`` itself): run ``tensorboard --logdir <trainer.out>``.
    The writer opens at the first write and is flushed after each one, closed at the end.

    Snapshots keep the trigger and the running summary, nothing else (no paths). A run
    resumed from a snapshot writes a new event file into the same directory, starting with a
    marker that tells TensorBoard to drop the older file's points after the snapshot's
    iteration (``purge_step``), so the curves continue without duplicates.

    It writes with tensorboardX (``pip install tensorboardX``, or the extra
    ``pip install "chainlite-dl[tensorboard]"``); without it, it prints a note to standard
    error once per process and does nothing.

    Args:
        keys: The observation keys to write; None writes every numeric scalar observed.
        trigger: When to close an interval and write: a trigger, or ``(period, unit)``.
        logdir: The directory of the event files; relative to ``trainer.out``.
        histograms: Whether to write a histogram of each parameter at each write.

    Example:
        >>> import os, tempfile
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> report = extensions.TensorBoardReport(trigger=(2, 'iteration'))
        >>> updater = SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
        >>> trainer = SimpleNamespace(updater=updater, out=tempfile.mkdtemp(), observation={})
        >>> for i, loss in enumerate([4.0, 2.0, 1.0, 0.5], 1):
        ...     updater.iteration = i
        ...     trainer.observation = {'main/loss': loss}
        ...     report(trainer)
        >>> report.finalize()
        >>> if extensions.tensorboard_report.tensorboard_available():
        ...     print(extensions.tensorboard_report.read_scalars(trainer.out)['main/loss'])
        ... else:
        ...     print([(2, 3.0), (4, 0.75)])
        [(2, 3.0), (4, 0.75)]
    """

    def __init__(self, keys: Optional[Iterable[str]] = None, trigger: TriggerSpec = (1, 'epoch'),
                 logdir: Optional[str] = None, histograms: bool = False) -> None:
        self._keys = None if keys is None else list(keys)
        self._trigger = triggers.get_trigger(trigger)
        self._logdir = logdir
        self._histograms = histograms
        self._summary = reporter.DictSummary()
        self._writer: Any = None
        self._start_iteration = 0

    def initialize(self, trainer: Trainer) -> None:
        """Notes the iteration training starts from (after a resume, the snapshot's)."""
        self._start_iteration = trainer.updater.iteration

    def __call__(self, trainer: Trainer) -> None:
        """Adds the current observation; writes the means when the trigger fires."""
        log_report.add_observation(self._summary, trainer.observation, self._keys)
        if self._trigger(trainer):
            self._write(trainer)

    def _open(self, trainer: Trainer) -> Any:
        SummaryWriter = _summary_writer_class()
        logdir = os.path.join(trainer.out, self._logdir or '')
        os.makedirs(logdir, exist_ok=True)
        # A resumed run hides what an earlier run wrote after the snapshot's iteration.
        purge_step = self._start_iteration + 1 if self._start_iteration else None
        # tensorboardX names files by the second and opens them with 'wb': a suffix keeps
        # two writers in one second apart, and sorts a resumed run's file after the first.
        suffix = '.it%09d.%s' % (self._start_iteration, uuid.uuid4().hex[:8])
        return SummaryWriter(logdir=logdir, purge_step=purge_step, filename_suffix=suffix)

    def _write(self, trainer: Trainer) -> None:
        means = self._summary.compute_mean()
        self._summary = reporter.DictSummary()
        if not tensorboard_available(type(self).__name__):
            return
        if self._writer is None:
            self._writer = self._open(trainer)
        step = trainer.updater.iteration
        for name, value in means.items():
            self._writer.add_scalar(name, float(value), step)
        if self._histograms:
            for opt_name, optimizer in trainer.updater.get_all_optimizers().items():
                if optimizer.target is None:
                    continue
                for path, param in optimizer.target.namedparams():
                    if param.array is not None:
                        values = _CPU.send(param.array).ravel()
                        self._writer.add_histogram('params/%s%s' % (opt_name, path), values,
                                                   step)
        self._writer.flush()

    def finalize(self) -> None:
        """Closes the event file."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the trigger and the running summary."""
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        self._summary.serialize(serializer['_summary'])


def _records(path: str) -> Iterable[bytes]:
    # TFRecord framing: length (uint64), its CRC, the data, the data's CRC (CRCs unchecked).
    with open(path, 'rb') as f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return
            length, = struct.unpack('<Q', header[:8])
            data = f.read(length)
            f.read(4)
            yield data


def read_scalars(logdir: str) -> dict[str, list[tuple[int, float]]]:
    """Reads back the scalars of the event files in ``logdir`` (needs tensorboardX).

    A small reader for tests and scripts; TensorBoard itself, or
    ``tensorboard.backend.event_processing.event_accumulator``, reads the same files.

    Args:
        logdir: A directory holding ``events.out.tfevents.*`` files (not searched
            recursively), read in file name order (which is creation order).

    Returns:
        A dictionary from tag to its ``(step, value)`` pairs, in the order written (values
        are stored as float32). A resumed run's purge marker drops the earlier points from
        its step on, as TensorBoard does.
    """
    event_pb2 = importlib.import_module('tensorboardX.proto.event_pb2')
    scalars: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(glob.glob(os.path.join(logdir, 'events.out.tfevents.*'))):
        for data in _records(path):
            event = event_pb2.Event.FromString(data)
            if event.HasField('session_log') and event.step:
                # A purge marker (purge_step): later points replace those from that step on.
                for points in scalars.values():
                    points[:] = [(s, v) for s, v in points if s < event.step]
            for value in event.summary.value:
                if value.HasField('simple_value'):
                    scalars.setdefault(value.tag, []).append(
                        (event.step, float(value.simple_value)))
    return scalars
