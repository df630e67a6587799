"""The batch normalization layer, with the running statistics it uses at test time."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence

import numpy

from chainlite import configuration
from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.array import cast
from chainlite.functions.normalization import batch_normalization
from chainlite.functions.normalization import fixed_batch_normalization
from chainlite.links.normalization import _param_init

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec, InitializerSpec, ShapeSpec, VariableOrArray


def _as_shape(size: Any) -> tuple:
    if isinstance(size, (int, numpy.integer)) and not isinstance(size, bool):
        return (int(size),)
    if isinstance(size, (tuple, list)) and all(
            isinstance(n, (int, numpy.integer)) and not isinstance(n, bool) for n in size):
        return tuple(int(n) for n in size)
    raise TypeError('BatchNormalization: size must be an int or a tuple of ints, got %r'
                    % (size,))


class BatchNormalization(link.Link):
    """Batch normalization layer (:func:`~chainlite.functions.batch_normalization`).

    In training mode (``chainlite.config.train`` True) the input is normalized with the
    statistics of the batch, and the running averages ``avg_mean`` and ``avg_var`` (the
    unbiased batch variance) are updated in place with rate ``decay``. With
    ``finetune=True`` the decay is ``1 - 1/N`` instead, where ``N`` counts the fine-tuning
    calls, so the averages become the exact means over the batches seen. In test mode the
    running averages normalize the input
    (:func:`~chainlite.functions.fixed_batch_normalization`).

    The statistics are taken over ``axis``; by default over the first axis and those after
    the channel axes, whose shape is ``size`` (for ``(N, C, H, W)`` images and ``size=C``,
    per channel over ``(0, 2, 3)``). With ``size=None`` and ``axis`` given, the parameters
    are created at the first forward from the remaining axes of the input.

    Args:
        size: The channel size (an int) or shape (a tuple), or None to infer it (needs
            ``axis``).
        decay: The decay rate of the running averages in training mode.
        eps: Added to the variance for numerical stability.
        dtype: The dtype of the parameters and statistics (None: ``chainlite.config.dtype``;
            float32 for ``mixed16``).
        use_gamma: If False, there is no scale parameter (a scale of 1).
        use_beta: If False, there is no shift parameter (a shift of 0).
        initial_gamma: The initializer of ``gamma`` (None: 1).
        initial_beta: The initializer of ``beta`` (None: 0).
        axis: The axes to normalize over (an int or a tuple of ints), or None for the default.
        initial_avg_mean: The initializer of ``avg_mean`` (None: 0).
        initial_avg_var: The initializer of ``avg_var`` (None: 1).

    Attributes:
        gamma: The scale Parameter, or None if ``use_gamma`` is False.
        beta: The shift Parameter, or None if ``use_beta`` is False.
        avg_mean: The running mean (a persistent array; None until the size is known).
        avg_var: The running variance (a persistent array; None until the size is known).
        N: The number of fine-tuning calls since :meth:`start_finetuning` (persistent).
        decay: The decay rate of the running averages.
        eps: The epsilon added to the variance.
        axis: The axes given, as a tuple (or None).

    Raises:
        RuntimeError: If neither ``size`` nor ``axis`` is given.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.links.normalization.batch_normalization import BatchNormalization
        >>> bn = BatchNormalization(2)
        >>> x = np.array([[0.0, 10.0], [2.0, 30.0]], np.float32)
        >>> bn(x).array.round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> bn.avg_mean, bn.avg_var
        (array([0.1, 2. ], dtype=float32), array([ 1.1, 20.9], dtype=float32))
        >>> with chainlite.using_config('train', False):
        ...     bn(x).shape
        (2, 2)
    """

    gamma: Optional[variable.Parameter] = None
    beta: Optional[variable.Parameter] = None

    def __init__(self, size: Optional[ShapeSpec] = None, decay: float = 0.9, eps: float = 2e-5,
                 dtype: DTypeSpec = None, use_gamma: bool = True, use_beta: bool = True,
                 initial_gamma: InitializerSpec = None, initial_beta: InitializerSpec = None,
                 axis: Optional[int | Sequence[int]] = None,
                 initial_avg_mean: InitializerSpec = None,
                 initial_avg_var: InitializerSpec = None) -> None:
        super().__init__()
        if size is None and axis is None:
            raise RuntimeError('BatchNormalization: size or axis is required (size: the shape '
                               'of the channel axes; axis: the axes to normalize over)')
        self._dtype = configuration.get_dtype(dtype, map_mixed16=numpy.float32)
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.N = 0
        self.register_persistent('N')
        self.decay = decay
        self.eps = eps
        self.axis: Optional[Sequence[int]] = ((axis,) if isinstance(axis, (int, numpy.integer))
                                              else axis)
        with self.init_scope():
            if use_gamma:
                self.gamma = variable.Parameter(
                    _param_init.initializer(initial_gamma, 1, self._dtype))
            if use_beta:
                self.beta = variable.Parameter(
                    _param_init.initializer(initial_beta, 0, self._dtype))
        self.avg_mean: Any = None
        self.avg_var: Any = None
        if size is not None:
            self._initialize_params(_as_shape(size))
        self.register_persistent('avg_mean')
        self.register_persistent('avg_var')

    def _initialize_params(self, shape: tuple) -> None:
        self.avg_mean = self._statistic(self._initial_avg_mean, 0, shape)
        self.avg_var = self._statistic(self._initial_avg_var, 1, shape)
        self._initial_avg_mean = self._initial_avg_var = None
        for p in (self.gamma, self.beta):
            if p is not None:
                p.initialize(shape)

    def _statistic(self, spec: Any, default: Any, shape: tuple) -> Any:
        init = initializers._get_initializer(default if spec is None else spec)
        return initializers.generate_array(init, shape, self.xp, dtype=self._dtype,
                                           device=self.device)

    def printable_specs(self) -> Iterator:
        """``size``, ``decay``, ``eps``, ``dtype``, ``use_gamma`` and ``use_beta``."""
        shape = None if self.avg_mean is None else self.avg_mean.shape
        yield 'size', shape[0] if shape is not None and len(shape) == 1 else shape
        yield 'decay', self.decay
        yield 'eps', self.eps
        yield 'dtype', self._dtype
        yield 'use_gamma', self.gamma is not None
        yield 'use_beta', self.beta is not None

    def _scale_and_shift(self, x: Any) -> tuple[Any, Any]:
        # gamma and beta in x's float dtype (the parameters keep the link's); constant ones
        # and zeros where the link has none (use_gamma/use_beta False), made on its device.
        gamma: Any = self.gamma
        beta: Any = self.beta
        if gamma is None or beta is None:
            xp = self.xp
            with self.device:
                if gamma is None:
                    gamma = xp.ones(self.avg_mean.shape, self._dtype)
                if beta is None:
                    beta = xp.zeros(self.avg_mean.shape, self._dtype)
        if x.dtype.kind == 'f' and x.dtype != self._dtype:
            gamma, beta = cast.cast(gamma, x.dtype), cast.cast(beta, x.dtype)
        return gamma, beta

    def forward(self, x: VariableOrArray, *, finetune: bool = False,
                **kwargs: Any) -> variable.Variable:
        """Normalizes ``x``; in training mode also updates the running averages.

        Args:
            x: The input (Variable or array).
            finetune: Keyword only, as in Chainer. In training mode, use the decay
                ``1 - 1/N`` (``N`` counting these calls), so that the running averages
                become the population statistics.

        Returns:
            A Variable of ``x``'s shape and dtype.
        """
        if kwargs:
            if 'test' in kwargs:
                raise ValueError('BatchNormalization: the test argument is not supported '
                                 'anymore; use chainlite.using_config(\'train\', False)')
            raise TypeError('BatchNormalization.forward got unexpected keyword arguments %s'
                            % sorted(kwargs))
        if self.avg_mean is None:
            axes = {a % x.ndim for a in self.axis or ()}
            self._initialize_params(tuple([n for i, n in enumerate(x.shape) if i not in axes]))
        gamma, beta = self._scale_and_shift(x)
        if not configuration.config.train:
            mean = self.avg_mean.astype(x.dtype, copy=False)
            var = self.avg_var.astype(x.dtype, copy=False)
            return fixed_batch_normalization.fixed_batch_normalization(
                x, gamma, beta, mean, var, self.eps, axis=self.axis)
        decay = self.decay
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        avg_mean, avg_var = self.avg_mean, self.avg_var
        if configuration.config.in_recomputing:
            # A recomputed forward must not count or average the same batch twice.
            if finetune:
                self.N -= 1
            avg_mean = avg_var = None
        return batch_normalization.batch_normalization(
            x, gamma, beta, eps=self.eps, running_mean=avg_mean, running_var=avg_var,
            decay=decay, axis=self.axis)

    def start_finetuning(self) -> None:
        """Resets ``N``, so that the next fine-tuning calls average from scratch."""
        self.N = 0
