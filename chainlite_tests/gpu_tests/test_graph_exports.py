"""The Caffe exporter and computational_graph with a model and inputs on the GPU.

The Caffe files written for a GPU model are byte-identical to the CPU model's (the arrays are
read through their host copies, as Chainer's exporter reads CuPy arrays), and the
computational graph of a GPU computation has the CPU one's nodes.
"""
import copy
import re

import numpy

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import computational_graph
from chainlite.exporters import caffe


class Net(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 2, 3, pad=1)
            self.fc = L.Linear(None, 3)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv(x)), 2)
        return F.softmax(self.fc(h))


def _models(gpu_xp):
    numpy.random.seed(4)
    cpu = Net()
    x = numpy.random.uniform(-1, 1, (2, 1, 4, 4)).astype(numpy.float32)
    cpu(x)
    gpu = copy.deepcopy(cpu)
    gpu.to_device('@cupy:0')
    return cpu, gpu, x


def test_caffe_export_of_a_gpu_model(gpu_xp, tmp_path):
    cpu, gpu, x = _models(gpu_xp)
    (tmp_path / 'cpu').mkdir()
    (tmp_path / 'gpu').mkdir()
    caffe.export(cpu, [x], str(tmp_path / 'cpu'))
    caffe.export(gpu, [chainlite.Variable(gpu_xp.asarray(x))], str(tmp_path / 'gpu'))
    for name in ('chainer_model.prototxt', 'chainer_model.caffemodel'):
        assert (tmp_path / 'gpu' / name).read_bytes() == (tmp_path / 'cpu' / name).read_bytes()
    assert isinstance(gpu.conv.W.array, gpu_xp.ndarray)


def _shape_free(dot):
    # Node ids differ between runs; the labels and their order do not.
    return re.findall(r'label="([^"]*)"', dot)


def test_computational_graph_of_a_gpu_computation(gpu_xp):
    cpu, gpu, x = _models(gpu_xp)
    y_cpu = cpu(x)
    y_gpu = gpu(gpu_xp.asarray(x))
    assert isinstance(y_gpu.array, gpu_xp.ndarray)
    g_cpu = computational_graph.build_computational_graph([y_cpu])
    g_gpu = computational_graph.build_computational_graph([y_gpu])
    assert len(g_gpu.nodes) == len(g_cpu.nodes) and len(g_gpu.edges) == len(g_cpu.edges)
    assert sorted(_shape_free(g_gpu.dump())) == sorted(_shape_free(g_cpu.dump()))
    assert 'float32' in g_gpu.dump()
