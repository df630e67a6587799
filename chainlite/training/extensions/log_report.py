"""LogReport: averages of the observations over each interval, kept and written as JSON."""
from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from chainlite import reporter
from chainlite import serializer as serializer_module
from chainlite.serializers import _atomic
from chainlite.training import extension
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec


def add_observation(summary: reporter.DictSummary, observation: dict,
                    keys: Optional[list] = None) -> None:
    """Adds ``observation`` (only its ``keys``, where given) to ``summary``."""
    if keys is None:
        summary.add(observation)
    else:
        summary.add({k: observation[k] for k in keys if k in observation})

class LogReport(extension.Extension):
    """Averages the trainer's observations over intervals and logs the means to a JSON file.

    Called every iteration, it adds the observation of the iteration to a
    :class:`~chainlite.DictSummary`. When its own ``trigger`` fires (every epoch by default)
    it appends the means, plus ``'epoch'``, ``'iteration'`` and ``'elapsed_time'``, to
    :attr:`log`, rewrites the whole log as a JSON list in ``trainer.out`` (atomically: a
    temporary file renamed onto the log) and starts a new summary. :class:`PrintReport` and
    :class:`PlotReport` read the log.

    Args:
        keys: The observation keys to log; None logs every numeric scalar.
        trigger: When to close an interval and write: a trigger, or ``(period, unit)``.
        postprocess: Called with each result dictionary before it is logged; it may edit it.
        filename: The log's file name in ``trainer.out``; a template formatted with the result
            (``'log_{iteration}'``). None falls back to ``log_name``.
        log_name: Chainer's older name of ``filename`` (keyword only); ``'log'`` by default.
            With both None, nothing is written to disk.

    Example:
        >>> import json, os, tempfile
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> log_report = extensions.LogReport(trigger=(2, 'iteration'))
        >>> updater = SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
        >>> trainer = SimpleNamespace(updater=updater, out=tempfile.mkdtemp(),
        ...                           elapsed_time=1.5, observation={})
        >>> for i, loss in enumerate([4.0, 2.0, 1.0, 0.5], 1):
        ...     updater.iteration = i
        ...     trainer.observation = {'main/loss': loss}
        ...     log_report(trainer)
        >>> [entry['main/loss'] for entry in log_report.log]
        [3.0, 0.75]
        >>> with open(os.path.join(trainer.out, 'log')) as f:
        ...     json.load(f)[-1]
        {'main/loss': 0.75, 'epoch': 0, 'iteration': 4, 'elapsed_time': 1.5}
    """

    def __init__(self, keys: Optional[Iterable[str]] = None, trigger: TriggerSpec = (1, 'epoch'),
                 postprocess: Optional[Callable[[dict], Any]] = None,
                 filename: Optional[str] = None, *, log_name: Optional[str] = 'log') -> None:
        self._keys = None if keys is None else list(keys)
        self._trigger = triggers.get_trigger(trigger)
        self._postprocess = postprocess
        self._log_name = log_name if filename is None else filename
        self._log: list = []
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Trainer) -> None:
        """Adds the current observation; logs the means when the trigger fires."""
        add_observation(self._summary, trainer.observation, self._keys)
        if getattr(trainer, 'is_before_training', False) or self._trigger(trainer):
            self._emit(trainer)

    def _emit(self, trainer: Trainer) -> None:
        result = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        result['epoch'] = updater.epoch
        result['iteration'] = updater.iteration
        result['elapsed_time'] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(result)
        self._log.append(result)
        if self._log_name is not None:
            path = os.path.join(trainer.out, self._log_name.format(**result))
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with _atomic.replacing(path) as tmp:
                with open(tmp, 'x') as f:
                    json.dump(self._log, f, indent=4)
        self._summary = reporter.DictSummary()

    @property
    def log(self) -> list[dict[str, Any]]:
        """The result dictionaries logged so far, oldest first."""
        return self._log

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the trigger, the running summary and the log (as JSON text)."""
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        try:
            self._summary.serialize(serializer['_summary'])
        except KeyError:
            warnings.warn('LogReport: the running statistics are not in the snapshot; they '
                          'start empty.')
        if isinstance(serializer, serializer_module.Serializer):
            serializer('_log', json.dumps(self._log))
        else:
            self._log = json.loads(serializer('_log', ''))
