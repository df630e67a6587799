"""The training loop."""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, cast

import numpy

from chainlite import reporter as reporter_module
from chainlite.serializers import _atomic
from chainlite.serializers import serializer as serializer_module
from chainlite.training import extension as extension_module
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.triggers import Trigger
    from chainlite.training.triggers import TriggerSpec
    from chainlite.training.updater import Updater


class _ExtensionEntry:
    """An extension registered to a trainer, with its trigger and priority."""

    def __init__(self, extension: Callable[[Trainer], Any], priority: int, trigger: Trigger,
                 call_before_training: bool) -> None:
        self.extension = extension
        self.trigger = trigger
        self.priority = priority
        self.call_before_training = call_before_training


class Trainer:
    """The training loop: updates until the stop trigger fires, running extensions between.

    Each iteration runs ``updater.update()`` inside a reporter scope that collects what is
    reported into a fresh :attr:`observation`, then calls, in decreasing priority (then
    registration order), each extension whose trigger fires. Logging, evaluation,
    snapshots, progress bars and learning-rate schedules are all extensions
    (``chainlite.training.extensions``).

    The reporter knows each optimizer's target link as ``<name>`` (``'main'`` for a single
    optimizer) and its sublinks by path (``'main/predictor'``...), so ``report({'loss': loss},
    self)`` in a model's ``forward`` shows up as ``'main/loss'``.

    Serializing the trainer (e.g. ``serializers.save_npz``) saves the updater (models,
    optimizers, iterators), the stop trigger, the extensions and their triggers, and the
    elapsed time; loading them into a freshly built trainer resumes training.

    Args:
        updater: The :class:`~chainlite.training.Updater`.
        stop_trigger: When to stop: a trigger, a ``(period, unit)`` tuple such as
            ``(20, 'epoch')``, or None (never stop).
        out: The output directory of extensions (created by :meth:`run`).
        extensions: Extensions to register with :meth:`extend`'s defaults.

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger.
        observation (dict): The values reported during the last iteration.
        out (str): The output directory.
        reporter: The :class:`~chainlite.reporter.Reporter` the observations are made with.

    Example:
        >>> from chainlite import training
        >>> class Counter(training.Updater):
        ...     iteration, epoch_detail = 0, 0.
        ...     def get_all_optimizers(self):
        ...         return {}
        ...     def update(self):
        ...         self.iteration += 1
        ...         self.epoch_detail = self.iteration / 4
        ...     def finalize(self):
        ...         pass
        >>> seen = []
        >>> trainer = training.Trainer(Counter(), stop_trigger=(2, 'epoch'), out='.')
        >>> trainer.extend(lambda t: seen.append(t.updater.iteration), trigger=(3, 'iteration'))
        >>> trainer.run()
        >>> trainer.updater.iteration, seen
        (8, [3, 6])
    """

    def __init__(self, updater: Updater, stop_trigger: TriggerSpec = None, out: str = 'result',
                 extensions: Optional[Iterable[Callable[[Trainer], Any]]] = None) -> None:
        self.updater: Updater = updater
        self.stop_trigger: Trigger = triggers.get_trigger(stop_trigger,
                                                          what='Trainer: stop_trigger')
        self.observation: dict[str, Any] = {}
        self.out: str = out

        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            target = optimizer.target
            if target is None:
                raise ValueError('Trainer: the optimizer %r of the updater has no target link; '
                                 'call optimizer.setup(model) first' % (name,))
            reporter.add_observer(name, target)
            reporter.add_observers(name, target.namedlinks(skipself=True))
        self.reporter = reporter

        self._done = False
        self._extensions: dict[str, _ExtensionEntry] = {}
        self._start_at: Optional[float] = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: Optional[float] = None

        updater.connect_trainer(self)
        for ext in extensions or ():
            self.extend(ext)

    @property
    def is_before_training(self) -> bool:
        """True while no update has run (``updater.iteration == 0``)."""
        return self.updater.iteration == 0

    @property
    def elapsed_time(self) -> float:
        """Seconds of training, including the time before the snapshot it resumed from.

        Raises:
            RuntimeError: If the training loop has not started.
        """
        if self._done and self._final_elapsed_time is not None:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError('Trainer.elapsed_time: training has not been started yet')
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(self, extension: Callable[[Trainer], Any], name: Optional[str] = None,
               trigger: TriggerSpec = None,
               priority: Optional[int] = None, *, call_before_training: bool = False,
               **kwargs: Any) -> None:
        """Registers an extension.

        A name already taken gets a suffix: the second ``'LogReport'`` becomes
        ``'LogReport_1'``. The name is stored in ``extension.name``.

        Args:
            extension: A callable taking the trainer (e.g. an
                :class:`~chainlite.training.Extension`).
            name: Its name; ``extension.name``, ``default_name`` or ``__name__`` if None.
            trigger: When to call it: a trigger or ``(period, unit)``; if None,
                ``extension.trigger``, or every iteration if it has none.
            priority: Higher runs first; ``extension.priority`` (or ``PRIORITY_READER``) if
                None.
            call_before_training: Also call it once before the first update.

        Raises:
            TypeError: If no name can be found, or for an unknown keyword argument.
            ValueError: For the name ``'training'`` or the removed ``invoke_before_training``.
        """
        extension_module._reject_kwargs('Trainer.extend', kwargs)
        if name is None:
            for attr in ('name', 'default_name', '__name__'):
                name = getattr(extension, attr, None)
                if name is not None:
                    break
            else:
                raise TypeError('Trainer.extend: no name is given for the extension %r and it '
                                'has no name, default_name or __name__' % (extension,))
        if name == 'training':
            raise ValueError('Trainer.extend: the name "training" is reserved and cannot be '
                             'used as an extension name')
        if trigger is None:
            trigger = getattr(extension, 'trigger', (1, 'iteration'))
        trigger_function = triggers.get_trigger(
            trigger, what='Trainer.extend: the trigger of %r' % (name,))
        if priority is None:
            priority = getattr(extension, 'priority', extension_module.PRIORITY_READER)

        unique_name = name
        ordinal = 0
        while unique_name in self._extensions:
            ordinal += 1
            unique_name = '%s_%d' % (name, ordinal)
        cast(Any, extension).name = unique_name
        self._extensions[unique_name] = _ExtensionEntry(
            extension, priority, trigger_function, call_before_training)

    def get_extension(self, name: str) -> Any:
        """Returns the extension registered under ``name``.

        Raises:
            ValueError: If there is none.
        """
        if name not in self._extensions:
            raise ValueError('Trainer.get_extension: extension %s not found (registered: %s)'
                             % (name, ', '.join(self._extensions) or 'none'))
        return self._extensions[name].extension

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Runs the training loop until the stop trigger fires.

        Before the loop it creates :attr:`out` (removing the ``.NAME.<hex>.tmp`` files that
        killed atomic writes left in it), calls each extension's ``initialize`` (unless
        its trigger is ``finished``) and, before the first update, the extensions registered
        with ``call_before_training``. Whatever happens, it finally calls each extension's
        ``finalize`` and ``updater.finalize()``; if the loop raises, each extension's
        ``on_error(trainer, exc, tb)`` runs first and the exception is re-raised.

        Args:
            show_loop_exception_msg: Print the loop's exception to stderr before handling it
                (so that a hang in a ``finalize`` does not hide it).

        Raises:
            RuntimeError: If the trainer has already run.
        """
        if self._done:
            raise RuntimeError('Trainer.run: the training loop cannot run twice on one trainer')
        os.makedirs(self.out, exist_ok=True)
        # Temporary files of snapshot (and log, plot) writes that a kill interrupted.
        _atomic.remove_stale_in_tree(self.out)
        entries = sorted(self._extensions.values(), key=lambda e: e.priority, reverse=True)

        self._start_at = time.perf_counter()
        # Snapshots that load themselves go first, so that every other extension initializes
        # from the restored state (Chainer orders by priority alone, and an lr schedule then
        # resets the rate before the snapshot restores it).
        loading_first = sorted(entries, key=lambda e: not getattr(e.extension, 'autoload', False))
        for entry in loading_first:
            initialize = getattr(entry.extension, 'initialize', None)
            if initialize and not getattr(entry.trigger, 'finished', False):
                initialize(self)

        if self.is_before_training:
            self.observation = {}
            with self.reporter.scope(self.observation):
                for entry in entries:
                    if entry.call_before_training:
                        entry.extension(self)

        try:
            while not self.stop_trigger(self):
                self.observation = {}
                with self.reporter.scope(self.observation):
                    self.updater.update()
                    for entry in entries:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as e:
            if show_loop_exception_msg:
                self._print_exception('Exception in main training loop: %s' % e)
                sys.stderr.write('Will finalize trainer extensions and updater before '
                                 'reraising the exception.\n')
            for entry in entries:
                on_error = getattr(entry.extension, 'on_error', None)
                if on_error:
                    try:
                        on_error(self, e, e.__traceback__)
                    except Exception as handler_error:
                        # Every handler runs; their own errors are only printed.
                        self._print_exception('Exception in error handler: %s' % handler_error)
            raise
        finally:
            for entry in entries:
                finalize = getattr(entry.extension, 'finalize', None)
                if finalize:
                    finalize()
            self.updater.finalize()

        self._final_elapsed_time = self.elapsed_time
        self._done = True

    @staticmethod
    def _print_exception(message: str) -> None:
        sys.stderr.write(message + '\nTraceback (most recent call last):\n')
        traceback.print_tb(sys.exc_info()[2])

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state of the training loop.

        Keys (as in Chainer): ``updater/...``, ``stop_trigger/...``, ``extensions/<name>/...``,
        ``extension_triggers/<name>/...`` and ``_snapshot_elapsed_time``.

        Args:
            serializer: A serializer or deserializer.
        """
        self.updater.serialize(serializer['updater'])
        if hasattr(self.stop_trigger, 'serialize'):
            self.stop_trigger.serialize(serializer['stop_trigger'])
        extensions = serializer['extensions']
        extension_triggers = serializer['extension_triggers']
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, 'serialize'):
                entry.extension.serialize(extensions[name])
            if hasattr(entry.trigger, 'serialize'):
                entry.trigger.serialize(extension_triggers[name])

        if isinstance(serializer, serializer_module.Serializer):
            # Before run() there is no clock yet: the time carried over is all there is.
            elapsed = (self._snapshot_elapsed_time if self._start_at is None
                       else self.elapsed_time)
            serializer('_snapshot_elapsed_time', elapsed)
        else:
            self._snapshot_elapsed_time = serializer('_snapshot_elapsed_time', 0.0)
        _serialize_numpy_random_state(serializer)


def _serialize_numpy_random_state(serializer: Any) -> None:
    """Saves or restores NumPy's global random state with the trainer (beyond Chainer).

    Shuffling iterators, dropout and initializers draw from ``numpy.random``; without its
    state a resumed run reshuffles differently from the next epoch on. A snapshot without
    these keys (one written by Chainer) leaves the state alone, and Chainer ignores them.
    """
    if isinstance(serializer, serializer_module.Serializer):
        _, keys, pos, has_gauss, cached_gaussian = numpy.random.get_state()
        serializer('_numpy_random_keys', keys)
        serializer('_numpy_random_extra', numpy.array([pos, has_gauss, cached_gaussian]))
        return
    try:
        keys = serializer('_numpy_random_keys', None)
        extra = serializer('_numpy_random_extra', None)
    except KeyError:
        return
    if keys is None or extra is None:
        return
    pos, has_gauss, cached_gaussian = extra
    numpy.random.set_state(('MT19937', numpy.asarray(keys, numpy.uint32), int(pos),
                            int(has_gauss), float(cached_gaussian)))
