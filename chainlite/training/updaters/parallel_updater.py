"""Synchronous data-parallel updater: one model copy per device, one update on the main one."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable, Optional

from chainlite import backend
from chainlite import configuration
from chainlite.dataset import convert
from chainlite.training.updaters import standard_updater

if TYPE_CHECKING:
    from chainlite.types import DeviceSpec
    from chainlite.optimizer import Optimizer
    from chainlite.link import Link
    from chainlite.dataset.iterator import Iterator
    from chainlite.training.trainer import Trainer


class ParallelUpdater(standard_updater.StandardUpdater):
    """Updater that splits each minibatch among copies of the model (Chainer's semantics).

    The minibatch of the ``'main'`` iterator is dealt round-robin to the models (example
    ``i`` goes to model ``i % n``), each model computes the loss of its share, the
    gradients of the other models are added to the main model's, the main optimizer updates
    it, and its parameters are copied back to the others. As in Chainer, the gradient is
    the *sum* of the per-model gradients (each of a loss averaged over its share).

    The devices may be GPUs (``{'main': '@cupy:0', 'second': '@cupy:1'}``): each model is
    copied to its own, computes there with its device made current, and the gradients are
    summed on the main one. The models run one after the other (CuPy runs each GPU's kernels
    asynchronously, so GPUs overlap as far as the host keeps them fed). On CPU devices the
    updater runs code written for Chainer's multi-GPU training, splitting the batch the way
    such code splits it.

    Args:
        iterator: The training iterator, or a dict of them (one named ``'main'``).
        optimizer: The optimizer, or a dict of them (one named ``'main'``).
        converter: Turns each share of the minibatch into arrays for its device.
        models: A dict of models by name; ``'main'`` must be the main optimizer's target.
            If None, ``devices`` names the copies: the main optimizer's target is
            ``'main'`` and a deep copy of it is made for each other name.
        devices: A dict of devices by name, with the keys of ``models`` (``'main'``
            included): device specifiers such as ``-1``, ``'@numpy'`` or a Device.
        loss_func: The loss function; each model itself if None.
        loss_scale: A static loss-scaling factor (for float16).
        auto_new_epoch: Call the main optimizer's ``new_epoch(auto=True)`` at the end of each
            epoch of the main iterator.

    Example:
        >>> import numpy as np
        >>> from chainlite import iterators, links as L, optimizers, training
        >>> data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(8)]
        >>> model = L.Classifier(L.Linear(2, 2))
        >>> updater = training.updaters.ParallelUpdater(
        ...     iterators.SerialIterator(data, 4), optimizers.SGD().setup(model),
        ...     devices={'main': -1, 'second': '@numpy'})
        >>> updater.update()
        >>> sorted(updater._models), updater.iteration
        (['main', 'second'], 1)
    """

    def __init__(self, iterator: Iterator | dict[str, Iterator],
                 optimizer: Optimizer | dict[str, Optimizer],
                 converter: Callable[..., Any] = convert.concat_examples,
                 models: Optional[dict[str, Link]] = None,
                 devices: Optional[dict[str, DeviceSpec]] = None,
                 loss_func: Optional[Callable[..., Any]] = None, loss_scale: Optional[float] = None,
                 auto_new_epoch: bool = True) -> None:
        super().__init__(iterator=iterator, optimizer=optimizer, converter=converter,
                         loss_func=loss_func, loss_scale=loss_scale,
                         auto_new_epoch=auto_new_epoch)
        main_target = standard_updater._target_of(self.get_optimizer('main'), 'main',
                                                  'ParallelUpdater')
        if models is None:
            if devices is None:
                raise ValueError('ParallelUpdater: either models or devices must be specified')
            if 'main' not in devices:
                raise KeyError("ParallelUpdater: 'devices' must contain a 'main' key, got %s"
                               % sorted(devices))
            models = {'main': main_target}
            for name in devices:
                if name != 'main':
                    models[name] = copy.deepcopy(main_target).to_device(devices[name])
            main_target.to_device(devices['main'])
        elif models.get('main') is not main_target:
            raise ValueError("ParallelUpdater: models['main'] must be the main optimizer's "
                             'target')
        if devices is not None and set(devices) != set(models):
            raise ValueError('ParallelUpdater: devices %s and models %s must have the same keys'
                             % (sorted(devices), sorted(models)))
        self._devices = devices
        self._models = models

    def connect_trainer(self, trainer: Trainer) -> None:
        """Registers the models other than the main one as observers of the trainer."""
        main_target = standard_updater._target_of(self.get_optimizer('main'), 'main',
                                                  'ParallelUpdater')
        for name, model in self._models.items():
            if model is not main_target:
                trainer.reporter.add_observer(name, model)

    def _device_of(self, name: str) -> Any:
        return None if self._devices is None else self._devices[name]

    def _using_device_of(self, name: str) -> Any:
        # The model's device made current (its GPU's kernels run there); the CPU for none.
        device = self._device_of(name)
        return backend.using_device('@numpy' if device is None else device)

    def update_core(self) -> None:
        """Computes each model's loss on its share, sums the gradients, updates, copies."""
        optimizer = self.get_optimizer('main')
        main_target = standard_updater._target_of(optimizer, 'main', 'ParallelUpdater')
        others = [m for m in self._models.values() if m is not main_target]
        iterator = self._iterators['main']
        batch = iterator.next()

        n = len(self._models)
        inputs = {name: convert._call_converter(self.converter, batch[i::n], self._device_of(name))
                  for i, name in enumerate(self._models)}
        for model in self._models.values():
            model.cleargrads()
        losses = []
        for name, model in self._models.items():
            loss_func = self.loss_func or model
            in_arrays = inputs[name]
            with configuration.force_backprop_mode(), self._using_device_of(name):
                if isinstance(in_arrays, tuple):
                    loss = loss_func(*in_arrays)
                elif isinstance(in_arrays, dict):
                    loss = loss_func(**in_arrays)
                else:
                    loss = loss_func(in_arrays)
            losses.append(loss)
        # Parameters initialized lazily during the forward pass start without a gradient.
        for model in self._models.values():
            model.cleargrads()
        for name, loss in zip(self._models, losses):
            with self._using_device_of(name):
                loss.backward(loss_scale=self.loss_scale)
        with self._using_device_of('main'):
            for model in others:
                main_target.addgrads(model)
            optimizer.update()
        for model in others:
            model.copyparams(main_target)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)
