"""Batch renormalization: batch normalization corrected towards the running statistics."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite import function
from chainlite import variable
from chainlite.functions.normalization import batch_normalization as bn_mod
from chainlite.functions.normalization import fixed_batch_normalization as fixed_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _xhat(x: Any, mean: Any, std: Any, expander: tuple[Any, ...]) -> Any:
    # (x - mean) / std, the statistics expanded against x.
    return (x - mean[expander]) / std[expander]


class BatchRenormalizationFunction(function.Function):
    """Batch renormalization as Chainer's old-style function, applied to ``(x, gamma, beta)``.

    It computes what :func:`batch_renormalization` does, training mode only; ``r`` and
    ``d`` are constants of the gradient (as in the paper), which is differentiable once.
    Reading ``running_mean`` or ``running_var`` warns (deprecated in Chainer).

    Args:
        eps: Added to the variances.
        mean: The running mean (updated in place when ``update_statistics``).
        var: The running variance (likewise).
        decay: The decay rate of the running statistics.
        rmax: The bound of ``r`` (``1 / rmax <= r <= rmax``).
        dmax: The bound of ``|d|``.
        update_statistics: Whether to update the running statistics.
    """

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, rmax: float = 1, dmax: float = 0,
                 update_statistics: bool = True) -> None:
        self._running_mean = mean
        self._running_var = var
        self.rmax = rmax
        self.dmax = dmax
        self.r: Any = None
        self.update_statistics = update_statistics
        self.eps = eps
        self.decay = decay

    def _warn_accessing_property(self) -> None:
        warnings.warn('The attributes of BatchRenormalizationFunction are deprecated. '
                      'Consider setting update_statistics=True to batch_renormalization to '
                      'update running statistics.', DeprecationWarning)

    @property
    def running_mean(self) -> Any:
        """The running mean (deprecated: warns)."""
        self._warn_accessing_property()
        return self._running_mean

    @property
    def running_var(self) -> Any:
        """The running variance (deprecated: warns)."""
        self._warn_accessing_property()
        return self._running_var

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        M = type_check.eval(gamma_type.ndim)
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= gamma_type.ndim + 1,
                          x_type.shape[1:1 + M] == gamma_type.shape,
                          gamma_type.dtype.kind == 'f', gamma_type.dtype == beta_type.dtype,
                          gamma_type.shape == beta_type.shape)

    def _axes(self, x, gamma):
        head = gamma.ndim + 1
        return (None, Ellipsis) + (None,) * (x.ndim - head), \
            (0,) + tuple(range(head, x.ndim))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, beta = inputs
        if not configuration.config.train:
            # An AssertionError, as Chainer's assert gives.
            raise AssertionError('BatchRenormalizationFunction: runs in training mode only '
                                 '(chainer.config.train is False)')
        expander, axis = self._axes(x, gamma)
        mean = x.mean(axis=axis, dtype=gamma.dtype)
        var = x.var(axis=axis, dtype=gamma.dtype)
        self.std = numpy.sqrt(var + self.eps, dtype=var.dtype)
        sigma = numpy.sqrt(self._running_var + self.eps, dtype=self._running_mean.dtype)
        self.r = numpy.clip(self.std / sigma, 1.0 / self.rmax, self.rmax)
        d = numpy.clip((mean - self._running_mean) / sigma, -self.dmax, self.dmax)
        self.x_hat = _xhat(x, mean, self.std, expander)
        self.x_hat_renorm = self.x_hat * self.r[expander] + d[expander]
        y = (gamma[expander] * self.x_hat_renorm + beta[expander]).astype(x.dtype)
        if self.update_statistics:
            m = x.size // gamma.size
            self._running_mean *= self.decay
            self._running_mean += (1 - self.decay) * mean
            self._running_var *= self.decay
            self._running_var += (1 - self.decay) * (m / max(m - 1., 1.)) * var
        return y,

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, _ = inputs
        gy, = grad_outputs
        expander, axis = self._axes(x, gamma)
        m = gamma.dtype.type(x.size // gamma.size)
        gbeta = gy.sum(axis=axis, dtype=gamma.dtype)
        ggamma = (gy * self.x_hat_renorm).sum(axis=axis)
        gsigma = (gy * self.x_hat).sum(axis=axis)
        scale = (self.r * gamma / self.std)[expander]
        gx = scale * (gy - (self.x_hat * gsigma[expander] + gbeta[expander]) / m)
        return gx.astype(x.dtype), ggamma, gbeta


def batch_renormalization(x: VariableOrArray, gamma: VariableOrArray, beta: VariableOrArray,
                          rmax: float, dmax: float, eps: float = 2e-5,
                          running_mean: numpy.ndarray | None = None,
                          running_var: numpy.ndarray | None = None, decay: float = 0.9,
                          update_statistics: bool = False) -> Variable:
    """Batch renormalization (Ioffe, 2017, https://arxiv.org/abs/1702.03275).

    With the batch statistics ``mean``, ``var`` (over the first axis and those after the
    channel axes, whose shape is ``gamma.shape``), ``std = sqrt(var + eps)`` and the running
    ``sigma = sqrt(running_var + eps)``, the output is
    ``gamma * ((x - mean) / std * r + d) + beta`` with
    ``r = clip(std / sigma, 1 / rmax, rmax)`` and
    ``d = clip((mean - running_mean) / sigma, -dmax, dmax)``. ``r`` and ``d`` are treated as
    constants by backprop, so the gradients are those of batch normalization with the scale
    ``gamma * r`` and the shift ``gamma * d + beta``; they are differentiable again.

    As in Chainer, the running variance (not the standard deviation) is averaged, with
    Bessel's correction, and the running statistics are only updated (in place, as by
    :func:`~chainlite.functions.batch_normalization`) when ``update_statistics`` is True.

    Args:
        x: A float Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift, of the channel shape and ``gamma``'s dtype.
        rmax (float): The bound of ``r`` (``r`` is in ``[1 / rmax, rmax]``).
        dmax (float): The bound of ``d`` (``d`` is in ``[-dmax, dmax]``).
        eps (float): Added to the variances.
        running_mean: The running mean (an array of the channel shape). Required.
        running_var: The running variance (an array of the channel shape). Required.
        decay (float): The decay rate of the running averages.
        update_statistics (bool): Update ``running_mean`` and ``running_var`` in place.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        TypeError: If ``running_mean`` or ``running_var`` is None.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.array([[0.0, 1.0], [2.0, 5.0]])
        >>> mean, var = np.zeros(2), np.ones(2)
        >>> F.batch_renormalization(x, np.ones(2), np.zeros(2), 1.0, 0.0, eps=0.0,
        ...                         running_mean=mean, running_var=var).array
        array([[-1., -1.],
               [ 1.,  1.]])
        >>> y = F.batch_renormalization(x, np.ones(2), np.zeros(2), 3.0, 5.0, eps=0.0,
        ...                             running_mean=mean, running_var=var)
        >>> y.array   # r = std, d = mean: what the running statistics (0, 1) give
        array([[0., 1.],
               [2., 5.]])
    """
    if running_mean is None:
        raise TypeError('batch_renormalization: running_mean is required')
    if running_var is None:
        raise TypeError('batch_renormalization: running_var is required')
    running_mean = variable.as_array(running_mean)
    running_var = variable.as_array(running_var)
    x_array = variable.as_array(x)
    g = variable.as_array(gamma)
    if (getattr(x_array, 'ndim', 0) >= getattr(g, 'ndim', 0) + 1
            and getattr(x_array, 'dtype', None) is not None
            and x_array.dtype.kind == 'f' and g.dtype.kind == 'f'
            and x_array.shape[1:1 + g.ndim] == g.shape
            and running_mean.shape == g.shape and running_var.shape == g.shape):
        axis = (0,) + tuple(range(g.ndim + 1, x_array.ndim))
        xs = x_array.astype(bn_mod._compute_dtype(x_array.dtype), copy=False)
        mean = xs.mean(axis=axis).astype(g.dtype)
        std = numpy.sqrt(xs.var(axis=axis).astype(g.dtype) + g.dtype.type(eps))
        sigma = numpy.sqrt(running_var + running_var.dtype.type(eps))
        r = numpy.clip(std / sigma, 1. / rmax, rmax).astype(g.dtype)
        d = numpy.clip((mean - running_mean) / sigma, -dmax, dmax).astype(g.dtype)
        scale, shift = gamma * r, gamma * d + beta
    else:
        scale, shift = gamma, beta  # batch_normalization reports what is wrong
    if update_statistics:
        return bn_mod.batch_normalization(x, scale, shift, eps, running_mean, running_var,
                                          decay)
    return bn_mod.batch_normalization(x, scale, shift, eps)


def fixed_batch_renormalization(x: VariableOrArray, gamma: VariableOrArray, beta: VariableOrArray,
                                mean: VariableOrArray, var: VariableOrArray,
                                eps: float = 2e-5) -> Variable:
    """Deprecated: batch renormalization at test time is
    :func:`~chainlite.functions.fixed_batch_normalization`, which it calls.

    Args:
        x: A float Variable or array.
        gamma: The scale, of the channel shape.
        beta: The shift.
        mean: The mean to normalize with.
        var: The variance to normalize with.
        eps (float): Added to the variance.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import warnings, numpy as np, chainlite.functions as F
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore', DeprecationWarning)
        ...     F.fixed_batch_renormalization(np.array([[3.0]]), np.ones(1), np.zeros(1),
        ...                                   np.ones(1), np.full(1, 4.0), eps=0.0).array
        array([[1.]])
    """
    warnings.warn('fixed_batch_renormalization is deprecated; use fixed_batch_normalization',
                  DeprecationWarning, stacklevel=2)
    with configuration.using_config('train', False):
        return fixed_mod.fixed_batch_normalization(x, gamma, beta, mean, var, eps)
