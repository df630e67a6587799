"""Tests of backpropagation: Variable.backward, chainlite.backward and chainlite.grad."""
import gc
import inspect
import weakref

import numpy
import pytest

import chainlite
import chainlite.functions as F


def _f64(*values):
    return numpy.array(values, numpy.float64)


_X = _f64(-1.3, 0.2, 0.7, 2.1)


class RecSin(chainlite.FunctionNode):
    # sin, recording (name, rank) into a log every time its backward runs.
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.sin(x),

    def backward(self, indexes, grad_outputs):
        self.log.append((self.name, self.rank))
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * F.cos(x),


class RecMul(chainlite.FunctionNode):
    # x0 * x1, recording (name, rank, indexes) when its backward runs.
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 * x1,

    def backward(self, indexes, grad_outputs):
        self.log.append((self.name, self.rank, indexes))
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(gy * x1 if i == 0 else gy * x0 for i in indexes)


def _rec_sin(x, name, log):
    return RecSin(name, log).apply((x,))[0]


# --- first derivatives -------------------------------------------------------------------


def test_sin_gradient_is_cos():
    x = chainlite.Variable(_X)
    y = F.sin(x)
    y.grad = numpy.ones_like(_X)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X))


def test_chain_rule_sin_of_square():
    x = chainlite.Variable(_X)
    F.sum(F.sin(x ** 2)).backward()
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X ** 2) * 2 * _X)


def test_variable_used_twice_gets_summed_gradient():
    x = chainlite.Variable(_X)
    F.sum(x * x + x).backward()
    numpy.testing.assert_allclose(x.grad, 2 * _X + 1)


def test_same_variable_as_both_inputs():
    log = []
    x = chainlite.Variable(_X)
    y = RecMul('m', log).apply((x, x))[0]
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, 2 * _X)
    assert log == [('m', 0, (0, 1))]


def test_diamond_graph_gradient_order_and_single_calls():
    log = []
    x = chainlite.Variable(_X)
    a = _rec_sin(x, 'f', log)                          # rank 1
    b = _rec_sin(_rec_sin(x, 'h', log), 'g', log)      # rank 2
    y = RecMul('mul', log).apply((a, b))[0]            # rank 3
    F.sum(y).backward()
    s, ss = numpy.sin(_X), numpy.sin(numpy.sin(_X))
    expected = numpy.cos(_X) * ss + s * numpy.cos(s) * numpy.cos(_X)
    numpy.testing.assert_allclose(x.grad, expected)
    names = [entry[0] for entry in log]
    assert sorted(names) == ['f', 'g', 'h', 'mul']  # each exactly once
    ranks = [entry[1] for entry in log]
    assert ranks == sorted(ranks, reverse=True)
    assert names[:2] == ['mul', 'g']


def test_every_consumer_runs_before_the_producer():
    # h feeds three consumers at different depths; h's creator must run after all of them.
    log = []
    x = chainlite.Variable(_X)
    h = _rec_sin(x, 'h', log)
    c1 = _rec_sin(h, 'c1', log)
    c2 = _rec_sin(_rec_sin(h, 'c2a', log), 'c2b', log)
    c3 = _rec_sin(_rec_sin(_rec_sin(h, 'c3a', log), 'c3b', log), 'c3c', log)
    F.sum(c1 + c2 + c3).backward()
    names = [entry[0] for entry in log]
    assert len(names) == len(set(names)) == 7
    assert names[-1] == 'h'
    assert names.index('c3c') < names.index('c3b') < names.index('c3a')
    assert names.index('c2b') < names.index('c2a')
    # value check against the analytic derivative
    sh = numpy.sin(_X)
    d1 = numpy.cos(sh)
    d2 = numpy.cos(numpy.sin(sh)) * numpy.cos(sh)
    d3 = (numpy.cos(numpy.sin(numpy.sin(sh))) * numpy.cos(numpy.sin(sh)) * numpy.cos(sh))
    numpy.testing.assert_allclose(x.grad, (d1 + d2 + d3) * numpy.cos(_X))


def test_gradients_are_float32_for_float32_inputs():
    a = _X.astype(numpy.float32)
    x = chainlite.Variable(a)
    w = chainlite.Variable(numpy.float32(0.5) * a)
    y = F.sum(F.sin(x * w) ** 2 / 3.0 + F.exp(x) - 2 * F.tanh(w) + x @ w.reshape(4, 1))
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert w.grad.dtype == numpy.float32
    gx, gw = chainlite.grad([y], [x, w], enable_double_backprop=True)
    assert gx.dtype == numpy.float32
    ggx, = chainlite.grad([F.sum(gx)], [x])
    assert ggx.dtype == numpy.float32


# --- higher derivatives ------------------------------------------------------------------


def test_higher_derivatives_of_sin_via_grad():
    x = chainlite.Variable(_X)
    y = F.sin(x)
    gx, = chainlite.grad([F.sum(y)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X))
    ggx, = chainlite.grad([F.sum(gx)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(ggx.array, -numpy.sin(_X))
    gggx, = chainlite.grad([F.sum(ggx)], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gggx.array, -numpy.cos(_X))
    g4x, = chainlite.grad([F.sum(gggx)], [x])
    numpy.testing.assert_allclose(g4x.array, numpy.sin(_X))


def test_higher_derivatives_of_sin_via_backward():
    x = chainlite.Variable(_X)
    y = F.sin(x)
    y.grad = numpy.ones_like(_X)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X))
    assert gx.creator is not None
    x.cleargrad()
    gx.grad = numpy.ones_like(_X)
    gx.backward(enable_double_backprop=True)
    ggx = x.grad_var
    numpy.testing.assert_allclose(ggx.array, -numpy.sin(_X))
    x.cleargrad()
    ggx.grad = numpy.ones_like(_X)
    ggx.backward()
    numpy.testing.assert_allclose(x.grad, -numpy.cos(_X))


def test_without_double_backprop_grad_has_no_creator():
    x = chainlite.Variable(_X)
    F.sum(F.sin(x)).backward()
    assert x.grad_var.creator is None
    gx, = chainlite.grad([F.sum(F.sin(x))], [x])
    assert gx.creator is None


def test_hessian_vector_product():
    # f(x) = sum(x**3) + x0*x1: H = diag(6x) + (E01 + E10).
    a = _f64(0.5, -1.0, 2.0)
    v = _f64(0.3, -0.7, 1.1)
    x = chainlite.Variable(a)
    f = F.sum(x ** 3) + x[0] * x[1]
    gx, = chainlite.grad([f], [x], enable_double_backprop=True)
    numpy.testing.assert_allclose(gx.array, 3 * a ** 2 + _f64(a[1], a[0], 0))
    hv, = chainlite.grad([F.sum(gx * v)], [x])
    H = numpy.diag(6 * a)
    H[0, 1] = H[1, 0] = 1
    numpy.testing.assert_allclose(hv.array, H @ v)


def test_full_hessian_by_double_backprop():
    a = _f64(0.5, -1.0, 2.0)
    H = numpy.diag(6 * a)
    H[0, 1] = H[1, 0] = 1
    x = chainlite.Variable(a)
    f = F.sum(x ** 3) + x[0] * x[1]
    f.backward(enable_double_backprop=True)
    gx = x.grad_var
    rows = []
    for i in range(3):
        x.cleargrad()
        gx[i].backward()
        rows.append(x.grad.copy())
    numpy.testing.assert_allclose(numpy.array(rows), H)


def test_pinn_second_derivative():
    # u = tanh(w*x + b) * sin(x);  u_xx = t'' s + 2 t' c - t s.
    w0, b0 = 1.3, -0.4
    xs = numpy.linspace(-2.0, 2.0, 7)
    x = chainlite.Variable(xs)
    w = chainlite.Variable(numpy.array(w0))
    b = chainlite.Variable(numpy.array(b0))
    u = F.tanh(w * x + b) * F.sin(x)
    u_x, = chainlite.grad([F.sum(u)], [x], enable_double_backprop=True)
    u_xx, = chainlite.grad([F.sum(u_x)], [x], enable_double_backprop=True)
    t = numpy.tanh(w0 * xs + b0)
    s, c = numpy.sin(xs), numpy.cos(xs)
    t1 = w0 * (1 - t ** 2)
    t2 = -2 * w0 ** 2 * t * (1 - t ** 2)
    numpy.testing.assert_allclose(u_x.array, t1 * s + t * c)
    numpy.testing.assert_allclose(u_xx.array, t2 * s + 2 * t1 * c - t * s)
    # the residual is differentiable with respect to the parameters
    loss = F.sum((u_xx + u) ** 2)
    gw, gb = chainlite.grad([loss], [w, b])
    assert gw.shape == () and gb.shape == ()
    assert numpy.isfinite(gw.array) and numpy.isfinite(gb.array)


# --- long chains -------------------------------------------------------------------------

_STEPS = 50_000  # two ops per step: a 100,000-op chain


def _long_chain(x):
    y = x
    for _ in range(_STEPS):
        y = y * 1.0001 + 0.0
    return y


def test_long_chain_backward_without_recursion_error():
    x = chainlite.Variable(numpy.array([1.0, 2.0]))
    y = _long_chain(x)
    assert y.rank == 2 * _STEPS
    factor = 1.0001 ** _STEPS
    numpy.testing.assert_allclose(y.array, x.array * factor, rtol=1e-9)
    F.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(2, factor), rtol=1e-9)
    del y
    gc.collect()


def test_long_chain_grad_and_unchain_backward():
    x = chainlite.Variable(numpy.array([1.0]))
    h = x * 1.0
    y = _long_chain(h)
    gx, = chainlite.grad([y], [x])
    numpy.testing.assert_allclose(gx.array, [1.0001 ** _STEPS], rtol=1e-9)
    first = weakref.ref(h.creator_node)
    y.unchain_backward()
    assert y.creator is None
    assert h.creator is None
    del h
    gc.collect()
    assert first() is None
    y.backward()
    assert x.grad is None


# --- chainlite.grad ----------------------------------------------------------------------


def test_grad_walks_only_paths_reaching_inputs():
    log = []
    x = chainlite.Variable(_X)
    w = chainlite.Variable(_X * 0.5)
    a = _rec_sin(x, 'on_path', log)
    b = _rec_sin(w, 'off_path', log)
    y = RecMul('mul', log).apply((a, b))[0]
    gx, = chainlite.grad([F.sum(y)], [x])
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X) * numpy.sin(_X * 0.5))
    names = [entry[0] for entry in log]
    assert 'off_path' not in names
    assert names == ['mul', 'on_path']
    assert log[0][2] == (0,)  # only the input on the path is a target
    assert x.grad is None and w.grad is None


def test_grad_of_unreachable_input_is_none():
    x = chainlite.Variable(_X)
    z = chainlite.Variable(_X)
    gx, gz = chainlite.grad([F.sum(F.sin(x))], [x, z])
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X))
    assert gz is None


def test_grad_with_respect_to_intermediate_variable():
    x = chainlite.Variable(_X)
    h = F.sin(x)
    y = F.sum(h * h)
    gh, gx = chainlite.grad([y], [h, x])
    numpy.testing.assert_allclose(gh.array, 2 * numpy.sin(_X))
    numpy.testing.assert_allclose(gx.array, 2 * numpy.sin(_X) * numpy.cos(_X))


def test_grad_outputs():
    x = chainlite.Variable(_X)
    y = F.sin(x)
    gy = _f64(1, 2, 3, 4)
    gx, = chainlite.grad([y], [x], grad_outputs=[gy])
    numpy.testing.assert_allclose(gx.array, gy * numpy.cos(_X))


def test_grad_of_non_scalar_without_grad_outputs_seeds_ones():
    # As Chainer: chainlite.grad uses ones of the output's shape, whatever the shape.
    x = chainlite.Variable(_X)
    gx, = chainlite.grad([F.sin(x)], [x])
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X))


def test_grad_inputs_are_added():
    x = chainlite.Variable(_X)
    z = chainlite.Variable(_X)
    gi = _f64(10, 20, 30, 40)
    gx, gz = chainlite.grad([F.sum(F.sin(x))], [x, z], grad_inputs=[gi, gi])
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X) + gi)
    numpy.testing.assert_allclose(gz.array, gi)


def test_grad_set_grad():
    x = chainlite.Variable(_X)
    gx, = chainlite.grad([F.sum(F.sin(x))], [x], set_grad=True)
    assert x.grad is not None
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X))
    numpy.testing.assert_allclose(x.grad, gx.array)


def test_grad_does_not_touch_grads_by_default():
    x = chainlite.Variable(_X)
    h = F.sin(x)
    y = F.sum(h * 2)
    chainlite.grad([y], [x])
    assert x.grad is None
    assert h.grad is None
    assert y.grad is None


def test_grad_retain_grad_keeps_intermediate_grads():
    x = chainlite.Variable(_X)
    h = F.sin(x)
    y = F.sum(h * 3)
    chainlite.grad([y], [x], retain_grad=True)
    numpy.testing.assert_allclose(h.grad, numpy.full(4, 3.0))


def test_grad_loss_scale():
    x = chainlite.Variable(_X)
    gx, = chainlite.grad([F.sum(F.sin(x))], [x], loss_scale=4.0)
    numpy.testing.assert_allclose(gx.array, 4 * numpy.cos(_X))


def test_grad_several_outputs():
    x = chainlite.Variable(_X)
    gx, = chainlite.grad([F.sum(F.sin(x)), F.sum(x * x)], [x])
    numpy.testing.assert_allclose(gx.array, numpy.cos(_X) + 2 * _X)


def test_grad_of_input_that_is_an_output():
    x = chainlite.Variable(_X)
    y = F.sum(x * 2)
    gy, gx = chainlite.grad([y], [y, x])
    numpy.testing.assert_allclose(gy.array, 1.0)
    numpy.testing.assert_allclose(gx.array, numpy.full(4, 2.0))


# --- Variable.backward details -----------------------------------------------------------


def test_intermediate_grads_are_freed_unless_retain_grad():
    x = chainlite.Variable(_X)
    h = F.sin(x)
    y = F.sum(h * h)
    y.backward()
    assert h.grad is None
    x.cleargrad()
    h = F.sin(x)
    y = F.sum(h * h)
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(h.grad, 2 * numpy.sin(_X))
    numpy.testing.assert_allclose(x.grad, 2 * numpy.sin(_X) * numpy.cos(_X))


def test_backward_loss_scale():
    x = chainlite.Variable(_X)
    F.sum(F.sin(x)).backward(loss_scale=8.0)
    numpy.testing.assert_allclose(x.grad, 8 * numpy.cos(_X))


def test_functions_whose_inputs_need_no_grad_are_skipped():
    log = []
    c = chainlite.Variable(_X, requires_grad=False)
    w = chainlite.Variable(_X * 2)
    k = _rec_sin(c, 'const', log)     # no creator: c needs no gradient
    y = RecMul('mul', log).apply((k, w))[0]
    F.sum(y).backward()
    assert [entry[0] for entry in log] == ['mul']
    assert log[0][2] == (1,)
    assert c.grad is None
    numpy.testing.assert_allclose(w.grad, numpy.sin(_X))


def test_requires_grad_false_intermediate_stops_backprop():
    log = []
    x = chainlite.Variable(_X)
    h = _rec_sin(x, 'below', log)
    h.requires_grad = False
    w = chainlite.Variable(_X)
    y = RecMul('mul', log).apply((h, w))[0]
    F.sum(y).backward()
    assert [entry[0] for entry in log] == ['mul']
    assert x.grad is None


def test_unused_output_of_multi_output_function():
    class Split(chainlite.FunctionNode):
        def forward(self, inputs):
            x, = inputs
            return x * 2, x * 3

        def backward(self, indexes, grad_outputs):
            g0, g1 = grad_outputs
            gx = None
            if g0 is not None:
                gx = g0 * 2
            if g1 is not None:
                gx = g1 * 3 if gx is None else gx + g1 * 3
            return gx,

    x = chainlite.Variable(_X)
    a, b = Split().apply((x,))
    F.sum(b).backward()
    numpy.testing.assert_allclose(x.grad, numpy.full(4, 3.0))


# --- chainlite.backward ------------------------------------------------------------------


def test_backward_with_several_outputs():
    x = chainlite.Variable(_X)
    y1 = F.sum(F.sin(x))
    y2 = x * 2
    chainlite.backward([y1, y2], [None, _f64(1, 1, 1, 1)])
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X) + 2)


def test_backward_with_several_scalar_outputs_seeds_one():
    x = chainlite.Variable(_X)
    chainlite.backward([F.sum(F.sin(x)), F.sum(x * x)])
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X) + 2 * _X)


def test_backward_with_grad_set_on_outputs():
    x = chainlite.Variable(_X)
    y1 = F.sin(x)
    y2 = x * 3
    y1.grad = numpy.ones_like(_X)
    y2.grad = numpy.full_like(_X, 2.0)
    chainlite.backward([y1, y2])
    numpy.testing.assert_allclose(x.grad, numpy.cos(_X) + 6)
    # as Variable.backward, the seeds are consumed
    assert y1.grad is None
    assert y2.grad is None


def test_backward_with_shared_subgraph_runs_each_function_once():
    log = []
    x = chainlite.Variable(_X)
    h = _rec_sin(x, 'h', log)
    y1 = _rec_sin(h, 'y1', log)
    y2 = _rec_sin(h, 'y2', log)
    chainlite.backward([y1, y2], [numpy.ones_like(_X), numpy.ones_like(_X)])
    assert sorted(entry[0] for entry in log) == ['h', 'y1', 'y2']
    assert log[-1][0] == 'h'
    sh = numpy.sin(_X)
    numpy.testing.assert_allclose(x.grad, 2 * numpy.cos(sh) * numpy.cos(_X))


def test_backward_mismatched_lengths_raise():
    x = chainlite.Variable(_X)
    with pytest.raises(ValueError):
        chainlite.backward([F.sin(x)], [None, None])


def test_backward_unknown_keyword_raises():
    x = chainlite.Variable(_X)
    with pytest.raises(TypeError):
        chainlite.backward([F.sum(x * 1.0)], foo=True)


def test_backward_enable_double_backprop_keyword():
    x = chainlite.Variable(_X)
    chainlite.backward([F.sum(F.sin(x))], enable_double_backprop=True)
    gx = x.grad_var
    x.cleargrad()
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, -numpy.sin(_X))


def test_summed_gradients_of_a_0d_variable_stay_arrays():
    x = chainlite.Variable(numpy.asarray(0.5))
    y = x * x                                   # two paths into x: the gradients are summed
    gx, = chainlite.grad([y], [x])
    assert isinstance(gx.array, numpy.ndarray) and gx.array.shape == ()
    y.backward()
    y2 = x * x
    y2.backward()                               # accumulation into an existing leaf gradient
    assert isinstance(x.grad, numpy.ndarray) and x.grad.shape == () and x.grad == 2.0


# --- errors in a backward method, worded as Chainer's ---------------------------------------


class _ReturnsThis(chainlite.FunctionNode):
    def __init__(self, grads):
        self.grads = grads

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return self.grads


@pytest.mark.parametrize('grads, error, pattern', [
    ((chainlite.Variable(numpy.ones(2)),), ValueError,
     'shape of gradients returned from backward is incorrect'),
    ((chainlite.Variable(numpy.ones(1, numpy.float32)),), ValueError,
     'dtype of gradients returned from backward is incorrect'),
    ((chainlite.Variable(numpy.ones(1)),) * 2, ValueError,
     'number of gradients returned from backward is incorrect'),
    ((), ValueError, 'number of gradients returned from backward is incorrect'),
])
def test_wrong_gradients_from_backward(grads, error, pattern):
    y = _ReturnsThis(grads).apply((chainlite.Variable(numpy.ones(1)),))[0]
    with pytest.raises(error, match=pattern):
        y.backward()


def test_nan_gradient_in_debug_mode():
    y = _ReturnsThis((chainlite.Variable(numpy.array([numpy.nan])),)).apply(
        (chainlite.Variable(numpy.ones(1)),))[0]
    y.backward()   # not checked outside debug mode
    with chainlite.using_config('debug', True):
        with pytest.raises(RuntimeError, match='NaN is detected on backward computation of'):
            y.backward()


def test_debug_mode_puts_where_the_function_was_applied_into_numpy_errors():
    x = chainlite.Variable(numpy.array(0.))
    with chainlite.using_config('debug', True):
        line = inspect.currentframe().f_lineno + 1
        y = F.sqrt(x)                        # the line the message must name
    with chainlite.using_config('debug', True), numpy.errstate(divide='raise'):
        with pytest.raises(FloatingPointError, match='line %d' % line):
            y.backward()


def test_backward_checks_the_types_of_its_arguments():
    x = chainlite.Variable(numpy.ones((2, 3), numpy.float32))
    y = x * x
    y.grad = numpy.ones((2, 3), numpy.float32)
    gy = chainlite.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(TypeError, match='outputs must be a tuple or a list'):
        chainlite.backward(y)
    with pytest.raises(TypeError, match='grad_outputs must be None, a tuple or a list'):
        chainlite.backward([y], gy)
    with pytest.raises(TypeError, match='each output must be a Variable'):
        chainlite.backward([y.array])
    chainlite.backward([y], [gy])
    numpy.testing.assert_array_equal(x.grad, 2 * x.array)


def test_backward_of_a_repeated_output_uses_its_gradient_once():
    # As in Chainer: the gradient set on y is consumed by its first occurrence, with a warning.
    x = chainlite.Variable(numpy.array(0., numpy.float32))
    y = chainlite.functions.identity(x)
    y.grad = numpy.array(3., numpy.float32)
    with pytest.warns(RuntimeWarning, match='more than once'):
        chainlite.backward([y, y])
    assert x.grad == 3
