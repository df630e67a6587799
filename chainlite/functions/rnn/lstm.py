"""Long short-term memory cell as an activation function, with Chainer's gate layout."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions.activation import tanh as tanh_module
from chainlite.functions.array import concat
from chainlite.functions.array import reshape
from chainlite.functions.array import stack
from chainlite.functions.connection import linear
from chainlite.functions.math import matmul
from chainlite.functions.math import sum as sum_
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _interleaved_shape(x):
    # Chainer interleaves the gates unit by unit: column 4 * j + k is gate k (a, i, f, o) of
    # unit j, i.e. x seen as (B, N, 4, ...) has gate k at [:, :, k].
    return (x.shape[0], x.shape[1] // 4, 4) + tuple(x.shape[2:])


def _gates(x):
    # The four gates of x as views [:, :, k]; on arrays and on Variables.
    shape = _interleaved_shape(x)
    r = reshape.reshape(x, shape) if isinstance(x, variable.Variable) else x.reshape(shape)
    return [r[:, :, k] for k in range(4)]


def _activate(x):
    # The four gates activated, gate-major: a new (4, B, N, ...) array whose [k] is gate k
    # (a, i, f, o), contiguous, so that the cell's elementwise math runs over contiguous
    # memory (over the interleaved (B, N, 4) view, NumPy's loops take strided steps). The a
    # gates are tanh(v), the others sigmoid(v) = tanh(v / 2) / 2 + 1/2 (through tanh: no
    # overflow warning for large negative v).
    gates = _gate_major(x)
    act = backend.get_array_module(x).empty(gates.shape, x.dtype)
    sig = act[1:]
    numpy.multiply(gates[1:], 0.5, out=sig)
    numpy.tanh(sig, out=sig)
    sig *= 0.5
    sig += 0.5
    numpy.tanh(gates[0], out=act[0])
    return act


def _gate_major(x):
    # x's (B, 4 N, ...) interleaved gates seen as (4, B, N, ...): a view, no copy.
    shape = _interleaved_shape(x)
    return x.reshape(shape).transpose((2, 0, 1) + tuple(range(3, len(shape))))


def _sigmoid_variable(x):
    return tanh_module.tanh(x * 0.5) * 0.5 + 0.5


def _rows(v, n):
    # The first n rows of a Variable, without a node when that is all of them.
    return v if v.shape[0] == n else v[:n]


# -- Chainer's array helpers of the LSTM gradients ----------------------------------------------

def _extract_gates(x):
    # The four gates (a, i, f, o) of interleaved pre-activations, as a list of views.
    return _gates(x)


def _sigmoid(x, xp=numpy):
    # The logistic sigmoid of an array through tanh (no overflow), in x's dtype.
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


def _grad_sigmoid(x):
    # The sigmoid's derivative written with its value x = sigmoid(v).
    return x * (1 - x)


def _grad_grad_sigmoid(x):
    # The sigmoid's second derivative written with its value x.
    return x * (1 - x) * (1 - 2 * x)


def _grad_tanh(x):
    # tanh's derivative written with its value x = tanh(v).
    return 1 - x * x


def _grad_grad_tanh(x, gx):
    # tanh's second derivative from its value x and first derivative gx.
    return -2 * x * gx


def _cell_grads(c_prev, a, i, f, o, c, gc, gh):
    # The LSTM's first-order gradients (gc_prev, ga, gi, gf, go) from the gate
    # pre-activations, the new cell state c and the output gradients, on Variables.
    ta, si, sf, so = (tanh_module.tanh(a), _sigmoid_variable(i), _sigmoid_variable(f),
                      _sigmoid_variable(o))
    tc = tanh_module.tanh(c)
    gc_bar = gh * so * (1 - tc * tc) + gc
    return (gc_bar * sf, gc_bar * si * (1 - ta * ta), gc_bar * ta * si * (1 - si),
            gc_bar * c_prev * sf * (1 - sf), gh * tc * so * (1 - so))


def _second_order(formula, inputs, upstream):
    # The gradients of sum(formula(inputs) * upstream) with respect to every input, as
    # arrays of the inputs' shapes (an upstream of 0 stands for no gradient).
    xp = backend.get_array_module(*inputs)
    shape = numpy.broadcast_shapes(*(numpy.shape(v) for v in inputs))
    dtype = numpy.result_type(*[v.dtype for v in inputs if variable._is_array(v)])
    vs = [variable.Variable(xp.broadcast_to(xp.asarray(v, dtype), shape).copy())
          for v in inputs]
    with configuration.using_config('enable_backprop', True):
        outs = formula(*vs)
        gs = [xp.broadcast_to(xp.asarray(g, dtype), shape) for g in upstream]
        grads = backprop.grad(list(outs), vs, grad_outputs=gs)
    return [xp.zeros(shape, dtype) if g is None else g.array for g in grads]


def lstm_grad_grad(c_prev: Any, a: Any, i: Any, f: Any, o: Any, c: Any, gc: Any, gh: Any,
                   ggc_prev: Any, gga: Any, ggi: Any, ggf: Any, ggo: Any, gc_prev: Any, ga: Any,
                   gi: Any, gf: Any, go: Any, gc_next: Any, ggc: Any, ggh: Any) -> Any:
    """The second-order gradients of the LSTM cell, written into the given arrays.

    With ``(gc_prev, ga, gi, gf, go)`` the cell's first-order gradients as functions of
    ``(c_prev, a, i, f, o, c, gc, gh)`` (the gate pre-activations ``a, i, f, o``, the new cell
    state ``c``, the output gradients ``gc``, ``gh``), this computes the gradients of their
    sum weighted by ``(ggc_prev, gga, ggi, ggf, ggo)`` with respect to ``c_prev``, ``a``,
    ``i``, ``f``, ``o``, ``c``, ``gc`` and ``gh``, and writes them into the output arrays
    ``gc_prev, ga, gi, gf, go, gc_next, ggc, ggh`` in that order (Chainer's helper; any
    upstream gradient may be 0).

    Returns:
        The eight output arrays.

    Example:
        >>> import numpy as np
        >>> z = np.zeros((1, 1))
        >>> outs = [np.empty((1, 1)) for _ in range(8)]
        >>> _ = lstm_grad_grad(z, z, z, z, z, z, z, z + 1, z, z, z, z, z + 1, *outs)
        >>> outs[7]  # d(go)/d(gh) = tanh(c) * sigmoid'(o) = 0 at c = 0
        array([[0.]])
    """
    grads = _second_order(_cell_grads, (c_prev, a, i, f, o, c, gc, gh),
                          (ggc_prev, gga, ggi, ggf, ggo))
    outs = (gc_prev, ga, gi, gf, go, gc_next, ggc, ggh)
    for out, g in zip(outs, grads):
        out[...] = g
    return outs


class LSTM(function_node.FunctionNode):

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('c_prev', 'x'))
        c, x = in_types
        type_check.expect(
            c.dtype.kind == 'f',
            x.dtype == c.dtype,
            c.ndim >= 2,
            x.ndim == c.ndim,
            x.shape[0] <= c.shape[0],
            x.shape[1] == 4 * c.shape[1],
        )
        for d in range(2, type_check.eval(c.ndim)):
            type_check.expect(x.shape[d] == c.shape[d])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        c_prev, x = inputs
        batch = len(x)
        act = _activate(x)
        a, i, f, o = act
        if batch == len(c_prev):
            c = a * i
            c += f * c_prev
            tc = numpy.tanh(c)
        else:
            # Rows past the batch of x belong to sequences that ended: they keep their state.
            xp = backend.get_array_module(x)
            c = xp.empty_like(c_prev)
            c[:batch] = a * i + f * c_prev[:batch]
            c[batch:] = c_prev[batch:]
            tc = numpy.tanh(c[:batch])
        # The activated gates and tanh(c) spare backward from computing them again.
        self._act, self._tc = act, tc
        self.retain_outputs((0,))
        return c, o * tc

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        c_prev, x = self.get_retained_inputs()
        gc, gh = _grads_or_zeros(c_prev.array, len(x), *grad_outputs)
        act, tc = self._take_activations()
        return _LSTMGrad(self.output_data[0], act, tc).apply((c_prev, x, gc, gh))

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        c_prev, x = inputs
        gc, gh = _grads_or_zeros(c_prev, len(x), *grad_outputs)
        grads = _lstm_grads(c_prev, x, gc, gh, outputs[0], *self._take_activations())
        return tuple([grads[i] for i in indexes])

    def _take_activations(self):
        # The activated gates and tanh(c) that forward kept, handed over once (a second
        # backward recomputes them).
        act, tc = self._act, self._tc
        self._act = self._tc = None
        return act, tc


def _grads_or_zeros(c_prev, batch, gc, gh):
    # lstm's output gradients as arrays, zeros for an output that received none.
    if gc is None:
        gc = numpy.zeros_like(c_prev)
    if gh is None:
        gh = numpy.zeros_like(c_prev[:batch])
    return gc, gh


def _lstm_grads(c_prev, x, gc, gh, c_next, act, tc):
    # (gc_prev, gx) on arrays: the first-order gradients of lstm, from the activated gates
    # and tanh(c) that forward kept (recomputed when they are gone, as after a first backward).
    batch = len(x)
    if act is None or tc is None:
        act = _activate(x)
        tc = numpy.tanh(c_next[:batch])
    ta, si, sf, so = act
    gcb = gh * so
    gcb *= 1 - tc * tc
    gcb += gc[:batch]
    # Each gate's gradient is built in one contiguous scratch array and its last product is
    # written straight into gx's interleaved columns (a strided store costs little; a copy
    # from gate-major blocks into the interleaved layout afterwards cost ~25 us at (32, 512)).
    xp = backend.get_array_module(x)
    gx = xp.empty(x.shape, x.dtype)
    ga, gi, gf, go = _gates(gx)
    t = numpy.multiply(ta, ta)
    numpy.subtract(1, t, out=t)
    t *= si
    numpy.multiply(t, gcb, out=ga)
    numpy.subtract(1, si, out=t)
    t *= si
    t *= ta
    numpy.multiply(t, gcb, out=gi)
    numpy.subtract(1, sf, out=t)
    t *= sf
    t *= c_prev[:batch]
    numpy.multiply(t, gcb, out=gf)
    numpy.subtract(1, so, out=t)
    t *= so
    t *= tc
    numpy.multiply(t, gh, out=go)
    if batch == len(c_prev):
        gc_prev = gcb * sf
    else:
        gc_prev = xp.empty_like(c_prev)
        gc_prev[:batch] = gcb * sf
        gc_prev[batch:] = gc[batch:]
    return gc_prev, gx


class _LSTMGrad(function_node.FunctionNode):
    # (c_prev, x, gc, gh) -> (gc_prev, gx) in one node; the new cell state (and, from
    # forward, the activated gates and tanh of the cell state) are passed in as arrays to
    # save recomputing them, and rebuilt from the inputs in this node's backward.

    def __init__(self, c_next, act=None, tc=None):
        self.c_next = c_next
        self.act = act
        self.tc = tc

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3))
        c_prev, x, gc, gh = inputs
        act, tc = self.act, self.tc
        self.act = self.tc = None
        return _lstm_grads(c_prev, x, gc, gh, self.c_next, act, tc)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # With K = dL/dgcb and gC = dL/dc (c rebuilt from c_prev and x), the products below
        # are the derivatives of L = <ggc_prev, gc_prev> + <ggx, gx> by the chain rule.
        c_prev, x, gc, gh = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        batch, rows = x.shape[0], c_prev.shape[0]
        xp = backend.get_array_module(x.array)
        if ggc_prev is None:
            ggc_prev = xp.zeros_like(c_prev.array)
        if ggx is None:
            ggx = xp.zeros_like(x.array)
        cp = _rows(c_prev, batch)
        a, i, f, o = _gates(x)
        ta = tanh_module.tanh(a)
        si = _sigmoid_variable(i)
        sf = _sigmoid_variable(f)
        so = _sigmoid_variable(o)
        dta = 1 - ta * ta
        dsi = si * (1 - si)
        dsf = sf * (1 - sf)
        dso = so * (1 - so)
        tc = tanh_module.tanh(ta * si + sf * cp)
        dtc = 1 - tc * tc
        gcb = _rows(gc, batch) + gh * so * dtc
        gga, ggi, ggf, ggo = _gates(ggx)
        ggcp = ggc_prev if batch == rows else ggc_prev[:batch]

        K = ggcp * sf + gga * si * dta + ggi * ta * dsi + ggf * cp * dsf
        gC = gh * dtc * (ggo * dso - 2 * K * so * tc)
        g_cp = gC * sf + ggf * gcb * dsf
        g_a = dta * (gcb * (ggi * dsi - 2 * gga * si * ta) + gC * si)
        g_i = dsi * (gcb * (gga * dta + ggi * ta * (1 - 2 * si)) + gC * ta)
        g_f = dsf * (gcb * (ggcp + ggf * cp * (1 - 2 * sf)) + gC * cp)
        g_o = gh * dso * (K * dtc + ggo * tc * (1 - 2 * so))
        g_x = reshape.reshape(stack.stack([g_a, g_i, g_f, g_o], axis=2), x.shape)
        g_gc = K
        g_gh = K * so * dtc + ggo * tc * dso
        if batch < rows:
            rest = ggc_prev[batch:]
            g_cp = concat.concat([g_cp, xp.zeros_like(c_prev.array[batch:])], axis=0)
            g_gc = concat.concat([g_gc, rest], axis=0)
        return g_cp, g_x, g_gc, g_gh


class LSTMGrad:
    """The first-order gradients of :func:`lstm` as a differentiable function (Chainer's name).

    Called with ``(c_prev, x, c_next, gc, gh)``, where ``c_next`` is the cell state
    :func:`lstm` computed and ``gc``, ``gh`` the gradients of its outputs, it returns
    ``(gc_prev, gx)``. Unlike the node :func:`lstm` uses internally, ``c_next`` is an input
    here, so the result can be differentiated with respect to all five arguments.
    """

    def __call__(self, c_prev: Variable, x: VariableOrArray, c_next: Variable, gc: Variable,
                 gh: Variable) -> tuple[Variable, Variable]:
        x = variable.as_variable(x)
        batch, rows = x.shape[0], c_prev.shape[0]
        cp = c_prev if batch == rows else c_prev[:batch]
        a, i, f, o = _gates(x)
        ta = tanh_module.tanh(a)
        si, sf, so = _sigmoid_variable(i), _sigmoid_variable(f), _sigmoid_variable(o)
        tc = tanh_module.tanh(c_next if batch == rows else c_next[:batch])
        gcb = (gc if batch == rows else gc[:batch]) + gh * so * (1 - tc * tc)
        gates = [gcb * si * (1 - ta * ta), gcb * ta * si * (1 - si), gcb * cp * sf * (1 - sf),
                 gh * tc * so * (1 - so)]
        gx = reshape.reshape(stack.stack(gates, axis=2), x.shape)
        gc_prev = gcb * sf
        if batch < rows:
            gc_prev = concat.concat([gc_prev, gc[batch:]], axis=0)
        return gc_prev, gx


def lstm(c_prev: VariableOrArray, x: VariableOrArray) -> tuple[Variable, Variable]:
    """Long short-term memory unit with a forget gate, as an activation function.

    ``x`` holds the pre-activations of the four gates, interleaved unit by unit as in
    Chainer: column ``4 * j + k`` of ``x`` is gate ``k`` of unit ``j``, in the order
    ``a`` (cell input), ``i`` (input gate), ``f`` (forget gate), ``o`` (output gate); i.e.
    ``x.reshape(B, N, 4)[:, :, k]``. Then

        ``c = tanh(a) * sigmoid(i) + c_prev * sigmoid(f)``, ``h = tanh(c) * sigmoid(o)``.

    The batch of ``x`` may be smaller than that of ``c_prev`` (sequences sorted by decreasing
    length): only the first ``len(x)`` rows of the cell state are updated, the others are
    passed through unchanged, and ``h`` has ``len(x)`` rows.

    Args:
        c_prev: The previous cell state, a float Variable or array of shape ``(B, N, ...)``.
        x: The gate pre-activations, shape ``(B_x, 4 * N, ...)`` with ``B_x <= B`` and the
            dtype of ``c_prev``.

    Returns:
        A tuple ``(c, h)`` of Variables: the new cell state (the shape of ``c_prev``) and the
        output ``(B_x, N, ...)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> c, h = F.lstm(np.zeros((3, 2)), np.zeros((2, 8)))
        >>> c.shape, h.shape
        ((3, 2), (2, 2))
        >>> c, h = F.lstm(np.ones((1, 1)), np.array([[0.0, 0.0, 50.0, 0.0]]))
        >>> c.array  # tanh(0) * 0.5 + 1 * sigmoid(50)
        array([[1.]])
    """
    c, h = LSTM().apply((c_prev, x))
    return c, h


class _GateInputs(function_node.FunctionNode):
    # x @ Wu.T + h @ Wl.T + b: an LSTM layer's gate pre-activations in one node (two
    # products into one array) rather than two linear nodes and an addition.

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3))
        x, h, Wu, Wl, b = inputs
        z = x @ Wu.T
        z += h @ Wl.T
        z += b
        return z,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, h, Wu, Wl = self.get_retained_inputs()
        gz, = grad_outputs
        grads = {0: lambda: matmul.matmul(gz, Wu), 1: lambda: matmul.matmul(gz, Wl),
                 2: lambda: matmul.matmul(gz, x, transa=True),
                 3: lambda: matmul.matmul(gz, h, transa=True),
                 4: lambda: sum_.sum(gz, axis=0)}
        return tuple(grads[i]() for i in indexes)

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        # backward's products, on arrays. z is linear(x, Wu) + linear(h, Wl) + b, so each
        # gradient is one of linear's: of its data (inputs 0 and 1: linear's index 0) or
        # of its weight (inputs 2 and 3: linear's index 1).
        x, h, Wu, Wl = inputs[:4]
        gz = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 4:
                ret.append(linear._sum_rows(gz))
            else:
                data, W = (x, Wu) if i in (0, 2) else (h, Wl)
                ret.append(linear._linear_grads((0 if i < 2 else 1,), data, W, gz)[0])
        return tuple(ret)


def gate_inputs(x: VariableOrArray, h: VariableOrArray, Wu: VariableOrArray,
                Wl: VariableOrArray, b: VariableOrArray) -> Variable:
    """``x @ Wu.T + h @ Wl.T + b`` in one node: the gate pre-activations of an LSTM layer.

    What :class:`~chainlite.links.LSTM` computes with its ``upward`` and ``lateral`` links,
    done by one function node instead of three (it is called 35 times a step in a language
    model: the saved nodes are a visible part of its time). All five arguments must be
    2-D (``b`` 1-D) and share one dtype.

    Args:
        x: The input ``(B, I)``.
        h: The previous output ``(B, N)``.
        Wu: The input weights ``(4 N, I)``.
        Wl: The recurrent weights ``(4 N, N)``.
        b: The bias ``(4 N,)``.

    Returns:
        A Variable ``(B, 4 N)``.
    """
    return _GateInputs().apply((x, h, Wu, Wl, b))[0]
