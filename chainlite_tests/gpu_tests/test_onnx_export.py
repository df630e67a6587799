"""ONNX export of a model living on the GPU, with GPU example inputs.

The export runs on a host copy of the model (each parameter copied to the host once), so the
initializers are host arrays, as onnx_chainer writes them; the exported graph is the CPU
model's, ONNX Runtime's results match the CPU model's, and the GPU model is left as it was.
"""
import copy
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import onnx as chainlite_onnx
from chainlite.backends import cuda
from chainlite.onnx import onnx_helper

onnx = pytest.importorskip('onnx')


class Net(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3, pad=1)
            self.bn = L.BatchNormalization(2)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        return F.softmax(self.fc(F.relu(self.bn(self.conv(x)))))


def _run_onnx(proto, inputs):
    ort = pytest.importorskip('onnxruntime')
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(proto.SerializeToString(), options,
                                   providers=['CPUExecutionProvider'])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


def _models(gpu_xp):
    numpy.random.seed(3)
    cpu = Net()
    x = numpy.random.uniform(-1, 1, (2, 1, 5, 5)).astype(numpy.float32)
    with chainlite.using_config('train', True):
        cpu(x)  # initialises fc and moves the running statistics off their defaults
    gpu = copy.deepcopy(cpu)
    gpu.to_device('@cupy:0')
    return cpu, gpu, x


@pytest.mark.parametrize('as_variable', [False, True])
def test_export_of_a_gpu_model_matches_the_cpu_model(gpu_xp, as_variable):
    cpu, gpu, x = _models(gpu_xp)
    gpu_params = {path: p.array for path, p in gpu.namedparams()}
    x_gpu = gpu_xp.asarray(x)
    proto_cpu = chainlite_onnx.export(cpu, x)
    proto_gpu = chainlite_onnx.export(gpu, chainlite.Variable(x_gpu) if as_variable else x_gpu)
    # The same graph and initializers (host arrays, the GPU parameters' values).
    assert proto_gpu.SerializeToString() == proto_cpu.SerializeToString()
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in proto_gpu.graph.initializer}
    for path, array in gpu_params.items():
        name = onnx_helper.cleanse_param_name(path)
        numpy.testing.assert_array_equal(inits[name], cuda.to_cpu(array))
    numpy.testing.assert_array_equal(inits['param_bn_avg_mean'], cuda.to_cpu(gpu.bn.avg_mean))
    # ONNX Runtime computes what the CPU model does.
    with chainlite.using_config('train', False):
        expected = cpu(x).array
    got, = _run_onnx(proto_gpu, [x])
    numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # The GPU model is untouched: the same arrays, still on the GPU.
    for path, p in gpu.namedparams():
        assert p.array is gpu_params[path] and isinstance(p.array, gpu_xp.ndarray)
    assert isinstance(gpu.bn.avg_mean, gpu_xp.ndarray)


def test_export_of_named_gpu_inputs_and_outputs(gpu_xp):
    cpu, gpu, x = _models(gpu_xp)
    proto, inputs, outputs = chainlite_onnx.export(
        gpu, [gpu_xp.asarray(x)], input_names=['image'], output_names=['probs'],
        return_named_inout=True)
    assert [i.name for i in proto.graph.input] == ['image']
    assert isinstance(inputs['image'].array, numpy.ndarray)
    assert isinstance(outputs['probs'].array, numpy.ndarray)
    numpy.testing.assert_array_equal(inputs['image'].array, x)


def test_export_testcase_of_a_gpu_model(gpu_xp, tmp_path):
    cpu, gpu, x = _models(gpu_xp)
    out_cpu, out_gpu = tmp_path / 'cpu', tmp_path / 'gpu'
    chainlite_onnx.export_testcase(cpu, x, str(out_cpu), output_grad=True)
    chainlite_onnx.export_testcase(gpu, gpu_xp.asarray(x), str(out_gpu), output_grad=True)
    names = sorted(os.listdir(out_cpu / 'test_data_set_0'))
    assert sorted(os.listdir(out_gpu / 'test_data_set_0')) == names
    assert any(n.startswith('gradient_') for n in names)
    for name in names + ['../model.onnx']:
        assert (out_gpu / 'test_data_set_0' / name).read_bytes() == \
            (out_cpu / 'test_data_set_0' / name).read_bytes(), name
    # The GPU model's own gradients were not touched by the export's backward.
    assert all(p.grad is None or isinstance(p.grad, gpu_xp.ndarray) for p in gpu.params())


def test_write_tensor_pb_takes_a_gpu_array(gpu_xp, tmp_path):
    value = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    path = str(tmp_path / 'x.pb')
    onnx_helper.write_tensor_pb(path, 'x', gpu_xp.asarray(value))
    tensor = onnx.TensorProto()
    with open(path, 'rb') as f:
        tensor.ParseFromString(f.read())
    assert tensor.name == 'x'
    numpy.testing.assert_array_equal(onnx.numpy_helper.to_array(tensor), value)
