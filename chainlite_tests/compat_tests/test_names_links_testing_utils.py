"""Chainer 7.8.1 names of links, testing, utils, hooks, initializers, optimizers, distributions,
graph optimizations, serializers and memory layouts, added so that they resolve under compat
(test_chainer_names.py).

Each test checks what the name does, as Chainer does it without a GPU.
"""
import importlib
import math

import numpy as np
import pytest

from chainlite import compat


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


# -- optimizers --------------------------------------------------------------------------------

_HYPERPARAMETERS = {
    'ada_delta': ('AdaDelta', {'rho', 'eps'}),
    'ada_grad': ('AdaGrad', {'lr', 'eps'}),
    'adam': ('Adam', {'alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate', 'amsgrad',
                      'adabound', 'final_lr', 'gamma'}),
    'corrected_momentum_sgd': ('CorrectedMomentumSGD', {'lr', 'momentum'}),
    'momentum_sgd': ('MomentumSGD', {'lr', 'momentum'}),
    'msvag': ('MSVAG', {'lr', 'beta', 'eta', 'weight_decay_rate'}),
    'nesterov_ag': ('NesterovAG', {'lr', 'momentum'}),
    'rmsprop': ('RMSprop', {'lr', 'alpha', 'eps', 'eps_inside_sqrt'}),
    'rmsprop_graves': ('RMSpropGraves', {'lr', 'alpha', 'momentum', 'eps'}),
    'sgd': ('SGD', {'lr'}),
    'smorms3': ('SMORMS3', {'lr', 'eps'}),
}


@pytest.mark.parametrize('module_name', sorted(_HYPERPARAMETERS))
def test_optimizer_hyperparameter_protocols(chainer, module_name):
    module = importlib.import_module('chainer.optimizers.' + module_name)
    prefix, attributes = _HYPERPARAMETERS[module_name]
    protocol = getattr(module, prefix + 'Hyperparameter')
    assert set(protocol.__annotations__) == attributes
    # The optimizer's own hyperparameters satisfy the protocol; an empty one does not.
    assert isinstance(getattr(module, prefix)().hyperparam, protocol)
    assert not isinstance(chainer.optimizer.Hyperparameter(), protocol)


def test_adam_intermediate_dtype_and_axpby(chainer):
    from chainer.optimizers import adam
    assert adam._get_intermediate_dtype(np.float16) == np.float32
    assert adam._get_intermediate_dtype(np.dtype(np.float64)) == np.float64
    x = np.array([1.0, 2.0], np.float32)
    adam._inplace_axpby(x, 0.5, 2.0, np.array([1.0, -1.0], np.float32))
    np.testing.assert_allclose(x, [2.5, -1.0])
    adam._inplace_axpby(x, 1, 1.0, np.array([1.0, 1.0], np.float32))
    np.testing.assert_allclose(x, [3.5, 0.0])
    assert x.dtype == np.float32


# -- distributions -----------------------------------------------------------------------------

def test_distribution_constants(chainer):
    from chainer.distributions import gumbel, log_normal, multivariate_normal, normal
    assert gumbel.EULER == pytest.approx(0.5772156649015329)
    log_2pi = math.log(2 * math.pi)
    assert normal.LOGPROBC == log_normal.LOGPROBC == multivariate_normal.LOGPROBC \
        == pytest.approx(-0.5 * log_2pi)
    assert normal.ENTROPYC == multivariate_normal.ENTROPYC == pytest.approx(0.5 * (log_2pi + 1))
    assert normal.PROBC == pytest.approx(1 / math.sqrt(2 * math.pi))
    # The constants are those the distributions use.
    d = normal.Normal(np.zeros(1, np.float32), np.ones(1, np.float32))
    assert d.log_prob(np.zeros(1, np.float32)).array[0] == pytest.approx(normal.LOGPROBC)
    assert d.entropy.array[0] == pytest.approx(normal.ENTROPYC)
    assert multivariate_normal.available_cpu is (
        importlib.util.find_spec('scipy') is not None)


# -- links.caffe -------------------------------------------------------------------------------

def test_caffe_layer_decorator_extends_caffe_function(chainer, tmp_path):
    # ChainerCV's caffe2npz registers its own layer types this way.
    caffe_pb2 = pytest.importorskip('chainlite.links.caffe.protobuf3.caffe_pb2')
    import chainer.links.caffe.caffe_function as caffe
    net = caffe_pb2.NetParameter()
    layer = net.layer.add(name='norm', type='MyNormalize', bottom=['data'], top=['norm'])
    blob = layer.blobs.add(data=[2.0, 3.0])
    blob.shape.dim[:] = [2]
    net.layer.add(name='skip', type='MySkip', bottom=['norm'], top=['skip'])
    path = tmp_path / 'net.caffemodel'
    path.write_bytes(net.SerializeToString())
    seen = []

    class MyCaffeFunction(caffe.CaffeFunction):

        @caffe._layer('MyNormalize', None)
        def _setup_normalize(self, layer):
            scale = np.array(layer.blobs[0].data, np.float32)
            assert caffe._get_num(layer.blobs[0]) == 2
            self.forwards[layer.name] = caffe._SingleArgumentFunction(
                lambda x, s: x * s.reshape(1, -1), scale)
            self._add_layer(layer)  # Chainer's call: the layer runs self.forwards[name]

        @caffe._layer('MySkip', 'RELU')
        def _skip(self, layer):
            seen.append(layer.name)

    try:
        func = MyCaffeFunction(str(path))
        y, = func(inputs={'data': chainer.Variable(np.ones((1, 2), np.float32))},
                  outputs=['norm'])
        np.testing.assert_allclose(y.array, [[2.0, 3.0]])
        assert seen == ['skip']
        assert caffe._V1_TYPES['RELU'] == 'MySkip'
    finally:
        del caffe._SETUP['MyNormalize'], caffe._SETUP['MySkip']
        caffe._V1_TYPES['RELU'] = 'ReLU'


def test_caffe_blob_geometry_helpers(chainer):
    caffe_pb2 = pytest.importorskip('chainlite.links.caffe.protobuf3.caffe_pb2')
    import chainer.links.caffe.caffe_function as caffe
    blob = caffe_pb2.BlobProto()
    blob.shape.dim[:] = [5, 4, 3, 2]
    assert (caffe._get_num(blob), caffe._get_channels(blob), caffe._get_height(blob),
            caffe._get_width(blob)) == (5, 4, 3, 2)
    matrix = caffe_pb2.BlobProto()
    matrix.shape.dim[:] = [7, 6]
    assert (caffe._get_height(matrix), caffe._get_width(matrix)) == (7, 6)
    legacy = caffe_pb2.BlobProto(num=1, channels=2, height=3, width=4)
    assert (caffe._get_num(legacy), caffe._get_channels(legacy), caffe._get_height(legacy),
            caffe._get_width(legacy)) == (1, 2, 3, 4)
    vector = caffe_pb2.BlobProto()
    vector.shape.dim[:] = [3]
    with pytest.raises(RuntimeError, match='1-dimensional'):
        caffe._get_height(vector)
    conv = caffe_pb2.ConvolutionParameter(kernel_h=3, kernel_w=5, stride=[2], pad=[])
    assert caffe._get_ksize(conv) == (3, 5)
    assert caffe._get_stride(conv) == 2 and caffe._get_pad(conv) == 0


def test_caffe_convolution_blob_fills_groups(chainer):
    caffe_pb2 = pytest.importorskip('chainlite.links.caffe.protobuf3.caffe_pb2')
    import chainer.links.caffe.caffe_function as caffe
    # Two groups of one channel each: a block-diagonal filter bank.
    blob = caffe_pb2.BlobProto(data=[1, 3])
    W = np.full((2, 2, 1, 1), 9, np.float32)
    caffe._ConvolutionBlob(blob, 2)(W)
    np.testing.assert_array_equal(W[:, :, 0, 0], [[1, 0], [0, 3]])


def test_caffe_layer_callables(chainer):
    import chainer.links.caffe.caffe_function as caffe
    x = np.array([[-1.0, 2.0]], np.float32)
    np.testing.assert_allclose(caffe._SingleArgumentFunction(
        chainer.functions.leaky_relu, slope=0.5)(x).array, [[-0.5, 2.0]])
    np.testing.assert_allclose(caffe._ListArgumentFcuntion(
        chainer.functions.concat, axis=0)(x, x).array, np.concatenate([x, x]))
    seen = []

    def record(v):
        seen.append((chainer.config.train, chainer.config.use_cudnn))
        return v

    caffe._SingleArgumentFunctionTestMode(record)(x)
    caffe._SingleArgumentFunctionWithCudnn('never', record)(x)
    assert seen == [(False, chainer.config.use_cudnn), (chainer.config.train, 'never')]
    chain = chainer.Chain()
    with chain.init_scope():
        chain.fc = chainer.links.Linear(2, 1, initialW=1.0, nobias=True)
    np.testing.assert_allclose(caffe._CallChildLink(chain, 'fc')(x).array, [[1.0]])
    a, b = np.array([1.0, 5.0]), np.array([3.0, 2.0])
    (prod,), (total,), (most,) = (caffe._EltwiseFunction(0)(a, b),
                                  caffe._EltwiseFunction(1, [1.0, -1.0])(a, b),
                                  caffe._EltwiseFunction(2)(a, b))
    np.testing.assert_allclose(prod, [3.0, 10.0])
    np.testing.assert_allclose(total, [-2.0, 3.0])
    np.testing.assert_allclose(most.array, [3.0, 5.0])
    with pytest.raises(AssertionError):
        caffe._EltwiseFunction(1, [1.0])(a, b)
    with pytest.raises(ValueError):
        caffe._EltwiseFunction(3)(a, b)
