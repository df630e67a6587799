"""DaliIterator: minibatches from an NVIDIA DALI pipeline (experimental, as in Chainer)."""
from __future__ import annotations

from typing import Any, Optional

from chainlite.dataset import iterator
from chainlite import utils


class DaliIterator(iterator.Iterator):
    """(Experimental) An iterator that runs a DALI pipeline once per minibatch.

    DALI (``nvidia.dali``) decodes and augments images on GPUs; this iterator only drives a
    pipeline object, so it needs no DALI itself: any object with ``build()``,
    ``epoch_size()`` (a dict whose first value is the number of examples), ``batch_size``
    and ``run()`` works. It counts positions and epochs as the other iterators do, and each
    ``next`` returns what ``pipeline.run()`` returns.

    Args:
        pipeline: The pipeline (built on the first ``next``).
        repeat: Whether to go on after the first epoch; if False, ``next`` raises
            ``StopIteration`` once an epoch is done.

    Example:
        >>> import warnings
        >>> class Pipeline:
        ...     batch_size = 2
        ...     def build(self): pass
        ...     def epoch_size(self): return {'reader': 3}
        ...     def run(self): return 'batch'
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     it = DaliIterator(Pipeline(), repeat=False)
        >>> next(it), it.epoch_detail
        ('batch', 0.6666666666666666)
    """

    current_position: int
    epoch: int
    is_new_epoch: bool
    _previous_epoch_detail: float

    def __init__(self, pipeline: Any, repeat: bool = True) -> None:
        utils.experimental('DaliIterator')
        self.pipeline = pipeline
        self._repeat = repeat
        self._is_build = False
        self.epoch_size = 1  # until the pipeline is built and says
        self.reset()

    def __next__(self) -> Any:
        if not self._is_build:
            self.pipeline.build()
            self._is_build = True
            self.epoch_size = tuple(self.pipeline.epoch_size().values())[0]
        if not self._repeat and self.epoch > 0:
            raise StopIteration
        self._previous_epoch_detail = self.epoch_detail
        end = self.current_position + self.batch_size
        if end >= self.epoch_size:
            self.current_position = end - self.epoch_size if self._repeat else 0
            self.epoch += 1
            self.is_new_epoch = True
        else:
            self.current_position = end
            self.is_new_epoch = False
        return self.pipeline.run()

    next = __next__

    @property
    def batch_size(self) -> int:
        """The pipeline's batch size."""
        return self.pipeline.batch_size

    @property
    def epoch_detail(self) -> float:
        """The epoch count plus the fraction of the current epoch done."""
        return self.epoch + self.current_position / self.epoch_size

    @property
    def previous_epoch_detail(self) -> Optional[float]:
        """:attr:`epoch_detail` before the last ``next`` (None before the first)."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    @property
    def repeat(self) -> bool:
        """Whether the iterator goes on after the first epoch."""
        return self._repeat

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the position, the epoch and the previous epoch detail.

        Args:
            serializer: A serializer or deserializer.
        """
        self.current_position = serializer('current_position', self.current_position)
        self.epoch = serializer('epoch', self.epoch)
        self.is_new_epoch = serializer('is_new_epoch', self.is_new_epoch)
        try:
            self._previous_epoch_detail = serializer('previous_epoch_detail',
                                                     self._previous_epoch_detail)
        except KeyError:
            # A snapshot of an older version: guess it from the position.
            guess = self.epoch + (self.current_position - self.batch_size) / self.epoch_size
            self._previous_epoch_detail = max(guess, 0.) if self.epoch_detail > 0 else -1.

    def reset(self) -> None:
        """Goes back to the start of the first epoch."""
        self.current_position = 0
        self.epoch = 0
        self.is_new_epoch = False
        self._previous_epoch_detail = -1.  # -1 for None
