"""ProgressBar: how far training has come, its speed and the estimated time left."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Optional, TextIO

from chainlite.training import extension
from chainlite.training.extensions import _progress
from chainlite.training.extensions import util

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class ProgressBar(extension.Extension):
    """Shows the progress of training every ``update_interval`` iterations.

    On a terminal it redraws, in place, a bar for the whole training and one for the current
    epoch, the iteration and epoch counts, the speed and the estimated time to finish::

             total [#########.........................................]  18.00%
        this epoch [#############################.....................]  60.00%
               180 iter, 1 epoch / 10 epochs
            241.13 iters/sec. Estimated time to finish: 0:00:03.

    When ``out`` is not a terminal (a log file, a pipe), it appends one plain line per update
    instead, without control characters::

               180 iter, 1 epoch / 10 epochs | total  18.00% | this epoch  60.00% | 241.13 ...

    The speed is measured over the last 100 updates (the first one timed from
    :meth:`initialize`).

    Args:
        training_length: ``(length, 'epoch' or 'iteration')``; if None, the trainer's stop
            trigger tells it (``stop_trigger.get_training_length()``).
        update_interval: Show the progress every this many iterations.
        bar_length: The width of the bars in characters.
        out: The stream to write to; None (the default) is ``sys.stdout`` at each update.

    Example:
        >>> import io
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> out = io.StringIO()  # not a terminal: plain lines
        >>> bar = extensions.ProgressBar((10, 'iteration'), update_interval=5, out=out)
        >>> updater = SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
        >>> trainer = SimpleNamespace(updater=updater)
        >>> bar.initialize(trainer)
        >>> for i in range(1, 11):
        ...     updater.iteration, updater.epoch_detail = i, i / 20
        ...     bar(trainer)
        >>> print(out.getvalue())  # doctest: +ELLIPSIS
                 5 iter, 0 epoch / 10 iterations | total  50.00% | this epoch  25.00% | ...
                10 iter, 0 epoch / 10 iterations | total 100.00% | this epoch  50.00% | ...
    """

    def __init__(self, training_length: Optional[tuple] = None, update_interval: int = 100,
                 bar_length: int = 50, out: Optional[TextIO] = None) -> None:
        if training_length is not None:
            _check_training_length(training_length)
        if update_interval <= 0:
            raise ValueError('ProgressBar: update_interval must be positive, got %r'
                             % (update_interval,))
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._display = _progress.Display(out)
        self._speed = _progress.Speed()
        self._start_time: Optional[float] = None

    def initialize(self, trainer: Trainer) -> None:
        """Starts the clock of the speed measurement."""
        # Only the time: a snapshot loaded after this (autoload) may still change the position.
        self._start_time = time.time()

    def __call__(self, trainer: Trainer) -> None:
        """Records the position; shows the progress if the iteration is a multiple of
        ``update_interval``."""
        updater = trainer.updater
        if self._start_time is not None:
            # The first update since initialize() started at the clock's start.
            previous = getattr(updater, 'previous_epoch_detail', None)
            if previous is None:
                previous = updater.epoch_detail * (updater.iteration - 1) / max(
                    updater.iteration, 1)
            self._speed.add(updater.iteration - 1, previous, self._start_time)
            self._start_time = None
        self._speed.add(updater.iteration, updater.epoch_detail)
        if updater.iteration % self._update_interval == 0:
            lines, line = self._render(trainer)
            self._display.show(lines, line)

    def finalize(self) -> None:
        """Erases the bar from the terminal."""
        self._display.close()

    def _get_training_length(self, trainer: Trainer) -> tuple:
        if self._training_length is None:
            stop_trigger = getattr(trainer, 'stop_trigger', None)
            get_length = getattr(stop_trigger, 'get_training_length', None)
            if get_length is None:
                raise ValueError(
                    'ProgressBar: the trainer\'s stop trigger (%s) does not tell the length of '
                    'training; give training_length=(length, unit)'
                    % type(stop_trigger).__name__)
            self._training_length = _check_training_length(get_length())
        return self._training_length

    def _render(self, trainer: Trainer) -> tuple:
        updater = trainer.updater
        iteration, epoch_detail = updater.iteration, updater.epoch_detail
        length, unit = self._get_training_length(trainer)
        done = iteration if unit == 'iteration' else epoch_detail
        rate = min(done / length, 1.0)
        epoch_rate = epoch_detail - int(epoch_detail)
        iters_per_sec, epochs_per_sec = self._speed.rates()
        per_sec = iters_per_sec if unit == 'iteration' else epochs_per_sec
        eta = (length - done) / per_sec if per_sec else None
        status = '%10d iter, %d epoch / %s %ss' % (iteration, updater.epoch, length, unit)
        speed = 'unknown' if iters_per_sec is None else '%.5g' % iters_per_sec
        lines = [
            '     total %s %6.2f%%\n' % (_progress.bar(rate, self._bar_length), rate * 100),
            'this epoch %s %6.2f%%\n' % (_progress.bar(epoch_rate, self._bar_length),
                                         epoch_rate * 100),
            status + '\n',
            '%10s iters/sec. Estimated time to finish: %s.\n'
            % (speed, _progress.format_eta(eta)),
        ]
        line = '%s | total %6.2f%% | this epoch %6.2f%% | %s iters/sec | ETA %s\n' % (
            status, rate * 100, epoch_rate * 100, speed, _progress.format_eta(eta))
        return lines, line


def _check_training_length(training_length: Any) -> tuple:
    try:
        length, unit = training_length
    except (TypeError, ValueError):
        length, unit = None, None
    if unit not in ('epoch', 'iteration') or not length or length <= 0:
        raise ValueError("ProgressBar: training_length must be (length, 'epoch' or "
                         "'iteration') with a positive length, got %r" % (training_length,))
    return length, unit


class _TrainerProgressBar(util.ProgressBar):
    """Chainer's drawing of training progress (set ``trainer`` before :meth:`update`)."""

    trainer: Any = None
    training_length: Optional[tuple] = None
    status_template: Optional[str] = None

    def get_lines(self) -> list:
        updater = self.trainer.updater
        iteration, epoch = updater.iteration, updater.epoch_detail
        if self.training_length is None:
            self.training_length = self.trainer.stop_trigger.get_training_length()
        length, unit = self.training_length
        rate = min((iteration if unit == 'iteration' else epoch) / length, 1.0)
        epoch_rate = epoch - int(epoch)
        if self.status_template is None:
            self.status_template = ('{0.iteration:10} iter, {0.epoch} epoch / %s %ss\n'
                                    % self.training_length)
        speed_t, speed_e = self.update_speed(iteration, epoch)
        remaining, speed = ((length - iteration, speed_t) if unit == 'iteration'
                            else (length - epoch, speed_e))
        return ['     total {} {:6.2%}\n'.format(util.bar_text(rate, self._bar_length), rate),
                'this epoch {} {:6.2%}\n'.format(util.bar_text(epoch_rate, self._bar_length),
                                                  epoch_rate),
                self.status_template.format(updater),
                util._status_line(speed_t, remaining, speed)]
