"""S-LSTM cell: an LSTM step that merges two children (binary trees)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions import _vjp
from chainlite.functions.activation import sigmoid as sigmoid_mod
from chainlite.functions.activation import tanh as tanh_mod
from chainlite.functions.array import stack as stack_mod
from chainlite.functions.rnn import lstm as lstm_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _check(inputs):
    arrays = [v.array if isinstance(v, variable.Variable) else v for v in inputs]
    in_types = type_check.get_types(arrays, 'in_types', False)
    try:
        type_check.argname(in_types, ('c_prev1', 'c_prev2', 'x1', 'x2'))
        c1, c2, x1, x2 = in_types
        type_check.expect(
            c1.dtype.kind == 'f',
            c2.dtype == c1.dtype,
            x1.dtype == c1.dtype,
            x2.dtype == c1.dtype,
            c1.ndim >= 2,
            c2.ndim == c1.ndim,
            x1.ndim == c1.ndim,
            x2.ndim == c1.ndim,
            c2.shape[0] == c1.shape[0],
            x1.shape[0] == c1.shape[0],
            x2.shape[0] == c1.shape[0],
            x1.shape[1] == 4 * c1.shape[1],
            x2.shape[1] == 4 * c2.shape[1],
        )
        for d in range(2, type_check.eval(c1.ndim)):
            type_check.expect(c2.shape[d] == c1.shape[d], x1.shape[d] == c1.shape[d],
                              x2.shape[d] == c1.shape[d])
    except type_check.InvalidType as e:
        msg = 'Invalid operation is performed in: SLSTM (Forward)\n\n%s' % e
        raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None


def _interleave(gates, shape):
    # The inverse of lstm._gates: four (B, U, ...) blocks back into (B, 4 * U, ...).
    return stack_mod.stack(gates, axis=2).reshape(shape)


# Chainer's array helpers of the S-LSTM gradients: the LSTM's.
_extract_gates = lstm_mod._extract_gates
_sigmoid = lstm_mod._sigmoid
_grad_sigmoid = lstm_mod._grad_sigmoid
_grad_grad_sigmoid = lstm_mod._grad_grad_sigmoid
_grad_tanh = lstm_mod._grad_tanh
_grad_grad_tanh = lstm_mod._grad_grad_tanh


def _cell_grads(c_prev1, a1, i1, f1, c_prev2, a2, i2, f2, o, c, gc, gh):
    # The S-LSTM's first-order gradients (gc_prev1, ga1, gi1, gf1, go, gc_prev2, ga2, gi2,
    # gf2, go) from the pre-activations (o = o1 + o2), the new cell state c and the output
    # gradients, on Variables.
    so, tc = lstm_mod._sigmoid_variable(o), tanh_mod.tanh(c)
    gc_bar = gh * so * (1 - tc * tc) + gc
    go = gh * tc * so * (1 - so)
    out = []
    for c_prev, a, i, f in ((c_prev1, a1, i1, f1), (c_prev2, a2, i2, f2)):
        ta, si, sf = tanh_mod.tanh(a), lstm_mod._sigmoid_variable(i), \
            lstm_mod._sigmoid_variable(f)
        out += [gc_bar * sf, gc_bar * si * (1 - ta * ta), gc_bar * ta * si * (1 - si),
                gc_bar * c_prev * sf * (1 - sf), go]
    return out


def slstm_grad_grad(c_prev1: Any, a1: Any, i1: Any, f1: Any, c_prev2: Any, a2: Any, i2: Any,
                    f2: Any, o: Any, c: Any, gc: Any, gh: Any, ggc_prev1: Any, gga1: Any, ggi1: Any,
                    ggf1: Any, ggo1: Any, ggc_prev2: Any, gga2: Any, ggi2: Any, ggf2: Any,
                    ggo2: Any) -> Any:
    """The second-order gradients of the S-LSTM cell (Chainer's helper).

    With the cell's first-order gradients ``(gc_prev1, ga1, gi1, gf1, go1, gc_prev2, ga2,
    gi2, gf2, go2)`` as functions of the children's states and gate pre-activations, the
    shared output gate ``o = o1 + o2``, the new cell state ``c`` and the output gradients
    ``gc``, ``gh``, it returns the gradients of their sum weighted by the ``gg*`` arrays
    (any may be 0).

    Returns:
        ``(gc_prev1, ga1, gi1, gf1, go1, gc_prev2, ga2, gi2, gf2, go2, gc_next, ggc, ggh)``:
        the gradients with respect to ``c_prev1, a1, i1, f1``, the output gate (twice, once
        per child), ``c_prev2, a2, i2, f2``, ``c``, ``gc`` and ``gh``.

    Example:
        >>> import numpy as np
        >>> z = np.zeros((1, 1))
        >>> grads = slstm_grad_grad(*([z] * 11 + [z + 1]), *([z] * 10))
        >>> len(grads), float(grads[-1].sum())
        (13, 0.0)
    """
    upstream = (ggc_prev1, gga1, ggi1, ggf1, ggo1, ggc_prev2, gga2, ggi2, ggf2, ggo2)
    g = lstm_mod._second_order(_cell_grads,
                               (c_prev1, a1, i1, f1, c_prev2, a2, i2, f2, o, c, gc, gh),
                               upstream)
    go = g[8]
    return g[0], g[1], g[2], g[3], go, g[4], g[5], g[6], g[7], go, g[9], g[10], g[11]


class SLSTM(function_node.FunctionNode):
    """The S-LSTM cell as Chainer's node, applied to ``(c_prev1, c_prev2, x1, x2)``.

    It computes what :func:`slstm` does and returns ``(c, h)``; its gradients are
    differentiable again.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('c_prev1', 'c_prev2', 'x1', 'x2'))
        c1, c2, x1, x2 = in_types
        type_check.expect(
            c1.dtype.kind == 'f', c2.dtype == c1.dtype, x1.dtype == c1.dtype,
            x2.dtype == c1.dtype, c1.ndim >= 2, c1.ndim == c2.ndim, c1.ndim == x1.ndim,
            c1.ndim == x2.ndim, c1.shape[0] == x1.shape[0], c1.shape[0] == c2.shape[0],
            c1.shape[0] == x2.shape[0], x1.shape[1] == 4 * c1.shape[1],
            x2.shape[1] == 4 * c2.shape[1])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3))
        with configuration.using_config('enable_backprop', False):
            c, h = slstm(*inputs)
        return c.array, h.array

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _vjp.vjp(slstm, self.get_retained_inputs(), grad_outputs, indexes)


class SLSTMGrad:
    """The first-order gradients of :func:`slstm`, as a differentiable function (Chainer's name).

    Called with ``(c_prev1, c_prev2, x1, x2, c_next, gc, gh)``, where ``c_next`` is the cell
    state :func:`slstm` computed and ``gc``, ``gh`` the gradients of its outputs, it returns
    ``(gc_prev1, gc_prev2, gx1, gx2)``; being a composition, it is differentiable again.
    """

    def __call__(self, c_prev1: Variable, c_prev2: Variable, x1: VariableOrArray,
                 x2: VariableOrArray, c_next: Variable, gc: Variable,
                 gh: Variable) -> tuple[Variable, Variable, Variable, Variable]:
        gx = []
        gc_prev = []
        tc = tanh_mod.tanh(c_next)
        gates = [lstm_mod._gates(variable.as_variable(x)) for x in (x1, x2)]
        so = sigmoid_mod.sigmoid(gates[0][3] + gates[1][3])
        gc_bar = gh * so * (1 - tc * tc) + gc
        go = gh * tc * so * (1 - so)
        for (a, i, f, _), c_prev, x in zip(gates, (c_prev1, c_prev2), (x1, x2)):
            ta, si, sf = tanh_mod.tanh(a), sigmoid_mod.sigmoid(i), sigmoid_mod.sigmoid(f)
            gc_prev.append(gc_bar * sf)
            gx.append(_interleave([gc_bar * si * (1 - ta * ta), gc_bar * ta * si * (1 - si),
                                   gc_bar * c_prev * sf * (1 - sf), go], x.shape))
        return gc_prev[0], gc_prev[1], gx[0], gx[1]


def slstm(c_prev1: VariableOrArray, c_prev2: VariableOrArray, x1: VariableOrArray,
          x2: VariableOrArray) -> tuple[Variable, Variable]:
    """S-LSTM unit: one LSTM step over the two children of a binary tree node.

    ``x1`` and ``x2`` hold the gate pre-activations computed from each child, interleaved
    unit by unit as in :func:`~chainlite.functions.lstm` (column ``4 * j + k`` is gate ``k``
    of unit ``j``, gates ``a, i, f, o``). Then

        ``c = tanh(a1) sigmoid(i1) + tanh(a2) sigmoid(i2) + sigmoid(f1) c_prev1 +
        sigmoid(f2) c_prev2`` and ``h = sigmoid(o1 + o2) tanh(c)``.

    A composition of differentiable functions: differentiable to any order.

    Args:
        c_prev1: The first child's cell state, a float Variable or array ``(B, U, ...)``.
        c_prev2: The second child's cell state, of the same shape and dtype.
        x1: The first child's gate pre-activations ``(B, 4 * U, ...)``.
        x2: The second child's gate pre-activations ``(B, 4 * U, ...)``.

    Returns:
        A tuple ``(c, h)`` of Variables of shape ``(B, U, ...)``.

    Raises:
        InvalidType: For inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> c, h = F.slstm(np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 4)), np.zeros((1, 4)))
        >>> c.array  # tanh(0) * 0.5 * 2 + 0.5 * 1 * 2
        array([[1.]])
    """
    _check((c_prev1, c_prev2, x1, x2))
    a1, i1, f1, o1 = lstm_mod._gates(variable.as_variable(x1))
    a2, i2, f2, o2 = lstm_mod._gates(variable.as_variable(x2))
    c = (tanh_mod.tanh(a1) * sigmoid_mod.sigmoid(i1) + tanh_mod.tanh(a2) * sigmoid_mod.sigmoid(i2)
         + sigmoid_mod.sigmoid(f1) * c_prev1 + sigmoid_mod.sigmoid(f2) * c_prev2)
    h = sigmoid_mod.sigmoid(o1 + o2) * tanh_mod.tanh(c)
    return c, h

