"""as_funcnode / fake_as_funcnode: any Python function as one node, with its own converter."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.onnx import onnx_helper
from chainlite.onnx.replace_func import as_funcnode
from chainlite.onnx.replace_func import fake_as_funcnode


class _Full(chainlite.Chain):
    def __init__(self, value):
        super().__init__()
        self.value = value

    @as_funcnode('NumpyFull')
    def full(self, xs, value=0):
        return numpy.full(xs.array.shape, value, dtype=numpy.float32)

    def forward(self, xs):
        return F.sigmoid(self.full(xs, value=self.value)) + xs


def _full_converter(params):
    import onnx
    gb = onnx_helper.GraphBuilder()
    shape = gb.op('Shape', params.input_names)
    value = onnx.helper.make_tensor('value', onnx.TensorProto.FLOAT, [1], [params.func.value])
    gb.op_output_named('ConstantOfShape', [shape], params.output_names, value=value)
    return gb.nodes()


def test_wrapped_numpy_function_is_exported_with_its_converter(ox):
    x = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    proto = ox.check_export(_Full(5.0), [x], external_converters={'NumpyFull': _full_converter})
    assert ox.op_types(proto)[:2] == ['Shape', 'ConstantOfShape']


def test_without_wrapping_the_graph_is_cut(ox):
    # The array computation leaves the graph: the input is not connected to the sigmoid.
    model = ox.Fn(lambda x: F.sigmoid(chainlite.Variable(x.array + 1.0)))
    proto = ox.export(model, numpy.zeros((1, 2), numpy.float32))
    assert proto.graph.node[0].input[0] != 'Input_0'


def test_attributes_and_renames():
    f = fake_as_funcnode(lambda x, a, b=2, c=3: x * (a + b + c), 'Scaled',
                         rename_attributes=[(1, 'alpha'), ('c', 'gamma')])
    y = f(chainlite.Variable(numpy.ones(2, numpy.float32)), 1.0, c=4)
    node = y.creator
    assert (node.label, node.alpha, node.b, node.gamma) == ('Scaled', 1.0, 2, 4)
    numpy.testing.assert_array_equal(y.array, [7.0, 7.0])


def test_gradient_flows_through_a_function_returning_variables():
    link = L.Linear(3, 2)
    link.cleargrads()
    half = fake_as_funcnode(lambda h, value=0.5: h * value, 'Half')
    x = numpy.ones((1, 3), numpy.float32)
    F.sum(half(link(x))).backward()
    expected = numpy.full((2, 3), 0.5, numpy.float32)
    numpy.testing.assert_allclose(link.W.grad, expected)


def test_errors():
    on_arrays = fake_as_funcnode(lambda h: h.array * 2, 'Twice')
    y = on_arrays(chainlite.Variable(numpy.ones(2, numpy.float32)))
    with pytest.raises(ValueError, match='Twice'):
        F.sum(y).backward()
    with pytest.raises(ValueError, match='at least one Variable'):
        on_arrays(numpy.ones(2, numpy.float32))
