"""Batching rules of ``vmap``: how one call of a function on a whole batch replaces the loop.

A rule gets the arguments bound to the function's parameters, the mapped ones with the batch
in front (axis 0, ``n`` examples), the unmapped ones as given, and returns the batched result
(batch in front), or None where it cannot promise the loop's result (then vmap loops, and the
function raises its own error where the arguments are wrong). Every rule is tested against
the loop, values and gradients (chainlite_tests/test_vmap_rules.py).
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
from typing import Any, Callable, Optional

import numpy

from chainlite import functions
from chainlite import variable

_Variable = variable.Variable

# Elementwise functions of one argument: f(x)[i] == f(x[i]) along any axis.
ELEMENTWISE_NAMES = (
    'absolute', 'arctan', 'cos', 'cosh', 'elu', 'erf', 'exp', 'expm1', 'gelu', 'hard_sigmoid',
    'leaky_relu', 'log', 'log1p', 'relu', 'rsqrt', 'selu', 'sigmoid', 'sin', 'sinh',
    'softplus', 'sqrt', 'square', 'tan', 'tanh')
# Elementwise functions of several arguments that broadcast like NumPy.
BROADCASTING_NAMES = ('add', 'arctan2', 'fmod', 'maximum', 'minimum', 'squared_difference',
                      'where')
BROADCASTING_OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv)
REDUCTION_NAMES = ('logsumexp', 'max', 'mean', 'min', 'prod', 'sum')
AXIS_NAMES = ('broadcast_to', 'concat', 'cumprod', 'cumsum', 'expand_dims', 'flatten',
              'log_softmax', 'moveaxis', 'reshape', 'softmax', 'squeeze', 'stack', 'swapaxes',
              'transpose')
LINEAR_NAMES = ('linear', 'matmul')


def _ndim(x: Any) -> int:
    return len(x.shape) if hasattr(x, 'shape') else numpy.ndim(x)


def _reshape(x: Any, shape: tuple) -> Any:
    if tuple(x.shape) == tuple(shape):
        return x
    if isinstance(x, _Variable):
        return functions.reshape(x, shape)
    return numpy.reshape(x, shape)


def _broadcast(x: Any, shape: tuple) -> Any:
    if tuple(x.shape) == tuple(shape):
        return x
    if isinstance(x, _Variable):
        return functions.broadcast_to(x, shape)
    return numpy.broadcast_to(x, shape)


def _pad(x: Any, ndim: int) -> Any:
    # A mapped (n, *s) gets ones after the batch axis, so it has ndim example axes and
    # broadcasts against the unmapped arguments the way each example does.
    shape = tuple(x.shape)
    return _reshape(x, shape[:1] + (1,) * (ndim - len(shape) + 1) + shape[1:])


def _axis(axis: Any, ndim: int) -> Optional[int]:
    # An example's axis as an axis of the batch, or None where it is out of range.
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        return None
    return int(axis) % ndim + 1 if -ndim <= axis < ndim else None


def _axes(axis: Any, ndim: int) -> Optional[tuple]:
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    shifted = tuple(_axis(a, ndim) for a in items)
    if None in shifted or len(set(shifted)) != len(shifted):
        return None
    return shifted


def _elementwise(fn: Callable) -> Callable:
    def rule(arguments: dict, mapped: dict, n: int) -> Any:
        names = list(arguments)
        if any(mapped[k] for k in names[1:]):
            return None
        return fn(**arguments)
    return rule


def _broadcasting(fn: Callable) -> Callable:
    def rule(arguments: dict, mapped: dict, n: int) -> Any:
        names = list(arguments)
        if names == ['xs']:      # F.add(*xs)
            items, flags = list(arguments['xs']), list(mapped['xs'])
        else:
            items, flags = [arguments[k] for k in names], [mapped[k] for k in names]
        ndim = max(_ndim(x) - (1 if m else 0) for x, m in zip(items, flags))
        padded = [_pad(x, ndim) if m else x for x, m in zip(items, flags)]
        return fn(*padded)
    return rule


def _reduction(fn: Callable) -> Callable:
    def rule(arguments: dict, mapped: dict, n: int) -> Any:
        x = arguments['x']
        if not mapped['x'] or arguments.get('weights') is not None:
            return None
        ndim = _ndim(x) - 1
        axis = arguments['axis']
        if ndim == 0:
            return None
        shifted = tuple(range(1, ndim + 1)) if axis is None else _axes(axis, ndim)
        if shifted is None:
            return None
        return fn(**dict(arguments, axis=shifted))
    return rule


def _x_only(rule: Callable) -> Callable:
    # Rules for functions whose one mapped argument is x; the rest are settings.
    def checked(arguments: dict, mapped: dict, n: int) -> Any:
        if not mapped['x'] or any(mapped[k] for k in arguments if k != 'x'):
            return None
        x = arguments['x']
        return rule(arguments, x, _ndim(x) - 1, n)
    return checked


def _softmax_like(fn: Callable) -> Callable:
    @_x_only
    def rule(arguments: dict, x: Any, ndim: int, n: int) -> Any:
        axis = _axis(arguments['axis'], ndim)
        return None if axis is None else fn(x, axis)
    return rule


def _cumulative(fn: Callable) -> Callable:
    @_x_only
    def rule(arguments: dict, x: Any, ndim: int, n: int) -> Any:
        if ndim == 0:
            return None
        axis = arguments['axis']
        if axis is None:     # each example is flattened first
            return fn(_reshape(x, (n, math.prod(x.shape[1:]))), 1)
        axis = _axis(axis, ndim)
        return None if axis is None else fn(x, axis)
    return rule


@_x_only
def _transpose(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    axes = arguments['axes']
    if axes is None:
        return functions.transpose(x, (0,) + tuple(range(ndim, 0, -1)))
    shifted = _axes(axes, ndim) if ndim else None
    if shifted is None or len(shifted) != ndim:
        return None
    return functions.transpose(x, (0,) + shifted)


@_x_only
def _swapaxes(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    a, b = (_axis(arguments[k], ndim) for k in ('axis1', 'axis2'))
    return None if a is None or b is None else functions.swapaxes(x, a, b)


@_x_only
def _moveaxis(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    source, destination = arguments['source'], arguments['destination']
    many = isinstance(source, (tuple, list))
    if many != isinstance(destination, (tuple, list)):
        return None
    s, d = _axes(source, ndim), _axes(destination, ndim)
    if s is None or d is None or len(s) != len(d):
        return None
    return functions.moveaxis(x, s if many else s[0], d if many else d[0])


def _reshape_size_fits(size: int, shape: tuple) -> bool:
    known = [d for d in shape if d != -1]
    if len(shape) - len(known) > 1 or any(d < 0 for d in known):
        return False
    rest = math.prod(known)
    return rest == size if len(known) == len(shape) else rest > 0 and size % rest == 0


@_x_only
def _reshape_rule(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    shape = arguments['shape']
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(d, (int, numpy.integer)) for d in shape):
        return None
    if not _reshape_size_fits(math.prod(x.shape[1:]), shape):
        return None
    return functions.reshape(x, (n,) + shape)


@_x_only
def _flatten_rule(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    return functions.reshape(x, (n, math.prod(x.shape[1:])))


@_x_only
def _expand_dims(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    axis = _axis(arguments['axis'], ndim + 1)
    return None if axis is None else functions.expand_dims(x, axis)


@_x_only
def _squeeze(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    shape = x.shape[1:]
    axis = arguments['axis']
    if axis is None:
        shifted: Optional[tuple] = tuple(i + 1 for i, d in enumerate(shape) if d == 1)
    else:
        shifted = _axes(axis, ndim) if ndim else None
        if shifted is None or any(shape[a - 1] != 1 for a in shifted):
            return None
    return functions.squeeze(x, shifted)


@_x_only
def _broadcast_to(arguments: dict, x: Any, ndim: int, n: int) -> Any:
    shape = arguments['shape']
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if len(shape) < ndim:
        return None
    try:
        if numpy.broadcast_shapes(tuple(x.shape[1:]), shape) != shape:
            return None
    except ValueError:
        return None
    return functions.broadcast_to(_pad(x, len(shape)), (n,) + shape)


def _joining(fn: Callable, extra: int) -> Callable:
    # concat (extra 0: an existing axis) and stack (extra 1: a new one).
    def rule(arguments: dict, mapped: dict, n: int) -> Any:
        xs, flags = arguments['xs'], mapped['xs']
        if _leaf_flag(flags) or not len(xs):
            return None
        shapes = [tuple(x.shape[1:]) if m else tuple(numpy.shape(x))
                  for x, m in zip(xs, flags)]
        if len({len(s) for s in shapes}) != 1:
            return None
        axis = _axis(arguments['axis'], len(shapes[0]) + extra)
        if axis is None:
            return None
        items = [x if m else _broadcast(x, (n,) + s) for x, m, s in zip(xs, flags, shapes)]
        return fn(items, axis)
    return rule


def _leaf_flag(flags: Any) -> bool:
    return not isinstance(flags, (tuple, list))


def _matmul(arguments: dict, mapped: dict, n: int) -> Any:
    a, b = arguments['a'], arguments['b']
    operands = []
    for x, m, trans, side in ((a, mapped['a'], arguments['transa'], 'a'),
                              (b, mapped['b'], arguments['transb'], 'b')):
        nd = _ndim(x) - (1 if m else 0)
        if nd == 0:
            return None
        if nd == 1:   # a vector: a row on the left, a column on the right, dropped after
            x = functions.expand_dims(x, x.ndim - 1 if side == 'a' else x.ndim)
            nd = 2
        elif trans:
            x = functions.swapaxes(x, -1, -2)
        operands.append((x, m, nd))
    ndim = max(nd for _, _, nd in operands)
    (a2, ma, _), (b2, mb, _) = [(_pad(x, ndim) if m else x, m, nd) for x, m, nd in operands]
    y = functions.matmul(a2, b2)
    shape = list(y.shape)
    if _ndim(a) - (1 if ma else 0) == 1:
        del shape[-2]
    if _ndim(b) - (1 if mb else 0) == 1:
        del shape[-1]
    return _reshape(y, tuple(shape))


def _linear(arguments: dict, mapped: dict, n: int) -> Any:
    x, W, b = arguments['x'], arguments['W'], arguments['b']
    n_batch_axes = arguments['n_batch_axes']
    mx = mapped['x']
    if isinstance(n_batch_axes, bool) or not isinstance(n_batch_axes, int) \
            or n_batch_axes < 1:
        return None
    shape = tuple(x.shape[1:]) if mx else tuple(numpy.shape(x))
    if len(shape) <= n_batch_axes or _ndim(W) - (1 if mapped['W'] else 0) != 2:
        return None
    if not mapped['W'] and not mapped['b']:
        return functions.linear(x, W, b, n_batch_axes + 1)
    rows, k = math.prod(shape[:n_batch_axes]), math.prod(shape[n_batch_axes:])
    x2 = _reshape(x, (n, rows, k) if mx else (rows, k))
    if tuple(W.shape[-1:]) != (k,):
        return None
    y = functions.matmul(_pad(x2, 2) if mx else x2, W, transb=True)
    if b is not None:
        y = y + (_pad(b, 2) if mapped['b'] else b)
    return functions.reshape(y, (n,) + shape[:n_batch_axes] + (y.shape[-1],))


def _table() -> list:
    table: list = []
    for name in ELEMENTWISE_NAMES:
        if hasattr(functions, name):
            table.append((getattr(functions, name), _elementwise(getattr(functions, name))))
    for name in BROADCASTING_NAMES:
        table.append((getattr(functions, name), _broadcasting(getattr(functions, name))))
    for op in BROADCASTING_OPERATORS:
        table.append((op, _broadcasting(op)))
    for name in REDUCTION_NAMES:
        table.append((getattr(functions, name), _reduction(getattr(functions, name))))
    F = functions
    table += [
        (F.softmax, _softmax_like(F.softmax)), (F.log_softmax, _softmax_like(F.log_softmax)),
        (F.cumsum, _cumulative(F.cumsum)), (F.cumprod, _cumulative(F.cumprod)),
        (F.transpose, _transpose), (F.swapaxes, _swapaxes), (F.moveaxis, _moveaxis),
        (F.reshape, _reshape_rule), (F.flatten, _flatten_rule),
        (F.expand_dims, _expand_dims), (F.squeeze, _squeeze),
        (F.broadcast_to, _broadcast_to),
        (F.concat, _joining(F.concat, 0)), (F.stack, _joining(F.stack, 1)),
        (F.matmul, _matmul), (F.linear, _linear)]
    return table


_RULES = _table()


def find(f: Callable) -> Optional[tuple]:
    """The rule for ``f`` (a function above, or a ``functools.partial`` of one with keyword
    settings) and the keywords, or None."""
    keywords: dict = {}
    if isinstance(f, functools.partial) and not f.args:
        keywords, f = dict(f.keywords), f.func
    rule = next((r for g, r in _RULES if g is f), None)
    return None if rule is None else (f, rule, keywords)


def apply(fn: Callable, rule: Callable, args: tuple, flags: tuple, kwargs: dict,
          n: int) -> Any:
    """Binds ``args`` (batch in front where mapped) and runs ``rule``; None where it declines.

    ``flags`` mirrors ``args``, True where a leaf is mapped; keyword arguments are unmapped.
    """
    try:
        signature = inspect.signature(fn)
        bound = signature.bind(*args, **kwargs)
        marks = signature.bind(*flags, **{k: False for k in kwargs})
    except (TypeError, ValueError):
        return None       # the loop raises the function's own error
    bound.apply_defaults()
    mapped = {k: marks.arguments.get(k, False) for k in bound.arguments}
    for k, v in mapped.items():
        if k != 'xs' and not _leaf_flag(v):
            if _any_mapped(v):
                return None    # a mapped tuple where the function takes one array
            mapped[k] = False
    return rule(dict(bound.arguments), mapped, n)


def _any_mapped(flags: Any) -> bool:
    return flags if _leaf_flag(flags) else any(_any_mapped(f) for f in flags)
