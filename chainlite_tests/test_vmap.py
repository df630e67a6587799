"""func.vmap against explicit Python loops: the loop path, the batched paths, compositions."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import _vmap
from chainlite import func


def _array(y):
    return y.array if isinstance(y, chainlite.Variable) else np.asarray(y)


def _loss(w, x):
    return F.sum(F.tanh(w * x) ** 2)


def test_per_example_gradients_match_loop():
    rng = np.random.default_rng(0)
    w = rng.standard_normal(3)
    xs = rng.standard_normal((5, 3))
    got = func.vmap(func.grad(_loss), in_axes=(None, 0))(w, xs)
    want = np.stack([func.grad(_loss)(w, x) for x in xs])
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize('in_axis,out_axis', [(0, 0), (1, 0), (0, 1), (-1, -1), (1, 2)])
def test_loop_path_axes(in_axis, out_axis):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 2))
    def f(x):
        return F.matmul(x, x.T) if x.ndim == 2 else x
    got = func.vmap(f, in_axes=in_axis, out_axes=out_axis)(x)
    want = np.stack([_array(f(xi)) for xi in np.moveaxis(x, in_axis, 0)], out_axis)
    np.testing.assert_allclose(_array(got), want)


def test_vmap_of_jacrev_matches_loop():
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((4, 3))
    def f(x):
        return F.sin(x) * F.sum(x)
    got = func.vmap(func.jacrev(f))(xs)
    want = np.stack([func.jacrev(f)(x) for x in xs])
    assert got.shape == (4, 3, 3)
    np.testing.assert_allclose(got, want)


def test_vmap_of_hessian_matches_loop():
    xs = np.random.default_rng(3).standard_normal((3, 2))
    def f(x):
        return F.sum(x ** 3) + F.sum(x[:1] * x[1:])
    got = func.vmap(func.hessian(f))(xs)
    np.testing.assert_allclose(got, np.stack([func.hessian(f)(x) for x in xs]))


def test_grad_of_vmap_matches_loop():
    rng = np.random.default_rng(4)
    w = rng.standard_normal(3)
    xs = rng.standard_normal((5, 3))

    def total(w):
        return F.sum(func.vmap(_loss, in_axes=(None, 0))(w, xs))

    def total_loop(w):
        return F.sum(F.stack([_loss(w, x) for x in xs]))

    np.testing.assert_allclose(func.grad(total)(w), func.grad(total_loop)(w))


def test_jacrev_of_vmap_matches_loop():
    xs = np.random.default_rng(5).standard_normal((3, 2))
    def f(x):
        return F.sum(x * x) * x
    got = func.jacrev(func.vmap(f))(xs)
    want = func.jacrev(lambda xs: F.stack([f(xs[i]) for i in range(3)]))(xs)
    np.testing.assert_allclose(got, want)


def test_tuple_outputs_and_out_axes():
    xs = np.random.default_rng(6).standard_normal((4, 2, 3))
    def f(x):
        return (F.sum(x, axis=0), x * 2)
    a, b = func.vmap(f, out_axes=(0, 2))(xs)
    np.testing.assert_allclose(a.array, np.stack([x.sum(0) for x in xs]))
    np.testing.assert_allclose(_array(b), np.stack([x * 2 for x in xs], 2))


def test_nested_in_axes_for_tuple_arguments():
    rng = np.random.default_rng(7)
    p = (rng.standard_normal((3, 4)), rng.standard_normal(2))
    x = rng.standard_normal((4, 3))
    def f(p, x):
        return F.sum(F.matmul(p[0], x)) * p[1]
    got = func.vmap(f, in_axes=((1, None), 0))(p, x)
    want = np.stack([f((p[0][:, i], p[1]), x[i]).array for i in range(4)])
    np.testing.assert_allclose(got.array, want)
    # An int for a tuple argument maps every array in it.
    q = (rng.standard_normal((4, 3)), rng.standard_normal((4, 3)))
    got = func.vmap(lambda q: F.sum(q[0] * q[1]))(q)
    np.testing.assert_allclose(got.array, (q[0] * q[1]).sum(1))


@pytest.mark.parametrize('name', _vmap._ELEMENTWISE_NAMES)
@pytest.mark.parametrize('in_axis,out_axis', [(0, 0), (1, 0), (0, -1)])
def test_elementwise_functions_batch_like_the_loop(name, in_axis, out_axis):
    f = getattr(F, name)
    assert any(f is g for g in _vmap._ELEMENTWISE)
    # Positive, away from relu's and abs's kinks, inside log's and sqrt's domains.
    x = np.random.default_rng(8).uniform(0.2, 0.9, (3, 4))
    got = func.vmap(f, in_axes=in_axis, out_axes=out_axis)(x)
    want = np.stack([_array(f(xi)) for xi in np.moveaxis(x, in_axis, 0)], out_axis)
    np.testing.assert_allclose(_array(got), want, rtol=1e-12)


def test_elementwise_path_calls_once_and_keeps_graph():
    x = chainlite.Variable(np.array([[0.5, 1.0], [2.0, 3.0]]))
    y = func.vmap(F.sin, in_axes=1)(x)
    assert y.creator is not None and type(y.creator).__name__ != 'Stack'
    F.sum(y * y).backward()
    np.testing.assert_allclose(x.grad, 2 * np.sin(x.array) * np.cos(x.array))


def test_batched_declaration_calls_f_once():
    rng = np.random.default_rng(9)
    w = rng.standard_normal(3)
    xs = rng.standard_normal((3, 5))
    calls = []

    def f(w, x):
        calls.append(x.shape)
        return F.tanh(w * x) + w

    got = func.vmap(f, in_axes=(None, 1), out_axes=1, batched=True)(w, xs)
    assert calls == [(5, 3)]
    want = np.stack([f(w, xs[:, i]).array for i in range(5)], 1)
    np.testing.assert_allclose(got.array, want)


def test_batched_tuple_outputs():
    xs = np.random.default_rng(10).standard_normal((4, 3))
    def f(x):
        return (F.sum(x, axis=-1), F.exp(x))
    a, b = func.vmap(f, out_axes=(0, 1), batched=True)(xs)
    np.testing.assert_allclose(a.array, xs.sum(1))
    np.testing.assert_allclose(b.array, np.exp(xs).T)


def test_variables_in_variables_out():
    x = chainlite.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    y = func.vmap(lambda v: F.sum(v * v))(x)
    y_sum = F.sum(y)
    y_sum.backward()
    np.testing.assert_allclose(x.grad, 2 * x.array)


def test_mismatched_sizes_named():
    with pytest.raises(ValueError, match=r'in_axes\[0\] has 3, in_axes\[1\] has 4'):
        func.vmap(lambda a, b: a + b)(np.zeros((3, 2)), np.zeros((4, 2)))


@pytest.mark.parametrize('in_axes,match', [
    ((0,), r'in_axes has 1 entries but f got 2'),
    ((0, 2), r'in_axes\[1\] is 2, out of range for an argument of shape \(3,\)'),
    ((None, None), 'maps no argument'),
    ((0, 'a'), r"in_axes\[1\] must be an int, None or a tuple; got 'a'"),
    ((0, (0, 0)), r'in_axes\[1\] is \(0, 0\), a tuple of 2, but the argument there is not'),
    (0.5, 'must be an int'),
])
def test_bad_in_axes_named(in_axes, match):
    with pytest.raises(ValueError, match=match):
        func.vmap(lambda a, b: a + b, in_axes=in_axes)(np.zeros(3), np.zeros(3))


def test_scalar_argument_needs_none():
    with pytest.raises(ValueError, match=r'in_axes\[1\] is 0, .*a float.*None'):
        func.vmap(lambda a, b: a * b)(np.zeros(3), 2.0)
    got = func.vmap(lambda a, b: a * b, in_axes=(0, None))(np.arange(3.0), 2.0)
    np.testing.assert_allclose(_array(got), [0.0, 2.0, 4.0])


def test_bad_out_axes_named():
    with pytest.raises(ValueError, match='out_axes 3 is out of range'):
        func.vmap(lambda x: x * 2, out_axes=3)(np.zeros((2, 2)))
    with pytest.raises(ValueError, match='does not match'):
        func.vmap(lambda x: (x, x), out_axes=(0, 0, 0))(np.zeros((2, 2)))


def test_vmap_of_vmap_matches_double_loop():
    xs = np.random.default_rng(11).standard_normal((3, 4, 2))

    def f(x):
        return F.sum(x * x) * x

    got = func.vmap(func.vmap(f), in_axes=1, out_axes=1)(xs)
    want = np.stack([np.stack([_array(f(xs[i, j])) for i in range(3)]) for j in range(4)], 1)
    np.testing.assert_allclose(_array(got), want)


def test_array_results_stay_arrays():
    got = func.vmap(lambda x: float(np.sum(x)))(np.ones((3, 2)))
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, [2.0, 2.0, 2.0])
