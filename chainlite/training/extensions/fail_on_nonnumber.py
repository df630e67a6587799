"""FailOnNonNumber: stops training as soon as a parameter becomes NaN or infinite."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import backend
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class FailOnNonNumber(extension.Extension):
    """Raises ``RuntimeError`` when a parameter of any optimizer's target holds NaN or Inf.

    A diverged model keeps training (and writing snapshots) otherwise. It checks every
    iteration by default; uninitialized parameters are skipped.

    Example:
        >>> import numpy as np
        >>> from types import SimpleNamespace
        >>> import chainlite.links as L
        >>> from chainlite.training import extensions
        >>> model = L.Linear(2, 2)
        >>> optimizer = SimpleNamespace(target=model)
        >>> trainer = SimpleNamespace(updater=SimpleNamespace(
        ...     get_all_optimizers=lambda: {'main': optimizer}))
        >>> check = extensions.FailOnNonNumber()
        >>> check(trainer)  # all finite
        >>> model.b.array[0] = np.nan
        >>> check(trainer)
        Traceback (most recent call last):
        ...
        RuntimeError: FailOnNonNumber: the parameter /b of the target of optimizer 'main' \
holds NaN or Inf: training diverged
    """

    def __call__(self, trainer: Trainer) -> None:
        """Checks the parameters of every optimizer's target.

        Raises:
            RuntimeError: Naming the optimizer and the parameter, at the first non-finite one.
        """
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            if optimizer.target is None:
                continue
            for path, param in optimizer.target.namedparams():
                array = param.array
                if array is None:
                    continue
                xp = backend.get_array_module(array)
                if not xp.isfinite(array).all():
                    raise RuntimeError(
                        'FailOnNonNumber: the parameter %s of the target of optimizer %r holds '
                        'NaN or Inf: training diverged' % (path, name))
