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
                 out: Optional[list] = None, other: Optional[tuple] = None,
                 inputs: Sequence[tuple] = ()) -> Any:
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

    ``other`` is ``(in_shape, out_shape)`` of the same reshape in a run at larger symbolic
    sizes (:attr:`Context.shapes_at_other_size <chainlite.onnx.context.Context>`). If the
    shape above does not give that run's output too, the sizes that differ between the runs
    are written from the shapes of ``x`` and of the graph's ``inputs`` instead
    (:func:`reshape_following`).

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
    if other is not None and _reshaped(target, other[0]) != tuple(other[1]):
        return reshape_following(gb, x, (in_shape, out_shape), other, out, inputs)
    return reshape(gb, x, target, out)


def _reshaped(target: Sequence[int], in_shape: Sequence[int]) -> Optional[tuple]:
    # The output shape of ONNX's Reshape of an in_shape input to target (0 copies, -1
    # infers), or None where it would fail.
    sizes = [int(in_shape[i]) if t == 0 and i < len(in_shape) else int(t)
             for i, t in enumerate(target)]
    total = int(numpy.prod(in_shape, dtype=numpy.int64))
    known = int(numpy.prod([d for d in sizes if d != -1], dtype=numpy.int64))
    if sizes.count(-1) > 1 or (sizes.count(-1) == 0 and known != total):
        return None
    if -1 in sizes:
        if known == 0 or total % known:
            return None
        sizes[sizes.index(-1)] = total // known
    return tuple(sizes)


def reshape_following(gb: onnx_helper.GraphBuilder, x: str, first: tuple, second: tuple,
                      out: Optional[list] = None, inputs: Sequence[tuple] = ()) -> Any:
    """A Reshape that gives ``x`` the output shapes of two runs at different symbolic sizes.

    ``first`` and ``second`` are ``(in_shape, out_shape)`` of the same reshape in two runs
    of the model whose symbolic input sizes (a batch) differ. An output size equal in both
    is a constant. One that differs follows the symbolic sizes: it copies the input's size
    at the same axis (ONNX's 0), or a size that changed the same way read with ``Shape``
    from another axis of the input or of a graph input in ``inputs``; a single one left
    (or the only one that changed) is inferred (-1).

    Args:
        gb: The graph builder.
        x: The name of the input.
        first: ``(in_shape, out_shape)`` of the export's run.
        second: ``(in_shape, out_shape)`` of the run at larger symbolic sizes.
        out: The names of the output (None: a fresh one).
        inputs: ``(name, shape, shape at the larger sizes)`` of the graph's inputs.

    Raises:
        ValueError: If more than one output size follows the symbolic sizes without a size
            to copy (``(N * T, M)`` to ``(2 * N, T * M // 2)``), naming the function and
            the shapes of both runs.

    Example:
        >>> from onnx import numpy_helper
        >>> from chainlite.onnx import onnx_helper
        >>> onnx_helper.set_func_name('Reshape_0')
        >>> gb = onnx_helper.GraphBuilder()
        >>> _ = reshape_following(gb, 'x', ((10, 3), (2, 5, 3)), ((20, 3), (4, 5, 3)))
        >>> numpy_helper.to_array(gb.nodes()[0].attribute[0].t).tolist()
        [-1, 5, 3]
    """
    (in1, out1), (in2, out2) = [[tuple(int(d) for d in s) for s in pair]
                                for pair in (first, second)]
    shapes = [(x, in1, in2)] + [(name, tuple(a), tuple(b)) for name, a, b in inputs]
    # Each output axis: an int (a size, 0 or -1), (name, axis) for that value's size at that
    # axis, or None for a size that follows the symbolic ones with nothing to copy.
    parts: list = []
    for j, sizes in enumerate(zip(out1, out2)):
        sources = [(name, i) for name, a, b in shapes for i, pair in enumerate(zip(a, b))
                   if pair == sizes]
        if sizes[0] == sizes[1]:
            parts.append(sizes[0])
        elif (x, j) in sources:
            parts.append(0)
        else:
            parts.append(sources[0] if sources else None)
    left = [j for j, part in enumerate(parts) if part is None or isinstance(part, tuple)]
    if len(left) == 1:
        parts[left[0]] = -1
    else:
        left = [j for j in left if parts[j] is None]
        if len(left) == 1:
            parts[left[0]] = -1
        elif left:
            raise ValueError(
                'chainlite.onnx: cannot export %s, a reshape of %s to %s, with symbolic input '
                'sizes: in a second run at larger sizes it reshaped %s to %s, so output axes '
                '%s follow the symbolic sizes, and neither its input nor the graph\'s inputs '
                'have an axis of those sizes to copy (one such axis could be inferred as -1, '
                'not %d). Keep at most one output axis that mixes symbolic sizes, or declare '
                'the sizes it mixes fixed in input_shapes'
                % (onnx_helper.get_func_name(), in1, out1, in2, out2, left, len(left)))
    sizes_of = {name: (a, b) for name, a, b in shapes}
    for k, (ins, outs) in enumerate(((in1, out1), (in2, out2))):
        resolved = [sizes_of[p[0]][k][p[1]] if isinstance(p, tuple) else p for p in parts]
        assert _reshaped(resolved, ins) == outs, (parts, ins, outs)
    if not any(isinstance(p, tuple) for p in parts):
        return reshape(gb, x, parts, out)
    shape_of: dict = {}
    pieces: list = []
    run: list = []  # consecutive sizes, one Constant
    for p in parts + [None]:
        if isinstance(p, int):
            run.append(p)
            continue
        if run:
            pieces.append(ints(gb, run))
            run = []
        if p is not None:
            if p[0] not in shape_of:
                shape_of[p[0]] = gb.op('Shape', [p[0]])
            pieces.append(gb.op('Gather', [shape_of[p[0]], ints(gb, [p[1]])], axis=0))
    return _emit(gb, 'Reshape', [x, gb.op('Concat', pieces, axis=0)], out)


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
