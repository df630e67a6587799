"""Forward-mode differentiation (``jvp``) and the pullback as a function (``vjp``).

Chainer has neither; the names and return conventions follow JAX (``jax.jvp``, ``jax.vjp``).

How ``jvp`` works: the transpose trick through double backprop. For outputs ``y = f(x)``
and a dummy cotangent ``u`` (a Variable of zeros that requires a gradient), reverse mode
gives ``g(u) = J^T u`` as a recorded graph (``chainlite.grad(..., grad_outputs=u,
enable_double_backprop=True)``). ``g`` is linear in ``u``, so differentiating the scalar
``<g(u), v>`` with respect to ``u`` gives ``(J^T)^T v = J v``; the value of ``u`` never
matters, zeros are as good as anything.

Why this and not tangent rules per op: every chainlite function's ``backward`` is built
from differentiable functions (double backprop works everywhere), so this needs no per-op
code and covers all of ``chainlite.functions``, users' own FunctionNodes included, at once.
A second set of ~180 tangent rules would have to be written, tested and kept in step with
the backward rules. The price is time: one forward pass, one recorded backward pass and a
backward pass through that, about 2-3 backward passes' worth of work instead of the roughly
one forward pass that a true forward mode costs. Where the Jacobian is needed column by
column (``chainlite.func.jacfwd``), the first two passes are shared by all the columns.

A faster road for plain (array) results: when the results need no graph of their own, ``jvp``
instead pushes the tangents forward through the graph ``f`` recorded, function by function in
rank order. A function whose class defines ``_jvp(tangents)`` (array-level tangent rules
reading what the function retained for its backward: linear, matmul, the arithmetic, tanh,
sigmoid, relu, exp, reshapes) costs about one extra forward of itself; any other function,
users' own included, gets the same transpose trick applied to it alone, through its own
``backward``. So every function still works with no per-op code, and the common layers
cost what a true forward mode costs.

Return types (the same rule as :mod:`chainlite.func`): when backprop is enabled and some
primal is a Variable that requires a gradient, results are Variables linked to the primals'
graph, so they can be differentiated again (transforms compose); otherwise they are arrays.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import functions
from chainlite import variable
from chainlite.backends import cuda

_Variable = variable.Variable


def _asarray(a: Any, dtype: Any = None) -> Any:
    # numpy.asarray that leaves a GPU array on its device (GPU primals give GPU results).
    if cuda.is_gpu_array(a):
        return a if dtype is None else a.astype(dtype, copy=False)
    return numpy.asarray(a, dtype)


def _is_float(p: Any) -> bool:
    if isinstance(p, _Variable):
        return p.dtype.kind == 'f'
    if isinstance(p, (numpy.ndarray, numpy.floating)) or cuda.is_gpu_array(p):
        return p.dtype.kind == 'f'
    return isinstance(p, float)


def _wants_graph(primals: Sequence) -> bool:
    # "Variables in, Variables out": results keep a graph only when they can be used by one.
    return bool(configuration.config.enable_backprop) and any(
        isinstance(p, _Variable) and p.requires_grad and p.dtype.kind == 'f'
        for p in primals)


def _finish(v: Any, nested: bool) -> Any:
    """Turns a result into an array, or keeps it a Variable when ``nested``."""
    if isinstance(v, _Variable):
        # asarray: the core's gradient sums can leave a 0-d result as a NumPy scalar.
        return v if nested else _asarray(v.array)
    return v


def _as_primals(primals: Any, caller: str) -> tuple:
    """``(primals as a tuple, whether one array or Variable was given)``.

    As in ``torch.autograd.functional``, a single array or Variable is the one argument of
    ``f``; it is never iterated over (that would split it into rows).
    """
    if isinstance(primals, (tuple, list)):
        return tuple(primals), False
    if isinstance(primals, (_Variable, numpy.ndarray)) or cuda.is_gpu_array(primals):
        return (primals,), True
    raise TypeError('%s: primals must be a tuple or list of the arguments of f, or a single '
                    'array or Variable, got %s' % (caller, type(primals).__name__))


def _as_tangents(tangents: Any, single: bool) -> Any:
    # With a single primal, a lone tangent array stands for the one-entry tuple.
    if single and not isinstance(tangents, (tuple, list)):
        return (tangents,)
    return tangents


class _Linearization:
    """``f`` run once at ``primals``, with its Jacobian ready to be applied either way."""

    def __init__(self, f: Callable, primals: Sequence, caller: str = 'jvp') -> None:
        primals, self.single_primal = _as_primals(primals, caller)
        self.nested = _wants_graph(primals)
        self.primals = primals
        with configuration.using_config('enable_backprop', True):
            args = []
            self.xs = []        # the inner leaves, one per float primal
            self.x_index = []   # their primal positions
            for i, p in enumerate(self.primals):
                if not _is_float(p):
                    args.append(p)  # integers and other constants: passed as given
                    continue
                if isinstance(p, _Variable):
                    # identity() gives each primal a node of its own, linked to the outer
                    # graph only when results must carry it.
                    x = functions.identity(p) if self.nested and p.requires_grad \
                        else _Variable(p.array)
                else:
                    x = _Variable(_asarray(p))
                args.append(x)
                self.xs.append(x)
                self.x_index.append(i)
            out = f(*args)
        self.single = not isinstance(out, (tuple, list))
        self.outputs = (out,) if self.single else tuple(out)
        # The float Variable outputs are the differentiable ones; the rest are constants.
        self.y_index = [k for k, y in enumerate(self.outputs)
                        if isinstance(y, _Variable) and y.dtype.kind == 'f']
        self._us: Optional[list[variable.Variable]] = None
        self._gus: list[Optional[variable.Variable]] = []

    def pack(self, values: list) -> Any:
        return values[0] if self.single else tuple(values)

    def primal_out(self) -> Any:
        return self.pack([_finish(y, self.nested) for y in self.outputs])

    def _tangent(self, p: Any, x: _Variable, v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, _Variable):
            if v.shape != x.shape:
                raise ValueError('tangent of shape %s for a primal of shape %s'
                                 % (v.shape, x.shape))
            return v if v.dtype == x.dtype else functions.cast(v, x.dtype)
        v = _asarray(v, dtype=x.dtype)
        if v.shape != x.shape:
            raise ValueError('tangent of shape %s for a primal of shape %s'
                             % (v.shape, x.shape))
        return v

    def push(self, tangents: Sequence) -> Any:
        """Returns ``J v`` for input tangents ``v`` (one per primal; None means zero)."""
        tangents = _as_tangents(tangents, self.single_primal)
        if not isinstance(tangents, (tuple, list)) or len(tangents) != len(self.primals):
            raise ValueError('tangents must be a tuple or list with one entry per primal '
                             '(%d), got %r' % (len(self.primals), type(tangents).__name__))
        vs = [self._tangent(self.primals[i], x, tangents[i])
              for x, i in zip(self.xs, self.x_index)]
        ys = [self.outputs[k] for k in self.y_index]
        if not self.nested and not any(isinstance(v, _Variable) for v in vs):
            jv = _push_forward(self.xs, vs, ys)
            return self._pack_tangents(jv)
        with configuration.using_config('enable_backprop', True):
            us = self._us
            if us is None:
                us = self._us = [_Variable(numpy.zeros_like(y.array)) for y in ys]
                self._gus = backprop.grad(ys, self.xs, grad_outputs=us,
                                          enable_double_backprop=True) if ys else []
            s = None
            for g, v in zip(self._gus, vs):
                if g is None or v is None:
                    continue
                term = functions.sum(g * v)
                s = term if s is None else s + term
            jv = [None] * len(ys)
            if s is not None:
                jv = backprop.grad([s], us, enable_double_backprop=self.nested)
        return self._pack_tangents(jv)

    def _pack_tangents(self, jv: list) -> Any:
        res = []
        for k, y in enumerate(self.outputs):
            if k in self.y_index:
                t = jv[self.y_index.index(k)]
                if t is None:
                    t = numpy.zeros_like(y.array)
                    if self.nested:
                        t = _Variable(t, requires_grad=False)
                res.append(_finish(t, self.nested))
            elif _is_float(y):
                res.append(numpy.zeros_like(_asarray(y)))  # a float constant output
            else:
                res.append(None)
        return self.pack(res)

    def pull(self, cotangents: Any) -> tuple:
        """Returns ``J^T u`` for output cotangents ``u``, one entry per primal."""
        cots = (cotangents,) if self.single else cotangents
        if not isinstance(cots, (tuple, list)) or len(cots) != len(self.outputs):
            raise ValueError('cotangents must match the outputs of f: %s'
                             % ('one array' if self.single
                                else 'a tuple of %d' % len(self.outputs)))
        ys, seeds = [], []
        for k in self.y_index:
            u = cots[k]
            if u is None:
                continue
            y = self.outputs[k]
            if u.shape != y.shape:
                raise ValueError('cotangent of shape %s for an output of shape %s'
                                 % (u.shape, y.shape))
            if not isinstance(u, _Variable):
                u = _asarray(u, dtype=y.dtype)
            ys.append(y)
            seeds.append(u)
        gxs: list[Any] = [None] * len(self.xs)
        if ys:
            with configuration.using_config('enable_backprop', True):
                gxs = backprop.grad(ys, self.xs, grad_outputs=seeds,
                                    enable_double_backprop=self.nested)
        res = [None] * len(self.primals)
        for x, i, g in zip(self.xs, self.x_index, gxs):
            if g is None:
                g = _Variable(numpy.zeros_like(x.array), requires_grad=False)
            res[i] = _finish(g, self.nested)
        return tuple(res)

    def pull_like_primals(self, cotangents: Any) -> Any:
        """:meth:`pull`, with a single value when the primals were a single array."""
        res = self.pull(cotangents)
        return res[0] if self.single_primal else res


def jvp(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """Evaluates ``f`` and its Jacobian-vector product (forward mode).

    Args:
        f: A function of Variables built from chainlite functions. It takes
            ``len(primals)`` positional arguments and returns a Variable, or a tuple or list
            of Variables (arrays and other values in it are constants).
        primals: A tuple or list of the arguments: Variables, arrays or floats. Floating
            point ones are differentiated; any other argument (integer labels, indices,
            options) is passed to ``f`` as given and has no tangent. A single array or
            Variable is ``f``'s one argument (as in ``torch.autograd.functional``); any other
            non-sequence raises TypeError.
        tangents: A tuple or list with one entry per primal: an array (or Variable) of the
            primal's shape, or None, which means zero; entries for non-float primals are
            ignored. With a single-array ``primals``, a single array.

    Returns:
        ``(outputs, jvp_out)``: ``f(*primals)`` and ``J · tangents``, each a single value
        when ``f`` returns a single Variable and a tuple otherwise. An output that does not
        depend on the primals gets a zero tangent; a non-float output gets None. Values are
        arrays, or Variables linked to the primals' graph when backprop is enabled and some
        primal is a Variable that requires a gradient (see the module docstring).

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> y, t = chainlite.forward_mode.jvp(F.sin, (np.array([0.0, 1.0]),),
        ...                                   (np.array([1.0, 2.0]),))
        >>> bool(np.allclose(t, [1.0, 2 * np.cos(1.0)]))
        True
    """
    lin = _Linearization(f, primals, 'jvp')
    return lin.primal_out(), lin.push(tangents)


def vjp(f: Callable, primals: Sequence) -> tuple:
    """Evaluates ``f`` and returns its vector-Jacobian product as a function (reverse mode).

    Args:
        f: A function of Variables, as in :func:`jvp`.
        primals: A tuple or list of its arguments, as in :func:`jvp`.

    Returns:
        ``(outputs, vjp_fn)``. ``outputs`` is ``f(*primals)`` (a single value when ``f``
        returns a single Variable, else a tuple). ``vjp_fn(cotangents)`` takes cotangents
        shaped like ``outputs`` (None entries mean zero) and returns a tuple with one entry
        per primal: ``J^T · cotangents`` for float primals (zeros where a primal does not
        influence the outputs), None for the others; a single value when ``primals`` is a
        single array or Variable. It may be called many times. Arrays or Variables as in
        :func:`jvp`.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> y, vjp_fn = chainlite.forward_mode.vjp(lambda a, b: a * b,
        ...                                        (np.array([2.0]), np.array([3.0])))
        >>> vjp_fn(np.array([1.0]))
        (array([3.]), array([2.]))
    """
    lin = _Linearization(f, primals, 'vjp')
    return lin.primal_out(), lin.pull_like_primals


def _linearize(f: Callable, primals: Sequence) -> _Linearization:
    # For chainlite.func: one evaluation of f, then many products with its Jacobian.
    return _Linearization(f, primals)


def _push_forward(xs: list, vs: list, ys: list) -> list:
    """``J v`` by pushing tangent arrays through the recorded graph, function by function."""
    tangent = {x.node: v for x, v in zip(xs, vs) if v is not None}
    for f in backprop.functions_between([y.node for y in ys], [x.node for x in xs]):
        tin = tuple(tangent.get(n) for n in f.inputs or ())
        if all(t is None for t in tin):
            continue
        rule = getattr(f, '_jvp', None)
        touts = rule(tin) if rule is not None else _local_jvp(f, tin)
        for r, t in zip(f.outputs or (), touts):
            n = r()
            if n is not None and t is not None:
                tangent[n] = t
    return [tangent.get(y.node) for y in ys]


def _local_jvp(f: Any, tin: tuple) -> tuple:
    # The transpose trick on one function, through its own backward (which reads what the
    # function retained): J_f v = d/du <J_f^T u, v>.
    indexes = tuple(i for i, t in enumerate(tin) if t is not None)
    xp = backend.get_array_module(*tin)
    with configuration.using_config('enable_backprop', True):
        us = []
        for r in f.outputs:
            n = r()
            us.append(None if n is None else _Variable(xp.zeros(n.shape, n.dtype)))
        gxs = f.backward(indexes, tuple(us))
        if len(gxs) != len(indexes):
            gxs = tuple(gxs[i] for i in indexes)
        s = None
        for gx, i in zip(gxs, indexes):
            if gx is None:
                continue
            term = functions.sum(gx * tin[i])
            s = term if s is None else s + term
        live = [u for u in us if u is not None]
        if s is None or not live:
            return tuple(None for _ in us)
        grads = iter(backprop.grad([s], live))
    return tuple(None if u is None else _array_or_zeros(next(grads), u) for u in us)


def _array_or_zeros(g: Any, u: _Variable) -> numpy.ndarray:
    return numpy.zeros_like(u.array) if g is None else _asarray(g.array)
