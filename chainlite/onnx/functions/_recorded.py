"""Functions recorded as single nodes while exporting, and their converters.

Some chainlite functions leave no single node in the graph: ``n_step_lstm`` and its
relatives are compositions, and ``argmax``, ``argmin``, ``sign``, ``floor``, ``ceil`` and
``fix`` compute outside the graph. While :func:`~chainlite.onnx.export` runs the model,
:func:`recorded_functions` replaces them (in their modules and in
:mod:`chainlite.functions`) with wrappers that record one node, which a converter here or
in :mod:`~chainlite.onnx.functions.rnn` turns into ONNX's own operator. Likewise the zero
state that :class:`~chainlite.links.LSTM` and :class:`~chainlite.links.StatelessLSTM`
start from becomes a node computed from the input, so that its batch size follows the
input's rather than being a constant. Outside an export nothing changes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import contextlib

import numpy

from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.onnx import _deps
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops
from chainlite.onnx.functions import rnn

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


def _in_graph(x):
    return isinstance(x, variable.Variable) and x.requires_grad and \
        configuration.config.enable_backprop


class ArgIndexNode(function_node.FunctionNode):
    """``argmax``/``argmin`` recorded in the graph (only while exporting)."""

    def __init__(self, method, axis):
        self.method = method
        self.axis = axis
        self.custom_function_node_name = 'ArgMax' if method == 'argmax' else 'ArgMin'

    def forward(self, inputs):
        x, = inputs
        return numpy.asarray(getattr(x, self.method)(axis=self.axis)).astype(numpy.int32),


def _select_index(original):
    # argmax and argmin both call argmax._select_index at call time: replacing it catches
    # them however they were imported.
    def wrapper(x, axis, label, method):
        if _in_graph(x) and not isinstance(axis, (tuple, list)):
            original(x, axis, label, method)  # the argument checks
            return ArgIndexNode(method, axis).apply((x,))[0]
        return original(x, axis, label, method)
    return wrapper


class ElementwiseNode(function_node.FunctionNode):
    """``sign``, ``floor``, ``ceil`` or ``fix`` recorded in the graph (only while exporting)."""

    def __init__(self, label, ufunc):
        self.custom_function_node_name = label
        self.ufunc = ufunc

    def forward(self, inputs):
        x, = inputs
        return numpy.asarray(self.ufunc(x)),


def _elementwise(original):
    def wrapper(label, ufunc, x):
        if _in_graph(x):
            original(label, ufunc, x)  # the argument checks
            return ElementwiseNode(label, ufunc).apply((x,))[0]
        return original(label, ufunc, x)
    return wrapper


class ZeroStateNode(function_node.FunctionNode):
    """Zeros of shape ``(len(x), size)`` in ``x``'s dtype, recorded in the graph.

    Only while exporting: an LSTM link's initial state, which then follows the batch size
    of the exported model's input.
    """

    custom_function_node_name = 'ZeroState'

    def __init__(self, size):
        self.size = size

    def forward(self, inputs):
        x, = inputs
        return numpy.zeros((x.shape[0], self.size), dtype=x.dtype),


def _zero_state(original):
    # LSTMBase._zero_state(self, x).
    def wrapper(self, x):
        if _in_graph(x):
            return ZeroStateNode(self.state_size).apply((x,))[0]
        return original(self, x)
    return wrapper


@contextlib.contextmanager
def recorded_functions():
    """Inside the block, the functions above record one node each."""
    from chainlite import functions as F
    from chainlite.functions.math import _outside_graph
    from chainlite.functions.math import argmax as argmax_mod
    from chainlite.functions.rnn import n_step_gru
    from chainlite.functions.rnn import n_step_lstm
    from chainlite.functions.rnn import n_step_rnn
    from chainlite.links.rnn import lstm as lstm_links
    replacements: list[tuple[Any, str, Any]] = []  # (owner, attribute name, value)
    for module, name, kind, directions in (
            (n_step_lstm, 'n_step_lstm', 'lstm', 1), (n_step_lstm, 'n_step_bilstm', 'lstm', 2),
            (n_step_gru, 'n_step_gru', 'gru', 1), (n_step_gru, 'n_step_bigru', 'gru', 2),
            (n_step_rnn, 'n_step_rnn', 'rnn', 1), (n_step_rnn, 'n_step_birnn', 'rnn', 2)):
        wrapped = rnn.whole_recurrence(kind, name, getattr(module, name), directions)
        replacements += [(module, name, wrapped), (F, name, wrapped)]
    replacements.append((argmax_mod, '_select_index', _select_index(argmax_mod._select_index)))
    replacements.append((_outside_graph, 'elementwise',
                         _elementwise(_outside_graph.elementwise)))
    replacements.append((lstm_links.LSTMBase, '_zero_state',
                         _zero_state(lstm_links.LSTMBase._zero_state)))
    # Every original is read before anything is replaced: chainlite.functions resolves a
    # name on first use from its module, which by then could hold the wrapper (and the
    # wrapper would then be "restored" into chainlite.functions for good).
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in replacements]
    try:
        for owner, name, value in replacements:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def _arg_index(op_type):
    # The index as Chainer's argmax/argmin give it: int32, over the flattened array when
    # func.axis is None.
    def convert(p: FunctionConverterParams) -> tuple[Any, ...]:
        gb = onnx_helper.GraphBuilder()
        x = p.input_names[0]
        axis = p.func.axis
        if axis is None:
            x = _ops.reshape(gb, x, [-1])
            axis = 0
        i = gb.op(op_type, [x], axis=int(axis) % max(len(p.input_shapes[0]), 1), keepdims=0)
        gb.op_output_named('Cast', [i], p.output_names, to=_deps.onnx().TensorProto.INT32)
        return gb.nodes()
    convert.__name__ = 'convert_' + op_type
    return converter.onnx_chainer_signature(convert)


convert_ArgMax = _arg_index('ArgMax')
convert_ArgMin = _arg_index('ArgMin')


@converter.onnx_chainer_signature
def convert_ArgIndex(p: FunctionConverterParams) -> tuple[Any, ...]:
    return (convert_ArgMax if p.func.method == 'argmax' else convert_ArgMin)(p)


@converter.onnx_chainer_signature
def convert_Elementwise(p: FunctionConverterParams) -> tuple[Any, ...]:
    label = p.func.custom_function_node_name
    x = p.input_names[0]
    if label != 'fix':
        op = {'sign': 'Sign', 'floor': 'Floor', 'ceil': 'Ceil'}[label]
        return onnx_helper.make_node(op, [x], p.output_names),
    # fix rounds towards zero: ceil below zero, floor above.
    gb = onnx_helper.GraphBuilder()
    negative = gb.op('Less', [x, _ops.scalar(gb, 0, p.input_dtypes[0])])
    gb.op_output_named('Where', [negative, gb.op('Ceil', [x]), gb.op('Floor', [x])],
                       p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ZeroState(p: FunctionConverterParams) -> tuple[Any, ...]:
    # ConstantOfShape of [len(x), size]: the batch size read from x in the graph.
    onnx = _deps.onnx()
    gb = onnx_helper.GraphBuilder()
    shape = _ops.shape_with_head(gb, p.opset_version, p.input_names[0], 1, [p.func.size])
    zero = onnx.numpy_helper.from_array(numpy.zeros(1, p.output_dtypes[0]), 'zero')
    gb.op_output_named('ConstantOfShape', [shape], p.output_names, value=zero)
    return gb.nodes()


CONVERTERS = {
    ArgIndexNode: convert_ArgIndex,
    ElementwiseNode: convert_Elementwise,
    ZeroStateNode: convert_ZeroState,
}
