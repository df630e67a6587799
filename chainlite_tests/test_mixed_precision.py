"""Mixed float dtypes (Chainer 7's rule) and ``config.dtype = mixed16`` training end to end."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import gradient_check
from chainlite import optimizers
from chainlite.utils import type_check

RS = numpy.random.RandomState(3)


def _u(shape, dtype, low=-1, high=1):
    return RS.uniform(low, high, shape).astype(dtype)


def _bn(x, g, b):
    return F.batch_normalization(x, g, b)


def _fixed_bn(x, g, b, m, v):
    return F.fixed_batch_normalization(x, g, b, m, v)


def _conv2d(x, W, b):
    return F.convolution_2d(x, W, b, pad=1)


def _conv1d_dilated(x, W, b):
    return F.convolution_1d(x, W, b, dilate=2)


def _deconv2d(x, W, b):
    return F.deconvolution_2d(x, W, b, stride=2)


def _deconv3d(x, W, b):
    return F.deconvolution_3d(x, W, b)


def _depthwise(x, W, b):
    return F.depthwise_convolution_2d(x, W, b)


def _linear(x, W):
    return F.linear(x, W)


def _matmul(a, b):
    return F.matmul(a, b)


def _tensordot(a, b):
    return F.tensordot(a, b, axes=1)


def _dropconnect(x, W):
    return F.simplified_dropconnect(x, W, ratio=.3, mask=numpy.ones((2, 4, 3), bool))


# (function, input shapes, index of the inputs that take the second dtype)
CASES = {
    'linear': (_linear, [(2, 3), (4, 3)], (1,)),
    'matmul': (_matmul, [(2, 3), (3, 4)], (1,)),
    'tensordot': (_tensordot, [(2, 3), (3, 4)], (1,)),
    'convolution_2d': (_conv2d, [(2, 3, 4, 4), (2, 3, 3, 3), (2,)], (1, 2)),
    'convolution_1d dilated': (_conv1d_dilated, [(2, 2, 7), (3, 2, 3), (3,)], (1, 2)),
    'deconvolution_2d': (_deconv2d, [(1, 2, 3, 3), (2, 3, 3, 3), (3,)], (1, 2)),
    'deconvolution_3d': (_deconv3d, [(1, 2, 2, 2, 2), (2, 1, 2, 2, 2), (1,)], (1, 2)),
    'depthwise_convolution_2d': (_depthwise, [(1, 2, 4, 4), (2, 2, 2, 2), (4,)], (1, 2)),
    'batch_normalization': (_bn, [(5, 3, 2), (3,), (3,)], (1, 2)),
    'fixed_batch_normalization': (_fixed_bn, [(5, 3), (3,), (3,), (3,), (3,)], (1, 2, 3, 4)),
    'simplified_dropconnect': (_dropconnect, [(2, 3), (4, 3)], (1,)),
}


def _inputs(shapes, second, x_dtype, p_dtype):
    arrays = []
    for i, shape in enumerate(shapes):
        dtype = p_dtype if i in second else x_dtype
        # positive values for the variances of fixed_batch_normalization
        arrays.append(_u(shape, dtype, .5, 1.5) if i == 4 else _u(shape, dtype))
    return arrays


@pytest.mark.parametrize('name', sorted(CASES))
@pytest.mark.parametrize('x_dtype, p_dtype', [(numpy.float16, numpy.float32),
                                              (numpy.float32, numpy.float16),
                                              (numpy.float64, numpy.float32)])
def test_output_and_gradients_keep_their_inputs_dtypes(name, x_dtype, p_dtype):
    func, shapes, second = CASES[name]
    xs = [chainlite.Variable(a) for a in _inputs(shapes, second, x_dtype, p_dtype)]
    y = func(*xs)
    expected = (numpy.promote_types(x_dtype, p_dtype) if name in ('matmul', 'tensordot')
                else x_dtype)
    assert y.dtype == expected
    # The same computation in float64 gives the same values.
    y64 = func(*[x.array.astype(numpy.float64) for x in xs])
    tol = 2e-2 if numpy.float16 in (x_dtype, p_dtype) else 1e-5
    numpy.testing.assert_allclose(y.array.astype(numpy.float64), y64.array, rtol=tol, atol=tol)
    y.grad = numpy.ones_like(y.array)
    y.backward()
    for x in xs:
        assert x.grad is not None and x.grad.dtype == x.dtype, name


@pytest.mark.parametrize('name', sorted(CASES))
def test_mixed_gradients_are_right_to_second_order(name):
    # float64 data with float32 parameters: numerical derivatives in float64.
    func, shapes, second = CASES[name]
    xs = _inputs(shapes, second, numpy.float64, numpy.float32)
    y = func(*xs)
    gy = _u(y.shape, y.dtype)
    ggx = [_u(x.shape, x.dtype) for x in xs]
    opts = dict(dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    gradient_check.check_backward(func, xs, gy, **opts)
    gradient_check.check_double_backward(func, xs, gy, ggx, **opts)


@pytest.mark.parametrize('func, args', [
    (F.linear, (numpy.ones((2, 3), numpy.float32), numpy.ones((4, 3), numpy.int32))),
    (F.linear, (numpy.ones((2, 3), numpy.float32), numpy.ones((4, 3), numpy.float32),
                numpy.ones(4, numpy.float16))),
    (F.convolution_2d, (numpy.ones((1, 1, 3, 3), numpy.float32),
                        numpy.ones((1, 1, 2, 2), numpy.int8))),
    (F.batch_normalization, (numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float16),
                             numpy.ones(3, numpy.float32))),
])
def test_what_chainer_rejects_is_still_rejected(func, args):
    # Only float parameters mix; linear's bias and BN's beta must match x or gamma.
    with pytest.raises(type_check.InvalidType):
        func(*args)


class _MLP(chainlite.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 32)
            self.bn = L.BatchNormalization(32)
            self.l2 = L.Linear(32, 3)

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))


def test_mixed16_model_trains_with_loss_scaling_and_fp32_master_weights():
    with chainlite.using_config('dtype', chainlite.mixed16):
        assert chainlite.get_dtype() == numpy.float16
        assert chainlite.get_dtype(map_mixed16=numpy.float32) == numpy.float32
        model = _MLP()
    # float16 weights; batch normalization keeps its parameters in float32.
    assert model.l1.W.dtype == model.l2.W.dtype == numpy.float16
    assert model.bn.gamma.dtype == model.bn.avg_mean.dtype == numpy.float32
    rs = numpy.random.RandomState(0)
    centers = rs.normal(0, 3, (3, 4))
    t = rs.randint(0, 3, 96).astype(numpy.int32)
    x = (centers[t] + rs.normal(0, .5, (96, 4))).astype(numpy.float16)
    opt = optimizers.MomentumSGD(lr=0.05)
    opt.setup(model)
    opt.loss_scaling(scale=1024.)
    for param in model.params():
        param.update_rule.use_fp32_update()
    losses = []

    def lossfun():
        loss = F.softmax_cross_entropy(model(x), t)
        assert loss.dtype == numpy.float16
        losses.append(float(loss.array))
        return loss

    for _ in range(60):
        # update(lossfun) runs backward(loss_scale=1024); the rule divides it back out.
        opt.update(lossfun)
        assert model.l1.W.grad.dtype == numpy.float16
        assert numpy.isfinite(model.l1.W.grad).all()
    assert model.l1.W.dtype == numpy.float16
    master = model.l1.W.update_rule._fp32_param
    assert master.dtype == numpy.float32
    # The float16 weights are the float32 master weights rounded.
    numpy.testing.assert_array_equal(model.l1.W.array, master.array.astype(numpy.float16))
    assert losses[-1] < 0.25 * losses[0]
    with chainlite.using_config('train', False):
        accuracy = F.accuracy(model(x), t).array
    assert accuracy > 0.95


@pytest.mark.parametrize('transb, transc', [(False, False), (True, False), (True, True)])
def test_coo_matmul_takes_chainers_arguments_and_mixed_dtypes(transb, transc):
    from chainlite.functions.math.sparse_matmul import CooMatMul
    from chainlite.utils import to_coo
    a = _u((3, 4), numpy.float64) * (RS.rand(3, 4) > .4)
    b = _u((2, 4) if transb else (4, 2), numpy.float32)
    sp = to_coo(a)
    func = CooMatMul(sp.row, sp.col, sp.shape, sp.order, transa=False, transb=transb,
                     transc=transc)
    y = func.apply((sp.data.data, b))[0]
    expected = a @ (b.T if transb else b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y.array, expected.T if transc else expected, rtol=1e-6)

    def op(data, dense):
        return CooMatMul(sp.row, sp.col, sp.shape, sp.order, transb=transb,
                         transc=transc).apply((data, dense))[0]

    gy = _u(y.shape, numpy.float64)
    gradient_check.check_backward(op, (sp.data.data, b.astype(numpy.float64)), gy,
                                  atol=1e-4, rtol=1e-4)
    dense = chainlite.Variable(b)
    data = chainlite.Variable(sp.data.data)
    y = op(data, dense)
    y.grad = gy
    y.backward()
    assert dense.grad.dtype == numpy.float32 and data.grad.dtype == numpy.float64
