"""Approximate equality of arrays and Variables, with messages that point at the culprit."""
from __future__ import annotations

from typing import Any

import numpy

from chainlite import variable
from chainlite.backends import cuda

_MAX_INDEXES = 10


def _host(x: Any) -> Any:
    # The value on the host: a GPU array is copied there, as Chainer's assert_allclose does.
    a = variable.as_array(x)
    return a if a.__class__ is numpy.ndarray or not cuda.is_gpu_array(a) else a.get()


def _as_numpy(x: Any) -> numpy.ndarray:
    a = numpy.asarray(_host(x))
    # Complex values would lose their imaginary part (with a warning) in float64.
    return a if a.dtype.kind == 'c' else a.astype(numpy.float64)


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True) -> None:
    """Asserts that ``|x - y| <= atol + rtol * |y|`` elementwise, comparing in float64.

    NaNs in the same places count as equal.

    Args:
        x: The actual value: an array (NumPy or GPU), a Variable or a scalar.
        y: The expected value: an array (NumPy or GPU), a Variable or a scalar.

    GPU arrays are copied to the host first, so a GPU result compares with a NumPy one.
        atol: Absolute tolerance.
        rtol: Relative tolerance (relative to ``|y|``).
        verbose: Also print both arrays in the message.

    Raises:
        AssertionError: If some element differs by more than the tolerance. The message gives
            the number of mismatches, the worst element (its index, both values, the absolute
            and relative errors and the tolerance there) and the offending indexes.

    Example:
        >>> import numpy as np
        >>> assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-6]))
        >>> assert_allclose(np.array([1.0]), np.array([1.1]))
        Traceback (most recent call last):
        ...
        AssertionError: assert_allclose failed (atol=1e-05, rtol=0.0001): 1 / 1 elements differ
        ...
    """
    xa, ya = _as_numpy(x), _as_numpy(y)
    try:
        numpy.testing.assert_allclose(xa, ya, rtol=rtol, atol=atol, verbose=verbose)
    except AssertionError as e:
        raise AssertionError(_describe(x, y, xa, ya, atol, rtol, verbose, str(e))) from None


def _describe(x: Any, y: Any, xa: numpy.ndarray, ya: numpy.ndarray, atol: float, rtol: float,
              verbose: bool, numpy_message: str) -> str:
    dtypes = (numpy.asarray(_host(x)).dtype, numpy.asarray(_host(y)).dtype)
    try:
        xb, yb = numpy.broadcast_arrays(xa, ya)
    except ValueError:
        return ('assert_allclose failed: shapes %s and %s do not match\n%s'
                % (xa.shape, ya.shape, numpy_message))
    err = numpy.abs(xb - yb)
    tol = atol + rtol * numpy.abs(yb)
    same_nan = numpy.isnan(xb) & numpy.isnan(yb)
    bad = ~((err <= tol) | same_nan)
    bad_indexes = [tuple(int(a) for a in ix) for ix in numpy.argwhere(bad)]
    # How far past its tolerance each element is; NaN against a number is the worst.
    excess = numpy.where(bad, numpy.nan_to_num(err - tol, nan=numpy.inf), -numpy.inf)
    lines = ['assert_allclose failed (atol=%g, rtol=%g): %d / %d elements differ'
             % (atol, rtol, len(bad_indexes), bad.size),
             '  shape: x %s, y %s' % (xa.shape, ya.shape),
             '  dtype: x %s, y %s' % dtypes]
    if bad_indexes:
        i = tuple(int(a) for a in numpy.unravel_index(int(numpy.argmax(excess)), bad.shape))
        rel = 'inf' if yb[i] == 0 else '%g' % (err[i] / abs(yb[i]))
        lines += ['  worst at index %s: x=%r, y=%r' % (i, xb[i].item(), yb[i].item()),
                  '    absolute error: %g (max over all elements %g)' % (err[i], err.max()),
                  '    relative error: %s' % rel,
                  '    tolerance there: %g = atol + rtol * |y|' % tol[i]]
        shown = ', '.join(str(ix) for ix in bad_indexes[:_MAX_INDEXES])
        more = len(bad_indexes) - _MAX_INDEXES
        lines.append('  offending indexes: %s%s'
                     % (shown, ' and %d more' % more if more > 0 else ''))
    if verbose:
        with numpy.printoptions(threshold=10000):
            lines += ['x: ' + numpy.array2string(xa, prefix='x: '),
                      'y: ' + numpy.array2string(ya, prefix='y: ')]
    lines += ['', numpy_message.strip('\n')]
    return '\n'.join(lines)


def _as_noncontiguous_array(array: Any) -> Any:
    # The same values in a view that is not C-contiguous (every second element of a buffer
    # twice as large, backwards; on the array's device); lists and tuples are converted
    # element by element. None and arrays of at most one element are returned as they are.
    if isinstance(array, (list, tuple)):
        return type(array)([_as_noncontiguous_array(a) for a in array])
    if array is None or array.size <= 1:
        return array
    step = (slice(None, None, -2),) * array.ndim
    if array.__class__ is numpy.ndarray or not cuda.is_gpu_array(array):
        buffer = numpy.empty(tuple(2 * n for n in array.shape), dtype=array.dtype)
        buffer[step] = array
        return buffer[step]
    with cuda.using_device(array):  # the buffer (and its view) on the array's GPU
        buffer = cuda.cupy.empty(tuple(2 * n for n in array.shape), dtype=array.dtype)
        buffer[step] = array
        return buffer[step]
