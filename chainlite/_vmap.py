"""``vmap``: maps a function over an axis of its arguments (``chainlite.func.vmap``)."""
from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import numpy

from chainlite import functions
from chainlite import variable

_Variable = variable.Variable
Axes = Union[None, int, Sequence[Any]]

# Elementwise functions of one argument: f(x)[i] == f(x[i]) along any axis, so vmap calls
# them once on the whole batch. Every entry is tested against the loop.
_ELEMENTWISE_NAMES = (
    'absolute', 'arctan', 'cos', 'cosh', 'elu', 'erf', 'exp', 'expm1', 'gelu', 'hard_sigmoid',
    'leaky_relu', 'log', 'log1p', 'relu', 'rsqrt', 'selu', 'sigmoid', 'sin', 'sinh',
    'softplus', 'sqrt', 'square', 'tan', 'tanh')
_ELEMENTWISE = tuple(getattr(functions, n) for n in _ELEMENTWISE_NAMES
                         if hasattr(functions, n))


def _is_leaf(x: Any) -> bool:
    return not isinstance(x, (tuple, list))


def _flatten(args: Any, axes: Axes, where: str, out: list) -> None:
    # Pairs each array leaf of args with its axis; an int or None covers a whole subtree.
    if isinstance(axes, (tuple, list)):
        if _is_leaf(args) or len(args) != len(axes):
            raise ValueError(
                'vmap: in_axes%s is %r, a tuple of %d, but the argument there is %s'
                % (where, type(axes)(axes), len(axes),
                   'a tuple of %d' % len(args) if not _is_leaf(args) else 'not a tuple'))
        for k, (a, ax) in enumerate(zip(args, axes)):
            _flatten(a, ax, '%s[%d]' % (where, k), out)
        return
    if axes is not None and (isinstance(axes, bool) or not isinstance(axes, int)):
        raise ValueError('vmap: in_axes%s must be an int, None or a tuple; got %r'
                         % (where, axes))
    if _is_leaf(args):
        out.append((args, axes, where))
    else:
        for k, a in enumerate(args):
            _flatten(a, axes, '%s[%d]' % (where, k), out)


def _rebuild(args: Any, leaves: list) -> Any:
    # The inverse of _flatten's walk: fills args' structure with leaves in order.
    if _is_leaf(args):
        return leaves.pop(0)
    return type(args)(_rebuild(a, leaves) for a in args)


def _norm_axis(x: Any, axis: int, where: str) -> int:
    ndim = getattr(x, 'ndim', None)
    if ndim is None:
        raise ValueError('vmap: in_axes%s is %d, but the argument there is a %s, not an '
                         'array or Variable; give it the axis None'
                         % (where, axis, type(x).__name__))
    if not -ndim <= axis < ndim:
        raise ValueError('vmap: in_axes%s is %d, out of range for an argument of shape %s'
                         % (where, axis, tuple(x.shape)))
    return axis % ndim


def _take(x: Any, axis: int, i: int) -> Any:
    index = (slice(None),) * axis + (i,)
    if isinstance(x, _Variable):
        return functions.get_item(x, index)
    return x[index]


def _move(x: Any, source: int, destination: int) -> Any:
    if source == destination:
        return x
    if isinstance(x, _Variable):
        return functions.moveaxis(x, source, destination)
    return numpy.moveaxis(x, source, destination)


def _out_axes(outs: Any, out_axes: Axes) -> list:
    if isinstance(out_axes, (tuple, list)):
        if _is_leaf(outs) or len(outs) != len(out_axes):
            raise ValueError('vmap: out_axes %r does not match f\'s %s'
                             % (out_axes, 'tuple of %d outputs' % len(outs)
                                if not _is_leaf(outs) else 'single output'))
        return list(out_axes)
    return [out_axes] * (1 if _is_leaf(outs) else len(outs))


def _check_out_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError('vmap: each out_axes entry must be an int; got %r' % (axis,))
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError('vmap: out_axes %d is out of range for a mapped output of %d '
                         'dimensions (before mapping)' % (axis, ndim))
    return axis % (ndim + 1)


def _stack(rows: list, axis: Any) -> Any:
    ndim = numpy.ndim(rows[0].array if isinstance(rows[0], _Variable) else rows[0])
    axis = _check_out_axis(axis, ndim)
    if any(isinstance(r, _Variable) for r in rows):
        return functions.stack(rows, axis)
    return numpy.stack([numpy.asarray(r) for r in rows], axis)


def vmap(f: Callable, in_axes: Axes = 0, out_axes: Union[int, Sequence[int]] = 0, *,
         batched: bool = False) -> Callable:
    """Maps ``f`` over an axis of its arguments (``torch.func.vmap``, ``jax.vmap``).

    ``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``: the mapped axis of each argument is
    taken away, ``f`` sees one example at a time, and the results are stacked along
    ``out_axes``. So ``vmap(grad(loss), in_axes=(None, 0))(w, xs)`` gives one gradient per
    example, and compositions with every other transform are exact.

    By default it runs ``f`` once per example in a Python loop (correct for every ``f``).
    It calls ``f`` once on the whole batch instead when that is known to give the same
    result: when ``f`` is one of chainlite's elementwise functions of one argument
    (``F.sin``, ``F.exp``, ``F.relu``, ``F.tanh``, ``F.sigmoid`` and the others listed in
    the guide), or when ``batched=True`` declares that ``f`` treats axis 0 of its mapped
    arguments as a batch axis (``f(xs)[i] == f(xs[i])``, the unmapped arguments broadcast).
    Then the mapped axes are moved to the front, ``f`` runs once, and axis 0 of each output
    is moved to ``out_axes``.

    Results are what ``f`` returns, stacked: Variables (linked to the arguments' graphs, so
    ``grad`` of a ``vmap`` works) when ``f`` returns Variables, arrays when it returns
    arrays.

    Args:
        f: A function of arrays or Variables (or tuples of them), returning an array or
            Variable or a tuple of them.
        in_axes: The axis to map over in each positional argument: an int for every
            argument, or a tuple with one entry per argument, each an int, None (not mapped,
            passed whole to every call) or, for a tuple argument, a tuple of entries.
        out_axes: Where the mapped axis goes in each output: an int, or a tuple with one
            int per output.
        batched: Whether ``f`` is known to handle a leading batch axis itself (see above).

    Returns:
        A function with ``f``'s positional arguments returning the stacked results.

    Raises:
        ValueError: If ``in_axes`` or ``out_axes`` do not match the arguments or outputs,
            name an axis out of range, no argument is mapped, or the mapped axes differ in
            size.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> dot = lambda w, x: F.sum(w * x)
        >>> func.vmap(dot, in_axes=(None, 0))(np.array([1.0, 2.0]),
        ...                                   np.array([[1.0, 1.0], [3.0, 0.0]])).array
        array([3., 3.])
    """
    def wrapped(*args):
        if isinstance(in_axes, (tuple, list)):
            if len(in_axes) != len(args):
                raise ValueError('vmap: in_axes has %d entries but f got %d positional '
                                 'arguments' % (len(in_axes), len(args)))
            leaves: list = []
            for k, (a, ax) in enumerate(zip(args, in_axes)):
                _flatten(a, ax, '[%d]' % k, leaves)
        else:
            leaves = []
            for k, a in enumerate(args):
                _flatten(a, in_axes, '[%d]' % k, leaves)
        mapped = []
        for j, (x, ax, where) in enumerate(leaves):
            if ax is not None:
                ax = _norm_axis(x, ax, where)
                leaves[j] = (x, ax, where)
                mapped.append((x.shape[ax], where))
        if not mapped:
            raise ValueError('vmap: in_axes %r maps no argument; map at least one (an int '
                             'axis for an array or Variable)' % (in_axes,))
        sizes = {n for n, _ in mapped}
        if len(sizes) > 1:
            raise ValueError('vmap: the mapped axes differ in size: %s'
                             % ', '.join('in_axes%s has %d' % (w, n) for n, w in mapped))
        size = mapped[0][0]
        if any(f is g for g in _ELEMENTWISE) and len(args) == 1 and len(leaves) == 1:
            x, ax, _ = leaves[0]
            y = f(x)
            return _move(y, ax, _check_out_axis(_out_axes(y, out_axes)[0], y.ndim - 1))
        if batched:
            front = [x if ax is None else _move(x, ax, 0) for x, ax, _ in leaves]
            outs = f(*[_rebuild(a, front) for a in args])
            axes = _out_axes(outs, out_axes)
            ys = [outs] if _is_leaf(outs) else list(outs)
            moved = [_move(y, 0, _check_out_axis(a, numpy.ndim(y) - 1))
                     for y, a in zip(ys, axes)]
            return moved[0] if _is_leaf(outs) else type(outs)(moved)
        if size == 0:
            raise ValueError('vmap: the mapped axes have size 0; the loop has no example '
                             'to learn the output shape from')
        results = []
        for i in range(size):
            sliced = [x if ax is None else _take(x, ax, i) for x, ax, _ in leaves]
            results.append(f(*[_rebuild(a, sliced) for a in args]))
        first = results[0]
        axes = _out_axes(first, out_axes)
        if _is_leaf(first):
            return _stack(results, axes[0])
        return type(first)(_stack([r[k] for r in results], a) for k, a in enumerate(axes))

    return wrapped
