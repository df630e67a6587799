"""Evaluation over every rank's share of the test set."""
from __future__ import annotations

import copy
import types
from typing import TYPE_CHECKING, Any, Callable, Optional

from chainlite import backend
from chainlite import configuration
from chainlite.dataset import convert
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.dataset.iterator import Iterator
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.types import DeviceSpec
    from chainlite.training.trainer import Trainer


def create_multi_node_evaluator(actual_evaluator: Any, communicator: CommunicatorBase) -> Any:
    """Makes an evaluator report the mean over the ranks of each rank's results.

    Each rank evaluates its own part of the test set (see
    :func:`~chainlite.distributed.scatter_dataset`); the evaluator's ``evaluate`` then
    averages every reported value over the ranks, so all ranks report the same numbers.
    The ranks' parts should be equally long (``force_equal_length=True``) for the mean to
    be the mean over the whole set.

    Args:
        actual_evaluator: An evaluator, e.g.
            :class:`~chainlite.training.extensions.Evaluator`. It is changed in place.
        communicator: A communicator.

    Returns:
        ``actual_evaluator``, whose ``evaluate`` now communicates: every rank must run it.

    Example:
        ::

            evaluator = extensions.Evaluator(test_iter, model)
            trainer.extend(create_multi_node_evaluator(evaluator, comm))
    """
    actual_evaluator._mn_original_evaluate = actual_evaluator.evaluate
    actual_evaluator._mn_communicator = communicator

    def evaluate(self: Any) -> dict:
        local = self._mn_original_evaluate()
        comm = self._mn_communicator
        return {key: comm.allreduce_obj(local[key]) / comm.size for key in sorted(local)}

    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    return actual_evaluator


class GenericMultiNodeEvaluator(extension.Extension):
    """An evaluator for results that cannot simply be averaged over the ranks.

    Each rank runs :meth:`calc_local` on its batches; root collects every result and passes
    the list to :meth:`aggregate`, which users override (e.g. to compute an exact metric
    over the whole, unequally split test set). Nothing is reported automatically.

    Args:
        comm: A communicator.
        iterator: A non-repeating iterator over this rank's test examples.
        target: The model; :meth:`calc_local` calls it by default.
        device: The device the converter sends arrays to.
        converter: Makes arrays of a batch (``concat_examples`` by default).
        root: The rank that aggregates.
        progress_hook: A callable of each batch, called on root.

    Attributes:
        trigger: ``(1, 'epoch')``.
        default_name: ``'validation'``.
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, comm: CommunicatorBase, iterator: Iterator, target: Link,
                 device: DeviceSpec = None,
                 converter: Callable[..., Any] = convert.concat_examples, root: int = 0,
                 progress_hook: Optional[Callable[..., Any]] = None) -> None:
        if not 0 <= root < comm.size:
            raise ValueError('GenericMultiNodeEvaluator: root must be a rank in 0 .. %d, '
                             'got %r' % (comm.size - 1, root))
        self.comm = comm
        self.iterator = iterator
        self._targets = {'main': target}
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self.root = root
        self._progress_hook = progress_hook

    def __call__(self, trainer: Trainer | None = None) -> Any:
        """Evaluates on every rank; returns :meth:`aggregate`'s result on root, else None."""
        if hasattr(self.iterator, 'reset'):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        results = list(self._evaluate_local(it))
        return self.aggregate(results) if self.comm.rank == self.root else None

    def calc_local(self, *args: Any, **kwargs: Any) -> Any:
        """Computes one batch's result on this rank (the target's output by default).

        Args:
            args: The converted batch, when the converter gives a tuple.
            kwargs: The converted batch, when it gives a dict.

        Returns:
            Any picklable value but None.
        """
        return self._targets['main'](*args, **kwargs)

    def aggregate(self, results: list) -> Any:
        """Combines every rank's :meth:`calc_local` results; runs on root only.

        Args:
            results: The results of all ranks.

        Returns:
            The list itself by default; override it.
        """
        return results

    def _evaluate_local(self, iterator: Any) -> Any:
        # Round by round, so ranks with fewer batches keep answering (with None) until all
        # are done.
        while True:
            try:
                batch = next(iterator)
            except StopIteration:
                batch = None
            result = None
            if batch is not None:
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                with configuration.no_backprop_mode():
                    if isinstance(in_arrays, tuple):
                        result = self.calc_local(*in_arrays)
                    elif isinstance(in_arrays, dict):
                        result = self.calc_local(**in_arrays)
                    else:
                        result = self.calc_local(in_arrays)
                if self.comm.rank == self.root and self._progress_hook:
                    self._progress_hook(batch)
            gathered = self.comm.gather_obj(result, root=self.root)
            done = None
            if self.comm.rank == self.root and gathered is not None:
                valid = [r for r in gathered if r is not None]
                yield from valid
                done = not valid
            if self.comm.bcast_obj(done, root=self.root):
                return
