import weakref

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import gradient_check
from chainlite.functions.array.forget import forget


def _f(a, b):
    return (a + b) * a * F.sin(b)


def _two(a, b):
    return a * b, F.exp(a) - b


@pytest.mark.parametrize('shape', [(), (3,), (2, 3)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_forward_matches_the_function(shape, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, shape).astype(dtype) for _ in range(2))
    y = forget(_f, a, b)
    assert y.dtype == dtype and y.shape == shape
    np.testing.assert_allclose(y.array, _f(chainlite.Variable(a), chainlite.Variable(b)).array)
    assert type(y.creator).__name__ == 'Forget'


@pytest.mark.parametrize('shape', [(), (3,)])
def test_backward_and_double_backward(shape):
    rng = np.random.default_rng(1)
    a, b, gy, gga, ggb = (rng.uniform(-1, 1, shape) for _ in range(5))
    gradient_check.check_backward(lambda x, y: forget(_f, x, y), (a, b), gy)
    gradient_check.check_double_backward(lambda x, y: forget(_f, x, y), (a, b), gy,
                                         (gga, ggb))


def test_tuple_outputs_and_a_missing_output_gradient():
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-1, 1, 3) for _ in range(2))
    gradient_check.check_backward(lambda x, y: forget(_two, x, y), (a, b),
                                  (rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)))
    x = chainlite.Variable(a)
    _, q = forget(_two, x, b)
    F.sum(q).backward()                                  # p gets no gradient
    np.testing.assert_allclose(x.grad, np.exp(a))


def test_intermediate_results_are_not_kept():
    kept = []

    def func(x):
        h = F.exp(x)
        kept.append(weakref.ref(h))
        return F.sum(h * x)

    x = chainlite.Variable(np.array([0.5, 1.5]))
    y = forget(func, x)
    assert kept[0]() is None                             # nothing held the intermediate
    assert y.creator.inputs[0] is x.node
    y.backward()
    np.testing.assert_allclose(x.grad, np.exp(x.array) * (1 + x.array))
    assert len(kept) == 2                                # recomputed once, in backward


def test_recomputation_sees_in_recomputing():
    flags = []

    def func(x):
        flags.append(chainlite.config.in_recomputing)
        return x * 2

    x = chainlite.Variable(np.ones(2))
    F.sum(forget(func, x)).backward()
    assert flags == [False, True]
    assert chainlite.config.in_recomputing is False


def test_parameters_used_inside_get_their_gradients():
    rng = np.random.default_rng(3)
    layer = L.Linear(3, 4)
    x = rng.standard_normal((2, 3)).astype(np.float32)

    def loss(out):
        return F.sum(out ** 2)

    layer.cleargrads()
    loss(F.tanh(layer(x))).backward()
    expected = layer.W.grad.copy(), layer.b.grad.copy()
    layer.cleargrads()
    v = chainlite.Variable(x)
    loss(forget(lambda z: F.tanh(layer(z)), v)).backward()
    np.testing.assert_allclose(layer.W.grad, expected[0], rtol=1e-5)
    np.testing.assert_allclose(layer.b.grad, expected[1], rtol=1e-5)
    assert v.grad is not None


def test_double_backprop_reaches_parameters():
    # d/dw of (d/dx sum(tanh(w * x))) ** 2, with and without forget.
    x0, w0 = np.array([0.3, -0.7]), np.array([1.2, 0.4])

    def run(use_forget):
        w = chainlite.Parameter(w0.copy())
        x = chainlite.Variable(x0.copy())
        def f(z):
            return F.tanh(w * z)

        y = forget(f, x) if use_forget else f(x)
        gx, = chainlite.grad([F.sum(y)], [x], enable_double_backprop=True)
        w.cleargrad()
        F.sum(gx ** 2).backward()
        return w.grad

    np.testing.assert_allclose(run(True), run(False))


def test_arrays_become_variables():
    y = forget(lambda a: a * 3, np.ones(2))
    assert isinstance(y, chainlite.Variable) and y.creator is not None


def test_errors():
    with pytest.raises(TypeError, match='callable'):
        forget(3, np.ones(1))
    with pytest.raises(RuntimeError, match='must return a Variable'):
        forget(lambda a: a.array, np.ones(1))
    with pytest.raises(RuntimeError, match='the 2nd element .* not a Variable but ndarray'):
        forget(lambda a: (a, a.array), np.ones(1))
    # Ordinals as in Chainer's message: 1st, 3rd, 11th, 12th, 13th, 21st, 22nd.
    for n, text in [(1, '1st'), (3, '3rd'), (11, '11th'), (12, '12th'), (13, '13th'),
                    (21, '21st'), (22, '22nd')]:
        with pytest.raises(RuntimeError, match='the %s element .* but int' % text):
            forget(lambda a, n=n: (a,) * (n - 1) + (1,), np.ones(1))
    calls = []

    def changing(a):
        calls.append(1)
        return a if len(calls) == 1 else (a, a)

    with pytest.raises(RuntimeError, match='2 outputs when recomputed, 1 the first time'):
        F.sum(forget(changing, np.ones(1))).backward()
