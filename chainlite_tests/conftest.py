"""The ``numerics`` marker: tests whose float results depend on the BLAS kernel and threads.

These tests compare two computations of the same values that can reach OpenBLAS by different
paths: chainlite against the benchmarks' hand-written NumPy twins, several MPI ranks against
one process, a static-graph replay against define-by-run, a resumed run against an
uninterrupted one, the packed optimizer update against the per-parameter one, a model
exported to ONNX against ONNX Runtime, examples trained to an accuracy. Their rounding
differs with the CPU's OpenBLAS kernel (Haswell, SkylakeX, Zen, ...) and with the number of
BLAS threads, which changes the order of summation much as another CPU does; so ``.ci/run``
runs them a second time with another thread count (``pytest -m numerics``), and none of them
may compare the end of a float32 trajectory that amplifies rounding.
"""
import pathlib

import pytest

_HERE = pathlib.Path(__file__).resolve().parent
# Paths under chainlite_tests/ (a folder ends with '/').
NUMERICS = (
    'test_benchmarks.py',
    'test_examples.py',
    'test_mixed_precision.py',
    # distributed_tests/test_stopping.py is left out: it checks that a faulty job stops,
    # not what a job computes, and its 14 mpiexec jobs take about a minute.
    'distributed_tests/test_collectives.py',
    'distributed_tests/test_local.py',
    'distributed_tests/test_scripts.py',
    'distributed_tests/test_training.py',
    'graph_optimizations_tests/',
    'training_tests/test_resume.py',
    'training_tests/updaters_tests/',
    'optimizers_tests/test_update_paths.py',
    'onnx_tests/',
    'functions_tests/connection_tests/',
    'functions_tests/rnn_tests/',
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            path = pathlib.Path(item.path).resolve().relative_to(_HERE).as_posix()
        except ValueError:
            continue  # a docs/ page or a module's docstring
        if path.startswith(NUMERICS):
            item.add_marker(pytest.mark.numerics)
        if 'gpu_xp' in getattr(item, 'fixturenames', ()):
            item.add_marker(pytest.mark.gpu)


@pytest.fixture
def gpu_xp():
    """A GPU array module made chainlite's CuPy for the test (``cuda.available`` is True).

    The strict NumPy-backed stand-in (:mod:`chainlite.testing.cupy_stand_in`) by default; real
    CuPy on a real GPU when ``CHAINLITE_TEST_GPU=1`` (benchmarks/gpu_check.py sets it). Skips
    where CuPy is not installed (the stand-in mirrors its namespace).
    """
    import os
    from chainlite.backends import cuda
    if os.environ.get('CHAINLITE_TEST_GPU') == '1':
        cuda._load()
        if not cuda.available:
            pytest.fail('CHAINLITE_TEST_GPU=1 but ' + cuda._reason)
        yield cuda.cupy
        return
    pytest.importorskip('cupy', reason='the CuPy stand-in mirrors the installed CuPy')
    from chainlite.testing import cupy_stand_in
    with cupy_stand_in.installed() as module:
        yield module
