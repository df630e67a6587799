"""Converters of the recurrent functions.

``n_step_lstm``, ``n_step_gru`` and ``n_step_rnn`` (and their bidirectional forms) are
compositions of smaller functions in chainlite. While :func:`~chainlite.onnx.export` runs
the model, they are replaced (see :mod:`chainlite.onnx.functions._recorded`) by wrappers
that record the whole recurrence as one :class:`NStepRNNNode`, which becomes ONNX's own
LSTM, GRU or RNN operator, one per layer. That fits when every time step has the whole
batch and no dropout runs between layers; otherwise the composition is recorded and
exported step by step.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions.rnn import lstm
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams

# kind -> (ONNX operator, weights per layer, order of the weights in ONNX's gate layout)
_LAYOUT = {
    # Chainer: W0..W3 = input, forget, cell input, output; ONNX: input, output, forget, cell.
    'lstm': ('LSTM', 8, [0, 3, 1, 2]),
    # Chainer: W0..W2 = reset, update, new; ONNX: update, reset, hidden.
    'gru': ('GRU', 6, [1, 0, 2]),
    'rnn': ('RNN', 2, [0]),
}


class NStepRNNNode(function_node.FunctionNode):
    """A whole stacked recurrence recorded as one node (only while exporting).

    The inputs are ``[hx] [cx] ws... bs... xs...`` flattened; the outputs
    ``hy [cy] ys...``. Its forward runs the chainlite function it stands for.
    """

    def __init__(self, kind: str, name: str, original: Callable[..., Any], n_layers: int,
                 directions: int, has_hx: bool, has_cx: bool, activation: Optional[str],
                 n_steps: int) -> None:
        self.kind = kind
        self.custom_function_node_name = name
        self.original = original
        self.n_layers = n_layers
        self.directions = directions
        self.has_hx = has_hx
        self.has_cx = has_cx
        self.activation = activation
        self.n_steps = n_steps

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        arrays = list(inputs)
        hx = arrays.pop(0) if self.has_hx else None
        cx = arrays.pop(0) if self.has_cx else None
        n_cells = self.n_layers * self.directions
        per = _LAYOUT[self.kind][1]
        ws = [arrays[k * per:(k + 1) * per] for k in range(n_cells)]
        arrays = arrays[n_cells * per:]
        bs = [arrays[k * per:(k + 1) * per] for k in range(n_cells)]
        xs = arrays[n_cells * per:]
        args = [self.n_layers, 0.0, hx] + ([cx] if self.kind == 'lstm' else []) + [ws, bs, xs]
        kwargs: dict[str, Any] = ({} if self.activation is None
                                  else {'activation': self.activation})
        with configuration.no_backprop_mode():
            out = self.original(*args, **kwargs)
        ys = out[-1]
        return tuple(v.array for v in out[:-1]) + tuple(y.array for y in ys)


def whole_recurrence(kind: str, name: str, original: Callable[..., Any],
                     directions: int) -> Callable[..., Any]:
    """Wraps ``original`` to record one :class:`NStepRNNNode` where ONNX's operator fits."""
    def wrapper(n_layers, dropout_ratio, hx, *rest, **kwargs):
        if kind == 'lstm':
            cx, ws, bs, xs = rest
        else:
            cx = None
            ws, bs, xs = rest
        activation = kwargs.get('activation', 'tanh') if kind == 'rnn' else None
        xs = list(xs)
        batches = {x.shape[0] for x in xs}
        if len(batches) != 1 or (dropout_ratio and configuration.config.train) or \
                activation not in (None, 'tanh', 'relu'):
            return original(n_layers, dropout_ratio, hx, *rest, **kwargs)
        node = NStepRNNNode(kind, name, original, n_layers, directions, hx is not None,
                            cx is not None, activation, len(xs))
        inputs = ([hx] if hx is not None else []) + ([cx] if cx is not None else [])
        inputs += [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k] + xs
        outs = node.apply([variable.as_variable(a) if not isinstance(a, variable.Variable)
                           else a for a in inputs])
        n_states = 2 if kind == 'lstm' else 1
        return tuple(outs[:n_states]) + (tuple(outs[n_states:]),)
    return wrapper


def _layer_params(gb, p, names, per, order, layer, directions, offset, op):
    # W, R and B of one layer in ONNX's layout (directions first, gates stacked).
    half = per // 2
    Ws, Rs, Bs = [], [], []
    for d in range(directions):
        k = layer * directions + d
        w = names['ws'][k]
        b = names['bs'][k]
        Ws.append(gb.op('Concat', [w[i] for i in order], axis=0))
        Rs.append(gb.op('Concat', [w[half + i] for i in order], axis=0))
        Bs.append(gb.op('Concat', [b[i] for i in order] + [b[half + i] for i in order],
                        axis=0))
    result = []
    for parts in (Ws, Rs, Bs):
        parts = [_ops.unsqueeze(gb, p.opset_version, n, [0]) for n in parts]
        result.append(parts[0] if len(parts) == 1 else gb.op('Concat', parts, axis=0))
    return result


@converter.onnx_chainer_signature
def convert_NStepRNN(p: FunctionConverterParams) -> tuple[Any, ...]:
    f = p.func
    op, per, order = _LAYOUT[f.kind]
    gb = onnx_helper.GraphBuilder()
    names = list(p.input_names)
    hx = names.pop(0) if f.has_hx else None
    cx = names.pop(0) if f.has_cx else None
    n_cells = f.n_layers * f.directions
    ws = [names[k * per:(k + 1) * per] for k in range(n_cells)]
    names = names[n_cells * per:]
    bs = [names[k * per:(k + 1) * per] for k in range(n_cells)]
    xs = names[n_cells * per:]
    # From the first weight, (hidden, in): the state outputs may be gone (`_, _, ys = ...`).
    hidden = int(p.input_shapes[int(f.has_hx) + int(f.has_cx)][0])
    batch = int(p.input_shapes[-1][0])
    dirs = f.directions
    # (T, dirs, B, H) transposed to (T, B, dirs, H), then (T, B, dirs * H): copying T and B
    # from the input keeps a symbolic batch.
    merged = ((len(xs), batch, dirs, hidden), (len(xs), batch, dirs * hidden))
    x = gb.op('Concat', [_ops.unsqueeze(gb, p.opset_version, n, [0]) for n in xs], axis=0)
    hys, cys = [], []
    y: Any = None
    for layer in range(f.n_layers):
        if layer:
            # (T, dirs, B, H) -> (T, B, dirs * H): the next layer's input.
            x = _ops.reshape_like(gb, gb.op('Transpose', [y], perm=[0, 2, 1, 3]), *merged)
        W, R, B = _layer_params(gb, p, {'ws': ws, 'bs': bs}, per, order, layer, dirs, 0, op)
        inputs = [x, W, R, B, '']
        rows = [layer * dirs, (layer + 1) * dirs]
        inputs.append('' if hx is None else _ops.slice_(gb, p.opset_version, hx, rows[:1],
                                                        rows[1:], [0]))
        if f.kind == 'lstm':
            inputs.append('' if cx is None else _ops.slice_(gb, p.opset_version, cx,
                                                            rows[:1], rows[1:], [0]))
        while inputs[-1] == '':
            inputs.pop()
        attrs: dict[str, Any] = dict(hidden_size=hidden,
                     direction='bidirectional' if dirs == 2 else 'forward')
        if f.kind == 'gru':
            attrs['linear_before_reset'] = 1
        if f.kind == 'rnn':
            attrs['activations'] = ['Relu' if f.activation == 'relu' else 'Tanh'] * dirs
        n_out = 3 if f.kind == 'lstm' else 2
        outs = gb.op(op, inputs, n_out, **attrs)
        y = outs[0]
        hys.append(outs[1])
        if f.kind == 'lstm':
            cys.append(outs[2])
    n_states = 2 if f.kind == 'lstm' else 1
    state_outs = p.output_names[:n_states]
    gb.op_output_named('Concat', hys, [state_outs[0]], axis=0)
    if f.kind == 'lstm':
        gb.op_output_named('Concat', cys, [state_outs[1]], axis=0)
    y = _ops.reshape_like(gb, gb.op('Transpose', [y], perm=[0, 2, 1, 3]), *merged)
    pieces = _ops.split(gb, p.opset_version, y, [1] * len(xs), 0)
    for piece, out in zip(pieces, p.output_names[n_states:]):
        _ops.squeeze(gb, p.opset_version, piece, [0], [out])
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_LSTM(p: FunctionConverterParams) -> tuple[Any, ...]:
    # c, h = lstm(c_prev, x): x holds the gates a, i, f, o interleaved unit by unit.
    gb = onnx_helper.GraphBuilder()
    c_prev, x = p.input_names[:2]
    c_shape, x_shape = p.input_shapes[:2]
    batch, units = int(x_shape[0]), int(x_shape[1]) // 4
    rest = tuple(int(d) for d in x_shape[2:])
    g = _ops.reshape_like(gb, x, x_shape, (batch, units, 4) + rest)
    a, i, f, o = _ops.split(gb, p.opset_version, g, [1, 1, 1, 1], 2)
    a, i, f, o = [_ops.squeeze(gb, p.opset_version, t, [2]) for t in (a, i, f, o)]
    a = gb.op('Tanh', [a])
    i, f, o = [gb.op('Sigmoid', [t]) for t in (i, f, o)]
    c_out, h_out = p.output_names
    if int(c_shape[0]) == batch:
        c = gb.op_output_named('Add', [gb.op('Mul', [a, i]), gb.op('Mul', [f, c_prev])],
                               [c_out])
        gb.op_output_named('Mul', [o, gb.op('Tanh', [c])], [h_out])
        return gb.nodes()
    # Rows past x's batch belong to finished sequences: they keep their state.
    head, tail = _ops.split(gb, p.opset_version, c_prev, [batch, int(c_shape[0]) - batch], 0)
    c_new = gb.op('Add', [gb.op('Mul', [a, i]), gb.op('Mul', [f, head])])
    gb.op_output_named('Concat', [c_new, tail], [c_out], axis=0)
    gb.op_output_named('Mul', [o, gb.op('Tanh', [c_new])], [h_out])
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_GateInputs(p: FunctionConverterParams) -> tuple[Any, ...]:
    # x @ Wu.T + b + h @ Wl.T (L.LSTM's gate inputs from the second step on): two Gemms,
    # the second adding the first.
    gb = onnx_helper.GraphBuilder()
    x, h, Wu, Wl, b = p.input_names[:5]
    z = gb.op('Gemm', [x, Wu, b], transB=1)
    gb.op_output_named('Gemm', [h, Wl, z], p.output_names, transB=1)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_n_step_gru(p: FunctionConverterParams) -> tuple[Any, ...]:
    """onnx_chainer's converter of ``n_step_gru``: the recorded GRU as ONNX GRU nodes."""
    if getattr(p.func, 'kind', None) != 'gru':
        raise ValueError('convert_n_step_gru: func must be a GRU recorded whole while '
                         'exporting (an NStepRNNNode of kind gru), got %s'
                         % type(p.func).__name__)
    return convert_NStepRNN(p)


CONVERTERS = {
    lstm.LSTM: convert_LSTM,
    lstm._GateInputs: convert_GateInputs,
    NStepRNNNode: convert_NStepRNN,
}
