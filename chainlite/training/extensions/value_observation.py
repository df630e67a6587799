"""Extensions putting a value (e.g. the learning rate) into the trainer's observation."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


def observe_value(observation_key: str,
                  target_func: Callable[[Trainer], Any]) -> Callable[[Trainer], None]:
    """Returns an extension writing ``target_func(trainer)`` to the observation.

    It runs once per epoch by default, with writer priority, so that a :class:`LogReport`
    called at the same iteration logs the value.

    Args:
        observation_key: The key to write the value under.
        target_func: Takes the trainer and returns the value.

    Returns:
        The extension (a function made with :func:`~chainlite.training.make_extension`).

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> ext = extensions.observe_value('epoch_x2', lambda t: t.updater.epoch * 2)
        >>> trainer = SimpleNamespace(observation={}, updater=SimpleNamespace(epoch=3))
        >>> ext(trainer)
        >>> trainer.observation, ext.trigger
        ({'epoch_x2': 6}, (1, 'epoch'))
    """
    @extension.make_extension(trigger=(1, 'epoch'), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer: Trainer) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    return _observe_value


def observe_lr(optimizer_name: str = 'main',
               observation_key: str = 'lr') -> Callable[[Trainer], None]:
    """Returns an extension writing an optimizer's learning rate (``.lr``) to the observation.

    Args:
        optimizer_name: The name of the optimizer in the updater.
        observation_key: The key to write the learning rate under.

    Returns:
        The extension, as :func:`observe_value` makes it.

    Example:
        >>> from types import SimpleNamespace
        >>> import chainlite.optimizers as O
        >>> from chainlite.training import extensions
        >>> optimizer = O.MomentumSGD(lr=0.05)
        >>> trainer = SimpleNamespace(observation={}, updater=SimpleNamespace(
        ...     get_optimizer=lambda name: optimizer))
        >>> extensions.observe_lr()(trainer)
        >>> trainer.observation
        {'lr': 0.05}
    """
    return observe_value(
        # ``lr`` is not on every optimizer (Adam has ``alpha``): read it by name.
        observation_key, lambda trainer: getattr(trainer.updater.get_optimizer(optimizer_name),
                                                 'lr'))
