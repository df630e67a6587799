"""What det and inv (and their batch forms) share: a square matrix, or a batch of them, handed
to LAPACK."""
import numpy

from chainlite.utils import type_check


def check_types(in_types, ndim):
    """Expects one float input ``a`` of ``ndim`` axes whose last two have one length."""
    type_check._argname(in_types, ('a',))
    a, = in_types
    type_check.expect(a.dtype.kind == 'f', a.ndim == ndim)
    type_check.expect(a.shape[-1] == a.shape[-2])


def lapack_input(a):
    """``a``, or a float32 copy of it if it is float16: LAPACK has no half precision."""
    return a.astype(numpy.float32) if a.dtype == numpy.float16 else a
