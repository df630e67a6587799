"""export's arguments, errors and files; export_testcase; the onnx_chainer alias."""
import io
import os
import subprocess
import sys

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import compat


def _mlp():
    numpy.random.seed(0)
    return chainlite.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))


def _x(batch=2):
    return numpy.random.RandomState(1).uniform(-1, 1, (batch, 3)).astype(numpy.float32)


class _Named(chainlite.Chain):
    # A model called with a keyword argument.
    def __init__(self, inner):
        super().__init__()
        with self.init_scope():
            self.inner = inner

    def forward(self, x):
        return self.inner(x)


class _Twice(chainlite.FunctionNode):
    # A function no converter knows.
    def forward(self, inputs):
        return inputs[0] * 2,


def test_default_opset_is_newest_shared(ox):
    import onnx
    from chainlite import onnx as cl_onnx
    opset = cl_onnx.default_opset_version()
    assert cl_onnx.MINIMUM_OPSET_VERSION <= opset <= onnx.defs.onnx_opset_version()
    assert cl_onnx.MAXIMUM_OPSET_VERSION == opset
    proto = ox.export(_mlp(), _x())
    assert proto.opset_import[0].version == opset
    # ONNX Runtime runs it, and refuses the next opset (or onnx knows no newer one).
    ox.run_onnx(proto, [_x()])
    if opset < onnx.defs.onnx_opset_version():
        proto.opset_import[0].version = opset + 1
        with pytest.raises(Exception):
            ox.run_onnx(proto, [_x()])


@pytest.mark.parametrize('opset', [8, 10 ** 4, 9.5])
def test_opset_out_of_range(ox, opset):
    with pytest.raises(ValueError, match='opset_version'):
        ox.export(_mlp(), _x(), opset_version=opset)


def test_unknown_function_names_it_and_external_converters(ox):
    model = ox.Fn(lambda x: _Twice().apply((x,))[0])
    with pytest.raises(ValueError, match=r'_Twice.*external_converters'):
        ox.export(model, _x())


def test_external_converter(ox):
    from chainlite.onnx import onnx_helper

    def twice(params):
        gb = onnx_helper.GraphBuilder()
        gb.op_output_named('Add', [params.input_names[0]] * 2, params.output_names)
        return gb.nodes()

    model = ox.Fn(lambda x: F.relu(_Twice().apply((x,))[0]))
    proto = ox.export(model, _x(), external_converters={'_Twice': twice})
    numpy.testing.assert_allclose(ox.run_onnx(proto, [_x()])[0],
                                  numpy.maximum(_x() * 2, 0), rtol=1e-6)


def test_external_converter_overrides_a_builtin_with_a_custom_domain(ox):
    from chainlite.onnx import onnx_helper

    def custom_relu(params):
        return onnx_helper.make_node('CustomRelu', params.input_names, params.output_names,
                                     domain='my.domain'),

    proto = ox.export(_mlp(), _x(), external_converters={'ReLU': custom_relu},
                      external_opset_imports={'my.domain': 1})
    node = [n for n in proto.graph.node if n.op_type == 'CustomRelu'][0]
    assert node.domain == 'my.domain'
    assert {o.domain for o in proto.opset_import} == {'', 'my.domain'}


def test_names_of_inputs_outputs_and_parameters(ox):
    model = chainlite.Sequential(L.Linear(3, 4), F.relu)
    proto = ox.export(model, _x())
    assert [i.name for i in proto.graph.input] == ['Input_0']
    assert [o.name for o in proto.graph.output] == ['ReLU_0']
    assert [i.name for i in proto.graph.initializer] == ['param_0_W', 'param_0_b']
    proto, ins, outs = ox.export(_Named(model), {'x': _x()}, input_names={'x': 'pixels'},
                                 output_names=['scores'], return_named_inout=True)
    assert [i.name for i in proto.graph.input] == ['pixels']
    assert [o.name for o in proto.graph.output] == ['scores']
    assert list(ins) == ['pixels'] and list(outs) == ['scores']
    numpy.testing.assert_array_equal(ins['pixels'].array, _x())
    with pytest.raises(ValueError, match='input_names'):
        ox.export(model, _x(), input_names=['a', 'b'])


def test_several_outputs_and_dict(ox):
    def fn(x, y):
        return {'sum': x + y, 'prod': x * y}
    proto = ox.check_export(ox.Fn(fn), [_x(), _x()])
    assert [o.name for o in proto.graph.output] == ['Add_0', 'Mul_0']


def test_output_that_is_an_input_passes_through(ox):
    proto = ox.check_export(ox.Fn(lambda x, y: (x, F.exp(y))), [_x(), _x()])
    assert ox.op_types(proto) == ['Exp', 'Identity']


def test_export_params_false_makes_parameters_inputs(ox):
    model = _mlp()
    proto = ox.export(model, _x(), export_params=False)
    assert len(proto.graph.initializer) == 0
    names = [i.name for i in proto.graph.input]
    feeds = {'Input_0': _x()}
    feeds.update(('param' + k.replace('/', '_'), p.array) for k, p in model.namedparams())
    assert sorted(names) == sorted(feeds)
    got = ox.run_onnx(proto, [feeds[n] for n in names])[0]
    with chainlite.using_config('train', False):
        numpy.testing.assert_allclose(got, model(_x()).array, rtol=1e-5)


def test_files(ox, tmp_path):
    import onnx
    path = tmp_path / 'model.onnx'
    proto = ox.export(_mlp(), _x(), filename=str(path), save_text=True)
    assert onnx.load(str(path)) == proto
    assert 'Gemm' in (tmp_path / 'model.onnx.txt').read_text()
    buffer = io.BytesIO()
    ox.export(_mlp(), _x(), filename=buffer)
    assert onnx.load_from_string(buffer.getvalue()) == proto
    assert not [f for f in os.listdir(tmp_path) if f.endswith('.tmp')]


def test_symbolic_batch_with_input_shapes(ox):
    model = _mlp()
    proto = ox.export(model, _x(), input_shapes=('N', 3))
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == 'N' and dims[1].dim_value == 3
    x5 = _x(5)
    with chainlite.using_config('train', False):
        numpy.testing.assert_allclose(ox.run_onnx(proto, [x5])[0], model(x5).array,
                                      rtol=1e-5)


def test_train_mode_records_dropout(ox):
    model = ox.Fn(lambda x: F.dropout(x, 0.0))
    for opset in (None, 11):
        proto = ox.export(model, _x(), train=True, opset_version=opset)
        assert ox.op_types(proto)[-1] == 'Dropout'
        numpy.testing.assert_allclose(ox.run_onnx(proto, [_x()])[0], _x())
    assert ox.op_types(ox.export(model, _x())) == ['Identity']


def test_train_mode_batch_normalization_uses_batch_statistics(ox):
    model = chainlite.Sequential(L.BatchNormalization(3))
    x = _x(4) * 3 + 1
    proto = ox.export(model, x, train=True)
    got = ox.run_onnx(proto, [x])[0]
    expected = (x - x.mean(0)) / numpy.sqrt(x.var(0) + 2e-5)
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_variable_arguments_are_not_modified(ox):
    x = chainlite.Variable(_x(), requires_grad=False)
    proto = ox.export(_mlp(), x)
    assert x.creator is None and len(ox.op_types(proto)) == 3


def test_export_testcase(ox, tmp_path):
    import onnx
    from chainlite import onnx as cl_onnx
    model = _mlp()
    cl_onnx.export_testcase(model, [_x()], str(tmp_path), output_grad=True)
    data = tmp_path / 'test_data_set_0'
    files = sorted(os.listdir(data))
    assert files == ['gradient_0.pb', 'gradient_1.pb', 'gradient_2.pb', 'gradient_3.pb',
                     'input_0.pb', 'output_0.pb']
    proto = onnx.load(str(tmp_path / 'model.onnx'))
    inp = onnx.load_tensor(str(data / 'input_0.pb'))
    out = onnx.load_tensor(str(data / 'output_0.pb'))
    assert inp.name == proto.graph.input[0].name and out.name == proto.graph.output[0].name
    got = ox.run_onnx(proto, [onnx.numpy_helper.to_array(inp)])[0]
    numpy.testing.assert_allclose(got, onnx.numpy_helper.to_array(out), rtol=1e-5)
    g0 = onnx.load_tensor(str(data / 'gradient_0.pb'))
    assert g0.name == 'param_0_W'
    numpy.testing.assert_array_equal(onnx.numpy_helper.to_array(g0), model[0].W.grad)


def test_import_as_onnx_chainer(ox):
    compat.install()
    try:
        import onnx_chainer
        import onnx_chainer.onnx_helper

        from chainlite import onnx as cl_onnx
        from chainlite.onnx import onnx_helper
        assert onnx_chainer is cl_onnx and onnx_chainer.onnx_helper is onnx_helper
        proto = onnx_chainer.export(_mlp(), _x())
        assert ox.op_types(proto) == ['Gemm', 'Relu', 'Gemm']
        assert compat.chainer_name('chainlite.onnx.export') == 'onnx_chainer.export'
    finally:
        compat.uninstall()
    assert 'onnx_chainer' not in sys.modules


def test_without_onnx_import_works_and_export_says_how_to_install():
    # A child interpreter in which `import onnx` fails, as where it is not installed.
    code = (
        "import sys; sys.modules['onnx'] = None\n"
        "import numpy, chainlite.links as L\n"
        "import chainlite.onnx as ox\n"
        "try:\n"
        "    ox.export(L.Linear(2, 2), numpy.zeros((1, 2), numpy.float32))\n"
        "except ImportError as e:\n"
        "    print(e)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "install onnx (pip install -e '.[onnx]')" in out.stdout


def test_testing_helpers_check_a_test_case(ox, tmp_path, monkeypatch):
    from chainlite.onnx.testing import get_test_data_set, input_generator, test_onnxruntime
    monkeypatch.chdir(tmp_path)
    x = input_generator.increasing(2, 3)
    path = get_test_data_set.gen_test_data_set(_mlp(), [x], 'mlp', 11)
    assert path == os.path.join('out', 'opset11', 'mlp')
    test_onnxruntime.check_model_expect(path, input_names=['Input_0'])
    # A wrong expected output is caught.
    import onnx
    bad = onnx.numpy_helper.from_array(numpy.zeros((2, 2), numpy.float32), 'LinearFunction_1')
    with open(os.path.join(path, 'test_data_set_0', 'output_0.pb'), 'wb') as f:
        f.write(bad.SerializeToString())
    with pytest.raises(AssertionError):
        test_onnxruntime.check_model_expect(path)
