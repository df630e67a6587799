"""forward_mode.jvp/vjp, chainlite.func's transforms and vmap with GPU arrays, against the CPU.

Each transform runs on the same values as NumPy arrays and as GPU arrays (the CuPy stand-in,
or real CuPy); the GPU results are GPU arrays (or Variables holding them) equal to the CPU's.
"""
import functools

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import forward_mode
from chainlite import func
from chainlite.backends import cuda

DTYPES = [numpy.float32, numpy.float64]
# The stand-in computes with NumPy (equal results); real CuPy's kernels round differently.
_TOL = {numpy.float32: dict(rtol=1e-4, atol=1e-5), numpy.float64: dict(rtol=1e-7, atol=1e-9)}


def _f(x, w):
    return F.tanh(F.matmul(x, w)) * F.exp(x[:, :1])


def _loss(x, w):
    return F.sum(_f(x, w) ** 2)


def _values(dtype):
    rng = numpy.random.default_rng(5)
    return (rng.uniform(-1, 1, (3, 2)).astype(dtype), rng.uniform(-1, 1, (2, 2)).astype(dtype),
            rng.uniform(-1, 1, (3, 2)).astype(dtype))


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _flat(o)]
    return [out]


def _compare(cpu, gpu, gpu_xp, dtype):
    cpu, gpu = _flat(cpu), _flat(gpu)
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        if c is None:
            assert g is None
            continue
        if isinstance(c, chainlite.Variable):
            assert isinstance(g, chainlite.Variable)
            c, g = c.array, g.array
        assert isinstance(g, gpu_xp.ndarray), type(g)
        assert g.dtype == c.dtype == dtype and g.shape == c.shape
        numpy.testing.assert_allclose(cuda.to_cpu(g), c, **_TOL[dtype])


def _both(gpu_xp, dtype, run):
    x, w, v = _values(dtype)
    cpu = run(x, w, v)
    gpu = run(*(gpu_xp.asarray(a) for a in (x, w, v)))
    _compare(cpu, gpu, gpu_xp, dtype)


@pytest.mark.parametrize('dtype', DTYPES)
def test_jvp_and_vjp(gpu_xp, dtype):
    _both(gpu_xp, dtype, lambda x, w, v: forward_mode.jvp(
        _f, (x, w), (v, numpy.zeros_like(w))))

    def vjp(x, w, v):
        out, pullback = forward_mode.vjp(_f, (x, w))
        return out, pullback(v)

    _both(gpu_xp, dtype, vjp)


@pytest.mark.parametrize('dtype', DTYPES)
def test_jvp_through_functions_without_tangent_rules(gpu_xp, dtype):
    # log_softmax and cumsum have no _jvp: the transpose trick runs through their backward.
    def run(x, w, v):
        return forward_mode.jvp(lambda a: F.cumsum(F.log_softmax(a), axis=1), (x,), (v,))

    _both(gpu_xp, dtype, run)


@pytest.mark.parametrize('dtype', DTYPES)
def test_jvp_of_variables_keeps_the_graph(gpu_xp, dtype):
    def run(x, w, v):
        xv = chainlite.Variable(x)
        out, t = forward_mode.jvp(lambda a: F.sin(a) * a, (xv,), (v,))
        g, = chainlite.grad([F.sum(t * t)], [xv])
        return out, t, g

    _both(gpu_xp, dtype, run)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', ['jacrev', 'jacfwd'])
def test_jacobians(gpu_xp, dtype, name):
    transform = getattr(func, name)
    _both(gpu_xp, dtype, lambda x, w, v: transform(_f, argnums=(0, 1))(x, w))


@pytest.mark.parametrize('dtype', DTYPES)
def test_grad_value_and_grad_and_hessian(gpu_xp, dtype):
    _both(gpu_xp, dtype, lambda x, w, v: func.grad(_loss, argnums=(0, 1))(x, w))
    _both(gpu_xp, dtype, lambda x, w, v: func.value_and_grad(_loss)(x, w))
    _both(gpu_xp, dtype, lambda x, w, v: func.hessian(_loss, argnums=1)(x, w))


@pytest.mark.parametrize('dtype', DTYPES)
def test_hvp_and_vhp(gpu_xp, dtype):
    def hvp(x, w, v):
        return func.hvp(lambda a: _loss(a, w), (x,), (v,))

    def vhp(x, w, v):
        return func.vhp(lambda a: _loss(a, w), (x,), (v,))

    _both(gpu_xp, dtype, hvp)
    _both(gpu_xp, dtype, vhp)


@pytest.mark.parametrize('dtype', DTYPES)
def test_vmap(gpu_xp, dtype):
    # A lambda loops; F.sum and F.matmul have batching rules; batched=True calls once.
    _both(gpu_xp, dtype, lambda x, w, v: func.vmap(lambda a: F.sin(a) * a)(x))
    _both(gpu_xp, dtype, lambda x, w, v: func.vmap(
        functools.partial(F.sum, axis=0), in_axes=1)(x))
    _both(gpu_xp, dtype, lambda x, w, v: func.vmap(F.matmul, in_axes=(0, None))(x, w))
    _both(gpu_xp, dtype, lambda x, w, v: func.vmap(
        lambda a, b: F.tanh(a) + b, in_axes=(0, None), out_axes=1, batched=True)(x, w[0]))
    # Per-example gradients: vmap of grad.
    _both(gpu_xp, dtype, lambda x, w, v: func.vmap(
        func.grad(lambda a, b: F.sum(F.tanh(F.matmul(a[None], b)))), in_axes=(0, None))(x, w))


def test_vmap_unmapped_output_on_gpu(gpu_xp):
    x = gpu_xp.asarray(numpy.ones((3, 2)))
    out = func.vmap(lambda a: (a * 2, F.sum(x)), out_axes=(0, None))(x)
    assert isinstance(out[1].array, gpu_xp.ndarray)
    with pytest.raises(ValueError, match='out_axes is None for output 0'):
        func.vmap(lambda a: a * 2, out_axes=None)(gpu_xp.asarray(numpy.arange(4.0)))
