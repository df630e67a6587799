"""Elementwise functions whose gradient is zero almost everywhere (floor, ceil, fix, sign)."""
import numpy

from chainlite import backend
from chainlite import variable
from chainlite.utils import type_check


def elementwise(label, ufunc, x):
    """Applies ``ufunc`` to a float input and returns the result outside the graph.

    As in Chainer, such functions record no creator and give ``requires_grad=False``.

    Args:
        label: The function's name for error messages.
        ufunc: The NumPy function to apply.
        x: A float Variable or array, or a NumPy or Python scalar.

    Returns:
        A Variable of the same shape and dtype.
    """
    a = variable.as_array(x)
    if not variable._is_array(a):  # a NumPy or GPU array passes
        if not isinstance(a, (numpy.generic, float, int)) or isinstance(a, bool):
            raise TypeError('%s: x must be a Variable or a numpy.ndarray, got %s'
                            % (label, type(a).__name__))
        a = numpy.asarray(a)  # a NumPy or Python scalar, as FunctionNode.apply accepts
    if a.dtype.kind != 'f':
        kind = a.dtype.kind
        raise type_check.InvalidType(
            'x.dtype.kind == f', '%s != f' % kind,
            msg='Invalid operation is performed in: %s (Forward)\n\n'
                'Expect: x.dtype.kind == f\nActual: %s != f' % (label, kind))
    # NumPy returns a scalar for a 0-d input; a Variable needs an array (of a's device).
    return variable.Variable(backend.get_array_module(a).asarray(ufunc(a)), requires_grad=False)
