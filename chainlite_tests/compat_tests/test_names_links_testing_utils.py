"""Chainer 7.8.1 names of links, testing, utils, hooks, initializers, optimizers, distributions,
graph optimizations, serializers and memory layouts, added so that they resolve under compat
(test_chainer_names.py).

Each test checks what the name does, as Chainer does it without a GPU.
"""
import importlib
import math

import numpy as np
import pytest



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


# -- links: helpers of the connection, loss, normalization, rnn and vision modules ------------

def test_connection_pair_helpers(chainer):
    from chainer.links.connection import (convolution_2d, deconvolution_2d,
                                          depthwise_convolution_2d, dilated_convolution_2d,
                                          local_convolution_2d)
    for module in (convolution_2d, deconvolution_2d, depthwise_convolution_2d,
                   dilated_convolution_2d):
        assert module._pair(3) == (3, 3)
        pair = [1, 2]
        assert module._pair(pair) is pair  # indexable: returned as is, as in Chainer
    # Chainer's helper ignores the stride.
    assert local_convolution_2d._conv_output_length(7, 3, 2) == 5


def test_n_step_rnn_list_helpers(chainer):
    from chainer.links.rnn import n_step_rnn
    xs = [np.zeros(2), np.zeros(5), np.zeros(1), np.zeros(3)]
    order = n_step_rnn.argsort_list_descent(xs)
    assert order.dtype == np.int32 and order.tolist() == [1, 3, 0, 2]
    items = ['a', 'b', 'c', 'd']
    permuted = n_step_rnn.permutate_list(items, order, inv=False)
    assert permuted == ['b', 'd', 'a', 'c']
    assert n_step_rnn.permutate_list(permuted, order, inv=True) == items


def test_hierarchical_softmax_tree_parser(chainer):
    from chainer.links.loss import hierarchical_softmax
    parser = hierarchical_softmax.TreeParser(np.float64)
    parser.parse((('a', ('b', 'c')), 'd'))
    assert parser.size() == 3
    paths, codes = parser.get_paths(), parser.get_codes()
    assert {k: v.tolist() for k, v in paths.items()} == {
        'a': [0, 1], 'b': [0, 1, 2], 'c': [0, 1, 2], 'd': [0]}
    assert {k: v.tolist() for k, v in codes.items()} == {
        'a': [1, 1], 'b': [1, -1, 1], 'c': [1, -1, -1], 'd': [-1]}
    assert paths['a'].dtype == np.int32 and codes['a'].dtype == np.float64
    with pytest.raises(ValueError):
        parser.parse((1, 2, 3))


def test_decorrelated_batch_normalization_old_layouts(chainer):
    from chainer.links.normalization import decorrelated_batch_normalization as dbn
    mean = np.array([1.0, 2.0])
    assert dbn.fix_avg_mean(np.ones((2, 2)), 2).shape == (2, 2)
    with pytest.warns(UserWarning, match='old'):
        fixed = dbn.fix_avg_mean(mean, 3)
    np.testing.assert_array_equal(fixed, [mean] * 3)
    assert dbn.fix_avg_projection(np.eye(2), 1).shape == (1, 2, 2)  # one group: no warning
    with pytest.raises(ValueError):
        dbn.fix_avg_projection(np.ones(2), 2)
    with pytest.warns(UserWarning):
        dbn._warn_old_model()
    assert dbn._broadcast_to(mean, (2, 2)).shape == (2, 2)

    # A deserializer reading an old file through the patches.
    class Stored(chainer.serializer.Deserializer):
        def __call__(self, key, value):
            stored = {'avg_mean': mean, 'N': 4}[key]
            if value is None:
                return stored
            value[...] = stored
            return value

    patched = dbn._PatchedDeserializer(Stored(), {
        'avg_mean': lambda a: dbn.fix_avg_mean(a, 1)})
    target = np.zeros((1, 2))
    assert patched('avg_mean', target) is target
    np.testing.assert_array_equal(target, [[1.0, 2.0]])
    assert patched('avg_mean', None).shape == (1, 2)
    assert patched('N', None) == 4 and 'Stored' in repr(patched)


class _Namespace:
    pass


def _fake_caffe_bn(ns, suffix, value):
    # A Caffe model's conv, BatchNorm and Scale layers for one branch, filled with ``value``.
    conv, bn, scale, bias = _Namespace(), _Namespace(), _Namespace(), _Namespace()
    conv.W = _Namespace()
    scale.W, bias.b, scale.bias = _Namespace(), _Namespace(), bias
    conv.W.array = value
    bn.avg_mean, bn.avg_var = value + 1, value + 2
    scale.W.array, bias.b.array = value + 3, value + 4
    setattr(ns, 'res' + suffix, conv)
    setattr(ns, 'bn' + suffix, bn)
    setattr(ns, 'scale' + suffix, scale)


def test_resnet_transfer_block(chainer):
    from chainer.links.model.vision import resnet
    block = resnet.BuildingBlock(2, 4, 2, 4, 1)
    src = _Namespace()
    for k, (name, branch) in enumerate([('2a', '2a'), ('2a', '2b'), ('2a', '2c'), ('2a', '1'),
                                        ('2b', '2a'), ('2b', '2b'), ('2b', '2c')]):
        _fake_caffe_bn(src, '{}_branch{}'.format(name, branch), np.float32(10 * k))
    resnet._transfer_block(src, block, ['2a', '2b'])
    assert (block.a.conv4.W.array == 30).all() and (block.a.bn4.avg_var == 32).all()
    assert (block.b1.conv3.W.array == 60).all()
    assert (block.b1.bn3.gamma.array == 63).all() and (block.b1.bn3.beta.array == 64).all()
    assert (block.a.bn1.avg_mean == 1).all()


def test_resnet_transfer_whole_models_walk_caffes_names(chainer):
    from chainer.links.model.vision import resnet
    seen = []
    stages = [_Namespace() for _ in range(4)]

    def record(src, dst, names):
        seen.append((stages.index(dst), list(names)))

    dst = _Namespace()
    dst.res2, dst.res3, dst.res4, dst.res5 = stages
    src = _Namespace()
    for name in ('conv1', 'fc1000'):
        layer = _Namespace()
        layer.W, layer.b = _Namespace(), _Namespace()
        layer.W.array, layer.b.array = np.zeros(1), np.zeros(1)
        setattr(src, name, layer)
    dst.conv1, dst.fc6 = src.conv1, src.fc1000
    _fake_caffe_bn(src, '_conv1', np.float32(0))  # bn_conv1 and scale_conv1
    dst.bn1 = _Namespace()
    dst.bn1.avg_mean, dst.bn1.avg_var = np.zeros(1), np.zeros(1)
    dst.bn1.gamma, dst.bn1.beta = _Namespace(), _Namespace()
    dst.bn1.gamma.array, dst.bn1.beta.array = np.zeros(1), np.zeros(1)
    original = resnet._transfer_block
    resnet._transfer_block = record
    try:
        resnet._transfer_resnet101(src, dst)
        resnet._transfer_resnet152(src, dst)
        resnet._transfer_resnet50(src, dst)
    finally:
        resnet._transfer_block = original
    lengths = [[len(n) for _, n in seen[i:i + 4]] for i in (0, 4, 8)]
    assert lengths == [[3, 4, 23, 3], [3, 8, 36, 3], [3, 4, 6, 3]]
    assert seen[1][1] == ['3a', '3b1', '3b2', '3b3'] and seen[6][1][-1] == '4b35'
    assert dst.bn1.gamma.array[0] == 3 and dst.bn1.beta.array[0] == 4


def test_googlenet_transfer_inception(chainer):
    from chainer.links.model.vision import googlenet
    dst = _Namespace()
    dst.inc3a = chainer.links.Inception(3, 2, 2, 2, 2, 2, 2)
    src = {}
    for k, part in enumerate(['1x1', '3x3_reduce', '3x3', '5x5_reduce', '5x5', 'pool_proj']):
        layer = _Namespace()
        layer.W, layer.b = _Namespace(), _Namespace()
        layer.W.array, layer.b.array = np.float32(k), np.float32(-k)
        src['inception_3a/' + part] = layer
    googlenet._transfer_inception(src, dst, ['3a'])
    assert (dst.inc3a.conv5.W.array == 4).all() and (dst.inc3a.projp.b.array == -5).all()
    assert (dst.inc3a.proj3.W.array == 1).all()


# -- utils ---------------------------------------------------------------------------------

def test_type_check_light_mode_and_function_context(chainer):
    from chainer.utils import type_check
    assert not type_check.in_light_mode()
    assert isinstance(type_check.make_variable(3, 'n'), type_check.Variable)
    with type_check.light_mode:
        assert type_check.in_light_mode()
        assert type_check.make_variable(3, 'n') == 3
        x = np.zeros((2, 3), np.float32)
        assert type_check._make_variable_from_array(x, 'x') is x
    assert not type_check.in_light_mode()
    assert isinstance(type_check.light_mode, type_check.LightMode)
    v = type_check._make_variable_from_array(np.zeros((2, 3)), 'x')
    assert str(v) == 'x' and v.eval().shape == (2, 3)
    with pytest.raises(type_check.InvalidType, match='isinstance'):
        type_check._make_variable_from_array([1, 2], 'x')

    class Function:
        label = 'MyFunction'

    with type_check.get_function_check_context(Function()):
        with pytest.raises(type_check.InvalidType,
                           match='(?s)performed in: MyFunction \\(Forward\\).*Expect: a'):
            type_check.expect(type_check.make_variable(1, 'a') == 2)
    assert 'MyFunction' not in str(type_check.InvalidType('a', 'b'))


def test_type_check_expression_builders(chainer):
    import operator
    from chainer.utils import type_check
    a, b = type_check.make_variable(6, 'a'), type_check.make_variable(2, 'b')
    assert isinstance(a, type_check.Atom) and isinstance(type_check.Constant(1), type_check.Atom)
    div = type_check._make_bin_operator('/', 5, operator.truediv)
    assert str(div(a, b)) == 'a / b' and div(a, b).eval() == 3
    rdiv = type_check._flip(div)
    assert str(rdiv(a, b)) == 'b / a'
    neg = type_check._make_un_operator('-', 6, operator.neg)
    assert str(neg(a)) == '-a' and neg(a).eval() == -6
    less = type_check._make_bool_operator('<', '>=', operator.lt)
    with pytest.raises(type_check.InvalidType, match='Actual: 6 >= 2'):
        type_check.expect(less(a, b))
    assert type_check._eval_expr([a, (b, 1)]) == [6, (2, 1)]
    assert type_check._str_subscript(slice(1, None, 2)) == '1::2'
    assert type_check._str_subscript(Ellipsis) == '...'
    assert type_check._prod_impl((2, 3, 4)) == 24 and type_check._prod_impl(()) == 1
    info = type_check._get_type('in_types', 1, np.zeros((4, 5), np.float16), False, (5, 4))
    assert str(info) == 'in_types[1]' and info.eval().shape == (5, 4)
    assert info.eval().dtype == np.float16
    missing = type_check._get_type('grads', 0, None, True, ())
    assert missing.eval().dtype is None


def test_conv_gpu_kernels_raise_without_cuda(chainer):
    from chainer.utils import conv, conv_nd
    x = np.zeros((1, 1, 4, 4), np.float32)
    for call in (lambda: conv.im2col_gpu(x, 2, 2, 1, 1, 0, 0),
                 lambda: conv.col2im_gpu(np.zeros((1, 1, 2, 2, 3, 3)), 1, 1, 0, 0, 4, 4),
                 lambda: conv_nd.im2col_nd_gpu(x, (2, 2), (1, 1), (0, 0)),
                 lambda: conv_nd.col2im_nd_gpu(np.zeros((1, 1, 2, 2, 3, 3)), (1, 1), (0, 0),
                                               (4, 4))):
        with pytest.raises(RuntimeError, match='CUDA'):
            call()


def test_sparse_add_at_and_c_order(chainer):
    from chainer.utils import sparse
    x = np.zeros((2, 2))
    row, col = np.array([0, 1, 0, 0]), np.array([1, 0, 0, 0])
    # Trailing zeros are padding: only the entries up to the last nonzero one are added.
    sparse._add_at(np.add.at, x, row, col, np.array([1.0, 2.0, 0.0, 0.0]))
    np.testing.assert_array_equal(x, [[0, 1], [2, 0]])
    with pytest.raises(ValueError):
        sparse._add_at(np.add.at, x, row[:0], col[:0], np.zeros(0))
    assert sparse._is_c_order(np.array([0, 0, 1, -1]), np.array([0, 2, 1, -1]))
    assert not sparse._is_c_order(np.array([1, 0]), np.array([0, 0]))
    assert sparse._is_c_order(np.array([[0, 1], [0, 0]]), np.array([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match='invalid index'):
        sparse._is_c_order(np.array([0, -1]), np.array([0, 1]))
    with pytest.raises(ValueError, match='shape'):
        sparse._is_c_order(np.array([0]), np.array([0, 1]))


# -- testing ---------------------------------------------------------------------------------

def test_testing_bundle_cases_and_generation(chainer):
    import sys
    import types
    from chainer.testing import _bundle
    module = types.ModuleType('_generated_cases_module')
    sys.modules[module.__name__] = module
    try:
        class Base:
            __module__ = module.__name__

            def test_a(self):
                return self.value

            def helper(self):
                return 0

        cases = _bundle._generate_test_cases(
            module.__name__, Base,
            lambda base: [('Base_%d' % v, {'value': v}, lambda m: m) for v in (1, 2)])
        assert [c.class_name for c in cases] == ['Base_1', 'Base_2']
        assert module.Base_2 is cases[1].klass and cases[1].module_name == module.__name__
        assert module.Base_2().test_a() == 2
        dropped = _bundle._generate_case(Base, module, 'Dropped', {}, lambda m: None)
        assert dropped.klass.test_a is None and dropped.klass().helper() == 0
        bundle = _bundle._ParameterizedTestCaseBundle(cases)
        assert bundle.classes == [module.Base_1, module.Base_2]
        assert bundle.cases == cases
    finally:
        del sys.modules[module.__name__]
    # parameterize returns such a bundle.
    bundle = chainer.testing.parameterize({'x': 1})(type('TestX', (), {'__module__': __name__}))
    assert isinstance(bundle, _bundle._ParameterizedTestCaseBundle)
    globals().pop(bundle.cases[0].class_name)


def test_testing_parameterized_helpers(chainer):
    from chainer.testing import parameterized
    assert parameterized._param_to_str(np.float32) == 'float32'
    assert parameterized._param_to_str(3) == '3'
    assert parameterized._shorten('abcdefghij', 7) == 'ab...ij'
    assert len(parameterized._shorten('x' * 500, 100)) == 100
    assert parameterized._shorten('short', 7) == 'short'
    assert parameterized._make_class_name('T', 2, {'b': np.float32, 'a': 'x' * 200}) == \
        "T_param_2_{a='%s...%s', b=float32}" % ('x' * 47, 'x' * 48)  # repr: 48 + 3 + 49
    assert parameterized._values_to_dicts('a,b', [(1, 2)]) == [{'a': 1, 'b': 2}]
    name, members, wrap = parameterized._parameterize_test_case(
        type('T', (), {}), 1, {'f': abs, 'k': 3})
    assert name == 'T_param_1_{f=abs, k=3}' and members['k'] == 3
    specs = list(parameterized._parameterize_test_case_generator(
        type('T', (), {}), [{'k': 1}, {'k': 2}]))
    assert [s[0] for s in specs] == ['T_param_0_{k=1}', 'T_param_1_{k=2}']


def test_testing_pairwise_product_covers_every_pair(chainer):
    import itertools
    from chainer.testing import parameterized
    lists = [[{'a': i} for i in range(3)], [{'b': i} for i in range(3)],
             [{'c': i} for i in range(2)], [{'d': i} for i in range(2)]]
    pairwise = parameterized._pairwise_product_dict(*lists)
    full = parameterized.product_dict(*lists)
    assert len(pairwise) < len(full) and all(p in full for p in pairwise)
    for x, y in itertools.combinations('abcd', 2):
        assert {(p[x], p[y]) for p in pairwise} == {(p[x], p[y]) for p in full}
    assert list(parameterized._pairwise_product_dict_iter(*lists)) == pairwise
    # Two lists or fewer: the full product.
    assert parameterized._pairwise_product_dict(*lists[:2]) == \
        parameterized.product_dict(*lists[:2])
    indices = list(parameterized._nd_indices_to_cover_each_2d([2, 2, 2]))
    assert indices == list(parameterized._nd_indices_to_cover_each_2d([2, 2, 2]))  # seeded
    assert all(len(i) == 3 for i in indices) and 4 <= len(indices) < 8


def test_testing_random_setup_teardown_nest(chainer, monkeypatch):
    from chainer.testing import random as testing_random
    monkeypatch.delenv('CHAINER_TEST_RANDOM_NONDETERMINISTIC', raising=False)
    state = np.random.get_state()
    testing_random._setup_random()
    testing_random._setup_random()  # nested: no reseeding
    first = np.random.rand()
    testing_random._teardown_random()
    testing_random._teardown_random()
    assert np.array_equal(np.random.get_state()[1], state[1])  # restored
    testing_random._check_teardown()
    testing_random._setup_random()
    assert np.random.rand() == first  # seeded the same way again
    testing_random._teardown_random()
    with pytest.raises(AssertionError, match='_setup_random'):
        testing_random._teardown_random()
    with pytest.raises(RuntimeError, match='CUDA'):
        testing_random._cupy_testing_random()

    @testing_random._fix_random('setUp', 'tearDown')
    def test_draw():
        return np.random.rand()

    assert test_draw() == test_draw()


def test_testing_array_helper_and_backend_names(chainer):
    from chainer.testing import array, backend, helper
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = array._as_noncontiguous_array(a)
    assert not b.flags.c_contiguous and np.array_equal(a, b) and b.dtype == a.dtype
    one = np.ones(1)
    pair = array._as_noncontiguous_array((a, None, one))
    assert isinstance(pair, tuple) and pair[1] is None and pair[2] is one
    assert isinstance(array._as_noncontiguous_array([a]), list)
    assert helper._import_object_from_name('numpy.linalg.norm') is np.linalg.norm
    with pytest.raises(RuntimeError):
        helper._import_object_from_name('no_such_module_xyz.f')
    assert helper._check_mock_available() is None
    specs = list(backend._test_case_generator(type('T', (), {}), ['test_a'], [{}]))
    assert len(specs) == 2 and specs[1][0] == 'T_' + backend.BackendConfig({}).get_func_str()


def test_testing_unary_math_helpers(chainer):
    from chainer.testing import unary_math_function_test as umf
    F = chainer.functions
    # chainer.functions holds no class Exp, as in Chainer.
    assert umf._func_name(F.exp) == 'exp' and umf._func_class(F.exp) is None

    class Square(chainer.Function):
        def forward(self, inputs):
            return inputs[0] ** 2,

    assert umf._func_name(Square()) == 'square' and umf._func_class(Square()) is Square
    x, gy, ggx = umf._make_data_default((2, 3), np.float32)
    assert x.shape == gy.shape == ggx.shape == (2, 3) and ggx.dtype == np.float32
    assert (np.abs(x) <= 1).all()
    np.testing.assert_allclose(umf._nonlinear(F.identity)(np.array([3.0])).array, [9.0])


class _AddOne:
    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3)).astype(np.float64),

    def forward(self, inputs, device):
        return inputs[0] + 1,

    def forward_expected(self, inputs):
        return inputs[0] + 1,


def test_testing_function_test_base_runs_the_checks(chainer):
    from chainer.testing import function_link

    class Check(_AddOne, function_link.FunctionTestBase):
        pass

    check = Check()
    check.run_test_forward()
    check.run_test_backward()
    check.run_test_double_backward()

    class Wrong(Check):
        def forward_expected(self, inputs):
            return inputs[0] + 2,

    with pytest.raises(function_link.FunctionTestError):
        Wrong().run_test_forward()
    assert issubclass(chainer.testing.FunctionTestCase, function_link.FunctionTestBase)


def test_testing_function_link_checks(chainer):
    from chainer.testing import function_link
    device = chainer.backend.CpuDevice()
    function_link._check_array_types((np.zeros(1), None), device, 'generate_inputs')
    with pytest.raises(TypeError, match='must return a tuple'):
        function_link._check_array_types([np.zeros(1)], device, 'generate_inputs')
    with pytest.raises(TypeError, match='generate_inputs'):
        function_link._check_array_types((1.0,), device, 'generate_inputs')
    v = chainer.Variable(np.zeros(1))
    function_link._check_variable_types((v,), device, 'forward',
                                        function_link.FunctionTestError)
    with pytest.raises(function_link.LinkTestError, match='tuple of Variables'):
        function_link._check_variable_types((np.zeros(1),), device, 'forward',
                                            function_link.LinkTestError)
    link = chainer.links.Linear(2, 3)
    assert function_link._get_link_params(link, ['W', 'b']) == [link.W, link.b]
    with pytest.raises(function_link.LinkTestError, match="named 'c'"):
        function_link._get_link_params(link, ['c'])
    normal = chainer.initializers.Normal()
    arg = function_link.InitializerArgument(None, normal)
    assert function_link._get_initializer_argument_value(arg) is None
    assert function_link._get_initializer_argument_value(normal) is normal
    assert function_link._get_expected_initializer(arg) is normal
    assert isinstance(function_link._get_expected_initializer(2.0),
                      chainer.initializers.Constant)
    function_link._check_generated_initializer(arg)
    with pytest.raises(ValueError, match='InitializerArgument'):
        function_link._check_generated_initializer(None)
    with pytest.raises(TypeError):
        function_link._check_generated_initializer('not an initializer')


# -- function_hooks, graph_optimizations, initializers, link_hooks, memory_layouts, hdf5 ------

def test_cuda_function_hooks_raise_without_cuda(chainer):
    from chainer import function_hooks
    from chainer.function_hooks import cuda_profile, cupy_memory_profile
    assert function_hooks.CUDAProfileHook is cuda_profile.CUDAProfileHook
    assert function_hooks.CupyMemoryProfileHook is cupy_memory_profile.CupyMemoryProfileHook
    for hook in (cuda_profile.CUDAProfileHook, cupy_memory_profile.CupyMemoryProfileHook):
        with pytest.raises(RuntimeError, match='CUDA'):
            hook()
    assert cupy_memory_profile.memory_hook_available is False
    assert cupy_memory_profile.MemoryHook is object
    cumulative = cupy_memory_profile.CupyMemoryCumulativeHook()
    cumulative.malloc_preprocess(mem_size=100)
    cumulative.alloc_preprocess(mem_size=2048)
    cumulative.malloc_preprocess(mem_size=28)
    assert (cumulative.used_bytes, cumulative.acquired_bytes) == (128, 2048)


def test_cupy_memory_profile_report(chainer):
    import io
    from chainer.function_hooks import cupy_memory_profile
    # The report of a hook whose measurements came from elsewhere (made without __init__,
    # which needs CUDA).
    hook = object.__new__(cupy_memory_profile.CupyMemoryProfileHook)
    hook.call_history = []
    hook._memory_hook = cupy_memory_profile.CupyMemoryCumulativeHook()
    hook._running_stack = []
    hook._total_used_bytes = hook._total_acquired_bytes = 0

    class Node:
        _impl_name = 'LinearFunction'

    hook.forward_preprocess(Node(), ())
    hook._memory_hook.malloc_preprocess(mem_size=3 * 1024)
    hook._memory_hook.alloc_preprocess(mem_size=4 * 1024 * 1024)
    hook.forward_postprocess(Node(), ())
    assert hook.call_history == [('LinearFunction', 3072, 4194304, 0)]
    assert hook.total_used_bytes() == 3072 and hook.total_acquired_bytes() == 4194304
    assert hook.summary()['LinearFunction'] == {'used_bytes': 3072,
                                                'acquired_bytes': 4194304, 'occurrence': 1}
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence']
    assert lines[1].split() == ['LinearFunction', '3.00KB', '4.00MB', '1']
    out = io.StringIO()
    hook.print_report(unit='B', file=out)
    assert '3072.00B' in out.getvalue()


def test_graph_optimizations_names(chainer):
    import weakref
    from chainer import graph_optimizations
    from chainer.graph_optimizations import static_graph, static_graph_utilities
    assert graph_optimizations.static_code is static_graph_utilities.static_code
    a = np.ones((2, 3), np.float32)
    info = static_graph.ArrayInfo(a)
    assert (info.shape, info.dtype, info.device, info.retain) == ((2, 3), np.float32, -1, False)
    assert info.get_new_empty_array().shape == (2, 3) and not info.was_deleted()
    assert 'alive' in repr(info)
    ref = weakref.ref(b := np.zeros(1))
    gone = static_graph.ArrayInfo(b)
    del b
    assert ref() is None and gone.was_deleted() and 'dead' in repr(gone)

    unique = [np.array([1.0, 2.0]), np.zeros(2), np.zeros(2)]
    infos = [static_graph.ArrayInfo(u) for u in unique]
    infos[2].retain = True
    retained = unique[2]
    inputs = [None]

    def double(inputs):
        return inputs[0] * 2, inputs[0] * 3

    step = static_graph.ScheduleInfo(double, (), {'inputs': inputs}, [(0, 0)], [],
                                     [(0, 1), (1, 2)], [], unique, infos, func_name='double')
    step()
    np.testing.assert_array_equal(unique[1], [2.0, 4.0])
    assert unique[2] is retained  # retained: written in place
    np.testing.assert_array_equal(retained, [3.0, 6.0])
    assert inputs == [None] and 'double' in repr(step) and step.function_node is None
    with pytest.raises(ValueError):
        static_graph.ScheduleInfo(double, (), {}, [], [], [], [], unique, infos[:1])


def test_static_forward_optimizations_is_recorded(chainer):
    from chainer.graph_optimizations.static_graph_utilities import \
        static_forward_optimizations
    from chainer.functions.math import exp

    y, = static_forward_optimizations(exp.Exp(), (np.zeros(1, np.float32),))
    np.testing.assert_allclose(y, [1.0])

    class Model(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.fc = chainer.links.Linear(2, 2)

        @chainer.static_graph
        def forward(self, x):
            h = self.fc(x)
            e, = static_forward_optimizations(exp.Exp(), (h.array,))
            return h + chainer.Variable(e)

    model = Model()
    for i in range(3):  # the first call records, the others replay the recorded forward
        x = np.full((1, 2), i, np.float32)
        h = model.fc(x).array
        np.testing.assert_allclose(model(x).array, h + np.exp(h), rtol=1e-6)


def test_initializer_constant_base_and_sampling_filter(chainer):
    from chainer.initializers import constant, sampling

    class Sevens(constant._Constant):
        fill_value = 7

    a = np.zeros((2, 2), np.float32)
    Sevens()(a)
    assert (a == 7).all()
    assert isinstance(chainer.initializers.Constant(1.0), constant._Constant)
    assert isinstance(chainer.initializers.Zero(), constant._Constant)
    with pytest.raises(ValueError, match='fill_value'):
        constant._Constant()
    np.testing.assert_allclose(sampling._get_linear_filter(4, 1), [0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(sampling._get_linear_filter(3, 2, upsampling=False),
                               np.outer([1, 2, 1], [1, 2, 1]) / 16)
    W = np.zeros((2, 2, 3, 3), np.float32)
    sampling._SamplingFilter(upsampling=True)(W)
    np.testing.assert_allclose(W[1, 1], np.outer([0.5, 1, 0.5], [0.5, 1, 0.5]))
    assert (W[0, 1] == 0).all()
    with pytest.raises(ValueError, match='interpolation'):
        sampling._SamplingFilter(interpolation='cubic')
    assert isinstance(chainer.initializers.UpsamplingDeconvFilter(), sampling._SamplingFilter)


def test_spectral_normalization_helpers(chainer):
    from chainer.link_hooks import spectral_normalization as sn
    np.testing.assert_allclose(sn.l2normalize(np, np.array([3.0, 4.0]), 0), [0.6, 0.8])
    rng = np.random.RandomState(0)
    W = rng.randn(4, 3)
    u, v = sn.update_approximate_vectors(chainer.Variable(W), rng.randn(4), 100, 1e-12)
    assert u.shape == (4,) and v.shape == (3,)
    sigma = sn.calculate_max_singular_value(chainer.Variable(W), u, v)
    assert sigma.shape == ()
    np.testing.assert_allclose(sigma.array, np.linalg.svd(W)[1][0], rtol=1e-6)
    with pytest.raises(ValueError, match='n_power_iteration'):
        sn.update_approximate_vectors(W, u, 0, 1e-12)
    Wv = chainer.Variable(W)
    sn.calculate_max_singular_value(Wv, u, v).backward()
    np.testing.assert_allclose(Wv.grad, np.outer(u, v))  # d(u^T W v)/dW


def test_memory_layouts_as_layout(chainer):
    from chainer import gradient_check, memory_layouts
    x = np.random.RandomState(1).randn(2, 3)
    y, = memory_layouts.AsLayout(None).apply((x,))
    np.testing.assert_array_equal(y.array, x)
    assert memory_layouts.AsLayout(None).label == 'AsLayout'
    gradient_check.check_backward(lambda x: memory_layouts.AsLayout(None).apply((x,))[0],
                                  x, np.ones((2, 3)))
    gradient_check.check_double_backward(
        lambda x: memory_layouts.AsLayout(None).apply((x,))[0] ** 2, x, np.ones((2, 3)),
        np.ones((2, 3)))
    with pytest.raises(ValueError, match='not supported'):
        memory_layouts.AsLayout(memory_layouts.CUDNN_CHANNEL_LAST_X)


def test_hdf5_check_available(chainer, monkeypatch):
    from chainer.serializers import hdf5
    if hdf5._available:
        assert hdf5._check_available() is None
    monkeypatch.setattr(hdf5, '_available', False)
    monkeypatch.setitem(__import__('sys').modules, 'h5py', None)
    with pytest.raises(RuntimeError, match='h5py'):
        hdf5._check_available()


# -- links.model.vision: converting Caffe models and loading them -----------------------------

@pytest.fixture
def dataset_root(tmp_path):
    from chainlite.dataset import download
    download.set_dataset_root(str(tmp_path / 'root'))
    try:
        yield tmp_path / 'root'
    finally:
        download.set_dataset_root(None)


def _tiny_caffemodel(path, value):
    # One InnerProduct layer named fc8 (as in Caffe's VGG), 2 -> 1.
    caffe_pb2 = pytest.importorskip('chainlite.links.caffe.protobuf3.caffe_pb2')
    net = caffe_pb2.NetParameter()
    fc = net.layer.add(name='fc8', type='InnerProduct', bottom=['data'], top=['fc8'])
    fc.inner_product_param.num_output = 1
    w = fc.blobs.add(data=[value, 2 * value])
    w.shape.dim[:] = [1, 2]
    b = fc.blobs.add(data=[-value])
    b.shape.dim[:] = [1]
    path.write_bytes(net.SerializeToString())
    return path


def _fc8_chain(chainer):
    chain = chainer.Chain()
    with chain.init_scope():
        chain.fc8 = chainer.links.Linear(2, 1)
    return chain


def test_vgg_make_npz_and_retrieve(chainer, dataset_root, tmp_path):
    from chainer.links.model.vision import vgg
    caffemodel = _tiny_caffemodel(tmp_path / 'vgg.caffemodel', 3.0)
    url = caffemodel.as_uri()
    path_npz = str(tmp_path / 'converted.npz')
    vgg.VGGLayers.convert_caffemodel_to_npz(str(caffemodel), path_npz)
    with np.load(path_npz) as f:
        np.testing.assert_allclose(f['fc8/W'], [[3.0, 6.0]])
    model = _fc8_chain(chainer)
    assert vgg._make_npz(str(tmp_path / 'made.npz'), url, model) is model
    np.testing.assert_allclose(model.fc8.b.array, [-3.0])
    # _retrieve converts into the model directory once, then loads what it converted.
    first = _fc8_chain(chainer)
    assert vgg._retrieve('tiny_vgg.npz', url, first) is first
    assert (dataset_root / 'pfnet' / 'chainer' / 'models' / 'tiny_vgg.npz').exists()
    caffemodel.unlink()  # not needed any more
    second = _fc8_chain(chainer)
    vgg._retrieve('tiny_vgg.npz', url, second)
    np.testing.assert_allclose(second.fc8.W.array, [[3.0, 6.0]])


def test_googlenet_and_resnet_make_npz(chainer, dataset_root, tmp_path, monkeypatch):
    from chainer.links.model.vision import googlenet, resnet
    calls = []

    def convert(*args):
        # A stand-in for the full conversion (the real models are hundreds of megabytes).
        calls.append(args)
        source = _fc8_chain(chainer)
        source.fc8.W.array[...] = 5.0
        chainer.serializers.save_npz(args[1], source)

    monkeypatch.setattr(googlenet.GoogLeNet, 'convert_caffemodel_to_npz', convert)
    monkeypatch.setattr(resnet.ResNetLayers, 'convert_caffemodel_to_npz', convert)
    caffemodel = tmp_path / 'any.caffemodel'
    caffemodel.write_bytes(b'\0')
    model = _fc8_chain(chainer)
    googlenet._retrieve('tiny_googlenet.npz', caffemodel.as_uri(), model)
    assert (model.fc8.W.array == 5.0).all() and calls[-1][0].endswith('.caffemodel')

    model = _fc8_chain(chainer)
    with pytest.raises(IOError, match='does not exist'):
        resnet._make_npz(str(tmp_path / 'r.npz'), str(tmp_path / 'missing.caffemodel'),
                         model, 50)
    models_dir = dataset_root / 'pfnet' / 'chainer' / 'models'
    models_dir.mkdir(parents=True, exist_ok=True)
    (models_dir / 'ResNet-101-model.caffemodel').write_bytes(b'\0')
    resnet._retrieve(101, 'ResNet-101-model.npz', 'ResNet-101-model.caffemodel', model)
    assert calls[-1][2] == 101 and (model.fc8.W.array == 5.0).all()
    monkeypatch.undo()
    with pytest.raises(ValueError, match='50, 101 or 152'):
        resnet.ResNetLayers.convert_caffemodel_to_npz(str(caffemodel), 'x.npz', 34)
