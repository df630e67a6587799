"""CaffeFunction: Caffe networks (current and V1 format) run like NumPy computes them by hand."""
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite.links.caffe import CaffeFunction
from chainlite.links.caffe.protobuf3 import caffe_pb2

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _save(net, tmp_path, name='net.caffemodel'):
    path = tmp_path / name
    path.write_bytes(net.SerializeToString())
    return path


def _blob(layer, array):
    blob = layer.blobs.add()
    blob.shape.dim[:] = list(array.shape)
    blob.data[:] = array.ravel().tolist()


def _conv(x, W, b, stride, pad, groups=1):
    # Direct cross-correlation, window by window.
    n, c, h, w = x.shape
    co, cg, kh, kw = W.shape
    og = co // groups
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh, ow = (h + 2 * pad[0] - kh) // stride[0] + 1, (w + 2 * pad[1] - kw) // stride[1] + 1
    y = np.zeros((n, co, oh, ow))
    for g in range(groups):
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + kh,
                           j * stride[1]:j * stride[1] + kw]
                y[:, g * og:(g + 1) * og, i, j] = np.einsum('nckl,ockl->no', patch,
                                                            W[g * og:(g + 1) * og])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_a_network_in_the_current_format_computes_what_numpy_does(tmp_path, rng):
    x = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    W1 = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)  # 2 groups of 2 channels
    b1 = rng.standard_normal(4).astype(np.float32)
    mean = rng.standard_normal(4).astype(np.float32)
    var = rng.uniform(0.5, 2, 4).astype(np.float32)
    gamma, beta = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(
        np.float32)
    W2 = rng.standard_normal((3, 36)).astype(np.float32)
    b2 = rng.standard_normal(3).astype(np.float32)

    net = caffe_pb2.NetParameter(name='small')
    data = net.layer.add(name='data', type='Input', top=['data'])
    data.input_param.shape.add().dim[:] = [2, 4, 5, 5]
    conv = net.layer.add(name='conv1', type='Convolution', bottom=['data'], top=['conv1'])
    conv.convolution_param.num_output = 4
    conv.convolution_param.kernel_size.append(3)
    conv.convolution_param.pad.append(1)
    conv.convolution_param.group = 2
    _blob(conv, W1)
    _blob(conv, b1)
    net.layer.add(name='relu1', type='ReLU', bottom=['conv1'], top=['conv1'])
    pool = net.layer.add(name='pool1', type='Pooling', bottom=['conv1'], top=['pool1'])
    pool.pooling_param.kernel_size = 2
    pool.pooling_param.stride = 2
    bn = net.layer.add(name='bn', type='BatchNorm', bottom=['pool1'], top=['bn'])
    bn.batch_norm_param.use_global_stats = True
    bn.batch_norm_param.eps = 1e-3
    # Caffe stores the running sums and their weight (here 2).
    _blob(bn, mean * 2)
    _blob(bn, var * 2)
    _blob(bn, np.array([2], np.float32))
    sc = net.layer.add(name='scale', type='Scale', bottom=['bn'], top=['scale'])
    sc.scale_param.bias_term = True
    _blob(sc, gamma)
    _blob(sc, beta)
    net.layer.add(name='split', type='Split', bottom=['scale'], top=['a', 'b'])
    elt = net.layer.add(name='sum', type='Eltwise', bottom=['a', 'b'], top=['sum'])
    elt.eltwise_param.coeff[:] = [2.0, -0.5]
    fc = net.layer.add(name='fc', type='InnerProduct', bottom=['sum'], top=['fc'])
    fc.inner_product_param.num_output = 3
    _blob(fc, W2)
    _blob(fc, b2)
    net.layer.add(name='prob', type='Softmax', bottom=['fc'], top=['prob'])

    func = CaffeFunction(_save(net, tmp_path))
    assert [name for name, _, _ in func.layers] == [
        'conv1', 'relu1', 'pool1', 'bn', 'scale', 'sum', 'fc', 'prob']
    assert func.split_map == {'a': 'scale', 'b': 'scale'}
    assert func.layers[5] == ('sum', ['scale', 'scale'], ['sum'])
    assert isinstance(func.conv1, L.Convolution2D) and isinstance(func.fc, L.Linear)
    # A grouped filter bank becomes one dense bank with zero off-diagonal blocks.
    assert func.conv1.W.shape == (4, 4, 3, 3)
    np.testing.assert_array_equal(func.conv1.W.array[:2, 2:], 0)
    np.testing.assert_array_equal(func.conv1.W.array[2:, 2:], W1[2:])

    h = np.maximum(_conv(x.astype(np.float64), W1, b1, (1, 1), (1, 1), groups=2), 0)
    # Caffe rounds the pooled size up: a 5-wide map gives 3 windows, the last one 1 wide.
    hp = np.pad(h, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    h = hp.reshape(2, 4, 3, 2, 3, 2).max(axis=(3, 5))
    h = (h - mean.reshape(1, 4, 1, 1)) / np.sqrt(var.reshape(1, 4, 1, 1) + 1e-3)
    h = h * gamma.reshape(1, 4, 1, 1) + beta.reshape(1, 4, 1, 1)
    h = 1.5 * h
    expected_fc = h.reshape(2, -1) @ W2.T + b2
    expected = _softmax(expected_fc)

    with chainlite.using_config('train', False):
        prob, fc_out = func(inputs={'data': x}, outputs=['prob', 'fc'])
    assert prob.dtype == np.float32
    np.testing.assert_allclose(fc_out.array, expected_fc, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(prob.array, expected, rtol=1e-4, atol=1e-5)
    assert set(func.variables) >= {'data', 'conv1', 'pool1', 'bn', 'scale', 'sum', 'fc'}

    # The emulated net is an ordinary graph: gradients reach the input and the filters.
    xv = chainlite.Variable(x)
    with chainlite.using_config('train', False):
        y, = func(inputs={'data': xv}, outputs=['fc'])
    F.sum(y).backward()
    assert xv.grad.shape == x.shape and func.conv1.W.grad.shape == (4, 4, 3, 3)

    # Disabling a layer leaves its top blob (and what depends on it) uncomputed.
    with pytest.raises(KeyError, match=r"blobs \['prob'\] were neither given nor computed"):
        func(inputs={'data': x}, outputs=['prob'], disable=['fc'])


def test_a_network_in_the_v1_format_computes_what_numpy_does(tmp_path, rng):
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    W1 = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    W2 = rng.standard_normal((4, 2 * 4 * 4)).astype(np.float32)
    b2 = rng.standard_normal(4).astype(np.float32)
    V1 = caffe_pb2.V1LayerParameter
    net = caffe_pb2.NetParameter()
    net.layers.add(name='data', type=V1.DATA, top=['data'])
    conv = net.layers.add(name='conv', type=V1.CONVOLUTION, bottom=['data'], top=['conv'])
    conv.convolution_param.num_output = 2
    conv.convolution_param.kernel_h, conv.convolution_param.kernel_w = 2, 3
    conv.convolution_param.stride_h, conv.convolution_param.stride_w = 1, 1
    conv.convolution_param.bias_term = False
    # The deprecated 4-d blob fields instead of a shape.
    blob = conv.blobs.add(num=2, channels=3, height=2, width=3)
    blob.data[:] = W1.ravel().tolist()
    relu = net.layers.add(name='relu', type=V1.RELU, bottom=['conv'], top=['relu'])
    relu.relu_param.negative_slope = 0.1
    pool = net.layers.add(name='pool', type=V1.POOLING, bottom=['relu'], top=['pool'])
    pool.pooling_param.pool = caffe_pb2.PoolingParameter.AVE
    pool.pooling_param.kernel_size = 2
    pool.pooling_param.stride = 1
    fc = net.layers.add(name='fc', type=V1.INNER_PRODUCT, bottom=['pool'], top=['fc'])
    fc.inner_product_param.num_output = 4
    # V1 models store the weight as a 1 x 1 x out x in blob.
    blob = fc.blobs.add(num=1, channels=1, height=4, width=32)
    blob.data[:] = W2.ravel().tolist()
    _blob(fc, b2)
    net.layers.add(name='loss', type=V1.SOFTMAX_LOSS, bottom=['fc', 'label'], top=['loss'])

    func = CaffeFunction(_save(net, tmp_path))
    assert [name for name, _, _ in func.layers] == ['conv', 'relu', 'pool', 'fc', 'loss']
    h = _conv(x.astype(np.float64), W1, None, (1, 1), (0, 0))
    h = np.where(h > 0, h, 0.1 * h)
    h = sum(h[:, :, i:i + 4, j:j + 4] for i in range(2) for j in range(2)) / 4
    expected = h.reshape(2, -1) @ W2.T + b2
    t = np.array([1, 3], np.int32)
    fc_out, loss = func(inputs={'data': x, 'label': t}, outputs=['fc', 'loss'])
    np.testing.assert_allclose(fc_out.array, expected, rtol=1e-4, atol=1e-4)
    log_p = np.log(_softmax(expected))
    np.testing.assert_allclose(loss.array, -log_p[[0, 1], t].mean(), rtol=1e-4)


def test_concat_slice_lrn_dropout_reshape_sigmoid_and_max(tmp_path, rng):
    x = rng.standard_normal((2, 6, 3, 3)).astype(np.float32)
    net = caffe_pb2.NetParameter()
    sl = net.layer.add(name='slice', type='Slice', bottom=['x'], top=['p', 'q', 'r'])
    sl.slice_param.axis = 1
    sl.slice_param.slice_point[:] = [1, 4]
    cat = net.layer.add(name='cat', type='Concat', bottom=['r', 'p'], top=['cat'])
    cat.concat_param.axis = 1
    lrn = net.layer.add(name='lrn', type='LRN', bottom=['cat'], top=['lrn'])
    lrn.lrn_param.local_size, lrn.lrn_param.alpha, lrn.lrn_param.beta = 3, 0.3, 0.75
    lrn.lrn_param.k = 2
    net.layer.add(name='drop', type='Dropout', bottom=['lrn'], top=['lrn'])
    mx = net.layer.add(name='max', type='Eltwise', bottom=['lrn', 'cat'], top=['max'])
    mx.eltwise_param.operation = caffe_pb2.EltwiseParameter.MAX
    rs = net.layer.add(name='flat', type='Reshape', bottom=['max'], top=['flat'])
    rs.reshape_param.shape.dim[:] = [2, 27]
    net.layer.add(name='sig', type='Sigmoid', bottom=['flat'], top=['sig'])

    func = CaffeFunction(_save(net, tmp_path))
    with chainlite.using_config('train', False):  # dropout passes its input through
        q, sig = func(inputs={'x': x}, outputs=['q', 'sig'])
    np.testing.assert_array_equal(q.array, x[:, 1:4])
    c = np.concatenate([x[:, 4:], x[:, :1]], axis=1).astype(np.float64)
    sq = np.pad(c * c, ((0, 0), (1, 1), (0, 0), (0, 0)))
    window = sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]
    # Caffe's alpha is divided by the window size.
    lrn_ref = c / (2 + 0.3 / 3 * window) ** 0.75
    expected = 1 / (1 + np.exp(-np.maximum(lrn_ref, c).reshape(2, 27)))
    np.testing.assert_allclose(sig.array, expected, rtol=1e-5)


def test_global_and_floor_rounded_pooling(tmp_path, rng):
    x = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
    net = caffe_pb2.NetParameter()
    g = net.layer.add(name='g', type='Pooling', bottom=['x'], top=['g'])
    g.pooling_param.global_pooling = True
    g.pooling_param.pool = caffe_pb2.PoolingParameter.AVE
    f = net.layer.add(name='f', type='Pooling', bottom=['x'], top=['f'])
    f.pooling_param.kernel_size, f.pooling_param.stride = 2, 2
    f.pooling_param.round_mode = caffe_pb2.PoolingParameter.FLOOR
    func = CaffeFunction(_save(net, tmp_path))
    gy, fy = func(inputs={'x': x}, outputs=['g', 'f'])
    np.testing.assert_allclose(gy.array[:, :, 0, 0], x.mean(axis=(2, 3)), rtol=1e-6)
    np.testing.assert_array_equal(fy.array, x[:, :, :4].reshape(1, 2, 2, 2, 2, 2).max(
        axis=(3, 5)))


@pytest.mark.parametrize('dims, axis, num_axes, expected', [
    ([0, -1], 0, -1, (2, 60)),          # 0 keeps the input's size
    ([3, 1], 1, 1, (2, 3, 1, 4, 5)),    # only axis 1 is replaced
    ([-1], -3, -1, (2, 3, 20)),         # axis counts from the end; -1 infers
    ([0, 4, 3], 0, 3, (2, 4, 3, 5)),
])
def test_reshape_keeps_and_replaces_axes_as_caffe_does(tmp_path, dims, axis, num_axes,
                                                       expected):
    net = caffe_pb2.NetParameter()
    rs = net.layer.add(name='r', type='Reshape', bottom=['x'], top=['y'])
    rs.reshape_param.shape.dim[:] = dims
    rs.reshape_param.axis, rs.reshape_param.num_axes = axis, num_axes
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    y, = CaffeFunction(_save(net, tmp_path))(inputs={'x': x}, outputs=['y'])
    assert y.shape == expected
    np.testing.assert_array_equal(y.array.ravel(), x.ravel())


def _varint(n):
    out = b''
    while True:
        byte, n = n & 0x7f, n >> 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _field(number, payload):
    # A length-delimited field (wire type 2).
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_messages_have_caffe_field_numbers(tmp_path):
    # A caffemodel encoded by hand from caffe.proto's numbers, independently of protobuf.
    shape = _field(1, _varint(2) + _varint(3))                            # BlobShape.dim
    weight = _field(7, shape) + _field(5, struct.pack('<6f', 1, 2, 3, 4, 5, 6))
    ip_param = _varint(1 << 3) + _varint(2) + _varint(2 << 3) + _varint(0)  # no bias
    layer = (_field(1, b'fc') + _field(2, b'InnerProduct') + _field(3, b'x') +
             _field(4, b'y') + _field(7, weight) + _field(117, ip_param))
    relu = _field(4, b'r') + _varint(5 << 3) + _varint(18) + _field(2, b'y') + _field(3, b'z')
    path = tmp_path / 'hand.caffemodel'
    path.write_bytes(_field(1, b'hand') + _field(100, layer))
    func = CaffeFunction(str(path))
    y, = func(inputs={'x': np.array([[1, 0, -1]], np.float32)}, outputs=['y'])
    np.testing.assert_array_equal(y.array, [[-2, -2]])
    assert func.fc.b is None

    # The old format: NetParameter.layers (2), V1LayerParameter.type RELU = 18.
    path.write_bytes(_field(2, relu))
    func = CaffeFunction(path)
    z, = func(inputs={'y': np.array([-1.0, 2.0], np.float32)}, outputs=['z'])
    np.testing.assert_array_equal(z.array, [0, 2])

    # And the other way: packed repeated fields, defaults, enum values.
    blob = caffe_pb2.BlobProto(data=[1.0])
    blob.shape.dim.append(1)
    assert blob.SerializeToString() == _field(5, struct.pack('<f', 1)) + _field(7, _field(
        1, _varint(1)))
    conv = caffe_pb2.ConvolutionParameter()
    assert conv.bias_term and conv.group == 1 and caffe_pb2.TEST == 1
    assert caffe_pb2.PoolingParameter().stride == 1
    assert caffe_pb2.LRNParameter().local_size == 5
    assert caffe_pb2.V1LayerParameter.SOFTMAX_LOSS == 21
    assert not caffe_pb2.SliceParameter().HasField('axis')


def test_unsupported_layers_are_skipped_with_a_warning(tmp_path):
    net = caffe_pb2.NetParameter()
    net.layer.add(name='in', type='Input', top=['x'])
    net.layer.add(name='d', type='Data', top=['x'])
    net.layer.add(name='t', type='TanH', bottom=['x'], top=['t'])
    with pytest.warns(UserWarning, match='Skip the layer "t", since CaffeFunction does not '
                                         'support TanH layer'):
        func = CaffeFunction(_save(net, tmp_path))
    assert func.layers == []


@pytest.mark.parametrize('layer_type, param, value, match', [
    ('Pooling', 'pooling_param', ('pool', 2), 'stochastic pooling'),
    ('LRN', 'lrn_param', ('norm_region', 1), 'within channels'),
    ('InnerProduct', 'inner_product_param', ('axis', 0), 'axis=0'),
    ('Softmax', 'softmax_param', ('axis', 0), 'axis=0'),
    ('SoftmaxWithLoss', 'softmax_param', ('axis', 2), 'axis=2'),
])
def test_settings_chainlite_does_not_emulate_raise(tmp_path, layer_type, param, value, match):
    net = caffe_pb2.NetParameter()
    layer = net.layer.add(name='l', type=layer_type)
    setattr(getattr(layer, param), *value)
    with pytest.raises(RuntimeError, match="layer 'l'.*" + match):
        CaffeFunction(_save(net, tmp_path))


def test_bad_blobs_and_inputs_raise_clear_errors(tmp_path):
    net = caffe_pb2.NetParameter()
    fc = net.layer.add(name='fc', type='InnerProduct')
    fc.inner_product_param.bias_term = False
    _blob(fc, np.zeros((2, 3, 4, 5, 6), np.float32))
    with pytest.raises(RuntimeError, match="InnerProduct layer 'fc' has 5 axes"):
        CaffeFunction(_save(net, tmp_path))
    fc.blobs[0].shape.dim[:] = [2, 3]
    with pytest.raises(ValueError, match=r"blob 0 \(the weight\) of layer 'fc' declares shape "
                                         r"\(2, 3\) \(6 values\) but holds 720 values"):
        CaffeFunction(_save(net, tmp_path))
    fc.blobs[0].data[:] = [0.0] * 6
    fc.inner_product_param.bias_term = True
    _blob(fc, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="layer 'fc' holds a blob of 5 values where a "
                                         r'parameter of shape \(2,\)'):
        CaffeFunction(_save(net, tmp_path))

    net = caffe_pb2.NetParameter()
    elt = net.layer.add(name='e', type='Eltwise', bottom=['a', 'b'], top=['c'])
    elt.eltwise_param.coeff[:] = [1.0]
    func = CaffeFunction(_save(net, tmp_path))
    one = np.ones(2, np.float32)
    with pytest.raises(ValueError, match="Eltwise layer 'e' has 1 coefficients for 2 bottoms"):
        func(inputs={'a': one, 'b': one}, outputs=['c'])
    with pytest.raises(AssertionError):  # what Chainer raises
        func(inputs={'a': one, 'b': one}, outputs=['c'])
    with pytest.raises(ValueError, match='train argument is not supported anymore'):
        func(inputs={}, outputs=[], train=False)
    with pytest.raises(TypeError):
        func(inputs={}, outputs=[], volatile=True)


def _layer(net, type_, name='l', bottom=('x',), **params):
    layer = net.layer.add(name=name, type=type_, bottom=list(bottom), top=[name])
    for field, value in params.items():
        param, attr = field.split('__')
        target = getattr(getattr(layer, param), attr)
        if isinstance(value, list):
            target.extend(value)
        else:
            setattr(getattr(layer, param), attr, value)
    return layer


@pytest.mark.parametrize('type_, params, blobs, missing', [
    ('InnerProduct', {}, [], 'blob 0 (the weight)'),
    ('InnerProduct', {}, [(2, 3)], 'blob 1 (the bias)'),
    ('Convolution', {'convolution_param__kernel_size': [1]}, [], 'blob 0 (the weight)'),
    ('Convolution', {'convolution_param__kernel_size': [1]}, [(2, 3, 1, 1)],
     'blob 1 (the bias)'),
    ('Deconvolution', {'convolution_param__kernel_size': [1]}, [], 'blob 0 (the weight)'),
    ('BatchNorm', {}, [(3,)], 'blob 1 (the variance)'),
    ('Scale', {}, [], 'blob 0 (the scale)'),
    ('Scale', {'scale_param__bias_term': True}, [(3,)], 'blob 1 (the bias)'),
])
def test_a_layer_missing_a_blob_names_the_layer_and_the_blob(tmp_path, type_, params, blobs,
                                                            missing):
    net = caffe_pb2.NetParameter()
    layer = _layer(net, type_, **params)
    for shape in blobs:
        _blob(layer, np.ones(shape, np.float32))
    with pytest.raises(ValueError, match=r"CaffeFunction: layer 'l' has no %s: it holds "
                                         r"%d blobs" % (re.escape(missing), len(blobs))):
        CaffeFunction(_save(net, tmp_path))


def test_an_empty_batch_norm_factor_blob_is_refused(tmp_path):
    net = caffe_pb2.NetParameter()
    layer = _layer(net, 'BatchNorm')
    _blob(layer, np.ones(3, np.float32))
    _blob(layer, np.ones(3, np.float32))
    layer.blobs.add().shape.dim[:] = [0]
    with pytest.raises(ValueError, match=r"CaffeFunction: blob 2 \(the moving average "
                                         r"factor\) of layer 'l' holds no values"):
        CaffeFunction(_save(net, tmp_path))


def _huge_blob(layer, dims, values=6):
    blob = layer.blobs.add()
    blob.shape.dim[:] = list(dims)
    blob.data[:] = [1.0] * values


@pytest.mark.parametrize('type_, params, dims, match', [
    ('InnerProduct', {'inner_product_param__bias_term': False}, (100000, 100000),
     r"blob 0 \(the weight\) of layer 'l' declares shape \(100000, 100000\) "
     r"\(10000000000 values\) but holds 6 values"),
    ('Convolution', {'convolution_param__kernel_size': [1],
                     'convolution_param__bias_term': False}, (100000, 100000, 1, 1),
     r"blob 0 \(the weight\) of layer 'l' declares shape \(100000, 100000, 1, 1\) "
     r"\(10000000000 values\) but holds 6 values"),
    ('Scale', {}, (100000, 100000),
     r"blob 0 \(the scale\) of layer 'l' declares shape \(100000, 100000\) "
     r"\(10000000000 values\) but holds 6 values"),
    # The kernel size comes from the layer's settings: it must be the blob's.
    ('Convolution', {'convolution_param__kernel_size': [100000],
                     'convolution_param__bias_term': False}, (1, 6, 1, 1),
     r"layer 'l' has kernel size \(100000, 100000\), but its weight \(blob 0\) has shape "
     r"\(1, 6, 1, 1\)"),
])
def test_a_blob_declaring_more_values_than_it_holds_is_refused_before_allocating(
        tmp_path, type_, params, dims, match):
    import tracemalloc
    net = caffe_pb2.NetParameter()
    _huge_blob(_layer(net, type_, **params), dims)
    path = _save(net, tmp_path)
    assert path.stat().st_size < 100
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match='CaffeFunction: ' + match):
            CaffeFunction(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def _run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get(
        'PYTHONPATH')])))
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_protobuf_is_imported_only_when_a_model_is_loaded():
    out = _run('import sys, chainlite, chainlite.links, chainlite.links.caffe, '
               'chainlite.exporters.caffe\n'
               'print("google.protobuf" in sys.modules)')
    assert out.strip() == 'False'


def test_without_protobuf_loading_and_exporting_say_to_install_it():
    out = _run('import sys\n'
               'sys.modules["google.protobuf"] = None  # as if it were not installed\n'
               'import numpy as np\n'
               'from chainlite.links import caffe\n'
               'from chainlite.exporters import caffe as exporter\n'
               'for call in (lambda: caffe.CaffeFunction("model.caffemodel"),\n'
               '             lambda: exporter.export(lambda x: x, [np.zeros(1)])):\n'
               '    try:\n'
               '        call()\n'
               '    except ImportError as e:\n'
               '        print(e)\n')
    lines = out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert 'needs the protobuf package: install it (pip install protobuf' in line
