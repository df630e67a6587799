"""The arithmetic operators of :class:`~chainlite.Variable`, installed onto the class.

``variable.py`` cannot import the functions (they import it), so the operators are attached
here, once, when :mod:`chainlite` is imported. Operand rules follow Chainer: a Variable is an
input; an array is cast to the variable's dtype and becomes a constant input; a scalar
becomes part of a constant op (``x + 2`` is ``AddConstant(2)``), cast to the variable's
dtype, so float32 stays float32.
"""
import numpy

from chainlite import variable
from chainlite.functions.math import add as _add
from chainlite.functions.math import div as _div
from chainlite.functions.math import floor as _floor
from chainlite.functions.math import matmul as _matmul
from chainlite.functions.math import mul as _mul
from chainlite.functions.math import neg as _neg
from chainlite.functions.math import pow as _pow
from chainlite.functions.math import sub as _sub
from chainlite.functions.math import absolute as _absolute

_Variable = variable.Variable
_ndarray = numpy.ndarray
_float_int = (float, int)


def _rhs(x, value):
    """Classifies an operand: (True, Variable or cast array) or (False, cast scalar)."""
    if isinstance(value, _Variable):
        return True, value
    if isinstance(value, _ndarray):
        return True, value.astype(x._data.dtype, copy=False)
    if type(value) in _float_int and x._data.dtype.kind == 'f':
        # NumPy 2 keeps float32 for Python scalars, so no cast (and no cost) is needed.
        return False, value
    if numpy.isscalar(value) and not isinstance(value, (str, bytes)):
        return False, x._data.dtype.type(value)
    raise TypeError('Value must be a scalar, `numpy.ndarray` or a `Variable`.\nActual: %s'
                    % type(value))


def add(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if is_var:
        return _add.Add().apply((self, rhs))[0]
    return _add.AddConstant(rhs).apply((self,))[0]


def sub(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if is_var:
        return _sub.Sub().apply((self, rhs))[0]
    return _add.AddConstant(-rhs).apply((self,))[0]


def rsub(self, lhs):
    is_var, lhs = _rhs(self, lhs)
    if is_var:
        return _sub.Sub().apply((lhs, self))[0]
    return _sub.SubFromConstant(lhs).apply((self,))[0]


def mul(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if is_var:
        return _mul.Mul().apply((self, rhs))[0]
    return _mul.MulConstant(rhs).apply((self,))[0]


def div(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if is_var:
        return _div.Div().apply((self, rhs))[0]
    # As Chainer: multiply by the reciprocal (equal to true division within rounding).
    return _mul.MulConstant(1 / rhs).apply((self,))[0]


def rdiv(self, lhs):
    is_var, lhs = _rhs(self, lhs)
    if is_var:
        return _div.Div().apply((lhs, self))[0]
    return _div.DivFromConstant(lhs).apply((self,))[0]


def pow(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if is_var:
        return _pow.PowVarVar().apply((self, rhs))[0]
    return _pow.PowVarConst(rhs).apply((self,))[0]


def rpow(self, lhs):
    is_var, lhs = _rhs(self, lhs)
    if is_var:
        return _pow.PowVarVar().apply((lhs, self))[0]
    return _pow.PowConstVar(lhs).apply((self,))[0]


def matmul(self, rhs):
    is_var, rhs = _rhs(self, rhs)
    if not is_var:
        raise TypeError('matmul: a scalar operand is not allowed; use * instead')
    return _matmul.matmul(self, rhs)


def rmatmul(self, lhs):
    is_var, lhs = _rhs(self, lhs)
    if not is_var:
        raise TypeError('matmul: a scalar operand is not allowed; use * instead')
    return _matmul.matmul(lhs, self)


def floordiv(self, rhs):
    return _floor.floor(div(self, rhs))


def rfloordiv(self, lhs):
    return _floor.floor(rdiv(self, lhs))


def neg(self):
    return _neg.Neg().apply((self,))[0]


def absolute(self):
    return _absolute.absolute(self)


def install_variable_arithmetics():
    """Attaches the operators to :class:`~chainlite.Variable` (done on ``import chainlite``)."""
    V = _Variable
    V.__add__ = V.__radd__ = add
    V.__sub__ = sub
    V.__rsub__ = rsub
    V.__mul__ = V.__rmul__ = mul
    V.__truediv__ = div
    V.__rtruediv__ = rdiv
    V.__floordiv__ = floordiv
    V.__rfloordiv__ = rfloordiv
    V.__pow__ = pow
    V.__rpow__ = rpow
    V.__matmul__ = matmul
    V.__rmatmul__ = rmatmul
    V.__neg__ = neg
    V.__abs__ = absolute
