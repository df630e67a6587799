"""Decorrelated batch normalization: ZCA whitening of channel groups with batch statistics."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions import _vjp
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.array import transpose
from chainlite.functions.math import batch_inv
from chainlite.functions.math import matmul
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _sylvester_solve(r, c):
    # Solves r @ x + x @ r = c for symmetric positive definite r (batched), through r's
    # eigenvectors: in that basis the equation is elementwise.
    w, v = numpy.linalg.eigh(r)
    vt = numpy.swapaxes(v, -1, -2)
    return v @ ((vt @ c @ v) / (w[..., :, None] + w[..., None, :])) @ vt


class _Sylvester(function_node.FunctionNode):
    # X = solve(R X + X R = C); R symmetric positive definite.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        r, c = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return _sylvester_solve(r, c).astype(c.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        r, = self.get_retained_inputs()
        x, = self.get_retained_outputs()
        gx, = grad_outputs
        # X -> R X + X R is self-adjoint for symmetric R, so the adjoint solve is the same.
        z = _Sylvester().apply((r, gx))[0]
        ret = []
        if 0 in indexes:
            ret.append(-(matmul.matmul(z, x, transb=True) + matmul.matmul(x, z, transa=True)))
        if 1 in indexes:
            ret.append(z)
        return tuple(ret)


class _Sqrtm(function_node.FunctionNode):
    # The symmetric square root of symmetric positive definite matrices (batched).

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        a, = inputs
        w, v = numpy.linalg.eigh(a)
        self.retain_outputs((0,))
        r = (v * numpy.sqrt(w)[..., None, :]) @ numpy.swapaxes(v, -1, -2)
        return r.astype(a.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        r, = self.get_retained_outputs()
        gr, = grad_outputs
        # R R = A gives dR = solve(R dR + dR R = dA), a self-adjoint map of dA.
        return _Sylvester().apply((r, gr))


def _groups_layout(x_shape, groups):
    b, c = x_shape[:2]
    spatial = tuple(range(2, len(x_shape)))
    m = b * int(numpy.prod(x_shape[2:], dtype=numpy.int64))
    return (1, 0) + spatial, (groups, c // groups, m), m


def _to_groups(x, groups):
    axes, shape, _ = _groups_layout(x.shape, groups)
    return reshape.reshape(transpose.transpose(x, axes), shape)


def _from_groups(y, x_shape):
    b, c = x_shape[:2]
    spatial = tuple(range(2, len(x_shape)))
    return transpose.transpose(reshape.reshape(y, (c, b) + tuple(x_shape[2:])),
                               (1, 0) + spatial)


def _check(name, arrays, names, conditions):
    in_types = type_check.get_types(arrays, 'in_types', False)
    type_check.argname(in_types, names)
    try:
        type_check.expect(*conditions(*in_types))
    except type_check.InvalidType as e:
        raise type_check.InvalidType(
            e.expect, e.actual,
            'Invalid operation is performed in: %s (Forward)\n\n%s' % (name, e.msg)) from None


def _compute_dtype(dtype):
    # LAPACK has no float16: whiten float16 inputs in float32.
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else numpy.dtype(dtype)


# -- Chainer's node classes and array helpers of this module ------------------------------------

def _eigh(a, xp):
    # Eigenvalues (ascending) and eigenvectors of a batch of symmetric matrices.
    return xp.linalg.eigh(a)


def _matmul(a, b, xp):
    # Batched matrix product.
    return xp.matmul(a, b)


def _diag(a, xp):
    # (s0, s1) -> (s0, s1, s1): a batch of diagonal matrices with a's rows on the diagonal.
    s0, s1 = a.shape
    ret = xp.zeros((s0, s1, s1), a.dtype)
    i = xp.arange(s1)
    ret[:, i, i] = a
    return ret


def _calc_axis_and_m(x_shape, batch_size):
    # The spatial axes of x and the number of samples per channel (batch times spatial).
    spatial_axis = tuple(range(2, len(x_shape)))
    m = batch_size
    for i in spatial_axis:
        m *= x_shape[i]
    return spatial_axis, m


def _grouped(a, groups):
    # (b, c, ...) array -> (groups, c / groups, m), and the transpose that undoes it.
    spatial_axis, m = _calc_axis_and_m(a.shape, a.shape[0])
    return a.transpose((1, 0) + spatial_axis).reshape(groups, a.shape[1] // groups, m)


def _ungrouped(a, x_shape):
    b, c = x_shape[:2]
    return a.reshape((c, b) + tuple(x_shape[2:])).transpose(
        (1, 0) + tuple(range(2, len(x_shape))))


class DecorrelatedBatchNormalization(function_node.FunctionNode):
    """Decorrelated batch normalization as Chainer's node, applied to ``(x,)``.

    It computes what :func:`decorrelated_batch_normalization` does, through the
    eigendecomposition of each group's covariance (kept, as in Chainer, in ``eigvals``,
    ``eigvectors`` and ``y_hat_pca``), and updates the running statistics in place. Its
    gradient is differentiable again.

    Args:
        groups: The number of channel groups.
        eps: Added to the covariance's diagonal.
        mean: The running mean ``(groups, c / groups)``, or None.
        projection: The running projection ``(groups, C, C)``, or None.
        decay: The decay rate of the running statistics.
    """

    def __init__(self, groups: int = 16, eps: float = 2e-5, mean: Any = None,
                 projection: Any = None, decay: float = 0.9) -> None:
        self.groups = groups
        self.running_mean = mean
        self.running_projection = projection
        self.eps = eps
        self.decay = decay
        self.axis = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)
        type_check.expect(x_type.shape[1] % self.groups == 0)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        work = _compute_dtype(x.dtype)
        xg = _grouped(x.astype(work, copy=False), self.groups)
        C, m = xg.shape[1:]
        mean = xg.mean(axis=2, keepdims=True)
        xc = xg - mean
        cov = _matmul(xc, xc.transpose(0, 2, 1), xp) / work.type(m) + \
            work.type(self.eps) * xp.eye(C, dtype=work)
        self.eigvals, self.eigvectors = _eigh(cov, xp)
        # ZCA whitening: rotate to the eigenbasis, scale each axis to unit variance (the
        # PCA-whitened y_hat_pca), rotate back.
        U = _matmul(_diag(self.eigvals ** -0.5, xp), self.eigvectors.transpose(0, 2, 1), xp)
        self.y_hat_pca = _matmul(U, xc, xp)
        y = _ungrouped(_matmul(self.eigvectors, self.y_hat_pca, xp), x.shape)
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += (1 - self.decay) * mean.squeeze(axis=2)
        if self.running_projection is not None:
            adjust = m / max(m - 1., 1.)
            self.running_projection *= self.decay
            self.running_projection += (1 - self.decay) * adjust * _matmul(
                self.eigvectors, U, xp)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _vjp.vjp(
            lambda x: (decorrelated_batch_normalization(x, groups=self.groups, eps=self.eps),),
            self.get_retained_inputs(), grad_outputs, indexes)


class DecorrelatedBatchNormalizationGrad(function_node.FunctionNode):
    """The input gradient of decorrelated batch normalization as Chainer's node.

    Applied to ``(gy,)``, it returns ``gx`` from the forward's eigendecomposition alone (the
    centred input is ``eigvectors @ sqrt(eigvals) @ y_hat_pca``). It is linear in ``gy``,
    and its backward is that linear map's adjoint.

    Args:
        groups: The number of channel groups.
        eigvals: The eigenvalues ``(groups, C)`` of each group's covariance plus ``eps``.
        eigvectors: The eigenvectors ``(groups, C, C)``.
        y_hat_pca: The PCA-whitened input ``(groups, C, m)``.
    """

    def __init__(self, groups: int, eigvals: Any, eigvectors: Any, y_hat_pca: Any) -> None:
        self.groups = groups
        self.eigvals = eigvals
        self.eigvectors = eigvectors
        self.y_hat_pca = y_hat_pca

    def _gx(self, gy):
        # gx for gy (array or Variable): the whitening rebuilt on the centred input, whose
        # covariance's eps part stays a constant, differentiated by backprop.
        V, w = self.eigvectors, self.eigvals
        xp = backend.get_array_module(V)
        xc = _matmul(V, xp.sqrt(w)[:, :, None] * self.y_hat_pca, xp)
        m = xc.shape[2]
        sigma = _matmul(V * w[:, None, :], V.transpose(0, 2, 1), xp)
        eps_part = sigma - _matmul(xc, xc.transpose(0, 2, 1), xp) / m
        with configuration.using_config('enable_backprop', True):
            xv = variable.Variable(xc)
            xcv = xv - matmul.matmul(xv, xp.full((m, 1), 1. / m, xc.dtype))
            cov = matmul.matmul(xcv, xcv, transb=True) * xc.dtype.type(1. / m) + eps_part
            y = matmul.matmul(batch_inv.batch_inv(_Sqrtm().apply((cov,))[0]), xcv)
            gyg = _to_groups(gy, self.groups)
            gx, = backprop.grad([y], [xv], grad_outputs=[gyg], enable_double_backprop=True)
        return _from_groups(gx, gy.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        gy, = inputs
        return self._gx(variable.Variable(gy)).array.astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _vjp.vjp(lambda gy: (self._gx(gy),), self.get_retained_inputs(), grad_outputs,
                        indexes)


class FixedDecorrelatedBatchNormalization(function_node.FunctionNode):
    """Fixed decorrelated batch normalization as Chainer's node, on ``(x, mean, projection)``.

    It computes what :func:`fixed_decorrelated_batch_normalization` does; its gradients
    (:class:`FixedDecorrelatedBatchNormalizationGrad`) are differentiable again.

    Args:
        groups: The number of channel groups.
    """

    def __init__(self, groups: int) -> None:
        self.groups = groups

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'mean', 'projection'))
        x_type, mean_type, proj_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', mean_type.dtype == x_type.dtype,
                          proj_type.dtype == x_type.dtype, x_type.ndim >= 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, mean, projection = inputs
        xg = _grouped(x, self.groups) - mean[:, :, None]
        return _ungrouped(_matmul(projection, xg, backend.get_array_module(x)),
                          x.shape).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, mean, projection = self.get_retained_inputs()
        gy, = grad_outputs
        grads = FixedDecorrelatedBatchNormalizationGrad(self.groups).apply(
            (x, mean, projection, gy))
        return tuple(grads[i] for i in indexes)


class FixedDecorrelatedBatchNormalizationGrad(function_node.FunctionNode):
    """The gradients of fixed decorrelated batch normalization as Chainer's node.

    Applied to ``(x, mean, projection, gy)``, it returns ``(gx, gmean, gprojection)``:
    ``projection^T gy``, minus its sum over the samples, and ``gy (x - mean)^T``, per group.
    Differentiable again. (Chainer 7.8.1's node returns other ``gmean`` and
    ``gprojection``, which do not match its forward; these are the exact ones.)

    Args:
        groups: The number of channel groups.
    """

    def __init__(self, groups: int) -> None:
        self.groups = groups

    def _grads(self, x, mean, projection, gy, group, ungroup, mm, total, t):
        gyg = group(gy)
        gx = mm(t(projection), gyg)
        xc = group(x) - mean
        return ungroup(gx), -total(gx), mm(gyg, t(xc))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3))
        x, mean, projection, gy = inputs
        gx, gmean, gproj = self._grads(
            x, mean[:, :, None], projection, gy, lambda a: _grouped(a, self.groups),
            lambda a: _ungrouped(a, x.shape), numpy.matmul, lambda a: a.sum(axis=2),
            lambda a: a.transpose(0, 2, 1))
        return (gx.astype(x.dtype, copy=False), gmean.astype(mean.dtype, copy=False),
                gproj.astype(projection.dtype, copy=False))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x, mean, projection, gy):
            g, C = mean.shape
            return self._grads(
                x, reshape.reshape(mean, (g, C, 1)), projection, gy,
                lambda a: _to_groups(a, self.groups), lambda a: _from_groups(a, x.shape),
                matmul.matmul, lambda a: sum_mod.sum(a, axis=2),
                lambda a: transpose.transpose(a, (0, 2, 1)))
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


def decorrelated_batch_normalization(x: VariableOrArray, *, groups: int = 16, eps: float = 2e-5,
                                     running_mean: numpy.ndarray | None = None,
                                     running_projection: numpy.ndarray | None = None,
                                     decay: float = 0.9) -> Variable:
    """Decorrelated batch normalization (Huang et al., 2018, https://arxiv.org/abs/1804.08450).

    The channels of ``x`` (shape ``(b, c, ...)``) are split into ``groups`` groups of
    ``C = c / groups``. Within each group the ``m = b * prod(spatial)`` samples are centred
    and ZCA-whitened: ``y = Sigma^{-1/2} (x - mean)``, where ``Sigma`` is the biased
    covariance of the group plus ``eps * I``. The output is zero-mean with identity
    covariance per group.

    The inverse square root is differentiated exactly (through Sylvester equations in the
    square root), to any order, so double backprop works (Chainer has only the first order).
    float16 inputs are whitened in float32 and the output cast back.

    Args:
        x: A float Variable or array of shape ``(b, c, ...)``, ``c`` a multiple of ``groups``.
        groups (int): The number of channel groups.
        eps (float): Added to the covariance's diagonal.
        running_mean: None, or an array of shape ``(groups, C)`` updated in place to
            ``decay * running_mean + (1 - decay) * mean``.
        running_projection: None, or an array of shape ``(groups, C, C)`` updated in place to
            ``decay * running_projection + (1 - decay) * m / (m - 1) * Sigma^{-1/2}``.
        decay (float): The decay rate of the running averages.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        chainlite.utils.type_check.InvalidType: If ``x`` is not float, has fewer than two
            axes, or its channels are not a multiple of ``groups``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.random.default_rng(0).normal(size=(100, 4)) @ np.array(
        ...     [[1.0, 0.5, 0, 0], [0, 1.0, 0, 0], [0, 0, 2.0, 0], [0, 0, 1.0, 1.0]])
        >>> y = F.decorrelated_batch_normalization(x, groups=2, eps=0.0).array
        >>> [np.allclose(y[:, k:k + 2].T @ y[:, k:k + 2] / 100, np.eye(2)) for k in (0, 2)]
        [True, True]
    """
    _check('decorrelated_batch_normalization', (variable.as_array(x),), ('x',),
           lambda x_type: (x_type.dtype.kind == 'f', x_type.ndim >= 2,
                           x_type.shape[1] % groups == 0))
    dtype = x.dtype
    work = _compute_dtype(dtype)
    xg = _to_groups(x if dtype == work else cast.cast(x, work), groups)
    _, (g, C, m), _ = _groups_layout(x.shape, groups)
    mean = variable.as_array(xg).mean(axis=2, keepdims=True)
    xp = backend.get_array_module(mean)
    # The centring is kept in the graph: the mean depends on x too.
    xc = xg - matmul.matmul(xg, xp.full((m, 1), 1. / m, work))
    cov = matmul.matmul(xc, xc, transb=True) * work.type(1. / m) + (
        work.type(eps) * xp.eye(C, dtype=work))
    projection = batch_inv.batch_inv(_Sqrtm().apply((cov,))[0])
    y = matmul.matmul(projection, xc)
    if running_mean is not None:
        running_mean *= decay
        running_mean += (1 - decay) * mean[..., 0].astype(running_mean.dtype)
    if running_projection is not None:
        adjust = m / max(m - 1., 1.)  # unbiased, as the running variance of batch norm
        running_projection *= decay
        running_projection += ((1 - decay) * adjust * projection.array).astype(
            running_projection.dtype)
    y = _from_groups(y, x.shape)
    return y if dtype == work else cast.cast(y, dtype)


def fixed_decorrelated_batch_normalization(x: VariableOrArray, mean: VariableOrArray,
                                           projection: VariableOrArray,
                                           groups: int = 16) -> Variable:
    """Decorrelated batch normalization with a given mean and projection, as at test time.

    ``y = projection[k] @ (x_k - mean[k])`` for each channel group ``k`` (laid out as in
    :func:`~chainlite.functions.decorrelated_batch_normalization`). Gradients flow to all
    three inputs, to any order.

    Args:
        x: A float Variable or array of shape ``(b, c, ...)``.
        mean: A float Variable or array of shape ``(groups, c / groups)``.
        projection: A float Variable or array of shape ``(groups, c / groups, c / groups)``.
            Both are cast to ``x``'s dtype (their gradients keep their own).
        groups (int): The number of channel groups.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        chainlite.utils.type_check.InvalidType: For inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.array([[1.0, 2.0], [3.0, 6.0]])
        >>> F.fixed_decorrelated_batch_normalization(
        ...     x, np.array([[2.0, 4.0]]), np.array([[[1.0, 0.0], [-2.0, 1.0]]]), groups=1).array
        array([[-1.,  0.],
               [ 1.,  0.]])
    """
    _check('fixed_decorrelated_batch_normalization',
           tuple(variable.as_array(a) for a in (x, mean, projection)),
           ('x', 'mean', 'projection'),
           lambda x_t, m_t, p_t: (
               x_t.dtype.kind == 'f', m_t.dtype.kind == 'f', p_t.dtype.kind == 'f',
               x_t.ndim >= 2, x_t.shape[1] % groups == 0, m_t.ndim == 2,
               m_t.shape[0] == groups, m_t.shape[0] * m_t.shape[1] == x_t.shape[1],
               p_t.ndim == 3, p_t.shape[0] == groups, p_t.shape[1] == m_t.shape[1],
               p_t.shape[2] == m_t.shape[1]))
    _, (g, C, m), _ = _groups_layout(x.shape, groups)
    dtype = x.dtype
    # Mixed float dtypes as in Chainer 7: the output takes x's dtype, each gradient its
    # input's.
    if mean.dtype != dtype:
        mean = cast.cast(mean, dtype)
    if projection.dtype != dtype:
        projection = cast.cast(projection, dtype)
    xg = _to_groups(x, groups)
    y = matmul.matmul(projection, xg - reshape.reshape(mean, (g, C, 1)))
    return _from_groups(y, x.shape)
