"""Tests of old-style chainlite.Function (forward/backward on arrays) and its adapter."""
import numpy
import pytest

import chainlite
import chainlite.functions as F


class Legendre3(chainlite.Function):
    # P3(x) = (5x^3 - 3x) / 2, P3'(x) = (15x^2 - 3) / 2
    def forward(self, inputs):
        x, = inputs
        return (5 * x ** 3 - 3 * x) / 2,

    def backward(self, inputs, grad_outputs):
        x, = inputs
        gy, = grad_outputs
        return gy * (15 * x ** 2 - 3) / 2,


def _p3(x):
    return (5 * x ** 3 - 3 * x) / 2


def _dp3(x):
    return (15 * x ** 2 - 3) / 2


def test_legendre_at_one():
    x = chainlite.Variable(numpy.array([1.0]))
    y = Legendre3()(x)
    y.backward()
    numpy.testing.assert_allclose(y.array, [1.0])
    numpy.testing.assert_allclose(x.grad, [6.0])


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_legendre_against_analytic(dtype):
    a = numpy.linspace(-1, 1, 9).astype(dtype)
    x = chainlite.Variable(a)
    y = Legendre3()(x)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _p3(a.astype(numpy.float64)), rtol=1e-5, atol=1e-6)
    F.sum(y).backward()
    assert x.grad.dtype == dtype
    numpy.testing.assert_allclose(x.grad, _dp3(a.astype(numpy.float64)), rtol=1e-5, atol=1e-6)


def test_returns_a_single_variable():
    y = Legendre3()(chainlite.Variable(numpy.array([0.5])))
    assert isinstance(y, chainlite.Variable)


def test_accepts_arrays():
    y = Legendre3()(numpy.array([1.0]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, [1.0])
    assert y.creator is None


def test_creator_is_the_function_and_creator_node_its_adapter():
    f = Legendre3()
    x = chainlite.Variable(numpy.array([0.5]))
    y = f(x)
    assert y.creator is f
    assert isinstance(y.creator_node, chainlite.FunctionAdapter)
    assert isinstance(y.creator_node, chainlite.FunctionNode)
    assert y.creator_node.function is f
    assert f.node is y.creator_node
    assert f.label == 'Legendre3'
    assert y.creator_node.label == 'Legendre3'
    assert f.rank == 0
    assert y.rank == 1
    assert f.inputs == (x.node,)
    assert f.outputs[0]() is y.node


def test_inputs_are_retained_by_default():
    f = Legendre3()
    x = chainlite.Variable(numpy.array([0.5]))
    w = chainlite.Variable(numpy.array([0.25]))
    f(x)
    assert f.node.inputs[0].data is x.array

    class Two(chainlite.Function):
        def forward(self, inputs):
            return inputs[0] + inputs[1],

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    g = Two()
    g(x, w)
    assert g.node.inputs[0].data is x.array
    assert g.node.inputs[1].data is w.array


def test_retain_inputs_limits_what_backward_gets():
    seen = {}

    class ScaleBy(chainlite.Function):
        # y = x * c with c a second input; backward needs only c.
        def forward(self, inputs):
            self.retain_inputs((1,))
            x, c = inputs
            return x * c,

        def backward(self, inputs, grad_outputs):
            seen['inputs'] = inputs
            x, c = inputs
            gy, = grad_outputs
            return gy * c, None

    f = ScaleBy()
    x = chainlite.Variable(numpy.array([1.0, 2.0]))
    c = chainlite.Variable(numpy.array([3.0, 4.0]), requires_grad=False)
    y = f(x, c)
    assert f.node.inputs[0].data is None
    assert f.node.inputs[1].data is c.array
    F.sum(y).backward()
    assert seen['inputs'][0] is None
    numpy.testing.assert_allclose(x.grad, [3.0, 4.0])


def test_retain_outputs_and_output_data():
    class Exp(chainlite.Function):
        def forward(self, inputs):
            self.retain_inputs(())
            self.retain_outputs((0,))
            x, = inputs
            return numpy.exp(x),

        def backward(self, inputs, grad_outputs):
            y, = self.output_data
            gy, = grad_outputs
            return gy * y,

    a = numpy.array([0.0, 1.0, -0.5])
    f = Exp()
    x = chainlite.Variable(a)
    y = f(x)
    assert f.output_data[0] is y.array
    assert f.node.inputs[0].data is None
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(a))


def test_output_data_is_none_when_not_retained():
    f = Legendre3()
    f(chainlite.Variable(numpy.array([1.0])))
    assert f.output_data == (None,)


class SinCos(chainlite.Function):
    def forward(self, inputs):
        x, = inputs
        return numpy.sin(x), numpy.cos(x)

    def backward(self, inputs, grad_outputs):
        x, = inputs
        gs, gc = grad_outputs
        return gs * numpy.cos(x) - gc * numpy.sin(x),


def test_multi_output_returns_tuple():
    a = numpy.array([0.3, 1.2])
    x = chainlite.Variable(a)
    out = SinCos()(x)
    assert isinstance(out, tuple)
    s, c = out
    numpy.testing.assert_allclose(s.array, numpy.sin(a))
    numpy.testing.assert_allclose(c.array, numpy.cos(a))
    F.sum(s + c).backward()
    numpy.testing.assert_allclose(x.grad, numpy.cos(a) - numpy.sin(a))


def test_multi_output_with_one_output_unused_gets_zero_grad():
    a = numpy.array([0.3, 1.2])
    x = chainlite.Variable(a)
    s, c = SinCos()(x)
    F.sum(c).backward()
    numpy.testing.assert_allclose(x.grad, -numpy.sin(a))


def test_twice_differentiation_raises():
    x = chainlite.Variable(numpy.array([0.5]))
    y = Legendre3()(x)
    gx, = chainlite.grad([y], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, [_dp3(0.5)])
    with pytest.raises(RuntimeError, match='cannot twice-differentiate'):
        chainlite.grad([gx], [x])


def test_twice_differentiation_via_backward_raises():
    x = chainlite.Variable(numpy.array([0.5]))
    y = Legendre3()(x)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    x.cleargrad()
    with pytest.raises(RuntimeError, match='cannot twice-differentiate'):
        gx.backward()


def test_old_style_function_inside_new_style_graph():
    a = numpy.array([0.2, -0.4])
    x = chainlite.Variable(a)
    y = F.sin(Legendre3()(x * 2))
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.cos(_p3(2 * a)) * _dp3(2 * a) * 2)


def test_forward_cpu_and_backward_cpu_fallbacks():
    class Double(chainlite.Function):
        def forward_cpu(self, inputs):
            return inputs[0] * 2,

        def backward_cpu(self, inputs, grad_outputs):
            return grad_outputs[0] * 2,

    x = chainlite.Variable(numpy.array([1.0, 2.0]))
    y = Double()(x)
    numpy.testing.assert_allclose(y.array, [2.0, 4.0])
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, [2.0, 2.0])


def test_check_type_forward_of_old_style_function():
    from chainlite.utils import type_check

    class Vector(chainlite.Function):
        def check_type_forward(self, in_types):
            type_check.expect(in_types[0].ndim == 1)

        def forward(self, inputs):
            return inputs[0].copy(),

    Vector()(numpy.zeros(3))
    with pytest.raises(type_check.InvalidType, match=r'Vector \(Forward\)'):
        Vector()(numpy.zeros((2, 3)))


def test_backward_returning_wrong_number_of_grads_raises():
    class Bad(chainlite.Function):
        def forward(self, inputs):
            return inputs[0] * 1,

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    x = chainlite.Variable(numpy.array([1.0]))
    y = Bad()(x)
    with pytest.raises(ValueError):
        y.backward()


def test_old_style_function_unchain_removes_it_from_the_graph():
    class Twice(chainlite.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0] * 2,

    x = chainlite.Variable(numpy.ones(3, numpy.float32))
    f = Twice()
    y = f(x)
    assert y.creator is f
    f.unchain()
    assert y.creator is None
    assert f.node.inputs is None


def test_a_node_rank_set_under_chainers_private_name():
    x = chainlite.Variable(numpy.ones(2))
    x.node._rank = 3
    assert x.rank == 3
    assert (x * 2).rank == 4


def test_grad_of_an_old_style_gradient_raises_before_looking_at_the_inputs():
    x = chainlite.Variable(numpy.array(0.5))
    y = Legendre3()(x)
    y.backward(enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='cannot twice-differentiate.*Legendre3'):
        chainlite.grad([x.grad_var], [None])     # (Chainer checks the outputs first, too)


class _ReturnsGrad(chainlite.Function):
    # Its backward returns whatever it was built with, to test the checks on gradients.
    label = 'returns_grad'

    def __init__(self, grad):
        self.grad = grad

    def forward(self, inputs):
        return numpy.array(1, numpy.float32),

    def backward(self, inputs, grad_outputs):
        return self.grad,


@pytest.mark.parametrize('grad, error, match', [
    (1, TypeError, 'Type of grad is invalid'),
    (numpy.array([1], numpy.int32), TypeError, 'Dtype of data and grad mismatch'),
    (numpy.array([1, 2], numpy.float32), ValueError, 'Shape of data and grad mismatch'),
])
def test_old_style_backward_returning_a_wrong_gradient(grad, error, match):
    x = chainlite.Variable(numpy.array([1], numpy.float32))
    y = _ReturnsGrad(grad)(x)
    with pytest.raises(error, match=match) as info:
        y.backward()
    assert 'returns_grad' in str(info.value)
    assert 'Stacktrace' not in str(info.value)   # only in debug mode


def test_old_style_backward_error_shows_where_the_function_was_applied_in_debug_mode():
    x = chainlite.Variable(numpy.array([1], numpy.float32))
    with chainlite.using_config('debug', True):
        y = _ReturnsGrad(numpy.array([1, 2], numpy.float32))(x)    # this line is shown
        with pytest.raises(ValueError) as info:
            y.backward()
    message = str(info.value)
    assert 'Stacktrace' in message and 'this line is shown' in message


def test_old_style_backward_may_return_numpy_scalars():
    x = chainlite.Variable(numpy.array(1.5))
    y = Legendre3()(x)                           # 0-d arithmetic gives NumPy scalars
    y.backward()
    assert isinstance(x.grad, numpy.ndarray)
    numpy.testing.assert_allclose(x.grad, _dp3(1.5))


def test_old_style_backward_gets_none_for_integer_and_none_outputs():
    seen = []

    class Func(chainlite.Function):
        def forward(self, inputs):
            x, = inputs
            return (x > 0).astype(numpy.int32), x * 2, x * 3, None

        def backward(self, inputs, grad_outputs):
            seen.append(grad_outputs)
            return grad_outputs[1] * 2,

    x = chainlite.Variable(numpy.array([1.0, -1.0]))
    y_int, y2, y3, y_none = Func()(x)
    assert y_none.array is None
    y2.grad = numpy.ones(2)
    y2.backward()
    g_int, g2, g3, g_none = seen[0]
    assert g_int is None and g_none is None
    numpy.testing.assert_array_equal(g3, [0, 0])     # an unused float output: zeros
    numpy.testing.assert_array_equal(x.grad, [2, 2])


def test_hooks_registered_on_an_old_style_function():
    from chainlite import function_hooks
    timer = function_hooks.TimerHook()
    f = Legendre3()
    f.add_hook(timer)                        # before the call: sees forward
    assert 'TimerHook' in f.local_function_hooks
    x = chainlite.Variable(numpy.array([0.5]))
    y = f(x)
    y.backward()
    assert [name for name, _ in timer.call_history] == ['Legendre3', 'Legendre3']
    assert f.node._impl_name == 'Legendre3'
    y2 = f(x)                                # a second call: a new node, the same hooks
    assert y2.creator_node is not y.creator_node
    assert 'TimerHook' in f.local_function_hooks
    f.delete_hook('TimerHook')
    assert not f.local_function_hooks
    f(x)
    assert len(timer.call_history) == 3


def test_nodes_of_retained_outputs_hold_their_arrays():
    # As in Chainer: y.node.data stays set for a retained output after y is gone.
    class Pass(chainlite.Function):
        def forward(self, inputs):
            self.retain_outputs([1])
            return inputs

        def backward(self, inputs, grad_outputs):
            return grad_outputs

    xs = [chainlite.Variable(numpy.array([1., 2.])) for _ in range(2)]
    f = Pass()
    ys = f(*xs)
    nodes = [y.node for y in ys]
    arrays = [y.array for y in ys]
    del ys
    assert nodes[0].data is None
    assert nodes[1].data is arrays[1]
    assert f.output_data[1] is arrays[1]
