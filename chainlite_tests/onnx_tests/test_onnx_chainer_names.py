"""onnx_chainer's names under :mod:`chainlite.compat`: what each does, as onnx_chainer does it.

The converter functions ``onnx_chainer.functions.convert_<Function>`` take onnx_chainer's
``(func, opset_version, input_names, output_names, context)``; the tests export a function
through such a converter alone (wrapped in ``FunctionConverter`` as an external converter)
and run the model in ONNX Runtime.
"""
import collections
import importlib
import warnings

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import compat

pytest.importorskip('onnx')


@pytest.fixture
def oc():
    compat.install()
    try:
        yield importlib.import_module('onnx_chainer')
    finally:
        compat.uninstall()


def _r(*shape, low=-1.0, high=1.0):
    return np.random.RandomState(len(shape)).uniform(low, high, shape).astype(np.float32)


def _five_arguments_only(oc, conv, calls):
    # A converter of onnx_chainer's five arguments that forwards to `conv`: FunctionConverter
    # then calls it the onnx_chainer way, never with params.
    def converter(func, opset_version, input_names, output_names, context):
        calls.append(type(func).__name__)
        return conv(func, opset_version, input_names, output_names, context)
    return oc.functions.converter.FunctionConverter(converter)


# (onnx_chainer converter name, function class name in chainlite, function, inputs, opset)
CASES = [
    ('ReLU', 'ReLU', F.relu, [_r(2, 3)], None),
    ('Sigmoid', 'Sigmoid', F.sigmoid, [_r(2, 3)], None),
    ('Tanh', 'Tanh', F.tanh, [_r(2, 3)], None),
    ('Selu', 'SELU', F.selu, [_r(2, 3)], None),
    ('Softmax', 'Softmax', lambda x: F.softmax(x, axis=1), [_r(2, 3, 4)], 11),
    ('LogSoftmax', 'LogSoftmax', lambda x: F.log_softmax(x, axis=1), [_r(2, 3, 4)], None),
    ('ClippedReLU', 'ClippedReLU', lambda x: F.clipped_relu(x, 0.5), [_r(2, 3)], 9),
    ('Hstack', 'Hstack', lambda a, b: F.hstack([a, b]), [_r(2, 3), _r(2, 1)], None),
    ('Vstack', 'Vstack', lambda a, b: F.vstack([a, b]), [_r(3), _r(3)], None),
    ('Dstack', 'Dstack', lambda a, b: F.dstack([a, b]), [_r(2, 3), _r(2, 3)], None),
    ('Moveaxis', 'Moveaxis', lambda x: F.moveaxis(x, 0, 2), [_r(2, 3, 4)], None),
    ('Rollaxis', 'Rollaxis', lambda x: F.rollaxis(x, 2), [_r(2, 3, 4)], None),
    ('GetItem', 'GetItem', lambda x: x[:, 1:3], [_r(2, 4)], None),
    ('Reshape', 'Reshape', lambda x: F.reshape(x, (3, 2)), [_r(2, 3)], None),
    ('Convolution2DFunction', 'Convolution2DFunction',
     lambda x, w: F.convolution_2d(x, w, pad=1), [_r(1, 2, 4, 4), _r(3, 2, 3, 3)], None),
    ('ConvolutionND', 'ConvolutionND', lambda x, w: F.convolution_nd(x, w),
     [_r(1, 2, 4, 4, 4), _r(3, 2, 2, 2, 2)], None),
    ('Deconvolution2DFunction', 'Deconvolution2DFunction',
     lambda x, w: F.deconvolution_2d(x, w, stride=2), [_r(1, 2, 3, 3), _r(2, 3, 2, 2)], None),
    ('DeconvolutionND', 'DeconvolutionND', lambda x, w: F.deconvolution_nd(x, w),
     [_r(1, 2, 3, 3, 3), _r(2, 3, 2, 2, 2)], None),
    ('LinearFunction', 'LinearFunction', lambda x, w: F.linear(x, w),
     [_r(2, 3), _r(4, 3)], None),
    ('MaxPooling2D', 'MaxPooling2D', lambda x: F.max_pooling_2d(x, 2),
     [np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)], None),
    ('MaxPoolingND', 'MaxPoolingND', lambda x: F.max_pooling_nd(x, 2),
     [np.arange(16, dtype=np.float32).reshape(1, 2, 2, 2, 2)], None),
    ('AveragePooling2D', 'AveragePooling2D', lambda x: F.average_pooling_2d(x, 2),
     [_r(1, 2, 4, 4)], None),
    ('AveragePoolingND', 'AveragePoolingND', lambda x: F.average_pooling_nd(x, 2),
     [_r(1, 2, 2, 4, 4)], None),
    ('Add', 'Add', lambda a, b: a + b, [_r(2, 3), _r(2, 3)], None),
    ('Sub', 'Sub', lambda a, b: a - b, [_r(2, 3), _r(2, 3)], None),
    ('Mul', 'Mul', lambda a, b: a * b, [_r(2, 3), _r(2, 3)], None),
    ('Div', 'Div', lambda a, b: a / b, [_r(2, 3), _r(2, 3, low=1, high=2)], None),
    ('AddConstant', 'AddConstant', lambda x: x + 2.5, [_r(2, 3)], None),
    ('SubFromConstant', 'SubFromConstant', lambda x: 2.5 - x, [_r(2, 3)], None),
    ('MulConstant', 'MulConstant', lambda x: x * 2.5, [_r(2, 3)], None),
    ('DivFromConstant', 'DivFromConstant', lambda x: 2.5 / x, [_r(2, 3, low=1, high=2)],
     None),
    ('PowVarConst', 'PowVarConst', lambda x: x ** 3, [_r(2, 3)], None),
    ('PowConstVar', 'PowConstVar', lambda x: 2.0 ** x, [_r(2, 3)], None),
    ('PowVarVar', 'PowVarVar', lambda a, b: a ** b, [_r(2, 3, low=1, high=2), _r(2, 3)],
     None),
    ('Neg', 'Neg', lambda x: -x, [_r(2, 3)], None),
    ('Absolute', 'Absolute', F.absolute, [_r(2, 3)], None),
    ('Exp', 'Exp', F.exp, [_r(2, 3)], None),
    ('Log', 'Log', F.log, [_r(2, 3, low=1, high=2)], None),
    ('Sqrt', 'Sqrt', F.sqrt, [_r(2, 3, low=1, high=2)], None),
    ('RsqrtGPU', 'Rsqrt', F.rsqrt, [_r(2, 3, low=1, high=2)], None),
    ('Sin', 'Sin', F.sin, [_r(2, 3)], None),
    ('Cos', 'Cos', F.cos, [_r(2, 3)], None),
    ('Tan', 'Tan', F.tan, [_r(2, 3)], None),
    ('Sinh', 'Sinh', F.sinh, [_r(2, 3)], None),
    ('Cosh', 'Cosh', F.cosh, [_r(2, 3)], None),
    ('Arcsin', 'Arcsin', F.arcsin, [_r(2, 3, low=-0.9, high=0.9)], None),
    ('Arccos', 'Arccos', F.arccos, [_r(2, 3, low=-0.9, high=0.9)], None),
    ('Arctan', 'Arctan', F.arctan, [_r(2, 3)], None),
    ('Sum', 'Sum', lambda x: F.sum(x, axis=1), [_r(2, 3)], None),
    ('Mean', 'Mean', lambda x: F.mean(x, axis=0), [_r(2, 3)], None),
    ('Prod', 'Prod', lambda x: F.prod(x, axis=1, keepdims=True), [_r(2, 3)], 13),
    ('Max', 'Max', lambda x: F.max(x, axis=1), [_r(2, 3)], None),
    ('Min', 'Min', lambda x: F.min(x), [_r(2, 3)], None),
    ('Maximum', 'Maximum', F.maximum, [_r(2, 3), _r(2, 3)], None),
    ('Minimum', 'Minimum', F.minimum, [_r(2, 3), _r(2, 3)], None),
    ('BroadcastTo', 'BroadcastTo', lambda x: F.broadcast_to(x, (2, 3)), [_r(1, 3)], None),
    ('ELU', 'ELU', F.elu, [_r(2, 3)], None),
    ('HardSigmoid', 'HardSigmoid', F.hard_sigmoid, [_r(2, 3)], None),
    ('LeakyReLU', 'LeakyReLU', F.leaky_relu, [_r(2, 3)], None),
    ('Softplus', 'Softplus', F.softplus, [_r(2, 3)], None),
    ('PReLUFunction', 'PReLUFunction', F.prelu, [_r(2, 3, 4), _r(3)], None),
    ('Cast', 'Cast', lambda x: F.cast(x, np.float64), [_r(2, 3)], None),
    ('Concat', 'Concat', lambda a, b: F.concat([a, b], axis=1), [_r(2, 3), _r(2, 2)], None),
    ('Copy', 'Copy', lambda x: F.copy(x, -1), [_r(2, 3)], None),
    ('ExpandDims', 'ExpandDims', lambda x: F.expand_dims(x, 1), [_r(2, 3)], None),
    ('Squeeze', 'Squeeze', lambda x: F.squeeze(x, 1), [_r(2, 1, 3)], None),
    ('Pad', 'Pad', lambda x: F.pad(x, ((0, 1), (2, 0)), 'constant'), [_r(2, 3)], None),
    ('Repeat', 'Repeat', lambda x: F.repeat(x, 2, axis=1), [_r(2, 3)], None),
    ('Tile', 'Tile', lambda x: F.tile(x, (2, 1)), [_r(2, 3)], None),
    ('Stack', 'Stack', lambda a, b: F.stack([a, b], axis=1), [_r(2, 3), _r(2, 3)], None),
    ('Swapaxes', 'Swapaxes', lambda x: F.swapaxes(x, 0, 2), [_r(2, 3, 4)], None),
    ('Transpose', 'Transpose', F.transpose, [_r(2, 3, 4)], None),
    ('Where', 'Where', lambda c, a, b: F.where(c, a, b),
     [np.array([[True, False, True]]), _r(1, 3), _r(1, 3)], None),
    ('Depth2Space', 'Depth2Space', lambda x: F.depth2space(x, 2), [_r(1, 8, 2, 3)], None),
    ('Space2Depth', 'Space2Depth', lambda x: F.space2depth(x, 2), [_r(1, 2, 4, 6)], None),
    ('Permutate', 'Permutate', lambda x: F.permutate(x, np.array([2, 0, 1], np.int32)),
     [_r(3, 2)], 11),
    ('SelectItem', 'SelectItem', F.select_item, [_r(3, 4), np.array([3, 0, 1], np.int32)],
     None),
    ('ResizeImages', 'ResizeImages', lambda x: F.resize_images(x, (4, 6)), [_r(1, 2, 2, 3)],
     None),
    ('Unpooling2D', 'Unpooling2D', lambda x: F.unpooling_2d(x, 2, cover_all=False),
     [_r(1, 2, 2, 3)], None),
    ('Clip', 'Clip', lambda x: F.clip(x, -0.5, 0.5), [_r(2, 3)], None),
    ('Square', 'Square', F.square, [_r(2, 3)], None),
    ('MatMul', 'MatMul', lambda a, b: F.matmul(a, b, transb=True), [_r(2, 3), _r(4, 3)],
     None),
    ('LinearInterpolate', 'LinearInterpolate', F.linear_interpolate,
     [_r(2, 3, low=0, high=1), _r(2, 3), _r(2, 3)], None),
    ('LogSumExp', 'LogSumExp', lambda x: F.logsumexp(x, axis=1), [_r(2, 3)], None),
    ('EmbedIDFunction', 'EmbedIDFunction', F.embed_id, [np.array([2, 0], np.int32), _r(3, 4)],
     None),
    ('FixedBatchNormalization', 'FixedBatchNormalization', F.fixed_batch_normalization,
     [_r(2, 3), _r(3), _r(3), _r(3), _r(3, low=0.5, high=1)], None),
    ('LocalResponseNormalization', 'LocalResponseNormalization',
     F.local_response_normalization, [_r(1, 6, 2, 2)], None),
    ('NormalizeL2', 'NormalizeL2', F.normalize, [_r(2, 3, low=0.5, high=1)], None),
    ('SoftmaxCrossEntropy', 'SoftmaxCrossEntropy', F.softmax_cross_entropy,
     [_r(3, 4), np.array([1, 0, 3], np.int32)], None),
]


@pytest.mark.parametrize('name,cls_name,fn,inputs,opset', CASES, ids=[c[0] for c in CASES])
def test_converter_with_onnx_chainers_arguments_exports(oc, name, cls_name, fn, inputs, opset):
    from chainlite_tests.onnx_tests import conftest
    pytest.importorskip('onnxruntime')
    conv = getattr(oc.functions, 'convert_' + name)
    calls = []
    model = conftest.Fn(fn)
    with chainlite.using_config('train', False):
        expected = fn(*[chainlite.Variable(a) for a in inputs]).array
    proto = oc.export(model, inputs, opset_version=opset, external_converters={
        cls_name: _five_arguments_only(oc, conv, calls)})
    assert calls == [cls_name]
    got, = conftest.run_onnx(proto, inputs)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_every_onnx_chainer_converter_is_in_its_module_and_the_package(oc):
    # The names onnx_chainer's package gives; each is the module's own, and takes both forms.
    functions = oc.functions
    names = [n for n in dir(functions) if n.startswith('convert_')]
    assert len(names) == 102
    for name in names:
        conv = getattr(functions, name)
        assert conv.takes_params is True, name
        homes = [m for m in ('activation', 'array', 'connection', 'loss', 'math', 'noise',
                             'normalization', 'pooling', 'rnn')
                 if getattr(getattr(functions, m), name, None) is conv]
        assert homes, name


def test_converter_called_with_wrong_arguments_says_how(oc):
    with pytest.raises(TypeError, match=r'convert_Relu takes a FunctionConverterParams, or '
                                        r'\(func, opset_version'):
        oc.functions.convert_ReLU(None, 13)


def test_converters_return_nodes_named_after_the_function(oc):
    # Called directly (inside a user's converter), as onnx_chainer's are.
    x = chainlite.Variable(_r(2, 3, 4))
    y = F.softmax(x, axis=1)
    oc.onnx_helper.set_func_name('Softmax_7')
    ctx = oc.context.Context(None)
    nodes = oc.functions.activation.convert_Softmax(y.creator, 11, ['x'], ['y'], ctx)
    assert [n.op_type for n in nodes] == ['Transpose', 'Softmax', 'Transpose']
    assert nodes[-1].output == ['y'] and all(n.name.startswith('Softmax_7') for n in nodes)
    nodes = oc.functions.activation.convert_Softmax(y.creator, 13, ['x'], ['y'], ctx)
    assert [(n.op_type, n.attribute[0].i) for n in nodes] == [('Softmax', 1)]


def test_convert_shape_and_sign_and_argmax(oc):
    oc.onnx_helper.set_func_name('F_0')
    x = chainlite.Variable(_r(2, 3))
    node, = oc.functions.convert_Shape(F.relu(x).creator, 13, ['x'], ['s'], None)
    assert (node.op_type, list(node.input), list(node.output)) == ('Shape', ['x'], ['s'])
    node, = oc.functions.math.convert_sign(F.relu(x).creator, 13, ['x'], ['s'], None)
    assert node.op_type == 'Sign'


def test_argmax_and_n_step_gru_converters_in_an_export(oc):
    pytest.importorskip('onnxruntime')
    from chainlite_tests.onnx_tests import conftest
    calls = []
    x = np.random.RandomState(0).permutation(12).reshape(3, 4).astype(np.float32)
    proto = oc.export(conftest.Fn(lambda x: F.argmax(x, axis=1)), [x], external_converters={
        'ArgMax': _five_arguments_only(oc, oc.functions.convert_ArgMax, calls)})
    assert calls == ['ArgIndexNode']
    got, = conftest.run_onnx(proto, [x])
    np.testing.assert_array_equal(got, x.argmax(axis=1).astype(np.int32))

    gru = L.NStepGRU(1, 3, 2, 0.0)
    xs = [_r(2, 3) for _ in range(3)]
    calls.clear()

    def model(*xs):
        hy, ys = gru(None, list(xs))
        return [hy] + list(ys)
    proto = oc.export(conftest.Fn(model), xs, external_converters={
        'n_step_gru': _five_arguments_only(oc, oc.functions.rnn.convert_n_step_gru, calls)})
    assert calls == ['NStepRNNNode'] and 'GRU' in conftest.op_types(proto)
    with chainlite.using_config('train', False):
        expected = [v.array for v in model(*xs)]
    for g, e in zip(conftest.run_onnx(proto, xs), expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)

    oc.onnx_helper.set_func_name('F_0')
    with pytest.raises(ValueError, match='convert_n_step_gru: func must be a GRU'):
        oc.functions.convert_n_step_gru(F.relu(chainlite.Variable(xs[0])).creator, 13,
                                        ['x'], ['y'], None)


def test_tensor_type_to_name_matches_onnx(oc):
    import onnx
    table = oc.functions.array.TENSOR_TYPE_TO_NAME
    assert len(table) == 16
    for number, name in table.items():
        assert onnx.TensorProto.DataType.Name(number) == name


@pytest.mark.parametrize('opset,op_inputs', [(9, 1), (10, 4), (11, 5)])
def test_get_slice_node(oc, opset, op_inputs):
    oc.onnx_helper.set_func_name('GetItem_0')
    ctx = oc.context.Context(None)
    gb = oc.onnx_helper.GraphBuilder()
    names = ['x']
    out = oc.functions.array.get_slice_node(gb, opset, ctx, names, [1], [0], [2], [1])
    node, = gb.nodes()
    assert node.op_type == 'Slice' and node.output == [out] and len(node.input) == op_inputs
    assert names == list(node.input)  # the bounds' names are appended, as onnx_chainer does
    if opset == 9:
        assert {a.name: list(a.ints) for a in node.attribute} == {
            'axes': [1], 'starts': [0], 'ends': [2]}
    else:
        from onnx import numpy_helper
        values = [numpy_helper.to_array(c.attribute[0].t).tolist() for c in ctx.constants]
        assert values == [[0], [2], [1], [1]][:op_inputs - 1]
    with pytest.raises(ValueError, match='needs opset_version >= 11'):
        oc.functions.array.get_slice_node(gb, 10, ctx, ['x'], [0], [0], [4], [2])


def test_function_converter_and_params(oc):
    from onnx_chainer.functions.converter import FunctionConverter, FunctionConverterParams
    seen = []

    def conv(func, opset_version, input_names, output_names, context):
        seen.append((type(func).__name__, opset_version, input_names, output_names, context))
        return 'nodes'
    x = chainlite.Variable(_r(2))
    f = F.relu(x).creator
    params = FunctionConverterParams(f, 11, ['a'], ['b'], 'ctx')
    assert FunctionConverter(conv)(params) == 'nodes'
    assert seen == [('ReLU', 11, ['a'], ['b'], 'ctx')]
    assert FunctionConverter(conv).converter is conv


def test_opset_version_support(oc):
    from onnx_chainer.functions.opset_version import support

    @support((1, 6, 11))
    def conv(func, opset_version, input_names, output_names, context):
        return opset_version
    assert [conv(None, v, [], [], None) for v in (1, 5, 6, 10, 11, 13)] == [1, 1, 6, 6, 11, 11]
    assert support(None)(conv.__wrapped__)(None, 4, [], [], None) == 4
    with pytest.raises(RuntimeError, match='cannot convert NoneType at opset_version 5'):
        support((6, 8))(conv.__wrapped__)(None, 5, [], [], None)


def test_mapping_converters_and_patch_functions(oc):
    from onnx_chainer import mapping
    params = oc.functions.converter.FunctionConverterParams
    for name in ('ReLU', 'Selu', 'SELU', 'Convolution2DFunction', 'n_step_gru', 'sign',
                 'ArgMax', 'RsqrtGPU'):
        assert isinstance(mapping.converters[name], oc.functions.converter.FunctionConverter)
    assert mapping.converters['Selu'].converter is oc.functions.convert_Selu
    x = chainlite.Variable(_r(2, 3))
    oc.onnx_helper.set_func_name('ReLU_0')
    node, = mapping.converters['ReLU'](params(F.relu(x).creator, 13, ['x'], ['y'], None,
                                              ((2, 3),), (np.float32,)))
    assert node.op_type == 'Relu'
    with mapping.patch_functions():
        y = F.sign(x)
        assert y.creator.custom_function_node_name == 'sign'
    assert F.sign(x).creator is None  # restored: sign computes outside the graph again


def test_export_names(oc):
    ex = importlib.import_module('onnx_chainer.export')
    assert ex.MAXIMUM_OPSET_VERSION == oc.MAXIMUM_OPSET_VERSION >= ex.MINIMUM_OPSET_VERSION
    assert ex.format_customized_shapes(np.zeros((2, 3)), ('N', 3)) == [('N', 3)]
    assert ex.format_customized_shapes(np.zeros((2, 3)), [(None, 3)]) == [(None, 3)]
    assert ex.format_customized_shapes(
        {'a': np.zeros(2), 'b': np.zeros((1, 2))}, [('N',), (1, 'M')]) == [('N',), (1, 'M')]
    with pytest.raises(ValueError, match='axes'):
        ex.format_customized_shapes([np.zeros((2, 3))], [('N',)])
    with pytest.raises(ValueError, match='one input, but 2 shapes'):
        ex.format_customized_shapes(np.zeros(2), [(2,), (2,)])


def test_rename_variable_name(oc):
    ex = importlib.import_module('onnx_chainer.export')
    ctx = oc.context.Context(None)
    a, b = chainlite.Variable(_r(2)), chainlite.Variable(_r(3))
    named = collections.OrderedDict((ctx.get_name(v), v) for v in (a, b))
    ex.rename_variable_name(ctx, [a, b], named, None)
    assert list(named) == ['Input_0', 'Input_1'] and ctx.is_pinned(a)
    ex.rename_variable_name(ctx, {'p': a, 'q': b}, named, {'q': 'second', 'p': 'first'})
    assert list(named) == ['first', 'second'] and named['second'] is b
    assert ctx.get_name(a) == 'first'
    ex.rename_variable_name(ctx, a, named, 'alone', prefix='Output')
    assert 'alone' in named and named['alone'] is a
    with pytest.raises(ValueError, match='2 variables'):
        ex.rename_variable_name(ctx, [a, b], named, ['one'])
    with pytest.raises(ValueError, match='no new name for the keys'):
        ex.rename_variable_name(ctx, {'p': a, 'q': b}, named, {'p': 'x', 'r': 'y'})


def test_check_onnx_model(oc):
    import onnx
    ex = importlib.import_module('onnx_chainer.export')
    proto = oc.export(F.relu, _r(2))
    ex.check_onnx_model(proto, None, None)
    proto.graph.node[0].op_type = 'NoSuchOp'
    with pytest.raises(onnx.checker.ValidationError):
        ex.check_onnx_model(proto, None, None)
    with pytest.raises(onnx.checker.ValidationError):
        ex.check_onnx_model(proto, {'ReLU': None}, {'custom': 1})
    with pytest.warns(UserWarning, match='external_converters'):
        ex.check_onnx_model(proto, {'ReLU': None}, None)


def test_retain_input_hook_keeps_constants(oc):
    ex = importlib.import_module('onnx_chainer.export')
    link = L.Linear(3, 2)
    x = chainlite.Variable(_r(1, 3))
    with ex.RetainInputHook() as hook:
        y = F.relu(link(x) * np.float32(2) + np.full((1, 2), 0.5, np.float32))
        seen_during_call = set(hook.link_inputs)
    names = [type(f).__name__ for f, _ in hook.retain_inputs]
    assert names == ['LinearFunction', 'MulConstant', 'Add', 'ReLU']
    add = y.creator.inputs[0].creator_node
    np.testing.assert_array_equal(hook.in_data[id(add)][1], np.full((1, 2), 0.5))
    assert seen_during_call == set()  # cleared after each link call
    assert not any(n.startswith('RetainInputHook') for n in chainlite.link_hook.get_link_hooks())
    with ex.RetainInputHook():  # an export inside a hook of the user's has its own
        proto = oc.export(link, x)
    assert [n.op_type for n in proto.graph.node] == ['Gemm']


def test_graph_converts_functions_in_order(oc):
    from onnx_chainer.graph import Graph
    ctx = oc.context.Context(None)
    x = chainlite.Variable(_r(2, 3))
    ctx.set_name(x.node, 'x', pinned=True)
    y = F.tanh(F.relu(x) + 1)
    calls = []
    conv = _five_arguments_only(oc, oc.functions.convert_Tanh, calls)
    g = Graph(ctx, {'Tanh': conv}, 13, {'x'}, collections.OrderedDict(out=y))
    assert [type(f).__name__ for f in g.function_nodes] == ['ReLU', 'AddConstant', 'Tanh']
    g.to_onnx_graph()
    assert [n.op_type for n in g.graph] == ['Relu', 'Constant', 'Add', 'Tanh']
    assert calls == ['Tanh'] and list(g.network_outputs) == ['Tanh_0']
    assert g.outputs == {'ReLU_0', 'AddConstant_0', 'Tanh_0'}


def test_onnx_helper_and_testing_names(oc, monkeypatch):
    import onnx
    from onnx_chainer.testing import test_onnxruntime
    assert test_onnxruntime.ONNXRUNTIME_AVAILABLE is (
        importlib.util.find_spec('onnxruntime') is not None)
    assert oc.onnx_helper.is_support_non_standard_domain() is True
    monkeypatch.setattr(onnx, '__version__', '1.4.1')
    assert oc.onnx_helper.is_support_non_standard_domain() is False
    monkeypatch.setattr(onnx, '__version__', 'dev')
    with pytest.raises(RuntimeError, match="cannot read the major and minor version"):
        oc.onnx_helper.is_support_non_standard_domain()


def test_roi_pooling_2d_converter_warns(oc):
    rois = np.array([[0, 0, 0, 2, 2]], np.float32)
    x = chainlite.Variable(_r(1, 1, 4, 4))
    f = F.roi_pooling_2d(x, rois, 2, 2, 1.0).creator
    oc.onnx_helper.set_func_name('ROIPooling2D_0')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        node, = oc.functions.convert_ROIPooling2D(f, 13, ['x', 'r'], ['y'], None)
    assert any('MaxRoiPool' in str(w.message) for w in caught)
    attrs = {a.name: a for a in node.attribute}
    assert node.op_type == 'MaxRoiPool' and list(attrs['pooled_shape'].ints) == [2, 2]
    assert attrs['spatial_scale'].f == 1.0


MULTI = [
    ('SplitAxis', lambda x: list(F.split_axis(x, [1, 3], axis=1)), [_r(2, 4)]),
    ('Separate', lambda x: list(F.separate(x, axis=0)), [_r(3, 2)]),
    ('TransposeSequence', lambda a, b: list(F.transpose_sequence([a, b])),
     [_r(3, 2), _r(2, 2)]),
]


@pytest.mark.parametrize('name,fn,inputs', MULTI, ids=[c[0] for c in MULTI])
def test_converter_of_several_outputs_with_onnx_chainers_arguments(oc, name, fn, inputs):
    from chainlite_tests.onnx_tests import conftest
    pytest.importorskip('onnxruntime')
    calls = []
    proto = oc.export(conftest.Fn(fn), inputs, external_converters={
        name: _five_arguments_only(oc, getattr(oc.functions, 'convert_' + name), calls)})
    assert calls == [name]
    expected = [v.array for v in fn(*[chainlite.Variable(a) for a in inputs])]
    got = conftest.run_onnx(proto, inputs)
    assert len(got) == len(expected) > 1
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)
