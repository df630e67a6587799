"""TreeLSTM cell: one LSTM step that merges the cell states of N children."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backprop
from chainlite import configuration
from chainlite import function
from chainlite import variable
from chainlite.functions.activation import sigmoid as sigmoid_mod
from chainlite.functions.activation import tanh as tanh_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _extract_gates(x, n_split=5):
    # x (B, n_split * U, ...) split into n_split blocks (B, U, ...) along axis 1: TreeLSTM
    # lays its gates out block by block (a, i, o, then one forget gate per child).
    r = x.reshape((x.shape[0], n_split, x.shape[1] // n_split) + x.shape[2:])
    return tuple(r[:, k] for k in range(n_split))


def _sigmoid(x):
    # The logistic sigmoid of an array through tanh (no overflow), in x's dtype.
    half = x.dtype.type(0.5)
    return numpy.tanh(x * half) * half + half


def _grad_sigmoid(x):
    # The sigmoid's derivative written with its value x = sigmoid(v).
    return x * (1 - x)


def _grad_tanh(x):
    # tanh's derivative written with its value x = tanh(v).
    return 1 - x * x


def _check(inputs):
    names = tuple('c%d' % (i + 1) for i in range(len(inputs) - 1)) + ('x',)
    arrays = [v.array if isinstance(v, variable.Variable) else v for v in inputs]
    in_types = type_check.get_types(arrays, 'in_types', False)
    try:
        type_check.argname(in_types, names)
        x_type = in_types[-1]
        n_ary = len(in_types) - 1
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)
        for c_type in in_types[:-1]:
            type_check.expect(
                c_type.dtype == x_type.dtype,
                c_type.ndim == x_type.ndim,
                c_type.shape[0] == x_type.shape[0],
                x_type.shape[1] == (3 + n_ary) * c_type.shape[1],
            )
            for d in range(2, type_check.eval(x_type.ndim)):
                type_check.expect(c_type.shape[d] == x_type.shape[d])
    except type_check.InvalidType as e:
        msg = 'Invalid operation is performed in: TreeLSTM (Forward)\n\n%s' % e
        raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None


class TreeLSTM(function.Function):
    """The TreeLSTM cell as Chainer's old-style function, ``TreeLSTM()(c_1, ..., c_N, x)``.

    It computes what :func:`tree_lstm` does and returns ``(c, h)``; as an old-style
    function its gradient is differentiable once.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() >= 2)
        c_types, x_type = in_types[:-1], in_types[-1]
        n_ary = len(c_types)
        type_check.expect(x_type.ndim >= 2)
        for c_type in c_types:
            type_check.expect(c_type.dtype.kind == 'f', x_type.dtype == c_type.dtype,
                              c_type.ndim >= 2, c_type.ndim == x_type.ndim,
                              x_type.shape[0] == c_type.shape[0],
                              x_type.shape[1] == (3 + n_ary) * c_type.shape[1])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        with configuration.using_config('enable_backprop', True):
            self._inputs = [variable.Variable(a) for a in inputs]
            self._outputs = tree_lstm(*self._inputs)
        return tuple(y.array for y in self._outputs)

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        pairs = [(y, g) for y, g in zip(self._outputs, grad_outputs) if g is not None]
        grads = backprop.grad([y for y, _ in pairs], self._inputs,
                              grad_outputs=[g for _, g in pairs])
        return tuple(None if g is None else g.array for g in grads)


def tree_lstm(*inputs: VariableOrArray) -> tuple[Variable, Variable]:
    """TreeLSTM unit: an LSTM step over ``N`` children, for N-ary and Child-Sum TreeLSTMs.

    The inputs are the children's cell states ``c_1, ..., c_N`` and ``x``, whose second axis
    is ``3 + N`` times that of each ``c_n``. ``x`` is split along that axis into
    ``a, i, o, f_1, ..., f_N`` in consecutive blocks (not interleaved as in
    :func:`~chainlite.functions.lstm`), and

        ``c = tanh(a) * sigmoid(i) + sum_n c_n * sigmoid(f_n)``, ``h = tanh(c) * sigmoid(o)``.

    A composition of differentiable functions, so it is differentiable to any order.

    Args:
        *inputs: ``c_1, ..., c_N, x``: float Variables or arrays of one dtype, each ``c_n``
            of shape ``(B, U, ...)`` and ``x`` of shape ``(B, (3 + N) * U, ...)``.

    Returns:
        A tuple ``(c, h)`` of Variables of shape ``(B, U, ...)``.

    Raises:
        InvalidType: For fewer than two inputs or inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> c1, c2 = np.ones((1, 2)), np.ones((1, 2))
        >>> x = np.zeros((1, 10))  # a, i, o, f1, f2: 2 units each
        >>> c, h = F.tree_lstm(c1, c2, x)
        >>> c.array  # 0 * 0.5 + 1 * 0.5 + 1 * 0.5
        array([[1., 1.]])
    """
    if len(inputs) < 2:
        raise type_check.InvalidType(
            'at least 2 inputs (c_1, ..., c_N, x)', '%d input(s)' % len(inputs),
            'Invalid operation is performed in: TreeLSTM (Forward)\n\n'
            'Expect: at least 2 inputs (c_1, ..., c_N, x)\nActual: %d input(s)' % len(inputs))
    _check(inputs)
    cs, x = inputs[:-1], variable.as_variable(inputs[-1])
    n_ary = len(cs)
    units = x.shape[1] // (3 + n_ary)
    gates = x.reshape((x.shape[0], 3 + n_ary, units) + x.shape[2:])
    a = tanh_mod.tanh(gates[:, 0])
    i = sigmoid_mod.sigmoid(gates[:, 1])
    o = sigmoid_mod.sigmoid(gates[:, 2])
    c = a * i
    for n, c_child in enumerate(cs):
        c = c + sigmoid_mod.sigmoid(gates[:, 3 + n]) * c_child
    h = o * tanh_mod.tanh(c)
    return c, h
