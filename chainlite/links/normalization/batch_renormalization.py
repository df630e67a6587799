"""The batch renormalization layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from chainlite import configuration
from chainlite import variable
from chainlite.functions.normalization import batch_renormalization
from chainlite.functions.normalization import fixed_batch_normalization
from chainlite.links.normalization import batch_normalization

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import DTypeSpec, InitializerSpec, ShapeSpec, VariableOrArray


class BatchRenormalization(batch_normalization.BatchNormalization):
    """Batch renormalization layer (:func:`~chainlite.functions.batch_renormalization`).

    A :class:`~chainlite.links.BatchNormalization` whose training-mode output is corrected
    towards what the running statistics give, by ``r`` (at most ``rmax``) and ``d`` (at most
    ``dmax``), so that training and test outputs agree better for small or non-i.i.d.
    batches. In test mode it normalizes with the running statistics, as batch normalization.
    Parameters and statistics have BatchNormalization's names (``gamma``, ``beta``,
    ``avg_mean``, ``avg_var``, ``N``), so snapshots have the same keys.

    Args:
        size: The channel size (an int) or shape (a tuple).
        rmax (float): The bound of the variance correction ``r``; 1 turns it off.
        dmax (float): The bound of the mean correction ``d``; 0 turns it off.
        decay (float): The decay rate of the running averages.
        eps (float): Added to the variance for numerical stability.
        dtype: The dtype of the parameters and statistics (None: ``chainlite.config.dtype``).
        use_gamma (bool): If False, there is no scale parameter.
        use_beta (bool): If False, there is no shift parameter.
        initial_gamma: The initializer of ``gamma`` (None: 1).
        initial_beta: The initializer of ``beta`` (None: 0).
        initial_avg_mean: The initializer of ``avg_mean`` (None: 0).
        initial_avg_var: The initializer of ``avg_var`` (None: 1).

    Attributes:
        rmax: The bound of ``r``.
        dmax: The bound of ``d``.

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> brn = L.BatchRenormalization(2, rmax=3.0, dmax=5.0)
        >>> x = np.array([[0.0, 10.0], [2.0, 30.0]], np.float32)
        >>> brn(x).shape
        (2, 2)
        >>> brn.avg_mean
        array([0.1, 2. ], dtype=float32)
        >>> with chainlite.using_config('train', False):
        ...     brn(x).dtype
        dtype('float32')
    """

    def __init__(self, size: ShapeSpec, rmax: float = 1, dmax: float = 0, decay: float = 0.9,
                 eps: float = 2e-5, dtype: DTypeSpec = None, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: InitializerSpec = None,
                 initial_beta: InitializerSpec = None, initial_avg_mean: InitializerSpec = None,
                 initial_avg_var: InitializerSpec = None) -> None:
        super().__init__(size, decay=decay, eps=eps, dtype=dtype, use_gamma=use_gamma,
                         use_beta=use_beta, initial_gamma=initial_gamma,
                         initial_beta=initial_beta, initial_avg_mean=initial_avg_mean,
                         initial_avg_var=initial_avg_var)
        self.rmax = rmax
        self.dmax = dmax
        self._prev_stats: Any = None

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits what BatchNormalization holds and the statistics kept for a recomputed
        forward, so that ``to_device`` moves them too.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        if self._prev_stats is not None:
            self._prev_stats = tuple(visitor.visit_array(a) for a in self._prev_stats)

    def printable_specs(self) -> Iterator:
        """BatchNormalization's specs plus ``rmax`` and ``dmax``."""
        yield from super().printable_specs()
        yield 'rmax', self.rmax
        yield 'dmax', self.dmax

    # Chainer's BatchRenormalization.forward takes no **kwargs, unlike BatchNormalization's.
    def forward(  # type: ignore[override]
            self, x: VariableOrArray, finetune: bool = False) -> variable.Variable:
        """Renormalizes ``x`` (training) or normalizes it with the running statistics (test).

        Args:
            x: The input (Variable or array).
            finetune: In training mode, use the decay ``1 - 1/N`` (``N`` counting these
                calls), as BatchNormalization.

        Returns:
            A Variable of ``x``'s shape and dtype.
        """
        gamma, beta = self._scale_and_shift(x)
        if not configuration.config.train:
            return fixed_batch_normalization.fixed_batch_normalization(
                x, gamma, beta, self.avg_mean.astype(x.dtype, copy=False),
                self.avg_var.astype(x.dtype, copy=False), self.eps)
        decay = self.decay
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        if configuration.config.in_recomputing and self._prev_stats is not None:
            # Recomputing a forward: the same r and d as the first time, and no second update.
            if finetune:
                self.N -= 1
            avg_mean, avg_var = self._prev_stats
            update = False
        else:
            avg_mean, avg_var = self.avg_mean, self.avg_var
            with self.device:  # (CuPy copies onto the current GPU)
                self._prev_stats = (avg_mean.copy(), avg_var.copy())
            update = True
        return batch_renormalization.batch_renormalization(
            x, gamma, beta, self.rmax, self.dmax, self.eps, avg_mean, avg_var, decay,
            update_statistics=update)
