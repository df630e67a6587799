"""The arithmetic operators of :class:`~chainlite.Variable`, installed onto the class.

``variable.py`` cannot import the functions (they import it), so the operators are attached
here, once, when :mod:`chainlite` is imported. Operand rules follow Chainer: a Variable is an
input; an array is cast to the variable's dtype and becomes a constant input; a scalar
becomes part of a constant op (``x + 2`` is ``AddConstant(2)``), cast to the variable's
dtype, so float32 stays float32.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node as _fn
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

if TYPE_CHECKING:
    from chainlite.variable import Variable

_Variable = variable.Variable
_ndarray = numpy.ndarray
_constants: dict[tuple[Any, numpy.dtype], numpy.ndarray] = {}
_object_new = object.__new__
_config = configuration.config
_plain_variable = _fn._plain_variable
_AddConstant, _MulConstant = _add.AddConstant, _mul.MulConstant
_np_add, _np_multiply = numpy.add, numpy.multiply

# The operator nodes, under the module Chainer keeps them in (``chainer.functions.math.
# basic_math.Add``): code that builds them directly or checks a creator's type finds them.
Add, AddConstant = _add.Add, _add.AddConstant
Sub, SubFromConstant = _sub.Sub, _sub.SubFromConstant
Mul, MulConstant = _mul.Mul, _mul.MulConstant
Div, DivFromConstant = _div.Div, _div.DivFromConstant
PowVarVar, PowVarConst, PowConstVar = _pow.PowVarVar, _pow.PowVarConst, _pow.PowConstVar
Neg, Absolute = _neg.Neg, _absolute.Absolute
MultiAdd = _add.MultiAdd
# Their gradient nodes, which Chainer code may build directly (``DivGrad(True).apply(...)``).
AbsoluteGrad = _absolute.AbsoluteGrad
DivGrad, DivFromConstantGrad = _div.DivGrad, _div.DivFromConstantGrad
PowVarVarGrad, PowVarConstGrad = _pow.PowVarVarGrad, _pow.PowVarConstGrad
PowConstVarGrad = _pow.PowConstVarGrad


def _preprocess_const(x: numpy.ndarray, value: Any) -> Any:
    # A scalar operand as a scalar of x's dtype (Chainer's rule: float32 stays float32).
    return x.dtype.type(value)


def _chainerx_preprocess_const(x: Any, value: Any, label: str) -> Any:
    # Chainer's operand rule for ChainerX arrays: an array would move to ChainerX, which
    # chainlite has no more than Chainer without it; scalars pass as Python numbers.
    if isinstance(value, variable.Variable):
        value = value.array
    if isinstance(value, _ndarray):
        raise RuntimeError('ChainerX is not available.')
    if isinstance(value, numpy.generic):
        return value.item()
    return value


def _preprocess_rhs(x: Variable, value: Any) -> Any:
    # An operand of a binary operator: a Variable as is, an array or scalar in x's dtype.
    if isinstance(value, variable.Variable):
        return value
    if not (numpy.isscalar(value) or _is_array(value)) or isinstance(value, (str, bytes)):
        _bad_operand(value)
    if not isinstance(value, _ndarray) and variable._is_array(value):
        return value.astype(x.dtype, copy=False)
    # A scalar as a 0-d array on x's device.
    return backend.get_array_module(x).asarray(value).astype(x.dtype, copy=False)


def _is_array(value: Any) -> bool:
    # An array operand: a Variable, a NumPy array or a GPU (CuPy) array.
    return isinstance(value, (_Variable, _ndarray)) or variable._is_array(value)


def _convert_value_to_string(value):
    """How an operand shows in a node's label: ``'2.0'``, ``'(-2)'`` or ``'constant array'``.

    Args:
        value: A scalar, an array or a Variable.

    Raises:
        ValueError: For anything else.
    """
    if isinstance(value, _Variable):
        value = value.array
    if numpy.isscalar(value) and not isinstance(value, (str, bytes)):
        return _add._constant_label(value)
    if _is_array(value):
        return 'constant array'
    raise ValueError('basic_math: an operand must be a Variable, a scalar or a numpy.ndarray, '
                     'got %s' % type(value).__name__)


def _constant(x, value):
    """``value`` as a read-only 0-d array of ``x``'s dtype (cached).

    Casting to the variable's dtype is Chainer's rule (float32 stays float32). A 0-d array of
    the same dtype is also what NumPy 2 adds fastest: a Python float operand costs twice as
    much per call, which is most of an elementwise op on small arrays.
    """
    data = x._data
    dtype = data.dtype
    if data.__class__ is not _ndarray:
        # A GPU array mixes with NumPy scalars, not with (0-d) NumPy arrays (the cache's).
        if isinstance(value, (str, bytes)) or not numpy.isscalar(value):
            _bad_operand(value)
        return dtype.type(value)
    try:
        return _constants[value, dtype]
    except KeyError:
        pass
    except TypeError:  # unhashable: a list or such
        _bad_operand(value)
    if isinstance(value, (str, bytes)) or not numpy.isscalar(value):
        _bad_operand(value)
    c = numpy.array(value, dtype=dtype)
    c.flags.writeable = False
    if len(_constants) > 4096:
        _constants.clear()
    _constants[value, dtype] = c
    return c


def _constant_op(x: Variable, cls: type, c: numpy.ndarray, ufunc: Any) -> Variable:
    """``cls(c)._apply1(x)`` for ``x + c``, ``x - c`` and ``x * c`` (``cls`` an AddConstant or
    a MulConstant, whose forward is ``ufunc(x, c)``).

    When nothing is recorded (no graph, no function hook, debug mode never switched on, see
    function_node.apply_ufunc), the ufunc runs on the array without the node.
    """
    requires_grad = x._requires_grad
    record = requires_grad and _config.enable_backprop
    data = x._data
    if record or _fn._hooks_active or configuration.debug_was_set or \
            data.__class__ is not _ndarray:
        f: Any = _object_new(cls)  # cls(c) without its __init__ frame
        # The cache's 0-d NumPy constant does not mix with a GPU array: its NumPy scalar does.
        f.value = c if data.__class__ is _ndarray or c.__class__ is not _ndarray else c[()]
        return f._apply1(x, record)
    return _plain_variable(ufunc(data, c), requires_grad)


def _bad_operand(value):
    raise TypeError('Value must be a scalar, `numpy.ndarray` or a `Variable`.\nActual: %s'
                    % type(value))


def _operand(x, value):
    """A Variable or array operand: arrays are cast to ``x``'s dtype, as Chainer does."""
    if isinstance(value, _ndarray) or variable._is_array(value):
        data = x._data
        if value.__class__ is not data.__class__ and (
                backend.get_array_module(value) is not backend.get_array_module(data)):
            # As Chainer: arrays of two array modules (a CPU and a GPU array) are refused as
            # such, before any shape check.
            raise TypeError('incompatible array types are mixed in an arithmetic operation: '
                            '%s and %s' % (_type_name(data), _type_name(value)))
        return value.astype(data.dtype, copy=False)
    return value


def _type_name(a):
    return '%s.ndarray' % backend.get_array_module(a).__name__


def add(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is _Variable:
        return _add.Add().apply((self, rhs))[0]
    if isinstance(rhs, (_Variable, _ndarray)):
        return _add.Add().apply((self, _operand(self, rhs)))[0]
    data: Any = self._data  # never None here: an operand of arithmetic holds an array
    try:  # inline: the hot path of x + 1, x * 2
        c = _constants[rhs, data.dtype]
    except (KeyError, TypeError):
        if variable._is_array(rhs):
            return _add.Add().apply((self, _operand(self, rhs)))[0]
        c = _constant(self, rhs)
    return _constant_op(self, _AddConstant, c, _np_add)


def sub(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is _Variable:
        return _sub.Sub().apply((self, rhs))[0]
    if _is_array(rhs):
        return _sub.Sub().apply((self, _operand(self, rhs)))[0]
    return _constant_op(self, _AddConstant, _constant(self, -rhs), _np_add)


def rsub(self: Variable, lhs: Any) -> Variable:
    if _is_array(lhs):
        return _sub.Sub().apply((_operand(self, lhs), self))[0]
    return _sub.SubFromConstant(_constant(self, lhs))._apply1(self)


def mul(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is _Variable:
        return _mul.Mul().apply((self, rhs))[0]
    if isinstance(rhs, (_Variable, _ndarray)):
        return _mul.Mul().apply((self, _operand(self, rhs)))[0]
    data: Any = self._data  # never None here: an operand of arithmetic holds an array
    try:  # inline: the hot path of x + 1, x * 2
        c = _constants[rhs, data.dtype]
    except (KeyError, TypeError):
        if variable._is_array(rhs):
            return _mul.Mul().apply((self, _operand(self, rhs)))[0]
        c = _constant(self, rhs)
    return _constant_op(self, _MulConstant, c, _np_multiply)


def div(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is _Variable:
        return _div.Div().apply((self, rhs))[0]
    if _is_array(rhs):
        return _div.Div().apply((self, _operand(self, rhs)))[0]
    c = _constant(self, rhs)
    # As Chainer: multiply by the reciprocal (equal to true division within rounding).
    with numpy.errstate(divide='ignore'):
        return _mul.MulConstant(_constant(self, (1 / c).item()))._apply1(self)


def rdiv(self: Variable, lhs: Any) -> Variable:
    if _is_array(lhs):
        return _div.Div().apply((_operand(self, lhs), self))[0]
    return _div.DivFromConstant(_constant(self, lhs)).apply((self,))[0]


def pow(self: Variable, rhs: Any) -> Variable:
    if _is_array(rhs):
        return _pow.PowVarVar().apply((self, _operand(self, rhs)))[0]
    return _pow.PowVarConst(_constant(self, rhs)).apply((self,))[0]


def rpow(self: Variable, lhs: Any) -> Variable:
    if _is_array(lhs):
        return _pow.PowVarVar().apply((_operand(self, lhs), self))[0]
    return _pow.PowConstVar(_constant(self, lhs)).apply((self,))[0]


def matmul(self: Variable, rhs: Any) -> Variable:
    if not _is_array(rhs):
        raise TypeError('matmul: a scalar operand is not allowed; use * instead')
    return _matmul.matmul(self, _operand(self, rhs))


def rmatmul(self: Variable, lhs: Any) -> Variable:
    if not _is_array(lhs):
        raise TypeError('matmul: a scalar operand is not allowed; use * instead')
    return _matmul.matmul(_operand(self, lhs), self)


def floordiv(self: Variable, rhs: Any) -> Variable:
    return _floor.floor(div(self, rhs))


def rfloordiv(self: Variable, lhs: Any) -> Variable:
    return _floor.floor(rdiv(self, lhs))


def neg(self: Variable) -> Variable:
    return _neg.Neg()._apply1(self)


def absolute(self: Variable) -> Variable:
    return _absolute.absolute(self)


def install_variable_arithmetics() -> None:
    """Attaches the operators to :class:`~chainlite.Variable` (done on ``import chainlite``)."""
    V = _Variable
    for name, fn in (('__add__', add), ('__radd__', add), ('__sub__', sub), ('__rsub__', rsub),
                     ('__mul__', mul), ('__rmul__', mul), ('__truediv__', div),
                     ('__rtruediv__', rdiv), ('__floordiv__', floordiv),
                     ('__rfloordiv__', rfloordiv), ('__pow__', pow), ('__rpow__', rpow),
                     ('__matmul__', matmul), ('__rmatmul__', rmatmul), ('__neg__', neg),
                     ('__abs__', absolute)):
        # setattr: mypy sees the operators declared on Variable, and would refuse the
        # assignment of a method.
        setattr(V, name, fn)
