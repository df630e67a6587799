"""Shared checks of the ONNX tests (the ``ox`` fixture): export, run in ONNX Runtime, compare.

The fixture skips a test where onnx or onnxruntime is not installed.
"""
from __future__ import annotations

import numpy
import pytest

import chainlite

from chainlite import onnx as chainlite_onnx


class Fn(chainlite.Chain):
    """A model that applies ``fn`` to its inputs (and holds optional child links)."""

    def __init__(self, fn, **links):
        super().__init__(**links)
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def run_onnx(model_proto, inputs):
    """Runs an exported model in ONNX Runtime on a list of arrays; returns the outputs."""
    ort = pytest.importorskip('onnxruntime')
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model_proto.SerializeToString(), options,
                                   providers=['CPUExecutionProvider'])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


def _flat(outputs):
    if isinstance(outputs, chainlite.Variable):
        return [outputs]
    if isinstance(outputs, dict):
        return list(outputs.values())
    return list(outputs)


def check_export(model, inputs, opset_version=None, rtol=1e-4, atol=1e-5, **kwargs):
    """Exports ``model`` on ``inputs`` and checks ONNX Runtime gives chainlite's outputs.

    Returns the exported ``ModelProto``.
    """
    inputs = list(inputs)
    with chainlite.using_config('train', False):
        expected = [v.array for v in _flat(model(*[chainlite.Variable(a) for a in inputs]))]
    proto = chainlite_onnx.export(model, inputs, opset_version=opset_version, **kwargs)
    pytest.importorskip('onnx').checker.check_model(proto)
    got = run_onnx(proto, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        numpy.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return proto


def check_dynamic_batch(model, make_inputs, example_batch=2, batches=(1, 3, 7), symbol='N',
                        opset_version=None, rtol=1e-4, atol=1e-5, **kwargs):
    """Exports ``model`` with a symbolic batch axis and runs it at several batch sizes.

    ``make_inputs(b)`` returns the list of inputs for a batch of ``b``, axis 0 of each being
    the batch. The model is exported once, on ``make_inputs(example_batch)``, with
    ``input_shapes`` giving axis 0 the size ``symbol`` (a name, or None for an unknown
    size); that one ONNX model must then give chainlite's outputs at every size in
    ``batches``. Returns the exported ``ModelProto``.
    """
    inputs = list(make_inputs(example_batch))
    shapes = [(symbol,) + tuple(a.shape[1:]) for a in inputs]
    proto = chainlite_onnx.export(model, inputs, opset_version=opset_version,
                                  input_shapes=shapes, **kwargs)
    pytest.importorskip('onnx').checker.check_model(proto)
    for value in proto.graph.input[:len(inputs)]:
        batch_dim = value.type.tensor_type.shape.dim[0]
        assert batch_dim.dim_param == (symbol or '') and not batch_dim.HasField('dim_value')
    for b in batches:
        xs = list(make_inputs(b))
        with chainlite.using_config('train', False):
            expected = [v.array for v in _flat(model(*[chainlite.Variable(a) for a in xs]))]
        got = run_onnx(proto, xs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape, (b, g.shape, e.shape)
            assert g.dtype == e.dtype, (b, g.dtype, e.dtype)
            numpy.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f'batch {b}')
    return proto


def op_types(proto):
    """The operator types of the nodes of an exported model."""
    return [n.op_type for n in proto.graph.node]


class _Helpers:
    Fn = Fn
    run_onnx = staticmethod(run_onnx)
    check_export = staticmethod(check_export)
    check_dynamic_batch = staticmethod(check_dynamic_batch)
    op_types = staticmethod(op_types)
    export = staticmethod(chainlite_onnx.export)


@pytest.fixture
def ox():
    """The helpers above; skips the test without onnx and onnxruntime."""
    pytest.importorskip('onnx')
    pytest.importorskip('onnxruntime')
    return _Helpers
