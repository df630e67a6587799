"""Type checking of function inputs, with readable error messages.

The same ``check_type_forward`` code runs in two modes:

* **Light mode** -- :func:`get_light_types` hands the check the arrays themselves (in a
  :class:`LightTypeInfoTuple`), so ``in_types[0].shape[1] == 3`` is a plain ``bool`` and
  :func:`expect` only tests truthiness.  This is the cheap path taken on every call.
* **Heavy mode** -- :func:`get_types` wraps each input in a :class:`Variable` holding a
  :class:`TypeInfo`.  Attribute access, indexing, operators and calls on it build an
  :class:`Expr` tree that remembers its source text, so a failing :func:`expect` can report
  ``Expect: x.shape[1] == W.shape[1]`` / ``Actual: 3 != 4``.  Callers re-run a check in this
  mode only after it failed in light mode.

No global mode flag exists: every helper tells the modes apart by the types it receives.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
import threading
from typing import Any, Callable, Iterator, Sequence

import numpy


# The function whose check runs (get_function_check_context) and the light-mode flag (LightMode),
# per thread, as in Chainer.
_thread_local = threading.local()


class InvalidType(Exception):
    """Raised when inputs do not satisfy a type-check condition.

    Args:
        expect: Text of the condition that was expected to hold.
        actual: Text describing the values actually observed.
        msg: Full message; defaults to ``'Expect: {expect}\\nActual: {actual}'``.

    Attributes:
        expect: The ``expect`` argument.
        actual: The ``actual`` argument.
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None) -> None:
        if msg is None:
            msg = f'Expect: {expect}\nActual: {actual}'
            function = getattr(_thread_local, 'current_function', None)
            if function is not None:
                msg = ('\nInvalid operation is performed in: %s (Forward)\n\n%s'
                       % (function.label, msg))
        super().__init__(msg)
        self.expect = expect
        self.actual = actual
        self.msg = msg

    def __reduce__(self) -> tuple:
        # The default reduce would pass only ``msg`` back to ``__init__``.
        return (type(self), (self.expect, self.actual, self.msg))


# Python operator precedence, loosest first (Chainer's numbers, which its tests and messages
# share); used only to place parentheses in ``str()``.
_PRI_COMPARE, _PRI_OR, _PRI_XOR, _PRI_AND, _PRI_SHIFT = -1, 0, 1, 2, 3
_PRI_ADD, _PRI_MUL, _PRI_UNARY, _PRI_POW, _PRI_ATOM = 4, 5, 6, 7, 8

# symbol -> (precedence, implementation, dunder stem)
_BINARY_OPS: dict[str, tuple[int, Callable[[Any, Any], Any], str]] = {
    '**': (_PRI_POW, operator.pow, 'pow'),
    '*': (_PRI_MUL, operator.mul, 'mul'),
    '/': (_PRI_MUL, operator.truediv, 'truediv'),
    '//': (_PRI_MUL, operator.floordiv, 'floordiv'),
    '%': (_PRI_MUL, operator.mod, 'mod'),
    '+': (_PRI_ADD, operator.add, 'add'),
    '-': (_PRI_ADD, operator.sub, 'sub'),
    '<<': (_PRI_SHIFT, operator.lshift, 'lshift'),
    '>>': (_PRI_SHIFT, operator.rshift, 'rshift'),
    '&': (_PRI_AND, operator.and_, 'and'),
    '^': (_PRI_XOR, operator.xor, 'xor'),
    '|': (_PRI_OR, operator.or_, 'or'),
}
# symbol -> (implementation, negated symbol shown in "Actual:", dunder stem)
_COMPARE_OPS: dict[str, tuple[Callable[[Any, Any], Any], str, str]] = {
    '==': (operator.eq, '!=', 'eq'),
    '!=': (operator.ne, '==', 'ne'),
    '<': (operator.lt, '>=', 'lt'),
    '<=': (operator.le, '>', 'le'),
    '>': (operator.gt, '<=', 'gt'),
    '>=': (operator.ge, '<', 'ge'),
}
_UNARY_OPS: dict[str, tuple[Callable[[Any], Any], str]] = {
    '-': (operator.neg, 'neg'),
    '+': (operator.pos, 'pos'),
    '~': (operator.invert, 'invert'),
}


class Expr:
    """Base class of lazily evaluated type-check expressions.

    Comparison, arithmetic and bitwise operators (with reflected forms), unary ``-``/``+``/``~``,
    indexing, attribute access and calls all return new expressions (the operator methods are
    installed after the node classes below).  ``str(expr)`` gives Python-like source text,
    parenthesised by operator precedence.

    Args:
        priority: The binding strength of the outermost operator (Chainer's numbering: ``-1``
            for comparisons up to ``8`` for atoms), used to decide on parentheses.
    """

    #: Binding strength of the outermost operator, used to decide on parentheses.
    priority: int = _PRI_ATOM
    # Makes numpy scalars and arrays return NotImplemented so our reflected operators run.
    __array_ufunc__ = None

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        """Returns the actual value this expression denotes."""
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self}>'

    def __bool__(self) -> bool:
        raise RuntimeError(
            'An Expr cannot be converted to bool; pass it to type_check.expect() or call '
            'type_check.eval() on it.')

    def __iter__(self):
        # Without this, Python would iterate through __getitem__ forever.
        raise TypeError(f"'{type(self).__name__}' object is not iterable; call eval() first")

    def __getattr__(self, name: str) -> GetAttr:
        # Private and dunder names are protocol probes (numpy, copy, pickle), not user attributes.
        if name.startswith('_'):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> GetItem:
        return GetItem(self, key)

    def __call__(self, *args: Any, **kwargs: Any) -> Call:
        return Call(self, args, kwargs)


def _as_expr(value: Any) -> Expr:
    return value if isinstance(value, Expr) else Constant(value)


def _has_expr(value: Any) -> bool:
    if isinstance(value, Expr):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_expr(v) for v in value)
    if isinstance(value, slice):
        return any(_has_expr(v) for v in (value.start, value.stop, value.step))
    return False


def _eval_value(value: Any) -> Any:
    """Evaluates expressions, also inside tuples, lists and slices (others are kept as given)."""
    if isinstance(value, Expr):
        return value.eval()
    if not _has_expr(value):
        return value
    if isinstance(value, slice):
        return slice(_eval_value(value.start), _eval_value(value.stop), _eval_value(value.step))
    return type(value)(_eval_value(v) for v in value)


def _source(value: Any) -> str:
    """Source-like text of an operand that may contain expressions."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, tuple):
        inner = ', '.join(_source(v) for v in value)
        return f'({inner},)' if len(value) == 1 else f'({inner})'
    if isinstance(value, list):
        return '[' + ', '.join(_source(v) for v in value) + ']'
    return repr(value)


_repr = _source  # Chainer's name of it


def _index_source(key: Any) -> str:
    if isinstance(key, tuple):
        text = ', '.join(_index_source(k) for k in key)
        return text + ',' if len(key) == 1 else text
    if isinstance(key, slice):
        text = ':'.join('' if v is None else _source(v) for v in (key.start, key.stop))
        return text if key.step is None else f'{text}:{_source(key.step)}'
    return '...' if key is Ellipsis else _source(key)


def _paren(expr: Any, needed: bool) -> str:
    return f'({_source(expr)})' if needed else _source(expr)


def _priority(value: Any) -> int:
    # Plain values (Chainer's operators may hold them) print as atoms.
    return value.priority if isinstance(value, Expr) else _PRI_ATOM


class Atom(Expr):
    """An expression that binds tightest (a literal, a name, ``x.a``, ``x[i]``, ``f(x)``).

    The base of :class:`Constant`, :class:`Variable`, :class:`GetAttr`, :class:`GetItem` and
    :class:`Call`: its text is never parenthesised.

    Example:
        >>> from chainlite.utils import type_check
        >>> isinstance(type_check.make_variable(3, 'n'), type_check.Atom)
        True
    """

    def __init__(self) -> None:
        super().__init__(_PRI_ATOM)


class Constant(Atom):
    """A literal value inside an expression; shown with ``str(value)``.

    Args:
        value: The value (a list or tuple may hold expressions: they are evaluated with it).
    """

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def priority(self) -> int:  # type: ignore[override]
        # A negative literal behaves like a unary minus, e.g. ``(-2) ** n``.
        return _PRI_UNARY if str(self.value).startswith('-') else _PRI_ATOM

    def eval(self) -> Any:
        """Returns the wrapped value (with any expressions inside it evaluated)."""
        return _eval_value(self.value)

    def __str__(self) -> str:
        value = self.value
        return _source(value) if isinstance(value, (tuple, list)) else str(value)


class Variable(Atom):
    """A named value inside an expression; shown by its name.

    Args:
        value: The value (e.g. a :class:`TypeInfo`, an int, or a function to call lazily).
        name: Text shown in messages; :func:`argname` may change it later.
    """

    def __init__(self, value: Any, name: str) -> None:
        self.value = value
        self.name = name
        self.priority = _PRI_ATOM

    def eval(self) -> Any:
        """Returns the wrapped value."""
        return self.value

    def __str__(self) -> str:
        return self.name


class GetAttr(Atom):
    """Attribute access ``obj.name`` on an expression.

    The nodes keep their parts in private attributes, so that ``x.dtype.name`` builds an
    expression instead of reading a field.

    Args:
        obj: The object (an expression).
        name: The attribute name: a string, or an expression giving one (shown as
            ``getattr(obj, name)`` unless it is a string constant).
    """

    def __init__(self, obj: Any, name: Any) -> None:
        self._obj, self._name = obj, name
        self.priority = _PRI_ATOM

    def eval(self) -> Any:
        """Returns the attribute of the evaluated object."""
        return getattr(_eval_value(self._obj), _eval_value(self._name))

    def __str__(self) -> str:
        name = self._name
        if isinstance(name, Constant) and isinstance(name.value, str):
            name = name.value
        if isinstance(name, str):
            return f'{_paren(self._obj, _priority(self._obj) < _PRI_ATOM)}.{name}'
        return f'getattr({_source(self._obj)}, {_source(name)})'


class GetItem(Atom):
    """Indexing ``obj[key]``; ``key`` may be an int, slice, tuple or expression.

    Args:
        obj: The object (an expression).
        key: The index.
    """

    def __init__(self, obj: Any, key: Any) -> None:
        self._obj, self._key = obj, key
        self.priority = _PRI_ATOM

    def eval(self) -> Any:
        """Returns the evaluated object indexed by the evaluated key."""
        return _eval_value(self._obj)[_eval_value(self._key)]

    def __str__(self) -> str:
        obj = _paren(self._obj, _priority(self._obj) < _PRI_ATOM)
        return f'{obj}[{_index_source(self._key)}]'


class Call(Atom):
    """A call ``obj(*args, **kwargs)`` whose callee is an expression (e.g. a Variable).

    Args:
        obj: The callee.
        args: A tuple of arguments (values or expressions).
        kwargs: Keyword arguments, if any.
    """

    def __init__(self, obj: Any, args: tuple, kwargs: dict | None = None) -> None:
        if not isinstance(args, tuple):
            raise TypeError(f'Call: args must be a tuple, not {type(args).__name__}')
        self._obj, self._args, self._kwargs = obj, args, kwargs or {}
        self.priority = _PRI_ATOM

    def eval(self) -> Any:
        """Calls the evaluated function with evaluated arguments."""
        kwargs = {k: _eval_value(v) for k, v in self._kwargs.items()}
        return _eval_value(self._obj)(*_eval_value(self._args), **kwargs)

    def __str__(self) -> str:
        args = [_source(a) for a in self._args]
        args += [f'{k}={_source(v)}' for k, v in self._kwargs.items()]
        return f'{_paren(self._obj, _priority(self._obj) < _PRI_ATOM)}({", ".join(args)})'


class UnaryOperator(Expr):
    """A unary operation such as ``-x``.

    Args:
        priority: Its binding strength (``6`` for ``-``, ``+`` and ``~``).
        term: The operand (a value or an expression).
        exp: The operator's text, e.g. ``'-'``.
        func: The operation applied to the evaluated operand.
    """

    def __init__(self, priority: int, term: Any, exp: str, func: Callable[[Any], Any]) -> None:
        self.priority, self._term, self._exp, self._func = priority, term, exp, func

    def eval(self) -> Any:
        """Applies the operator to the evaluated operand."""
        return self._func(_eval_value(self._term))

    def __str__(self) -> str:
        return self._exp + _paren(self._term, _priority(self._term) < self.priority)


class BinaryOperator(Expr):
    """An arithmetic or bitwise operation such as ``lhs + rhs``.

    Args:
        priority: Its binding strength (Chainer's numbering, see :class:`Expr`).
        lhs: The left operand (a value or an expression).
        rhs: The right operand.
        exp: The operator's text, e.g. ``'+'``.
        func: The operation applied to the evaluated operands.
        right_associative: Whether ``a op b op c`` means ``a op (b op c)`` (only ``**``).
    """

    def __init__(self, priority: int, lhs: Any, rhs: Any, exp: str,
                 func: Callable[[Any, Any], Any], right_associative: bool = False) -> None:
        self.priority, self._lhs, self._rhs = priority, lhs, rhs
        self._exp, self._func, self._right_associative = exp, func, right_associative

    def _eval_left(self) -> Any:
        return _eval_value(self._lhs)

    def _eval_right(self) -> Any:
        return _eval_value(self._rhs)

    def eval(self) -> Any:
        """Applies the operator to the evaluated operands."""
        return self._func(self._eval_left(), self._eval_right())

    def __str__(self) -> str:
        pri, lhs, rhs = self.priority, _priority(self._lhs), _priority(self._rhs)
        if self._right_associative:
            # a ** b ** c == a ** (b ** c)
            left, right = lhs <= pri, rhs < pri
        else:
            left, right = lhs < pri, rhs <= pri
        return f'{_paren(self._lhs, left)} {self._exp} {_paren(self._rhs, right)}'


class Testable:
    """An expression that :func:`expect` can test with an explanation (its ``expect()``)."""

    def expect(self) -> None:
        """Raises :class:`InvalidType` if the condition does not hold."""
        raise NotImplementedError


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison ``lhs <exp> rhs``; the kind of expression :func:`expect` explains best.

    Args:
        lhs: The left operand (a value or an expression).
        rhs: The right operand.
        exp: The comparison's text, e.g. ``'=='``.
        inv: The text of its negation, shown in ``Actual:`` (``'!='`` for ``'=='``).
        func: The comparison applied to the evaluated operands.
    """

    def __init__(self, lhs: Any, rhs: Any, exp: str, inv: str,
                 func: Callable[[Any, Any], Any]) -> None:
        BinaryOperator.__init__(self, _PRI_COMPARE, lhs, rhs, exp, func)
        self._inv = inv

    def __str__(self) -> str:
        # Both sides need parentheses: ``a == b == c`` would read as a chained comparison.
        lhs = _paren(self._lhs, _priority(self._lhs) <= _PRI_COMPARE)
        rhs = _paren(self._rhs, _priority(self._rhs) <= _PRI_COMPARE)
        return f'{lhs} {self._exp} {rhs}'

    def expect(self) -> None:
        """Raises :class:`InvalidType` showing both operand values if the comparison fails."""
        lhs, rhs = self._eval_left(), self._eval_right()
        if not self._func(lhs, rhs):
            raise InvalidType(str(self), f'{lhs} {self._inv} {rhs}')

    check = expect


Comparison = BoolBinaryOperator  # chainlite's earlier name


def _operator_method(symbol: str, kind: str, reflected: bool = False) -> Callable:
    """Makes an operator dunder of :class:`Expr` that builds the expression node for it."""
    if kind == 'unary':
        func1 = _UNARY_OPS[symbol][0]

        def unary(self: Expr) -> Expr:
            return UnaryOperator(_PRI_UNARY, self, symbol, func1)
        return unary
    if kind == 'compare':
        func2, inv, _ = _COMPARE_OPS[symbol]

        def compare(self: Expr, other: Any) -> Expr:
            return BoolBinaryOperator(self, _as_expr(other), symbol, inv, func2)
        return compare
    priority, func2, _ = _BINARY_OPS[symbol]

    def binary(self: Expr, other: Any) -> Expr:
        lhs, rhs = (_as_expr(other), self) if reflected else (self, _as_expr(other))
        return BinaryOperator(priority, lhs, rhs, symbol, func2, symbol == '**')
    return binary


for _sym, _binary in _BINARY_OPS.items():
    _stem = _binary[2]
    setattr(Expr, f'__{_stem}__', _operator_method(_sym, 'binary'))
    setattr(Expr, f'__r{_stem}__', _operator_method(_sym, 'binary', reflected=True))
for _sym, _compare in _COMPARE_OPS.items():
    # Python reflects comparisons itself (a < b -> b > a), so no __r*__ variants are needed.
    _stem = _compare[2]
    setattr(Expr, f'__{_stem}__', _operator_method(_sym, 'compare'))
for _sym, _unary in _UNARY_OPS.items():
    _stem = _unary[1]
    setattr(Expr, f'__{_stem}__', _operator_method(_sym, 'unary'))
del _sym, _stem, _binary, _compare, _unary


def eval(exp: Any) -> Any:  # noqa: A001 - Chainer's public name.
    """Returns the value of ``exp`` if it is an :class:`Expr`, otherwise ``exp`` itself.

    Args:
        exp: An expression (heavy mode) or a plain value (light mode).
    """
    return exp.eval() if isinstance(exp, Expr) else exp


def make_variable(value: Any, name: str) -> Any:
    """Wraps ``value`` in a :class:`Variable` so messages show ``name`` instead of the value.

    The result is correct in light mode too: comparing it with a plain value yields an
    :class:`Expr`, which :func:`expect` evaluates. Inside ``with light_mode`` it is ``value``
    itself, as in Chainer.

    Args:
        value: The value, e.g. a configured size of the function.
        name: Text shown in error messages.
    """
    if getattr(_thread_local, 'light_mode', False):
        return value
    return Variable(value, name)


_PROD = Variable(math.prod, 'prod')


def prod(xs: Any) -> Any:
    """Product of a sequence, usable in both modes (as Chainer's).

    Args:
        xs: A tuple of ints (light mode) or an expression / sequence containing expressions.

    Returns:
        Inside ``with light_mode``, the product itself; otherwise an :class:`Expr` shown as
        ``prod(...)`` whose ``eval()`` is the product, even for plain numbers
        (``str(prod([]))`` is ``'prod([])'``, ``prod([2, 3]).eval()`` is 6).
    """
    if getattr(_thread_local, 'light_mode', False):
        return math.prod(xs)
    return Call(_PROD, (xs,), {})


class TypeInfo:
    """Type information (shape and dtype) of one input array, as seen in heavy mode.

    Args:
        shape: Shape of the array.
        dtype: Its dtype, or ``None`` for an absent array (e.g. a missing gradient).

    Attributes:
        shape: The shape as a tuple of ints.
        dtype: A ``numpy.dtype`` or ``None``.
        ndim: ``len(shape)``.
        size: Product of ``shape``.
    """

    def __init__(self, shape: Sequence[int], dtype: Any) -> None:
        self.shape = tuple(shape)
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = math.prod(self.shape)

    def __repr__(self) -> str:
        return f'TypeInfo(shape={self.shape}, dtype={self.dtype})'


class TypeInfoTuple(tuple):
    """Heavy-mode tuple of :class:`Variable` objects, each holding a :class:`TypeInfo`."""

    #: Prefix of the element names, e.g. ``'in_types'``; set by :func:`get_types`.
    name = 'in_types'

    def size(self) -> Variable:
        """Returns an expression for the number of inputs, shown as ``<name>.size()``."""
        return Variable(len(self), f'{self.name}.size()')


class LightTypeInfoTuple(tuple):
    """Light-mode tuple of the input arrays themselves."""

    __slots__ = ()

    def size(self) -> int:
        """Returns the number of inputs as a plain int."""
        return len(self)


_ALSO_CLASSES: dict[tuple[type, type], type] = {}


def _also(error: BaseException, extra: type[BaseException]) -> BaseException:
    """Returns ``error`` as an instance of a subclass of both its class and ``extra``.

    Where Chainer raises another type for a check than chainlite's clear error (a
    ``ValueError`` of its own where chainlite's type check raises :class:`InvalidType`), the
    error keeps its class and message and is also an ``extra``, so code written against
    either catches it. Used as ``raise type_check._also(e, ValueError) from None``.
    """
    cls = type(error)
    if issubclass(cls, extra):
        return error
    mixed = _ALSO_CLASSES.get((cls, extra))
    if mixed is None:
        mixed = type(cls.__name__, (cls, extra), {'__module__': cls.__module__,
                                                  '__doc__': cls.__doc__,
                                                  '__reduce__': _reduce_also})
        _ALSO_CLASSES[cls, extra] = mixed
    new = mixed.__new__(mixed, *error.args)
    new.__dict__.update(error.__dict__)
    new.args = error.args
    return new.with_traceback(error.__traceback__)


def _reduce_also(error: BaseException) -> tuple:
    # The mixed class is made at run time, so pickle rebuilds it through _also.
    cls, extra = type(error).__bases__
    return _rebuild_also, (cls, extra, error.args, error.__dict__)


def _rebuild_also(cls: type, extra: type, args: tuple, state: dict) -> BaseException:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return _also(error, extra)


class _NotASequenceError(TypeError, AssertionError):
    """get_types got something else than a tuple: a TypeError, and Chainer's AssertionError."""


def get_types(data: Sequence[Any], name: str, accept_none: bool,
              shapes: Sequence[Sequence[int]] | None = None) -> TypeInfoTuple:
    """Builds heavy-mode type information for a tuple of arrays.

    Args:
        data: The arrays (``None`` entries allowed when ``accept_none``).
        name: Prefix of the names in messages, e.g. ``'in_types'`` gives ``in_types[0]``.
        accept_none: Whether ``None`` entries are allowed; they get ``TypeInfo((), None)``.
        shapes: Shapes to report instead of the arrays' own shapes.

    Returns:
        A :class:`TypeInfoTuple` of :class:`Variable` objects holding :class:`TypeInfo`.

    Raises:
        TypeError: If ``data`` is not a tuple (or list) (this error is also an
            ``AssertionError``, as in Chainer), or an entry is ``None`` without
            ``accept_none``, or is not array-like.
    """
    if not isinstance(data, (tuple, list)):
        raise _NotASequenceError(f'get_types: data must be a tuple of arrays, not '
                                 f'{type(data).__name__}')
    infos = []
    for i, array in enumerate(data):
        var_name = f'{name}[{i}]'
        if array is None:
            if not accept_none:
                raise TypeError(f'{var_name} is None')
            info = TypeInfo((), None)
        elif not (hasattr(array, 'shape') and hasattr(array, 'dtype')):
            raise TypeError(f'{var_name} is not an array: {type(array).__name__}')
        else:
            info = TypeInfo(array.shape if shapes is None else shapes[i], array.dtype)
        infos.append(Variable(info, var_name))
    types = TypeInfoTuple(infos)
    types.name = name
    return types


def get_light_types(data: Sequence[Any]) -> LightTypeInfoTuple:
    """Returns the arrays themselves as a :class:`LightTypeInfoTuple` (the cheap path).

    Args:
        data: The input arrays.
    """
    return LightTypeInfoTuple(data)


def expect(*bool_exprs: Any) -> None:
    """Checks conditions in order and raises on the first one that does not hold.

    Args:
        *bool_exprs: Each is an :class:`Expr` (heavy mode; evaluated, and a failing comparison
            is explained as ``Actual: 3 != 4``) or a ``bool`` / ``numpy.bool_`` (light mode;
            a false one raises with generic text, to be re-run in heavy mode for detail).

    Raises:
        InvalidType: If a condition is false.
        TypeError: If an argument is neither an expression nor a boolean.
    """
    for cond in bool_exprs:
        if cond is True or cond is numpy.True_:
            continue
        break
    else:
        return  # every condition already true: the light-mode hot path ends here
    for i, cond in enumerate(bool_exprs):
        if cond is True or cond is numpy.True_:
            continue
        if isinstance(cond, Testable):
            cond.expect()
        elif isinstance(cond, Expr):
            value = cond.eval()
            if not value:
                raise InvalidType(str(cond), str(value))
        elif not isinstance(cond, (bool, numpy.bool_)):
            raise TypeError(
                f'expect() takes Expr or bool conditions, got {type(cond).__name__}')
        elif not cond:
            raise InvalidType(f'condition {i} of expect() to hold', 'False')


def argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Gives heavy-mode inputs readable names, so messages say ``x.shape`` not ``in_types[0]``.

    In light mode (plain arrays) only the count is checked.

    Args:
        in_types: The inputs (or a slice of them).
        names: One name per input.

    Raises:
        InvalidType: If the numbers of inputs and names differ.
    """
    if in_types.__class__ is LightTypeInfoTuple and len(in_types) == len(names):
        return  # light mode has no names to set
    if len(in_types) != len(names):
        raise InvalidType(f'{len(names)} argument(s): {", ".join(names)}',
                          f'{len(in_types)} argument(s)')
    for in_type, name in zip(in_types, names):
        if isinstance(in_type, Variable):
            in_type.name = name


_argname = argname  # Chainer's functions call the underscored spelling.


def same_types(*arrays: Any) -> bool:
    """Tells whether all given arrays are of one array kind (Chainer: all NumPy or all CuPy).

    This is an array-backend check, not a dtype check (compare ``.dtype`` for that).
    Expressions are evaluated first and ``None`` entries are ignored; any
    ``numpy.ndarray`` (subclasses included) counts as the NumPy kind.

    Args:
        *arrays: Arrays, or heavy-mode expressions of them.

    Returns:
        A plain ``bool`` in both modes.
    """
    kinds = {numpy.ndarray if isinstance(a, numpy.ndarray) else type(a)
             for a in map(eval, arrays) if a is not None}
    return len(kinds) <= 1


def _broadcastable(shapes: Sequence[tuple]) -> bool:
    # Pure Python: much cheaper than numpy.broadcast_shapes on the light-mode hot path.
    for dims in itertools.zip_longest(*(reversed(s) for s in shapes), fillvalue=1):
        if len({d for d in dims if d != 1}) > 1:
            return False
    return True


def expect_broadcast_shapes(*shape_types: Any, allow_none: bool = False) -> None:
    """Checks that shapes can be broadcast together by NumPy's rules.

    Args:
        *shape_types: Shapes (light mode) or shape expressions such as ``x_type.shape``.
        allow_none: Whether ``None`` shapes (absent inputs) are skipped rather than rejected.

    Raises:
        InvalidType: If the shapes are not broadcastable; heavy mode names each shape, e.g.
            ``Actual: x.shape = (2, 3), y.shape = (4,)``.
    """
    if len(shape_types) == 2 and shape_types[0].__class__ is tuple and \
            shape_types[0] == shape_types[1]:
        return  # light mode, equal shapes: the common case, decided without any work
    shapes = [eval(s) for s in shape_types]
    present = [s for s in shapes if s is not None]
    if (allow_none or len(present) == len(shapes)) and _broadcastable(present):
        return
    sources = [str(t) if isinstance(t, Expr) else None for t in shape_types]
    actual = [f'{src} = {s}' if src else str(s) for src, s in zip(sources, shapes)]
    names = ', '.join(src if src else str(s) for src, s in zip(sources, shapes))
    raise InvalidType(f'shapes broadcastable together: {names}', ', '.join(actual))


@contextlib.contextmanager
def get_function_check_context(f: Any) -> Iterator[None]:
    """Names the function whose inputs are checked, in the :class:`InvalidType` raised inside.

    Within the block, an :class:`InvalidType` made without an explicit message starts with
    ``Invalid operation is performed in: <f.label> (Forward)``.

    Args:
        f: The function (anything with a ``label``).

    Example:
        >>> from chainlite.utils import type_check
        >>> class F:
        ...     label = 'MyFunction'
        >>> with type_check.get_function_check_context(F()):
        ...     error = type_check.InvalidType('x.ndim == 2', 'x.ndim = 3')
        >>> 'performed in: MyFunction (Forward)' in str(error)
        True
    """
    previous = getattr(_thread_local, 'current_function', None)
    _thread_local.current_function = f
    try:
        yield
    finally:
        _thread_local.current_function = previous


class LightMode:
    """The context of :data:`light_mode`: checks see plain values instead of expressions.

    chainlite's helpers tell the modes apart by the values they get, so the flag only
    changes what :func:`make_variable` and :func:`_make_variable_from_array` return (the
    value itself, as in Chainer) and what :func:`in_light_mode` says.
    """

    def __enter__(self) -> None:
        _thread_local.light_mode = True

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        _thread_local.light_mode = False


#: Use as ``with type_check.light_mode:`` to run checks on plain values.
light_mode = LightMode()


def in_light_mode() -> bool:
    """Returns whether this thread is inside ``with type_check.light_mode``.

    Example:
        >>> from chainlite.utils import type_check
        >>> with type_check.light_mode:
        ...     type_check.in_light_mode()
        True
        >>> type_check.in_light_mode()
        False
    """
    return getattr(_thread_local, 'light_mode', False)


def _make_variable_from_array(array: Any, name: str) -> Any:
    # An input array as a checked Variable (the array itself in light mode).
    if not (hasattr(array, 'shape') and hasattr(array, 'dtype')):
        raise InvalidType('isinstance({}, ndarray)'.format(name),
                          'type({}) == {}'.format(name, type(array)))
    if in_light_mode():
        return array
    return Variable(TypeInfo(array.shape, array.dtype), name)


def _get_type(name: str, index: int, array: Any, accept_none: bool,
              shape: Sequence[int]) -> Variable:
    # Input ``index`` of the tuple ``name`` as a Variable holding its TypeInfo.
    var = '{0}[{1}]'.format(name, index)
    if accept_none and array is None:
        return Variable(TypeInfo((), None), var)
    if not (hasattr(array, 'shape') and hasattr(array, 'dtype')):
        raise _NotASequenceError('%s is not an array: %s' % (var, type(array).__name__))
    return Variable(TypeInfo(shape, array.dtype), var)


def _prod_impl(xs: Any) -> Any:
    result = 1
    for x in xs:
        result *= x
    return result


def _make_un_operator(exp: str, priority: int, func: Callable[[Any], Any]) -> Callable:
    # A function building the expression ``<exp>x``.
    return lambda x: UnaryOperator(priority, x, exp, func)


def _make_bin_operator(exp: str, priority: int, func: Callable[[Any, Any], Any],
                       right_associative: bool = False) -> Callable:
    # A function building the expression ``x <exp> y``.
    return lambda x, y: BinaryOperator(priority, x, y, exp, func, right_associative)


def _make_bool_operator(exp: str, inv: str, func: Callable[[Any, Any], Any]) -> Callable:
    # A function building the testable comparison ``x <exp> y`` (``inv`` is its negation).
    return lambda x, y: BoolBinaryOperator(x, y, exp, inv, func)


def _flip(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    # ``f`` with its two arguments swapped (the reflected operators).
    return lambda x, y: f(y, x)


_eval_expr = _eval_value  # Chainer's name
_str_subscript = _index_source  # Chainer's name
