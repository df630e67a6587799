"""Caffe export: the exported network, reloaded with CaffeFunction, computes what the model does."""
import os

import numpy as np
import pytest
from google.protobuf import text_format

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.exporters import caffe
from chainlite.links.caffe import CaffeFunction
from chainlite.links.caffe.protobuf3 import caffe_pb2


class _Net(chainlite.Chain):
    # Every exportable function once: grouped and non-square convolutions, a deconvolution,
    # batch normalization, both poolings, LRN, the elementwise ops, concat, reshape, linear.

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(4, 6, (3, 2), stride=(1, 2), pad=(1, 0), groups=2)
            self.bn = L.BatchNormalization(6, eps=1e-3)
            self.deconv = L.Deconvolution2D(6, 4, 2, stride=2, pad=1)
            self.fc = L.Linear(8 * 9 * 5, 5)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = self.bn(h)
        h = F.leaky_relu(self.deconv(h), slope=0.2)
        a = F.max_pooling_2d(h, 2, stride=2, pad=1)
        b = F.average_pooling_2d(h, 2, stride=2, pad=1)
        h = F.concat((a * b, F.maximum(a, b) + a), axis=1)
        h = F.local_response_normalization(h, n=3, alpha=0.1)
        h = F.sigmoid(h)
        return F.softmax(self.fc(F.reshape(h, (h.shape[0], -1))))


def _init(net, rng):
    for param in net.params():
        param.array[...] = rng.standard_normal(param.shape)
    net.bn.avg_mean[...] = rng.standard_normal(6)
    net.bn.avg_var[...] = rng.uniform(0.5, 2, 6)
    # Moderate logits: a saturated softmax would hide differences upstream.
    net.fc.W.array *= 0.05


def _reload(directory):
    return CaffeFunction(os.path.join(directory, 'chainer_model.caffemodel'))


def test_round_trip_computes_what_the_model_does(tmp_path):
    rng = np.random.default_rng(0)
    net = _Net()
    _init(net, rng)
    x = rng.standard_normal((2, 4, 9, 10)).astype(np.float32)
    caffe.export(net, [x], str(tmp_path), graph_name='net')
    assert sorted(os.listdir(tmp_path)) == ['chainer_model.caffemodel',
                                           'chainer_model.prototxt']
    func = _reload(tmp_path)
    types = [type(getattr(func, name, None)).__name__ for name, _, _ in func.layers]
    assert types.count('BatchNormalization') == 1 and types.count('Scale') == 1
    with chainlite.using_config('train', False):
        expected = net(x).array
        hidden = F.relu(net.conv(x)).array
        y, = func(inputs={'data': x}, outputs=[func.layers[-1][0]])
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-6)
    # The non-square, grouped filters came through in Caffe's layout.
    conv_name = func.layers[0][0]
    np.testing.assert_allclose(func.variables[func.layers[1][0]].array, hidden, rtol=1e-5,
                               atol=1e-6)
    assert conv_name.startswith('Convolution2DFunction-')


def test_the_prototxt_describes_the_same_network(tmp_path):
    net = _Net()
    _init(net, np.random.default_rng(1))
    x = np.zeros((1, 4, 9, 10), np.float32)
    caffe.export(net, [x], tmp_path, graph_name='described')
    text = caffe_pb2.NetParameter()
    text_format.Parse((tmp_path / 'chainer_model.prototxt').read_text(), text)
    model = caffe_pb2.NetParameter.FromString(
        (tmp_path / 'chainer_model.caffemodel').read_bytes())
    assert text.name == model.name == 'described'
    data = text.layer[0]
    assert (data.name, data.type, list(data.top)) == ('data', 'Input', ['data'])
    assert list(data.input_param.shape[0].dim) == [1, 4, 9, 10]
    # The prototxt has the caffemodel's layers, without their blobs.
    assert [(lay.name, lay.type, list(lay.bottom), list(lay.top)) for lay in text.layer[1:]] \
        == [(lay.name, lay.type, list(lay.bottom), list(lay.top)) for lay in model.layer]
    assert all(len(lay.blobs) == 0 for lay in text.layer)
    conv = model.layer[0]
    assert conv.type == 'Convolution' and conv.bottom[0] == 'data'
    p = conv.convolution_param
    assert (p.num_output, p.group, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_h,
            p.pad_w) == (6, 2, 3, 2, 1, 2, 1, 0)
    assert list(conv.blobs[0].shape.dim) == [6, 2, 3, 2]
    np.testing.assert_array_equal(np.array(conv.blobs[0].data, np.float32),
                                  net.conv.W.array.ravel())
    pools = [lay.pooling_param for lay in model.layer if lay.type == 'Pooling']
    assert sorted((q.pool, q.kernel_h, q.stride_h, q.pad_h, q.round_mode) for q in pools) == [
        (caffe_pb2.PoolingParameter.MAX, 2, 2, 1, caffe_pb2.PoolingParameter.CEIL),
        (caffe_pb2.PoolingParameter.AVE, 2, 2, 1, caffe_pb2.PoolingParameter.FLOOR)]
    lrn, = [lay.lrn_param for lay in model.layer if lay.type == 'LRN']
    assert lrn.local_size == 3 and lrn.alpha == pytest.approx(0.3)
    assert all(lay.phase == caffe_pb2.TEST for lay in model.layer)


def test_export_params_false_and_no_directory(tmp_path):
    x = np.ones((1, 3), np.float32)
    caffe.export(L.Linear(3, 2), [x], tmp_path, export_params=False)
    assert os.listdir(tmp_path) == ['chainer_model.prototxt']
    caffe.export(L.Linear(3, 2), [x], None)  # converts, writes nothing
    with pytest.raises(ValueError, match=r'cannot convert Tanh to Caffe; supported: '
                                         'Add, AveragePoolingND'):
        caffe.export(F.tanh, [x], None)


def test_files_are_replaced_atomically(tmp_path):
    x = np.ones((1, 3), np.float32)
    (tmp_path / 'chainer_model.caffemodel').write_bytes(b'old')
    caffe.export(L.Linear(3, 2), [x], tmp_path)
    assert sorted(os.listdir(tmp_path)) == ['chainer_model.caffemodel',
                                           'chainer_model.prototxt']  # no temporary files
    assert _reload(tmp_path).layers[0][0] == 'LinearFunction-0-1'

    def broken(v):
        return F.tanh(v)
    before = (tmp_path / 'chainer_model.caffemodel').read_bytes()
    with pytest.raises(ValueError):
        caffe.export(broken, [x], tmp_path)
    assert (tmp_path / 'chainer_model.caffemodel').read_bytes() == before
    with pytest.raises(FileNotFoundError, match='does not exist'):
        caffe.export(L.Linear(3, 2), [x], tmp_path / 'missing')


def test_several_inputs_and_bad_arguments(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.ones((2, 3), np.float32)
    caffe.export(lambda a, b: F.relu(a + b), [x, y], tmp_path)
    func = _reload(tmp_path)
    z, = func(inputs={'data': x, 'data1': -y * 2}, outputs=[func.layers[-1][0]])
    np.testing.assert_array_equal(z.array, np.maximum(x - 2, 0))
    with pytest.raises(TypeError, match='args must be a non-empty tuple or list'):
        caffe.export(F.relu, x, None)
    with pytest.raises(TypeError, match='must return a Variable or a tuple or list of them'):
        caffe.export(lambda a: a.array, [x], None)
    const = chainlite.Variable(y)
    with pytest.raises(ValueError, match='its input 1 is neither an input of the model'):
        caffe.export(lambda a: a + const, [x], None)
    with pytest.raises(ValueError, match='Eltwise needs inputs of one shape'):
        caffe.export(lambda a: F.reshape(a, (2, 1, 3)) + a, [x], None)
    with pytest.raises(ValueError, match='cover_all=True has no Caffe counterpart'):
        caffe.export(lambda a: F.convolution_2d(a, np.ones((1, 1, 2, 2), np.float32),
                                                stride=2, cover_all=True),
                     [np.ones((1, 1, 3, 3), np.float32)], None)
