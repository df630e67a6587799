"""Call a function without keeping its graph; recompute it during backward."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, overload

import numpy

from chainlite import backprop
from chainlite import configuration
from chainlite import function_node
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _ordinal(n):
    # 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st
    if 10 <= n % 100 < 20:
        return '%dth' % n
    return '%d%s' % (n, {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th'))


def _call(func, xs):
    # func must return a Variable or a tuple of Variables; always hand back a tuple.
    outs = func(*xs)
    if isinstance(outs, variable.Variable):
        return (outs,)
    if isinstance(outs, tuple):
        for i, y in enumerate(outs):
            if not isinstance(y, variable.Variable):
                # Chainer's message names the element: '2nd element ... is int'.
                raise RuntimeError('forget: the %s element of the tuple the function returned '
                                   'is not a Variable but %s'
                                   % (_ordinal(i + 1), type(y).__name__))
        return outs
    raise RuntimeError('forget: the function must return a Variable or a tuple of Variables, '
                       'got %s' % type(outs).__name__)


def _captured_leaves(outs, stop):
    # The leaves that require a gradient (Parameters used inside func, typically) above the
    # recomputed outputs, not looking past the nodes in `stop` (func's own inputs).
    leaves, seen = [], set()
    stack = [y.node.creator_node for y in outs if y.node.creator_node is not None]
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        for n in f.inputs:
            if n in stop:
                continue
            if n.creator_node is not None:
                stack.append(n.creator_node)
            elif n.requires_grad and n not in leaves:
                leaves.append(n)
    return leaves


class Forget(function_node.FunctionNode):

    def __init__(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError('forget: func must be callable, got %s' % type(func).__name__)
        self.func = func

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with configuration.no_backprop_mode():
            outs = _call(self.func, [variable.Variable(x) for x in inputs])
        return tuple(y.array for y in outs)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        xs = self.get_retained_inputs()
        double = configuration.config.enable_backprop
        # For double backprop the recomputation starts from the real inputs, so that the
        # gradients returned depend on them; otherwise from fresh, detached copies.
        ins = xs if double else tuple(variable.Variable(x.array) for x in xs)
        with configuration.force_backprop_mode(), \
                configuration.using_config('in_recomputing', True):
            outs = _call(self.func, ins)
        if len(outs) != len(grad_outputs):
            raise RuntimeError('forget: the function returned %d outputs when recomputed, '
                               '%d the first time' % (len(outs), len(grad_outputs)))
        pairs = [(y, gy) for y, gy in zip(outs, grad_outputs) if gy is not None]
        ys = [y for y, _ in pairs]
        leaves = _captured_leaves(ys, {x.node for x in ins})
        targets = [ins[i] for i in indexes] + [n.get_variable() for n in leaves]
        grads = backprop.grad(ys, targets, [gy for _, gy in pairs],
                              enable_double_backprop=double)
        # The parameters func used get their gradients here, as backward() would give them.
        leaf_grads = {n: g for n, g in zip(leaves, grads[len(indexes):]) if g is not None}
        backprop._store_leaf_grads(leaf_grads, [], double, None)
        return tuple(grads[:len(indexes)])


@overload
def forget(func: Callable[..., Variable], *xs: VariableOrArray) -> Variable: ...


@overload
def forget(func: Callable[..., tuple[Variable, ...]],
           *xs: VariableOrArray) -> Variable | tuple[Variable, ...]: ...


def forget(func: Callable[..., Variable | tuple[Variable, ...]],
           *xs: VariableOrArray) -> Variable | tuple[Variable, ...]:
    """Calls ``func(*xs)`` without keeping its intermediate results; backward recomputes them.

    The forward runs ``func`` with backprop disabled, so none of the arrays it computes on the
    way are kept: only the inputs ``xs`` and the outputs are. When the gradient is needed,
    ``func`` runs again (with ``chainlite.config.in_recomputing`` set to True) to rebuild its
    graph, and the output gradients are backpropagated through it. Memory is traded for one
    extra forward. Parameters that ``func`` uses (the weights of a link called inside it)
    get their gradients accumulated in their ``grad`` during that backward.

    Differences from Chainer and caveats:

    - Double backprop works (Chainer refuses it): under ``enable_double_backprop`` the
      recomputation starts from the original inputs, so the returned gradients can be
      differentiated again.
    - The parameter gradients are accumulated in ``grad`` also when the outer call is
      :func:`chainlite.grad`, which otherwise leaves ``grad`` untouched (as in Chainer).
    - ``func`` must compute the same thing both times: random functions such as
      ``F.dropout`` draw a different mask on recomputation and give wrong gradients.
      Links that update state in forward should check ``config.in_recomputing``
      (``BatchNormalization`` does).

    Args:
        func: A callable taking Variables and returning a Variable or a tuple of Variables.
        *xs: Its arguments, Variables or arrays (arrays become Variables that require a
            gradient, so that this call is recorded in the graph).

    Returns:
        What ``func`` returns: a Variable, or a tuple of Variables.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> from chainlite.functions.array.forget import forget
        >>> x = chainlite.Variable(np.array([1.0, 2.0]))
        >>> y = forget(lambda a: F.sum(F.exp(a) * a), x)   # exp(a) is not kept
        >>> y.backward()
        >>> bool(np.allclose(x.grad, np.exp(x.array) * (1 + x.array)))
        True
    """
    xs = tuple(x if isinstance(x, variable.Variable) else
               variable.Variable(x, requires_grad=True) for x in xs)
    ys = Forget(func).apply(xs)
    return ys[0] if len(ys) == 1 else ys
