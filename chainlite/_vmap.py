"""``vmap``: maps a function over an axis of its arguments (``chainlite.func.vmap``)."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy

from chainlite import _vmap_rules
from chainlite import functions
from chainlite import variable
from chainlite.backends import cuda

_Variable = variable.Variable
Axes = Union[None, int, Sequence[Any]]

# Elementwise functions of one argument: f(x)[i] == f(x[i]) along any axis. They and the
# other functions with a batching rule are in _vmap_rules.
_ELEMENTWISE_NAMES = _vmap_rules.ELEMENTWISE_NAMES
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


def _out_axes(outs: Any, out_axes: Any) -> list:
    if isinstance(out_axes, (tuple, list)):
        if _is_leaf(outs) or len(outs) != len(out_axes):
            raise ValueError('vmap: out_axes %r does not match f\'s %s'
                             % (out_axes, 'tuple of %d outputs' % len(outs)
                                if not _is_leaf(outs) else 'single output'))
        return list(out_axes)
    return [out_axes] * (1 if _is_leaf(outs) else len(outs))


def _check_out_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError('vmap: each out_axes entry must be an int or None; got %r' % (axis,))
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError('vmap: out_axes %d is out of range for a mapped output of %d '
                         'dimensions (before mapping)' % (axis, ndim))
    return axis % (ndim + 1)


def _asarray(a: Any) -> Any:
    # numpy.asarray that leaves a GPU array on its device.
    return a if cuda.is_gpu_array(a) else numpy.asarray(a)


def _data(y: Any) -> Any:
    return y.array if isinstance(y, _Variable) else _asarray(y)


def _same(a: Any, b: Any) -> bool:
    return a.shape == b.shape and bool(numpy.array_equal(a, b, equal_nan=a.dtype.kind in 'fc'))


def _unmapped(rows: list, k: int) -> Any:
    # out_axes None: the output must not depend on the mapped axis (torch's rule); vmap can
    # only see the values, so it checks they are the same for every example.
    first = _data(rows[0])
    if not all(_same(first, _data(r)) for r in rows[1:]):
        raise ValueError('vmap: out_axes is None for output %d, but it differs between '
                         'examples (it depends on the mapped axis); give it an int axis' % k)
    return rows[0]


def _stack(rows: list, axis: Any, k: int) -> Any:
    if axis is None:
        return _unmapped(rows, k)
    axis = _check_out_axis(axis, numpy.ndim(_data(rows[0])))
    if any(isinstance(r, _Variable) for r in rows):
        return functions.stack(rows, axis)
    return numpy.stack([_asarray(r) for r in rows], axis)


def _concat(parts: list) -> Any:
    if len(parts) == 1:
        return parts[0]
    if any(isinstance(p, _Variable) for p in parts):
        return functions.concat(parts, 0)
    return numpy.concatenate([_asarray(p) for p in parts], 0)


def _place(y: Any, axis: Any, k: int) -> Any:
    # A batched output (batch in front) moved to its out_axes entry.
    if axis is None:
        first = _data(y)
        row = first[:1]
        if first.ndim and len(first) > 1 and not _same(numpy.broadcast_to(row, first.shape),
                                                       first):
            raise ValueError('vmap: out_axes is None for output %d, but it differs between '
                             'examples (it depends on the mapped axis); give it an int axis'
                             % k)
        return y[0]
    ndim = numpy.ndim(_data(y))
    if ndim == 0:
        raise ValueError('vmap: output %d of the batched call is 0-d, without the batch axis '
                         '0 that batched=True promises' % k)
    return _move(y, 0, _check_out_axis(axis, ndim - 1))


def _slice(x: Any, axis: int, start: int, stop: int) -> Any:
    if start == 0 and stop == x.shape[axis]:
        return x
    index = (slice(None),) * axis + (slice(start, stop),)
    if isinstance(x, _Variable):
        return functions.get_item(x, index)
    return x[index]


def vmap(f: Callable, in_axes: Axes = 0, out_axes: Axes = 0, *, batched: bool = False,
         chunk_size: Optional[int] = None) -> Callable:
    """Maps ``f`` over an axis of its arguments (``torch.func.vmap``, ``jax.vmap``).

    ``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``: the mapped axis of each argument is
    taken away, ``f`` sees one example at a time, and the results are stacked along
    ``out_axes``. So ``vmap(grad(loss), in_axes=(None, 0))(w, xs)`` gives one gradient per
    example, and compositions with every other transform are exact. Keyword arguments of the
    mapped function are passed to ``f`` unmapped, as torch does.

    By default it runs ``f`` once per example in a Python loop (correct for every ``f``).
    It calls ``f`` once on the whole batch instead when that is known to give the same
    result:

    * when ``f`` is a chainlite function with a batching rule, itself or a
      ``functools.partial`` of it with keyword settings (``partial(F.sum, axis=1)``):
      the elementwise functions of one argument (``F.sin``, ``F.exp``, ``F.relu``,
      ``F.tanh`` and the others listed in the guide); the broadcasting ones (``F.add``,
      ``F.maximum``, ``F.minimum``, ``F.where``, ``F.arctan2``, ``F.fmod``,
      ``F.squared_difference`` and ``operator.add``/``sub``/``mul``/``truediv``), any
      arguments mapped or not; the reductions (``F.sum``, ``F.mean``, ``F.max``,
      ``F.min``, ``F.prod``, ``F.logsumexp``) and the functions taking an axis or a shape
      (``F.softmax``, ``F.log_softmax``, ``F.cumsum``, ``F.cumprod``, ``F.transpose``,
      ``F.swapaxes``, ``F.moveaxis``, ``F.reshape``, ``F.flatten``, ``F.expand_dims``,
      ``F.squeeze``, ``F.broadcast_to``, ``F.concat``, ``F.stack``), each example's axes
      shifted past the batch axis; ``F.matmul`` and ``F.linear`` with the batch on either
      side or both. Where a rule cannot promise the loop's result (an axis out of range, a
      0-d example for a reduction), vmap loops and the function raises its own error;
    * when ``batched=True`` declares that ``f`` treats axis 0 of its mapped arguments as a
      batch axis (``f(xs)[i] == f(xs[i])``, the unmapped arguments broadcast).

    Then the mapped axes are moved to the front, ``f`` runs once (or once per
    ``chunk_size`` examples) and axis 0 of each output is moved to ``out_axes``. A lambda
    or a composition of functions is not looked into: it loops, unless ``batched=True``.

    Results are what ``f`` returns, stacked: Variables (linked to the arguments' graphs, so
    ``grad`` of a ``vmap`` works) when ``f`` returns Variables, arrays when it returns
    arrays. An output whose ``out_axes`` entry is None is returned once, not stacked; it
    must not depend on the mapped axis (torch raises then): vmap checks that its values are
    the same for every example.

    Args:
        f: A function of arrays or Variables (or tuples of them), returning an array or
            Variable or a tuple of them.
        in_axes: The axis to map over in each positional argument: an int for every
            argument, or a tuple with one entry per argument, each an int, None (not mapped,
            passed whole to every call) or, for a tuple argument, a tuple of entries.
        out_axes: Where the mapped axis goes in each output: an int or None, or a tuple
            with one entry per output.
        batched: Whether ``f`` is known to handle a leading batch axis itself (see above).
        chunk_size: With a batching rule or ``batched=True``, call ``f`` on at most this
            many examples at a time and concatenate (to bound memory, as torch's
            ``chunk_size``); None for all at once. The loop already runs one at a time.

    Returns:
        A function with ``f``'s arguments returning the stacked results.

    Raises:
        ValueError: If ``in_axes`` or ``out_axes`` do not match the arguments or outputs,
            name an axis out of range, no argument is mapped, the mapped axes differ in
            size, an output with ``out_axes`` None differs between examples, or
            ``chunk_size`` is not a positive int.

    Example:
        >>> import functools, numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> dot = lambda w, x: F.sum(w * x)
        >>> func.vmap(dot, in_axes=(None, 0))(np.array([1.0, 2.0]),
        ...                                   np.array([[1.0, 1.0], [3.0, 0.0]])).array
        array([3., 3.])
        >>> func.vmap(functools.partial(F.sum, axis=0))(np.ones((4, 2, 3))).shape
        (4, 3)
    """
    if chunk_size is not None and (isinstance(chunk_size, bool)
                                   or not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError('vmap: chunk_size must be a positive int or None; got %r'
                         % (chunk_size,))
    found = None if batched else _vmap_rules.find(f)

    def wrapped(*args, **kwargs):
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
        step = max(1, size if chunk_size is None else min(chunk_size, size))
        bounds = [(i, min(i + step, size)) for i in range(0, size, step)] or [(0, 0)]
        marks = [ax is not None for _, ax, _ in leaves]
        flags = [_rebuild(a, marks) for a in args]

        def call(start: int, stop: int) -> Any:
            front = [x if ax is None else _move(_slice(x, ax, start, stop), ax, 0)
                     for x, ax, _ in leaves]
            inputs = [_rebuild(a, front) for a in args]
            if batched:
                return f(*inputs, **kwargs)
            fn, rule, keywords = found  # type: ignore[misc]
            return _vmap_rules.apply(fn, rule, tuple(inputs), tuple(flags),
                                     dict(keywords, **kwargs), stop - start)

        if batched or found is not None:
            parts = [call(*bounds[0])]
            if parts[0] is not None:
                parts += [call(*b) for b in bounds[1:]]
                first = parts[0]
                axes = _out_axes(first, out_axes)
                if _is_leaf(first):
                    return _place(_concat(parts), axes[0], 0)
                return type(first)(_place(_concat([p[k] for p in parts]), a, k)
                                   for k, a in enumerate(axes))
        if size == 0:
            raise ValueError('vmap: the mapped axes have size 0; the loop has no example '
                             'to learn the output shape from')
        results = []
        for i in range(size):
            sliced = [x if ax is None else _take(x, ax, i) for x, ax, _ in leaves]
            results.append(f(*[_rebuild(a, sliced) for a in args], **kwargs))
        first = results[0]
        axes = _out_axes(first, out_axes)
        if _is_leaf(first):
            return _stack(results, axes[0], 0)
        return type(first)(_stack([r[k] for r in results], a, k) for k, a in enumerate(axes))

    return wrapped
