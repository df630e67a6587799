"""A stop trigger ending training when a monitored value stops improving."""
from __future__ import annotations

import operator
import warnings
from typing import TYPE_CHECKING, Any, Optional

from chainlite import reporter
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class EarlyStoppingTrigger:
    """Stop trigger that fires when ``monitor`` has not improved for ``patience`` checks.

    At every call it accumulates ``trainer.observation[monitor]``. When ``check_trigger``
    fires it compares the mean over the interval with the best mean so far: a better one
    becomes the best and resets the count, any other increments it. The trigger fires when
    the count reaches ``patience``, or when ``max_trigger`` fires, whichever comes first.

    Args:
        check_trigger: When to compare: a trigger or a ``(period, unit)`` tuple.
        monitor: The observation key to watch.
        patience: The number of checks without improvement to stop after (3 if None).
        mode: ``'min'``, ``'max'``, or ``'auto'``: ``'max'`` if ``'accuracy'`` is in
            ``monitor``, else ``'min'``.
        verbose: Print the comparison mode and when training stops.
        max_trigger: The longest training: a trigger or a ``(period, unit)`` tuple.
        patients: Chainer's old alias of ``patience`` (keyword only).

    Attributes:
        count (int): Checks since the last improvement.
        best (float): The best mean so far.

    Raises:
        TypeError: If both ``patience`` and ``patients`` are given, or an unknown keyword.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import triggers
        >>> trigger = triggers.EarlyStoppingTrigger(
        ...     check_trigger=(1, 'iteration'), monitor='main/loss', patience=2,
        ...     max_trigger=(100, 'iteration'))
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(iteration=0, epoch_detail=0.))
        >>> for i, loss in enumerate([3., 2., 2.5, 2.2, 1.], start=1):
        ...     trainer.updater.iteration = i
        ...     trainer.observation = {'main/loss': loss}
        ...     if trigger(trainer):
        ...         break
        >>> i, trigger.best
        (4, 2.0)
    """

    def __init__(self, check_trigger: triggers.TriggerSpec = (1, 'epoch'),
                 monitor: str = 'main/loss',
                 patience: Optional[int] = None, mode: str = 'auto', verbose: bool = False,
                 max_trigger: triggers.TriggerSpec = (100, 'epoch'), **kwargs: Any) -> None:
        patients = kwargs.pop('patients', None)
        if kwargs:
            raise TypeError('EarlyStoppingTrigger() got unexpected keyword argument(s) %s'
                            % ', '.join(repr(k) for k in sorted(kwargs)))
        if patients is not None:
            if patience is not None:
                raise TypeError("EarlyStoppingTrigger: both 'patience' and 'patients' are "
                                "given; 'patients' is an alias of 'patience', give only "
                                "'patience'")
            patience = patients
        self.count = 0
        self.patience = 3 if patience is None else patience
        self.monitor = monitor
        self.verbose = verbose
        self._max_trigger = triggers.get_trigger(max_trigger)
        self._interval_trigger = triggers.get_trigger(check_trigger)
        self._summary = reporter.DictSummary()

        if mode == 'max' or (mode not in ('max', 'min') and 'accuracy' in monitor):
            self._compare = operator.gt
            self.best = float('-inf')
        else:
            self._compare = operator.lt
            self.best = float('inf')
        if verbose:
            print('early stopping: operator is %s'
                  % ('greater' if self._compare is operator.gt else 'less'))

    def __call__(self, trainer: Trainer) -> bool:
        """Whether training should stop after the current update.

        Args:
            trainer: The trainer; its ``observation`` holds the monitored value.

        Returns:
            True when ``max_trigger`` fires or patience has run out.
        """
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            warnings.warn('EarlyStoppingTrigger: %s is not in the observation' % self.monitor)
            return False

        current = float(self._summary.compute_mean()[self.monitor])  # a GPU mean too
        self._summary = reporter.DictSummary()
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self.count >= self.patience:
            if self.verbose:
                print('Epoch {}: early stopping'.format(trainer.updater.epoch))
            return True
        return False

    def get_training_length(self) -> tuple[float, str]:
        """The training length of ``max_trigger``, e.g. ``(100, 'epoch')``.

        Raises:
            AttributeError: If ``max_trigger`` is a callable without a training length.
        """
        length = getattr(self._max_trigger, 'get_training_length', None)
        if length is None:
            raise AttributeError('EarlyStoppingTrigger.get_training_length: max_trigger %r '
                                 'has no get_training_length' % (self._max_trigger,))
        return length()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``count``, ``best``, the running summary and both inner triggers.

        Chainer does not save this trigger's state; loading one of its snapshots warns and
        keeps the current state.
        """
        try:
            self.count = serializer('count', self.count)
        except KeyError:
            warnings.warn('EarlyStoppingTrigger: its state is not in the snapshot (Chainer '
                          'does not save it); the patience count restarts.')
            return
        self.best = serializer('best', self.best)
        self._summary.serialize(serializer['summary'])
        for name, trigger in (('max_trigger', self._max_trigger),
                              ('interval_trigger', self._interval_trigger)):
            if hasattr(trigger, 'serialize'):
                trigger.serialize(serializer[name])
