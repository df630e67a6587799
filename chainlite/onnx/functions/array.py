"""Converters of the array functions.

Functions that only move data around (reshape, squeeze, broadcast_to...) know the shapes
of their recorded inputs and outputs. Where the ONNX operator takes a shape, the
converters write it so that it also fits other sizes of a symbolic batch axis (see
:func:`~chainlite.onnx.functions._ops.reshape_like`); the recorded shapes give the same
result.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import variable
from chainlite.functions.array import broadcast
from chainlite.functions.array import cast
from chainlite.functions.array import concat
from chainlite.functions.array import copy
from chainlite.functions.array import depth2space
from chainlite.functions.array import dstack
from chainlite.functions.array import expand_dims
from chainlite.functions.array import flip
from chainlite.functions.array import fliplr
from chainlite.functions.array import flipud
from chainlite.functions.array import get_item
from chainlite.functions.array import hstack
from chainlite.functions.array import moveaxis
from chainlite.functions.array import pad
from chainlite.functions.array import permutate
from chainlite.functions.array import repeat
from chainlite.functions.array import reshape
from chainlite.functions.array import resize_images
from chainlite.functions.array import rollaxis
from chainlite.functions.array import select_item
from chainlite.functions.array import separate
from chainlite.functions.array import space2depth
from chainlite.functions.array import split_axis
from chainlite.functions.array import squeeze
from chainlite.functions.array import stack
from chainlite.functions.array import sum_to
from chainlite.functions.array import swapaxes
from chainlite.functions.array import tile
from chainlite.functions.array import transpose
from chainlite.functions.array import transpose_sequence
from chainlite.functions.array import vstack
from chainlite.functions.array import where
from chainlite.onnx import converter
from chainlite.onnx import onnx_helper
from chainlite.onnx.functions import _ops

if TYPE_CHECKING:
    from chainlite.onnx.converter import FunctionConverterParams


@converter.onnx_chainer_signature
def convert_Reshape(p: FunctionConverterParams) -> tuple[Any, ...]:
    # The shape as the model asked for it: a -1 stays -1, so that (-1, 128) follows the
    # batch; leading sizes equal to the input's (len(x) in (len(x), -1), or Linear's
    # flatten of (N, C, H, W) into (N, C * H * W)) are copied from the input.
    gb = onnx_helper.GraphBuilder()
    requested = getattr(p.func, 'shape', None)  # (a replace_func node may have none)
    requested = tuple(requested) if isinstance(requested, (tuple, list)) else ()
    # In an export with symbolic sizes, the same reshape in a run at larger sizes.
    other = getattr(p.context, 'shapes_at_other_size', {}).get(id(p.func))
    _ops.reshape_like(gb, p.input_names[0], p.input_shapes[0], p.output_shapes[0],
                      requested if -1 in requested else None, p.output_names,
                      None if other is None or other[1][0] is None
                      else (other[0][0], other[1][0]),
                      getattr(p.context, 'symbolic_inputs', ()))
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Transpose(p: FunctionConverterParams) -> tuple[Any, ...]:
    axes = p.func.axes
    ndim = len(p.input_shapes[0])
    perm = list(range(ndim))[::-1] if axes is None else [int(a) % ndim for a in axes]
    return onnx_helper.make_node('Transpose', p.input_names, p.output_names, perm=perm),


@converter.onnx_chainer_signature
def convert_permutation(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Moveaxis and Rollaxis know their permutation for an input of ndim axes.
    perm = [int(a) for a in p.func._permutation(len(p.input_shapes[0]))]
    return onnx_helper.make_node('Transpose', p.input_names, p.output_names, perm=perm),


@converter.onnx_chainer_signature
def convert_Swapaxes(p: FunctionConverterParams) -> tuple[Any, ...]:
    perm = list(range(len(p.input_shapes[0])))
    a, b = p.func.axis1, p.func.axis2
    perm[a], perm[b] = perm[b], perm[a]
    return onnx_helper.make_node('Transpose', p.input_names, p.output_names, perm=perm),


@converter.onnx_chainer_signature
def convert_Concat(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('Concat', p.input_names, p.output_names, axis=p.func.axis),


@converter.onnx_chainer_signature
def convert_Join(p: FunctionConverterParams) -> tuple[Any, ...]:
    # hstack, vstack and dstack: promote the inputs to the rank NumPy gives them, then concat.
    out_ndim = len(p.output_shapes[0])
    axis = {'hstack': 0 if out_ndim == 1 else 1, 'vstack': 0, 'dstack': 2}[p.func._name]
    gb = onnx_helper.GraphBuilder()
    names = []
    for name, shape in zip(p.input_names, p.input_shapes):
        axes = _join_axes(p.func._name, len(shape))
        names.append(_ops.unsqueeze(gb, p.opset_version, name, axes) if axes else name)
    gb.op_output_named('Concat', names, p.output_names, axis=axis)
    return gb.nodes()


def _join_axes(kind, ndim):
    # The unit axes NumPy adds to an input of ndim axes (axes of the promoted input).
    if kind == 'hstack':
        return [] if ndim else [0]
    if kind == 'vstack':
        return [[0, 1], [0]][ndim] if ndim < 2 else []
    return [[0, 1, 2], [0, 2], [2]][ndim] if ndim < 3 else []


@converter.onnx_chainer_signature
def convert_SplitAxis(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    axis = p.func.axis
    sizes = [s[axis] for s in p.output_shapes]
    _ops.split(gb, p.opset_version, p.input_names[0], sizes, axis, p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Separate(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    axis = p.func.axis
    n = p.input_shapes[0][axis]
    pieces = _ops.split(gb, p.opset_version, p.input_names[0], [1] * n, axis)
    for piece, out in zip(pieces, p.output_names):
        _ops.squeeze(gb, p.opset_version, piece, [axis], [out])
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Stack(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    axis = p.func.axis
    names = [_ops.unsqueeze(gb, p.opset_version, n, [axis]) for n in p.input_names]
    gb.op_output_named('Concat', names, p.output_names, axis=axis)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ExpandDims(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    axis = p.func.axis
    ndim = len(p.output_shapes[0])
    _ops.unsqueeze(gb, p.opset_version, p.input_names[0], [axis % ndim], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Squeeze(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    shape = p.input_shapes[0]
    axis = p.func.axis
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        scalar = numpy.isscalar(axis)  # a bool: the TypeGuard would narrow to types int() rejects
        axes = [int(a) % len(shape) for a in ((axis,) if scalar else axis)]
    if not axes:
        gb.op_output_named('Identity', p.input_names, p.output_names)
    else:
        _ops.squeeze(gb, p.opset_version, p.input_names[0], axes, p.output_names)
    return gb.nodes()


def _expand_shape(in_shape, out_shape):
    # Expand broadcasts both ways: 1 where the input already has the output's size keeps
    # the input's (perhaps symbolic) size there.
    in_shape = (1,) * (len(out_shape) - len(in_shape)) + tuple(in_shape)
    return [1 if i == o else int(o) for i, o in zip(in_shape, out_shape)]


@converter.onnx_chainer_signature
def convert_BroadcastTo(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    shape = _expand_shape(p.input_shapes[0], p.output_shapes[0])
    gb.op_output_named('Expand', [p.input_names[0], _ops.ints(gb, shape)], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Broadcast(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Each input expanded by the shapes of the inputs that differ from it: their common
    # shape, computed in the graph.
    gb = onnx_helper.GraphBuilder()
    shapes = [tuple(s) for s in p.input_shapes]
    for i, (name, out) in enumerate(zip(p.input_names, p.output_names)):
        others = [n for n, s in zip(p.input_names, shapes) if s != shapes[i]]
        if tuple(p.output_shapes[i]) == shapes[i] or not others:
            gb.op_output_named('Identity', [name], [out])
            continue
        for k, other in enumerate(others):
            shape = gb.op('Shape', [other])
            if k == len(others) - 1:
                gb.op_output_named('Expand', [name, shape], [out])
            else:
                name = gb.op('Expand', [name, shape])
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_SumTo(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    in_shape, out_shape = tuple(p.input_shapes[0]), tuple(p.output_shapes[0])
    lead = len(in_shape) - len(out_shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(out_shape)
                                if d == 1 and in_shape[lead + i] != 1]
    if not axes:
        gb.op_output_named('Identity', p.input_names, p.output_names)
        return gb.nodes()
    if not lead:
        _ops.reduce(gb, p.opset_version, 'ReduceSum', p.input_names[0], axes, True,
                    p.output_names)
        return gb.nodes()
    s = _ops.reduce(gb, p.opset_version, 'ReduceSum', p.input_names[0], axes, True)
    _ops.squeeze(gb, p.opset_version, s, range(lead), p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Cast(p: FunctionConverterParams) -> tuple[Any, ...]:
    onnx = _onnx()
    to = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(p.output_dtypes[0]))
    return onnx_helper.make_node('Cast', p.input_names, p.output_names, to=to),


def _onnx():
    from chainlite.onnx import _deps
    return _deps.onnx()


@converter.onnx_chainer_signature
def convert_Copy(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('Identity', p.input_names, p.output_names),


@converter.onnx_chainer_signature
def convert_Depth2Space(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('DepthToSpace', p.input_names, p.output_names,
                                 blocksize=int(p.func.r)),


@converter.onnx_chainer_signature
def convert_Space2Depth(p: FunctionConverterParams) -> tuple[Any, ...]:
    return onnx_helper.make_node('SpaceToDepth', p.input_names, p.output_names,
                                 blocksize=int(p.func.r)),


@converter.onnx_chainer_signature
def convert_Tile(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    shape = tuple(p.input_shapes[0])
    reps = p.func.reps
    scalar = numpy.isscalar(reps)  # a bool: the TypeGuard would narrow to types int() rejects
    reps = (int(reps),) if scalar else tuple(int(r) for r in reps)
    ndim = max(len(shape), len(reps))
    x = p.input_names[0]
    if len(shape) < ndim:
        x = _ops.unsqueeze(gb, p.opset_version, x, range(ndim - len(shape)))
    reps = (1,) * (ndim - len(reps)) + reps
    gb.op_output_named('Tile', [x, _ops.ints(gb, reps)], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Repeat(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    x = p.input_names[0]
    shape = tuple(p.input_shapes[0])
    axis = p.func.axis
    if axis is None:
        x = _ops.reshape(gb, x, [-1])
        shape = (int(numpy.prod(shape)),)
        axis = 0
    repeats = [int(r) for r in p.func.repeats]
    if len(repeats) == 1:
        # Each element k times: add an axis after `axis`, tile it, merge the two.
        k = repeats[0]
        u = _ops.unsqueeze(gb, p.opset_version, x, [axis + 1])
        reps = [1] * (len(shape) + 1)
        reps[axis + 1] = k
        t = gb.op('Tile', [u, _ops.ints(gb, reps)])
        tiled = shape[:axis + 1] + (k,) + shape[axis + 1:]
        _ops.reshape_like(gb, t, tiled, p.output_shapes[0], out=p.output_names)
        return gb.nodes()
    # One count per element: gather each index as often as it is repeated.
    index = numpy.repeat(numpy.arange(shape[axis]), repeats).astype(numpy.int64)
    gb.op_output_named('Gather', [x, gb.const(index)], p.output_names, axis=axis)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Where(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    cond = p.input_names[0]
    if numpy.dtype(p.input_dtypes[0]) != numpy.bool_:
        cond = gb.op('Cast', [cond], to=_onnx().TensorProto.BOOL)
    gb.op_output_named('Where', [cond] + list(p.input_names[1:3]), p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Pad(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    pairs = p.func._pairs
    pads = [b for b, _ in pairs] + [a for _, a in pairs]
    mode = p.func.mode
    keywords = dict(p.func.keywords)
    value = 0
    if mode == 'constant':
        values = numpy.asarray(keywords.get('constant_values', 0))
        if values.size and not (values == values.flat[0]).all():
            raise ValueError('chainlite.onnx: pad with different constant_values per side '
                             'cannot be exported (ONNX Pad takes one value)')
        value = values.flat[0] if values.size else 0
    elif mode == 'edge':
        pass
    elif mode == 'reflect':
        pass
    elif mode == 'wrap':
        _ops.requires(p, 19, " with mode='wrap'")
    else:
        raise ValueError("chainlite.onnx: pad with mode=%r cannot be exported (ONNX Pad has "
                         "'constant', 'edge', 'reflect' and 'wrap')" % mode)
    _ops.pad(gb, p.opset_version, p.input_names[0], pads, mode, value, p.input_dtypes[0],
             p.output_names)
    return gb.nodes()


def _index_items(index, shape):
    if isinstance(index, variable.Variable):
        index = index.array
    items = list(index) if isinstance(index, tuple) else [index]
    items = [i.array if isinstance(i, variable.Variable) else i for i in items]
    used = sum(0 if i is None or i is Ellipsis else 1 for i in items)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise ValueError('chainlite.onnx: get_item with several Ellipsis')
    expanded = []
    for i in items:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - used))
        else:
            expanded.append(i)
    return expanded


@converter.onnx_chainer_signature
def convert_GetItem(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    shape = list(p.input_shapes[0])
    items = _index_items(p.func.slices, shape)
    kinds = []
    for i in items:
        if i is None:
            kinds.append('new')
        elif isinstance(i, slice):
            kinds.append('slice')
        elif isinstance(i, (int, numpy.integer)) and not isinstance(i, bool):
            kinds.append('int')
        else:
            a = numpy.asarray(i)
            if a.dtype.kind not in 'iu':
                raise ValueError('chainlite.onnx: get_item with a %s index cannot be exported '
                                 '(slices, ints, None, Ellipsis and one int array can)'
                                 % a.dtype)
            kinds.append('array')
    adv = [k for k, kind in enumerate(kinds) if kind in ('int', 'array')]
    several = kinds.count('array') > 1 or (kinds.count('array') and adv != list(
        range(adv[0], adv[-1] + 1)))
    if several and 'new' in kinds:
        raise ValueError('chainlite.onnx: get_item with several array indices and None '
                         'cannot be exported')
    x = p.input_names[0]
    starts, ends, axes, steps = [], [], [], []
    in_axis = 0
    for item, kind in zip(items, kinds):
        if kind == 'slice':
            dim = shape[in_axis]
            start, stop, step = item.indices(dim)
            if (start, stop, step) != (0, dim, 1):
                # The bounds as written: ONNX reads negative ones from the end and clamps
                # as Python does, so x[1:] and x[:-1] follow a symbolic axis.
                starts.append(_bound(item.start, step, True))
                ends.append(_bound(item.stop, step, False))
                axes.append(in_axis)
                steps.append(step)
        if kind != 'new':
            in_axis += 1
    if axes:
        x = _ops.slice_(gb, p.opset_version, x, starts, ends, axes,
                        steps if any(s != 1 for s in steps) else None)
    if several:
        _gather_nd(gb, p, x, items, kinds, shape)
        return gb.nodes()
    # Then, left to right: ints and arrays gather, None adds an axis.
    axis = 0
    in_axis = 0
    for item, kind in zip(items, kinds):
        if kind == 'slice':
            axis += 1
        elif kind == 'new':
            x = _ops.unsqueeze(gb, p.opset_version, x, [axis])
            axis += 1
            continue
        elif kind == 'int':
            k = int(item) % shape[in_axis]
            x = gb.op('Gather', [x, gb.const(numpy.asarray(k, numpy.int64))], axis=axis)
        else:
            a = numpy.asarray(item).astype(numpy.int64) % shape[in_axis]
            x = gb.op('Gather', [x, gb.const(a)], axis=axis)
            axis += a.ndim
        in_axis += 1
    gb.op_output_named('Identity', [x], p.output_names)
    return gb.nodes()


_INT64_MAX = 2 ** 63 - 1


def _bound(value, step, is_start):
    # A slice bound for ONNX Slice; None is the end the step walks from (or to).
    if value is not None:
        return int(value)
    if is_start:
        return 0 if step > 0 else -1
    return _INT64_MAX if step > 0 else -_INT64_MAX - 1


def _gather_nd(gb, p, x, items, kinds, shape):
    # Several integer arrays (and ints) index together, as NumPy pairs them: bring their
    # axes first, GatherND with the broadcast index tuples, then put the result's index
    # axes where NumPy does (where the indices were if they are adjacent, else first).
    _ops.requires(p, 11, ' with several array indices')
    adv = [k for k, kind in enumerate(kinds) if kind in ('int', 'array')]
    others = [k for k, kind in enumerate(kinds) if kind == 'slice']
    arrays = numpy.broadcast_arrays(*[numpy.asarray(items[k], numpy.int64) % shape[k]
                                      for k in adv])
    index = numpy.stack(arrays, axis=-1).astype(numpy.int64)
    perm = adv + others
    if perm != list(range(len(perm))):
        x = gb.op('Transpose', [x], perm=perm)
    y = gb.op('GatherND', [x, gb.const(index)])
    b = index.ndim - 1
    if adv == list(range(adv[0], adv[-1] + 1)) and adv[0] > 0:
        before = sum(1 for k in others if k < adv[0])
        order = (list(range(b, b + before)) + list(range(b)) +
                 list(range(b + before, b + len(others))))
        y = gb.op('Transpose', [y], perm=order)
    gb.op_output_named('Identity', [y], p.output_names)


@converter.onnx_chainer_signature
def convert_Flip(p: FunctionConverterParams) -> tuple[Any, ...]:
    return _flip(p, p.func.axis)


@converter.onnx_chainer_signature
def convert_FlipLR(p: FunctionConverterParams) -> tuple[Any, ...]:
    return _flip(p, 1)


@converter.onnx_chainer_signature
def convert_FlipUD(p: FunctionConverterParams) -> tuple[Any, ...]:
    return _flip(p, 0)


def _flip(p, axis):
    # From the last element down past the first, whatever the axis' size.
    gb = onnx_helper.GraphBuilder()
    _ops.requires(p, 10)
    _ops.slice_(gb, p.opset_version, p.input_names[0], [-1], [-_INT64_MAX - 1], [axis], [-1],
                p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_Permutate(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    indices = p.constant(1)
    if indices is not None:
        indices = numpy.asarray(indices).astype(numpy.int64)
        if p.func.inv:
            indices = numpy.argsort(indices).astype(numpy.int64)
        index = gb.const(indices)
    else:
        # Indices computed in the graph (or a model input): the inverse by a scatter.
        _ops.requires(p, 11, ' with indices that are not constant')
        index = gb.op('Cast', [p.input_names[1]], to=_onnx().TensorProto.INT64)
        if p.func.inv:
            n = int(p.input_shapes[1][0])
            index = gb.op('ScatterElements', [
                gb.const(numpy.zeros(n, numpy.int64)), index,
                gb.const(numpy.arange(n, dtype=numpy.int64))], axis=0)
    gb.op_output_named('Gather', [p.input_names[0], index], p.output_names, axis=p.func.axis)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_SelectItem(p: FunctionConverterParams) -> tuple[Any, ...]:
    _ops.requires(p, 11)
    gb = onnx_helper.GraphBuilder()
    x, t = p.input_names[:2]
    t = gb.op('Cast', [t], to=_onnx().TensorProto.INT64)
    t = _ops.unsqueeze(gb, p.opset_version, t, [1])
    g = gb.op('GatherElements', [x, t], axis=1)
    _ops.squeeze(gb, p.opset_version, g, [1], p.output_names)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_TransposeSequence(p: FunctionConverterParams) -> tuple[Any, ...]:
    # Output t gathers element t of each input sequence longer than t.
    gb = onnx_helper.GraphBuilder()
    lengths = [s[0] for s in p.input_shapes]
    for t, out in enumerate(p.output_names):
        parts = []
        for name, length in zip(p.input_names, lengths):
            if length > t:
                parts.append(_ops.slice_(gb, p.opset_version, name, [t], [t + 1], [0]))
        if len(parts) == 1:
            gb.op_output_named('Identity', parts, [out])
        else:
            gb.op_output_named('Concat', parts, [out], axis=0)
    return gb.nodes()


@converter.onnx_chainer_signature
def convert_ResizeImages(p: FunctionConverterParams) -> tuple[Any, ...]:
    gb = onnx_helper.GraphBuilder()
    mode = p.func.mode
    out_shape = [int(d) for d in p.output_shapes[0]]
    x = p.input_names[0]
    if mode == 'nearest':
        # Pixel min(floor(i * h / h_O), h - 1): ONNX's asymmetric, floor nearest.
        if p.opset_version >= 11:
            sizes = _ops.shape_with_head(gb, p.opset_version, x, 2, out_shape[2:])
            gb.op_output_named('Resize', [x, '', '', sizes], p.output_names,
                               mode='nearest', coordinate_transformation_mode='asymmetric',
                               nearest_mode='floor')
            return gb.nodes()
        in_shape = p.input_shapes[0]
        scales = numpy.asarray([o / i for o, i in zip(out_shape, in_shape)], numpy.float32)
        if any(o % i for o, i in zip(out_shape, in_shape)):
            raise ValueError('chainlite.onnx: resize_images to a size that is not a multiple '
                             'of the input needs opset_version >= 11')
        op = 'Upsample' if p.opset_version < 10 else 'Resize'
        gb.op_output_named(op, [x, gb.const(scales)], p.output_names, mode='nearest')
        return gb.nodes()
    _ops.requires(p, 11, " with mode='bilinear'")
    ct = 'align_corners' if p.func.align_corners else 'half_pixel'
    sizes = _ops.shape_with_head(gb, p.opset_version, x, 2, out_shape[2:])
    gb.op_output_named('Resize', [x, '', '', sizes], p.output_names,
                       mode='linear', coordinate_transformation_mode=ct)
    return gb.nodes()


# onnx_chainer's names for the converters above.
convert_Dstack = convert_Join
convert_Hstack = convert_Join
convert_Moveaxis = convert_permutation
convert_Rollaxis = convert_permutation
convert_Vstack = convert_Join

#: The names of ONNX's tensor data types (``TensorProto.DataType``) by number, up to
#: COMPLEX128: the ``to`` attribute of opset 1's Cast took the name.
TENSOR_TYPE_TO_NAME = dict(enumerate((
    'UNDEFINED', 'FLOAT', 'UINT8', 'INT8', 'UINT16', 'INT16', 'INT32', 'INT64', 'STRING',
    'BOOL', 'FLOAT16', 'DOUBLE', 'UINT32', 'UINT64', 'COMPLEX64', 'COMPLEX128')))


@converter.onnx_chainer_signature
def convert_Shape(p: FunctionConverterParams) -> tuple[Any, ...]:
    """The shape of the input as an int64 vector (ONNX's Shape)."""
    return onnx_helper.make_node('Shape', p.input_names, p.output_names),


def get_slice_node(gb: onnx_helper.GraphBuilder, opset_version: int, context: Any,
                   input_names: list, axes: Sequence[int], starts: Sequence[int],
                   ends: Sequence[int], steps: Sequence[int]) -> str:
    """Adds a Slice node to ``gb`` in the form the opset wants, as onnx_chainer's does.

    From opset 10 the bounds are inputs: they are added as constants of ``context``
    (``starts``, ``ends``, ``axes``, and from opset 11 ``steps``) and their names appended
    to ``input_names``, which this changes. Before opset 10 they are attributes.

    Args:
        gb: The builder of the converter's nodes.
        opset_version: The opset of the exported model.
        context: The export's :class:`~chainlite.onnx.context.Context`.
        input_names: A list holding the name of the value to slice.
        axes: The axes to slice.
        starts: The first index along each axis.
        ends: The end (excluded) along each axis.
        steps: The step along each axis; other than 1 needs opset 11.

    Returns:
        The name of the Slice node's output.

    Raises:
        ValueError: If a step is not 1 and the opset is older than 11.

    Example:
        >>> from chainlite.onnx import onnx_helper
        >>> onnx_helper.set_func_name('GetItem_0')
        >>> gb = onnx_helper.GraphBuilder()
        >>> get_slice_node(gb, 9, None, ['x'], [0], [1], [3], [1])
        'GetItem_0_tmp_0'
    """
    if opset_version < 11 and any(s != 1 for s in steps):
        raise ValueError('get_slice_node: a slice with steps %s needs opset_version >= 11, '
                         'got %d' % (list(steps), opset_version))
    if opset_version < 10:
        return gb.op('Slice', input_names, axes=list(axes), starts=list(starts),
                     ends=list(ends))
    bounds = [('starts', starts), ('ends', ends), ('axes', axes)]
    if opset_version >= 11:
        bounds.append(('steps', steps))
    for name, values in bounds:
        input_names.append(context.add_const(numpy.asarray(list(values), numpy.int64), name))
    return gb.op('Slice', input_names)


CONVERTERS = {
    broadcast.Broadcast: convert_Broadcast,
    broadcast.BroadcastTo: convert_BroadcastTo,
    cast.Cast: convert_Cast,
    concat.Concat: convert_Concat,
    copy.Copy: convert_Copy,
    depth2space.Depth2Space: convert_Depth2Space,
    dstack.Dstack: convert_Dstack,
    expand_dims.ExpandDims: convert_ExpandDims,
    flip.Flip: convert_Flip,
    fliplr.FlipLR: convert_FlipLR,
    flipud.FlipUD: convert_FlipUD,
    get_item.GetItem: convert_GetItem,
    hstack.Hstack: convert_Hstack,
    moveaxis.Moveaxis: convert_Moveaxis,
    pad.Pad: convert_Pad,
    permutate.Permutate: convert_Permutate,
    repeat.Repeat: convert_Repeat,
    reshape.Reshape: convert_Reshape,
    resize_images.ResizeImages: convert_ResizeImages,
    rollaxis.Rollaxis: convert_Rollaxis,
    select_item.SelectItem: convert_SelectItem,
    separate.Separate: convert_Separate,
    space2depth.Space2Depth: convert_Space2Depth,
    split_axis.SplitAxis: convert_SplitAxis,
    squeeze.Squeeze: convert_Squeeze,
    stack.Stack: convert_Stack,
    sum_to.SumTo: convert_SumTo,
    swapaxes.Swapaxes: convert_Swapaxes,
    tile.Tile: convert_Tile,
    transpose.Transpose: convert_Transpose,
    transpose_sequence.TransposeSequence: convert_TransposeSequence,
    vstack.Vstack: convert_Vstack,
    where.Where: convert_Where,
}
