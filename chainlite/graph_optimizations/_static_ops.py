"""Replay steps on arrays for the functions static chains use most (Linear, ReLU, tanh, ...).

A replayed :func:`~chainlite.static_graph` runs each recorded function as a step: a closure
over the slots (the list of this call's arrays) that writes its results into its output
slots. For the functions here the step is the bare NumPy calls of the function's
``forward`` (or of the nodes its ``backward`` applies), in the same order on the same
operands, so the results are define-by-run's to the bit; results that never leave the
schedule are written into buffers kept from one call to the next (``out=``). Every other
function runs its own ``forward`` (and ``_backward_arrays``).

A forward builder takes ``(fn, ins, outs, values, buffers)``: the function, its input and
output slots, the arrays seen when recording (by slot) and the output buffers (by slot; a
slot without one gets a fresh array each call). A backward builder takes ``(fn, ins, outs,
idx, values, gbufs)``: ``idx`` are the inputs that need a gradient and ``gbufs`` the
gradient buffers (by slot). Either returns None when the recorded arrays are not the simple
case it handles (mixed dtypes, float16), and the function's own code runs instead.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

_matmul = numpy.matmul
_add = numpy.add
_add_reduce = numpy.add.reduce  # what ndarray.sum calls, without its Python wrapper
_subtract = numpy.subtract
_multiply = numpy.multiply
_maximum = numpy.maximum
_greater = numpy.greater
_tanh = numpy.tanh
_PLAIN = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))

Step = Callable[..., None]


def _plain(*arrays: Any) -> bool:
    # One dtype, float32 or float64: the functions' results then have it too, with no cast
    # and no float16 detour through float32.
    dtype = arrays[0].dtype
    return dtype in _PLAIN and all(a.dtype == dtype for a in arrays)


def accumulate(g: list, s: int, gx: numpy.ndarray) -> None:
    """Adds ``gx`` to the gradient of slot ``s`` (two summands: the order does not matter)."""
    old = g[s]
    g[s] = gx if old is None else add(old, gx)


def add(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``a + b`` as an array (the steps below inline accumulate as ``old = g[s]; g[s] = gx if
    old is None else add(old, gx)``: a call less for the usual single contribution)."""
    c = a + b
    return c if c.__class__ is numpy.ndarray else numpy.asarray(c)


def _linear_forward(fn: Any, ins: tuple, outs: tuple, values: list,
                    buffers: dict) -> Optional[Step]:
    # LinearFunction.forward: y = x @ W.T, then y += b.
    x, W = values[ins[0]], values[ins[1]]
    if x.ndim != 2 or W.ndim != 2 or not _plain(*[values[i] for i in ins]):
        return None
    ix, iW, o = ins[0], ins[1], outs[0]
    Y = buffers.get(o)
    if len(ins) == 2:
        def linear(b: list) -> None:
            b[o] = _matmul(b[ix], b[iW].T, out=Y)
        return linear
    ib = ins[2]

    def linear_bias(b: list) -> None:
        y = _matmul(b[ix], b[iW].T, out=Y)
        _add(y, b[ib], out=y)
        b[o] = y
    return linear_bias


def _linear_backward(fn: Any, ins: tuple, outs: tuple, idx: tuple, values: list,
                     gbufs: dict) -> Optional[Step]:
    # LinearFunction.backward: gx = gy @ W (MatMul), gW = gy^T @ x (MatMul(transa)),
    # gb = gy summed over axis 0 (Sum).
    if values[ins[0]].ndim != 2 or not _plain(*[values[i] for i in ins]):
        return None
    ix, iW, o = ins[0], ins[1], outs[0]
    ib = ins[2] if len(ins) == 3 else -1
    need_x, need_W, need_b = 0 in idx, 1 in idx, 2 in idx
    GX = gbufs.get(ix)
    _sum = add

    def linear_grad(b: list, g: list) -> None:
        gy = g[o]
        if gy is None:
            return
        if need_x:
            gx = _matmul(gy, b[iW], out=GX)
            old = g[ix]
            g[ix] = gx if old is None else _sum(old, gx)
        if need_W:
            gW = _matmul(gy.swapaxes(-1, -2), b[ix])
            old = g[iW]
            g[iW] = gW if old is None else _sum(old, gW)
        if need_b:
            gb = _add_reduce(gy, 0)
            old = g[ib]
            g[ib] = gb if old is None else _sum(old, gb)
    return linear_grad


def _relu_forward(fn: Any, ins: tuple, outs: tuple, values: list,
                  buffers: dict) -> Optional[Step]:
    if not _plain(values[ins[0]]):
        return None
    i, o = ins[0], outs[0]
    Y = buffers.get(o)

    def relu(b: list) -> None:
        b[o] = _maximum(b[i], 0, out=Y)
    return relu


def _relu_backward(fn: Any, ins: tuple, outs: tuple, idx: tuple, values: list,
                   gbufs: dict) -> Optional[Step]:
    # _ReLUGrad: gx = gy * (y > 0).
    y = values[outs[0]]
    if not _plain(y):
        return None
    i, o = ins[0], outs[0]
    GX = gbufs.get(i)
    mask = numpy.empty(y.shape, bool)
    _sum = add

    def relu_grad(b: list, g: list) -> None:
        gy = g[o]
        if gy is not None:
            gx = _multiply(gy, _greater(b[o], 0, out=mask), out=GX)
            old = g[i]
            g[i] = gx if old is None else _sum(old, gx)
    return relu_grad


def _tanh_forward(fn: Any, ins: tuple, outs: tuple, values: list,
                  buffers: dict) -> Optional[Step]:
    if not _plain(values[ins[0]]):
        return None
    i, o = ins[0], outs[0]
    Y = buffers.get(o)

    def tanh(b: list) -> None:
        b[o] = _tanh(b[i], out=Y)
    return tanh


def _tanh_backward(fn: Any, ins: tuple, outs: tuple, idx: tuple, values: list,
                   gbufs: dict) -> Optional[Step]:
    # _TanhGrad: gx = gy * (1 - y * y).
    y = values[outs[0]]
    if not _plain(y):
        return None
    i, o = ins[0], outs[0]
    GX = gbufs.get(i)
    tmp = numpy.empty_like(y)
    _sum = add

    def tanh_grad(b: list, g: list) -> None:
        gy = g[o]
        if gy is not None:
            y = b[o]
            t = _multiply(y, y, out=tmp)
            _subtract(1, t, out=t)
            gx = _multiply(gy, t, out=GX)
            old = g[i]
            g[i] = gx if old is None else _sum(old, gx)
    return tanh_grad


def _sigmoid_forward(fn: Any, ins: tuple, outs: tuple, values: list,
                     buffers: dict) -> Optional[Step]:
    # Sigmoid.forward: tanh(x * 0.5) * 0.5 + 0.5.
    if not _plain(values[ins[0]]):
        return None
    i, o = ins[0], outs[0]
    Y = buffers.get(o)

    def sigmoid(b: list) -> None:
        y = _multiply(b[i], 0.5, out=Y)
        _tanh(y, out=y)
        _multiply(y, 0.5, out=y)
        _add(y, 0.5, out=y)
        b[o] = y
    return sigmoid


def _sigmoid_backward(fn: Any, ins: tuple, outs: tuple, idx: tuple, values: list,
                      gbufs: dict) -> Optional[Step]:
    # _SigmoidGrad: gx = gy * y * (1 - y).
    y = values[outs[0]]
    if not _plain(y):
        return None
    i, o = ins[0], outs[0]
    GX = gbufs.get(i)
    t1, t2 = numpy.empty_like(y), numpy.empty_like(y)
    _sum = add

    def sigmoid_grad(b: list, g: list) -> None:
        gy = g[o]
        if gy is not None:
            y = b[o]
            gx = _multiply(_multiply(gy, y, out=t1), _subtract(1, y, out=t2), out=GX)
            old = g[i]
            g[i] = gx if old is None else _sum(old, gx)
    return sigmoid_grad


def _dropout_backward(fn: Any, ins: tuple, outs: tuple, idx: tuple, values: list,
                      gbufs: dict) -> Optional[Step]:
    # Dropout.backward: gx = gy * mask, with the mask this call's forward drew.
    if not _plain(values[ins[0]]):
        return None
    i, o = ins[0], outs[0]
    GX = gbufs.get(i)
    _sum = add

    def dropout_grad(b: list, g: list) -> None:
        gy = g[o]
        if gy is not None:
            gx = _multiply(gy, fn.mask, out=GX)
            old = g[i]
            g[i] = gx if old is None else _sum(old, gx)
    return dropout_grad


_table: Optional[dict] = None


def builders(fn: Any) -> tuple[Any, Any]:
    """The (forward, backward) step builders for ``fn``'s class; None where there is none."""
    global _table
    if _table is None:
        from chainlite.functions.activation import relu
        from chainlite.functions.activation import sigmoid
        from chainlite.functions.activation import tanh
        from chainlite.functions.connection import linear
        from chainlite.functions.noise import dropout
        _table = {
            linear.LinearFunction: (_linear_forward, _linear_backward),
            relu.ReLU: (_relu_forward, _relu_backward),
            tanh.Tanh: (_tanh_forward, _tanh_backward),
            sigmoid.Sigmoid: (_sigmoid_forward, _sigmoid_backward),
            # Dropout's forward draws its mask: its own forward runs, in the recorded order.
            dropout.Dropout: (None, _dropout_backward),
        }
    return _table.get(type(fn), (None, None))
