"""Tests of chainlite.gradient_check: numerical_grad, check_backward, check_double_backward."""

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check


@pytest.fixture(autouse=True)
def _seeded():
    # check_backward draws its direction from NumPy's global generator.
    numpy.random.seed(0)


# --- small FunctionNodes, right and wrong ----------------------------------------------------


class Square(chainlite.FunctionNode):

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return 2 * x * gy,


class WrongSquare(Square):

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return 3 * x * gy,


class ConstantGradSquare(Square):
    # Right first derivative, but built from a constant: the second derivative is lost.

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * chainlite.Variable(numpy.asarray(2 * x.array), requires_grad=False),


class ScaleByInt(chainlite.FunctionNode):
    # y = x * k with an integer k that gets no gradient.

    def forward(self, inputs):
        x, k = inputs
        self.retain_inputs((1,))
        return x * k.astype(x.dtype),

    def backward(self, indexes, grad_outputs):
        k, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * k.array.astype(gy.dtype), None


class ScaleByFloatNoGrad(chainlite.FunctionNode):
    # y = x * s, whose backward (wrongly for no_grads) also returns a gradient for s.

    def forward(self, inputs):
        x, s = inputs
        self.retain_inputs((0, 1))
        return x * s,

    def backward(self, indexes, grad_outputs):
        x, s = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * s, gy * x


class ScaleWrongParamGrad(chainlite.FunctionNode):
    # y = w * x, with the gradient for w off by a factor of two.

    def forward(self, inputs):
        x, w = inputs
        self.retain_inputs((0, 1))
        return w * x,

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * w, 2 * gy * x


def _square(x):
    return Square().apply((x,))[0]


def _wrong_square(x):
    return WrongSquare().apply((x,))[0]


def _constant_grad_square(x):
    return ConstantGradSquare().apply((x,))[0]


# --- numerical_grad --------------------------------------------------------------------------


def test_numerical_grad_square():
    x = numpy.array([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]])
    gy = numpy.random.uniform(-1, 1, x.shape)
    gx, = gradient_check.numerical_grad(lambda: (x ** 2,), [x], [gy])
    numpy.testing.assert_allclose(gx, 2 * x * gy, atol=1e-8)


def test_numerical_grad_restores_inputs():
    x = numpy.array([0.5, -1.0, 2.0])
    before = x.copy()
    gradient_check.numerical_grad(lambda: (numpy.sin(x),), [x], [numpy.ones(3)])
    numpy.testing.assert_array_equal(x, before)


def test_numerical_grad_sin_scalar_shape():
    x = numpy.array(0.7)
    gx, = gradient_check.numerical_grad(lambda: (numpy.sin(x),), [x], [numpy.array(2.0)])
    assert gx.shape == ()
    assert gx == pytest.approx(2 * numpy.cos(0.7), rel=1e-6)


def test_numerical_grad_returns_input_dtype():
    x = numpy.array([0.3, 1.0], numpy.float32)
    gx, = gradient_check.numerical_grad(lambda: (numpy.sin(x),), [x], [numpy.ones(2)])
    assert gx.dtype == numpy.float32
    # float32 round-off in the outputs limits the accuracy of the differences.
    numpy.testing.assert_allclose(gx, numpy.cos(x), atol=1e-3)


def test_numerical_grad_two_inputs():
    a = numpy.array([1.0, 2.0, -0.5])
    b = numpy.array([0.3, -0.7, 1.5])
    gy = numpy.array([1.0, -2.0, 0.5])
    ga, gb = gradient_check.numerical_grad(lambda: (a * b + numpy.exp(b),), [a, b], [gy])
    numpy.testing.assert_allclose(ga, b * gy, atol=1e-8)
    numpy.testing.assert_allclose(gb, (a + numpy.exp(b)) * gy, rtol=1e-6)


def test_numerical_grad_two_outputs_with_none_grad_output():
    x = numpy.array([0.5, 1.5])
    gy = numpy.array([1.0, 3.0])
    gx, = gradient_check.numerical_grad(lambda: (x ** 2, x ** 3), [x], [gy, None])
    numpy.testing.assert_allclose(gx, 2 * x * gy, atol=1e-8)
    gx, = gradient_check.numerical_grad(lambda: (x ** 2, x ** 3), [x], [None, gy])
    # Central differences are off by eps**2 * y''' / 6 = 1e-6 * gy for x**3.
    numpy.testing.assert_allclose(gx, 3 * x ** 2 * gy, atol=1e-5)


def test_numerical_grad_scalar_grad_output():
    x = numpy.array([0.5, 1.5])
    gx, = gradient_check.numerical_grad(lambda: (x ** 2,), [x], [2.0])
    numpy.testing.assert_allclose(gx, 4 * x, atol=1e-8)


def test_numerical_grad_output_that_is_the_input():
    # f hands back the very array being perturbed: the outputs must be copied.
    x = numpy.array([1.0, 2.0])
    gx, = gradient_check.numerical_grad(lambda: (x,), [x], [numpy.array([3.0, 4.0])])
    numpy.testing.assert_allclose(gx, [3.0, 4.0])


def test_numerical_grad_rejects_int_inputs():
    x = numpy.array([1, 2])
    with pytest.raises(RuntimeError, match='must be kind of float'):
        gradient_check.numerical_grad(lambda: (x * 2,), [x], [numpy.ones(2)])


def test_numerical_grad_disables_type_check():
    seen = []
    x = numpy.array([1.0])

    def f():
        seen.append(chainlite.config.type_check)
        return (x * 2,)

    gradient_check.numerical_grad(f, [x], [numpy.ones(1)])
    assert seen and not any(seen)
    assert chainlite.config.type_check


def test_detect_nondifferentiable_abs_at_zero():
    x = numpy.array([1.0, 0.0, -2.0])
    with pytest.raises(gradient_check.NondifferentiableError) as info:
        gradient_check.numerical_grad(lambda: (numpy.abs(x),), [x], [numpy.ones(3)],
                                      detect_nondifferentiable=True)
    message = str(info.value)
    assert 'input 0' in message
    assert 'element (1,)' in message
    numpy.testing.assert_array_equal(x, [1.0, 0.0, -2.0])


def test_detect_nondifferentiable_names_second_input():
    a = numpy.array([0.5])
    b = numpy.array([[1.0, 0.0]])
    with pytest.raises(gradient_check.NondifferentiableError, match=r'input 1, element \(0, 1\)'):
        gradient_check.numerical_grad(lambda: (a * numpy.abs(b),), [a, b], [numpy.ones((1, 2))],
                                      detect_nondifferentiable=True)


def test_detect_nondifferentiable_finiteness_change():
    x = numpy.array([0.0])
    with numpy.errstate(divide='ignore', invalid='ignore'):
        with pytest.raises(gradient_check.NondifferentiableError, match='finite'):
            gradient_check.numerical_grad(lambda: (numpy.log(x),), [x], [numpy.ones(1)],
                                          detect_nondifferentiable=True)


def test_detect_nondifferentiable_passes_on_smooth_functions():
    x = numpy.array([[0.0, 0.5, -1.0], [2.0, 3.0, -0.1]])
    gy = numpy.random.uniform(-1, 1, x.shape)
    gx, = gradient_check.numerical_grad(lambda: (numpy.sin(x),), [x], [gy],
                                        detect_nondifferentiable=True)
    # The five-point stencil is accurate to O(eps^4).
    numpy.testing.assert_allclose(gx, numpy.cos(x) * gy, atol=1e-10)
    x += 0.5 * (x == 0)  # abs is smooth away from 0 only
    gx, = gradient_check.numerical_grad(lambda: (numpy.abs(x) + 1,), [x], [gy],
                                        detect_nondifferentiable=True,
                                        center_outputs=(numpy.abs(x) + 1,))
    numpy.testing.assert_allclose(gx, numpy.sign(x) * gy, atol=1e-10)


def test_detect_nondifferentiable_ignores_constant_outputs():
    x = numpy.array([0.0, 1.0])
    gx, = gradient_check.numerical_grad(lambda: (numpy.zeros(3),), [x], [numpy.ones(3)],
                                        detect_nondifferentiable=True)
    numpy.testing.assert_array_equal(gx, [0.0, 0.0])


# --- check_backward --------------------------------------------------------------------------


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
def test_check_backward_passes_on_correct_node(shape):
    x = numpy.random.uniform(-1, 1, shape)
    gy = numpy.random.uniform(-1, 1, shape)
    gradient_check.check_backward(_square, x, gy)


def test_check_backward_passes_on_functions():
    x = numpy.random.uniform(0.5, 2, (2, 3))
    gy = numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda x: F.log(F.exp(F.sin(x)) + x), x, gy)
    gradient_check.check_backward(F.tanh, (x,), (gy,))


@pytest.mark.parametrize('shape', [(), (4,)])
def test_check_backward_fails_on_wrong_node(shape):
    x = numpy.random.uniform(0.5, 1.5, shape)
    gy = numpy.ones(shape)
    with pytest.raises(AssertionError) as info:
        gradient_check.check_backward(_wrong_square, x, gy)
    message = str(info.value)
    assert message.startswith('check_backward failed (eps=0.001 atol=1e-05 rtol=0.0001)')
    for part in ('inputs[0]', 'grad_outputs[0]', 'directions[0]', 'gradients (numeric)',
                 'gradients (backward)'):
        assert part in message


def test_check_backward_two_inputs_two_outputs():
    def f(a, b):
        return a * b, F.sin(a) + b

    a = numpy.random.uniform(-1, 1, (3,))
    b = numpy.random.uniform(-1, 1, (3,))
    gys = (numpy.random.uniform(-1, 1, (3,)), numpy.random.uniform(-1, 1, (3,)))
    gradient_check.check_backward(f, (a, b), gys)
    gradient_check.check_backward(f, (a, b), (None, gys[1]))


def test_check_backward_ignores_unused_output():
    def f(x):
        return _wrong_square(x), _square(x)

    x = numpy.array([0.5, 1.0])
    # The broken output gets no gradient, so neither pass looks at it.
    gradient_check.check_backward(f, x, (None, numpy.ones(2)))
    with pytest.raises(AssertionError):
        gradient_check.check_backward(f, x, (numpy.ones(2), None))


def test_check_backward_no_grads_default_for_int_input():
    x = numpy.random.uniform(-1, 1, (3,))
    k = numpy.array([2, -1, 3])

    def f(x, k):
        return ScaleByInt().apply((x, k))[0]

    gradient_check.check_backward(f, (x, k), numpy.ones(3))
    gradient_check.check_backward(f, (x, k), numpy.ones(3), no_grads=[False, True])


def test_check_backward_no_grads_wrong_length():
    with pytest.raises(ValueError, match='no_grads'):
        gradient_check.check_backward(_square, numpy.ones(2), numpy.ones(2),
                                      no_grads=[False, False])


def test_check_backward_no_grads_input_must_get_no_gradient():
    x = numpy.array([1.0, 2.0])
    s = numpy.array([0.5, -0.5])

    def f(x, s):
        return ScaleByFloatNoGrad().apply((x, s))[0]

    gradient_check.check_backward(f, (x, s), numpy.ones(2))
    with pytest.raises(RuntimeError, match='input 1'):
        gradient_check.check_backward(f, (x, s), numpy.ones(2), no_grads=[False, True])


def test_check_backward_only_no_grads_inputs_is_a_no_op():
    k = numpy.array([1, 2])
    gradient_check.check_backward(lambda k: F.sum(chainlite.Variable(k.array * 1.0)), k, None)


def test_check_backward_with_params():
    p = chainlite.Parameter(numpy.array([0.5, -1.5, 2.0]))
    original = p.array
    before = original.copy()
    x = numpy.random.uniform(-1, 1, (3,))
    gy = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_backward(lambda x: F.sin(p * x), x, gy, params=p)
    gradient_check.check_backward(lambda x: F.sin(p * x), x, gy, params=(p,))
    assert p.array is original
    numpy.testing.assert_array_equal(p.array, before)
    # The parameter's gradient is this pass's, not an accumulation.
    numpy.testing.assert_allclose(p.grad, numpy.cos(before * x) * x * gy)


def test_check_backward_clears_nan_param_grad():
    p = chainlite.Parameter(0.5, (2,))  # its gradient starts as NaN
    assert numpy.isnan(p.grad).all()
    x = numpy.array([1.0, 2.0], numpy.float32)
    gradient_check.check_backward(lambda x: p * x, x, numpy.ones(2, numpy.float32),
                                  params=p, dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    assert not numpy.isnan(p.grad).any()


def test_check_backward_fails_on_wrong_param_grad():
    p = chainlite.Parameter(numpy.array(1.5))

    def f(x):
        return ScaleWrongParamGrad().apply((x, p))[0]

    with pytest.raises(AssertionError, match='check_backward failed'):
        gradient_check.check_backward(f, numpy.array(0.7), numpy.array(1.0), params=p)
    assert p.array == 1.5


def test_check_backward_y_grad_none_for_scalar_output():
    x = numpy.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda x: F.sum(F.sin(x) * x), x, None)
    with pytest.raises(AssertionError):
        gradient_check.check_backward(lambda x: F.sum(_wrong_square(x)), numpy.array([0.6]),
                                      None)


def test_check_backward_y_grad_none_for_non_scalar_output():
    x = numpy.ones((3,))
    with pytest.raises(ValueError, match=r'\(3,\)'):
        gradient_check.check_backward(F.sin, x, None)
    with pytest.raises(ValueError, match=r'\(\), \(3,\)'):
        gradient_check.check_backward(lambda x: (F.sum(x), x * 2), x, None)


def test_check_backward_y_grad_wrong_length_or_shape():
    x = numpy.ones((3,))
    with pytest.raises(ValueError, match='2 entries'):
        gradient_check.check_backward(F.sin, x, (numpy.ones(3), numpy.ones(3)))
    with pytest.raises(ValueError, match='shape'):
        gradient_check.check_backward(F.sin, x, numpy.ones(4))


def test_check_backward_dtype_casts_numerical_pass_only():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return _square(x)

    x = numpy.random.uniform(0.5, 1.5, (4,)).astype(numpy.float32)
    gy = numpy.random.uniform(-1, 1, (4,)).astype(numpy.float32)
    gradient_check.check_backward(f, x, gy, dtype=numpy.float64)
    assert seen[0] == numpy.float32
    assert set(seen[1:]) == {numpy.dtype(numpy.float64)}


def test_check_backward_rejects_non_float_dtype():
    with pytest.raises(ValueError, match='float'):
        gradient_check.check_backward(_square, numpy.ones(2), numpy.ones(2), dtype=numpy.int32)


def test_check_backward_detect_nondifferentiable():
    x = numpy.array([0.0, 1.0])
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.check_backward(F.absolute, x, numpy.ones(2),
                                      detect_nondifferentiable=True)
    gradient_check.check_backward(F.sin, x, numpy.ones(2), detect_nondifferentiable=True)


def test_check_backward_restores_config_and_leaves_inputs():
    x = numpy.array([0.5, 1.0])
    before = x.copy()
    gradient_check.check_backward(F.sin, x, numpy.ones(2))
    numpy.testing.assert_array_equal(x, before)
    assert chainlite.config.type_check


# --- check_double_backward -------------------------------------------------------------------


@pytest.mark.parametrize('func', [F.sin, F.tanh, lambda x: x ** 3, lambda x: F.exp(x) * x])
@pytest.mark.parametrize('shape', [(), (2, 3)])
def test_check_double_backward_passes(func, shape):
    x = numpy.random.uniform(-1, 1, shape)
    gy = numpy.random.uniform(-1, 1, shape)
    ggx = numpy.random.uniform(-1, 1, shape)
    gradient_check.check_double_backward(func, x, gy, ggx)


def test_check_double_backward_passes_on_correct_node():
    x = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(_square, x, numpy.ones(3),
                                         numpy.random.uniform(-1, 1, (3,)))


@pytest.mark.parametrize('shape', [(), (3,)])
def test_check_double_backward_fails_on_constant_backward(shape):
    # First derivative right (check_backward passes), second derivative lost.
    x = numpy.full(shape, 1.5)
    gy = numpy.ones(shape)
    gradient_check.check_backward(_constant_grad_square, x, gy)
    with pytest.raises(AssertionError) as info:
        gradient_check.check_double_backward(_constant_grad_square, x, gy, numpy.ones(shape))
    message = str(info.value)
    assert message.startswith('check_double_backward failed (eps=0.001 atol=0.0001 rtol=0.001)')
    assert 'grad_grad_input[0]' in message
    assert 'check_backward failed' in message


def test_check_double_backward_linear_function():
    # The first-order gradient does not depend on x: its second derivative is zero.
    x = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(lambda x: 3 * x + 1, x, numpy.ones(3),
                                         numpy.random.uniform(-1, 1, (3,)))


def test_check_double_backward_unused_input():
    # grad() returns None for b, which takes part as zeros.
    def f(a, b):
        return F.sin(a)

    a = numpy.random.uniform(-1, 1, (3,))
    b = numpy.random.uniform(-1, 1, (2,))
    gradient_check.check_double_backward(f, (a, b), numpy.ones(3),
                                         (numpy.ones(3), numpy.ones(2)))


def test_check_double_backward_two_inputs():
    def f(a, b):
        return a * F.exp(b)

    a = numpy.random.uniform(-1, 1, (3,))
    b = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(
        f, (a, b), numpy.random.uniform(-1, 1, (3,)),
        (numpy.random.uniform(-1, 1, (3,)), numpy.random.uniform(-1, 1, (3,))))


def test_check_double_backward_int_input_and_no_grads():
    x = numpy.random.uniform(-1, 1, (3,))
    k = numpy.array([2, -1, 3])

    def f(x, k):
        return F.sin(ScaleByInt().apply((x, k))[0])

    gradient_check.check_double_backward(f, (x, k), numpy.ones(3), numpy.ones(3))
    gradient_check.check_double_backward(f, (x, k), numpy.ones(3), numpy.ones(3),
                                         no_grads=[False, True])
    gradient_check.check_double_backward(f, (x, k), numpy.ones(3), numpy.ones(3),
                                         no_grads=[False, True, False])


def test_check_double_backward_with_params():
    p = chainlite.Parameter(numpy.array([0.5, -1.5, 2.0]))
    before = p.array.copy()
    x = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(
        lambda x: F.sin(p * x), x, numpy.random.uniform(-1, 1, (3,)),
        numpy.random.uniform(-1, 1, (3,)), params=p,
        params_grad_grad=numpy.random.uniform(-1, 1, (3,)))
    numpy.testing.assert_array_equal(p.array, before)


def test_check_double_backward_scalar_output_without_y_grad():
    x = numpy.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(lambda x: F.sum(F.sin(x) * x), x, None,
                                         numpy.random.uniform(-1, 1, (3,)))


def test_check_double_backward_float32_with_dtype():
    x = numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32)
    gy = numpy.ones(3, numpy.float32)
    ggx = numpy.ones(3, numpy.float32)
    gradient_check.check_double_backward(F.sin, x, gy, ggx, dtype=numpy.float64,
                                         atol=1e-3, rtol=1e-3)


def test_check_double_backward_argument_lengths():
    x = numpy.ones(2)
    with pytest.raises(ValueError, match='x_grad_grad'):
        gradient_check.check_double_backward(F.sin, x, numpy.ones(2), ())
    p = chainlite.Parameter(numpy.ones(2))
    with pytest.raises(ValueError, match='params_grad_grad'):
        gradient_check.check_double_backward(lambda x: p * x, x, numpy.ones(2), numpy.ones(2),
                                             params=p)


# --- everything Chainer's checks accept ---------------------------------------------------


def _split_sin(x):
    return F.split_axis(F.sin(x), 2, 0)


def test_check_double_backward_with_none_in_y_grad():
    # One piece of split_axis gets no output gradient (the AttributeError).
    x = numpy.random.uniform(-1, 1, (4, 3))
    gradient_check.check_double_backward(_split_sin, x, (numpy.ones((2, 3)), None),
                                         numpy.full((4, 3), 0.5))
    gradient_check.check_double_backward(_split_sin, x, (None, numpy.ones((2, 3))),
                                         numpy.full((4, 3), 0.5))


def test_check_double_backward_with_none_in_y_grad_catches_a_wrong_second_order():
    x = numpy.random.uniform(-1, 1, (4, 3))
    with pytest.raises(AssertionError):
        gradient_check.check_double_backward(
            lambda v: F.split_axis(_WrongSecondOrderSin().apply((v,))[0], 2, 0), x,
            (numpy.ones((2, 3)), None), numpy.full((4, 3), 0.5))


class _WrongSecondOrderSin(chainlite.FunctionNode):
    # sin with a right first-order gradient whose own gradient is wrong (cos is treated as
    # a constant).
    def forward(self, inputs):
        self.retain_inputs((0,))
        return numpy.sin(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * numpy.cos(x.array),


def test_check_double_backward_with_none_in_x_grad_grad():
    x = numpy.random.uniform(-1, 1, (4, 3))
    y = numpy.random.uniform(-1, 1, (4, 3))
    gradient_check.check_double_backward(lambda a, b: a * b * a, (x, y), numpy.ones((4, 3)),
                                         (numpy.ones((4, 3)), None))
    gradient_check.check_double_backward(lambda a, b: a * b * a, (x, y), numpy.ones((4, 3)),
                                         (None, numpy.ones((4, 3))))


def test_check_double_backward_with_none_in_params_grad_grad():
    x = numpy.random.uniform(-1, 1, (4, 3))
    W = chainlite.Parameter(numpy.random.uniform(-1, 1, (2, 3)))
    b = chainlite.Parameter(numpy.random.uniform(-1, 1, (2,)))
    gradient_check.check_double_backward(
        lambda a: F.tanh(F.linear(a, W, b)), x, numpy.ones((4, 2)), numpy.ones((4, 3)),
        params=(W, b), params_grad_grad=(None, numpy.ones(2)))
    gradient_check.check_double_backward(
        lambda a: F.tanh(F.linear(a, W, b)), x, numpy.ones((4, 2)), None,
        params=(W, b), params_grad_grad=(numpy.ones((2, 3)), None))


def test_check_backward_passes_none_inputs_through():
    x = numpy.random.uniform(-1, 1, (4, 3))
    seen = []

    def f(a, b):
        seen.append(b)
        return F.sin(a)

    gradient_check.check_backward(f, (x, None), numpy.ones((4, 3)))
    assert seen and all(b is None for b in seen)
    gradient_check.check_backward(f, (x, None), numpy.ones((4, 3)), no_grads=[False, False])


def test_check_backward_and_double_backward_dtype_option():
    # A float32 function checked in float64 (the numerical pass casts; y_grad is cast back to
    # the outputs' dtype for the first-order gradient, as Chainer does).
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    gy = numpy.ones((4, 3), numpy.float32)
    gradient_check.check_backward(F.tanh, x, gy, dtype=numpy.float64, atol=1e-3, rtol=1e-3)
    gradient_check.check_double_backward(F.tanh, x, gy, gy * 0.5, dtype='d', atol=1e-3,
                                         rtol=1e-3)
    with pytest.raises(ValueError):
        gradient_check.check_backward(F.tanh, x, gy, dtype=numpy.int32)


def test_check_backward_no_grads_option():
    x = numpy.random.uniform(-1, 1, (4, 3))
    i = numpy.array([0, 2])
    gradient_check.check_backward(lambda a, b: F.sin(a)[b], (x, i), numpy.ones((2, 3)),
                                  no_grads=[False, True])
    with pytest.raises(RuntimeError):
        # y gets a gradient although no_grads says it must not.
        gradient_check.check_backward(lambda a, b: a * b, (x, x.copy()), numpy.ones((4, 3)),
                                      no_grads=[False, True])
    gradient_check.check_double_backward(lambda a, b: F.sin(a)[b], (x, i), numpy.ones((2, 3)),
                                         numpy.ones((4, 3)), no_grads=[False, True, False])


def test_check_backward_eps_atol_rtol_and_detect_nondifferentiable():
    x = numpy.array([0.3, -0.4, 0.9])
    gradient_check.check_backward(F.sin, x, numpy.ones(3), eps=1e-4, atol=1e-7, rtol=1e-6)
    with pytest.raises(AssertionError):
        # A coarse step against tight tolerances: the central difference is visibly off.
        gradient_check.check_backward(F.sin, x, numpy.ones(3), eps=0.5, atol=0, rtol=1e-9)
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.check_backward(F.absolute, numpy.zeros(3), numpy.ones(3),
                                      detect_nondifferentiable=True)
    gradient_check.check_double_backward(F.sin, x, numpy.ones(3), numpy.ones(3), eps=1e-4,
                                         atol=1e-6, rtol=1e-5, detect_nondifferentiable=True)


@pytest.mark.parametrize('eps', [0, -1.0])
def test_numerical_grad_rejects_a_non_positive_eps(eps):
    x = numpy.ones(2)
    # A ValueError, and the AssertionError Chainer's tests expect.
    for error in (ValueError, AssertionError):
        with pytest.raises(error, match='eps must be positive'):
            gradient_check.numerical_grad(lambda: (x * 2,), [x], [numpy.ones(2)], eps=eps)
