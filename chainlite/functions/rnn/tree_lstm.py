"""TreeLSTM cell: one LSTM step that merges the cell states of N children."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import variable
from chainlite.functions.activation import sigmoid as sigmoid_mod
from chainlite.functions.activation import tanh as tanh_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


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
