"""Evaluator: the mean of what a model reports over a validation set, as an extension."""
from __future__ import annotations

import copy
import math
import warnings
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO

from chainlite import backend
from chainlite import configuration
from chainlite import link as link_module
from chainlite import reporter as reporter_module
from chainlite.dataset import convert
from chainlite.training import extension
from chainlite.training.extensions import _progress
from chainlite.training.extensions import util

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.dataset.iterator import Iterator
    from chainlite.types import DeviceSpec
    from chainlite.training.trainer import Trainer


class Evaluator(extension.Extension):
    """Evaluates models on a validation set and reports the means of what they report.

    Each call sweeps the ``'main'`` iterator once (after resetting it), feeding each converted
    minibatch to ``eval_func`` (by default the ``'main'`` target itself) in test mode
    (``chainlite.config.train`` False) and without building graphs (``no_backprop_mode``).
    What the targets report is averaged over the batches with a
    :class:`~chainlite.DictSummary`, and the means are reported to the current reporter
    under the evaluator's name: in a trainer, ``'validation/main/loss'``,
    ``'validation/main/accuracy'``...

    The iterator must stop after one sweep (e.g. ``SerialIterator(..., repeat=False)``). A
    repeating iterator warns when the evaluator is made, and is then swept once: the
    evaluation stops at the end of its first epoch (``is_new_epoch``) instead of looping
    forever. An iterator with ``reset()`` is reset before each evaluation; one without is
    copied instead (deprecated, warns).

    Customize it with ``eval_hook`` (e.g. to reset the state of a recurrent network), with
    ``eval_func``, or by overriding :meth:`evaluate`. It runs once per epoch by default.

    Args:
        iterator: The validation iterator, or a dictionary of them (``'main'`` is swept).
        target: The link to evaluate, or a dictionary of links (``'main'`` is called).
        converter: Turns a minibatch into the arguments of ``eval_func`` (a tuple for
            positional, a dict for keyword arguments, anything else as one argument);
            :func:`~chainlite.dataset.concat_examples` by default.
        device: Where the converter sends the arrays (a device specifier); None leaves them.
        eval_hook: Called with the evaluator at the start of each evaluation.
        eval_func: Called with each converted minibatch; the ``'main'`` target by default.
        progress_bar: Whether to show the progress of each evaluation on stdout (keyword
            only).

    Attributes:
        converter: The converter.
        device: The :class:`~chainlite.backend.Device`, or None.
        eval_hook: The hook.
        eval_func: The evaluation function (None: the ``'main'`` target).

    Example:
        >>> import numpy as np
        >>> import chainlite
        >>> import chainlite.links as L
        >>> from chainlite import iterators
        >>> from chainlite.training import extensions
        >>> model = L.Classifier(L.Linear(2, 2, initialW=np.eye(2, dtype=np.float32)))
        >>> data = [(np.array([1., 0.], np.float32), np.int32(0)),
        ...         (np.array([0., 1.], np.float32), np.int32(0))]
        >>> it = iterators.SerialIterator(data, 1, repeat=False, shuffle=False)
        >>> evaluator = extensions.Evaluator(it, model)
        >>> result = evaluator()
        >>> sorted(result), float(result['main/accuracy'])
        (['main/accuracy', 'main/loss'], 0.5)
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name: Optional[str] = None

    def __init__(self, iterator: Iterator | dict[str, Iterator],
                 target: Link | dict[str, Link],
                 converter: Callable[..., Any] = convert.concat_examples,
                 device: DeviceSpec = None,
                 eval_hook: Optional[Callable[['Evaluator'], Any]] = None,
                 eval_func: Optional[Callable[..., Any]] = None, *,
                 progress_bar: bool = False) -> None:
        if device is not None:
            device = backend.get_device(device)
        if not isinstance(iterator, dict):
            iterator = {'main': iterator}
        if 'main' not in iterator:
            raise ValueError('Evaluator: the dictionary of iterators needs a \'main\' entry, '
                             'got %s' % sorted(iterator))
        if isinstance(target, link_module.Link):
            target = {'main': target}
        if not isinstance(target, dict):
            raise TypeError('Evaluator: target must be a Link or a dictionary of Links, got %s'
                            % type(target).__name__)
        self._iterators = iterator
        self._targets = target
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        for name, it in iterator.items():
            if getattr(it, 'repeat', False):
                warnings.warn(
                    'Evaluator: the iterator %r repeats (repeat=True), so it never stops by '
                    'itself; each evaluation stops at the end of its first epoch, and the '
                    'last batch may hold examples of the next epoch. Create it with '
                    'repeat=False.' % name, UserWarning, stacklevel=2)

    def get_iterator(self, name: str) -> Iterator:
        """Returns the iterator registered under ``name``."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict[str, Iterator]:
        """Returns a dictionary of all iterators."""
        return dict(self._iterators)

    def get_target(self, name: str) -> Link:
        """Returns the target link registered under ``name``."""
        return self._targets[name]

    def get_all_targets(self) -> dict[str, Link]:
        """Returns a dictionary of all target links."""
        return dict(self._targets)

    # Chainer's Evaluator returns the results (an Extension returns nothing).
    def __call__(self, trainer: Trainer | None = None) -> dict[str, Any]:  # type: ignore[override]
        """Evaluates the targets and reports the results to the current reporter.

        The targets report to a reporter of the evaluator's own, where each is known as
        ``<evaluator name>/<target name>`` (and its sublinks by path). It can be called
        without a trainer.

        Args:
            trainer: The trainer calling it (unused), or None.

        Returns:
            The means of the values reported during the evaluation, by key.
        """
        reporter = reporter_module.Reporter()
        prefix = '' if self.name is None else self.name + '/'
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter:
            with configuration.using_config('train', False):
                result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict[str, Any]:
        """Sweeps the ``'main'`` iterator once and returns the means of the reported values.

        It must run with a current reporter (:meth:`__call__` sets one up). ``eval_func``
        runs in ``no_backprop_mode``.

        Returns:
            The means by key (from a :class:`~chainlite.DictSummary`).
        """
        iterator = self._iterators['main']
        eval_func = self.eval_func or self._targets['main']
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, 'reset'):
            iterator.reset()
            it = iterator
        else:
            warnings.warn('Evaluator: the iterator has no reset method, so it is copied before '
                          'each evaluation; this is deprecated, implement reset().',
                          DeprecationWarning, stacklevel=2)
            it = copy.copy(iterator)
        repeat = getattr(it, 'repeat', False)
        summary = reporter_module.DictSummary()
        progress = _EvaluationProgress(it) if self._progress_bar else None
        for batch in it:
            observation: dict = {}
            with reporter_module.report_scope(observation):
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                with configuration.no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        eval_func(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        eval_func(**in_arrays)
                    else:
                        eval_func(in_arrays)
            summary.add(observation)
            if progress is not None:
                progress.update()
            if repeat and getattr(it, 'is_new_epoch', False):
                break
        if progress is not None:
            progress.close()
        return summary.compute_mean()

    def finalize(self) -> None:
        """Finalizes the iterators (called when the training loop ends)."""
        for iterator in self._iterators.values():
            finalize = getattr(iterator, 'finalize', None)
            if finalize is not None:
                finalize()


class _EvaluationProgress:
    """The progress of one evaluation: a redrawn bar on a terminal, a line per 10% elsewhere."""

    def __init__(self, iterator: Any, bar_length: int = 50, out: Any = None) -> None:
        self._iterator = iterator
        self._bar_length = bar_length
        self._display = _progress.Display(out)
        self._speed = _progress.Speed()
        self._count = 0
        self._total: Optional[int] = None
        dataset, batch_size = getattr(iterator, 'dataset', None), getattr(iterator, 'batch_size',
                                                                         None)
        if batch_size and dataset is not None and hasattr(dataset, '__len__'):
            self._total = math.ceil(len(dataset) / batch_size)
        self._speed.add(0, 0.0)
        self._last_tenth = 0

    def update(self) -> None:
        self._count += 1
        rate = getattr(self._iterator, 'epoch_detail', None)
        if rate is None and self._total:
            rate = self._count / self._total
        self._speed.add(self._count, rate or 0.0)
        per_sec, epochs_per_sec = self._speed.rates()
        eta = (1.0 - rate) / epochs_per_sec if rate is not None and epochs_per_sec else None
        count = ('%10d / %d iterations' % (self._count, self._total) if self._total
                 else '%10d iterations' % self._count)
        speed = 'unknown' if per_sec is None else '%.5g' % per_sec
        lines = [
            count + '\n',
            '%10s iters/sec. Estimated time to finish: %s.\n'
            % (speed, _progress.format_eta(eta)),
        ]
        if rate is not None:
            lines.insert(0, 'validation %s %6.2f%%\n'
                         % (_progress.bar(rate, self._bar_length), min(rate, 1.0) * 100))
        if self._display.is_terminal():
            self._display.show(lines, '')
            return
        # In a log file, one line per tenth of the sweep (or per 100 batches if unknown).
        tenth = int(min(rate, 1.0) * 10) if rate is not None else self._count // 100
        if tenth > self._last_tenth:
            self._last_tenth = tenth
            percent = '' if rate is None else ' %6.2f%% |' % (min(rate, 1.0) * 100)
            self._display.show(lines, 'validation%s %s | %s iters/sec | ETA %s\n' % (
                percent, count.strip(), speed, _progress.format_eta(eta)))

    def close(self) -> None:
        self._display.close()


class _IteratorProgressBar(util.ProgressBar):
    """Chainer's drawing of an evaluation's progress through one pass of ``iterator``.

    Args:
        iterator: An iterator with ``current_position`` and ``epoch_detail``.
        bar_length: The width of the bar (50 if None).
        out: The stream (``sys.stdout`` if None).

    Raises:
        TypeError: If the iterator lacks ``current_position`` or ``epoch_detail``.
    """

    def __init__(self, iterator: Any, bar_length: Optional[int] = None,
                 out: Optional[TextIO] = None) -> None:
        if not (hasattr(iterator, 'current_position') and hasattr(iterator, 'epoch_detail')):
            raise TypeError('Iterator must have the following attributes to enable a progress '
                            'bar: current_position, epoch_detail')
        self._iterator = iterator
        super().__init__(bar_length=bar_length, out=out)

    def get_lines(self) -> list:
        iteration = self._iterator.current_position
        epoch_detail = self._iterator.epoch_detail
        epoch_size = getattr(self._iterator, '_epoch_size', None)
        lines = ['validation {} {:6.2%}\n'.format(
            util.bar_text(epoch_detail, self._bar_length), epoch_detail)]
        if epoch_size:
            lines.append('{:10} / {} iterations\n'.format(iteration, epoch_size))
        else:
            lines.append('{:10} iterations\n'.format(iteration))
        speed_t, speed_e = self.update_speed(iteration, epoch_detail)
        lines.append(util._status_line(speed_t, 1.0 - epoch_detail, speed_e))
        return lines
