"""Opset-aware building blocks shared by the converters.

Several ONNX operators moved arguments from attributes to inputs over the years (Squeeze,
Unsqueeze, Split and ReduceSum at opset 13, the other reductions at 18, Pad at 11, Clip at
11, Slice at 10). These helpers take the opset and build whichever form it wants.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy

from chainlite.onnx import onnx_helper

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def ints(gb: onnx_helper.GraphBuilder, values: Sequence[int]) -> str:
    """A Constant node holding ``values`` as int64."""
    return gb.const(numpy.asarray(list(values), dtype=numpy.int64))


def requires(p: Any, opset: int, why: str = '') -> None:
    """Raises a clear error if the export's opset is older than ``opset``."""
    if p.opset_version < opset:
        raise ValueError('chainlite.onnx: exporting %s%s needs opset_version >= %d, got %d'
                         % (type(p.func).__name__, why, opset, p.opset_version))


def squeeze(gb: onnx_helper.GraphBuilder, opset: int, x: str, axes: Sequence[int],
            out: Optional[list] = None) -> Any:
    """Squeeze of ``axes``."""
    axes = [int(a) for a in axes]
    if opset >= 13:
        return _emit(gb, 'Squeeze', [x, ints(gb, axes)], out)
    return _emit(gb, 'Squeeze', [x], out, axes=axes)


def unsqueeze(gb: onnx_helper.GraphBuilder, opset: int, x: str, axes: Sequence[int],
              out: Optional[list] = None) -> Any:
    """Unsqueeze at ``axes`` (axes of the output)."""
    axes = [int(a) for a in axes]
    if opset >= 13:
        return _emit(gb, 'Unsqueeze', [x, ints(gb, axes)], out)
    return _emit(gb, 'Unsqueeze', [x], out, axes=axes)


def split(gb: onnx_helper.GraphBuilder, opset: int, x: str, sizes: Sequence[int], axis: int,
          out: Optional[list] = None) -> tuple:
    """Split along ``axis`` into pieces of the given sizes; always returns a tuple."""
    sizes = [int(s) for s in sizes]
    n = len(sizes)
    if n == 1:
        return (_emit(gb, 'Identity', [x], out),)
    if opset >= 13:
        res = _emit(gb, 'Split', [x, ints(gb, sizes)], out, n, axis=axis)
    else:
        res = _emit(gb, 'Split', [x], out, n, axis=axis, split=sizes)
    return tuple(res)


def reduce(gb: onnx_helper.GraphBuilder, opset: int, op: str, x: str, axes: Optional[Sequence[int]],
           keepdims: bool, out: Optional[list] = None) -> Any:
    """``Reduce<op>`` over ``axes`` (None: all axes)."""
    kd = 1 if keepdims else 0
    moved = 13 if op == 'ReduceSum' else 18
    if axes is None:
        return _emit(gb, op, [x], out, keepdims=kd)
    axes = [int(a) for a in axes]
    if opset >= moved:
        return _emit(gb, op, [x, ints(gb, axes)], out, keepdims=kd)
    return _emit(gb, op, [x], out, axes=axes, keepdims=kd)


def slice_(gb: onnx_helper.GraphBuilder, opset: int, x: str, starts: Sequence[int],
           ends: Sequence[int], axes: Sequence[int], steps: Optional[Sequence[int]] = None,
           out: Optional[list] = None) -> Any:
    """Slice; steps other than 1 need opset 10."""
    starts, ends, axes = [list(map(int, v)) for v in (starts, ends, axes)]
    if opset >= 10:
        inputs = [x, ints(gb, starts), ints(gb, ends), ints(gb, axes)]
        if steps is not None:
            inputs.append(ints(gb, steps))
        return _emit(gb, 'Slice', inputs, out)
    if steps is not None and any(s != 1 for s in steps):
        raise ValueError('chainlite.onnx: a slice with a step other than 1 needs '
                         'opset_version >= 10')
    return _emit(gb, 'Slice', [x], out, starts=starts, ends=ends, axes=axes)


def clip(gb: onnx_helper.GraphBuilder, opset: int, x: str, lo: Optional[float], hi: Optional[float],
         dtype: DTypeSpec, out: Optional[list] = None) -> Any:
    """Clip to ``[lo, hi]`` (None: unbounded on that side)."""
    if opset >= 11:
        inputs = [x, '' if lo is None else gb.const(numpy.asarray(lo, dtype)),
                  '' if hi is None else gb.const(numpy.asarray(hi, dtype))]
        while inputs[-1] == '':
            inputs.pop()
        return _emit(gb, 'Clip', inputs, out)
    attrs: dict[str, Any] = {}
    if lo is not None:
        attrs['min'] = float(lo)
    if hi is not None:
        attrs['max'] = float(hi)
    return _emit(gb, 'Clip', [x], out, **attrs)


def pad(gb: onnx_helper.GraphBuilder, opset: int, x: str, pads: Sequence[int],
        mode: str = 'constant', value: float = 0, dtype: DTypeSpec = numpy.float32,
        out: Optional[list] = None) -> Any:
    """Pad with ONNX's ``pads`` (all begins, then all ends)."""
    pads = [int(v) for v in pads]
    if opset >= 11:
        inputs = [x, ints(gb, pads)]
        if mode == 'constant' and value != 0:
            inputs.append(gb.const(numpy.asarray(value, dtype)))
        return _emit(gb, 'Pad', inputs, out, mode=mode)
    return _emit(gb, 'Pad', [x], out, mode=mode, pads=pads, value=float(value))


def reshape(gb: onnx_helper.GraphBuilder, x: str, shape: Sequence[int],
            out: Optional[list] = None) -> Any:
    """Reshape to a static shape."""
    return _emit(gb, 'Reshape', [x, ints(gb, shape)], out)


def reshape_like(gb: onnx_helper.GraphBuilder, x: str, in_shape: Sequence[int],
                 out_shape: Sequence[int], requested: Optional[Sequence[int]] = None,
                 out: Optional[list] = None) -> Any:
    """Reshape from ``in_shape`` to ``out_shape`` in a form that follows a symbolic batch.

    The recorded shapes say what the example did; the Reshape's shape is written so that
    the same node also fits other sizes of the input's leading (batch) axis:

    - leading sizes that equal the input's become 0 (ONNX: "copy that axis");
    - a -1 of ``requested`` (the shape the model asked for) stays;
    - without one, if a single size is left between those leading sizes and the trailing
      sizes equal to the input's, it becomes -1 (a flatten such as ``(N, C, H, W)`` to
      ``(N, C * H * W)`` is written ``[0, -1]``).

    For the recorded shapes the result is the same as a Reshape to ``out_shape``. A zero
    size anywhere leaves ``out_shape`` as it is (0 and -1 would be ambiguous).

    Example:
        >>> from onnx import numpy_helper
        >>> from chainlite.onnx import onnx_helper
        >>> onnx_helper.set_func_name('Reshape_0')
        >>> gb = onnx_helper.GraphBuilder()
        >>> _ = reshape_like(gb, 'x', (2, 8, 4, 4), (2, 128))
        >>> numpy_helper.to_array(gb.nodes()[0].attribute[0].t).tolist()
        [0, -1]
    """
    in_shape = [int(d) for d in in_shape]
    target = [int(d) for d in (out_shape if requested is None else requested)]
    if 0 in in_shape or 0 in [int(d) for d in out_shape]:
        return reshape(gb, x, out_shape, out)
    n = min(len(in_shape), len(target))
    lead = 0
    while lead < n and target[lead] == in_shape[lead]:
        lead += 1
    if -1 not in target:
        tail = 0
        while tail < n - lead and target[-1 - tail] == in_shape[-1 - tail]:
            tail += 1
        if len(target) - lead - tail == 1:
            target[lead] = -1
    target[:lead] = [0] * lead
    return reshape(gb, x, target, out)


def shape_head(gb: onnx_helper.GraphBuilder, opset: int, x: str, n: int) -> str:
    """The sizes of ``x``'s first ``n`` axes, computed in the graph (an int64 vector)."""
    return slice_(gb, opset, gb.op('Shape', [x]), [0], [n], [0])


def shape_with_head(gb: onnx_helper.GraphBuilder, opset: int, x: str, n: int,
                    rest: Sequence[int]) -> str:
    """An int64 shape: the sizes of ``x``'s first ``n`` axes (from the graph), then ``rest``.

    A shape built this way follows a symbolic batch axis where a constant would fix it.
    """
    return gb.op('Concat', [shape_head(gb, opset, x, n), ints(gb, rest)], axis=0)


def scalar(gb: onnx_helper.GraphBuilder, value: Any, dtype: DTypeSpec) -> str:
    """A 0-d Constant of ``dtype``."""
    return gb.const(numpy.asarray(value, dtype=dtype))


def _emit(gb: onnx_helper.GraphBuilder, op: str, inputs: list, out: Optional[list],
          num_outputs: int = 1, **attrs: Any) -> Any:
    if out is None:
        return gb.op(op, inputs, num_outputs, **attrs)
    return gb.op_output_named(op, inputs, out, **attrs)
