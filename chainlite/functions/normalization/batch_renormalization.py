"""Batch renormalization: batch normalization corrected towards the running statistics."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy

from chainlite import configuration
from chainlite import variable
from chainlite.functions.normalization import batch_normalization as bn_mod
from chainlite.functions.normalization import fixed_batch_normalization as fixed_mod

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


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
