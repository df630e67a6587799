"""Chainer's internal names in chainer.functions.{activation,loss,normalization,pooling,rnn}.

Each test reaches the name through ``import chainer`` under compat and checks what it does
on the CPU, as Chainer does it without a GPU: forward values against NumPy, and gradient
nodes against numerical gradients (double backprop included).
"""
import importlib

import numpy as np
import pytest

import chainlite
from chainlite import gradient_check


def _mod(name):
    return importlib.import_module('chainer.functions.' + name)


def _grad_of(f, x, gy):
    # The gradient of sum(f(x) * gy) with respect to x, through chainlite's own backward.
    xv = chainlite.Variable(x)
    y = f(xv)
    y.grad = gy
    y.backward()
    return xv.grad


def _uniform(*shape, low=-1, high=1, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape)


# -- activation --------------------------------------------------------------------------------

def test_clipped_relu_grad_nodes(chainer):
    m = _mod('activation.clipped_relu')
    # Away from the kinks at 0 and z = 2.
    x = np.array([-1.0, 0.5, 1.5, 3.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.clip(x, 0, 2)
    for node in (lambda: m.ClippedReLUGrad2(x, 2.0), lambda: m.ClippedReLUGrad3(x, y, 2.0)):
        gx, = node().apply((gy,))
        np.testing.assert_array_equal(gx.array, [0, 2, 3, 0])
        np.testing.assert_array_equal(gx.array, _grad_of(lambda v: m.clipped_relu(v, 2.0),
                                                         x, gy))
        gradient_check.check_backward(lambda g: node().apply((g,))[0], gy, gy)
        gradient_check.check_double_backward(lambda g: node().apply((g,))[0], gy, gy, gy)
    assert m.ClippedReLUGrad2(x.astype(np.float32), 2.0).apply(
        (gy.astype(np.float32),))[0].dtype == np.float32


def test_elu_grad_node(chainer):
    m = _mod('activation.elu')
    x = np.array([-1.5, -0.2, 0.3, 2.0])
    y = m.elu(x, 0.7).array
    d, = m.ELUGrad(0.7, x).apply((y,))
    np.testing.assert_allclose(d.array, np.where(x > 0, 1, 0.7 * np.exp(x)))
    gradient_check.check_backward(lambda v: m.ELUGrad(0.7, x).apply((v,))[0], y, y)
    gradient_check.check_double_backward(lambda v: m.ELUGrad(0.7, x).apply((v,))[0] ** 2,
                                         y, y, y)


def test_hard_sigmoid_grad_node(chainer):
    m = _mod('activation.hard_sigmoid')
    x = np.array([-3.0, -1.0, 0.5, 2.0, 3.0])
    gy = np.arange(1.0, 6.0)
    gx, = m.HardSigmoidGrad(x).apply((gy,))
    np.testing.assert_allclose(gx.array, [0, 0.4, 0.6, 0.8, 0])
    np.testing.assert_allclose(gx.array, _grad_of(m.hard_sigmoid, x, gy))
    gradient_check.check_double_backward(
        lambda g: m.HardSigmoidGrad(x).apply((g,))[0], gy, gy, gy)
    with pytest.raises(TypeError, match='HardSigmoidGrad.*dtype'):
        m.HardSigmoidGrad(x).apply((gy.astype(np.float32),))


def test_leaky_relu_grad_node_and_kernel(chainer):
    m = _mod('activation.leaky_relu')
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    gx, = m._LeakyReLUGrad(x, 0.1).apply((gy,))
    np.testing.assert_allclose(gx.array, [0.1, 0.2, 3, 4])
    np.testing.assert_allclose(gx.array, _grad_of(lambda v: m.leaky_relu(v, 0.1), x, gy))
    gradient_check.check_double_backward(
        lambda g: m._LeakyReLUGrad(x, 0.1).apply((g,))[0], gy, gy, gy)
    with pytest.raises(RuntimeError, match='CUDA'):
        m._get_kern()


def test_log_softmax_helpers(chainer):
    m = _mod('activation.log_softmax')
    x = _uniform(3, 4)
    ref = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(m._log_softmax(x), ref)
    np.testing.assert_allclose(m._log_softmax(x, axis=0),
                               x - np.log(np.exp(x).sum(axis=0, keepdims=True)))
    gy = _uniform(3, 4, seed=1)
    node = lambda: m.LogSoftmaxGrad(np, x.shape, x.dtype, 1)  # noqa: E731
    gx, = node().apply((ref, gy))
    np.testing.assert_allclose(gx.array, _grad_of(m.log_softmax, x, gy))
    gradient_check.check_backward(lambda y, g: node().apply((y, g))[0], (ref, gy), gy)
    gradient_check.check_double_backward(lambda y, g: node().apply((y, g))[0], (ref, gy),
                                         gy, (gy, gy))


def test_prelu_helpers_and_grad_node(chainer):
    m = _mod('activation.prelu')
    x = _uniform(2, 3, 4)
    x[np.abs(x) < 0.1] = 0.5  # away from the kink at 0
    W = _uniform(3, seed=1)
    assert m._get_extended_shape(W, x) == (1, 3, 1)
    assert m._get_reduce_axes(W, x) == (0, 2)
    gy = _uniform(2, 3, 4, seed=2)
    node = lambda: m.PReLUFunctionGrad(x, (0, 2), (1, 3, 1))  # noqa: E731
    gx, gW = node().apply((x, W, gy))
    xv, Wv = chainlite.Variable(x), chainlite.Variable(W)
    y = m.prelu(xv, Wv)
    y.grad = gy
    y.backward()
    np.testing.assert_allclose(gx.array, xv.grad)
    np.testing.assert_allclose(gW.array, Wv.grad)
    gradient_check.check_backward(lambda a, b, c: node().apply((a, b, c)), (x, W, gy),
                                  (gy, W))
    gradient_check.check_double_backward(lambda a, b, c: node().apply((a, b, c)),
                                         (x, W, gy), (gy, W), (x, W, gy))
    with pytest.raises(RuntimeError, match='CUDA'):
        m._fwd_kern()


def test_relu_grad_nodes(chainer):
    m = _mod('activation.relu')
    y = np.array([0.0, 0.0, 0.5, 2.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    gx, = m.ReLUGrad2(y).apply((gy,))
    np.testing.assert_array_equal(gx.array, [0, 0, 3, 4])
    gradient_check.check_double_backward(lambda g: m.ReLUGrad2(y).apply((g,))[0], gy, gy, gy)
    # The cuDNN node needs CUDA, as in Chainer without a GPU; its backward is ReLUGrad2's.
    with pytest.raises(RuntimeError, match='CUDA'):
        m.ReLUGradCudnn(y).apply((gy,))
    gg, = m.ReLUGradCudnn(y).backward((0,), (chainlite.Variable(gy),))
    np.testing.assert_array_equal(gg.array, [0, 0, 3, 4])


def test_rrelu_kernel_needs_cuda(chainer):
    with pytest.raises(RuntimeError, match='CUDA'):
        _mod('activation.rrelu')._kern()


def test_sigmoid_and_tanh_grad_nodes(chainer):
    x = _uniform(5)
    gy = _uniform(5, seed=1)
    ms, mt = _mod('activation.sigmoid'), _mod('activation.tanh')
    for m, f, node in ((ms, ms.sigmoid, lambda: ms.SigmoidGrad((None,))),
                       (mt, mt.tanh, lambda: mt.TanhGrad(None))):
        y = f(x).array
        gx, = node().apply((y, gy))
        np.testing.assert_allclose(gx.array, _grad_of(f, x, gy))
        gradient_check.check_double_backward(lambda a, b: node().apply((a, b))[0], (y, gy),
                                             gy, (gy, gy))
    assert ms.SigmoidGrad((x,)).x is x and mt.TanhGrad(x).x is x


def test_softplus_grad_node(chainer):
    m = _mod('activation.softplus')
    x, gy = _uniform(5), _uniform(5, seed=1)
    gx, = m.SoftplusGrad((2.0,)).apply((x, gy))
    np.testing.assert_allclose(gx.array, _grad_of(lambda v: m.softplus(v, 2.0), x, gy))
    f = lambda a, b: m.SoftplusGrad((2.0,)).apply((a, b))[0]  # noqa: E731
    gradient_check.check_backward(f, (x, gy), gy)
    gradient_check.check_double_backward(f, (x, gy), gy, (gy, gy))


def test_swish_helpers_and_grad_node(chainer):
    m = _mod('activation.swish')
    x, beta, gy = _uniform(2, 3, 4), _uniform(3, seed=1), _uniform(2, 3, 4, seed=2)
    assert m._get_extended_shape(beta, x) == (1, 3, 1)
    assert m._get_reduction_axes(beta, x) == (0, 2)
    np.testing.assert_allclose(m._sigmoid(x), 1 / (1 + np.exp(-x)))
    assert m._sigmoid(x.astype(np.float32)).dtype == np.float32
    f = lambda a, b, c: m.SwishGrad((1, 3, 1), (0, 2)).apply((a, b, c))  # noqa: E731
    gx, gb = f(x, beta, gy)
    xv, bv = chainlite.Variable(x), chainlite.Variable(beta)
    y = m.swish(xv, bv)
    y.grad = gy
    y.backward()
    np.testing.assert_allclose(gx.array, xv.grad)
    np.testing.assert_allclose(gb.array, bv.grad)
    gradient_check.check_backward(f, (x, beta, gy), (gy, beta))
    gradient_check.check_double_backward(f, (x, beta, gy), (gy, beta), (x, beta, gy))


# -- loss --------------------------------------------------------------------------------------

def test_ctc_array_helpers(chainer):
    m = _mod('loss.ctc')
    a = _uniform(3, 4)
    np.testing.assert_allclose(m._logsumexp(a, np, axis=1), np.log(np.exp(a).sum(axis=1)))
    np.testing.assert_allclose(m._logsumexp(a, np), np.log(np.exp(a).sum()))
    x = _uniform(2, 3, 4)
    np.testing.assert_allclose(m._softmax(x, np), np.exp(x) / np.exp(x).sum(2, keepdims=True))
    path = m._label_to_path(np.array([[1, 2], [3, 3]], np.int32), 0, np)
    np.testing.assert_array_equal(path, [[0, 1, 0, 2, 0], [0, 3, 0, 3, 0]])
    assert path.dtype == np.int32
    flipped = m._flip_path(np.array([[0, 1, 0, 2, 0], [0, 3, 0, 9, 8]]), np.array([5, 3]), np)
    np.testing.assert_array_equal(flipped, [[0, 2, 0, 1, 0], [0, 3, 0, 8, 9]])
    # The valid steps of each sequence reversed, then its padding steps reversed.
    y = _uniform(4, 2, 3)
    il = np.array([4, 2])
    expect = np.stack([y[::-1, 0], np.concatenate([y[1::-1, 1], y[:1:-1, 1]])], axis=1)
    np.testing.assert_array_equal(m._flip_label_probability(y, il, np), expect)
    prob = _uniform(4, 2, 5)
    pl = np.array([5, 3])
    got = m._flip_path_probability(prob, il, pl, np)
    for b in range(2):
        t_order = np.concatenate([np.arange(il[b])[::-1], np.arange(il[b], 4)[::-1]])
        s_order = np.concatenate([np.arange(pl[b])[::-1], np.arange(pl[b], 5)[::-1]])
        np.testing.assert_array_equal(got[:, b], prob[t_order][:, b][:, s_order])


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_ctc_function_matches_the_composite(chainer, reduce):
    m = _mod('loss.ctc')
    xs = _uniform(4, 2, 3)
    t = np.array([[0, 1], [1, 1]], np.int32)
    il, ll = np.array([4, 3], np.int32), np.array([2, 1], np.int32)
    func = m.ConnectionistTemporalClassification(2, reduce)
    xv = chainlite.Variable(xs)
    loss = func(il, ll, t, xv)
    ref = m.connectionist_temporal_classification(list(xs), t, 2, il, ll, reduce)
    np.testing.assert_allclose(loss.array, ref.array)
    assert func.zero_padding == -1e10 and func.path.shape == (2, 5)
    np.testing.assert_array_equal(func.path_length, [5, 3])
    gradient_check.check_backward(
        lambda x: m.ConnectionistTemporalClassification(2, reduce)(il, ll, t, x), xs,
        np.ones_like(ref.array))
    with pytest.raises(ValueError, match='reduce'):
        m.ConnectionistTemporalClassification(2, 'sum')


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_decov_function(chainer, reduce):
    m = _mod('loss.decov')
    h = _uniform(5, 3)
    func = m.DeCov(reduce)
    y = func(h)
    np.testing.assert_allclose(y.array, m.decov(h, reduce).array)
    assert np.allclose(func.h_centered.mean(axis=0), 0) and func.covariance.shape == (3, 3)
    gy = _uniform(*y.shape, seed=1)
    gradient_check.check_backward(lambda v: m.DeCov(reduce)(v), h, gy)
    with pytest.raises(ValueError, match='reduce'):
        m.DeCov('mean')


def test_hinge_kernel_and_mae_dtype(chainer):
    with pytest.raises(RuntimeError, match='CUDA'):
        _mod('loss.hinge')._hinge_fwd_kernel()
    f = _mod('loss.mean_absolute_error')._get_intermediate_dtype
    assert f(np.float16) == np.float32 and f(np.dtype(np.float64)) == np.float64


@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_negative_sampling_function(chainer, reduce):
    m = _mod('loss.negative_sampling')
    x, W = _uniform(3, 4), _uniform(5, 4, seed=1)
    t = np.array([1, -1, 4], np.int32)
    draws = np.array([[0, 2, 3], [0, 1, 1], [0, 0, 2]], np.int32)
    sampler = lambda shape: draws.copy()  # noqa: E731
    func = m.NegativeSamplingFunction(sampler, 2, reduce)
    loss, = func.apply((x, t, W))
    ref, samples = m.negative_sampling(x, t, W, sampler, 2, reduce, return_samples=True)
    np.testing.assert_allclose(loss.array, ref.array)
    np.testing.assert_array_equal(func.samples, samples)
    gy = _uniform(*ref.shape, seed=2)

    def f(x, W):
        return m.NegativeSamplingFunction(sampler, 2, reduce).apply((x, t, W))[0]
    gradient_check.check_backward(f, (x, W), gy)
    gradient_check.check_double_backward(f, (x, W), gy, (x, W))
    gx, none, gW = m.NegativeSamplingFunctionGrad(
        reduce, t != -1, 2, samples, None).apply((x, W, gy))
    assert none.array is None
    xv, Wv = chainlite.Variable(x), chainlite.Variable(W)
    r = m.negative_sampling(xv, t, Wv, sampler, 2, reduce)
    r.grad = gy
    r.backward()
    np.testing.assert_allclose(gx.array, xv.grad)
    np.testing.assert_allclose(gW.array, Wv.grad)
    s = _uniform(3)
    np.testing.assert_allclose(m._sigmoid_grad(s, _sigmoid(s), gy * 0 + 1).array,
                               _sigmoid(s) * (1 - _sigmoid(s)))
    with pytest.raises(ValueError, match='reduce'):
        m.NegativeSamplingFunction(sampler, 2, 'mean')


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_sigmoid_cross_entropy_grad_node(chainer, reduce):
    m = _mod('loss.sigmoid_cross_entropy')
    x = _uniform(3, 2)
    t = np.array([[0, 1], [-1, 1], [1, 0]], np.int32)
    gy = np.array(0.7) if reduce == 'mean' else _uniform(3, 2, seed=1)
    node = lambda: m.SigmoidCrossEntropyGrad(reduce, 5, t != -1, t)  # noqa: E731
    gx, = node().apply((x, gy))
    np.testing.assert_allclose(
        gx.array, _grad_of(lambda v: m.sigmoid_cross_entropy(v, t, reduce=reduce), x, gy))
    f = lambda a, b: node().apply((a, b))[0]  # noqa: E731
    gradient_check.check_backward(f, (x, gy), x)
    gradient_check.check_double_backward(f, (x, gy), x, (x, gy))


def test_softmax_cross_entropy_helpers(chainer):
    m = _mod('loss.softmax_cross_entropy')
    b = m._broadcast_to(np.arange(3.0), (2, 3))
    np.testing.assert_array_equal(b, [[0, 1, 2], [0, 1, 2]])
    m._check_class_weight_option(None)
    m._check_class_weight_option(np.ones(3))
    for bad in (np.ones((2, 2)), np.ones(3, np.int32), chainlite.Variable(np.ones(3))):
        with pytest.raises(ValueError, match='class_weight'):
            m._check_class_weight_option(bad)
    m._check_reduce_option('no')
    with pytest.raises(ValueError, match="'sum'"):
        m._check_reduce_option('sum')
    x = np.zeros((2, 3))
    m._check_input_values(chainlite.Variable(x), np.array([0, -1]), -1)
    with pytest.raises(ValueError, match='0 <= t < x.shape'):
        m._check_input_values(x, np.array([0, 3]), -1)
    assert m._reduction_dtype(np.float16) == np.float32
    assert m._reduction_dtype(np.float64) == np.float64


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', [(4, 3), (4, 3, 2)])
def test_softmax_cross_entropy_grad_node_and_double_backward_loss(chainer, reduce, shape):
    m = _mod('loss.softmax_cross_entropy')
    x = _uniform(*shape)
    t = np.random.RandomState(1).randint(0, 3, (shape[0],) + shape[2:]).astype(np.int32)
    t.flat[1] = -1
    cw = np.array([0.5, 1.0, 2.0])
    loss = m._double_backward_softmax_cross_entropy(x, chainlite.Variable(t), True, cw, -1,
                                                    reduce, False)
    ref = m.softmax_cross_entropy(x, t, class_weight=cw, reduce=reduce)
    np.testing.assert_allclose(loss.array, ref.array)
    gy = _uniform(*ref.shape, seed=2)
    gradient_check.check_double_backward(
        lambda v: m._double_backward_softmax_cross_entropy(v, t, True, cw, -1, reduce, False),
        x, gy, x)
    coeff = 1.0 / (t != -1).sum() if reduce == 'mean' else None
    node = m._SoftmaxCrossEntropyGrad_NoDoubleBackprop(-1, cw, None, coeff, False)
    gx, = node.apply((x, t, gy))
    np.testing.assert_allclose(
        gx.array,
        _grad_of(lambda v: m.softmax_cross_entropy(v, t, class_weight=cw, reduce=reduce),
                 x, gy))
    xv = chainlite.Variable(x)
    gx, = m._SoftmaxCrossEntropyGrad_NoDoubleBackprop(-1, None, None, coeff, False).apply(
        (xv, t, gy))
    with pytest.raises(RuntimeError, match='enable_double_backprop=True'):
        chainlite.grad([gx], [xv], grad_outputs=[np.ones_like(x)])


def test_softmax_cross_entropy_grad_node_soft_target(chainer):
    m = _mod('loss.softmax_cross_entropy')
    x = _uniform(3, 4)
    t = np.exp(_uniform(3, 4, seed=1))
    t /= t.sum(axis=1, keepdims=True)
    y = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    gx, = m._SoftmaxCrossEntropyGrad_NoDoubleBackprop(-1, None, y, 0.5, True).apply(
        (x, t, np.array(2.0)))
    np.testing.assert_allclose(gx.array, (y - t) * 2.0 * 0.5)


# -- normalization -----------------------------------------------------------------------------

def test_batch_normalization_axis_helpers(chainer):
    m = _mod('normalization.batch_normalization')
    assert m._compute_axis(4, 1, None) == (0, 2, 3)
    assert m._compute_axis(4, 1, (0, 1)) == (0, 1)
    assert m._compute_key_axis(4, 1, None) == (1,)
    assert m._compute_key_axis(3, 2, None) == (1, 2)
    assert m._chainerx_compute_axis(4, 1, 0) == (0,)
    assert m._chainerx_compute_axis(4, 1, None) == (0, 2, 3)
    assert m._chainerx_is_supported(np.zeros((2, 3)), (0,))
    x, mean, inv_std = _uniform(4, 3), _uniform(1, 3, seed=1), np.full((1, 3), 2.0)
    np.testing.assert_allclose(m._x_hat(x, mean, inv_std), (x - mean) * 2)
    gamma, beta = _uniform(1, 3, seed=2), _uniform(1, 3, seed=3)
    y = m._apply_bn_fwd(np, x.astype(np.float32), mean, inv_std, gamma, beta)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, (x - mean) * 2 * gamma + beta, rtol=1e-6)
    assert m._zero_if_none(np, None, (2,), np.float32).tolist() == [0, 0]
    assert m._zero_if_none(np, x, (2,), np.float32) is x


def test_batch_normalization_impls_and_mode(chainer):
    m = _mod('normalization.batch_normalization')
    x, gamma, beta = _uniform(5, 3, 2), _uniform(3, seed=1) + 2, _uniform(3, seed=2)
    node = type('Node', (), {'key_axis': (1,)})()
    impl = m._impl_selector(node, (x, gamma, beta))
    assert isinstance(impl, m.GeneralBatchNormalizationImpl)
    assert isinstance(impl, m._BatchNormalizationImpl)
    rm, rv = np.zeros(3), np.ones(3)
    expander = (None, slice(None), None)
    y, layout, rm2, rv2, mean, var, inv_std, data = impl.forward(
        (0, 2), gamma, x, None, np, expander, beta, 1e-5, 0.9, rm, rv)
    np.testing.assert_allclose(y, m.batch_normalization(x, gamma, beta, eps=1e-5).array)
    assert rm2 is rm and data is None and layout is None
    np.testing.assert_allclose(rm, 0.1 * x.mean(axis=(0, 2)))
    np.testing.assert_allclose(rv, 0.9 + 0.1 * x.var(axis=(0, 2)) * 10 / 9)
    gy = _uniform(5, 3, 2, seed=4)
    gx, _, ggamma, gbeta = impl.backward((0, 2), gamma, gy, x, None, np, expander, mean,
                                         inv_std, 1e-5, None, None)
    xv, gv, bv = (chainlite.Variable(a) for a in (x, gamma, beta))
    out = m.batch_normalization(xv, gv, bv, eps=1e-5)
    out.grad = gy
    out.backward()
    np.testing.assert_allclose(gx, xv.grad)
    np.testing.assert_allclose(ggamma, gv.grad)
    np.testing.assert_allclose(gbeta, bv.grad)
    mode = m._BNMode(np.zeros((2, 3, 4, 4)), np.zeros(3), (1,))
    assert mode.is_for_conv2d and not mode.is_for_linear
    assert not mode.can_use_cudnn(np) and not mode.can_use_ideep()
    with pytest.raises(RuntimeError):
        mode.get_cudnn_mode()
    with pytest.raises(RuntimeError):
        m._CudnnBatchNormalizationImpl(True, None).forward(
            (0,), gamma, x, None, np, expander, beta, 1e-5, 0.9, None, None)
    with pytest.raises(RuntimeError):
        m._IDeepBatchNormalizationImpl().forward(
            (0,), gamma, x, None, np, expander, beta, 1e-5, 0.9, None, None)


def test_batch_normalization_grad_node(chainer):
    m = _mod('normalization.batch_normalization')
    x, gamma, gy = _uniform(5, 3), _uniform(3, seed=1) + 2, _uniform(5, 3, seed=2)
    mean, var = x.mean(axis=0), x.var(axis=0)
    inv_std = 1 / np.sqrt(var + 1e-5)

    def f(x, gamma, gy):
        return m.BatchNormalizationGrad(1e-5, (None, slice(None)), (0,), mean, None, inv_std,
                                        (1,), m.GeneralBatchNormalizationImpl(),
                                        None).apply((x, gamma, gy))
    gx, ggamma, gbeta = f(x, gamma, gy)
    np.testing.assert_allclose(gbeta.array, gy.sum(axis=0))
    np.testing.assert_allclose(ggamma.array, (gy * (x - mean) * inv_std).sum(axis=0))
    np.testing.assert_allclose(
        gx.array, _grad_of(lambda v: m.batch_normalization(v, gamma, np.zeros(3), eps=1e-5),
                           x, gy))
    # The node's forward takes the statistics as given, so only its backward (which
    # recomputes them from x) is checked numerically, through double backprop of the loss.
    gradient_check.check_double_backward(
        lambda x, g: m.batch_normalization(x, g, np.zeros(3), eps=1e-5), (x, gamma), gy,
        (x, gamma))


def test_fixed_batch_normalization_nodes(chainer):
    m = _mod('normalization.batch_normalization')
    x, gamma, beta = _uniform(4, 3, 2), _uniform(3, seed=1), _uniform(3, seed=2)
    mean, var = _uniform(3, seed=3), _uniform(3, low=0.5, high=1.5, seed=4)
    y, = m.FixedBatchNormalization().apply((x, gamma, beta, mean, var))
    ref = ((x - mean[:, None]) / np.sqrt(var[:, None] + 2e-5)) * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(y.array, ref)
    y1, = m.FixedBatchNormalization(2e-5, 0).apply(
        (x[:, :, 0], gamma, beta, mean, var))
    np.testing.assert_allclose(y1.array, ref[:, :, 0])
    with pytest.raises(RuntimeError, match='ascending'):
        m.FixedBatchNormalization(2e-5, (2, 0))
    gy = _uniform(4, 3, 2, seed=5)

    def f(x, gamma, mean, var, gy):
        return m.FixedBatchNormalizationGrad(
            2e-5, (None, slice(None), None), (0, 2), None, None).apply((x, gamma, mean, var, gy))
    grads = f(x, gamma, mean, var, gy)
    vs = [chainlite.Variable(a) for a in (x, gamma, beta, mean, var)]
    out = m.fixed_batch_normalization(*vs)
    out.grad = gy
    out.backward()
    for g, v in zip(grads, [vs[0], vs[1], vs[2], vs[3], vs[4]]):
        np.testing.assert_allclose(g.array, v.grad)
    args = (x, gamma, mean, var, gy)
    gradient_check.check_backward(f, args, (x, gamma, gamma, gamma, gamma))
    gradient_check.check_double_backward(f, args, (x, gamma, gamma, gamma, gamma), args)


def test_batch_renormalization_function(chainer):
    m = _mod('normalization.batch_renormalization')
    x, gamma, beta = _uniform(6, 3), _uniform(3, seed=1) + 2, _uniform(3, seed=2)
    rm, rv = _uniform(3, seed=3) * 0.1, np.full(3, 0.4)
    np.testing.assert_allclose(m._xhat(x, np.ones(3), np.full(3, 2.0), (None, Ellipsis)),
                               (x - 1) / 2)
    func = m.BatchRenormalizationFunction(2e-5, rm.copy(), rv.copy(), 0.9, 1.5, 0.3, False)
    y = func(x, gamma, beta)
    ref = m.batch_renormalization(x, gamma, beta, 1.5, 0.3, running_mean=rm.copy(),
                                  running_var=rv.copy())
    np.testing.assert_allclose(y.array, ref.array)
    assert func.r.shape == (3,)
    with pytest.warns(DeprecationWarning):
        np.testing.assert_array_equal(func.running_mean, rm)
    gy = _uniform(6, 3, seed=4)
    xv, gv, bv = (chainlite.Variable(a) for a in (x, gamma, beta))
    out = m.BatchRenormalizationFunction(2e-5, rm.copy(), rv.copy(), 0.9, 1.5, 0.3, False)(
        xv, gv, bv)
    out.grad = gy
    out.backward()
    rv_ = [chainlite.Variable(a) for a in (x, gamma, beta)]
    out2 = m.batch_renormalization(*rv_, 1.5, 0.3, running_mean=rm.copy(),
                                   running_var=rv.copy())
    out2.grad = gy
    out2.backward()
    for a, b in zip((xv, gv, bv), rv_):
        np.testing.assert_allclose(a.grad, b.grad)
    upd = m.BatchRenormalizationFunction(2e-5, rm.copy(), rv.copy(), 0.5, 1.5, 0.3, True)
    upd(x, gamma, beta)
    np.testing.assert_allclose(upd._running_mean, 0.5 * rm + 0.5 * x.mean(axis=0))
    with chainer.using_config('train', False), pytest.raises(AssertionError, match='train'):
        m.BatchRenormalizationFunction(2e-5, rm.copy(), rv.copy())(x, gamma, beta)


def test_decorrelated_batch_normalization_helpers(chainer):
    m = _mod('normalization.decorrelated_batch_normalization')
    a = _uniform(3, 4, 4)
    s = a @ a.transpose(0, 2, 1)
    w, v = m._eigh(s, np)
    np.testing.assert_allclose(v @ (w[:, :, None] * v.transpose(0, 2, 1)), s, atol=1e-12)
    np.testing.assert_allclose(m._matmul(a, a, np), a @ a)
    d = m._diag(np.array([[1.0, 2.0], [3.0, 4.0]]), np)
    np.testing.assert_array_equal(d, [[[1, 0], [0, 2]], [[3, 0], [0, 4]]])
    assert m._calc_axis_and_m((5, 4, 3, 2), 5) == ((2, 3), 30)
    assert m._calc_axis_and_m((5, 4), 5) == ((), 5)


def test_decorrelated_batch_normalization_nodes(chainer):
    m = _mod('normalization.decorrelated_batch_normalization')
    x = _uniform(8, 4, 2)
    rm, rp = np.zeros((2, 2)), np.zeros((2, 2, 2))
    func = m.DecorrelatedBatchNormalization(2, 1e-3, rm, rp, 0.9)
    y, = func.apply((x,))
    np.testing.assert_allclose(y.array, m.decorrelated_batch_normalization(
        x, groups=2, eps=1e-3).array, atol=1e-10)
    rm_ref, rp_ref = np.zeros((2, 2)), np.zeros((2, 2, 2))
    m.decorrelated_batch_normalization(x, groups=2, eps=1e-3, running_mean=rm_ref,
                                       running_projection=rp_ref, decay=0.9)
    np.testing.assert_allclose(rm, rm_ref)
    np.testing.assert_allclose(rp, rp_ref, atol=1e-10)
    gy = _uniform(8, 4, 2, seed=1)
    f = lambda v: m.DecorrelatedBatchNormalization(2, 1e-3).apply((v,))[0]  # noqa: E731
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, x)
    node = m.DecorrelatedBatchNormalizationGrad(2, func.eigvals, func.eigvectors,
                                                func.y_hat_pca)
    gx, = node.apply((gy,))
    np.testing.assert_allclose(
        gx.array, _grad_of(lambda v: m.decorrelated_batch_normalization(v, groups=2, eps=1e-3),
                           x, gy), atol=1e-10)
    g = lambda v: m.DecorrelatedBatchNormalizationGrad(  # noqa: E731
        2, func.eigvals, func.eigvectors, func.y_hat_pca).apply((v,))[0]
    gradient_check.check_backward(g, gy, x)


def test_fixed_decorrelated_batch_normalization_nodes(chainer):
    m = _mod('normalization.decorrelated_batch_normalization')
    x, mean, proj = _uniform(5, 4, 2), _uniform(2, 2, seed=1), _uniform(2, 2, 2, seed=2)
    y, = m.FixedDecorrelatedBatchNormalization(2).apply((x, mean, proj))
    np.testing.assert_allclose(
        y.array, m.fixed_decorrelated_batch_normalization(x, mean, proj, groups=2).array)
    gy = _uniform(5, 4, 2, seed=3)
    f = lambda a, b, c: m.FixedDecorrelatedBatchNormalization(2).apply((a, b, c))  # noqa
    gradient_check.check_backward(f, (x, mean, proj), gy)
    gradient_check.check_double_backward(f, (x, mean, proj), gy, (x, mean, proj))
    g = lambda *a: m.FixedDecorrelatedBatchNormalizationGrad(2).apply(a)  # noqa: E731
    args = (x, mean, proj, gy)
    gradient_check.check_double_backward(g, args, (x, mean, proj), args)


def test_group_normalization_helper_nodes(chainer):
    m = _mod('normalization.group_normalization')
    x = _uniform(6, 4)  # (batch * groups, elements per group)
    mean = x.mean(axis=1)
    inv_std = 1 / np.sqrt(x.var(axis=1) + 1e-5)
    x_hat_ref = (x - mean[:, None]) * inv_std[:, None]
    make = lambda: m._XHat(1e-5, mean, inv_std, None)  # noqa: E731
    x_hat, = make().apply((x,))
    np.testing.assert_allclose(x_hat.array, x_hat_ref)
    gxh = _uniform(6, 4, seed=1)
    # The statistics are functions of x: _XHat's gradient is that of the normalization.
    np.testing.assert_allclose(
        _grad_of(lambda v: make().apply((v,))[0], x, gxh),
        _grad_of(lambda v: m.group_normalization(v.reshape(2, 6, 2), 3, np.ones(6),
                                                 np.zeros(6)).reshape(6, 4), x, gxh),
        atol=1e-10)
    gx, = m._XHatGrad(1e-5, mean, inv_std, None, x_hat_ref).apply((x, gxh))
    np.testing.assert_allclose(gx.array, _grad_of(lambda v: make().apply((v,))[0], x, gxh))

    def f(a, b):
        # The statistics (constants of the node's forward) follow x, as in group
        # normalization, so that numerical gradients see what the node's backward counts.
        mu = a.array.mean(axis=1)
        inv = 1 / np.sqrt(a.array.var(axis=1) + 1e-5)
        xh = (a.array - mu[:, None]) * inv[:, None]
        return m._XHatGrad(1e-5, mu, inv, None, xh).apply((a, b))[0]
    gradient_check.check_backward(f, (x, gxh), x)
    # _ScaleShiftGrad: x_hat (batch * groups, -1) against gy (batch, channels, ...).
    xh, gamma, gy = _uniform(4, 6), _uniform(3, seed=2), _uniform(2, 3, 4, seed=3)
    g = lambda a, b, c: m._ScaleShiftGrad().apply((a, b, c))  # noqa: E731
    gx_hat, ggamma, gbeta = g(xh, gamma, gy)
    np.testing.assert_allclose(gx_hat.array, (gy * gamma[:, None]).reshape(4, 6))
    np.testing.assert_allclose(ggamma.array, (gy * xh.reshape(2, 3, 4)).sum(axis=(0, 2)))
    np.testing.assert_allclose(gbeta.array, gy.sum(axis=(0, 2)))
    gradient_check.check_double_backward(g, (xh, gamma, gy), (xh, gamma, gamma),
                                         (xh, gamma, gy))


def test_l2_normalization_set_item_zero(chainer):
    m = _mod('normalization.l2_normalization')
    mask = np.array([[True, False], [False, True]])
    f = lambda v: m._SetItemZero(mask).apply((v,))[0]  # noqa: E731
    y = f(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(y.array, [[3, 0], [0, 4]])
    gradient_check.check_backward(f, np.array([3.0, 4.0]), _uniform(2, 2))
    gradient_check.check_double_backward(lambda v: f(v) ** 2, np.array([3.0, 4.0]),
                                         _uniform(2, 2), np.array([1.0, 2.0]))


def test_local_response_normalization_grad(chainer):
    m = _mod('normalization.local_response_normalization')
    x, gy = _uniform(2, 7, 3), _uniform(2, 7, 3, seed=1)
    y = m.local_response_normalization(x, 3, 1.0, 0.5, 0.75).array
    sq = np.square(x)
    unit = 1.0 + 0.5 * sum(np.roll(np.pad(sq, ((0, 0), (1, 1), (0, 0))), s, axis=1)
                           for s in (-1, 0, 1))[:, 1:-1]
    for node in (m.LocalResponseNormalizationGrad(3, 1.0, 0.5, 0.75, False),
                 m.LocalResponseNormalizationGrad(3, 1.0, 0.5, 0.75, False, unit ** -0.75,
                                                  None, unit)):
        gx, = node.apply((x, y, gy))
        np.testing.assert_allclose(
            gx.array, _grad_of(lambda v: m.local_response_normalization(v, 3, 1.0, 0.5, 0.75),
                               x, gy))
    gradient_check.check_double_backward(
        lambda v: m.local_response_normalization(v, 3, 1.0, 0.5, 0.75), x, gy, x)
    # Through the node: gx as a function of gy is linear, checked numerically.
    gradient_check.check_backward(
        lambda g: m.LocalResponseNormalizationGrad(3, 1.0, 0.5, 0.75, False).apply(
            (x, y, g))[0], gy, x)
    with pytest.raises(RuntimeError, match='CUDA'):
        m._cu_conv_sum(np.zeros_like(x), x, 3)


# -- pooling -----------------------------------------------------------------------------------

def test_pooling_pair_helpers(chainer):
    for name in ('pooling_2d', 'roi_average_align_2d', 'roi_average_pooling_2d',
                 'roi_max_align_2d', 'roi_max_pooling_2d'):
        pair = _mod('pooling.' + name)._pair
        assert pair(3) == (3, 3) and pair((1, 2)) == (1, 2)


def test_roi_align_interpolation_helpers(chainer):
    m = _mod('pooling.roi_average_align_2d')
    assert m._get_bounds(-1.5, 4) == (None, None, None)
    assert m._get_bounds(4.5, 4) == (None, None, None)
    assert m._get_bounds(1.25, 4) == (1.25, 1, 2)
    assert m._get_bounds(-0.5, 4) == (0, -1, 0)  # clamped to the first pixel
    assert m._get_bounds(3.5, 4) == (3, 3, 4)    # clamped to the last pixel
    w = m._get_bilinear_interp_params(1.25, 2.5, 1, 2, 2, 3)
    np.testing.assert_allclose(w, [0.75 * 0.5, 0.75 * 0.5, 0.25 * 0.5, 0.25 * 0.5])
    assert abs(sum(m._get_bilinear_interp_params(0.3, 0.6, 0, 0, 1, 1)) - 1) < 1e-12


def test_pooling_base_classes(chainer):
    p2 = _mod('pooling.pooling_2d')
    f = p2.Pooling2D((2, 3), pad=1, cover_all=False)
    assert (f.kh, f.kw, f.sy, f.sx, f.ph, f.pw, f.cover_all) == (2, 3, 2, 3, 1, 1, False)
    with pytest.raises(RuntimeError, match='CUDA'):
        f.forward_gpu((np.zeros((1, 1, 4, 4)),))
    pn = _mod('pooling.pooling_nd')
    g = pn._PoolingND(3, 2, pad=(0, 1, 0))
    assert (g.ksize, g.stride, g.pad, g.is_cudnn_used) == ((2, 2, 2), (2, 2, 2), (0, 1, 0),
                                                           False)
    with pytest.raises(ValueError, match='spatial'):
        pn._PoolingND(0, 2)
    with pytest.raises(RuntimeError, match='CUDA'):
        g.forward_cudnn((np.zeros((1, 1, 2, 2, 2)),))
    with pytest.raises(AssertionError):
        pn._CudnnPoolingNDImpl(object())


def test_get_conv_slices(chainer):
    m = _mod('pooling.average_pooling_nd')
    starts, ends = m._get_conv_slices(5, 3, 2, 1)
    np.testing.assert_array_equal(starts, [-1, 1, 3])
    np.testing.assert_array_equal(ends, [2, 4, 6])
    starts, ends = m._get_conv_slices(5, 3, 2, 1, include_pad=False)
    np.testing.assert_array_equal(starts, [0, 1, 3])
    np.testing.assert_array_equal(ends, [2, 4, 5])
    assert len(m._get_conv_slices(6, 3, 2, 1)[0]) == 3
    assert len(m._get_conv_slices(6, 3, 2, 1, cover_all=True)[0]) == 4


@pytest.mark.parametrize('kind', ['average', 'max', 'unpooling', 'upsampling'])
def test_pooling_grad_nodes(chainer, kind):
    x = _uniform(2, 3, 4, 4)
    P = chainer.functions.pooling
    if kind == 'average':
        m = _mod('pooling.average_pooling_2d')
        f = m.AveragePooling2D(2, 2, 1)
        grads = (m.AveragePooling2DGrad, _mod('pooling.average_pooling_nd').AveragePoolingNDGrad)
    elif kind == 'max':
        m = _mod('pooling.max_pooling_nd')
        f = m.MaxPoolingND(2, 2, 2, 0)
        grads = (m.MaxPoolingNDGrad,)
    elif kind == 'unpooling':
        m = _mod('pooling.unpooling_2d')
        f = m.Unpooling2D(2, 2, 0, (8, 8), False)
        grads = (m.Unpooling2DGrad, _mod('pooling.unpooling_nd').UnpoolingNDGrad)
    else:
        m = _mod('pooling.upsampling_2d')
        _, idx = P.max_pooling_nd.max_pooling_nd(_uniform(2, 3, 8, 8, seed=5), 2,
                                                 return_indices=True)
        f = m.Upsampling2D(idx, 2, 2, 0, (8, 8), False)
        grads = (m.Upsampling2DGrad,)
    y, = f.apply((x,))
    gy = _uniform(*y.shape, seed=1)
    ref = _grad_of(lambda v: _fresh(f).apply((v,))[0], x, gy)
    for grad in grads:
        gx, = grad(f).apply((gy,))
        np.testing.assert_allclose(gx.array, ref)
        gradient_check.check_backward(lambda g: grad(f).apply((g,))[0], gy, x)
        gradient_check.check_double_backward(lambda g: grad(f).apply((g,))[0] ** 2, gy, x, gy)
    if kind == 'max':
        picked, = m.MaxPoolingNDWithIndexes(f).apply((x,))
        np.testing.assert_array_equal(picked.array, y.array)
        gradient_check.check_backward(lambda v: m.MaxPoolingNDWithIndexes(f).apply((v,))[0],
                                      x, gy)


def _fresh(node):
    # A node of the same kind and parameters (a node is applied once).
    import copy
    return copy.copy(node)


def test_roi_pooling_slice_and_grad(chainer):
    m = _mod('pooling.roi_pooling_2d')
    assert m._roi_pooling_slice(0, 1.5, 10, 2) == (slice(2, 4), 2)
    assert m._roi_pooling_slice(3, 1.5, 6, 2) == (slice(6, 6), 0)
    x = _uniform(2, 3, 6, 7)
    rois = np.array([[0, 1, 1, 4, 5], [1, 0, 2, 6, 5], [0, 5, 4, 9, 9]], np.float64)
    outh, outw, scale = 2, 3, 1.0
    # Chainer's argmax: the flat y * width + x of each bin's maximum (0 for an empty bin).
    argmax = np.zeros((3, 3, outh, outw), np.int32)
    for r, (b, xmin, ymin, xmax, ymax) in enumerate(rois.astype(int)):
        sh, sw = max(ymax - ymin + 1, 1) / outh, max(xmax - xmin + 1, 1) / outw
        for i in range(outh):
            rs, lh = m._roi_pooling_slice(i, sh, 6, ymin)
            for j in range(outw):
                cs, lw = m._roi_pooling_slice(j, sw, 7, xmin)
                if lh <= 0 or lw <= 0:
                    continue
                patch = x[b, :, rs, cs].reshape(3, -1)
                yy, xx = np.unravel_index(patch.argmax(axis=1), (lh, lw))
                argmax[r, :, i, j] = (yy + rs.start) * 7 + xx + cs.start
    gy = _uniform(3, 3, outh, outw, seed=1)
    node = lambda: m.ROIPooling2DGrad(outh, outw, scale, x.shape, argmax)  # noqa: E731
    gx, = node().apply((rois, gy))
    np.testing.assert_allclose(
        gx.array, _grad_of(lambda v: m.roi_pooling_2d(v, rois, outh, outw, scale), x, gy))
    gradient_check.check_backward(lambda g: node().apply((rois, g))[0], gy, x)
    gradient_check.check_double_backward(lambda g: node().apply((rois, g))[0] ** 2, gy, x, gy)


def test_pooling_kernel_sources(chainer):
    a = _mod('pooling.average_pooling_nd_kernel')
    k = _mod('pooling.max_pooling_nd_kernel')
    base = _mod('pooling.pooling_nd_kernel')
    assert issubclass(a.AveragePoolingNDKernelForward, base.PoolingNDKernelForward)
    ins, outs, op, name = a.AveragePoolingNDKernelForward.generate(1)
    assert (name, outs) == ('avg_pool_1d_fwd', 'T out')
    assert ins.endswith('T coeff') and 'out = val * coeff;' in op
    ins, outs, op, name = a.AveragePoolingNDKernelBackward.generate(2)
    assert name == 'avg_pool_2d_bwd' and op.endswith('gx = val;')
    ins, outs, op, name = k.MaxPoolingNDKernelForward.generate(2)
    assert (name, outs) == ('max_pool_2d_fwd', 'T out, S indexes')
    assert op.endswith('indexes = (argmax_k_1 + k_1 * argmax_k_0);')
    ins, outs, op, name = k.MaxPoolingNDKernelBackward.generate(1)
    assert ins.startswith('raw T gy, raw S indexes,') and 'if (indexes[offset_0] == kx) {' in op
    ins, outs, op, name = k.MaxPoolingNDKernelForwardWithIndexes.generate(2)
    assert name == 'max_index_pool_2d_fwd' and ins.endswith('raw S indexes')
    assert 'int max_1 = max(0, out_x_1 * s_1 - p_1 + index % k_1);' in op
    assert op.endswith('out = in[offset_1];')
    ins, outs, op, name = k.MaxPoolingNDKernelForwardWithIndexes1.generate(3)
    assert name == 'max_index1_pool_3d_fwd' and op.endswith('out = ggx[offset_2];')
    assert k.MaxPoolingNDKernelForward.generate(2) is k.MaxPoolingNDKernelForward.generate(2)


# -- rnn ---------------------------------------------------------------------------------------

def test_lstm_array_helpers(chainer):
    for name in ('rnn.lstm', 'rnn.slstm'):
        m = _mod(name)
        x = np.arange(16.0).reshape(2, 8)  # units 0, 1: columns 4 * j + k are gate k
        a, i, f, o = m._extract_gates(x)
        np.testing.assert_array_equal(a, [[0, 4], [8, 12]])
        np.testing.assert_array_equal(o, [[3, 7], [11, 15]])
        v = _uniform(5)
        s = m._sigmoid(v)
        np.testing.assert_allclose(s, 1 / (1 + np.exp(-v)))
        np.testing.assert_allclose(m._grad_sigmoid(s), s * (1 - s))
        np.testing.assert_allclose(m._grad_grad_sigmoid(s), s * (1 - s) * (1 - 2 * s))
        t = np.tanh(v)
        np.testing.assert_allclose(m._grad_tanh(t), 1 - t * t)
        np.testing.assert_allclose(m._grad_grad_tanh(t, m._grad_tanh(t)), -2 * t * (1 - t * t))
    m = _mod('rnn.tree_lstm')
    x = np.arange(20.0).reshape(2, 10)  # block layout: gate k is columns [2k, 2k + 2)
    gates = m._extract_gates(x)
    assert len(gates) == 5
    np.testing.assert_array_equal(gates[1], [[2, 3], [12, 13]])
    assert len(m._extract_gates(np.zeros((2, 12)), 6)) == 6
    v = _uniform(5)
    np.testing.assert_allclose(m._sigmoid(v), 1 / (1 + np.exp(-v)))
    np.testing.assert_allclose(m._grad_sigmoid(m._sigmoid(v)),
                               m._sigmoid(v) * (1 - m._sigmoid(v)))
    np.testing.assert_allclose(m._grad_tanh(np.tanh(v)), 1 - np.tanh(v) ** 2)


def test_lstm_grad_grad_matches_double_backprop(chainer):
    m = _mod('rnn.lstm')
    c_prev, x = _uniform(3, 2), _uniform(3, 8, seed=1)
    gc, gh = _uniform(3, 2, seed=2), _uniform(3, 2, seed=3)
    ggc_prev, ggx = _uniform(3, 2, seed=4), _uniform(3, 8, seed=5)
    c_next = m.lstm(c_prev, x)[0].array
    # Through chainlite's differentiable first-order gradients (c_next an input of its own).
    vs = [chainlite.Variable(a) for a in (c_prev, x, c_next, gc, gh)]
    gc_prev_v, gx_v = m.LSTMGrad()(*vs)
    ref = chainlite.grad([gc_prev_v, gx_v], vs, grad_outputs=[ggc_prev, ggx])
    a, i, f, o = m._extract_gates(x)
    gga, ggi, ggf, ggo = m._extract_gates(ggx)
    outs = [np.empty((3, 2)) for _ in range(8)]
    ret = m.lstm_grad_grad(c_prev, a, i, f, o, c_next, gc, gh, ggc_prev, gga, ggi, ggf, ggo,
                           *outs)
    assert all(r is out for r, out in zip(ret, outs))
    gc_prev2, ga, gi, gf, go, gc_next, ggc, ggh = outs
    np.testing.assert_allclose(gc_prev2, ref[0].array)
    gx = np.stack([ga, gi, gf, go], axis=2).reshape(3, 8)
    np.testing.assert_allclose(gx, ref[1].array)
    np.testing.assert_allclose(gc_next, ref[2].array)
    np.testing.assert_allclose(ggc, ref[3].array)
    np.testing.assert_allclose(ggh, ref[4].array)
    # An upstream gradient of 0 (Chainer passes 0 for a missing one).
    outs0 = [np.empty((3, 2)) for _ in range(8)]
    m.lstm_grad_grad(c_prev, a, i, f, o, c_next, gc, gh, 0, 0, 0, 0, 0, *outs0)
    assert all(not o.any() for o in outs0)


def test_slstm_node_and_grad_grad(chainer):
    m = _mod('rnn.slstm')
    c1, c2 = _uniform(3, 2), _uniform(3, 2, seed=1)
    x1, x2 = _uniform(3, 8, seed=2), _uniform(3, 8, seed=3)
    c, h = m.SLSTM().apply((c1, c2, x1, x2))
    rc, rh = m.slstm(c1, c2, x1, x2)
    np.testing.assert_allclose(c.array, rc.array)
    np.testing.assert_allclose(h.array, rh.array)
    f = lambda *a: m.SLSTM().apply(a)  # noqa: E731
    args = (c1, c2, x1, x2)
    gys = (_uniform(3, 2, seed=4), _uniform(3, 2, seed=5))
    gradient_check.check_backward(f, args, gys)
    gradient_check.check_double_backward(f, args, gys, args)
    # slstm_grad_grad against double backprop of SLSTMGrad's composition.
    gc, gh = gys
    # For SLSTMGrad's outputs (gc_prev1, gc_prev2, gx1, gx2).
    upstream = [_uniform(3, 2, seed=6), _uniform(3, 2, seed=7), _uniform(3, 8, seed=8),
                _uniform(3, 8, seed=9)]
    vs = [chainlite.Variable(a) for a in (c1, c2, x1, x2, rc.array, gc, gh)]
    ref = chainlite.grad(list(m.SLSTMGrad()(*vs)), vs, grad_outputs=upstream)
    a1, i1, f1, o1 = m._extract_gates(x1)
    a2, i2, f2, o2 = m._extract_gates(x2)
    u1 = m._extract_gates(upstream[2])
    u2 = m._extract_gates(upstream[3])
    out = m.slstm_grad_grad(c1, a1, i1, f1, c2, a2, i2, f2, o1 + o2, rc.array, gc, gh,
                            upstream[0], *u1, upstream[1], *u2)
    assert len(out) == 13
    np.testing.assert_allclose(out[0], ref[0].array)
    np.testing.assert_allclose(out[5], ref[1].array)
    np.testing.assert_allclose(np.stack(out[1:5], axis=2).reshape(3, 8), ref[2].array)
    np.testing.assert_allclose(np.stack(out[6:10], axis=2).reshape(3, 8), ref[3].array)
    np.testing.assert_allclose(out[10], ref[4].array)
    np.testing.assert_allclose(out[11], ref[5].array)
    np.testing.assert_allclose(out[12], ref[6].array)


def test_tree_lstm_function(chainer):
    m = _mod('rnn.tree_lstm')
    c1, c2, x = _uniform(3, 2), _uniform(3, 2, seed=1), _uniform(3, 10, seed=2)
    c, h = m.TreeLSTM()(c1, c2, x)
    rc, rh = m.tree_lstm(c1, c2, x)
    np.testing.assert_allclose(c.array, rc.array)
    np.testing.assert_allclose(h.array, rh.array)
    gradient_check.check_backward(lambda *a: m.TreeLSTM()(*a), (c1, c2, x),
                                  (_uniform(3, 2, seed=3), _uniform(3, 2, seed=4)))


def _rnn_params(n_params, n_layers, directions, in_size, units, seed=0):
    rs = np.random.RandomState(seed)
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            size = in_size if layer == 0 else units * directions
            ws.append([rs.uniform(-0.5, 0.5, (units, size if j < n_params // 2 else units))
                       for j in range(n_params)])
            bs.append([rs.uniform(-0.5, 0.5, units) for _ in range(n_params)])
    return ws, bs


def test_n_step_rnn_helpers(chainer):
    m = _mod('rnn.n_step_rnn')
    v = chainlite.Variable(np.ones(2))
    assert m._extract_apply_in_data([]) == (False, ())
    has_chx, arrays = m._extract_apply_in_data([v, np.zeros(1)])
    assert has_chx is False and arrays[0] is v.array
    ws, bs = _rnn_params(2, 2, 2, 3, 4)
    xs = [np.zeros((2, 3)), np.zeros((1, 3))]
    combined = m._combine_inputs('h', ws, bs, xs, 2, 2)
    assert len(combined) == 1 + 2 + 4 * 4 and combined[3] is ws[0][0]
    hx, ws2, bs2, xs2 = m._seperate_inputs(combined, 2, 2, 2)
    assert hx == 'h' and list(xs2) == xs and len(ws2) == 4
    assert all(a is b for w1, w2 in zip(ws, ws2) for a, b in zip(w1, w2))
    mg, ml = _mod('rnn.n_step_gru'), _mod('rnn.n_step_lstm')
    ws, bs = _rnn_params(6, 1, 1, 3, 4)
    hx, ws2, bs2, xs2 = mg._seperate_inputs(mg._combine_inputs('h', ws, bs, xs, 1, 1), 1, 2, 1)
    assert len(ws2[0]) == 6 and ws2[0][5] is ws[0][5] and bs2[0][0] is bs[0][0]
    ws, bs = _rnn_params(8, 1, 2, 3, 4)
    hx, cx, ws2, bs2, xs2 = ml._seperate_inputs(
        ml._combine_inputs('h', 'c', ws, bs, xs, 1, 2), 1, 2, 2)
    assert (hx, cx) == ('h', 'c') and len(ws2) == 2 and ws2[1][7] is ws[1][7]
    assert mg._extract_apply_in_data is m._extract_apply_in_data
    w = ml._stack_weight([np.full((2, 3), k) for k in range(4)])
    np.testing.assert_array_equal(w.array[:, 0], [0, 1, 2, 3, 0, 1, 2, 3])
    ys = m._dropout_sequence([np.ones((2, 3))], 0.5)
    with chainer.using_config('train', False):
        ys2 = m._dropout_sequence([np.ones((2, 3))], 0.5)
    assert len(ys) == 1 and set(np.unique(ys[0].array)) <= {0.0, 2.0}
    np.testing.assert_array_equal(ys2[0].array, np.ones((2, 3)))


@pytest.mark.parametrize('directions', [1, 2])
@pytest.mark.parametrize('kind', ['rnn', 'gru', 'lstm'])
def test_n_step_impl_and_base_match_the_functions(chainer, kind, directions):
    m = _mod('rnn.n_step_' + kind)
    F = chainer.functions
    n_params = {'rnn': 2, 'gru': 6, 'lstm': 8}[kind]
    ws, bs = _rnn_params(n_params, 2, directions, 3, 4)
    xs = [_uniform(3, 3, seed=1), _uniform(2, 3, seed=2), _uniform(1, 3, seed=3)]
    hx = _uniform(2 * directions, 3, 4, seed=4)
    cx = _uniform(2 * directions, 3, 4, seed=5)
    bi = directions == 2
    if kind == 'lstm':
        fn = F.n_step_bilstm if bi else F.n_step_lstm
        ref = fn(2, 0.0, hx, cx, ws, bs, xs)
        got = m.n_step_lstm_base(2, 0.0, hx, cx, ws, bs, xs, bi)
        cell = m._lstm
    elif kind == 'gru':
        fn = F.n_step_bigru if bi else F.n_step_gru
        ref = fn(2, 0.0, hx, ws, bs, xs)
        got = m.n_step_gru_base(2, 0.0, hx, ws, bs, xs, bi)
        cell = m._gru
    else:
        fn = F.n_step_birnn if bi else F.n_step_rnn
        ref = fn(2, 0.0, hx, ws, bs, xs, 'tanh')
        got = m.n_step_rnn_base(2, 0.0, hx, ws, bs, xs, 'tanh', bi)

        def cell(x, h, c, w, b):
            return F.tanh(F.linear(x, w[0], b[0]) + F.linear(h, w[1], b[1])), None
    impl = _mod('rnn.n_step_rnn').n_step_rnn_impl(
        cell, 2, 0.0, hx, cx if kind == 'lstm' else None, ws, bs, xs, bi)
    if kind != 'lstm':
        impl = (impl[0], impl[2])
    for r, g, i in zip(ref, got, impl):
        if isinstance(r, (tuple, list)):
            for a, b, c in zip(r, g, i):
                np.testing.assert_allclose(b.array, a.array, atol=1e-12)
                np.testing.assert_allclose(c.array, a.array, atol=1e-12)
        else:
            np.testing.assert_allclose(g.array, r.array, atol=1e-12)
            np.testing.assert_allclose(i.array, r.array, atol=1e-12)
    with pytest.raises(ValueError, match='train argument'):
        if kind == 'lstm':
            m.n_step_lstm_base(2, 0.0, hx, cx, ws, bs, xs, bi, train=True)
        elif kind == 'gru':
            m.n_step_gru_base(2, 0.0, hx, ws, bs, xs, bi, train=True)
        else:
            m.n_step_rnn_base(2, 0.0, hx, ws, bs, xs, 'tanh', bi, train=True)


def test_n_step_rnn_base_checks(chainer):
    m = _mod('rnn.n_step_rnn')
    ws, bs = _rnn_params(2, 1, 1, 3, 4)
    hx = np.zeros((1, 1, 4))
    with pytest.raises(ValueError, match='activation'):
        m.n_step_rnn_base(1, 0.0, hx, ws, bs, [np.zeros((1, 3))], 'sigmoid', False)
    with pytest.raises(ValueError, match='inconsistent input size'):
        m.n_step_rnn_base(1, 0.0, hx, ws, bs, [np.zeros((1, 5))], 'relu', False)


def test_cudnn_rnn_classes_need_cuda(chainer):
    m = _mod('rnn.n_step_rnn')
    for cls in (m.NStepRNNTanh, m.NStepRNNReLU, m.NStepBiRNNTanh, m.NStepBiRNNReLU,
                _mod('rnn.n_step_lstm').NStepLSTM, _mod('rnn.n_step_lstm').NStepBiLSTM,
                _mod('rnn.n_step_gru').NStepGRU, _mod('rnn.n_step_gru').NStepBiGRU):
        assert issubclass(cls, m.BaseNStepRNN)
        with pytest.raises(RuntimeError, match='CUDA'):
            cls(1, None, [1])
    with pytest.raises(ValueError, match='rnn_dir'):
        m.BaseNStepRNN(1, None, [1], 'sideways', 'lstm')
    with pytest.raises(ValueError, match='rnn_mode'):
        m.CudnnRNNWeightConcat(1, None, 'uni', 'transformer')
    ws, bs = _rnn_params(2, 1, 1, 3, 4)
    with pytest.raises(RuntimeError, match='CUDA'):
        m.cudnn_rnn_weight_concat(1, None, False, 'rnn_tanh', ws, bs)
