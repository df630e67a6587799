"""The decorrelated batch normalization layer."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Iterator, Optional

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import link
from chainlite import serializer as serializer_mod
from chainlite import variable
from chainlite.functions.normalization import decorrelated_batch_normalization as dbn

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, VariableOrArray


def _warn_old_model(name: str = 'the moving statistics') -> None:
    warnings.warn('DecorrelatedBatchNormalization: %s has the layout of old Chainer versions '
                  '(no group axis), whose algorithm differed from the paper; it is repeated '
                  'for each group' % name)


_broadcast_to = numpy.broadcast_to  # Chainer's name


def _old_layout(name: str, array: Any, ndim: int, groups: int) -> Any:
    # Statistics saved before Chainer v7 had no group axis (Chainer issue #7706).
    if array.ndim == ndim:
        return array
    if array.ndim == ndim - 1:
        if groups != 1:
            _warn_old_model(name)
        return numpy.broadcast_to(array, (groups,) + array.shape)
    raise ValueError('DecorrelatedBatchNormalization: %s has %d axes, expected %d'
                     % (name, array.ndim, ndim))


def fix_avg_mean(avg_mean: Any, groups: int) -> Any:
    """Gives a saved ``avg_mean`` the group axis that old Chainer versions lacked.

    Args:
        avg_mean: ``(groups, C)`` (returned as is) or the old ``(C,)``, which is repeated
            for each group (with a warning unless ``groups`` is 1).
        groups: The link's number of groups.

    Returns:
        An array of shape ``(groups, C)`` (a read-only broadcast view for the old layout).

    Raises:
        ValueError: For any other number of axes.

    Example:
        >>> import numpy as np
        >>> fix_avg_mean(np.array([1.0, 2.0]), 1)
        array([[1., 2.]])
    """
    return _old_layout('avg_mean', avg_mean, 2, groups)


def fix_avg_projection(avg_projection: Any, groups: int) -> Any:
    """Gives a saved ``avg_projection`` the group axis that old Chainer versions lacked.

    Args:
        avg_projection: ``(groups, C, C)`` (returned as is) or the old ``(C, C)``, which is
            repeated for each group (with a warning unless ``groups`` is 1).
        groups: The link's number of groups.

    Returns:
        An array of shape ``(groups, C, C)``.

    Raises:
        ValueError: For any other number of axes.

    Example:
        >>> import numpy as np
        >>> fix_avg_projection(np.eye(2), 1).shape
        (1, 2, 2)
    """
    return _old_layout('avg_projection', avg_projection, 3, groups)


class _PatchedDeserializer(serializer_mod.Deserializer):
    # Reads through ``base``; the entries named in ``patches`` are passed through the
    # patch function (old layout -> new) before they are copied into the target array.

    def __init__(self, base: Any, patches: dict) -> None:
        self.base = base
        self.patches = patches

    def __repr__(self) -> str:
        return '_PatchedDeserializer({}, {})'.format(repr(self.base), repr(self.patches))

    def __call__(self, key: str, value: Any) -> Any:
        if key not in self.patches:
            return self.base(key, value)
        array = self.patches[key](self.base(key, None))
        if value is None:
            return array
        backend.copyto(value, array)
        return value


class DecorrelatedBatchNormalization(link.Link):
    """Decorrelated batch normalization layer
    (:func:`~chainlite.functions.decorrelated_batch_normalization`).

    In training mode the channel groups of the input are whitened with the batch statistics,
    and the running averages ``avg_mean`` (shape ``(groups, C)``) and ``avg_projection``
    (shape ``(groups, C, C)``, starting from the identity) are updated; ``finetune=True``
    averages them exactly over the batches seen since :meth:`start_finetuning`. In test mode
    the running statistics are used
    (:func:`~chainlite.functions.fixed_decorrelated_batch_normalization`). The layer has no
    parameters. Loading statistics saved by Chainer before v7 (without the group axis) repeats
    them over the groups, as Chainer does.

    Args:
        size (int): The number of channels, a multiple of ``groups``.
        groups (int): The number of channel groups (``C = size // groups``).
        decay (float): The decay rate of the running averages.
        eps (float): Added to the covariance's diagonal.
        dtype: The dtype of the running statistics.

    Attributes:
        avg_mean: The running mean (persistent).
        avg_projection: The running projection (persistent).
        N: The number of fine-tuning calls (persistent).

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
        >>> x = np.random.default_rng(0).normal(size=(8, 4, 3)).astype(np.float32)
        >>> dbn(x).shape, dbn.avg_projection.shape
        ((8, 4, 3), (2, 2, 2))
        >>> with chainlite.using_config('train', False):
        ...     dbn(x).dtype
        dtype('float32')
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: DTypeSpec = numpy.float32) -> None:
        super().__init__()
        if size % groups:
            raise ValueError('DecorrelatedBatchNormalization: size must be a multiple of '
                             'groups, got size=%d, groups=%d' % (size, groups))
        C = size // groups
        self.avg_mean = numpy.zeros((groups, C), dtype=dtype)
        self.register_persistent('avg_mean')
        self.avg_projection = numpy.broadcast_to(numpy.eye(C, dtype=dtype),
                                                 (groups, C, C)).copy()
        self.register_persistent('avg_projection')
        self.N = 0
        self.register_persistent('N')
        self.decay = decay
        self.eps = eps
        self.groups = groups

    def printable_specs(self) -> Iterator:
        """``size``, ``groups``, ``decay`` and ``eps``."""
        yield 'size', self.avg_mean.size
        yield 'groups', self.groups
        yield 'decay', self.decay
        yield 'eps', self.eps

    def serialize(self, serializer: serializer_mod.AbstractSerializer) -> None:
        """Saves or loads the statistics; old Chainer layouts are converted when loading."""
        if not isinstance(serializer, serializer_mod.Deserializer):
            super().serialize(serializer)
            return
        for name, ndim in (('avg_mean', 2), ('avg_projection', 3)):
            stored = serializer(name, None)
            if stored is not None:
                backend.copyto(getattr(self, name),  # (on the layer's device)
                               _old_layout(name, numpy.asarray(stored), ndim, self.groups))
        self.N = serializer('N', self.N)

    def forward(self, x: VariableOrArray, finetune: bool = False) -> variable.Variable:
        """Whitens ``x`` (training: batch statistics; test: the running ones).

        Args:
            x: The input, of shape ``(b, size, ...)``.
            finetune: In training mode, use the decay ``1 - 1/N`` (``N`` counting these
                calls), so that the running averages become the population statistics.

        Returns:
            A Variable of ``x``'s shape and dtype.
        """
        if not configuration.config.train:
            return dbn.fixed_decorrelated_batch_normalization(
                x, self.avg_mean.astype(x.dtype, copy=False),
                self.avg_projection.astype(x.dtype, copy=False), groups=self.groups)
        decay = self.decay
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        avg_mean: Optional[numpy.ndarray] = self.avg_mean
        avg_projection: Optional[numpy.ndarray] = self.avg_projection
        if configuration.config.in_recomputing:
            # A recomputed forward must not count or average the same batch twice.
            if finetune:
                self.N -= 1
            avg_mean = avg_projection = None
        return dbn.decorrelated_batch_normalization(
            x, groups=self.groups, eps=self.eps, running_mean=avg_mean,
            running_projection=avg_projection, decay=decay)

    def start_finetuning(self) -> None:
        """Resets ``N``, so that the next fine-tuning calls average from scratch."""
        self.N = 0
