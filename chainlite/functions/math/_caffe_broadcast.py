"""What scale and bias share: ``y``'s axes line up with ``x``'s from ``axis`` on (Caffe's
broadcasting, not NumPy's, which aligns trailing axes)."""
from chainlite.utils import type_check


def check_types(in_types, axis):
    """Expects ``x`` and ``y`` of one dtype, with ``y.shape == x.shape[axis:axis + y.ndim]``."""
    type_check._argname(in_types, ('x', 'y'))
    x, y = in_types
    type_check.expect(x.dtype == y.dtype, x.ndim >= y.ndim + axis)
    for i in range(type_check.eval(y.ndim)):
        type_check.expect(x.shape[axis + i] == y.shape[i])


def aligned_shape(y_shape, axis, x_ndim):
    """``y_shape`` placed from ``axis`` on, with ones elsewhere: NumPy broadcasting against
    ``x`` does the rest."""
    return (1,) * axis + y_shape + (1,) * (x_ndim - axis - len(y_shape))
