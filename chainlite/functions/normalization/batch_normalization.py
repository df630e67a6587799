"""Batch normalization with the statistics of the current batch."""
from __future__ import annotations

import abc
import string
import warnings
from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import _lazy
from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.backends import cuda
from chainlite.backends import intel64
from chainlite.functions import _axis
from chainlite.functions import _vjp
from chainlite.functions.array import broadcast
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import mean as mean_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _compute_dtype(dtype):
    # As Chainer: float16 statistics are accumulated and applied in float32.
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def _subscripts(ndim, axis):
    # einsum reduces over non-trailing axes in one pass, and the product of two operands
    # without a temporary: several times faster than ndarray.sum(axis=(0, 2, 3)).
    s = string.ascii_letters[:ndim]
    return s, ''.join([c for i, c in enumerate(s) if i not in axis])


def _kept_shape(shape, axis):
    return tuple([1 if i in axis else n for i, n in enumerate(shape)])


class BatchNormalization(function_node.FunctionNode):

    def __init__(self, eps: float, running_mean: numpy.ndarray | None,
                 running_var: numpy.ndarray | None, decay: float,
                 axis: tuple[int, ...]) -> None:
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x, gamma, beta = in_types
        type_check.expect(
            x.dtype.kind == 'f',
            # gamma and beta may have another float dtype than x (as in Chainer): the
            # statistics are computed in the promoted dtype.
            gamma.dtype.kind == 'f',
            beta.dtype == gamma.dtype,
            gamma.shape == beta.shape,
            x.ndim == len(self.axis) + gamma.ndim,
        )
        key = [i for i in range(type_check.eval(x.ndim)) if i not in self.axis]
        for j, i in enumerate(key):
            type_check.expect(x.shape[i] == gamma.shape[j])
        for name, stat in (('running_mean', self.running_mean),
                           ('running_var', self.running_var)):
            if stat is not None:
                shape = type_check.make_variable(stat.shape, name + '.shape')
                type_check.expect(gamma.shape == shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        dtype = _compute_dtype(numpy.promote_types(x.dtype, gamma.dtype))
        kept = _kept_shape(x.shape, self.axis)
        s, o = _subscripts(x.ndim, self.axis)
        m = x.size // max(gamma.size, 1)
        xc = x.astype(dtype, copy=False)
        mean = xp.einsum(s + '->' + o, xc) / m
        xc = xc - mean.reshape(kept)
        var = xp.einsum('%s,%s->%s' % (s, s, o), xc, xc) / m
        inv_std = 1 / xp.sqrt(var + self.eps)
        xc *= inv_std.reshape(kept)  # xc is our own buffer: it becomes x_hat in place
        y = xc * gamma.astype(dtype, copy=False).reshape(kept)
        y += beta.astype(dtype, copy=False).reshape(kept)
        self.x_hat, self.inv_std, self.m = xc, inv_std, m
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += (1 - self.decay) * mean
        if self.running_var is not None:
            # The running variance is unbiased (Bessel's correction), as in Chainer.
            adjust = m / max(m - 1., 1.)
            self.running_var *= self.decay
            self.running_var += (1 - self.decay) * adjust * var
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        return _BatchNormalizationGrad(self).apply((x, gamma, gy))


class _BatchNormalizationGrad(function_node.FunctionNode):
    # (x, gamma, gy) -> (gx, ggamma, gbeta) in one pass over the saved x_hat.

    def __init__(self, bn):
        self.eps, self.axis, self.m = bn.eps, bn.axis, bn.m
        self.x_hat, self.inv_std = bn.x_hat, bn.inv_std

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, gamma, gy = inputs
        xp = backend.get_array_module(x)
        x_hat, m = self.x_hat, self.m
        kept = _kept_shape(x.shape, self.axis)
        s, o = _subscripts(x.ndim, self.axis)
        gy = gy.astype(x_hat.dtype, copy=False)
        gbeta = xp.einsum(s + '->' + o, gy)
        ggamma = xp.einsum('%s,%s->%s' % (s, s, o), gy, x_hat)
        # gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m), with one new array.
        gx = x_hat * (ggamma / m).reshape(kept)
        gx += (gbeta / m).reshape(kept)
        xp.subtract(gy, gx, out=gx)
        gx *= (gamma.astype(x_hat.dtype, copy=False) * self.inv_std).reshape(kept)
        return (gx.astype(x.dtype, copy=False), ggamma.astype(gamma.dtype, copy=False),
                gbeta.astype(gamma.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # Second derivatives in closed form, from differentiable functions of x, gamma and gy
        # (the statistics are recomputed from x), so higher orders work too. Per channel,
        # with E the mean over the reduced axes, s = 1/std and x_hat = (x - E[x]) * s:
        #   gx = gamma * s * (gy - x_hat * E[gy x_hat] - E[gy]),
        #   ggamma = m * E[gy x_hat], gbeta = m * E[gy].
        x, gamma, gy = self.get_retained_inputs()
        a, p, q = grad_outputs  # upstream gradients of gx, ggamma and gbeta
        x_dtype, p_dtype = x.dtype, gamma.dtype
        if x_dtype != p_dtype:
            # Mixed dtypes: differentiate in the promoted dtype; cast the results back.
            dtype = numpy.promote_types(x_dtype, p_dtype)
            x, gamma, gy, a, p, q = (cast.cast_to(v, dtype) for v in (x, gamma, gy, a, p, q))
        axis, m = self.axis, self.m
        kept = _kept_shape(x.shape, axis)

        def E(v):
            return mean_mod.mean(v, axis=axis, keepdims=True)

        xc = x - E(x)
        s = (E(xc * xc) + self.eps) ** -0.5
        x_hat = xc * s
        g = reshape.reshape(gamma, kept)
        gy_x = E(gy * x_hat)
        gy_m = E(gy)
        if p is not None:
            p = reshape.reshape(p, kept)
        if q is not None:
            q = reshape.reshape(q, kept)

        # Upstream gradient reaching x_hat (u) and the factor multiplying s (w).
        u = None if p is None else p * gy
        if a is not None:
            a_x, a_m = E(a * x_hat), E(a)
            w = E(a * gy) - a_x * gy_x - a_m * gy_m
            t = g * s * (a * gy_x + gy * a_x)
            u = -t if u is None else u - t
        ret = []
        if 0 in indexes:
            gx = None
            if u is not None:
                gx = s * (u - E(u) - x_hat * E(u * x_hat))
            if a is not None:
                gs = s * s * x_hat * (g * w)
                gx = -gs if gx is None else gx - gs
            ret.append(gx)
        if 1 in indexes:
            ret.append(None if a is None else reshape.reshape(s * w * float(m), gamma.shape))
        if 2 in indexes:
            ggy = None
            if a is not None:
                ggy = g * s * (a - x_hat * a_x - a_m)
            if p is not None:
                ggy = p * x_hat if ggy is None else ggy + p * x_hat
            if q is not None:
                ggy = q if ggy is None else ggy + q
            if ggy is not None and ggy.shape != x.shape:
                ggy = broadcast.broadcast_to(ggy, x.shape)
            ret.append(ggy)
        if x_dtype != p_dtype:
            ret = [cast.cast_to(g, p_dtype if i == 1 else x_dtype) for i, g in zip(indexes, ret)]
        return tuple(ret)


def batch_normalization(x: VariableOrArray, gamma: VariableOrArray, beta: VariableOrArray,
                        eps: float = 2e-5, running_mean: numpy.ndarray | None = None,
                        running_var: numpy.ndarray | None = None, decay: float = 0.9,
                        axis: int | Sequence[int] | None = None) -> Variable:
    """Batch normalization: normalizes ``x`` with the mean and variance of the batch.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``, where ``mean`` and ``var`` (the
    biased variance) are taken over ``axis``. By default the axes are the first one (the
    batch) and those after the channel axes, whose shape is ``gamma.shape``: for a
    ``(N, C, H, W)`` input and ``(C,)`` parameters, the statistics are per channel over
    ``(0, 2, 3)``. The batch statistics are used whatever ``chainlite.config.train`` says.
    If every axis the statistics are taken over has size 1 (a batch of one sample, say),
    the output is ``beta`` whatever ``x`` is, and a ``UserWarning`` says so, as in Chainer.

    Args:
        x: A float Variable or array.
        gamma: The scale, of the channel shape; a float dtype, not necessarily ``x``'s (the
            statistics are then computed in the promoted dtype, float32 at least).
        beta: The shift, of the same shape and dtype.
        eps: Added to the variance for numerical stability.
        running_mean: None, or an array of the channel shape, updated in place to
            ``decay * running_mean + (1 - decay) * mean``.
        running_var: None, or an array updated in place to ``decay * running_var +
            (1 - decay) * m / (m - 1) * var``: the unbiased variance of the ``m`` values
            per channel, as in Chainer.
        decay: The decay rate of the running averages.
        axis: The axes to normalize over (an int or a tuple of ints), or None for the
            default described above. The remaining axes, in order, have ``gamma``'s shape.

    Returns:
        A Variable of ``x``'s shape and dtype. Its gradient is computed in one fused pass,
        and is itself differentiable.

    Example:
        >>> import numpy as np
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> running_mean = np.zeros(2)
        >>> y = batch_normalization(x, np.ones(2), np.zeros(2), eps=0.0,
        ...                         running_mean=running_mean)
        >>> y.array
        array([[-1., -1.],
               [ 1.,  1.]])
        >>> running_mean
        array([0.2, 2. ])
    """
    x_ndim = x.ndim
    if axis is None:
        axes = (0,) + tuple(range(gamma.ndim + 1, x_ndim))
    else:
        axes = _axis.normalize_axes(axis, x_ndim, 'BatchNormalization')
    shape = x.shape
    if all([shape[i] == 1 for i in axes if i < len(shape)]):
        # Every statistic is over one value: the output is beta whatever x is.
        if 0 in axes:
            warnings.warn('batch_normalization: a batch of one sample (x.shape = %s) gives '
                          'a zero-centred output (beta) whatever x is; evaluation with '
                          'chainlite.config.train left True, or a last batch of one, '
                          'can cause this' % (shape,), UserWarning, stacklevel=2)
        else:
            warnings.warn('batch_normalization: every axis the statistics are taken over '
                          '(axis = %s) has size 1 in x.shape = %s: the output is beta '
                          'whatever x is' % (axes, shape), UserWarning, stacklevel=2)
    running_mean = variable.as_array(running_mean)
    running_var = variable.as_array(running_var)
    node = BatchNormalization(eps, running_mean, running_var, decay, axes)
    return node.apply((x, gamma, beta))[0]


# -- Chainer's internals of this module, for code that builds on them ----------------------------

def _compute_axis(x_ndim: int, gamma_ndim: int, axis: Any) -> tuple[int, ...]:
    # The axes the statistics are taken over: axis itself, or by default the batch axis
    # and the axes after gamma's.
    if axis is not None:
        return axis
    return (0,) + tuple(range(gamma_ndim + 1, x_ndim))


def _compute_key_axis(x_ndim: int, gamma_ndim: int, axis: Any) -> tuple[int, ...]:
    # The axes gamma lines up with: those not reduced over.
    axis = _compute_axis(x_ndim, gamma_ndim, axis)
    return tuple(i for i in range(x_ndim) if i not in axis)


def _chainerx_compute_axis(x_ndim: int, gamma_ndim: int, axis: Any) -> tuple[int, ...]:
    # _compute_axis for an axis given as an int, a tuple or None.
    if axis is not None and not isinstance(axis, tuple):
        axis = (axis,)
    return _compute_axis(x_ndim, gamma_ndim, axis)


def _chainerx_is_supported(x: Any, axis_chx: tuple[int, ...]) -> bool:
    # Whether ChainerX's batch_norm takes these axes: on CUDA only the 4-d and 5-d
    # per-channel cases, elsewhere every case (there is no ChainerX device here).
    backend_ = getattr(getattr(x, 'device', None), 'backend', None)
    if getattr(backend_, 'name', None) == 'cuda':
        return (x.ndim, axis_chx) in [(4, (0, 2, 3)), (5, (0, 2, 3, 4))]
    return True


def _x_hat(x: Any, mean: Any, inv_std: Any) -> Any:
    # The normalized input (x - mean) * inv_std (mean and inv_std already expanded).
    return (x - mean) * inv_std


def _apply_bn_fwd(xp: Any, x: Any, mean: Any, inv_std: Any, gamma: Any, beta: Any) -> Any:
    # gamma * x_hat + beta in x's dtype (the statistics already expanded against x).
    return (_x_hat(x, mean, inv_std) * gamma + beta).astype(x.dtype)


def _zero_if_none(xp: Any, x: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    # A missing upstream gradient stands for zeros.
    if x is None:
        return xp.zeros(shape, dtype=dtype)
    return x


class _BatchNormalizationImpl(abc.ABC):
    # Chainer's interface of one batch normalization backend (NumPy, cuDNN, iDeep).

    @abc.abstractmethod
    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps, decay,
                running_mean, running_var):
        """Returns ``(y, y_layout, running_mean, running_var, mean, var, inv_std, data)``."""

    @abc.abstractmethod
    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean, inv_std, eps, var,
                 forward_data):
        """Returns ``(gx, gx_layout, ggamma, gbeta)``."""


class GeneralBatchNormalizationImpl(_BatchNormalizationImpl):
    """Batch normalization on arrays, Chainer's implementation for NumPy (and CuPy).

    :class:`BatchNormalization` computes the same; this class serves code that calls
    Chainer's implementation objects directly. The statistics are computed in the promoted
    dtype of ``x`` and ``gamma``.
    """

    def forward(self, axis: Any, gamma: Any, x: Any, x_layout: Any, xp: Any, expander: Any,
                beta: Any, eps: Any, decay: Any, running_mean: Any, running_var: Any) -> Any:
        """Normalizes ``x`` and updates the running statistics in place.

        Args:
            axis: The axes the statistics are taken over.
            gamma: The scale array.
            x: The input array.
            x_layout: Its memory layout (None: the standard one).
            xp: The array module.
            expander: Broadcasts ``gamma``'s shape against ``x``.
            beta: The shift array.
            eps: Added to the variance.
            decay: The decay rate of the running statistics.
            running_mean: The running mean (updated in place), or None.
            running_var: The running variance (updated in place), or None.

        Returns:
            ``(y, y_layout, running_mean, running_var, mean, var, inv_std, None)``.
        """
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        gamma_e = gamma[expander].astype(dtype, copy=False)
        beta_e = beta[expander].astype(dtype, copy=False)
        mean, var = self.get_mean_and_var(axis, gamma, x, xp, dtype)
        inv_std = xp.reciprocal(xp.sqrt(var + eps, dtype=dtype))
        y = _apply_bn_fwd(xp, x, mean[expander], inv_std[expander], gamma_e, beta_e)
        if running_mean is not None:
            m = x.size // gamma.size
            # The running variance is the unbiased estimate.
            adjust = m / max(m - 1., 1.)
            running_mean *= decay
            running_mean += (1 - decay) * mean
            running_var *= decay
            running_var += (1 - decay) * adjust * var
        return y, x_layout, running_mean, running_var, mean, var, inv_std, None

    def get_mean_and_var(self, axis: Any, gamma: Any, x: Any, xp: Any, interm_dtype: Any) -> Any:
        """Returns the mean and the (biased) variance of ``x`` over ``axis``."""
        return x.mean(axis=axis, dtype=interm_dtype), x.var(axis=axis, dtype=interm_dtype)

    def get_ggamma_and_gbeta(self, axis: Any, gamma: Any, gy: Any, x_hat: Any, xp: Any) -> Any:
        """Returns ``(gbeta, ggamma)``: the sums of ``gy`` and ``gy * x_hat`` over ``axis``."""
        gbeta = gy.sum(axis=axis, dtype=gamma.dtype)
        ggamma = (gy * x_hat).sum(axis=axis, dtype=gamma.dtype)
        return gbeta, ggamma

    def backward(self, axis: Any, gamma: Any, gy: Any, x: Any, x_layout: Any, xp: Any,
                 expander: Any, mean: Any, inv_std: Any, eps: Any, var: Any,
                 forward_data: Any) -> Any:
        """Returns ``(gx, None, ggamma, gbeta)`` for the batch statistics of ``x``."""
        x_hat = _x_hat(x, mean[expander], inv_std[expander])
        gbeta, ggamma = self.get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)
        inv_m = gamma.dtype.type(1. / (x.size // gamma.size))
        gx = (gamma * inv_std)[expander] * (
            gy - (x_hat * ggamma[expander] + gbeta[expander]) * inv_m)
        return gx.astype(x.dtype, copy=False), None, ggamma, gbeta


class _IDeepBatchNormalizationImpl(_BatchNormalizationImpl):
    # Chainer's iDeep backend; iDeep is never available here, so both directions raise
    # RuntimeError (Chainer without iDeep fails on intel64.ideep being None).

    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps, decay,
                running_mean, running_var):
        intel64.check_ideep_available()
        raise AssertionError('unreachable: iDeep is not available')

    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean, inv_std, eps, var,
                 forward_data):
        intel64.check_ideep_available()
        raise AssertionError('unreachable: iDeep is not available')


class _CudnnBatchNormalizationImpl(GeneralBatchNormalizationImpl):
    # Chainer's cuDNN backend. chainlite computes with CuPy's array operations (the general
    # implementation) once CUDA is available; without it both directions raise
    # RuntimeError, as Chainer's do where cuDNN is absent.

    def __init__(self, is_for_conv2d, cudnn_mode):
        self.is_for_conv2d = is_for_conv2d
        self.cudnn_mode = cudnn_mode

    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps, decay,
                running_mean, running_var):
        cuda.check_cuda_available()
        return super().forward(axis, gamma, x, x_layout, xp, expander, beta, eps, decay,
                               running_mean, running_var)

    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean, inv_std, eps, var,
                 forward_data):
        cuda.check_cuda_available()
        return super().backward(axis, gamma, gy, x, x_layout, xp, expander, mean, inv_std,
                                eps, var, forward_data)


class _BNMode:
    # Which backend suits the inputs: cuDNN's where CuPy has it (its impl computes as the
    # general one), never iDeep (not installed).

    def __init__(self, x, gamma, key_axis, inference=False):
        is_gamma_1d = gamma.ndim == 1
        self.is_for_conv2d = is_gamma_1d and x.ndim == 4 and key_axis[0] == 1
        self.is_for_linear = is_gamma_1d and key_axis[0] == x.ndim - 1
        self.cudnn_dim_ok = self.is_for_conv2d or self.is_for_linear
        self.cudnn_dtype_ok = self.is_for_conv2d or (x.dtype != numpy.float16)
        self.ideep_ok = (x.dtype == gamma.dtype and is_gamma_1d
                         and intel64.inputs_all_ready((x,)))
        self.inference = inference

    def get_cudnn_mode(self):
        assert self.cudnn_dim_ok
        cuda.check_cuda_available()

    def can_use_ideep(self):
        return self.ideep_ok and intel64.should_use_ideep('>=auto')

    def can_use_cudnn(self, xp):
        return (xp is cuda.cupy and cuda.should_use_cudnn('>=auto', 5000)
                and self.cudnn_dim_ok and self.cudnn_dtype_ok)


def _impl_selector(batch_norm_func: Any, inputs: tuple[Any, ...]) -> _BatchNormalizationImpl:
    # Chainer's choice of backend for a BatchNormalization node (it reads the node's
    # key_axis): the general one unless cuDNN (enabled in CuPy) or iDeep (never here) can
    # serve.
    x, gamma, _ = inputs
    mode = _BNMode(x, gamma, batch_norm_func.key_axis)
    if mode.can_use_ideep():
        return _IDeepBatchNormalizationImpl()
    if mode.can_use_cudnn(backend.get_array_module(x)):
        return _CudnnBatchNormalizationImpl(mode.is_for_conv2d, mode.get_cudnn_mode())
    return GeneralBatchNormalizationImpl()


class BatchNormalizationGrad(function_node.FunctionNode):
    """The gradients of batch normalization (with batch statistics) as Chainer's node.

    Applied to ``(x, gamma, gy)``, it returns ``(gx, ggamma, gbeta)``; differentiable
    again (through the batch statistics too).

    Args:
        eps: The epsilon added to the variance.
        expander: Broadcasts ``gamma``'s shape against ``x``.
        axis: The axes the statistics were taken over.
        mean: The batch mean of the forward.
        var: The batch variance (Chainer's iDeep path reads it), or None.
        inv_std: ``1 / sqrt(var + eps)`` of the forward.
        key_axis: The axes gamma lines up with.
        impl: The implementation whose ``backward`` computes the gradients, e.g.
            :class:`GeneralBatchNormalizationImpl`.
        forward_data: What the implementation's forward passed on (None for the general
            one).
    """

    def __init__(self, eps: Any, expander: Any, axis: Any, mean: Any, var: Any, inv_std: Any,
                 key_axis: Any, impl: Any, forward_data: Any) -> None:
        self.eps = eps
        self.expander = expander
        self.axis = axis
        self.mean = mean
        self.var = var
        self.inv_std = inv_std
        self.key_axis = key_axis
        self._impl = impl
        self.forward_data = forward_data

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, gamma, gy = inputs
        gx, _, ggamma, gbeta = self._impl.backward(
            self.axis, gamma, gy, x, None, backend.get_array_module(x), self.expander,
            self.mean, self.inv_std, self.eps, self.var, self.forward_data)
        return gx, ggamma, gbeta

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        from chainlite.functions.normalization import fixed_batch_normalization as fixed_mod
        expand = lambda v: fixed_mod._expand(v, self.expander)  # noqa: E731
        axis = self.axis

        def formula(x, gamma, gy):
            # The statistics are functions of x: recomputed here so that they are
            # differentiated too.
            dtype = numpy.promote_types(x.dtype, gamma.dtype)
            if x.dtype != dtype:
                x, gy = cast.cast(x, dtype), cast.cast(gy, dtype)
            if gamma.dtype != dtype:
                gamma = cast.cast(gamma, dtype)
            mean = mean_mod.mean(x, axis=axis)
            xc = x - expand(mean)
            inv_std = (mean_mod.mean(xc * xc, axis=axis) + self.eps) ** -0.5
            x_hat = xc * expand(inv_std)
            gbeta = sum_mod.sum(gy, axis=axis)
            ggamma = sum_mod.sum(gy * x_hat, axis=axis)
            inv_m = 1. / (x.size // gamma.size)
            gx = expand(gamma * inv_std) * (
                gy - (x_hat * expand(ggamma) + expand(gbeta)) * inv_m)
            return gx, ggamma, gbeta
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


# Chainer's module also has fixed_batch_normalization; chainlite keeps it in its own module
# (which may import this one), imported on first use.
_FIXED = 'chainlite.functions.normalization.fixed_batch_normalization'
__getattr__, __dir__ = _lazy.attach(__name__, {
    'fixed_batch_normalization': _FIXED, 'FixedBatchNormalization': _FIXED,
    'FixedBatchNormalizationGrad': _FIXED})[:2]
