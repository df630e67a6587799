"""``export_testcase``: a model and one input/output example, in ONNX's test layout."""
from __future__ import annotations

import os
import warnings
from typing import Any

import numpy

from chainlite.onnx import onnx_helper
# The module chainlite.onnx.export is shadowed by its function in the package namespace.
from chainlite.onnx.export import export as _export
from chainlite.onnx.export import _on_host


def export_testcase(model: Any, args: Any, out_dir: str, output_grad: bool = False,
                    **kwargs: Any) -> None:
    """Writes ``model.onnx`` and ``test_data_set_0/{input,output}_<i>.pb`` into ``out_dir``.

    The layout is the one ONNX's backend tests and ``onnx_chainer`` use: the model, then
    one serialized ``TensorProto`` per input and output of an example run.

    Args:
        model: The model (see :func:`~chainlite.onnx.export`).
        args: The example inputs.
        out_dir: The folder (created if needed).
        output_grad: Also run backward from ones on every output and write the gradient of
            each parameter as ``gradient_<i>.pb`` (in ``model.namedparams()`` order).
        **kwargs: Passed to :func:`~chainlite.onnx.export`.

    Example:
        >>> import os, tempfile, numpy as np, chainlite.links as L
        >>> from chainlite import onnx as ox
        >>> d = tempfile.mkdtemp()
        >>> ox.export_testcase(L.Linear(3, 2), np.ones((1, 3), np.float32), d)
        >>> sorted(os.listdir(os.path.join(d, 'test_data_set_0')))
        ['input_0.pb', 'output_0.pb']
    """
    os.makedirs(out_dir, exist_ok=True)
    # A model on a GPU: its host copy is exported, run and differentiated.
    model, args = _on_host(model, args)
    if hasattr(model, 'cleargrads'):
        model.cleargrads()
    kwargs.pop('return_named_inout', None)
    _, inputs, outputs = _export(
        model, args, filename=os.path.join(out_dir, 'model.onnx'), return_named_inout=True,
        **kwargs)
    data_dir = os.path.join(out_dir, 'test_data_set_0')
    os.makedirs(data_dir, exist_ok=True)
    for i, (name, var) in enumerate(inputs.items()):
        onnx_helper.write_tensor_pb(os.path.join(data_dir, 'input_%d.pb' % i), name, var.array)
    for i, (name, var) in enumerate(outputs.items()):
        onnx_helper.write_tensor_pb(os.path.join(data_dir, 'output_%d.pb' % i), name,
                                    var.array)
    if not output_grad:
        return
    outs = list(outputs.values())
    for out in outs:
        out.grad = numpy.ones_like(out.array)
    from chainlite import backprop
    backprop.backward(outs)
    for i, (path, param) in enumerate(model.namedparams()):
        if param.grad is None:
            warnings.warn('export_testcase: the parameter %s has no gradient' % path)
            continue
        onnx_helper.write_tensor_pb(os.path.join(data_dir, 'gradient_%d.pb' % i),
                                    onnx_helper.cleanse_param_name(path), param.grad)
