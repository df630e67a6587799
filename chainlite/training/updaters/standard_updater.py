"""The standard updater: one minibatch, one optimizer update per iteration."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from chainlite import backend
from chainlite.dataset import convert
from chainlite.training import updater as updater_module

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.optimizer import Optimizer
    from chainlite.dataset.iterator import Iterator
    from chainlite.types import DeviceSpec


def _target_of(optimizer: Optimizer, name: str, where: str) -> Link:
    """The link ``optimizer`` updates.

    Args:
        optimizer: An optimizer of an updater.
        name: Its name in the updater (for the error message).
        where: The caller (for the error message).

    Raises:
        ValueError: If the optimizer has no target (``setup`` was not called).
    """
    target = optimizer.target
    if target is None:
        raise ValueError('%s: the optimizer %r has no target link; call optimizer.setup(model) '
                         'first' % (where, name))
    return target


class StandardUpdater(updater_module.Updater):
    """Updater that feeds each minibatch of the main iterator to the main optimizer.

    Each :meth:`update` takes the next minibatch of the ``'main'`` iterator, converts it to
    arrays with ``converter``, and calls ``optimizer.update(loss_func, *arrays)`` (or
    ``**arrays`` for a dict, or with the single array). Subclasses override
    :meth:`update_core` for other schemes; several iterators and optimizers can be given as
    dicts, and are then reached with :meth:`get_iterator` and :meth:`get_optimizer`.

    Args:
        iterator: The training iterator, or a dict of them (one named ``'main'``).
        optimizer: The optimizer, or a dict of them (one named ``'main'``).
        converter: Turns a minibatch into arrays; ``chainlite.dataset.concat_examples``.
        device: The device the models are sent to; None leaves them where they are.
        loss_func: The loss function; the main optimizer's target link if None.
        loss_scale: A static loss-scaling factor set on every optimizer (for float16).
        auto_new_epoch: Call the main optimizer's ``new_epoch(auto=True)`` at the end of each
            epoch of the main iterator (and set ``use_auto_new_epoch`` on every optimizer).
        input_device: The device minibatches are sent to; ``device`` if None.

    Attributes:
        iteration (int): The number of completed updates.
        converter: The converter.
        loss_func: The loss function (None: the main optimizer's target).
        loss_scale: The loss-scaling factor given.
        auto_new_epoch (bool): The flag given.

    Example:
        >>> import numpy as np
        >>> from chainlite import iterators, links as L, optimizers, training
        >>> data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
        >>> model = L.Classifier(L.Linear(2, 2))
        >>> optimizer = optimizers.SGD().setup(model)
        >>> updater = training.updaters.StandardUpdater(
        ...     iterators.SerialIterator(data, 2, shuffle=False), optimizer)
        >>> updater.update(); updater.update()
        >>> updater.iteration, updater.epoch, updater.is_new_epoch
        (2, 1, True)
    """

    def __init__(self, iterator: Iterator | dict[str, Iterator],
                 optimizer: Optimizer | dict[str, Optimizer],
                 converter: Callable[..., Any] = convert.concat_examples,
                 device: DeviceSpec = None, loss_func: Optional[Callable[..., Any]] = None,
                 loss_scale: Optional[float] = None, auto_new_epoch: bool = True, *,
                 input_device: DeviceSpec = None) -> None:
        if device is not None:
            device = backend.get_device(device)
        input_device = device if input_device is None else backend.get_device(input_device)
        if not isinstance(iterator, dict):
            iterator = {'main': iterator}
        if not isinstance(optimizer, dict):
            optimizer = {'main': optimizer}
        self._iterators: dict[str, Any] = iterator
        self._optimizers: dict[str, Optimizer] = optimizer
        if device is not None:
            for name, opt in optimizer.items():
                _target_of(opt, name, 'StandardUpdater').to_device(device)

        self.converter = converter
        self.loss_func = loss_func
        self.iteration = 0
        self._device = device
        self._input_device = input_device
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in optimizer.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in optimizer.values():
                opt.use_auto_new_epoch = True

    @property
    def device(self) -> Optional[backend.Device]:
        """The device the models were sent to (None: left where they were)."""
        return self._device

    @property
    def input_device(self) -> Optional[backend.Device]:
        """The device minibatches are sent to (None: left where they are)."""
        return self._input_device

    @property
    def epoch(self) -> int:
        """The main iterator's number of completed epochs."""
        return self._iterators['main'].epoch

    @property
    def epoch_detail(self) -> float:
        """The main iterator's epoch as a float (2.5: half-way through the third epoch)."""
        return self._iterators['main'].epoch_detail

    @property
    def previous_epoch_detail(self) -> Optional[float]:
        """The main iterator's ``epoch_detail`` before its last minibatch."""
        return self._iterators['main'].previous_epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last minibatch of the main iterator completed an epoch."""
        return self._iterators['main'].is_new_epoch

    def finalize(self) -> None:
        """Finalizes every iterator (called when the training loop ends)."""
        for iterator in self._iterators.values():
            iterator.finalize()

    def get_optimizer(self, name: str) -> Optimizer:
        """Returns the optimizer registered under ``name`` (``'main'`` for a single one)."""
        return self._optimizers[name]

    def get_all_optimizers(self) -> dict[str, Optimizer]:
        """Returns a new dict of all the optimizers, by name."""
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Iterator:
        """Returns the iterator registered under ``name`` (``'main'`` for a single one)."""
        return self._iterators[name]

    def update(self) -> None:
        """Runs one iteration (:meth:`update_core`) and counts it in :attr:`iteration`."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        """Takes the next minibatch and updates the parameters with the main optimizer."""
        iterator = self._iterators['main']
        batch = iterator.next()
        in_arrays = convert._call_converter(self.converter, batch, self.input_device)

        optimizer = self._optimizers['main']
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the iterators, optimizers, models and the iteration count.

        Keys (as in Chainer): ``iterator:<name>/...``, ``optimizer:<name>/...``,
        ``model:<name>/...`` (each optimizer's target) and ``iteration``.
        """
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer['iterator:' + name])
        for name, optimizer in self._optimizers.items():
            optimizer.serialize(serializer['optimizer:' + name])
            _target_of(optimizer, name, 'StandardUpdater.serialize').serialize(
                serializer['model:' + name])
        self.iteration = serializer('iteration', self.iteration)
