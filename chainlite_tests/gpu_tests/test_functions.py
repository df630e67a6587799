"""Every function of ``chainlite.functions`` on a GPU array module, against the CPU.

The functions and their inputs are the forward-mode library check's ``SPECS`` (every public
function is in it or in its ``SKIPPED``). For each, in float16, float32 and float64: the
outputs, the first-order gradients and the second-order gradients computed on the GPU (the
strict CuPy stand-in, or real CuPy under ``CHAINLITE_TEST_GPU=1``) match the CPU's, every
result is a GPU array, and a function that refuses an input on the CPU refuses it on the GPU.

The specs' constants (labels, masks, indices: ``A(...)``, ``np.array(...)``, ``T3``) are
module globals that their lambdas look up when called; for the GPU run they are rebound to
the GPU module's constructors, so every array a function sees is on the GPU.
"""
import contextlib
import importlib.util
import os
import pathlib

import numpy
import pytest

import chainlite
from chainlite.backends import cuda

_SPEC_PATH = pathlib.Path(__file__).resolve().parents[1] / 'test_forward_mode_library.py'
_spec = importlib.util.spec_from_file_location('_gpu_forward_mode_specs', _SPEC_PATH)
specs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(specs)

DTYPES = [numpy.float64, numpy.float32, numpy.float16]
REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
# Specs that draw random numbers: the stand-in draws NumPy's, real CuPy its own.
RANDOM = {name for name in specs.SPECS if 'rrelu' in name or 'dropout' in name
          or name in ('gaussian', 'simplified_dropconnect', 'zoneout', 'gumbel_softmax')}
# Specs whose outputs are meant to be on the host: F.copy(x, -1) copies to the CPU.
HOST_RESULTS = {'copy'}
# Specs whose input ranges (logs, inverses, distinctness) do not survive float16 rounding
# the same way on both sides are still compared; tolerances below absorb the rounding.
_TOL = {numpy.float64: (1e-7, 1e-9), numpy.float32: (1e-4, 1e-5), numpy.float16: (2e-2, 2e-3)}


class _DeviceNumpy:
    """``np`` for the specs' lambdas during the GPU run: constructors make GPU arrays."""

    _MAKERS = ('array', 'asarray', 'full', 'ones', 'zeros', 'full_like', 'ones_like',
               'zeros_like', 'arange', 'eye')

    def __init__(self, xp):
        self._xp = xp

    def __getattr__(self, name):
        if name in self._MAKERS:
            return getattr(self._xp, name)
        return getattr(numpy, name)


@contextlib.contextmanager
def _constants_on(xp):
    saved = {k: getattr(specs, k) for k in ('A', 'np', 'T3')}
    specs.A = xp.array
    specs.np = _DeviceNumpy(xp)
    specs.T3 = xp.asarray(saved['T3'])
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(specs, k, v)


def _outputs(out):
    out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    flat = []
    for o in out:
        flat.extend(o if isinstance(o, (tuple, list)) else [o])
    return [o for o in flat if o is not None]


def _run(f, xs, seeds, xp):
    """Outputs, first- and second-order gradients of ``f`` at ``xs`` (arrays of ``xp``)."""
    numpy.random.seed(0)
    vs = [chainlite.Variable(x) for x in xs]
    ys = _outputs(f(*vs))
    ys = [y for y in ys if y.dtype.kind == 'f']
    results = [y.array for y in ys]
    gys = [chainlite.Variable(xp.asarray(seeds.uniform(-1, 1, y.shape).astype(y.dtype)))
           for y in ys]
    gxs = chainlite.grad(ys, vs, gys, enable_double_backprop=True)
    results += [None if g is None else g.array for g in gxs]
    live = [(v, g) for v, g in zip(vs, gxs) if g is not None and g.creator is not None]
    if live:
        ggs = [chainlite.Variable(xp.asarray(seeds.uniform(-1, 1, g.shape).astype(g.dtype)))
               for _, g in live]
        g2 = chainlite.grad([g for _, g in live], vs, ggs)
        results += [None if g is None else g.array for g in g2]
    return results


def _attempt(f, xs, dtype, xp, name):
    seeds = numpy.random.RandomState(sum(map(ord, name)) + 1)
    try:
        return _run(f, xs, seeds, xp), None
    except Exception as e:  # compared with the other device's outcome
        return None, e


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize('name', sorted(specs.SPECS))
def test_function_on_gpu_matches_cpu(name, dtype, gpu_xp):
    f, makers = specs.SPECS[name]
    rng = numpy.random.default_rng(sum(map(ord, name)))
    host = [numpy.asarray(m(rng), numpy.float64).astype(dtype) for m in makers]
    with cuda_off():
        cpu, cpu_error = _attempt(f, host, dtype, numpy, name)
    with _constants_on(gpu_xp):
        gpu, gpu_error = _attempt(f, [gpu_xp.asarray(x) for x in host], dtype, gpu_xp, name)
    if cpu_error is not None:
        assert gpu_error is not None, '%s refuses %s on the CPU (%r) but not on the GPU' % (
            name, numpy.dtype(dtype).name, cpu_error)
        assert type(gpu_error) is type(cpu_error), (cpu_error, gpu_error)
        return
    if gpu_error is not None:
        raise gpu_error
    assert len(gpu) == len(cpu)
    n_outputs = len(_outputs(f(*[chainlite.Variable(x) for x in host])))
    rtol, atol = _TOL[dtype]
    if REAL_GPU:
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        if c is None:
            assert g is None
            continue
        if name in HOST_RESULTS and i < n_outputs:
            assert isinstance(g, numpy.ndarray), '%s: result %d is %s' % (name, i, type(g))
        else:
            assert isinstance(g, gpu_xp.ndarray), '%s: result %d is %s' % (name, i, type(g))
        assert g.dtype == c.dtype and g.shape == c.shape, (name, i)
        if REAL_GPU and name in RANDOM:
            continue
        numpy.testing.assert_allclose(cuda.to_cpu(g), c, rtol=rtol, atol=atol,
                                      err_msg='%s, result %d' % (name, i))


@contextlib.contextmanager
def cuda_off():
    # The CPU run happens with the GPU module installed (it must not leak into CPU code).
    yield
