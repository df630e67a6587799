"""Numerical gradients, and the checks that compare them with backprop.

:func:`check_backward` does not compare every element of every gradient. It draws one random
unit direction over all the inputs and parameters and compares two numbers: the directional
derivative backprop gives (the dot product of the gradients with the direction) and the one
central differences give along that direction. One numerical derivative per check, however
large the inputs. :func:`check_double_backward` runs the same check on the function that
computes first-order gradients, so it tests the backward of the backward.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import variable
from chainlite.backends import cuda
from chainlite.testing import array as testing_array

_float64 = numpy.float64

# Least-squares projection onto quadratics through five equally spaced samples: what is left
# after projecting is the part of the samples that no smooth (locally quadratic) curve explains.
_t = numpy.arange(-2.0, 3.0)
_vander = numpy.stack([numpy.ones(5), _t, _t * _t], axis=1)
_quadratic_residual = numpy.eye(5) - _vander @ numpy.linalg.pinv(_vander)
del _t, _vander


class NondifferentiableError(Exception):
    """Raised by :func:`numerical_grad` when the function is not smooth near the point.

    A kink (``abs`` at 0), a jump, or an output that turns NaN or infinite on one side of the
    point all make finite differences meaningless there; move the test input away from it.
    """


class _InvalidEpsError(ValueError, AssertionError):
    """A non-positive eps: a ValueError, and the AssertionError Chainer raises for it."""


def numerical_grad(f: Callable[[], Any], inputs: Sequence[numpy.ndarray],
                   grad_outputs: Sequence[Any], eps: float = 1e-3,
                   detect_nondifferentiable: bool = False, diff_atol: float = 0,
                   diff_rtol: float = 1e-2, center_outputs: Optional[Sequence[Any]] = None
                   ) -> list[numpy.ndarray]:
    """Computes the gradient of ``sum(f() * grad_outputs)`` by finite differences.

    Every element of every input is moved by ``+eps`` and ``-eps`` in place (and restored),
    ``f`` is called at each point, and the central difference
    ``sum((y(x + eps) - y(x - eps)) * gy) / (2 * eps)`` is taken in float64.

    Args:
        f: A function with no arguments that reads ``inputs`` and returns a tuple of output
            arrays (None entries allowed).
        inputs: Float arrays that ``f`` depends on; they are modified in place during the
            computation and hold their original values afterwards.
        grad_outputs: One entry per output of ``f``: an array of the output's shape, a
            scalar, or None to ignore that output.
        eps: The step of the finite differences.
        detect_nondifferentiable: Also sample ``x +- eps / 2``, use the more accurate
            five-point stencil, and raise :class:`NondifferentiableError` if the samples do
            not lie on a smooth curve.
        diff_atol: Absolute tolerance of that smoothness test.
        diff_rtol: Tolerance of that test relative to the spread of the sampled outputs.
        center_outputs: The outputs of ``f`` at the unmoved inputs, if already known (saves a
            call when ``detect_nondifferentiable`` is set).

    Returns:
        A list of gradient arrays, one per input, with the input's shape and dtype.

    Raises:
        RuntimeError: If an input is not a float array.
        NondifferentiableError: If ``detect_nondifferentiable`` is set and ``f`` is not
            smooth around some element.

    Example:
        >>> import numpy as np
        >>> x = np.array([1.0, 2.0])
        >>> gx, = numerical_grad(lambda: (x ** 2,), [x], [np.ones(2)])
        >>> bool(np.allclose(gx, [2.0, 4.0]))
        True
    """
    if eps <= 0:
        raise _InvalidEpsError('numerical_grad: eps must be positive, got %r' % (eps,))
    inputs = tuple(inputs)
    for x in inputs:
        if x.dtype.kind != 'f':
            raise RuntimeError('The dtype of input arrays must be kind of float')
    # On a GPU the inputs are moved and the differences taken on the device, as in Chainer.
    xp = backend.get_array_module(*inputs, *grad_outputs)
    if xp is not numpy:
        with _using_device_of(inputs):
            return _numerical_grad(f, inputs, grad_outputs, eps, detect_nondifferentiable,
                                   diff_atol, diff_rtol, center_outputs, xp)
    return _numerical_grad(f, inputs, grad_outputs, eps, detect_nondifferentiable, diff_atol,
                           diff_rtol, center_outputs, xp)


def _numerical_grad(f: Callable[[], Any], inputs: tuple, grad_outputs: Sequence[Any],
                    eps: float, detect_nondifferentiable: bool, diff_atol: float,
                    diff_rtol: float, center_outputs: Optional[Sequence[Any]],
                    xp: Any) -> list[Any]:
    gys = tuple(None if gy is None else xp.asarray(gy, _float64) for gy in grad_outputs)
    grads = [xp.zeros(x.shape, _float64) for x in inputs]
    with configuration.using_config('type_check', False):
        if detect_nondifferentiable:
            if center_outputs is None:
                center = _evaluate(f, gys)
            else:
                center = tuple(None if y is None else xp.array(y, _float64)
                               for y in center_outputs)
            steps: tuple[float, ...] = (-1.0, -0.5, 0.5, 1.0)
        else:
            steps = (-1.0, 1.0)
        for i, (x, gx) in enumerate(zip(inputs, grads)):
            for index in numpy.ndindex(x.shape):
                orig = x[index].copy()
                samples = []
                try:
                    for s in steps:
                        x[index] = orig + s * eps
                        samples.append(_evaluate(f, gys))
                finally:
                    x[index] = orig
                if detect_nondifferentiable:
                    ym1, ymh, yph, yp1 = samples
                    _check_smooth(i, index, (ym1, ymh, center, yph, yp1), eps,
                                  diff_atol, diff_rtol)
                    gx[index] = _dot(
                        [(None if a is None else -a + 8 * b - 8 * c + d)
                         for a, b, c, d in zip(yp1, yph, ymh, ym1)], gys) / (6 * eps)
                else:
                    ym, yp = samples
                    gx[index] = _dot([None if a is None else a - b for a, b in zip(yp, ym)],
                                     gys) / (2 * eps)
    return [gx.astype(x.dtype, copy=False) for gx, x in zip(grads, inputs)]


def _evaluate(f: Callable[[], Any], gys: tuple[Any, ...]) -> tuple[Any, ...]:
    ys = f()
    if not isinstance(ys, (tuple, list)):
        ys = (ys,)
    if len(ys) != len(gys):
        raise ValueError('numerical_grad: f returned %d outputs but %d grad_outputs were given'
                         % (len(ys), len(gys)))
    ret: list[Optional[numpy.ndarray]] = []
    for k, (y, gy) in enumerate(zip(ys, gys)):
        if y is None:
            if gy is not None:
                raise ValueError('numerical_grad: output %d is None but has a grad_output' % k)
            ret.append(None)
            continue
        # A copy: f may hand back a buffer (even an input) that the next step changes.
        y = variable.as_array(y)
        y = numpy.array(y, _float64) if isinstance(y, numpy.ndarray) else \
            backend.get_array_module(y).array(y, _float64)
        if gy is not None and gy.ndim and gy.shape != y.shape:
            raise ValueError('numerical_grad: output %d has shape %s but its grad_output has '
                             'shape %s' % (k, y.shape, gy.shape))
        ret.append(y)
    return tuple(ret)


def _dot(diffs: list[Any], gys: tuple[Any, ...]) -> float:
    total = 0.0
    for d, gy in zip(diffs, gys):
        if gy is not None and d is not None:
            total += float((d * gy).sum())
    return total


def _check_smooth(i_in: int, index: tuple[int, ...], points: tuple[Any, ...], eps: float,
                  atol: float,
                  rtol: float) -> None:
    """Raises NondifferentiableError unless every output is smooth across the 5 samples."""
    for k in range(len(points[0])):
        if points[0][k] is None:
            continue
        ys = numpy.stack([p[k].ravel() for p in points])  # (5, output size)
        if not isinstance(ys, numpy.ndarray):
            # The smoothness test runs on the host, as Chainer's: five samples of the output.
            ys = ys.get()
        finite = numpy.isfinite(ys)
        changed = (finite != finite[0]).any(axis=0)
        if changed.any():
            j = int(numpy.flatnonzero(changed)[0])
            _raise_nondifferentiable(
                i_in, index, k, points[0][k].shape, j, ys[:, j], eps,
                'The output is finite on one side of the point and not on the other')
        # Outputs that are NaN or infinite all around (log of a negative) are not kinks.
        ys = numpy.where(finite.all(axis=0), ys, 0.0)
        rms = numpy.sqrt(((_quadratic_residual @ ys) ** 2).mean(axis=0))
        spread = ys.max(axis=0) - ys.min(axis=0)
        bad = (rms > atol + rtol * spread) & (spread > 0)
        if bad.any():
            j = int(numpy.argmax(numpy.where(bad, rms - rtol * spread, -numpy.inf)))
            _raise_nondifferentiable(
                i_in, index, k, points[0][k].shape, j, ys[:, j], eps,
                'The samples are not on a smooth curve (fit residual %g > tolerance %g)'
                % (rms[j], atol + rtol * spread[j]))


def _raise_nondifferentiable(i_in: int, index: tuple[int, ...], k: int,
                             out_shape: tuple[int, ...], j: int, values: numpy.ndarray,
                             eps: float, why: str) -> None:
    out_index = numpy.unravel_index(j, out_shape) if out_shape else ()
    raise NondifferentiableError(
        'Tried to compute the numerical gradient at a non-differentiable point: input %d, '
        'element %s (eps=%g).\n%s.\nOutput %d, element %s, at x-eps, x-eps/2, x, x+eps/2, '
        'x+eps: %s' % (i_in, tuple(int(a) for a in index), eps, why, k,
                       tuple(int(a) for a in out_index), numpy.array2string(values)))


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _as_outputs(ys: Any) -> tuple[Any, ...]:
    if isinstance(ys, (tuple, list)):
        return tuple(ys)
    return (ys,)


def _sample_unit_vector(size: int, xp: Any = numpy) -> Any:
    # Gaussian then normalised: an isotropic unit vector. Each component's magnitude is then
    # lifted a little (to at least 0.1 / sqrt(size)) so that no element of a large input goes
    # practically unchecked.
    direction = xp.random.normal(size=(size,))
    if size == 0:
        return direction
    square = xp.square(direction)
    norm2 = float(square.sum())
    if norm2 == 0:
        return xp.full((size,), math.sqrt(1.0 / size))
    return xp.copysign(xp.sqrt(0.99 * square / norm2 + 0.01 / size), direction)


class _CheckBackward:
    """Where Chainer keeps the direction sampler of :func:`check_backward` (its tests use it)."""

    _sample_unit_vector = staticmethod(_sample_unit_vector)


def _sample_directions(shapes: list, xp: Any = numpy) -> list:
    # One unit vector over all the inputs together, cut into their shapes, drawn by the
    # inputs' array module (on the GPU for GPU inputs, as Chainer).
    sizes = [math.prod(s) for s in shapes]
    flat = _sample_unit_vector(sum(sizes), xp)
    bounds = numpy.cumsum([0] + sizes)
    return [flat[a:b].reshape(s) for a, b, s in zip(bounds[:-1], bounds[1:], shapes)]


def check_backward(func: Callable, x_data: Any, y_grad: Any, params: Any = (),
                   eps: float = 1e-3, atol: float = 1e-5, rtol: float = 1e-4,
                   no_grads: Optional[Sequence[bool]] = None, dtype: Any = None,
                   detect_nondifferentiable: bool = False) -> None:
    """Tests the backward of ``func`` against numerical gradients.

    ``func`` is called on Variables made from ``x_data``; its outputs are backpropagated with
    ``y_grad``. With ``g(delta) = sum(func(x + delta * r) * y_grad)`` for a random unit
    direction ``r`` over the inputs and ``params``, backprop gives ``g'(0) = grad . r``; the
    check compares it with ``g'(0)`` from :func:`numerical_grad`.

    Args:
        func: A function taking Variables (one per array of ``x_data``) and returning a
            Variable or a tuple of Variables.
        x_data: An array or a tuple of arrays: the inputs. Float inputs get
            ``requires_grad=True``.
        y_grad: An array or a tuple of arrays (None entries ignore an output): the output
            gradients. None is allowed when ``func`` returns a single output of shape ``()``
            (a loss); its gradient is then 1.
        params: Parameters (or one Parameter) that ``func`` uses; their gradients are cleared,
            checked too, and their arrays moved during the numerical pass and restored.
        eps: The step of the finite differences.
        atol: Absolute tolerance of the comparison.
        rtol: Relative tolerance of the comparison.
        no_grads: One bool per input: True for inputs whose gradient is not checked (their
            gradient must stay None). Defaults to True for non-float inputs.
        dtype: If given (a float dtype), inputs and parameters are cast to it for the
            numerical pass only, e.g. float64 to test a float32 function precisely.
        detect_nondifferentiable: Raise :class:`NondifferentiableError` if ``func`` is not
            smooth at the inputs along the direction.

    Raises:
        AssertionError: If the gradients disagree; the message starts with
            ``check_backward failed`` and shows the inputs, directions and both values.
        ValueError: For inconsistent arguments (lengths, a missing ``y_grad``).
        RuntimeError: If an input in ``no_grads`` received a gradient.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.array([0.5, 1.0, 2.0])
        >>> check_backward(F.sin, x, np.ones(3))
        >>> check_backward(lambda x: F.sum(F.exp(x)), x, None)
    """
    x_data = _as_tuple(x_data)
    params = _as_tuple(params)
    with _using_device_of(list(x_data) + [p.array for p in params]):
        _check_backward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
                        detect_nondifferentiable)


def _using_device_of(arrays: Sequence[Any]) -> Any:
    # The GPU of the first GPU array made current, as Chainer's checks do: CuPy creates
    # arrays on the current device. Nothing to do for NumPy arrays.
    for a in arrays:
        if cuda.is_gpu_array(a):
            return a.device
    return contextlib.nullcontext()


def _check_backward(func: Callable, x_data: tuple, y_grad: Any, params: tuple, eps: float,
                    atol: float, rtol: float, no_grads: Optional[Sequence[bool]], dtype: Any,
                    detect_nondifferentiable: bool) -> None:
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if dtype.kind != 'f':
            raise ValueError('`dtype` is allowed only float type, got %s' % dtype)
    if no_grads is None:
        no_grads = [x is None or x.dtype.kind != 'f' for x in x_data]
    elif len(no_grads) != len(x_data):
        raise ValueError('Length of no_grads param and xs should be same.\nActual: %d != %d'
                         % (len(no_grads), len(x_data)))
    else:
        # A None input (passed to func as None, as in Chainer) has nothing to check.
        no_grads = [bool(skip) or x is None for skip, x in zip(no_grads, x_data)]

    # The backprop pass.
    xs: list[Any] = [
        None if x is None else variable.Variable(x, requires_grad=x.dtype.kind == 'f')
        for x in x_data]
    for p in params:
        p.cleargrad()
    ys = _as_outputs(func(*xs))
    gys = _output_grads(ys, y_grad)
    # func may have run backward itself: only this pass's gradients count.
    for v in xs + list(params):
        if v is not None:
            v.cleargrad()
    seeded = [(y, _copy(gy)) for y, gy in zip(ys, gys) if y is not None and gy is not None]
    if seeded:
        backprop.backward([y for y, _ in seeded], [gy for _, gy in seeded])
    for i, (x, skip) in enumerate(zip(xs, no_grads)):
        if skip and x is not None and x.grad is not None:
            raise RuntimeError('check_backward: input %d is in no_grads (or is not float) but '
                               'received a gradient; its gradient must be None' % i)

    checked = [i for i, skip in enumerate(no_grads) if not skip]
    if not checked and not params:
        return
    shapes = [x_data[i].shape for i in checked] + [p.shape for p in params]
    xp = backend.get_array_module(*[x_data[i] for i in checked], *[p.array for p in params])
    directions = _sample_directions(shapes, xp)
    grads = [xs[i].grad for i in checked] + [p.grad for p in params]
    gx_backward = 0.0
    for gr, d in zip(grads, directions):
        if gr is not None:
            gx_backward += float((gr.astype(_float64) * d).sum())

    # The numerical pass, along the same direction.
    def cast(a):
        return a if a is None or dtype is None or a.dtype.kind != 'f' else a.astype(dtype)

    x_base = [cast(x) for x in x_data]
    x_dirs = dict(zip(checked, directions))
    p_dirs = directions[len(checked):]
    p_orig = [p.array for p in params]
    p_base = [cast(a) for a in p_orig]
    delta = xp.zeros((), _float64)

    def moved(a, d):
        return xp.asarray(a.astype(_float64) + delta * d).astype(a.dtype)

    def g():
        vs: list[Any] = []
        for i, a in enumerate(x_base):
            if a is None:
                vs.append(None)
                continue
            d = x_dirs.get(i)
            if d is not None:
                a = moved(a, d)
            vs.append(variable.Variable(a, requires_grad=a.dtype.kind == 'f'))
        for p, a, d in zip(params, p_base, p_dirs):
            p.array = moved(a, d)
        return tuple(None if y is None else y.array for y in _as_outputs(func(*vs)))

    center = None
    if dtype is None:
        center = tuple(None if y is None else y.array for y in ys)
    numeric_gys = [None if y is None else gy for y, gy in zip(ys, gys)]
    try:
        gx_numeric, = numerical_grad(
            g, [delta], numeric_gys, eps=eps, detect_nondifferentiable=detect_nondifferentiable,
            diff_atol=0, diff_rtol=rtol, center_outputs=center)
    finally:
        for p, a in zip(params, p_orig):
            p.array = a

    try:
        testing_array.assert_allclose(gx_numeric, gx_backward, atol=atol, rtol=rtol)
    except AssertionError as e:
        lines = ['check_backward failed (eps={} atol={} rtol={})'.format(eps, atol, rtol)]
        for i, x in enumerate(x_data):
            lines += ['inputs[%d]:' % i, str(x)]
        for i, gy in enumerate(gys):
            lines += ['grad_outputs[%d]:' % i, str(gy)]
        for i, d in enumerate(directions):
            lines += ['directions[%d]:' % i, str(d)]
        lines += ['gradients (numeric):  %s' % float(gx_numeric),
                  'gradients (backward): %s' % gx_backward, '',
                  'x: numeric gradient, y: backward gradient', str(e)]
        raise AssertionError('\n'.join(lines)) from None


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True) -> None:
    """Deprecated as in Chainer (warns): :func:`chainlite.testing.assert_allclose`.

    Old test code (ChainerRL's, for one) imports it from here.

    Args:
        x: The actual value: an array, a Variable or a scalar.
        y: The expected value.
        atol: Absolute tolerance.
        rtol: Relative tolerance (relative to ``|y|``).
        verbose: Also print both arrays in the message.

    Raises:
        AssertionError: If some element of ``x`` and ``y`` differs by more than
            ``atol + rtol * |y|``.

    Example:
        >>> import warnings, numpy as np
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     assert_allclose(np.array([1.0]), np.array([1.0 + 1e-7]))
    """
    warnings.warn('chainer.gradient_check.assert_allclose is deprecated; use '
                  'chainer.testing.assert_allclose instead.', DeprecationWarning, stacklevel=2)
    testing_array.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)


def _copy(a: Any) -> Any:
    # An array copy that keeps the array's device (a NumPy array for anything else).
    return a.copy() if cuda.is_gpu_array(a) else numpy.array(a)


def _cast(v, dtype):
    # A differentiable cast; imported here, as the only use of a function by this module.
    from chainlite.functions.array import cast
    return cast.cast(v, dtype)


def _output_grads(ys: tuple, y_grad: Any) -> tuple:
    if y_grad is None:
        if len(ys) != 1 or ys[0] is None or ys[0].shape != ():
            raise ValueError(
                'y_grad can be None only when func returns a single output of shape () (a '
                'loss). Actual output shapes: %s'
                % ', '.join(str(None if y is None else y.shape) for y in ys))
        return (numpy.ones_like(ys[0].array),)
    gys = tuple(None if gy is None else variable.as_array(gy) for gy in _as_tuple(y_grad))
    if len(gys) != len(ys):
        raise ValueError('func returned %d outputs but y_grad has %d entries'
                         % (len(ys), len(gys)))
    for k, (y, gy) in enumerate(zip(ys, gys)):
        if y is not None and gy is not None and numpy.shape(gy) != y.shape:
            raise ValueError('y_grad[%d] has shape %s but output %d has shape %s'
                             % (k, numpy.shape(gy), k, y.shape))
    return gys


def check_double_backward(func: Callable, x_data: Any, y_grad: Any, x_grad_grad: Any,
                          params: Any = (), params_grad_grad: Any = (), eps: float = 1e-3,
                          atol: float = 1e-4, rtol: float = 1e-3,
                          no_grads: Optional[Sequence[bool]] = None, dtype: Any = None,
                          detect_nondifferentiable: bool = False) -> None:
    """Tests the second-order gradients of ``func`` (the backward of its backward).

    It builds the function ``(x..., gy...) -> (gx..., gparam...)`` that computes first-order
    gradients with ``chainlite.grad(..., enable_double_backprop=True)`` and runs
    :func:`check_backward` on it, with ``x_grad_grad`` and ``params_grad_grad`` as its output
    gradients. The first-order gradients themselves are assumed right: test them with
    :func:`check_backward` first. A first-order gradient that is None (the output does not
    depend on that input) counts as zeros.

    Args:
        func: As in :func:`check_backward`.
        x_data: An array or a tuple of arrays: the inputs.
        y_grad: The output gradients, which become inputs of the checked function (and whose
            own gradients are checked too). None for a function with a single output of shape
            ``()``.
        x_grad_grad: One array per float input: the gradients of the first-order input
            gradients.
        params: Parameters that ``func`` uses.
        params_grad_grad: One array per parameter: the gradients of the parameter gradients.
        eps: The step of the finite differences.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        no_grads: Passed to :func:`check_backward` for the inputs ``x_data + y_grad``; a list
            as long as ``x_data`` alone is extended with False for the ``y_grad`` entries.
        dtype: The dtype of the numerical pass (see :func:`check_backward`).
        detect_nondifferentiable: See :func:`check_backward`.

    Raises:
        AssertionError: If the second-order gradients disagree; the message starts with
            ``check_double_backward failed``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.array([0.5, 1.0])
        >>> check_double_backward(F.tanh, x, np.ones(2), np.array([0.3, -0.7]))
    """
    x_data = _as_tuple(x_data)
    params = _as_tuple(params)
    y_grad = () if y_grad is None else _as_tuple(y_grad)
    x_grad_grad = _as_tuple(x_grad_grad)
    params_grad_grad = _as_tuple(params_grad_grad)
    n_x = len(x_data)
    differentiable = [i for i, x in enumerate(x_data) if x is not None and x.dtype.kind == 'f']
    if len(x_grad_grad) != len(differentiable):
        raise ValueError('x_grad_grad needs one entry per float input: %d given for %d'
                         % (len(x_grad_grad), len(differentiable)))
    if len(params_grad_grad) != len(params):
        raise ValueError('params_grad_grad needs one entry per parameter: %d given for %d'
                         % (len(params_grad_grad), len(params)))
    # An output whose y_grad entry is None gets no gradient (a zero seed): it is left out of
    # the inputs of the first-order function rather than differentiated as one.
    given = [i for i, gy in enumerate(y_grad) if gy is not None]
    if no_grads is not None and len(no_grads) == n_x and y_grad:
        no_grads = list(no_grads) + [False] * len(given)

    def first_order_grad(*inputs):
        xs = inputs[:n_x]
        ys = _as_outputs(func(*xs))
        if y_grad:
            if len(y_grad) != len(ys):
                raise ValueError('func returned %d outputs but y_grad has %d entries'
                                 % (len(ys), len(y_grad)))
            gys: list[Any] = [None] * len(y_grad)
            for i, gy in zip(given, inputs[n_x:]):
                gys[i] = gy
            # None entries of y_grad leave their outputs out, as in Chainer. The numerical
            # pass may hand the gradients over in another dtype (the dtype option).
            pairs = [(y, gy if gy.dtype == y.dtype else _cast(gy, y.dtype))
                     for y, gy in zip(ys, gys) if y is not None and gy is not None]
            outputs, seeds = [y for y, _ in pairs], [gy for _, gy in pairs]
        else:
            outputs, seeds = [y for y in ys if y is not None], None
        targets = [xs[i] for i in differentiable] + list(params)
        if not outputs:
            gxs: list[Any] = [None] * len(targets)
        else:
            gxs = backprop.grad(outputs, targets, grad_outputs=seeds,
                                enable_double_backprop=True)
        # A constant zero takes part in both passes alike: it moves with nothing and
        # backpropagates nothing.
        return tuple(variable.Variable(numpy.zeros_like(t.array), requires_grad=False)
                     if gx is None else gx for gx, t in zip(gxs, targets))

    try:
        check_backward(first_order_grad, x_data + tuple(y_grad[i] for i in given),
                       x_grad_grad + params_grad_grad,
                       params=params, eps=eps, atol=atol, rtol=rtol, no_grads=no_grads,
                       dtype=dtype, detect_nondifferentiable=detect_nondifferentiable)
    except AssertionError as e:
        lines = ['check_double_backward failed (eps={} atol={} rtol={})'.format(eps, atol, rtol)]
        for i, x in enumerate(x_data):
            lines += ['input[%d]:' % i, str(x)]
        for i, gy in enumerate(y_grad):
            lines += ['grad_output[%d]:' % i, str(gy)]
        for i, ggx in enumerate(x_grad_grad):
            lines += ['grad_grad_input[%d]:' % i, str(ggx)]
        for i, ggp in enumerate(params_grad_grad):
            lines += ['grad_grad_param[%d]:' % i, str(ggp)]
        lines += ['', str(e)]
        raise AssertionError('\n'.join(lines)) from None
