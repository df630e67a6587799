"""Shared by the MPI check scripts: run named checks in lockstep, and a cross-rank gradient
check. Each script runs under ``mpiexec``; rank 0 prints ``PASS <name>`` per check, and a
failing check prints its traceback and aborts the whole job (the tests then see which)."""
import sys
import traceback

import numpy as np

import chainlite as C


def run(comm, checks):
    """Runs ``checks`` (functions of ``comm``) in order on every rank."""
    for check in checks:
        try:
            check(comm)
        except BaseException:
            sys.stderr.write('FAIL %s on rank %d\n%s' % (check.__name__, comm.rank,
                                                         traceback.format_exc()))
            sys.stderr.flush()
            comm.mpi_comm.Abort(1)
        comm.mpi_comm.Barrier()
        if comm.rank == 0:
            print('PASS', check.__name__, flush=True)


def _as_tuple(ys):
    return tuple(ys) if isinstance(ys, (tuple, list)) else (ys,)


def _global_sum(comm, value):
    return float(comm.allreduce(np.array([value], np.float64))[0])


def _inner(a, b):
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def check_backward(comm, func, xs, eps=1e-4, atol=1e-7, rtol=1e-5, directions=3, seed=0):
    """Checks ``func``'s gradients across ranks against central differences.

    ``func(*Variables)`` runs on every rank in lockstep; the global loss is the sum over the
    ranks of ``<gy, y>`` with random ``gy``. The analytic directional derivative (summed over
    ranks) must match the numeric one of the global loss, for a few random directions that
    move every rank's inputs at once.
    """
    rng = np.random.RandomState(seed + 1000 * comm.rank)
    xs = [np.asarray(x) for x in xs]
    vs = [C.Variable(x.copy()) for x in xs]
    ys = _as_tuple(func(*vs))
    gys = [rng.standard_normal(y.shape).astype(y.dtype) for y in ys]
    C.backward(ys, gys)
    gxs = [np.zeros_like(x) if v.grad is None else v.grad for x, v in zip(xs, vs)]

    def loss(ds, t):
        out = _as_tuple(func(*[C.Variable(x + t * d) for x, d in zip(xs, ds)]))
        return _global_sum(comm, sum(_inner(gy, y.array) for gy, y in zip(gys, out)))

    for _ in range(directions):
        ds = [rng.standard_normal(x.shape).astype(x.dtype) for x in xs]
        numeric = (loss(ds, eps) - loss(ds, -eps)) / (2 * eps)
        analytic = _global_sum(comm, sum(_inner(g, d) for g, d in zip(gxs, ds)))
        if not abs(numeric - analytic) <= atol + rtol * abs(numeric):
            raise AssertionError('gradient check failed on rank %d: numeric %r, analytic %r'
                                 % (comm.rank, numeric, analytic))


def check_double_backward(comm, func, xs, **kwargs):
    """Checks the gradient of ``func``'s backward pass (in ``xs`` and the output gradients).
    """
    n = len(xs)
    rng = np.random.RandomState(7 + comm.rank)
    shapes = [(y.shape, y.dtype) for y in _as_tuple(func(*[C.Variable(x) for x in xs]))]
    gys = [rng.standard_normal(s).astype(d) for s, d in shapes]

    def first_order(*args):
        inputs, seeds = args[:n], args[n:]
        ys = _as_tuple(func(*inputs))
        C.backward(ys, list(seeds), enable_double_backprop=True)
        grads = tuple(C.Variable(np.zeros(x.shape, x.dtype)) if x.grad_var is None
                      else x.grad_var for x in inputs)
        for x in inputs:
            x.cleargrad()   # else the outer backward would add to these gradients
        return grads

    check_backward(comm, first_order, list(xs) + gys, **kwargs)
