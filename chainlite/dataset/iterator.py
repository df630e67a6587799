"""Iterator: the base class of dataset iterators, which yield minibatches."""
from __future__ import annotations

from typing import Any


class Iterator:
    """Base class of the iterators that sweep a dataset, one minibatch (a list) at a time.

    A subclass implements :meth:`__next__` and provides the attributes below (read-only ones
    are enough); it serializes what changes during the sweep in :meth:`serialize`, so that
    training can be suspended and resumed, and releases any resources (worker processes,
    files) in :meth:`finalize`, which ``with`` and garbage collection call.

    Attributes:
        batch_size: The number of examples in a minibatch (the last one of a sweep may
            hold fewer).
        epoch: The number of completed sweeps over the dataset.
        epoch_detail: The epoch as a float: 2.5 in the middle of the third sweep.
        previous_epoch_detail: ``epoch_detail`` before the last minibatch; None before the
            first.
        is_new_epoch: True when the last minibatch completed a sweep.

    Example:
        >>> from chainlite.dataset import Iterator
        >>> class Twice(Iterator):
        ...     def __init__(self, batch):
        ...         self.batch, self.epoch = batch, 0
        ...     def __next__(self):
        ...         if self.epoch == 2:
        ...             raise StopIteration
        ...         self.epoch += 1
        ...         return self.batch
        >>> with Twice([1, 2]) as it:
        ...     [b for b in it]
        [[1, 2], [1, 2]]
    """

    def __del__(self) -> None:
        self.finalize()

    def __iter__(self) -> 'Iterator':
        """Returns the iterator itself."""
        return self

    def __next__(self) -> Any:
        """Returns the next minibatch, or raises :class:`StopIteration` at the end."""
        raise NotImplementedError('%s must implement __next__' % type(self).__name__)

    def next(self) -> Any:
        """Returns the next minibatch (the same as ``next(iterator)``)."""
        return self.__next__()

    def finalize(self) -> None:
        """Releases the iterator's resources; does nothing by default and may run twice."""

    def __enter__(self) -> 'Iterator':
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc_value: BaseException | None,
                 traceback: Any) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state that changes during iteration (nothing by default).

        Args:
            serializer: A :class:`chainlite.serializer.Serializer` or ``Deserializer``. Only
                what the sweep changes (position, epoch, order) belongs here, not what the
                user sets (the batch size).
        """
